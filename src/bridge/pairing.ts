// A tab's pairing with the hub as this origin keeps it: one localStorage item per hub origin, holding the
// channel, the provider token and the relay's URL. The one place that knows the item's key and what a usable
// pairing looks like, shared by /bridge.js (relay-loader.ts: is a pairing stored, so the relay must load at
// start? forget it when disconnect() comes before the relay) and /bridge-relay.js (relay-client.ts: connect,
// keep, forget). Nothing here runs on import.

export interface Pairing {
  channelId: string;
  providerToken: string;
  relayUrl: string;
}

/** The localStorage key of the pairing with the hub at `hubOrigin` (other tabs of the origin watch it). */
export const pairingKey = (hubOrigin: string): string => `webmcp-hub:${hubOrigin}`;

/** The key of the tools the user always allows on `channelId` (approval.ts AlwaysAllowed). */
export const alwaysKey = (key: string, channelId: string): string => `${key}:always:${channelId}`;

/** The stored item's text, or null (none, or storage blocked). */
export function readStored(storage: Storage | null, key: string): string | null {
  try {
    return storage?.getItem(key) ?? null;
  } catch {
    return null;
  }
}

/** A stored or received pairing, if it has the three fields and nothing odd in them. */
export function parsePairing(text: string | null): Pairing | null {
  try {
    const p = JSON.parse(text ?? "null") as Partial<Pairing> | null;
    if (
      typeof p?.channelId === "string" &&
      typeof p.providerToken === "string" &&
      p.providerToken.startsWith("whr_") &&
      typeof p.relayUrl === "string" &&
      /^wss?:\/\//.test(p.relayUrl)
    ) {
      return { channelId: p.channelId, providerToken: p.providerToken, relayUrl: p.relayUrl };
    }
  } catch {
    // not JSON: treat as unpaired
  }
  return null;
}

/** Removes the stored pairing with the hub of `key` and the tools always allowed on its channels. */
export function forgetStored(storage: Storage | null, key: string): void {
  try {
    for (const k of Object.keys(storage ?? {}))
      if (k === key || k.startsWith(alwaysKey(key, ""))) storage!.removeItem(k);
  } catch {
    // blocked storage: nothing was kept
  }
}
