// The Partner API client: typed methods over the generated request layer (openapi-fetch), every
// call under the spec's retry rules (`send`), an Idempotency-Key on every write.
import createClient, { type Client } from "openapi-fetch";
import { PartnerError } from "./errors.js";
import type { components, paths } from "./generated/openapi.js";
import { DEFAULT_RETRY, send, type RetryPolicy } from "./retry.js";
import { staticToken, type TokenSource } from "./tokens.js";

type Schemas = components["schemas"];
export type Profile = Schemas["Profile"];
export type Quote = Schemas["QuoteResponse"];
export type TradeResult = Schemas["TradeResponse"];
export type FeeEstimate = Schemas["FeeEstimate"];
export type GovernanceView = Schemas["GovernanceView"];
export type VotesList = Schemas["VotesList"];
export type GovernanceWriteResult = Schemas["GovernanceWriteResponse"];
export type CoinCreateResult = Schemas["CoinCreateResponse"];
export type UpdateContentResult = Schemas["UpdateContentResponse"];
export type TransactionStatus = Schemas["TransactionStatus"];
export type Upload = Schemas["UploadResponse"];

/** Lamports and token amounts: the API takes decimal strings (u64 exceeds a JS number). */
export type Amount = bigint | number | string;

export const DEFAULT_PRIORITY_FEE = 10_000n;
export const DEFAULT_TIP = 1_000_000n;
/** Images above this go through the staged upload (`uploads`, the S3 POST, `imageUploadId`). */
export const STAGED_UPLOAD_BYTES = 4 * 1024 * 1024;
export const PENDING_STATUSES: readonly string[] = ["pending", "not_found"];
export const LANDED_STATUSES: readonly string[] = ["processed", "confirmed", "finalized"];

/** Per-write options: fees, and the Idempotency-Key (default: a fresh UUID per call, the same on the
 * SDK's own retries; pass your order id to make a resend after a crash safe). */
export interface WriteOptions {
  priorityFeeLamports?: Amount;
  tipLamports?: Amount;
  idempotencyKey?: string;
}

export interface TradeOptions extends WriteOptions {
  slippageBps?: number;
  partnerFeeBps?: number;
}

/** An image: bytes with a filename and a content type . */
export type ImageType = "image/png" | "image/jpeg" | "image/webp" | "image/gif";

export interface Image {
  data: Uint8Array;
  filename: string;
  contentType: ImageType;
}

export interface ContentFields {
  name?: string;
  symbol?: string;
  description?: string;
  website?: string;
  twitter?: string;
  telegram?: string;
  image?: Image;
  imageUploadId?: string;
}

export interface CreateCoinOptions extends Omit<ContentFields, "name" | "symbol"> {
  name: string;
  symbol: string;
  initialBuySol?: Amount;
  initialBuyTokens?: Amount;
  initialBuyMaxSolIn?: Amount;
  slippageBps?: number;
  maxBypassFeeLamports?: Amount;
  priorityFeeLamports?: Amount;
  idempotencyKey?: string;
}

export interface UpdateContentOptions extends ContentFields, WriteOptions {
  mint: string;
  voteDurationSeconds?: number;
  baseContentRevision?: string;
}

export interface PartnerClientOptions {
  baseUrl: string;
  /** A TokenSource (`tokenStore.forUser(id)`: refreshed once on a 401 invalid_token) or a bare access token. */
  auth: TokenSource | string;
  retry?: Partial<RetryPolicy>;
  fetch?: typeof globalThis.fetch;
  priorityFeeLamports?: Amount;
  tipLamports?: Amount;
  /** false: send no Idempotency-Key unless one is passed (writes are then never retried on a timeout). */
  idempotencyKeys?: boolean;
}

// reads that POST: safe to retry like a GET
const READ_POSTS = new Set(["/partner/v1/trades/quote", "/partner/v1/uploads"]);

