// The messages between the extension's own pages (popup.html, approval.html) and its service worker, through
// chrome.runtime.sendMessage. The service worker answers only senders whose URL is one of the extension's
// own pages (isExtensionPage): a content script's sender URL is its web page's, so a page can never send
// these, even through our content scripts.
import type { ToolVerification } from "../src/protocol/verification.js";

/** How the user decided about a site. "once": this tab only, until it closes or leaves the site. */
export type SiteDecision = "once" | "always" | "never";

/** Why a tab is or is not shared with the channel. */
export type TabSharing =
  | "shared" // allowed ("always", or "once" for this tab), and relayed when paired
  | "ask" // no decision yet: nothing is shared
  | "never" // the user said never for this site
  | "incognito"; // an incognito tab while sharing incognito tabs is off

export interface TabState {
  tabId: number;
  /** The tab's origin as the browser reports it. */
  origin: string;
  title: string;
  toolCount: number;
  /** The tools' names, as the page registered them. */
  tools: string[];
  sharing: TabSharing;
  /** The decision that applies ("once" only for this tab), if any. */
  decision: SiteDecision | null;
  /** The tab's connection to the hub, when shared and paired. */
  connection: "connecting" | "connected" | "offline" | null;
  incognito: boolean;
}

export interface PairingState {
  hubOrigin: string;
  channelId: string;
  /** The channel's name, as the hub said when pairing (absent from older hubs). */
  channelName: string | null;
  pairedAt: number;
}

export interface ApprovalState {
  id: string;
  /**
   * "call" (absent in older builds): a call waits to reach a shared tab. "open": the hub asks to open a page
   * for a tool no tab offers (control-socket.ts); `tabId` is then -1 (no tab yet) and `arguments` empty.
   */
  kind?: "call" | "open";
  /** For "open": the page to open (on `origin`), the site's host in the registry, and whether the tool is read-only. */
  url?: string;
  site?: string;
  readOnly?: boolean;
  channelId: string;
  channelName: string | null;
  /** The agent, by the label the channel's owner gave its token (the hub's `approval.agent`). */
  agent: string;
  /** What the MCP client calls itself: self-declared, shown as secondary text only. */
  client: string | null;
  tabId: number;
  /** The tab's origin as the browser reports it. */
  origin: string;
  /** Set when the tool lives in one of the tab's frames: that frame's origin, as the page's frames say. */
  frameOrigin?: string;
  tool: string;
  title: string | null;
  arguments: Record<string, unknown>;
  /** The hub's check of the tool against the tab's origin's published manifest (absent: the hub sent none). */
  verification?: ToolVerification;
  /** When the hub gives up on the call (epoch ms): the approval's deadline. */
  deadline: number;
}

export interface ExtensionState {
  /** The hub URL setting (an origin), and the one this build was made for. */
  hubUrl: string;
  defaultHubUrl: string;
  pairing: PairingState | null;
  /** The last problem worth telling the user (a revoked pairing, an unreachable hub), or "". */
  problem: string;
  /** Share incognito tabs (off unless the user turns it on; Chrome must also allow the extension there). */
  incognito: boolean;
  /** Sites decided "always" or "never", sorted by origin. */
  sites: { origin: string; decision: "always" | "never" }[];
  /** Every tab that registered tools, most recent first. */
  tabs: TabState[];
  /** The tab the popup was opened over (it may have no tools), when the popup asked with its tabId. */
  current: TabState | null;
  approvals: ApprovalState[];
  /** The connection that lets the hub ask this browser to open a tool's page (only while paired). */
  control?: "connecting" | "connected" | "offline" | null;
}

export type ApprovalDecision = "approve" | "deny" | "always";

/** UI → service worker. Each is answered with `UiResponse` (or ExtensionState for `ui:state`). */
export type UiRequest =
  | { type: "ui:state"; tabId?: number }
  /** Sets the hub URL (any http(s) URL; its origin is kept). Changing it unpairs. */
  | { type: "ui:set-hub"; url: string }
  /** Redeems a pairing code at the configured hub. */
  | { type: "ui:pair"; code: string }
  | { type: "ui:unpair" }
  /** Opens the hub's /extension/connect page (sign in, pick a channel) in a new tab. */
  | { type: "ui:connect-account" }
  /** A site's decision; "ask" forgets it. "once" needs the tab. */
  | { type: "ui:site"; origin: string; decision: SiteDecision | "ask"; tabId?: number }
  | { type: "ui:incognito"; on: boolean }
  | { type: "ui:approval-get"; id: string }
  | { type: "ui:approval"; id: string; decision: ApprovalDecision }
  /** Forgets every "always for this channel" approval. */
  | { type: "ui:forget-always" };

export type UiResponse = { ok: true; channelId?: string } | { ok: false; error: string };

/** Service worker → UI pages (broadcast): something in ExtensionState changed; ask again. */
export const STATE_CHANGED = { type: "ui:changed" } as const;

/** Whether a message sender is one of the extension's own pages (not a content script, not another extension). */
export function isExtensionPage(sender: chrome.runtime.MessageSender): boolean {
  return sender.id === chrome.runtime.id && (sender.url ?? "").startsWith(chrome.runtime.getURL(""));
}

// ----------------------------------------------------------------------------------------------------------
// The hub's /extension/connect page ↔ the ISOLATED-world content script (window messages on the hub's own
// page only: the content script listens there only when the page's origin is the configured hub's).

/** From the hub's page: a pairing code the signed-in user just made for the extension. */
export interface ConnectCodeMessage {
  source: "webmcp-hub-connect";
  type: "pairing-code";
  code: string;
}

/** To the hub's page: the extension is here (posted once the page has loaded), or how pairing went. */
export interface ConnectResultMessage {
  source: "webmcp-hub-extension";
  type: "present" | "connected" | "connect-failed";
  channelId?: string;
  message?: string;
}
