// The one private line between the extension's MAIN-world script (which shares the page's JavaScript) and its
// ISOLATED-world script (which can reach the service worker): message shapes and the handshake both sides use.
//
// Why a MessagePort handed over once, and not window.postMessage for every message: anything a MAIN-world
// script can do, the page can do too — post any window message, dispatch any CustomEvent, with any "secret"
// it can read from the DOM. What the page cannot do is run before us: both content scripts are injected at
// document_start, before the first byte of the page's own script runs, so the first handshake on the window
// is ours. The MAIN-world script creates a MessageChannel, keeps port1 in its closure and posts port2; the
// ISOLATED-world script takes the first handshake from its own window (event.source === window, so not a
// frame's) and from then on listens only to that port, ignoring every later window message. A page that
// posts a forged handshake or a forged tool list reaches nobody. It can see port2 in the handshake event and
// post on it, but that reaches port1, the MAIN-world side, never the service worker.
//
// What stays the page's to say, and is no escalation: its own tools. It can register any tool through the
// API anyway. What it can never say: which origin or tab the tools belong to (the service worker takes both
// from chrome.runtime's MessageSender), or anything about another tab.

/** `source` on every window message of ours, so the ISOLATED side can tell the handshake from page traffic. */
export const CHANNEL_SOURCE = "webmcp-hub-extension";

/** A tool as the page's registry describes it: data only, no execute. */
export interface PageTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: Record<string, unknown>;
}

/** MAIN → ISOLATED (over the port) → service worker: the page's whole tool list, after every change. */
export interface ToolsMessage {
  type: "tools";
  tools: PageTool[];
}

/** The one window message of ours: MAIN hands ISOLATED the port (in the event's `ports`). */
export const HANDSHAKE = { source: CHANNEL_SOURCE, type: "port" } as const;

export const isHandshake = (data: unknown): boolean =>
  typeof data === "object" &&
  data !== null &&
  (data as Record<string, unknown>).source === HANDSHAKE.source &&
  (data as Record<string, unknown>).type === HANDSHAKE.type;
