// The SDK against the real stack (started by tests/e2e/test_ts_sdk_e2e.py, which passes its URLs and
// a signed-in user's session cookie in the environment). Runs on the compiled dist/.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { test } from "node:test";
import { OAuthClient, PartnerClient, TokenStore, isError, verifyWebhook } from "../dist/index.js";

const env = (name) => {
  const value = process.env[name];
  assert.ok(value, `${name} is not set: run through tests/e2e/test_ts_sdk_e2e.py`);
  return value;
};
const BASE = env("PARTNER_BASE_URL");
const REDIRECT = "http://127.0.0.1:9/ts-sdk-callback";
const SOL = 1_000_000_000n;

function hiddenInputs(html) {
  const unescape = (s) => s.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  return Object.fromEntries([...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1], unescape(m[2])]));
}

// the consent page without a browser: GET it with the user's session, POST the approve form, take the redirect
async function connect(scopes) {
  const oauth = new OAuthClient({ baseUrl: BASE, clientId: env("CLIENT_ID"), apiKey: env("API_KEY"), redirectUri: REDIRECT });
  const request = oauth.authorizationRequest(scopes);
  const cookie = env("SESSION_COOKIE");
  const page = await fetch(request.url, { headers: { cookie } });
  assert.equal(page.status, 200);
  const form = new URLSearchParams({ ...hiddenInputs(await page.text()), decision: "approve" });
  const approved = await fetch(`${BASE}/oauth/authorize`, { method: "POST", body: form, headers: { cookie }, redirect: "manual" });
  assert.equal(approved.status, 302);
  const location = new URL(approved.headers.get("location"));
  assert.equal(`${location.origin}${location.pathname}`, REDIRECT);
  const tokens = await oauth.complete(request, location.searchParams);
  assert.match(tokens.accessToken, /^app_at_/);
  assert.match(tokens.refreshToken, /^app_rt_/);
  const store = new TokenStore(oauth);
  await store.save("user", tokens);
  return { oauth, store };
}

const connected = connect(["profile:read", "trade:execute", "coin:create", "governance:vote"]);
const api = connected.then(({ store }) => new PartnerClient({ baseUrl: BASE, auth: store.forUser("user"), retry: { conflictBackoff: 0.5 } }));

test("connect through the consent page, then /me", async () => {
  const me = await (await api).me();
  assert.equal(me.user.walletSolana, env("USER_WALLET"));
  assert.deepEqual([...me.scopes].sort(), ["coin:create", "governance:vote", "profile:read", "trade:execute"]);
});

test("refresh rotates both tokens through the store; the client keeps working", async () => {
  const { store } = await connected;
  const before = await store.get("user");
  const after = await store.refresh("user");
  assert.notEqual(after.refreshToken, before.refreshToken);
  assert.notEqual(after.accessToken, before.accessToken);
  assert.deepEqual(await store.get("user"), after);
  assert.equal((await (await api).me()).user.walletSolana, env("USER_WALLET"));
});

test("quote, fee estimate, buy and sell, each followed to confirmed", async () => {
  const client = await api;
  const mint = env("MINT");
  const quote = await client.quote({ side: "buy", mint, maxSolIn: SOL / 10n, slippageBps: 100 });
  assert.ok(BigInt(quote.expectedTokensOut ?? "0") > 0n, JSON.stringify(quote));
  const estimate = await client.feesEstimate(mint);
  assert.equal(estimate.mint, mint);
  const bought = await client.buy(mint, SOL / 10n, { slippageBps: 500 });
  assert.equal(bought.mint, mint);
  const boughtStatus = await client.waitForTransaction(bought.signature, { until: ["confirmed", "finalized"], timeout: 60 });
  assert.ok(["confirmed", "finalized"].includes(boughtStatus.status), JSON.stringify(boughtStatus));
  const sold = await client.sell(mint, BigInt(quote.expectedTokensOut ?? "0") / 4n, { slippageBps: 500 });
  const soldStatus = await client.waitForTransaction(sold.signature, { until: ["confirmed", "finalized"], timeout: 60 });
  assert.ok(["confirmed", "finalized"].includes(soldStatus.status), JSON.stringify(soldStatus));
});

