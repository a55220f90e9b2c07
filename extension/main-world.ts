// The extension's MAIN-world content script (document_start, before the page's own scripts): installs the same
// WebMCP registry /bridge.js installs (src/bridge install.ts and registry.ts, imported, not copied; a native
// document.modelContext is wrapped, not replaced) and sends the registry's tool list, after every change, over
// the private port to the ISOLATED-world script (page-channel.ts says why the page cannot forge it).
import { installWebMcp } from "../src/bridge/install.js";
import { CHANGE_EVENT, registry } from "../src/bridge/registry.js";
import { HANDSHAKE, type PageTool, type ToolsMessage } from "./page-channel.js";

function describe(): PageTool[] {
  return registry.list().map(({ name, title, description, inputSchema, annotations }) => ({
    name,
    ...(title !== undefined && { title }),
    description,
    inputSchema,
    annotations: { ...annotations },
  }));
}

if (globalThis.isSecureContext) {
  installWebMcp();
  const { port1, port2 } = new MessageChannel();
  const send = () => {
    const message: ToolsMessage = { type: "tools", tools: describe() };
    try {
      port1.postMessage(message);
    } catch (e) {
      // A schema structuredClone cannot copy was already refused by the registry; anything else is ours.
      console.warn("webmcp-hub extension: the tool list could not be sent:", e);
    }
  };
  registry.addEventListener(CHANGE_EVENT, send);
  // The ISOLATED side asks again when the page comes back from the back/forward cache. The page can post
  // this too (it can see port2); all it gets is its own list sent again.
  port1.onmessage = (e: MessageEvent) => (e.data as { type?: unknown } | null)?.type === "resend" && send();
  window.postMessage(HANDSHAKE, location.origin === "null" ? "*" : location.origin, [port2]);
  send(); // Queued on the port until the ISOLATED side starts it.
}
