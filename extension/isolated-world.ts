// The extension's ISOLATED-world content script: takes the private port from the first handshake on its own
// window (page-channel.ts says why that one is ours) and forwards what arrives on it to the service worker.
// Every later window message is ignored, so a page's forged handshake or tool list goes nowhere.
import { isHandshake, type ToolsMessage } from "./page-channel.js";

let port: MessagePort | undefined;

const forward = (message: ToolsMessage) => {
  chrome.runtime.sendMessage(message).catch(() => {
    // The service worker is being restarted or the extension reloaded: the next change is sent again.
  });
};

const isTools = (data: unknown): data is ToolsMessage =>
  typeof data === "object" &&
  data !== null &&
  (data as Record<string, unknown>).type === "tools" &&
  Array.isArray((data as Record<string, unknown>).tools);

window.addEventListener("message", function onHandshake(event) {
  if (port || event.source !== window || !isHandshake(event.data) || !event.ports[0]) return;
  window.removeEventListener("message", onHandshake);
  port = event.ports[0];
  port.onmessage = (e: MessageEvent) => isTools(e.data) && forward(e.data);
});

// A page that goes away (navigation, close, bfcache) withdraws its tools at once; the next page sends its own.
window.addEventListener("pagehide", () => forward({ type: "tools", tools: [] }));
window.addEventListener("pageshow", (e) => {
  if (e.persisted) port?.postMessage({ type: "resend" });
});
