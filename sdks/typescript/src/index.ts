export * from "./client.js";
export * from "./errors.js";
export * from "./oauth.js";
export * from "./retry.js";
export * from "./tokens.js";
export * from "./webhooks.js";
export type { components, operations, paths } from "./generated/openapi.js";
