import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { OAuthClient, PartnerError, pkcePair, s256 } from "../dist/index.js";
import { json, scriptedFetch } from "./helpers.mjs";

test("S256: RFC 7636 appendix B", () => {
  assert.equal(s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
});

test("pkcePair: a 64-character verifier of the unreserved alphabet, its S256 challenge, fresh each time", () => {
  const a = pkcePair();
  const b = pkcePair();
  assert.match(a.verifier, /^[A-Za-z0-9_-]{64}$/);
  assert.equal(a.challenge, createHash("sha256").update(a.verifier).digest("base64url"));
  assert.notEqual(a.verifier, b.verifier);
});

const oauth = (fetch) => new OAuthClient({ baseUrl: "http://api.test/", clientId: "cli_1", apiKey: "sk_x", redirectUri: "https://app.test/cb", authUrl: "http://auth.test", fetch, retry: { sleep: async () => {} } });

test("authorization URL: code flow, S256 challenge of the verifier, state", () => {
  const request = oauth(fetch).authorizationRequest(["profile:read", "trade:execute"]);
  const url = new URL(request.url);
  assert.equal(url.origin + url.pathname, "http://auth.test/oauth/authorize");
  const q = Object.fromEntries(url.searchParams);
  assert.deepEqual(q, {
    response_type: "code",
    client_id: "cli_1",
    redirect_uri: "https://app.test/cb",
    scope: "profile:read trade:execute",
    state: request.state,
    code_challenge: s256(request.verifier),
    code_challenge_method: "S256",
  });
  assert.ok(request.state.length >= 32);
});

test("complete: a state mismatch is refused before any request", async () => {
  const { fetch, calls } = scriptedFetch([]);
  const client = oauth(fetch);
  const request = client.authorizationRequest();
  await assert.rejects(client.complete(request, { code: "c", state: "forged" }), (err) => err instanceof PartnerError && err.code === "state_mismatch");
  await assert.rejects(client.complete(request, { error: "access_denied", state: request.state }), (err) => err.code === "access_denied");
  assert.equal(calls.length, 0);
});

test("code exchange: Basic client auth, the verifier, tokens with an expiry", async () => {
  const { fetch, calls } = scriptedFetch([json(200, { access_token: "at", refresh_token: "rt", expires_in: 1800, scope: "profile:read", token_type: "Bearer" })]);
  const client = oauth(fetch);
  const request = client.authorizationRequest();
  const before = Date.now();
  const tokens = await client.complete(request, new URLSearchParams({ code: "the-code", state: request.state }));
  assert.equal(tokens.accessToken, "at");
  assert.equal(tokens.refreshToken, "rt");
  assert.ok(tokens.expiresAt >= before + 1_800_000);
  assert.equal(calls[0].url, "http://api.test/oauth/token");
  assert.equal(calls[0].headers.authorization, `Basic ${Buffer.from("cli_1:sk_x").toString("base64")}`);
  assert.deepEqual(Object.fromEntries(new URLSearchParams(calls[0].body)), {
    grant_type: "authorization_code",
    code: "the-code",
    redirect_uri: "https://app.test/cb",
    code_verifier: request.verifier,
  });
});

test("refresh is never retried on a 5xx or a timeout (a rotated refresh token must not be replayed)", async () => {
  const { fetch, calls } = scriptedFetch([json(503, { error: "internal" }), json(200, {})]);
  await assert.rejects(oauth(fetch).refresh("rt"), (err) => err.status === 503);
  assert.equal(calls.length, 1);
  assert.equal(calls[0].headers["idempotency-key"], undefined);
});

test("revoke posts the token and its hint", async () => {
  const { fetch, calls } = scriptedFetch([json(200, { revoked: true })]);
  await oauth(fetch).revoke("rt", "refresh_token");
  assert.equal(calls[0].url, "http://api.test/oauth/revoke");
  assert.deepEqual(Object.fromEntries(new URLSearchParams(calls[0].body)), { token: "rt", token_type_hint: "refresh_token" });
});
