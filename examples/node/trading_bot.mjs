// A Node trading bot on the TypeScript SDK: connect (once, through the consent page), quote, buy,
// wait for confirmation, sell. Build the SDK first: (cd sdks/typescript && npm ci && npm run build).
//
//   PARTNER_BASE_URL=http://127.0.0.1:3000 CLIENT_ID=... API_KEY=... MINT=... node examples/node/trading_bot.mjs
//
// It prints the consent URL; approve it in a browser, then paste the callback URL it lands on.
import { createInterface } from "node:readline/promises";
import { OAuthClient, PartnerClient, TokenStore, isError } from "../../sdks/typescript/dist/index.js";

const { PARTNER_BASE_URL: baseUrl = "http://127.0.0.1:3000", CLIENT_ID: clientId, API_KEY: apiKey, MINT: mint } = process.env;
const redirectUri = process.env.REDIRECT_URI ?? "http://localhost:8080/callback";
if (!clientId || !apiKey || !mint) throw new Error("set CLIENT_ID, API_KEY and MINT");

const oauth = new OAuthClient({ baseUrl, clientId, apiKey, redirectUri });
const request = oauth.authorizationRequest(["profile:read", "trade:execute"]);
console.log(`approve: ${request.url}`);
const prompt = createInterface({ input: process.stdin, output: process.stdout });
const callback = new URL(await prompt.question("callback URL: "));
prompt.close();

const store = new TokenStore(oauth);
await store.save("me", await oauth.complete(request, callback.searchParams));
const api = new PartnerClient({ baseUrl, auth: store.forUser("me") });

const profile = await api.me();
console.log(`wallet ${profile.user.walletSolana}, max trade ${profile.limits.maxTradeLamports} lamports`);
const spend = 50_000_000n; // 0.05 SOL
const quote = await api.quote({ side: "buy", mint, maxSolIn: spend, slippageBps: 100 });
console.log(`quote: ${quote.expectedTokensOut} tokens for ${spend} lamports`);
try {
  const bought = await api.buy(mint, spend, { slippageBps: 100 });
  const landed = await api.waitForTransaction(bought.signature, { until: ["confirmed", "finalized"] });
  console.log(`buy ${bought.signature}: ${landed.status}`);
  const tokens = BigInt(quote.expectedTokensOut ?? "0") / 2n;
  const sold = await api.sell(mint, tokens, { slippageBps: 300 });
  console.log(`sell ${sold.signature}: ${(await api.waitForTransaction(sold.signature)).status}`);
} catch (err) {
  if (isError(err, "trade_cap_exceeded")) console.error(`over the cap of ${err.body.maxTradeLamports} lamports`);
  else if (isError(err, "insufficient_sol")) console.error(`needs ${err.body.requiredLamports} lamports`);
  else throw err;
}
