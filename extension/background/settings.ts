// What the extension keeps, and where:
// - chrome.storage.local (survives browser restarts): the hub URL, the pairing (the extension's provider
//   token), site decisions ("always" / "never"), the incognito setting, "always allow on this channel"
//   approvals, and the last problem to show.
// - chrome.storage.session (this browser session): "allow once" decisions, per tab.
// The service worker is the only writer, through its one Settings object (loaded once per start, each change
// saved as it is made); content scripts read the hub URL only (loadHubUrl).
// The hub the extension starts with is hub.json's, at the extension's root: the build writes it, and a hub
// that serves the extension (/downloads/webmcp-hub-extension.zip) writes its own origin there, so an
// extension installed from a hub points at that hub.
import type { SiteDecision, TabSharing } from "../messages.js";
import { sharingOf, type SharingRules } from "./sharing.js";

/** The hub this build was made for (`WEBMCP_HUB_URL` at build time; `npm start`'s hub by default). */
export const BUILT_HUB_URL: string = process.env.WEBMCP_HUB_URL ?? "http://localhost:8787";

let packagedHub: Promise<string> | undefined;

/**
 * The hub the extension starts with: hub.json's `hub`, else BUILT_HUB_URL. The service worker and extension
 * pages only (content scripts cannot read the package's files; they read the stored hub URL).
 */
export function defaultHubUrl(): Promise<string> {
  packagedHub ??= fetch(chrome.runtime.getURL("hub.json"))
    .then((res) => res.json() as Promise<unknown>)
    .then((json) => {
      const hub = (json as { hub?: unknown } | null)?.hub;
      return (typeof hub === "string" && hubOriginOf(hub)) || BUILT_HUB_URL;
    })
    .catch(() => BUILT_HUB_URL);
  return packagedHub;
}

export interface StoredPairing {
  hubOrigin: string;
  channelId: string;
  channelName: string | null;
  providerToken: string;
  relayUrl: string;
  pairedAt: number;
}

export interface Stored {
  hubUrl: string;
  pairing: StoredPairing | null;
  problem: string;
  sites: Record<string, "always" | "never">;
  incognito: boolean;
  /** channelId → origin → tool names the user always allows there. */
  always: Record<string, Record<string, string[]>>;
}

const DEFAULTS: Stored = {
  hubUrl: BUILT_HUB_URL,
  pairing: null,
  problem: "",
  sites: {},
  incognito: false,
  always: {},
};

/**
 * The service worker's settings. A hub URL never saved is hub.json's, and is saved now, so that content
 * scripts (loadHubUrl) read the same hub from the service worker's first start on.
 */
export async function loadSettings(): Promise<Stored> {
  const got = await chrome.storage.local.get<Partial<Stored>>(Object.keys(DEFAULTS) as (keyof Stored)[]);
  if (got.hubUrl === undefined) {
    got.hubUrl = await defaultHubUrl();
    await chrome.storage.local.set({ hubUrl: got.hubUrl });
  }
  return { ...DEFAULTS, ...got };
}

export async function saveSettings(patch: Partial<Stored>): Promise<void> {
  await chrome.storage.local.set(patch);
}

export async function loadHubUrl(): Promise<string> {
  const { hubUrl } = (await chrome.storage.local.get("hubUrl")) as Partial<Stored>;
  return hubUrl ?? BUILT_HUB_URL;
}

/** "Allow once" decisions: tabId → the origin allowed in it. */
export async function loadOnce(): Promise<Map<number, string>> {
  const { once } = (await chrome.storage.session.get("once")) as { once?: Record<string, string> };
  return new Map(Object.entries(once ?? {}).map(([tab, origin]) => [Number(tab), origin]));
}

export async function saveOnce(once: Map<number, string>): Promise<void> {
  await chrome.storage.session.set({ once: Object.fromEntries(once) });
}

/**
 * The service worker's settings and "allow once" decisions: read from storage once when the worker starts
 * (load), changed only through these methods, each of which saves what it changed. Until load resolves it
 * holds the defaults (the badge may read it that early; everything else waits for load).
 */
