// The spec's retry rules, and what an Idempotency-Key adds to them, in one place (`send`).
//
// 1. 429: wait `retry-after` and retry (bounded; a wait longer than `maxRetryAfter` is thrown).
// 2. 409 `migration_pending` / `pool_not_open`: back off a few seconds and retry (bounded).
// 3. Reads: 5xx, timeouts and lost connections back off exponentially under a ceiling.
// 4. 400/401/403/404/422: never retried unchanged (401 `invalid_token` refreshes once, then retries once).
// 5. Writes: never retried on a timeout or 5xx (AmbiguousWriteError) unless an Idempotency-Key was
//    sent: a keyed write that timed out is sent again under the same key (the server replays the
//    first answer or runs it once). A 5xx answer is the key's stored answer: ambiguous either way.
//    `409 idempotency_key_in_use` waits `retry-after`; after a 409 migration_pending / pool_not_open
//    (nothing was built) the retry uses a new key. A connection refused reached nobody: retried.
import { AmbiguousWriteError, PartnerError, TransportError, errorFromResponse } from "./errors.js";

export const RETRY_CONFLICTS: readonly string[] = ["migration_pending", "pool_not_open"];

export interface RetryPolicy {
  rateLimitRetries: number;
  /** Seconds; a longer `retry-after` is thrown, not slept. */
  maxRetryAfter: number;
  defaultRetryAfter: number;
  conflictRetries: number;
  conflictBackoff: number;
  conflictFactor: number;
  conflictBackoffMax: number;
  /** The hard ceiling on a read's attempts (the first included). */
  readAttempts: number;
  readBackoff: number;
  readBackoffMax: number;
  keyedWriteRetries: number;
  inUseRetries: number;
  /** +/- fraction of each backoff. */
  jitter: number;
  /** Per attempt, seconds. */
  timeout: number;
  sleep: (seconds: number) => Promise<void>;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({
  rateLimitRetries: 3,
  maxRetryAfter: 60,
  defaultRetryAfter: 1,
  conflictRetries: 5,
  conflictBackoff: 2,
  conflictFactor: 1.5,
  conflictBackoffMax: 8,
  readAttempts: 4,
  readBackoff: 0.5,
  readBackoffMax: 8,
  keyedWriteRetries: 2,
  inUseRetries: 30,
  jitter: 0.1,
  timeout: 30,
  sleep: (seconds: number) => new Promise<void>((resolve) => setTimeout(resolve, seconds * 1000)),
});

export const NO_RETRY: Readonly<RetryPolicy> = Object.freeze({
  ...DEFAULT_RETRY,
  rateLimitRetries: 0,
  conflictRetries: 0,
  readAttempts: 1,
  keyedWriteRetries: 0,
  inUseRetries: 0,
});

function jittered(policy: RetryPolicy, seconds: number): number {
  return policy.jitter > 0 ? Math.max(0, seconds * (1 + (Math.random() * 2 - 1) * policy.jitter)) : seconds;
}

export function conflictDelay(policy: RetryPolicy, retry: number): number {
  return jittered(policy, Math.min(policy.conflictBackoff * policy.conflictFactor ** retry, policy.conflictBackoffMax));
}

export function readDelay(policy: RetryPolicy, retry: number): number {
  return jittered(policy, Math.min(policy.readBackoff * 2 ** retry, policy.readBackoffMax));
}

/** What one logical request needs besides the request itself. */
export interface SendOptions {
  policy: RetryPolicy;
  fetch: typeof globalThis.fetch;
  write: boolean;
  /** The `Authorization` header value of each attempt (a refreshed token after a 401). */
  authorization?: () => Promise<string>;
  /** Called once after a 401 `invalid_token` with the header that failed; true: retry. */
  onInvalidToken?: (stale: string) => Promise<boolean>;
  /** The write's Idempotency-Key: the same on the SDK's own retries. */
  idempotencyKey?: string;
}

function refused(err: unknown): boolean {
  // undici: TypeError("fetch failed") whose cause carries the socket error's code
  const cause = (err as { cause?: { code?: unknown } } | null)?.cause;
  const code = typeof cause?.code === "string" ? cause.code : "";
  return ["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "ENETUNREACH", "EHOSTUNREACH"].includes(code);
}

async function decode(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** Send one logical request under the retry rules; resolves with the 2xx Response, else throws. */
export async function send(request: Request, options: SendOptions): Promise<Response> {
  const { policy, write } = options;
  const body = request.body === null ? undefined : await request.arrayBuffer();
  let key = options.idempotencyKey;
  let rateLimited = 0;
  let conflicts = 0;
  let readFailures = 0;
  let keyedRetries = 0;
  let inUse = 0;
  let refreshed = false;
  for (;;) {
    const headers = new Headers(request.headers);
    const authorization = options.authorization ? await options.authorization() : undefined;
    if (authorization !== undefined) headers.set("authorization", authorization);
    if (key !== undefined) headers.set("idempotency-key", key);
    let response: Response;
    try {
      response = await options.fetch(
        new Request(request.url, { method: request.method, headers, body, signal: AbortSignal.timeout(policy.timeout * 1000) }),
      );
    } catch (err) {
      if (refused(err)) {
        // nothing reached the server: safe for writes too
        readFailures += 1;
        if (readFailures >= policy.readAttempts) throw new TransportError("connection_failed", err);
        await policy.sleep(readDelay(policy, readFailures - 1));
        continue;
      }
      if (write && key !== undefined && keyedRetries < policy.keyedWriteRetries) {
        await policy.sleep(readDelay(policy, keyedRetries)); // the same key: replayed or run once
        keyedRetries += 1;
        continue;
      }
      const code = err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError") ? "timeout" : "transport_error";
      if (write) {
        const message = `${String(err)}; not retried, reconcile first${key !== undefined ? " or send it again with the same idempotencyKey" : ""}`;
        throw new AmbiguousWriteError(code, undefined, { error: code, message }, key);
      }
      readFailures += 1;
      if (readFailures >= policy.readAttempts) throw new TransportError(code, err);
      await policy.sleep(readDelay(policy, readFailures - 1));
      continue;
    }

    const status = response.status;
    if (status >= 200 && status < 300) return response;
    const error = errorFromResponse(status, await decode(response), response.headers);

    if (status === 401 && error.code === "invalid_token" && options.onInvalidToken && !refreshed && authorization !== undefined) {
      refreshed = true;
      if (await options.onInvalidToken(authorization)) continue;
      throw error;
    }
    if (status === 429) {
      const wait = error.retryAfter ?? policy.defaultRetryAfter;
      if (rateLimited >= policy.rateLimitRetries || wait > policy.maxRetryAfter) throw error;
      rateLimited += 1;
      await policy.sleep(wait);
      continue;
    }
    if (status === 409 && error.code === "idempotency_key_in_use" && key !== undefined) {
      if (inUse >= policy.inUseRetries) throw error;
      await policy.sleep(error.retryAfter ?? policy.defaultRetryAfter);
      inUse += 1;
      continue;
    }
    if (status === 409 && RETRY_CONFLICTS.includes(error.code)) {
      if (conflicts >= policy.conflictRetries) throw error;
      await policy.sleep(conflictDelay(policy, conflicts));
      conflicts += 1;
      if (key !== undefined) key = crypto.randomUUID(); // the 409 is the old key's stored answer; nothing was built
      continue;
    }
    if (status >= 500) {
      if (write) throw new AmbiguousWriteError(error.code, status, error.body, key, { ...error.headers });
      readFailures += 1;
      if (readFailures >= policy.readAttempts) throw error;
      await policy.sleep(readDelay(policy, readFailures - 1));
      continue;
    }
    throw error;
  }
}

export { PartnerError };
