// The daily maintenance the Cron Trigger runs (index.ts `scheduled`): what anonymous writes leave behind is
// bounded in time, not only in rate. Audit rows D1 still holds from before each channel kept its own log
// (relay/audit-log.ts: the object prunes its rows, and notes calls as the channel's use on its row) are kept
// AUDIT_RETENTION_DAYS; expired challenges, pairing codes and rate-limit windows are dropped; sites never
// verified and channels never used (or idle) expire, unless an account owns them; expired browser sessions
// and WebAuthn challenges are dropped.
import { sql, type SQL } from "drizzle-orm";
import type { Db } from "./db/client.js";
import type { Settings } from "./env.js";
import { pruneRateLimits } from "./channels/rate-limit.js";
import { relayOf } from "./channels/relay-stub.js";
import { backfillDigests } from "./registry/digests.js";
import { notProofOnRecord } from "./registry/sites.js";
import { pruneUsage } from "./registry/usage.js";

const DAY_MS = 24 * 60 * 60 * 1000;
/** Rows one delete statement removes: keeps each statement short (D1 limits a query's time). */
const BATCH = 1000;
/** Idle channels closed per run: each costs calls to its Durable Object; the rest wait for the next day. */
const IDLE_CHANNELS_PER_RUN = 500;

export type MaintenanceSettings = Pick<
  Settings,
  "AUDIT_RETENTION_DAYS" | "PENDING_SITE_DAYS" | "UNUSED_CHANNEL_DAYS" | "IDLE_CHANNEL_DAYS"
>;

/** Closes a channel's live connections: its providers' sockets and its agents' MCP sessions. */
export type CloseChannel = (
  channelId: string,
  tokens: { providerTokenIds: string[]; agentTokenIds: string[] },
) => Promise<number>;

/** The CloseChannel of a deployment: the channel's ChannelRelay closes each token's sockets and sessions. */
export function closeChannelRelay(env: Env): CloseChannel {
  return async (channelId, tokens) => {
    const relay = relayOf(env, { id: channelId });
    const closed = await Promise.all([
      ...tokens.providerTokenIds.map((id) => relay.revokeProvider(id)),
      ...tokens.agentTokenIds.map((id) => relay.revokeAgent(id)),
    ]);
    return closed.reduce((a, b) => a + b, 0);
  };
}

export interface MaintenanceReport {
  auditRows: number;
  challenges: number;
  pairingCodes: number;
  rateLimitWindows: number;
  pendingSites: number;
  unusedChannels: number;
  idleChannels: number;
  sessions: number;
  webauthnChallenges: number;
  closedConnections: number;
  /** Tool rows published before definition digests that were given theirs (bounded per run). */
  digests: number;
  /** Tool usage rollup rows deleted (past USAGE_DAYS, past the sketch's K, past the kept errors). */
  usageRows: number;
}

/** Runs every step once; each is idempotent, so a failed run is simply repeated by the next one. */
export async function runMaintenance(
  db: Db,
  now: number,
  settings: MaintenanceSettings,
  closeChannel: CloseChannel,
): Promise<MaintenanceReport> {
  const auditRows = await deleteInBatches(
    db,
    sql`SELECT rowid FROM audit_log WHERE created_at < ${now - settings.AUDIT_RETENTION_DAYS * DAY_MS}`,
    "audit_log",
  );
  const challenges = await deleteInBatches(
    db,
    // The challenge a site's latest verification answered stays: re-verification checks its token again.
    sql`SELECT rowid FROM challenges WHERE expires_at <= ${now} AND ${notProofOnRecord}`,
    "challenges",
  );
  const pairingCodes = await deleteInBatches(
    db,
    sql`SELECT rowid FROM pairing_codes WHERE expires_at <= ${now}`,
    "pairing_codes",
  );
  const rateLimitWindows = await pruneRateLimits(db, now);
  // Never verified, and no claim still open (registering again opens one, and keeps the site).
  const pendingSites = await deleteInBatches(
    db,
    sql`SELECT rowid FROM sites WHERE status = 'pending' AND created_at < ${now - settings.PENDING_SITE_DAYS * DAY_MS}
      AND NOT EXISTS (SELECT 1 FROM challenges c WHERE c.host = sites.host AND c.used_at IS NULL AND c.expires_at > ${now})`,
    "sites",
  );
  // Never used: nothing was ever paired or opened with it, so its object holds no connection to close.
  // A channel an account owns never expires: the account lists it and can delete it.
  const unusedChannels = await deleteInBatches(
    db,
    sql`SELECT rowid FROM channels WHERE last_used_at IS NULL AND account_id IS NULL
      AND created_at < ${now - settings.UNUSED_CHANNEL_DAYS * DAY_MS}`,
    "channels",
  );
  const idle = await expireIdleChannels(db, now - settings.IDLE_CHANNEL_DAYS * DAY_MS, closeChannel);
  const sessions = await deleteInBatches(
    db,
    sql`SELECT rowid FROM sessions WHERE expires_at <= ${now}`,
    "sessions",
  );
  const webauthnChallenges = await deleteInBatches(
    db,
    sql`SELECT rowid FROM webauthn_challenges WHERE expires_at <= ${now}`,
    "webauthn_challenges",
  );
  const digests = await backfillDigests(db);
  // Tool usage rollups: USAGE_DAYS kept, each day's channel sketch and errors bounded (registry/usage.ts).
  const usageRows = await pruneUsage(db, now);
  return {
    auditRows,
    challenges,
    pairingCodes,
    rateLimitWindows,
    pendingSites,
    unusedChannels,
    ...idle,
    sessions,
    webauthnChallenges,
    digests,
    usageRows,
  };
}

