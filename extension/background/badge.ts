// The toolbar badge and title, and the STATE_CHANGED broadcast to the extension's open pages: what the user
// sees of the service worker's state without opening the popup. Every change anywhere calls changed(); the
// updates of one task are gathered into one, so a burst of changes repaints once.
import { STATE_CHANGED } from "../messages.js";
import type { StoredPairing } from "./settings.js";

/** What the badge shows, read when it repaints. */
export interface BadgeView {
  /** Approvals waiting for the user. */
  waiting: number;
  pairing: StoredPairing | null;
  /** Why the browser is no longer paired ("" for no reason to show). */
  problem: string;
  /** The tabs with a socket to the hub. */
  sharedTabIds: number[];
}

export class Badge {
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly view: () => BadgeView) {}

  /** Something shown changed: repaint the badge and tell the open pages, once the current task is done. */
  changed(): void {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.#paint();
      chrome.runtime.sendMessage(STATE_CHANGED).catch(() => {}); // no UI page open: nobody to tell
    }, 0);
  }

  /** The tab is no longer shared: its own badge text goes (the browser-wide text shows again). */
  tabUnshared(tabId: number): void {
    void chrome.action.setBadgeText({ tabId, text: null as unknown as string }).catch(() => {});
  }

  #paint(): void {
    const { waiting, pairing: p, problem, sharedTabIds } = this.view();
    const text = waiting ? String(waiting) : !p ? (problem ? "!" : "off") : "";
    const color = waiting ? "#b45309" : p ? "#15803d" : "#6b7280";
    void chrome.action.setBadgeBackgroundColor({ color }).catch(() => {});
    void chrome.action.setBadgeText({ text }).catch(() => {});
    for (const tabId of sharedTabIds) {
      void chrome.action.setBadgeText({ tabId, text: waiting ? String(waiting) : "on" }).catch(() => {});
    }
    const shared = sharedTabIds.length;
    const title = !p
      ? `webmcp-hub: not paired${problem ? ` (${problem})` : ""}`
      : `webmcp-hub: paired with ${p.channelName ?? p.channelId}; ${shared} tab${shared === 1 ? "" : "s"} shared` +
        (waiting ? `; ${waiting} waiting for your approval` : "");
    void chrome.action.setTitle({ title }).catch(() => {});
  }
}
