// What the extension keeps, and where:
// - chrome.storage.local (survives browser restarts): the hub URL, the pairing (the extension's provider
//   token), site decisions ("always" / "never"), the incognito setting, "always allow on this channel"
//   approvals, and the last problem to show.
// - chrome.storage.session (this browser session): "allow once" decisions, per tab.
// The service worker is the only writer; content scripts read the hub URL only.
// The hub the extension starts with is hub.json's, at the extension's root: the build writes it, and a hub
// that serves the extension (/downloads/webmcp-hub-extension.zip) writes its own origin there, so an
// extension installed from a hub points at that hub.

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

/** The origin of an http(s) URL the user typed, or null. */
export function hubOriginOf(url: string): string | null {
  try {
    const u = new URL(url.trim());
    return u.protocol === "http:" || u.protocol === "https:" ? u.origin : null;
  } catch {
    return null;
  }
}
