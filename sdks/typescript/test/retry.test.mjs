import assert from "node:assert/strict";
import { test } from "node:test";
import { AmbiguousWriteError, PartnerClient, PartnerError, TransportError, isError } from "../dist/index.js";
import { json, recordingSleep, refused, scriptedFetch, timeout } from "./helpers.mjs";

const MINT = "So11111111111111111111111111111111111111112";
const TRADE = { signature: "sig", status: "submitted" };

function client(answers, extra = {}) {
  const { fetch, calls } = scriptedFetch(answers);
  const { slept, sleep } = recordingSleep();
  const c = new PartnerClient({ baseUrl: "http://api.test", auth: "tok", fetch, retry: { jitter: 0, sleep }, ...extra });
  return { c, calls, slept };
}

test("429: waits retry-after, then retries", async () => {
  const { c, calls, slept } = client([json(429, { error: "rate_limit_exceeded", retryAfterSeconds: 7 }, { "retry-after": "3" }), json(200, { user: {} })]);
  await c.me();
  assert.equal(calls.length, 2);
  assert.deepEqual(slept, [3]); // the header first
});

test("429 of a per-endpoint bucket (no error code): retryAfterSeconds", async () => {
  const { c, calls, slept } = client([json(429, { message: "slow down", retryAfterSeconds: 2 }), json(200, {})]);
  await c.me();
  assert.equal(calls.length, 2);
  assert.deepEqual(slept, [2]);
});

test("429 with a retry-after above the ceiling is thrown, not slept", async () => {
  const { c, calls, slept } = client([json(429, { error: "rate_limit_exceeded" }, { "retry-after": "3600" })]);
  await assert.rejects(c.me(), (err) => isError(err, "rate_limit_exceeded") && err.retryAfter === 3600);
  assert.equal(calls.length, 1);
  assert.deepEqual(slept, []);
});

test("429 retries are bounded", async () => {
  const answers = Array.from({ length: 4 }, () => json(429, { error: "rate_limit_exceeded" }, { "retry-after": "1" }));
  const { c, calls } = client(answers);
  await assert.rejects(c.me(), (err) => err instanceof PartnerError && err.status === 429);
  assert.equal(calls.length, 4); // the first try and rateLimitRetries=3
});

test("409 pool_not_open on a write: retried in seconds under a NEW key", async () => {
  const { c, calls, slept } = client([json(409, { error: "pool_not_open", retryAfterSeconds: 2 }), json(409, { error: "migration_pending" }), json(200, TRADE)]);
  await c.buy(MINT, 1000n);
  assert.equal(calls.length, 3);
  assert.deepEqual(slept, [2, 3]); // conflictBackoff 2 s growing by 1.5
  const keys = calls.map((call) => call.headers["idempotency-key"]);
  assert.equal(new Set(keys).size, 3, "nothing was built: each retry is a new attempt under a new key");
});

test("reads: 5xx backs off exponentially up to the attempt ceiling", async () => {
  const answers = Array.from({ length: 4 }, () => json(503, { error: "rpc_unavailable" }));
  const { c, calls } = client(answers);
  await assert.rejects(c.me(), (err) => isError(err, "rpc_unavailable"));
  assert.equal(calls.length, 4); // readAttempts: the ceiling, first try included
});

test("reads: the backoff is capped by readBackoffMax", async () => {
  const { fetch, calls } = scriptedFetch([json(503, {}), json(503, {}), json(503, {}), json(200, {})]);
  const { slept, sleep } = recordingSleep();
  const c = new PartnerClient({ baseUrl: "http://api.test", auth: "t", fetch, retry: { jitter: 0, readBackoff: 1, readBackoffMax: 3, sleep } });
  await c.me();
  assert.equal(calls.length, 4);
  assert.deepEqual(slept, [1, 2, 3]);
});

test("reads: a timeout is retried", async () => {
  const { c, calls } = client([timeout(), json(200, { user: {} })]);
  await c.me();
  assert.equal(calls.length, 2);
});

test("a quote is a read: retried after a 5xx", async () => {
  const { c, calls } = client([json(502, { error: "internal" }), json(200, { side: "buy" })]);
  await c.quote({ side: "buy", mint: MINT, maxSolIn: 5n });
  assert.equal(calls.length, 2);
  assert.equal(calls[0].headers["idempotency-key"], undefined);
});

