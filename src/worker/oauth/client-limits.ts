// Bounds on what an OAuth client can make the hub store or fetch.
//
// Dynamic Client Registration: at most MAX_REDIRECT_URIS redirect URIs and MAX_CLIENT_METADATA_BYTES of
// metadata (the library alone takes 1,000 URIs in 1 MiB); a registration that never completes a grant expires
// after UNUSED_CLIENT_TTL (the library's KV expiry), and completing one extends it to outlive that grant.
//
// Client ID Metadata Documents: the library fetches `client_id` when it is an https URL. The hub lets it only
// for an id site verification could fetch too (registry/origins.ts assertFetchable: public host, port 443;
// anything under ALLOW_PRIVATE_ORIGINS, the local-mode switch). The URL parser canonicalizes every IPv4
// spelling (`127.1`, `0x7f000001`, `2130706433`) before the range check, as fetch would.
import type { ClientRegistrationCallbackOptions } from "@cloudflare/workers-oauth-provider";
import { HubError } from "../http/errors.js";
import { assertFetchable, privateHostReason } from "../registry/origins.js";

export const MAX_REDIRECT_URIS = 10;
export const MAX_CLIENT_METADATA_BYTES = 8 * 1024;
/** A registered client that completes no grant within a day is dropped (a person consents in minutes). */
export const UNUSED_CLIENT_TTL = 24 * 60 * 60;

/** The library's registration hook: refuses (RFC 7591 invalid_client_metadata) what is over the caps. */
export function checkRegistration({ clientMetadata }: ClientRegistrationCallbackOptions) {
  const uris = clientMetadata.redirect_uris;
  if (Array.isArray(uris) && uris.length > MAX_REDIRECT_URIS)
    return {
      description: `A client may register at most ${MAX_REDIRECT_URIS} redirect URIs; this one sent ${uris.length}.`,
    };
  const bytes = new TextEncoder().encode(JSON.stringify(clientMetadata)).byteLength;
  if (bytes > MAX_CLIENT_METADATA_BYTES)
    return {
      description: `Client metadata may be at most ${MAX_CLIENT_METADATA_BYTES / 1024} KiB; this one is ${Math.ceil(bytes / 1024)} KiB.`,
    };
  return undefined;
}

/**
 * After a grant completes: a registered (DCR) client's record is kept `seconds` from `now` (the grant's
 * life), instead of UNUSED_CLIENT_TTL. The record is the library's (`client:<id>`, `registrationExpiresAt`);
 * a record without that stamp never expires and is left alone, as are Client ID Metadata Document clients.
 */
export async function keepRegisteredClient(
  kv: KVNamespace,
  clientId: string,
  now: number,
  seconds: number,
): Promise<void> {
  const key = `client:${clientId}`;
  const record = await kv.get<Record<string, unknown>>(key, "json");
  if (!record || typeof record.registrationExpiresAt !== "number") return;
  const expiresAt = Math.floor(now / 1000) + seconds;
  if (record.registrationExpiresAt >= expiresAt) return;
  await kv.put(key, JSON.stringify({ ...record, registrationExpiresAt: expiresAt }), {
    expirationTtl: seconds,
  });
}

/** Whether the library would fetch `clientId` as a metadata document (an https URL). */
export function isMetadataDocumentId(clientId: string): boolean {
  return /^https:\/\//i.test(clientId);
}

/** Throws the HubError site verification would (private_origin, invalid_origin) unless `clientId` may be fetched. */
export function assertFetchableClientId(clientId: string, allowPrivate: boolean): void {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return; // not a URL: the library refuses it without fetching
  }
  const reason = allowPrivate ? undefined : privateHostReason(url.hostname.replace(/^\[|\]$/g, ""));
  if (reason)
    throw new HubError(
      "private_origin",
      `${url.host} is ${reason}; the hub reads app descriptions only from public web addresses.`,
    );
  assertFetchable(url, allowPrivate);
}

/** Every client id a token request can name: `client_id`, Basic credentials, a client assertion's issuer. */
export function tokenRequestClientIds(body: URLSearchParams, authorization: string | undefined): string[] {
  const ids = body.getAll("client_id");
  const basic = /^basic[ \t]+(\S+)\s*$/i.exec(authorization ?? "");
  if (basic) {
    try {
      const user = atob(basic[1]!).split(":")[0]!;
      ids.push(decodeURIComponent(user.replace(/\+/g, " ")));
    } catch {
      // malformed: the library refuses it
    }
  }
  const payload = body.get("client_assertion")?.split(".")[1];
  if (payload) {
    try {
      const claims = JSON.parse(atob(payload.replace(/-/g, "+").replace(/_/g, "/"))) as { iss?: unknown };
      if (typeof claims.iss === "string") ids.push(claims.iss);
    } catch {
      // malformed: the library refuses it
    }
  }
  return ids;
}
