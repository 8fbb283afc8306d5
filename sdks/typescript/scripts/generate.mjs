// src/generated/openapi.ts from docs/openapi.json (openapi-typescript). `--check`: exit 1 when
// the committed file differs from what the document generates (the test runs this).
import { readFile, writeFile } from "node:fs/promises";
import openapiTS, { astToString } from "openapi-typescript";

const SOURCE = new URL("../../../docs/openapi.json", import.meta.url);
const TARGET = new URL("../src/generated/openapi.ts", import.meta.url);
const BANNER =
  "// Generated from docs/openapi.json by openapi-typescript (scripts/generate.mjs; `make openapi`): do not edit.\n" +
  "/* eslint-disable */\n";

export async function render() {
  const doc = JSON.parse(await readFile(SOURCE, "utf8"));
  const ast = await openapiTS(doc, { alphabetize: false, exportType: false });
  return BANNER + astToString(ast);
}

const text = await render();
if (process.argv.includes("--check")) {
  const current = await readFile(TARGET, "utf8").catch(() => "");
  if (current !== text) {
    console.error("sdks/typescript/src/generated/openapi.ts is stale: run `make openapi`");
    process.exit(1);
  }
} else {
  await writeFile(TARGET, text);
  console.log("wrote sdks/typescript/src/generated/openapi.ts");
}
