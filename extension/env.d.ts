// The chrome.* extension APIs, typed by @types/chrome (referenced here so only the extension build needs them).
/// <reference types="chrome" />

/** Replaced at build time by esbuild (scripts/lib/bundles.mjs `define`). */
declare const process: { env: { WEBMCP_HUB_URL?: string } };
