// Refresh-token reuse detection (OAuth 2.1 §4.3.1, refresh token rotation): a refresh token presented after it
// was rotated means two parties hold it, so the whole grant is revoked and both lose access.
//
// @cloudflare/workers-oauth-provider rotates refresh tokens but keeps the previous one valid on purpose (a
// client whose refresh response was lost can retry), and offers no hook for reuse: a thief replaying RT0 after
// the client's RT0→RT1 gets a working RT2 while the client's RT1 fails. So the hub wraps the token endpoint
// (routes.tsx): before a refresh_token grant reaches the library, its token's SHA-256 (the library's token id)
// is compared with the grant's `previousRefreshTokenId` and looked up among the tokens the hub saw rotated
// (`hub-rotated:<id>`, written after each successful refresh, kept as long as a grant can live). Either match
// revokes the grant (its access tokens too) and ends its open MCP sessions. The price is the library's retry
// grace: a client that lost a refresh response must connect again, as OAuth 2.1 intends.
import { relayOf } from "../channels/relay-stub.js";
import { sha256Hex } from "../secrets.js";
import {
  REFRESH_TOKEN_TTL,
  authorizationServer,
  channelIdOfResource,
  tokenParts,
} from "./authorization-server.js";

const ROTATED_PREFIX = "hub-rotated:";

interface GrantRecord {
  previousRefreshTokenId?: unknown;
  resource?: unknown;
}

/**
 * If `refreshToken` was already rotated: revokes its grant and returns the invalid_grant answer; otherwise
 * null (the library then handles the request as usual).
 */
export async function refuseReusedRefreshToken(
  env: Env,
  hub: string,
  refreshToken: string,
): Promise<Response | null> {
  const parts = tokenParts(refreshToken);
  if (!parts) return null;
  const id = await sha256Hex(refreshToken);
  const grant = await env.OAUTH_KV.get<GrantRecord>(`grant:${parts.userId}:${parts.grantId}`, "json");
  if (!grant) return null;
  const reused =
    grant.previousRefreshTokenId === id ||
    (await env.OAUTH_KV.get(ROTATED_PREFIX + id)) === `${parts.userId}:${parts.grantId}`;
  if (!reused) return null;
  await authorizationServer(hub, []).getOAuthApi(env).revokeGrant(parts.grantId, parts.userId);
  const channelId = typeof grant.resource === "string" ? channelIdOfResource(hub, grant.resource) : null;
  if (channelId) await relayOf(env, { id: channelId }).revokeAgent(`oauth:${parts.grantId}`);
  return Response.json(
    {
      error: "invalid_grant",
      error_description:
        "This refresh token was already used, so it may have been copied: the app's access is revoked. Connect the app again.",
    },
    { status: 400, headers: { "cache-control": "no-store" } },
  );
}

/** Remembers that `refreshToken` was rotated (after the library answered its refresh with 200). */
export async function noteRotatedRefreshToken(kv: KVNamespace, refreshToken: string): Promise<void> {
  const parts = tokenParts(refreshToken);
  if (!parts) return;
  await kv.put(ROTATED_PREFIX + (await sha256Hex(refreshToken)), `${parts.userId}:${parts.grantId}`, {
    expirationTtl: REFRESH_TOKEN_TTL,
  });
}