/** Channels used once but not since `cutoff` (and owned by no account): deleted, then their connections closed. */
async function expireIdleChannels(
  db: Db,
  cutoff: number,
  closeChannel: CloseChannel,
): Promise<{ idleChannels: number; closedConnections: number }> {
  const candidates = await db.all<{ id: string }>(
    sql`SELECT id FROM channels WHERE last_used_at < ${cutoff} AND account_id IS NULL LIMIT ${IDLE_CHANNELS_PER_RUN}`,
  );
  // Only if still idle (a use since the select keeps it).
  const closed = await closeChannels(
    db,
    candidates.map((c) => c.id),
    closeChannel,
    sql`last_used_at < ${cutoff} AND account_id IS NULL`,
  );
  return { idleChannels: closed.channels, closedConnections: closed.connections };
}

/**
 * Deletes channels (those still matching `still`, when given) and then closes their live connections through
 * each channel's ChannelRelay. Deleted first: a connection closed after this can no longer authenticate to
 * come back. Tokens and codes go with the channel (ON DELETE CASCADE).
 */
export async function closeChannels(
  db: Db,
  ids: string[],
  closeChannel: CloseChannel,
  still?: SQL,
): Promise<{ channels: number; connections: number }> {
  let channels = 0;
  let connections = 0;
  for (const id of ids) {
    const [providers, agents] = await Promise.all([
      db.all<{ id: string }>(
        sql`SELECT id FROM provider_tokens WHERE channel_id = ${id} AND revoked_at IS NULL`,
      ),
      db.all<{ id: string }>(
        sql`SELECT id FROM agent_tokens WHERE channel_id = ${id} AND revoked_at IS NULL`,
      ),
    ]);
    const deleted = await db.all<{ id: string }>(
      still
        ? sql`DELETE FROM channels WHERE id = ${id} AND ${still} RETURNING id`
        : sql`DELETE FROM channels WHERE id = ${id} RETURNING id`,
    );
    if (deleted.length === 0) continue;
    channels++;
    connections += await closeChannel(id, {
      providerTokenIds: providers.map((p) => p.id),
      agentTokenIds: agents.map((a) => a.id),
    });
  }
  return { channels, connections };
}

/** Deletes the rows `select` (a `SELECT rowid …`) finds, BATCH at a time, until none is left. */
async function deleteInBatches(db: Db, select: SQL, table: string): Promise<number> {
  let total = 0;
  for (;;) {
    // RETURNING counts the table's own rows (D1's meta.changes also counts rows deleted by ON DELETE CASCADE).
    const deleted = await db.all(
      sql`DELETE FROM ${sql.identifier(table)} WHERE rowid IN (${select} LIMIT ${BATCH}) RETURNING 1 AS gone`,
    );
    const changes = deleted.length;
    total += changes;
    if (changes < BATCH) return total;
  }
}
