// The extension's MAIN-world content script (document_start, before the page's own scripts): installs the same
// WebMCP registry /bridge.js installs (src/bridge install.ts and registry.ts, imported, not copied; a native
// document.modelContext is wrapped, not replaced), sends the registry's tool list after every change over the
// private port to the ISOLATED-world script (page-channel.ts says why the page cannot forge it), and runs the
// calls the service worker sends back (approved there first where they need it).
import { installWebMcp } from "../src/bridge/install.js";
import { CHANGE_EVENT, registry } from "../src/bridge/registry.js";
import { errorResult, runTool } from "../src/bridge/results.js";
import { EXTENSION_MARK } from "../src/bridge/extension-mark.js";
import { HANDSHAKE, isRecord, type PageMessage, type PageTool, type RunMessage } from "./page-channel.js";

// Taken before any page script runs: a page that later patches MessagePort.prototype cannot get our port.
const post = MessagePort.prototype.postMessage;

function describe(): PageTool[] {
  return registry.list().map(({ name, title, description, inputSchema, outputSchema, annotations }) => ({
    name,
    ...(title !== undefined && { title }),
    description,
    inputSchema,
    ...(outputSchema !== undefined && { outputSchema }),
    annotations: { ...annotations },
  }));
}

if (globalThis.isSecureContext) {
  installWebMcp();
  // /bridge.js, if the page also embeds it, finds this and leaves relaying to the extension.
  Object.defineProperty(window, EXTENSION_MARK, { value: true });
  const { port1, port2 } = new MessageChannel();
  const send = (message: PageMessage) => {
    try {
      post.call(port1, message);
    } catch (e) {
      // A value structuredClone cannot copy: a schema was refused by the registry already; a result is not.
      if (message.type === "result")
        post.call(port1, {
          ...message,
          result: errorResult("The tool's result could not be copied out of the page."),
        });
      else console.warn("webmcp-hub extension: the tool list could not be sent:", e);
    }
  };
  const sendTools = () => send({ type: "tools", tools: describe() });
  const running = new Map<string, AbortController>();
  const run = async (id: string, name: string, input: Record<string, unknown>) => {
    const tool = registry.get(name);
    const controller = new AbortController();
    running.set(id, controller);
    const result = tool
      ? await runTool(tool, input, controller.signal)
      : errorResult(`This page (${location.host}) no longer offers the tool ${name}.`);
    if (running.get(id) !== controller) return;
    running.delete(id);
    if (!controller.signal.aborted) send({ type: "result", id, result });
  };
  registry.addEventListener(CHANGE_EVENT, sendTools);
  // The ISOLATED side relays the service worker's requests. The page can post on port2 too (it saw it in the
  // handshake), which can only make us resend its own list, run its own tools or cancel them.
  port1.onmessage = (e: MessageEvent) => {
    const m = e.data as RunMessage | null;
    if (!isRecord(m)) return;
    if (m.type === "resend") sendTools();
    else if (m.type === "call" && typeof m.id === "string" && typeof m.name === "string")
      void run(m.id, m.name, isRecord(m.arguments) ? m.arguments : {});
    else if (m.type === "cancel" && typeof m.id === "string") {
      running.get(m.id)?.abort(new DOMException(String(m.reason), "AbortError"));
      running.delete(m.id);
    }
  };
  window.postMessage(HANDSHAKE, location.origin === "null" ? "*" : location.origin, [port2]);
  sendTools(); // Queued on the port until the ISOLATED side starts it.
}
