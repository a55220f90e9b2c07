// The service worker's answers to its own pages (the popup and the approval window; messages.ts says who may
// ask): the state they render, and every change the user makes there, each followed by matching the sockets
// to it (reconcile). A site the user stops sharing loses its waiting approvals at once.
import type { ExtensionState, SiteDecision, TabState, UiRequest, UiResponse } from "../messages.js";
import type { Approvals } from "./approvals.js";
import type { PageOpens } from "./page-opens.js";
import type { Pairing } from "./pairing.js";
import { defaultHubUrl, hubOriginOf, type Settings } from "./settings.js";
import { decisionOf } from "./sharing.js";
import type { TabSockets } from "./tab-sockets.js";
import type { TabToolStore } from "./tab-tools.js";

/** The parts of the service worker the pages see and change. */
export interface UiParts {
  settings: Settings;
  store: TabToolStore;
  tabSockets: TabSockets;
  approvals: Approvals;
  pageOpens: PageOpens;
  pairing: Pairing;
  reconcile(): void;
}

export class UiAnswers {
  constructor(private readonly parts: UiParts) {}

  async answer(m: UiRequest): Promise<ExtensionState | UiResponse | unknown> {
    const { settings, approvals, pairing, reconcile } = this.parts;
    switch (m.type) {
      case "ui:state":
        return this.state(m.tabId);
      case "ui:set-hub": {
        const origin = hubOriginOf(String(m.url));
        if (!origin) return { ok: false, error: "Give the hub's address as an http or https URL." };
        if (origin !== settings.hubUrl) {
          await settings.setHubUrl(origin);
          if (settings.pairing) await pairing.unpair("");
        }
        return { ok: true };
      }
      case "ui:pair":
        return pairing.pair(String(m.code));
      case "ui:unpair":
        await pairing.unpair("");
        return { ok: true };
      case "ui:connect-account":
        await chrome.tabs.create({ url: `${settings.hubUrl}/extension/connect` });
        return { ok: true };
      case "ui:site":
        return this.#setSite(String(m.origin), m.decision, m.tabId);
      case "ui:incognito":
        await settings.setIncognito(m.on === true);
        reconcile();
        return { ok: true };
      case "ui:approval-get":
        return approvals.get(String(m.id));
      case "ui:approval":
        if (approvals.get(String(m.id))?.kind === "open" && m.decision === "always")
          return { ok: false, error: "Opening a page is asked for each time." };
        return approvals.decide(String(m.id), m.decision)
          ? { ok: true }
          : { ok: false, error: "This request is no longer waiting." };
      case "ui:forget-always":
        await settings.forgetAlways();
        return { ok: true };
      default:
        return { ok: false, error: "Unknown request." };
    }
  }

  /** What the popup renders: the pairing, the settings, the tabs with tools, the current tab, the approvals. */
  async state(currentTabId?: number): Promise<ExtensionState> {
    const { settings, store, approvals, pageOpens } = this.parts;
    const tabs = (await Promise.all(store.list().map((t) => this.#tabState(t.tabId)))).filter(
      (t): t is TabState => t !== null,
    );
    const p = settings.pairing;
    return {
      hubUrl: settings.hubUrl,
      defaultHubUrl: await defaultHubUrl(),
      pairing: p && {
        hubOrigin: p.hubOrigin,
        channelId: p.channelId,
        channelName: p.channelName,
        pairedAt: p.pairedAt,
      },
      problem: settings.problem,
      incognito: settings.incognito,
      sites: Object.entries(settings.sites)
        .map(([origin, decision]) => ({ origin, decision }))
        .sort((a, b) => a.origin.localeCompare(b.origin)),
      tabs: tabs.reverse(),
      current: currentTabId === undefined ? null : await this.#tabState(currentTabId),
      approvals: approvals.list(),
      control: p ? pageOpens.status : null,
    };
  }

  async #tabState(tabId: number): Promise<TabState | null> {
    const { settings, store, tabSockets } = this.parts;
    const known = store.get(tabId);
    let origin = known?.origin;
    let title = tabSockets.title(tabId) ?? "";
    let incognito = known?.incognito ?? false;
    try {
      const tab = await chrome.tabs.get(tabId);
      title = tab.title ?? title;
      incognito = tab.incognito;
      if (!origin && tab.url) {
        const url = new URL(tab.url);
        if (url.protocol === "http:" || url.protocol === "https:") origin = url.origin;
      }
    } catch {
      if (!known) return null;
    }
    if (!origin) return null;
    const socket = tabSockets.get(tabId);
    return {
      tabId,
      origin,
      title,
      toolCount: known?.tools.length ?? 0,
      tools: known?.tools.map((t) => t.name) ?? [],
      sharing: settings.sharing(origin, tabId, incognito),
      decision: decisionOf(settings.rules(), origin, tabId),
      connection: socket ? socket.status : null,
      incognito,
    };
  }

  async #setSite(origin: string, decision: SiteDecision | "ask", tabId?: number): Promise<UiResponse> {
    const { settings, approvals, reconcile } = this.parts;
    let parsed: string;
    try {
      parsed = new URL(origin).origin;
    } catch {
      return { ok: false, error: "That is not a site's origin." };
    }
    const error = await settings.setSite(parsed, decision, tabId);
    if (error) return { ok: false, error };
    if (decision === "never" || decision === "ask")
      approvals.withdrawWhere((a) =>
        a.kind === "open"
          ? a.origin === parsed && decision === "never" // an open prompt of that site is answered `blocked`
          : a.origin === parsed && settings.sharing(parsed, a.tabId, false) !== "shared",
      );
    reconcile();
    return { ok: true };
  }
}
