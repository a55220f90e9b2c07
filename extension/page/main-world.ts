// The extension's MAIN-world content script (document_start, before the page's own scripts), in EVERY frame of
// a tab (manifest all_frames, match_origin_as_fallback): installs the same WebMCP registry /bridge.js installs
// (src/bridge install.ts and registry.ts, imported, not copied; a native document.modelContext is wrapped, not
// replaced) and, as /bridge.js does (index.ts), makes it span the tab's frames: where the polyfill is
// document.modelContext, shareAcrossFrames() (frames.ts's postMessage protocol between the bridge instances of
// the tab's documents); on native WebMCP, nativeFrames() (hello / hi only: native spans the frames itself and
// install.ts mirrors the frames' tools into the top document's registry with frameOrigin). So a page relayed
// by the extension behaves like a page with /bridge.js in every document, without including it anywhere.
//
// Only the top frame talks to the service worker (the ISOLATED-world script, and so the private port, runs
// there only; content/page-channel.ts says why the page cannot forge that port). The top frame's script sends
// the tab's whole tool list after every change: on the polyfill, RelayTools (frames.ts: its own tools, then the
// frames' tools exposed to the top's origin in tree order, each with its frameOrigin, a name the tab already
// has skipped with a warning); on native, the registry (whose frame entries carry frameOrigin). It runs the
// calls the service worker sends back (approved there first where they need it) through the same list, so a
// frame tool runs in its own document (frames.ts "call", no input check: the hub checked it). A subframe's
// script installs WebMCP and the frame protocol and nothing more: its tools reach the agent through the top.
//
// The manifest injects it with all_frames (every frame gets WebMCP and the protocol, even where the page does
// not include /bridge.js) and match_origin_as_fallback (Chrome 102+; it covers about:blank and about:srcdoc,
// which match_about_blank alone would, plus blob:/data: frames): an about:srcdoc frame, or an about:blank one
// the page creates and registers into at once (iframe.contentDocument.modelContext, as WPT does), has the
// page's origin and its tools, and without it had no document.modelContext at all (measured). An opaque-origin
// (data:) frame gets WebMCP too but cannot announce its tools to any origin, as with /bridge.js there.
//
// The mark (extension-mark.ts) goes on every frame's window: /bridge.js in any document of a relayed tab, top
// or frame, sees our document.modelContext as the browser's (wraps it, one registry), stands aside and leaves
// the relay to the extension. Its own frame layer (nativeFrames) then finds ours in the window's slot and
// leaves it there (frames.ts: the first layer of a window keeps the slot), so same-origin documents keep
// reading our tools directly and /bridge.js starts without an error.
import { RelayTools } from "../../src/bridge/frames.js";
import { installWebMcp, nativeFrames } from "../../src/bridge/install.js";
import { modelContext, shareAcrossFrames } from "../../src/bridge/model-context.js";
import { CHANGE_EVENT, registry, type ToolRegistry } from "../../src/bridge/registry.js";
import { errorResult, runTool } from "../../src/bridge/results.js";
import { EXTENSION_MARK } from "../../src/bridge/extension-mark.js";
import { toolData } from "../../src/bridge/tool-data.js";
import {
  HANDSHAKE,
  isRecord,
  type PageMessage,
  type PageTool,
  type RunMessage,
} from "../content/page-channel.js";

// Taken before any page script runs: a page that later patches MessagePort.prototype cannot get our port.
const post = MessagePort.prototype.postMessage;

/** What the top frame relays: the registry itself (native) or RelayTools over it (the polyfill). */
type TabTools = Pick<ToolRegistry, "list" | "get"> & EventTarget;

function describe(tools: TabTools): PageTool[] {
  return tools.list().map((tool) => ({
    ...toolData(tool),
    ...(tool.frameOrigin !== undefined && { frameOrigin: tool.frameOrigin }),
  }));
}

/** The top frame's line to the ISOLATED world: the tab's tool list out, calls and cancels in. */
function relay(tools: TabTools): void {
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
  const sendTools = () => send({ type: "tools", tools: describe(tools) });
  const running = new Map<string, AbortController>();
  const run = async (id: string, name: string, input: Record<string, unknown>) => {
    const tool = tools.get(name);
    const controller = new AbortController();
    running.set(id, controller);
    const result = tool
      ? await runTool(tool, input, controller.signal)
      : errorResult(`This page (${location.host}) no longer offers the tool ${name}.`);
    if (running.get(id) !== controller) return;
    running.delete(id);
    if (!controller.signal.aborted) send({ type: "result", id, result });
  };
  tools.addEventListener(CHANGE_EVENT, sendTools);
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

const hasFrame = (el: Element) => el.matches("iframe, frame") || el.querySelector("iframe, frame") !== null;

if (globalThis.isSecureContext) {
  installWebMcp();
  // /bridge.js, if the page (or one of its frames) also embeds it, finds this and leaves relaying to us.
  Object.defineProperty(window, EXTENSION_MARK, { value: true });
  const polyfilled = (document as unknown as { modelContext?: unknown }).modelContext === modelContext;
  const frames = polyfilled ? shareAcrossFrames() : nativeFrames();
  if (window === window.top && !polyfilled)
    relay(registry); // install.ts resyncs when frames come and go
  else if (window === window.top) {
    const tools = new RelayTools(registry, frames);
    relay(tools);
    // A removed cross-origin iframe's goodbye never arrives (Chromium drops what a detached frame posts), so
    // its tools would stay listed until the next change. Listing prunes closed windows and, if tools went,
    // fires the change that sends the new list (and toolchange in this document, as frames.ts decided).
    new MutationObserver((records) => {
      if (records.some((r) => [...r.removedNodes].some((n) => n instanceof Element && hasFrame(n))))
        tools.list();
    }).observe(document, { childList: true, subtree: true });
  }
}
