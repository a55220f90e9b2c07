// The wire contracts of webmcp-hub: every part imports its types from here.
export * from "./limits.js";
export * from "./errors.js";
export * from "./names.js";
export * from "./tool.js";
export * from "./manifest.js";
export * from "./json-schema.js";
export * from "./linear-regex.js";
export * from "./measure.js";
export * from "./api.js";
export * from "./results.js";
export * from "./frames.js";
export * from "./verification.js";
export * from "./channels.js";
export * from "./function-calls.js";
export * from "./accounts.js";
export * from "./oauth.js";
export * from "./relay-contract.js";
