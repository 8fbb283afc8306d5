import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemoryTokenStorage, PartnerError, ReauthorizationRequired, TokenStore } from "../dist/index.js";

const pair = (n, expiresAt) => ({ accessToken: `a${n}`, refreshToken: `r${n}`, expiresAt, scope: "profile:read", tokenType: "Bearer" });

// a refresher that rotates like the server: a refresh token works once; replaying one throws invalid_grant
function rotatingServer(delayMs = 20) {
  const state = { calls: 0, concurrent: 0, maxConcurrent: 0, valid: "r0" };
  return {
    state,
    refresh: async (refreshToken) => {
      state.calls += 1;
      state.concurrent += 1;
      state.maxConcurrent = Math.max(state.maxConcurrent, state.concurrent);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      state.concurrent -= 1;
      if (refreshToken !== state.valid) throw new PartnerError("invalid_grant", 400, { error: "invalid_grant" });
      state.valid = `r${state.calls}`;
      return pair(state.calls, Date.now() + 1_800_000);
    },
    revoke: async () => {},
  };
}

test("twenty callers on an expired token cause ONE refresh; both new values are stored together", async () => {
  const server = rotatingServer();
  const storage = new InMemoryTokenStorage();
  const saves = [];
  const save = storage.save.bind(storage);
  storage.save = async (user, tokens) => (saves.push(tokens), save(user, tokens));
  const store = new TokenStore(server, { storage });
  await store.save("u", pair(0, Date.now() - 1));
  saves.length = 0;
  const tokens = await Promise.all(Array.from({ length: 20 }, () => store.accessToken("u")));
  assert.equal(server.state.calls, 1);
  assert.equal(server.state.maxConcurrent, 1);
  assert.deepEqual(new Set(tokens), new Set(["a1"]));
  assert.equal(saves.length, 1);
  assert.equal(saves[0].accessToken, "a1");
  assert.equal(saves[0].refreshToken, "r1");
});

test("two stores sharing storage (two processes): the lock serialises, the second sees the new pair", async () => {
  const server = rotatingServer();
  const storage = new InMemoryTokenStorage();
  const one = new TokenStore(server, { storage });
  const two = new TokenStore(server, { storage });
  await one.save("u", pair(0, Date.now() - 1));
  const [x, y] = await Promise.all([one.accessToken("u"), two.accessToken("u")]);
  assert.equal(server.state.calls, 1, "the second re-read the stored pair under the lock instead of replaying r0");
  assert.equal(x, "a1");
  assert.equal(y, "a1");
});

test("users refresh independently", async () => {
  let calls = 0;
  const refresher = { refresh: async (r) => (calls++, pair(`${r}-new`, Date.now() + 1e6)), revoke: async () => {} };
  const store = new TokenStore(refresher);
  await store.save("u1", pair(1, 0));
  await store.save("u2", pair(2, 0));
  await Promise.all([store.accessToken("u1"), store.accessToken("u2"), store.accessToken("u1")]);
  assert.equal(calls, 2);
});

test("a fresh token is not refreshed; a 401 with a stale token that was already replaced is not refreshed again", async () => {
  const server = rotatingServer(1);
  const store = new TokenStore(server);
  await store.save("u", pair(0, Date.now() + 1e6));
  assert.equal(await store.accessToken("u"), "a0");
  assert.equal(server.state.calls, 0);
  const source = store.forUser("u");
  assert.equal(await source.refresh("a0"), true);
  assert.equal(server.state.calls, 1);
  await source.refresh("a0"); // another caller saw a0 fail too: a1 is current and fresh
  assert.equal(server.state.calls, 1);
  assert.equal(await source.token(), "a1");
});

test("invalid_grant on refresh deletes the pair and asks for re-authorization", async () => {
  const server = rotatingServer(1);
  server.state.valid = "something-else";
  const store = new TokenStore(server);
  await store.save("u", pair(0, 0));
  await assert.rejects(store.accessToken("u"), (err) => err instanceof ReauthorizationRequired && err.user === "u");
  assert.equal(await store.needsReauthorization("u"), true);
});

test("a failed refresh releases the single flight: the next caller tries again", async () => {
  let calls = 0;
  const refresher = {
    refresh: async () => {
      calls++;
      if (calls === 1) throw new PartnerError("rpc_unavailable", 503, { error: "rpc_unavailable" });
      return pair(9, Date.now() + 1e6);
    },
    revoke: async () => {},
  };
  const store = new TokenStore(refresher);
  await store.save("u", pair(0, 0));
  await assert.rejects(store.accessToken("u"), (err) => err.code === "rpc_unavailable");
  assert.equal(await store.accessToken("u"), "a9");
});

test("revoke revokes the refresh token and forgets the pair", async () => {
  const revoked = [];
  const store = new TokenStore({ refresh: async () => assert.fail(), revoke: async (t, hint) => void revoked.push([t, hint]) });
  await store.save("u", pair(3, Date.now() + 1e6));
  await store.revoke("u");
  assert.deepEqual(revoked, [["r3", "refresh_token"]]);
  assert.equal(await store.needsReauthorization("u"), true);
});