function amount(value: Amount): string {
  const text = typeof value === "bigint" ? value.toString() : typeof value === "number" ? BigInt(value).toString() : value;
  if (!/^\d+$/.test(text)) throw new RangeError(`not a non-negative integer amount: ${text}`);
  return text;
}

function compact<T extends Record<string, unknown>>(fields: T): T {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined && value !== null)) as T;
}

export class PartnerClient {
  readonly baseUrl: string;
  readonly auth: TokenSource;
  readonly policy: RetryPolicy;
  /** The generated openapi-fetch client (every path of docs/openapi.json), under the same retry rules. */
  readonly api: Client<paths>;
  private readonly fetchImpl: typeof globalThis.fetch;
  private readonly fees: { priorityFeeLamports: string; tipLamports: string };
  private readonly idempotencyKeys: boolean;

  constructor(options: PartnerClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.auth = typeof options.auth === "string" ? staticToken(options.auth) : options.auth;
    this.policy = { ...DEFAULT_RETRY, ...options.retry };
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.fees = {
      priorityFeeLamports: amount(options.priorityFeeLamports ?? DEFAULT_PRIORITY_FEE),
      tipLamports: amount(options.tipLamports ?? DEFAULT_TIP),
    };
    this.idempotencyKeys = options.idempotencyKeys ?? true;
    this.api = createClient<paths>({ baseUrl: this.baseUrl, fetch: (request: Request) => this.dispatch(request) });
  }

  private dispatch(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname;
    const write = request.method !== "GET" && !READ_POSTS.has(path);
    const given = request.headers.get("idempotency-key") ?? undefined;
    const key = write ? (given ?? (this.idempotencyKeys ? crypto.randomUUID() : undefined)) : undefined;
    return send(request, {
      policy: this.policy,
      fetch: this.fetchImpl,
      write,
      authorization: async () => `Bearer ${await this.auth.token()}`,
      onInvalidToken: (stale) => this.auth.refresh(stale.replace(/^Bearer /, "")),
      ...(key !== undefined ? { idempotencyKey: key } : {}),
    });
  }

  private writeFees(opts: WriteOptions): { priorityFeeLamports: string; tipLamports: string } {
    return {
      priorityFeeLamports: opts.priorityFeeLamports !== undefined ? amount(opts.priorityFeeLamports) : this.fees.priorityFeeLamports,
      tipLamports: opts.tipLamports !== undefined ? amount(opts.tipLamports) : this.fees.tipLamports,
    };
  }

  private keyHeader(opts: { idempotencyKey?: string }): Record<string, string> {
    return opts.idempotencyKey !== undefined ? { "Idempotency-Key": opts.idempotencyKey } : {};
  }

  /** openapi-fetch throws nothing for a 2xx; `send` threw every other answer. */
  private static data<T>(result: { data?: T; error?: unknown; response: Response }): T {
    if (result.data === undefined) {
      throw new PartnerError(`http_${result.response.status}`, result.response.status, { error: `http_${result.response.status}` });
    }
    return result.data;
  }

  // ---------------------------------------------------------------- profile, quotes, fees
  /** `GET /partner/v1/me`: the user, wallet and this grant's limits. */
  async me(): Promise<Profile> {
    return PartnerClient.data(await this.api.GET("/partner/v1/me"));
  }

  /** `POST /partner/v1/trades/quote` (a read: retried like one). */
  async quote(request: { side: "buy" | "buy_exact_out" | "sell"; mint: string; maxSolIn?: Amount; tokensOut?: Amount; tokensIn?: Amount; slippageBps?: number; partnerFeeBps?: number }): Promise<Quote> {
    const body = compact({
      side: request.side,
      mint: request.mint,
      maxSolIn: request.maxSolIn === undefined ? undefined : amount(request.maxSolIn),
      tokensOut: request.tokensOut === undefined ? undefined : amount(request.tokensOut),
      tokensIn: request.tokensIn === undefined ? undefined : amount(request.tokensIn),
      slippageBps: request.slippageBps,
      partnerFeeBps: request.partnerFeeBps,
    }) as Schemas["QuoteRequest"];
    return PartnerClient.data(await this.api.POST("/partner/v1/trades/quote", { body }));
  }

