// The lines between a tab and the extension's service worker, and the messages on them.
//
// MAIN world ⇄ ISOLATED world: one private MessagePort. Anything a MAIN-world script can do, the page can do
// too — post any window message, dispatch any CustomEvent, with any "secret" it can read from the DOM. What the
// page cannot do is run before us: both content scripts are injected at document_start, before the first byte
// of the page's own script runs, so the first handshake on the window is ours. The MAIN-world script creates a
// MessageChannel, keeps port1 in its closure and posts port2; the ISOLATED-world script takes the first
// handshake from its own window (event.source === window, so not a frame's) and from then on listens only to
// that port, ignoring every later window message. A page that posts a forged handshake or a forged tool list
// reaches nobody. It can see port2 in the handshake event and post on it, but that reaches port1, the MAIN-world
// side, never the service worker.
//
// ISOLATED world ⇄ service worker: a chrome.runtime Port named TAB_PORT, whose sender (tab, frame, origin,
// document) the browser fills in. A page has no way to open one (no externally_connectable), and a port is
// per document, so when the page goes away the port closes and the service worker withdraws its tools.
//
// What stays the page's to say, and is no escalation: its own tools and their results. What it can never say:
// which origin or tab the tools belong to, or that a call was approved (approvals happen in the service worker
// before a call reaches the page).
import type { ToolData } from "../../src/bridge/tool-data.js";
import type { CallToolResult } from "../../src/protocol/results.js";

/** `source` on every window message of ours, so the ISOLATED side can tell the handshake from page traffic. */
export const CHANNEL_SOURCE = "webmcp-hub-extension";

/** The chrome.runtime Port's name (the ISOLATED world's line to the service worker). */
export const TAB_PORT = "webmcp-hub-tab";

/** A tool as the page's registry describes it: data only, no execute. */
export interface PageTool extends ToolData {
  /** Set for a tool of one of the tab's frames: that frame's origin (frames.ts; relayed in `_meta`). */
  frameOrigin?: string;
}

/**
 * MAIN → ISOLATED (over the port) → service worker: the tab's whole tool list, after every change. Only the top
 * frame's MAIN world sends one; it includes the frames' tools the top document sees (frameOrigin set).
 */
export interface ToolsMessage {
  type: "tools";
  tools: PageTool[];
}

/** MAIN → ISOLATED → service worker: a relayed call's result. */
export interface ResultMessage {
  type: "result";
  id: string;
  result: CallToolResult;
}

export type PageMessage = ToolsMessage | ResultMessage;

/** Service worker → ISOLATED → MAIN: run a tool (already approved where it needs approval), or stop one. */
export type RunMessage =
  | { type: "call"; id: string; name: string; arguments: Record<string, unknown> }
  | { type: "cancel"; id: string; reason: string }
  | { type: "resend" };

/** Service worker → ISOLATED only: whether this tab is shared (a shared tab reconnects at once when the
 *  service worker restarts; one that is not waits until it has something to say). */
export interface SharedMessage {
  type: "shared";
  shared: boolean;
}

/** Service worker → every tab's ISOLATED world (chrome.tabs.sendMessage) when it starts: say your tools again. */
export const RESEND_REQUEST = { type: "webmcp-hub:resend" } as const;

/** The one window message of ours: MAIN hands ISOLATED the port (in the event's `ports`). */
export const HANDSHAKE = { source: CHANNEL_SOURCE, type: "port" } as const;

export const isHandshake = (data: unknown): boolean =>
  typeof data === "object" &&
  data !== null &&
  (data as Record<string, unknown>).source === HANDSHAKE.source &&
  (data as Record<string, unknown>).type === HANDSHAKE.type;

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
