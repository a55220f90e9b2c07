// What the service worker knows of each tab: the tools its top document registered, labelled with the origin
// the browser reported for the sender (chrome.runtime's MessageSender), never with anything the page said.
// A navigation withdraws the tab's tools at once, and from then on only the newly committed document
// (the browser's documentId) speaks for the tab: a late message from the page that was left is dropped.
import type { PageTool } from "./page-channel.js";

export interface TabTools {
  tabId: number;
  /** The origin of the document that sent the list, as the browser reports it. */
  origin: string;
  tools: PageTool[];
  /** How many tool lists the tab's current document has sent (each replaces the last): 1 for the first. */
  revision: number;
}

export interface Sender {
  tab?: { id?: number; url?: string };
  frameId?: number;
  origin?: string;
  url?: string;
  documentId?: string;
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
const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** A tool from the page, checked for shape (the hub re-validates with the zod schemas before relaying). */
function toPageTool(v: unknown): PageTool | undefined {
  if (!isRecord(v) || !isString(v.name) || !isString(v.description) || !isRecord(v.inputSchema)) return;
  return {
    name: v.name,
    ...(isString(v.title) && { title: v.title }),
    description: v.description,
    inputSchema: v.inputSchema,
    annotations: isRecord(v.annotations) ? v.annotations : {},
  };
}

export class TabToolStore {
  private readonly tabs = new Map<number, TabTools>();
  /** Each tab's committed top document, where the browser told us (tabs open before the extension: not). */
  private readonly documents = new Map<number, string>();

  /**
   * Takes a tool list from a content script. Only a tab's top frame counts (frames are their own providers,
   * later); a message without a tab or with no origin the browser vouches for is dropped. Returns whether
   * it was taken.
   */
  receive(message: unknown, sender: Sender): boolean {
    const tabId = sender.tab?.id;
    const origin = senderOrigin(sender);
    if (tabId === undefined || sender.frameId !== 0 || !origin) return false;
    const current = this.documents.get(tabId);
    if (current !== undefined && sender.documentId !== current) return false;
    if (!isRecord(message) || message.type !== "tools" || !Array.isArray(message.tools)) return false;
    const tools = message.tools.map(toPageTool).filter((t): t is PageTool => t !== undefined);
    const revision = (this.tabs.get(tabId)?.revision ?? 0) + 1;
    this.tabs.set(tabId, { tabId, origin, tools, revision });
    return true;
  }

  /** A tab's top frame committed a new document: the old one's tools go, and only the new one speaks. */
  navigated(tabId: number, documentId: string | undefined): void {
    this.tabs.delete(tabId);
    if (documentId === undefined) this.documents.delete(tabId);
    else this.documents.set(tabId, documentId);
  }

  /** A closed tab withdraws its tools (a tab with an empty list is kept until then, with its revision). */
  removeTab(tabId: number): void {
    this.tabs.delete(tabId);
    this.documents.delete(tabId);
  }

  list(): TabTools[] {
    return [...this.tabs.values()];
  }
}
