// A channel's connected apps: the OAuth grants its owning account gave to clients for this channel (name,
// granted, last used), and revoking one. "Last used" is kept beside the library's records in OAUTH_KV
// (`hub-last-used:<grantId>`, written at most once a minute per isolate), since the library does not track it.
import type { ConnectedAppView } from "../../protocol/index.js";
import type { ChannelRow } from "../channels/channels.js";
import { HubError } from "../http/errors.js";
import {
  authorizationServer,
  channelResource,
  oauthAvailable,
  type GrantMetadata,
} from "./authorization-server.js";

const LAST_USED_PREFIX = "hub-last-used:";
const LAST_USED_EVERY_MS = 60_000;
/** Kept as long as a grant can live (30 days), plus slack. */
const LAST_USED_TTL_S = 35 * 24 * 60 * 60;
const written = new Map<string, number>();

export type ConnectedApp = ConnectedAppView;

/** Notes that a grant's token was used (cheap: at most one KV write a minute per grant and isolate). */
export async function noteGrantUse(kv: KVNamespace, grantId: string, now: number): Promise<void> {
  const last = written.get(grantId) ?? 0;
  if (now - last < LAST_USED_EVERY_MS) return;
  written.set(grantId, now);
  if (written.size > 10_000) written.clear();
  await kv.put(LAST_USED_PREFIX + grantId, String(now), { expirationTtl: LAST_USED_TTL_S });
}

function isGrantMetadata(value: unknown): value is GrantMetadata {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as GrantMetadata).channelId === "string" &&
    typeof (value as GrantMetadata).clientName === "string"
  );
}

/** The grants of the channel's owning account for this channel, newest first ([] for an unclaimed channel). */
export async function listConnectedApps(env: Env, hub: string, channel: ChannelRow): Promise<ConnectedApp[]> {
  if (channel.accountId === null || !oauthAvailable(hub)) return [];
  const resource = channelResource(hub, channel.id);
  const helpers = authorizationServer(hub, [resource]).getOAuthApi(env);
  const apps: ConnectedApp[] = [];
  let cursor: string | undefined;
  do {
    const page = await helpers.listUserGrants(channel.accountId, {
      limit: 1000,
      ...(cursor ? { cursor } : {}),
    });
    for (const g of page.items) {
      if (!isGrantMetadata(g.metadata) || g.metadata.channelId !== channel.id) continue;
      const lastUsed = await env.OAUTH_KV.get(LAST_USED_PREFIX + g.id);
      apps.push({
        grantId: g.id,
        clientId: g.clientId,
        clientName: g.metadata.clientName,
        grantedAt: new Date(g.createdAt * 1000).toISOString(),
        lastUsedAt: lastUsed ? new Date(Number(lastUsed)).toISOString() : null,
        expiresAt: g.expiresAt ? new Date(g.expiresAt * 1000).toISOString() : null,
      });
    }
    cursor = page.cursor;
  } while (cursor);
  return apps.sort((a, b) => b.grantedAt.localeCompare(a.grantedAt));
}

/** Revokes one connected app's grant (its access and refresh tokens with it); 404 when it is not this channel's. */
export async function revokeConnectedApp(
  env: Env,
  hub: string,
  channel: ChannelRow,
  grantId: string,
): Promise<void> {
  const apps = await listConnectedApps(env, hub, channel);
  if (!apps.some((a) => a.grantId === grantId) || channel.accountId === null)
    throw new HubError("not_found", `No connected app ${grantId} in this channel.`);
  const helpers = authorizationServer(hub, [channelResource(hub, channel.id)]).getOAuthApi(env);
  await helpers.revokeGrant(grantId, channel.accountId);
  await env.OAUTH_KV.delete(LAST_USED_PREFIX + grantId);
}
