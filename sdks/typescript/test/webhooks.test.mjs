import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { test } from "node:test";
import { WebhookVerificationError, verifyWebhook } from "../dist/index.js";

const KEY = randomBytes(24);
const SECRET = `whsec_${KEY.toString("base64")}`;
const EVENT = { id: `evt_${"a".repeat(32)}`, type: "transaction.confirmed", created: 1, data: { signature: "s", kind: "buy", mint: null, wallet: "w", slot: 5, error: null } };

// signed here with node:crypto (not with standardwebhooks), as the server signs: base64(HMAC-SHA256(key, id.ts.body))
function signed(body, stamp = Math.floor(Date.now() / 1000)) {
  const id = "msg_1";
  const signature = createHmac("sha256", KEY).update(`${id}.${stamp}.${body}`).digest("base64");
  return { "webhook-id": id, "webhook-timestamp": String(stamp), "webhook-signature": `v1,${signature}` };
}

test("a valid delivery verifies and returns the typed event", () => {
  const body = JSON.stringify(EVENT);
  const event = verifyWebhook(SECRET, signed(body), Buffer.from(body));
  assert.deepEqual(event, EVENT);
  assert.equal(event.type, "transaction.confirmed");
});

test("Headers objects work too", () => {
  const body = JSON.stringify(EVENT);
  assert.equal(verifyWebhook(SECRET, new Headers(signed(body)), body).id, EVENT.id);
});

test("a tampered body, a wrong secret or an old timestamp is refused", () => {
  const body = JSON.stringify(EVENT);
  const headers = signed(body);
  assert.throws(() => verifyWebhook(SECRET, headers, body.replace("confirmed", "failed")), WebhookVerificationError);
  assert.throws(() => verifyWebhook(`whsec_${randomBytes(24).toString("base64")}`, headers, body), WebhookVerificationError);
  assert.throws(() => verifyWebhook(SECRET, signed(body, Math.floor(Date.now() / 1000) - 3600), body), WebhookVerificationError);
  const unsigned = { ...headers };
  delete unsigned["webhook-signature"];
  assert.throws(() => verifyWebhook(SECRET, unsigned, body), WebhookVerificationError);
});