export class Settings {
  #stored: Stored = { ...DEFAULTS };
  /** "Allow once": tabId → the origin allowed in it, while the tab stays on that origin. */
  #once = new Map<number, string>();

  async load(): Promise<void> {
    this.#stored = await loadSettings();
    this.#once = await loadOnce();
  }

  get hubUrl(): string {
    return this.#stored.hubUrl;
  }
  get pairing(): StoredPairing | null {
    return this.#stored.pairing;
  }
  get problem(): string {
    return this.#stored.problem;
  }
  get incognito(): boolean {
    return this.#stored.incognito;
  }
  get sites(): Readonly<Record<string, "always" | "never">> {
    return this.#stored.sites;
  }

  /** What sharing.ts decides with. */
  rules(): SharingRules {
    return { sites: this.#stored.sites, once: this.#once, incognito: this.#stored.incognito };
  }

  sharing(origin: string, tabId: number, incognito: boolean): TabSharing {
    return sharingOf(this.rules(), origin, tabId, incognito);
  }

  async setHubUrl(hubUrl: string): Promise<void> {
    this.#stored.hubUrl = hubUrl;
    await saveSettings({ hubUrl });
  }

  /** Paired (with no problem to show), or unpaired with the reason the popup shows ("" for none). */
  async setPairing(pairing: StoredPairing | null, problem: string): Promise<void> {
    this.#stored.pairing = pairing;
    this.#stored.problem = problem;
    await saveSettings({ pairing, problem });
  }

  async setIncognito(on: boolean): Promise<void> {
    this.#stored.incognito = on;
    await saveSettings({ incognito: on });
  }

  /**
   * The user's decision for the site `origin` (already an origin): "always" and "never" are kept, "ask"
   * forgets it, "once" applies to `tabId` only; any "allow once" of the site in other tabs ends. Resolves with
   * an error to show, or null.
   */
  async setSite(origin: string, decision: SiteDecision | "ask", tabId?: number): Promise<string | null> {
    const sites = { ...this.#stored.sites };
    if (decision === "always" || decision === "never") sites[origin] = decision;
    else delete sites[origin];
    for (const [tab, o] of [...this.#once]) if (o === origin) this.#once.delete(tab);
    if (decision === "once") {
      if (tabId === undefined) return "Allow once applies to a tab: open the popup on it.";
      this.#once.set(tabId, origin);
    }
    this.#stored.sites = sites;
    await Promise.all([saveSettings({ sites }), saveOnce(this.#once)]);
    return null;
  }

  /** Shares `tabId` while it stays on `origin` (a page opened for an agent). */
  async allowOnce(tabId: number, origin: string): Promise<void> {
    this.#once.set(tabId, origin);
    await saveOnce(this.#once);
  }

  /** The tab closed: its "allow once" goes. */
  tabClosed(tabId: number): void {
    if (this.#once.delete(tabId)) void saveOnce(this.#once);
  }

  /** The tab's top frame committed `url`: "allow once" ends when the tab leaves the site. */
  tabNavigated(tabId: number, url: string): void {
    const allowed = this.#once.get(tabId);
    if (allowed !== undefined && hubOriginOf(url) !== allowed) {
      this.#once.delete(tabId);
      void saveOnce(this.#once);
    }
  }

  alwaysAllowed(channelId: string, origin: string, tool: string): boolean {
    return this.#stored.always[channelId]?.[origin]?.includes(tool) ?? false;
  }

  async allowAlways(channelId: string, origin: string, tool: string): Promise<void> {
    const forChannel = { ...this.#stored.always[channelId] };
    forChannel[origin] = [...new Set([...(forChannel[origin] ?? []), tool])];
    this.#stored.always = { ...this.#stored.always, [channelId]: forChannel };
    await saveSettings({ always: this.#stored.always });
  }

  async forgetAlways(): Promise<void> {
    this.#stored.always = {};
    await saveSettings({ always: {} });
  }
}

/** The origin of an http(s) URL the user typed, or null. */
export function hubOriginOf(url: string): string | null {
  try {
    const u = new URL(url.trim());
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}
