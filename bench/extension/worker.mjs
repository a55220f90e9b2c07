// Bench-only Worker entry (bench/extension/wrangler.toml; never deployed): the hub exactly as
// src/worker/index.ts exports it. Its own file only so the bundle is named worker.js, as
// bench/registry/harness.mjs buildWorker expects.
export { ChannelRelay } from "../../src/worker/index.ts";
export { default } from "../../src/worker/index.ts";
