// Typed errors. Every API error is a `PartnerError` whose `body` is the Error object, a union
// discriminated on `error` (generated from the server's catalogue): narrow with `isError`.
import { CATALOGUE, type ApiErrorBody, type ErrorCode, type ErrorFamily } from "./generated/errors.js";

export { CATALOGUE };
export type { ApiErrorBody, ErrorCode, ErrorFamily };

/** The Error object of an answer: a known code's typed body, or an unknown code's fields. */
export type ErrorBody = ApiErrorBody | { readonly error: string; readonly [field: string]: unknown };

export class PartnerError extends Error {
  /** The stable `error` code (match on it), e.g. `slippage_exceeded`; `http_<status>` without one. */
  readonly code: string;
  readonly status: number | undefined;
  readonly body: ErrorBody;
  /** The answer's headers, lower-case names. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: string, status: number | undefined, body: ErrorBody, headers: Record<string, string> = {}) {
    const message = typeof body.message === "string" ? body.message : "";
    super(`${status ?? "-"} ${code}${message ? `: ${message}` : ""}`);
    this.name = "PartnerError";
    this.code = code;
    this.status = status;
    this.body = body;
    this.headers = headers;
  }

  /** A field of the Error object by name (typed access: narrow with `isError`). */
  field(name: string): unknown {
    return (this.body as Record<string, unknown>)[name];
  }

  /** The catalogue's family of the code (`trading`, `caps`, `venue`, ...), undefined for unknown codes. */
  get family(): ErrorFamily | undefined {
    return isCode(this.code) ? CATALOGUE[this.code].family : undefined;
  }

  /** The server's `retryable` hint, else the catalogue's default. */
  get retryable(): boolean {
    if (typeof this.body.retryable === "boolean") return this.body.retryable;
    return isCode(this.code) ? CATALOGUE[this.code].retryable : false;
  }

  /** Seconds to wait: the `retry-after` header, else `retryAfterSeconds` / `cooldownRemainingSeconds`. */
  get retryAfter(): number | undefined {
    for (const value of [this.headers["retry-after"], this.field("retryAfterSeconds"), this.field("cooldownRemainingSeconds")]) {
      const seconds = typeof value === "number" ? value : typeof value === "string" ? Number(value) : NaN;
      if (Number.isFinite(seconds) && seconds >= 0) return seconds;
    }
    return undefined;
  }
}

/** A write timed out or answered 5xx: it may be in flight, and it was NOT retried. Reconcile first
 * (`signature`, when known) or send it again with `idempotencyKey` (replayed, or run once). */
export class AmbiguousWriteError extends PartnerError {
  readonly idempotencyKey: string | undefined;
  readonly signature: string | undefined;

  constructor(code: string, status: number | undefined, body: ErrorBody, idempotencyKey: string | undefined, headers: Record<string, string> = {}) {
    super(code, status, body, headers);
    this.name = "AmbiguousWriteError";
    this.idempotencyKey = idempotencyKey;
    const signature = this.field("signature");
    this.signature = typeof signature === "string" ? signature : undefined;
  }
}

/** No answer: a connection failure (after the read attempts) or a read that kept timing out. */
export class TransportError extends PartnerError {
  constructor(code: string, cause: unknown) {
    super(code, undefined, { error: code, message: cause instanceof Error ? cause.message : String(cause) });
    this.name = "TransportError";
  }
}

/** The stored grant is gone (`invalid_grant` on refresh, or nothing stored): connect the user again. */
export class ReauthorizationRequired extends PartnerError {
  readonly user: string;

  constructor(user: string, cause?: PartnerError) {
    super("reauthorization_required", cause?.status, { error: "reauthorization_required", message: "re-authorize needed" });
    this.name = "ReauthorizationRequired";
    this.user = user;
  }
}

export function isCode(code: string): code is ErrorCode {
  return Object.prototype.hasOwnProperty.call(CATALOGUE, code);
}

/** Narrows an error to one code with that code's fields typed:
 * `if (isError(err, "trade_cap_exceeded")) err.body.maxTradeLamports`. */
export function isError<C extends ErrorCode>(
  err: unknown,
  code: C,
): err is PartnerError & { readonly code: C; readonly body: Extract<ApiErrorBody, { error: C }> } {
  return err instanceof PartnerError && err.code === code;
}

export function errorFromResponse(status: number, body: unknown, headers: Headers | Record<string, string>): PartnerError {
  const lower: Record<string, string> = {};
  if (headers instanceof Headers) headers.forEach((value, name) => (lower[name.toLowerCase()] = value));
  else for (const [name, value] of Object.entries(headers)) lower[name.toLowerCase()] = value;
  const fields = body !== null && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const code = typeof fields["error"] === "string" ? fields["error"] : status === 429 ? "rate_limited" : `http_${status}`;
  return new PartnerError(code, status, { ...fields, error: code } as ErrorBody, lower);
}
