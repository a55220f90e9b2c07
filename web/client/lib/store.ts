// This browser's copy of what the hub shows once (channels and their keys, publisher keys, open claims), in
// local storage under "webmcp-hub:". Reads never throw: storage that is off or corrupt reads as empty.
import type { ChallengeView } from "../../../src/protocol/views.js";

const PREFIX = "webmcp-hub:";

export interface KeptAgentToken {
  id: string;
  label: string;
  token: string;
  revoked?: boolean;
}

/** A channel created or opened in this browser. */
export interface KeptChannel {
  id: string;
  name: string;
  strictNames: boolean;
  createdAt?: string;
  ownerKey: string;
  mcpUrl: string;
  agentToken?: string | undefined;
  agentTokenId?: string | undefined;
  tokens?: KeptAgentToken[];
  pairingCode?: string;
  pairingCodeExpiresAt?: string;
}

/** A site registered or verified in this browser, by host. */
export interface KeptSite {
  origin?: string;
  claim?: { claimSecret: string; challenge: ChallengeView } | undefined;
  publisherKey?: string | undefined;
  verifiedBy?: string;
  updatedAt?: string;
}

export const store = {
  get<T>(name: string, fallback: T): T {
    try {
      const raw = localStorage.getItem(PREFIX + name);
      return raw === null ? fallback : (JSON.parse(raw) as T);
    } catch {
      return fallback;
    }
  },
  /** False when the browser would not store it (storage off or full). */
  set(name: string, value: unknown): boolean {
    try {
      localStorage.setItem(PREFIX + name, JSON.stringify(value));
      return true;
    } catch {
      return false;
    }
  },
  remove(name: string): void {
    try {
      localStorage.removeItem(PREFIX + name);
    } catch {
      // Storage is off: nothing was kept.
    }
  },
  channels(): KeptChannel[] {
    const all = store.get<unknown>("channels", []);
    return Array.isArray(all) ? (all as KeptChannel[]) : [];
  },
  channel(id: string): KeptChannel | undefined {
    return store.channels().find((c) => c.id === id);
  },
  /** Keeps `channel` first in the list; false when the browser would not store it. */
  saveChannel(channel: KeptChannel): boolean {
    const all = store.channels().filter((c) => c.id !== channel.id);
    all.unshift(channel);
    return store.set("channels", all);
  },
  forgetChannel(id: string): void {
    store.set(
      "channels",
      store.channels().filter((c) => c.id !== id),
    );
  },
  sites(): Record<string, KeptSite> {
    const all = store.get<unknown>("sites", {});
    return typeof all === "object" && all !== null && !Array.isArray(all)
      ? (all as Record<string, KeptSite>)
      : {};
  },
  /** Merges `patch` into the site's record; a key patched to undefined is removed. */
  saveSite(host: string, patch: Partial<KeptSite>): void {
    const all = store.sites();
    const site: Record<string, unknown> = { ...all[host], ...patch, updatedAt: new Date().toISOString() };
    for (const [k, v] of Object.entries(site)) if (v === undefined) delete site[k];
    all[host] = site as KeptSite;
    store.set("sites", all);
  },
  forgetSite(host: string): void {
    const all = store.sites();
    delete all[host];
    store.set("sites", all);
  },
};
