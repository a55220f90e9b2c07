// /bridge-ui.js: the bridge's UI, which only a page that shows it needs: the pairing widget's face
// (widget.ts) and the approval dialog (approval.ts). Kept out of /bridge.js so the WebMCP API and the relay
// fit its 15 KiB gzipped budget; /bridge.js imports this file with import() from the hub it came from, the
// first time a <webmcp-hub-widget> connects or a call needs approval (ui-loader.ts). One ES module, no
// imports of its own. What /bridge.js calls is exactly these exports: change them together (one build makes
// both files, the hub serves both).
export { askApproval } from "./approval.js";
export { widgetView } from "./widget.js";
