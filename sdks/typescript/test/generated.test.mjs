import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { CATALOGUE, isCode } from "../dist/index.js";

test("src/generated/openapi.ts is what docs/openapi.json generates (else: make openapi)", () => {
  const script = fileURLToPath(new URL("../scripts/generate.mjs", import.meta.url));
  const run = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
});

test("the error catalogue carries each code's status and family", () => {
  assert.deepEqual(CATALOGUE.trade_cap_exceeded, { status: 403, family: "caps", retryable: false });
  assert.deepEqual(CATALOGUE.pool_not_open, { status: 409, family: "venue", retryable: true });
  assert.equal(isCode("slippage_exceeded"), true);
  assert.equal(isCode("no_such_code"), false);
});
