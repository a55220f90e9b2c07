// The channel MCP endpoint as an OAuth protected resource: its Bearer challenge (RFC 6750 / RFC 9728) and
// the check of an OAuth access token for one channel, which names the agent by its OAuth client.
import { eq } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { channels } from "../db/schema.js";
import type { ChannelRow } from "../channels/channels.js";
import { HubError } from "../http/errors.js";
import { sha256Hex } from "../secrets.js";
import {
  PRM_PREFIX,
  authorizationServer,
  channelResource,
  oauthAvailable,
  tokenParts,
  type GrantProps,
} from "./authorization-server.js";

/** The channel's protected-resource metadata URL (RFC 9728 §3.1: the well-known prefix before the path). */
export function resourceMetadataUrl(hub: string, channelId: string): string {
  return `${hub}${PRM_PREFIX}/mcp/${channelId}`;
}

/** The `WWW-Authenticate` value of a 401 on the channel's MCP URL (`error` for a token that was refused). */
export function bearerChallenge(hub: string, channelId: string, error?: "invalid_token"): string {
  const parts = error ? [`error="${error}"`] : [];
  if (oauthAvailable(hub)) parts.push(`resource_metadata="${resourceMetadataUrl(hub, channelId)}"`);
  return parts.length ? `Bearer ${parts.join(", ")}` : "Bearer";
}

/** RFC 9728 metadata of a channel's MCP URL; the same shape for every channel id (existence is not told). */
export function protectedResourceMetadata(hub: string, channelId: string) {
  return {
    resource: channelResource(hub, channelId),
    authorization_servers: [hub],
    bearer_methods_supported: ["header"],
    // No scopes: a token is for this channel (authorization-server.ts); `[]` tells clients to ask for none.
    scopes_supported: [],
    resource_name: "webmcp-hub channel",
    resource_documentation: `${hub}/docs`,
  };
}

export interface OAuthAgent {
  channel: ChannelRow;
  grantId: string;
  /** `oauth:<grantId>`: stable across refreshes, so one grant's sessions and calls are one agent. */
  agentTokenId: string;
  /** The OAuth client's name, as it was when access was granted. */
  agentLabel: string;
  tokenHash: string;
}

/**
 * The agent an OAuth access token stands for in `channelId`, or 401 `unauthorized` with the Bearer challenge
 * (`error="invalid_token"`): a token that is unknown, expired or revoked, issued for another channel, or whose
 * channel no longer belongs to the account that granted it.
 */
export async function authenticateOAuthAgent(
  env: Env,
  db: Db,
  hub: string,
  channelId: string,
  token: string,
): Promise<OAuthAgent> {
  const refuse = () =>
    new HubError(
      "unauthorized",
      "This access token is not valid for this channel: it is unknown, expired or revoked, or was issued for another channel. Authorize again.",
      { headers: { "www-authenticate": bearerChallenge(hub, channelId, "invalid_token") } },
    );
  const parts = tokenParts(token);
  if (!parts || !oauthAvailable(hub)) throw refuse();
  const resource = channelResource(hub, channelId);
  const validated = await authorizationServer(hub, [resource]).validateToken<GrantProps>(
    resource,
    token,
    env,
  );
  if (!validated || validated.audience !== resource) throw refuse();
  const channel = await db.query.channels.findFirst({ where: eq(channels.id, channelId) });
  if (!channel || channel.accountId === null || channel.accountId !== validated.userId) throw refuse();
  return {
    channel,
    grantId: parts.grantId,
    agentTokenId: `oauth:${parts.grantId}`,
    agentLabel: validated.props.clientName || "OAuth app",
    tokenHash: await sha256Hex(token),
  };
}
