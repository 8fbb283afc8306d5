// The connect flow: authorization code with PKCE (S256), the code exchange and refresh with HTTP
// Basic client authentication, revocation. Server-side only: it holds the API key.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { PartnerError } from "./errors.js";
import { DEFAULT_RETRY, send, type RetryPolicy } from "./retry.js";
import { tokenSetFromResponse, type TokenSet } from "./tokens.js";

export const ALL_SCOPES = ["profile:read", "trade:execute", "governance:vote", "governance:propose", "coin:create"] as const;
export type Scope = (typeof ALL_SCOPES)[number];

function base64url(bytes: Buffer): string {
  return bytes.toString("base64url");
}

/** RFC 7636 S256: base64url(sha256(verifier)), no padding. */
export function s256(verifier: string): string {
  return base64url(createHash("sha256").update(verifier, "ascii").digest());
}

/** A 64-character verifier of [A-Za-z0-9_-] and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(48));
  return { verifier, challenge: s256(verifier) };
}

/** Keep `state` and `verifier` server-side (e.g. in the user's session) until the callback. */
export interface AuthorizationRequest {
  readonly url: string;
  readonly state: string;
  readonly verifier: string;
  readonly redirectUri: string;
  readonly scope: string;
}

export interface OAuthClientOptions {
  baseUrl: string;
  clientId: string;
  apiKey: string;
  redirectUri: string;
  /** Where `/oauth/authorize` is served, when not on `baseUrl`. */
  authUrl?: string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof globalThis.fetch;
}

export class OAuthClient {
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly clientId: string;
  readonly redirectUri: string;
  private readonly apiKey: string;
  private readonly policy: RetryPolicy;
  private readonly fetchImpl: typeof globalThis.fetch;

  constructor(options: OAuthClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.authUrl = (options.authUrl ?? options.baseUrl).replace(/\/+$/, "");
    this.clientId = options.clientId;
    this.apiKey = options.apiKey;
    this.redirectUri = options.redirectUri;
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? globalThis.fetch;
  }

  /** The consent-screen URL to send the user's browser to, with a fresh `state` and PKCE verifier. */
  authorizationRequest(scopes: string | readonly string[] = ALL_SCOPES, opts: { state?: string; verifier?: string } = {}): AuthorizationRequest {
    const scope = typeof scopes === "string" ? scopes : scopes.join(" ");
    const state = opts.state ?? base64url(randomBytes(24));
    const verifier = opts.verifier ?? pkcePair().verifier;
    const query = new URLSearchParams({
      response_type: "code",
      client_id: this.clientId,
      redirect_uri: this.redirectUri,
      scope,
      state,
      code_challenge: s256(verifier),
      code_challenge_method: "S256",
    });
    return { url: `${this.authUrl}/oauth/authorize?${query.toString()}`, state, verifier, redirectUri: this.redirectUri, scope };
  }

  private async postForm(path: string, form: Record<string, string>): Promise<unknown> {
    // never retried on a timeout or 5xx (no Idempotency-Key): a refresh token rotates, and
    // replaying a rotated-out one revokes the whole grant
    const basic = Buffer.from(`${encodeURIComponent(this.clientId)}:${encodeURIComponent(this.apiKey)}`).toString("base64");
    const request = new Request(this.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${basic}` },
      body: new URLSearchParams(form).toString(),
    });
    const response = await send(request, { policy: this.policy, fetch: this.fetchImpl, write: true });
    return (await response.json()) as unknown;
  }

  private async token(form: Record<string, string>): Promise<TokenSet> {
    return tokenSetFromResponse((await this.postForm("/oauth/token", form)) as Record<string, unknown>);
  }

  /** The `authorization_code` grant with the PKCE verifier. */
  exchangeCode(code: string, verifier: string, redirectUri: string = this.redirectUri): Promise<TokenSet> {
    return this.token({ grant_type: "authorization_code", code, redirect_uri: redirectUri, code_verifier: verifier });
  }

  /** Checks the callback's `state` (constant time), surfaces `error=access_denied`, exchanges the code. */
  complete(request: AuthorizationRequest, callback: URLSearchParams | Record<string, string>): Promise<TokenSet> {
    const params = callback instanceof URLSearchParams ? callback : new URLSearchParams(callback);
    const state = Buffer.from(params.get("state") ?? "");
    const expected = Buffer.from(request.state);
    if (state.length !== expected.length || !timingSafeEqual(state, expected)) {
      return Promise.reject(new PartnerError("state_mismatch", undefined, { error: "state_mismatch", message: "the callback's state does not match the request" }));
    }
    const error = params.get("error");
    if (error !== null) return Promise.reject(new PartnerError(error, undefined, { error, message: params.get("error_description") ?? "" }));
    const code = params.get("code");
    if (!code) return Promise.reject(new PartnerError("invalid_request", undefined, { error: "invalid_request", message: "the callback carries no code" }));
    return this.exchangeCode(code, request.verifier, request.redirectUri);
  }

  /** The `refresh_token` grant. The answer's refresh token replaces the one sent: store both together. */
  refresh(refreshToken: string): Promise<TokenSet> {
    return this.token({ grant_type: "refresh_token", refresh_token: refreshToken });
  }

  async revoke(token: string, tokenTypeHint?: "access_token" | "refresh_token"): Promise<void> {
    await this.postForm("/oauth/revoke", tokenTypeHint ? { token, token_type_hint: tokenTypeHint } : { token });
  }
}