  /** `GET /partner/v1/fees/estimate?mint=`: priority-fee percentiles for a trade on `mint`. */
  async feesEstimate(mint: string): Promise<FeeEstimate> {
    return PartnerClient.data(await this.api.GET("/partner/v1/fees/estimate", { params: { query: { mint } } }));
  }

  // ---------------------------------------------------------------- trades
  /** Spend up to `maxSolIn` lamports on `mint`. */
  async buy(mint: string, maxSolIn: Amount, opts: TradeOptions & { minTokensOut?: Amount } = {}): Promise<TradeResult> {
    const body = this.tradeBody(mint, { maxSolIn, minTokensOut: opts.minTokensOut }, opts) as Schemas["BuyRequest"];
    return PartnerClient.data(await this.api.POST("/partner/v1/trades/buy", { body, headers: this.keyHeader(opts) }));
  }

  /** Buy exactly `tokensOut` (base units), paying at most `maxSolIn` when given. */
  async buyExactOut(mint: string, tokensOut: Amount, opts: TradeOptions & { maxSolIn?: Amount } = {}): Promise<TradeResult> {
    const body = this.tradeBody(mint, { tokensOut, maxSolIn: opts.maxSolIn }, opts) as Schemas["BuyExactOutRequest"];
    return PartnerClient.data(await this.api.POST("/partner/v1/trades/buy-exact-out", { body, headers: this.keyHeader(opts) }));
  }

  /** Sell `tokensIn` (base units) of `mint`. */
  async sell(mint: string, tokensIn: Amount, opts: TradeOptions & { minSolOut?: Amount } = {}): Promise<TradeResult> {
    const body = this.tradeBody(mint, { tokensIn, minSolOut: opts.minSolOut }, opts) as Schemas["SellRequest"];
    return PartnerClient.data(await this.api.POST("/partner/v1/trades/sell", { body, headers: this.keyHeader(opts) }));
  }

  /** What every trade sends: the mint, its amounts (as strings; the ones not given left out), the
   * slippage and partner-fee options, and the write fees. */
  private tradeBody(mint: string, amounts: Record<string, Amount | undefined>, opts: TradeOptions): Record<string, unknown> {
    const given = Object.fromEntries(Object.entries(amounts).map(([name, value]) => [name, value === undefined ? undefined : amount(value)]));
    return compact({ mint, ...given, slippageBps: opts.slippageBps, partnerFeeBps: opts.partnerFeeBps, ...this.writeFees(opts) });
  }

  // ---------------------------------------------------------------- governance
  /** `GET /partner/v1/governance/{mint}`: the governance, its active proposal and this user's vote. */
  async governance(mint: string): Promise<GovernanceView> {
    return PartnerClient.data(await this.api.GET("/partner/v1/governance/{mint}", { params: { path: { mint } } }));
  }

  async proposalVotes(proposal: string, limit?: number): Promise<VotesList> {
    const query = limit === undefined ? {} : { limit: String(limit) };
    return PartnerClient.data(
      await this.api.GET("/partner/v1/governance/proposals/{proposal}/votes", { params: { path: { proposal }, query } }),
    );
  }

