// The hub's OAuth 2.1 authorization server (@cloudflare/workers-oauth-provider), built per request because
// every channel is its own protected resource (`HUB/mcp/<channelId>`, ARCHITECTURE.md "OAuth for agents").
//
// Decision: the library's `OAuthAuthorizationServer` fixes its resource registry at construction, and the hub
// has one resource per channel, created and deleted at any time. Listing every channel is impossible (and would
// put them all into the metadata); a wildcard does not exist. So each request builds an instance whose
// registry holds exactly the resources that request can concern — the library then applies every RFC 8707
// rule itself (binding, "a token for A is refused by B", invalid_target, no retargeting on refresh):
//   - /authorize: the channel named by `resource`, if it is a channel of this hub; with no `resource`, the
//     signed-in account's channels (the consent page's picker names one before consent; see routes.ts);
//   - /oauth/token: the channel named by `resource`, plus the resource stored on the grant the code or
//     refresh token belongs to. Codes and tokens are `userId:grantId:secret`, and the grant's record (KV
//     `grant:<userId>:<grantId>`) keeps its resource in plain text, so a request that omits `resource`
//     still meets a registry with its own grant's channel — and only while that channel exists and still
//     belongs to the account that granted it (a released or deleted channel cannot be refreshed);
//   - /mcp/:channelId: that one channel (validateToken is asked about nothing else).
// A registry must not be empty; when a request concerns no channel at all (an unknown code, a resource that
// is no channel) it holds NO_CHANNEL, `HUB/mcp`, a URL no route serves and no grant is ever completed for:
// every completion re-checks the channel and its owner first. Construction is cheap (option checks, no I/O).
//
// The authorization server metadata (RFC 8414) is the same for every request: its optional
// `protected_resources` (which would list whatever registry the request built) is removed; each channel's
// protected-resource metadata (RFC 9728) is served by routes.ts at /.well-known/oauth-protected-resource/mcp/<id>.
//
// OAuth needs an https issuer, or http on a loopback host (`npm start`, wrangler dev): a hub reached any other
// way (a LAN address over plain http) has no OAuth; its MCP endpoint still takes agent tokens.
import { OAuthAuthorizationServer } from "@cloudflare/workers-oauth-provider";
import { isLoopbackHost } from "../http/mcp-origin.js";
import { UNUSED_CLIENT_TTL, checkRegistration } from "./client-limits.js";

export const AUTHORIZE_PATH = "/authorize";
export const TOKEN_PATH = "/oauth/token";
export const REGISTER_PATH = "/oauth/register";
export const AS_METADATA_PATH = "/.well-known/oauth-authorization-server";
export const PRM_PREFIX = "/.well-known/oauth-protected-resource";

/** An access token lives an hour; a grant 30 days after its code exchange (refresh tokens rotate). */
const ACCESS_TOKEN_TTL = 60 * 60;
export const REFRESH_TOKEN_TTL = 30 * 24 * 60 * 60;

/** Whether the hub at `hub` (an origin) can be an OAuth issuer. */
export function oauthAvailable(hub: string): boolean {
  const url = new URL(hub);
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/** A channel's MCP URL: its resource identifier and the token audience. */
export function channelResource(hub: string, channelId: string): string {
  return `${hub}/mcp/${channelId}`;
}

/** The registry entry of a request that concerns no channel (see the header). */
export function noChannel(hub: string): string {
  return `${hub}/mcp`;
}

const CHANNEL_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** The channel id a resource names, if it is `HUB/mcp/<id>` on this hub (exactly, no query or slash). */
export function channelIdOfResource(hub: string, resource: string): string | null {
  const prefix = `${hub}/mcp/`;
  // Scheme and host are compared case-insensitively, as the library does (RFC 3986 §6.2.2.1).
  if (resource.slice(0, prefix.length).toLowerCase() !== prefix.toLowerCase()) return null;
  const id = resource.slice(prefix.length);
  return CHANNEL_ID.test(id) && id !== "registry" ? id : null;
}

/** The authorization server of this hub for a request concerning `resources` (channel MCP URLs). */
export function authorizationServer(
  hub: string,
  resources: readonly string[],
  /** For validating a request that names no channel (the picker names one before consent; never completed). */
  defaultResource?: string,
): OAuthAuthorizationServer<Env> {
  const unique = [...new Set(resources)];
  return new OAuthAuthorizationServer<Env>({
    issuer: hub,
    resources: unique.length ? unique : [noChannel(hub)],
    ...(defaultResource && unique.includes(defaultResource) ? { defaultResource } : {}),
    authorizeEndpoint: AUTHORIZE_PATH,
    tokenEndpoint: TOKEN_PATH,
    clientRegistrationEndpoint: REGISTER_PATH,
    clientIdMetadataDocumentEnabled: true,
    accessTokenTTL: ACCESS_TOKEN_TTL,
    refreshTokenTTL: REFRESH_TOKEN_TTL,
    cookiePrefix: "__Host-hub-oauth-",
    // The hub defines no scopes: a grant is for the one channel named by `resource`, limited by that agent's
    // tool policy. `[]` in the metadata tells clients to send none; routes.tsx answers any with invalid_scope.
    scopesSupported: [],
    // Registrations (DCR) are capped in size, and one that never completes a grant expires in a day (a
    // completed grant extends it: client-limits.ts keepRegisteredClient).
    clientRegistrationCallback: checkRegistration,
    clientRegistrationTTL: UNUSED_CLIENT_TTL,
    // The library logs every refused request by default; the caller already sees the error.
    onError: () => undefined,
  });
}

/** Grant metadata the hub stores with each grant (plain text in KV; names only, no secrets). */
export interface GrantMetadata {
  channelId: string;
  clientName: string;
}

/** What an access token's encrypted props carry. */
export interface GrantProps {
  channelId: string;
  accountId: string;
  clientName: string;
}

/** `userId` and `grantId` of a code, refresh or access token (`userId:grantId:secret`), if shaped so. */
export function tokenParts(token: string): { userId: string; grantId: string } | null {
  const parts = token.split(":");
  if (parts.length !== 3 || parts.some((p) => p.length === 0 || p.length > 200)) return null;
  return { userId: parts[0]!, grantId: parts[1]! };
}

/** The resource stored on a grant (null when there is no such grant). */
export async function grantResource(
  kv: KVNamespace,
  userId: string,
  grantId: string,
): Promise<string | null> {
  const grant = await kv.get<{ resource?: unknown }>(`grant:${userId}:${grantId}`, "json");
  return grant && typeof grant.resource === "string" ? grant.resource : null;
}
