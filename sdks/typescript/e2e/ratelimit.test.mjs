// A 429 from the stack's gateway throttle (tests/e2e/test_ts_sdk_e2e.py lowers it for this run):
// the SDK waits `retry-after` and every call still succeeds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { NO_RETRY, PartnerClient, isError } from "../dist/index.js";

const BASE = process.env.PARTNER_BASE_URL;
const TOKEN = process.env.ACCESS_TOKEN;

test("429 honoured: retry-after is waited, then the calls succeed", async () => {
  assert.ok(BASE && TOKEN, "run through tests/e2e/test_ts_sdk_e2e.py");
  const statuses = [];
  const slept = [];
  const recording = async (request) => {
    const response = await fetch(request);
    statuses.push(response.status);
    return response;
  };
  const sleep = (seconds) => (slept.push(seconds), new Promise((resolve) => setTimeout(resolve, seconds * 1000)));
  const client = new PartnerClient({ baseUrl: BASE, auth: TOKEN, fetch: recording, retry: { sleep, rateLimitRetries: 10 } });
  const answers = await Promise.all(Array.from({ length: 6 }, () => client.me()));
  assert.equal(answers.length, 6);
  for (const me of answers) assert.ok(me.user.walletSolana);
  assert.ok(statuses.includes(429), `no 429 met: ${statuses}`);
  assert.equal(statuses.filter((s) => s === 200).length, 6);
  assert.ok(slept.length >= 1 && slept.every((s) => s === 1), `slept ${slept}`); // the gateway's retry-after: 1
});

test("without retries the 429 surfaces typed, with its retry-after", async () => {
  const client = new PartnerClient({ baseUrl: BASE, auth: TOKEN, retry: NO_RETRY });
  const results = await Promise.allSettled(Array.from({ length: 6 }, () => client.me()));
  const refused = results.filter((r) => r.status === "rejected").map((r) => r.reason);
  assert.ok(refused.length >= 1);
  for (const err of refused) {
    assert.ok(isError(err, "rate_limit_exceeded"), String(err));
    assert.equal(err.retryAfter, 1);
  }
});
