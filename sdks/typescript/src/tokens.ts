// Token storage and the refresh-once store. Refresh tokens rotate on every use and replaying a
// rotated-out one revokes the user's whole grant (the spec's rule 7): so `TokenStore` never
// refreshes concurrently for one user (single-flight in this process, plus the storage's per-user
// lock across processes) and stores the new access and refresh token together, in one `save`.
import { PartnerError, ReauthorizationRequired } from "./errors.js";

export interface TokenSet {
  readonly accessToken: string;
  readonly refreshToken: string;
  /** Unix milliseconds. */
  readonly expiresAt: number;
  readonly scope: string;
  readonly tokenType: string;
}

/** The token endpoint's answer as a TokenSet. */
export function tokenSetFromResponse(data: Record<string, unknown>, now: number = Date.now()): TokenSet {
  const expiresIn = typeof data["expires_in"] === "number" ? data["expires_in"] : 1800;
  return Object.freeze({
    accessToken: String(data["access_token"]),
    refreshToken: String(data["refresh_token"]),
    expiresAt: now + expiresIn * 1000,
    scope: typeof data["scope"] === "string" ? data["scope"] : "",
    tokenType: typeof data["token_type"] === "string" ? data["token_type"] : "Bearer",
  });
}

/** A database or Redis implementation: `save` writes both values in one atomic write; `lock` is a
 * per-user mutual exclusion spanning every process that shares the storage (a row or Redis lock). */
export interface TokenStorage {
  load(user: string): Promise<TokenSet | undefined>;
  save(user: string, tokens: TokenSet): Promise<void>;
  delete(user: string): Promise<void>;
  lock<T>(user: string, fn: () => Promise<T>): Promise<T>;
}

/** Process-local storage: immutable pairs in a Map, one promise-chain mutex per user. */
export class InMemoryTokenStorage implements TokenStorage {
  private readonly pairs = new Map<string, TokenSet>();
  private readonly tails = new Map<string, Promise<unknown>>();

  async load(user: string): Promise<TokenSet | undefined> {
    return this.pairs.get(user);
  }

  async save(user: string, tokens: TokenSet): Promise<void> {
    this.pairs.set(user, tokens); // one reference swap: readers see the old pair or the new one
  }

  async delete(user: string): Promise<void> {
    this.pairs.delete(user);
  }

  async lock<T>(user: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(user) ?? Promise.resolve();
    const run = previous.then(fn, fn);
    const tail = run.catch(() => undefined);
    this.tails.set(user, tail);
    try {
      return await run;
    } finally {
      if (this.tails.get(user) === tail) this.tails.delete(user);
    }
  }
}

/** What the store needs from the OAuth client. */
export interface Refresher {
  refresh(refreshToken: string): Promise<TokenSet>;
  revoke(token: string, tokenTypeHint?: "access_token" | "refresh_token"): Promise<void>;
}

/** What `PartnerClient` needs: a current token, and a refresh after a 401 `invalid_token`. */
export interface TokenSource {
  token(): Promise<string>;
  refresh(stale: string): Promise<boolean>;
}

export interface TokenStoreOptions {
  storage?: TokenStorage;
  /** Refresh this many seconds before expiry (default 60). */
  refreshMargin?: number;
  clock?: () => number;
}

export class TokenStore {
  readonly storage: TokenStorage;
  private readonly margin: number;
  private readonly clock: () => number;
  private readonly inflight = new Map<string, Promise<TokenSet>>();

  constructor(
    readonly oauth: Refresher,
    options: TokenStoreOptions = {},
  ) {
    this.storage = options.storage ?? new InMemoryTokenStorage();
    this.margin = (options.refreshMargin ?? 60) * 1000;
    this.clock = options.clock ?? Date.now;
  }

  private expiring(tokens: TokenSet): boolean {
    return this.clock() + this.margin >= tokens.expiresAt;
  }

  async save(user: string, tokens: TokenSet): Promise<void> {
    await this.storage.save(user, tokens);
  }

  async get(user: string): Promise<TokenSet> {
    const tokens = await this.storage.load(user);
    if (tokens === undefined) throw new ReauthorizationRequired(user);
    return tokens;
  }

  /** True when no usable grant is stored (never connected, revoked, or `invalid_grant`). */
  async needsReauthorization(user: string): Promise<boolean> {
    return (await this.storage.load(user)) === undefined;
  }

  /** A current access token, refreshed first (once, whoever asks) when it is about to expire. */
  async accessToken(user: string): Promise<string> {
    const tokens = await this.get(user);
    if (!this.expiring(tokens)) return tokens.accessToken;
    return (await this.refresh(user, tokens.accessToken)).accessToken;
  }

  /** Refresh the user's pair: one refresh at a time per user. With `staleAccess` (the token a caller
   * saw fail or expire), a pair another caller already replaced is returned as is. */
  refresh(user: string, staleAccess?: string): Promise<TokenSet> {
    const running = this.inflight.get(user);
    if (running !== undefined) return running; // single-flight: join the refresh under way
    const flight = this.storage
      .lock(user, () => this.refreshLocked(user, staleAccess))
      .finally(() => this.inflight.delete(user));
    this.inflight.set(user, flight);
    return flight;
  }

  private async refreshLocked(user: string, staleAccess: string | undefined): Promise<TokenSet> {
    const current = await this.storage.load(user);
    if (current === undefined) throw new ReauthorizationRequired(user);
    if (staleAccess !== undefined && current.accessToken !== staleAccess && !this.expiring(current)) return current;
    let fresh: TokenSet;
    try {
      fresh = await this.oauth.refresh(current.refreshToken);
    } catch (err) {
      if (err instanceof PartnerError && err.code === "invalid_grant") {
        await this.storage.delete(user);
        throw new ReauthorizationRequired(user, err);
      }
      throw err;
    }
    await this.storage.save(user, fresh); // both values in one write
    return fresh;
  }

  /** Revoke the user's grant at the server (the refresh token: its access tokens go too) and forget it. */
  async revoke(user: string): Promise<void> {
    const tokens = await this.storage.lock(user, async () => {
      const stored = await this.storage.load(user);
      await this.storage.delete(user);
      return stored;
    });
    if (tokens !== undefined) await this.oauth.revoke(tokens.refreshToken, "refresh_token");
  }

  forUser(user: string): TokenSource {
    return {
      token: () => this.accessToken(user),
      refresh: async (stale: string) => {
        await this.refresh(user, stale.replace(/^Bearer /, ""));
        return true;
      },
    };
  }
}

/** A bare access token (scripts, tests): a 401 is thrown, never refreshed. */
export function staticToken(accessToken: string): TokenSource {
  return { token: async () => accessToken, refresh: async () => false };
}