  private async governanceWrite(
    path:
      | "/partner/v1/governance/votes"
      | "/partner/v1/governance/votes/cancel"
      | "/partner/v1/governance/votes/withdraw"
      | "/partner/v1/governance/proposals/settle"
      | "/partner/v1/governance/proposals/extend-mutability"
      | "/partner/v1/governance/proposals/finalize-metadata"
      | "/partner/v1/governance/metadata/finalize-expired"
      | "/partner/v1/governance/bonds/withdraw",
    fields: Record<string, unknown>,
    opts: WriteOptions,
  ): Promise<GovernanceWriteResult> {
    const body = compact({ ...fields, ...this.writeFees(opts) });
    // one body type per path; `fields` was built for the path by the public method
    const result = await this.api.POST(path, { body: body as never, headers: this.keyHeader(opts) });
    return PartnerClient.data(result as { data?: GovernanceWriteResult; response: Response });
  }

  /** Lock `amount` tokens on `side` of the active proposal. */
  vote(proposal: string, side: "yes" | "no", amountTokens: Amount, opts: WriteOptions = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite("/partner/v1/governance/votes", { proposal, side, amount: amount(amountTokens) }, opts);
  }

  cancelVote(proposal: string, opts: WriteOptions = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite("/partner/v1/governance/votes/cancel", { proposal }, opts);
  }

  withdrawVote(proposal: string, opts: WriteOptions & { voter?: string } = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite("/partner/v1/governance/votes/withdraw", { proposal, voter: opts.voter }, opts);
  }

  settleProposal(proposal: string, opts: WriteOptions = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite("/partner/v1/governance/proposals/settle", { proposal }, opts);
  }

  proposeExtendMutability(mint: string, additionalSeconds: number, opts: WriteOptions & { voteDurationSeconds?: number } = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite(
      "/partner/v1/governance/proposals/extend-mutability",
      { mint, additionalSeconds: String(additionalSeconds), voteDurationSeconds: opts.voteDurationSeconds?.toString() },
      opts,
    );
  }

  proposeFinalizeMetadata(mint: string, opts: WriteOptions & { voteDurationSeconds?: number } = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite(
      "/partner/v1/governance/proposals/finalize-metadata",
      { mint, voteDurationSeconds: opts.voteDurationSeconds?.toString() },
      opts,
    );
  }

  finalizeExpiredMetadata(mint: string, opts: WriteOptions = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite("/partner/v1/governance/metadata/finalize-expired", { mint }, opts);
  }

  withdrawBond(proposal: string, opts: WriteOptions = {}): Promise<GovernanceWriteResult> {
    return this.governanceWrite("/partner/v1/governance/bonds/withdraw", { proposal }, opts);
  }

  // ---------------------------------------------------------------- multipart: content and launches
  /** The image as a multipart part, or (over 4 MiB) staged first and sent as `imageUploadId`. */
  private async attachImage(form: FormData, image: Image | undefined, uploadId: string | undefined): Promise<void> {
    if (uploadId !== undefined) form.set("imageUploadId", uploadId);
    if (image === undefined) return;
    if (image.data.byteLength > STAGED_UPLOAD_BYTES) {
      form.set("imageUploadId", await this.uploadImage(image));
      return;
    }
    form.set("image", new Blob([new Uint8Array(image.data)], { type: image.contentType }), image.filename);
  }

  private async multipart(
    path: "/partner/v1/coins/create" | "/partner/v1/governance/proposals/update-content",
    form: FormData,
    idempotencyKey: string | undefined,
  ): Promise<unknown> {
    const result = await this.api.POST(path, {
      body: form as never, // multipart: the FormData as is
      bodySerializer: (body: unknown) => body as FormData,
      headers: this.keyHeader({ ...(idempotencyKey !== undefined ? { idempotencyKey } : {}) }),
    });
    return PartnerClient.data(result as { data?: unknown; response: Response });
  }