test("writes: every write sends an Idempotency-Key", async () => {
  const { c, calls } = client([json(200, TRADE), json(200, TRADE)]);
  await c.buy(MINT, 1000n);
  await c.sell(MINT, 5n, { idempotencyKey: "order-42" });
  assert.match(calls[0].headers["idempotency-key"], /^[0-9a-f-]{36}$/);
  assert.equal(calls[1].headers["idempotency-key"], "order-42");
  assert.deepEqual(JSON.parse(calls[0].body), { mint: MINT, maxSolIn: "1000", priorityFeeLamports: "10000", tipLamports: "1000000" });
});

test("writes: a 5xx is never retried, even with a key (AmbiguousWriteError carries the key)", async () => {
  const { c, calls } = client([json(503, { error: "rpc_unavailable", signature: "5ig" })]);
  await assert.rejects(c.buy(MINT, 1000n, { idempotencyKey: "k1" }), (err) => {
    assert.ok(err instanceof AmbiguousWriteError);
    assert.equal(err.idempotencyKey, "k1");
    assert.equal(err.signature, "5ig");
    return true;
  });
  assert.equal(calls.length, 1);
});

test("writes: a timeout is retried under the SAME key", async () => {
  const { c, calls } = client([timeout(), json(200, TRADE)]);
  await c.buy(MINT, 1000n);
  assert.equal(calls.length, 2);
  assert.equal(calls[0].headers["idempotency-key"], calls[1].headers["idempotency-key"]);
});

test("writes without a key: a timeout is NOT retried", async () => {
  const { c, calls } = client([timeout(), json(200, TRADE)], { idempotencyKeys: false });
  await assert.rejects(c.buy(MINT, 1000n), (err) => err instanceof AmbiguousWriteError && err.code === "timeout" && err.idempotencyKey === undefined);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].headers["idempotency-key"], undefined);
});

test("writes: keyed timeouts are bounded (keyedWriteRetries)", async () => {
  const { c, calls } = client([timeout(), timeout(), timeout()]);
  await assert.rejects(c.buy(MINT, 1000n), (err) => err instanceof AmbiguousWriteError && typeof err.idempotencyKey === "string");
  assert.equal(calls.length, 3);
});

test("writes: a refused connection reached nobody and is retried", async () => {
  const { c, calls } = client([refused(), json(200, TRADE)], { idempotencyKeys: false });
  await c.buy(MINT, 1000n);
  assert.equal(calls.length, 2);
});

test("reads: connection failures end in TransportError after the ceiling", async () => {
  const { c, calls } = client([refused(), refused(), refused(), refused()]);
  await assert.rejects(c.me(), (err) => err instanceof TransportError && err.code === "connection_failed");
  assert.equal(calls.length, 4);
});

test("409 idempotency_key_in_use: waits retry-after, same key", async () => {
  const { c, calls, slept } = client([json(409, { error: "idempotency_key_in_use", retryAfterSeconds: 1 }, { "retry-after": "1" }), json(200, TRADE)]);
  await c.buy(MINT, 1000n);
  assert.deepEqual(slept, [1]);
  assert.equal(calls[0].headers["idempotency-key"], calls[1].headers["idempotency-key"]);
});

test("422 is never retried; its code-specific fields are readable", async () => {
  const { c, calls } = client([json(422, { error: "insufficient_sol", requiredLamports: "5", availableLamports: "1" })]);
  await assert.rejects(c.buy(MINT, 1000n), (err) => {
    assert.ok(isError(err, "insufficient_sol"));
    assert.equal(err.body.requiredLamports, "5");
    assert.equal(err.family, "trading");
    assert.equal(err.retryable, false);
    return true;
  });
  assert.equal(calls.length, 1);
});

test("401 invalid_token: one refresh, then one retry with the new token", async () => {
  const { fetch, calls } = scriptedFetch([json(401, { error: "invalid_token" }), json(200, {})]);
  let token = "old";
  let refreshes = 0;
  const auth = { token: async () => token, refresh: async (stale) => (assert.equal(stale, "old"), refreshes++, (token = "new"), true) };
  const c = new PartnerClient({ baseUrl: "http://api.test", auth, fetch, retry: { jitter: 0, sleep: async () => {} } });
  await c.me();
  assert.equal(refreshes, 1);
  assert.deepEqual(calls.map((call) => call.headers.authorization), ["Bearer old", "Bearer new"]);
});

