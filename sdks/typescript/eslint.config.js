// @ts-check
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "src/generated/"] },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    files: ["**/*.mjs", "**/*.js"],
    languageOptions: { globals: { process: "readonly", console: "readonly", Buffer: "readonly", URL: "readonly", fetch: "readonly", Response: "readonly", Request: "readonly", Headers: "readonly", setTimeout: "readonly", AbortSignal: "readonly", crypto: "readonly", FormData: "readonly", Blob: "readonly", URLSearchParams: "readonly" } },
  },
);
