// /bridge-relay.js: the tab's relay to the hub (relay-client.ts: pairing, the WebSocket, tools frames, calls
// with approval), which only a page that pairs or is paired needs. Kept out of /bridge.js so the WebMCP API
// fits its 15 KiB gzipped budget; /bridge.js imports this file with import() from the hub it came from when
// the page is paired at start, pairs, or another tab of its origin pairs (relay-loader.ts). It gets the
// page's live objects (the registry, the approval dialog, storage, window.webmcpHub) by injection and imports
// no value from registry.ts, frames.ts or model-context.ts: one registry per page (scripts/lib/bundles.mjs
// checks the bundle's inputs). What /bridge.js calls is exactly this export: change them together (one build
// makes both files, the hub serves both).
export { RelayClient } from "./relay-client.js";