  /** Propose a content change (multipart): omitted fields stay; an empty string clears a link or description. */
  async proposeUpdateContent(opts: UpdateContentOptions): Promise<UpdateContentResult> {
    const form = new FormData();
    const fields = compact({
      mint: opts.mint,
      name: opts.name,
      symbol: opts.symbol,
      description: opts.description,
      website: opts.website,
      twitter: opts.twitter,
      telegram: opts.telegram,
      voteDurationSeconds: opts.voteDurationSeconds?.toString(),
      baseContentRevision: opts.baseContentRevision,
      ...this.writeFees(opts),
    });
    for (const [name, value] of Object.entries(fields)) form.set(name, String(value));
    await this.attachImage(form, opts.image, opts.imageUploadId);
    return (await this.multipart("/partner/v1/governance/proposals/update-content", form, opts.idempotencyKey)) as UpdateContentResult;
  }

  /** Launch a coin (multipart); a first buy (`initialBuySol` or `initialBuyTokens`) makes it a bundle. */
  async createCoin(opts: CreateCoinOptions): Promise<CoinCreateResult> {
    const form = new FormData();
    const optional = (value: Amount | undefined) => (value === undefined ? undefined : amount(value));
    const fields = compact({
      name: opts.name,
      symbol: opts.symbol,
      description: opts.description,
      website: opts.website,
      twitter: opts.twitter,
      telegram: opts.telegram,
      priorityFeeLamports: opts.priorityFeeLamports !== undefined ? amount(opts.priorityFeeLamports) : this.fees.priorityFeeLamports,
      initialBuySol: optional(opts.initialBuySol),
      initialBuyTokens: optional(opts.initialBuyTokens),
      initialBuyMaxSolIn: optional(opts.initialBuyMaxSolIn),
      slippageBps: opts.slippageBps?.toString(),
      maxBypassFeeLamports: optional(opts.maxBypassFeeLamports),
    });
    for (const [name, value] of Object.entries(fields)) form.set(name, String(value));
    await this.attachImage(form, opts.image, opts.imageUploadId);
    return (await this.multipart("/partner/v1/coins/create", form, opts.idempotencyKey)) as CoinCreateResult;
  }

  /** The staged upload: `POST /partner/v1/uploads`, then the S3 browser POST (the answer's `fields`,
   * then the file as `file`; no bearer token goes to S3). Returns the `uploadId` for `imageUploadId`. */
  async uploadImage(image: Image): Promise<string> {
    const staged: Upload = PartnerClient.data(
      await this.api.POST("/partner/v1/uploads", { body: { contentType: image.contentType, contentLength: String(image.data.byteLength) } }),
    );
    const form = new FormData();
    for (const [name, value] of Object.entries(staged.fields)) form.set(name, value);
    form.set("file", new Blob([new Uint8Array(image.data)], { type: image.contentType }), image.filename);
    const sent = await this.fetchImpl(new Request(staged.url, { method: "POST", body: form }));
    if (![200, 201, 204].includes(sent.status)) {
      const text = (await sent.text()).slice(0, 300);
      throw new PartnerError("upload_failed", sent.status, { error: "upload_failed", message: `The staged upload was refused by storage: ${text}` });
    }
    return staged.uploadId;
  }

  // ---------------------------------------------------------------- transactions
  async transactionStatus(signature: string): Promise<TransactionStatus> {
    return PartnerClient.data(await this.api.GET("/partner/v1/transactions/{signature}/status", { params: { path: { signature } } }));
  }

  /** Follows the status until it reaches `until` (default: any final state: confirmed, finalized,
   * failed, expired) or `timeout` seconds pass; returns the last answer. */
  async waitForTransaction(
    signature: string,
    opts: { until?: readonly TransactionStatus["status"][]; timeout?: number; interval?: number } = {},
  ): Promise<TransactionStatus> {
    const until = opts.until ?? ["confirmed", "finalized", "failed", "expired"];
    const deadline = Date.now() + (opts.timeout ?? 60) * 1000;
    for (;;) {
      const status = await this.transactionStatus(signature);
      if (until.includes(status.status) || status.status === "failed" || status.status === "expired" || Date.now() >= deadline) return status;
      await this.policy.sleep(opts.interval ?? 0.5);
    }
  }
}