test("401 twice: thrown after one refresh", async () => {
  const { fetch, calls } = scriptedFetch([json(401, { error: "invalid_token" }), json(401, { error: "invalid_token" })]);
  const auth = { token: async () => "t", refresh: async () => true };
  const c = new PartnerClient({ baseUrl: "http://api.test", auth, fetch, retry: { jitter: 0, sleep: async () => {} } });
  await assert.rejects(c.me(), (err) => isError(err, "invalid_token"));
  assert.equal(calls.length, 2);
});

test("multipart launch: FormData fields and the key", async () => {
  const { c, calls } = client([json(200, { mint: MINT, signature: "s" })]);
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  await c.createCoin({ name: "Dog", symbol: "DOG", initialBuySol: 10_000_000n, image: { data: png, filename: "d.png", contentType: "image/png" } });
  assert.match(calls[0].headers["content-type"], /^multipart\/form-data; boundary=/);
  assert.match(calls[0].body, /name="initialBuySol"\r\n\r\n10000000\r\n/);
  assert.match(calls[0].body, /name="image"; filename="d.png"\r\nContent-Type: image\/png/);
  assert.ok(calls[0].headers["idempotency-key"]);
});

test("a large image goes through the staged upload: uploads, S3 POST, imageUploadId", async () => {
  const big = new Uint8Array(4 * 1024 * 1024 + 1);
  const { c, calls } = client([
    json(200, { uploadId: "upl_aaaaaaaaaaaaaaaaaaaaaa", url: "http://s3.test/bucket", fields: { key: "k", policy: "p" }, expiresAt: 1 }),
    () => new Response(null, { status: 204 }),
    json(200, { mint: MINT, signature: "s" }),
  ]);
  await c.createCoin({ name: "Big", symbol: "BIG", image: { data: big, filename: "b.png", contentType: "image/png" } });
  assert.equal(new URL(calls[0].url).pathname, "/partner/v1/uploads");
  assert.deepEqual(JSON.parse(calls[0].body), { contentType: "image/png", contentLength: String(big.byteLength) });
  assert.equal(calls[1].url, "http://s3.test/bucket");
  assert.equal(calls[1].headers.authorization, undefined, "no bearer token goes to S3");
  assert.match(calls[2].body, /name="imageUploadId"\r\n\r\nupl_aaaaaaaaaaaaaaaaaaaaaa\r\n/);
  assert.doesNotMatch(calls[2].body, /name="image";/);
});

test("waitForTransaction follows the status to a final state", async () => {
  const status = (s) => json(200, { signature: "x", status: s, slot: null, error: null, bundle: null });
  const { c, calls, slept } = client([status("not_found"), status("pending"), status("processed"), status("confirmed")]);
  const final = await c.waitForTransaction("x", { interval: 0.25 });
  assert.equal(final.status, "confirmed");
  assert.equal(calls.length, 4);
  assert.deepEqual(slept, [0.25, 0.25, 0.25]);
});

test("the trades' bodies: amounts as strings, options only when given, the write fees", async () => {
  const { c, calls } = client([json(200, TRADE), json(200, TRADE), json(200, TRADE)]);
  await c.buy(MINT, 1000n, { slippageBps: 100 });
  await c.buyExactOut(MINT, 5, { maxSolIn: "7", partnerFeeBps: 20 });
  await c.sell(MINT, 9n, { minSolOut: 3n });
  const sent = calls.map((call) => [new URL(call.url).pathname, JSON.parse(call.body)]);
  const fees = { priorityFeeLamports: sent[0][1].priorityFeeLamports, tipLamports: sent[0][1].tipLamports };
  assert.ok(/^\d+$/.test(fees.priorityFeeLamports) && /^\d+$/.test(fees.tipLamports));
  assert.deepEqual(sent, [
    ["/partner/v1/trades/buy", { mint: MINT, maxSolIn: "1000", slippageBps: 100, ...fees }],
    ["/partner/v1/trades/buy-exact-out", { mint: MINT, tokensOut: "5", maxSolIn: "7", partnerFeeBps: 20, ...fees }],
    ["/partner/v1/trades/sell", { mint: MINT, tokensIn: "9", minSolOut: "3", ...fees }],
  ]);
});
