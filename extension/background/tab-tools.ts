// What the service worker knows of each tab: the tools its top document lists (its own, then its frames'
// tools it sees, each of those with its frame's origin in frameOrigin: frames.ts), labelled with the origin
// the browser reported for the sender (chrome.runtime's MessageSender on the tab's Port), never with anything
// the page said, and the Port that reaches it. frameOrigin is the page's word (an http(s) origin or dropped):
// it only says which of the tab's frames a tool runs in, shown to the agent in `_meta` and in the approval
// window, never the tab's label, its sharing decision or its "always allow" key, which stay the tab's origin. A tab whose Port closes (the page went away, the tab closed)
// or whose top frame commits a new document is withdrawn at once, and from then on only the newly committed
// document (the browser's documentId) speaks for the tab: a late message from the page that was left is dropped.
import { isRecord, type PageTool } from "../content/page-channel.js";

export interface TabTools {
  tabId: number;
  /** The origin of the document that sent the list, as the browser reports it. */
  origin: string;
  tools: PageTool[];
  /** How many tool lists the tab's current document has sent (each replaces the last): 1 for the first. */
  revision: number;
  url: string;
  incognito: boolean;
}

export interface Sender {
  tab?: { id?: number; url?: string; incognito?: boolean };
  frameId?: number;
  origin?: string;
  url?: string;
  documentId?: string;
}

/** The line to the tab (a chrome.runtime.Port in the extension; anything with postMessage in unit tests). */
export interface TabLine {
  postMessage(message: unknown): void;
}

/** The sender's origin as the browser reports it: sender.origin, else the sender's (or its tab's) URL. */
export function senderOrigin(sender: Sender): string | undefined {
  if (sender.origin && sender.origin !== "null") return sender.origin;
  const url = sender.url ?? sender.tab?.url;
  if (!url) return undefined;
  try {
    const origin = new URL(url).origin;
    return origin === "null" ? undefined : origin;
  } catch {
    return undefined;
  }
}

const isString = (v: unknown): v is string => typeof v === "string";

/** An http(s) origin as the page's frames layer names a frame's (anything else is dropped, not relayed). */
function isOrigin(v: unknown): v is string {
  if (!isString(v)) return false;
  try {
    const url = new URL(v);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === v;
  } catch {
    return false;
  }
}

/** A tool from the page, checked for shape (relay-frames.ts and the hub check it again before relaying). */
function toPageTool(v: unknown): PageTool | undefined {
  if (!isRecord(v) || !isString(v.name) || !isString(v.description) || !isRecord(v.inputSchema)) return;
  return {
    name: v.name,
    ...(isString(v.title) && { title: v.title }),
    description: v.description,
    inputSchema: v.inputSchema,
    ...(isRecord(v.outputSchema) && { outputSchema: v.outputSchema }),
    annotations: isRecord(v.annotations) ? v.annotations : {},
    ...(isOrigin(v.frameOrigin) && { frameOrigin: v.frameOrigin }),
  };
}

export type TabChange = { tabId: number; tab: TabTools | undefined };

export class TabToolStore {
  private readonly tabs = new Map<number, TabTools>();
  private readonly lines = new Map<number, TabLine>();
  /** Each tab's committed top document, where the browser told us (tabs open before the extension: not). */
  private readonly documents = new Map<number, string>();

  /** Called after every change of a tab's tools (tab undefined: withdrawn). */
  constructor(private readonly onChange: (change: TabChange) => void = () => {}) {}

  /**
   * Takes a tool list from a tab's content script. Only a tab's top frame counts; a message without a tab or
   * with no origin the browser vouches for is dropped, as is one from a document the tab has left. Returns
   * whether it was taken.
   */
  receive(message: unknown, sender: Sender, line?: TabLine): boolean {
    const tabId = this.speaker(sender);
    const origin = senderOrigin(sender);
    if (tabId === undefined || !origin) return false;
    if (!isRecord(message) || message.type !== "tools" || !Array.isArray(message.tools)) return false;
    const tools = message.tools.map(toPageTool).filter((t): t is PageTool => t !== undefined);
    const revision = (this.tabs.get(tabId)?.revision ?? 0) + 1;
    const url = sender.url ?? sender.tab?.url ?? origin;
    const tab = { tabId, origin, tools, revision, url, incognito: sender.tab?.incognito === true };
    this.tabs.set(tabId, tab);
    if (line) this.lines.set(tabId, line);
    this.onChange({ tabId, tab });
    return true;
  }

  /** The tab a sender speaks for: its top frame's current document only. */
  speaker(sender: Sender): number | undefined {
    const tabId = sender.tab?.id;
    if (tabId === undefined || sender.frameId !== 0) return undefined;
    const current = this.documents.get(tabId);
    if (current !== undefined && sender.documentId !== current) return undefined;
    return tabId;
  }

  /** The tab's Port closed: if it is still the tab's line, the tab's tools go. */
  lineClosed(tabId: number | undefined, line: TabLine): void {
    if (tabId === undefined || this.lines.get(tabId) !== line) return;
    this.withdraw(tabId);
  }

  /** A tab's top frame committed a new document: the old one's tools go, and only the new one speaks. */
  navigated(tabId: number, documentId: string | undefined): void {
    if (documentId === undefined) this.documents.delete(tabId);
    else this.documents.set(tabId, documentId);
    this.withdraw(tabId);
  }

  /** A closed tab withdraws its tools (a tab with an empty list is kept until then, with its revision). */
  removeTab(tabId: number): void {
    this.documents.delete(tabId);
    this.withdraw(tabId);
  }

  private withdraw(tabId: number): void {
    this.lines.delete(tabId);
    if (this.tabs.delete(tabId)) this.onChange({ tabId, tab: undefined });
  }

  get(tabId: number): TabTools | undefined {
    return this.tabs.get(tabId);
  }

  line(tabId: number): TabLine | undefined {
    return this.lines.get(tabId);
  }

  list(): TabTools[] {
    return [...this.tabs.values()];
  }
}