test("a replayed idempotent write answers the first answer and trades once", async () => {
  const client = await api;
  const key = `ts-sdk-${Date.now()}`;
  const first = await client.buy(env("MINT"), SOL / 50n, { slippageBps: 500, idempotencyKey: key });
  const again = await client.buy(env("MINT"), SOL / 50n, { slippageBps: 500, idempotencyKey: key });
  assert.equal(again.signature, first.signature);
  // the same key with another body is refused, typed
  await assert.rejects(client.buy(env("MINT"), SOL / 40n, { slippageBps: 500, idempotencyKey: key }), (err) => isError(err, "idempotency_key_reused"));
});

test("a typed 422: selling more than the venue holds", async () => {
  const client = await api;
  await assert.rejects(client.sell(env("MINT"), 10n ** 18n, { slippageBps: 10 }), (err) => err.status === 422 && err.family === "trading");
});

test("a launch with a first buy (multipart), followed to confirmed", async () => {
  const client = await api;
  const png = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");
  const launched = await client.createCoin({
    name: "TS SDK Coin",
    symbol: "TSSDK",
    description: "launched by the TypeScript SDK",
    image: { data: png, filename: "logo.png", contentType: "image/png" },
    initialBuySol: SOL / 20n,
    slippageBps: 500,
  });
  assert.ok(launched.mint);
  const status = await client.waitForTransaction(launched.signature, { until: ["confirmed", "finalized"], timeout: 60 });
  assert.ok(["confirmed", "finalized"].includes(status.status), JSON.stringify(status));
  const governance = await client.governance(launched.mint);
  assert.equal(governance.governance.mint, launched.mint);
});

test("a webhook delivery for the user's buy verifies with standardwebhooks", async () => {
  const secret = env("WEBHOOK_SECRET");
  const events = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      try {
        events.push(verifyWebhook(secret, req.headers, Buffer.concat(chunks)));
        res.writeHead(204).end();
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
    });
  });
  await new Promise((resolve) => server.listen(Number(env("WEBHOOK_PORT")), "127.0.0.1", resolve));
  try {
    const client = await api;
    const bought = await client.buy(env("MINT"), SOL / 50n, { slippageBps: 500 });
    const deadline = Date.now() + 60_000;
    while (!events.some((e) => e.data.signature === bought.signature) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    const event = events.find((e) => e.data.signature === bought.signature);
    assert.ok(event, `no verified event for ${bought.signature}: ${JSON.stringify(events)}`);
    assert.equal(event.type, "transaction.confirmed");
    assert.equal(event.data.kind, "buy");
    assert.match(event.id, /^evt_[0-9a-f]{32}$/);
  } finally {
    server.close();
  }
});

test("a governance vote on the open proposal, followed to confirmed; the vote is listed", async () => {
  const client = await api;
  const mint = env("MINT");
  const proposal = env("PROPOSAL");
  const bought = await client.buyExactOut(mint, 1_000_000n, { maxSolIn: SOL, slippageBps: 500 });
  await client.waitForTransaction(bought.signature, { until: ["confirmed", "finalized"], timeout: 60 });
  const voted = await client.vote(proposal, "yes", 1_000_000n);
  assert.equal(voted.proposal, proposal);
  const status = await client.waitForTransaction(voted.signature, { until: ["confirmed", "finalized"], timeout: 60 });
  assert.ok(["confirmed", "finalized"].includes(status.status), JSON.stringify(status));
  const votes = await client.proposalVotes(proposal);
  assert.ok(JSON.stringify(votes).includes(env("USER_WALLET")), JSON.stringify(votes));
  // a second vote from the same wallet is refused, typed
  await assert.rejects(client.vote(proposal, "yes", 1_000_000n), (err) => err.status === 422 && err.family === "governance");
});
