// The channels the user may act on as their owner: the signed-in account's (GET /api/account/channels; requests
// then go with the session cookie) first, then those only this browser keeps (with their owner keys). A
// channel both kept here and owned by the account is listed once, as the account's: an owner key kept here
// may have been revoked since, the account's ownership holds. Used by "Add to a channel" and "Try it".
import { api } from "./api.js";
import { store } from "./store.js";

/** A channel the user may act on, and how to authenticate as its owner ("" = the session cookie). */
export interface OwnedChannel {
  id: string;
  name: string;
  token: string;
  source: "account" | "browser";
}

/** The signed-in account's channels (null when nobody is signed in or the hub could not say). */
async function accountChannels(signedIn: boolean | undefined): Promise<OwnedChannel[] | null> {
  // The page says when nobody is signed in: then no request (the hub would answer 401).
  if (signedIn === false) return null;
  try {
    const body = await api<{ channels: Array<{ id: string; name: string }> }>("/api/account/channels");
    return body.channels.map((c) => ({ id: c.id, name: c.name, token: "", source: "account" }));
  } catch {
    return null;
  }
}

/** `signedIn`: what the page said (undefined: it did not say, so ask). */
export async function myChannels(
  signedIn?: boolean,
): Promise<{ channels: OwnedChannel[]; signedIn: boolean }> {
  const account = await accountChannels(signedIn);
  const ids = new Set((account ?? []).map((c) => c.id));
  const kept: OwnedChannel[] = store
    .channels()
    .filter((c) => !ids.has(c.id) && typeof c.ownerKey === "string" && c.ownerKey !== "")
    .map((c) => ({ id: c.id, name: c.name, token: c.ownerKey, source: "browser" }));
  return { channels: [...(account ?? []), ...kept], signedIn: account !== null };
}
