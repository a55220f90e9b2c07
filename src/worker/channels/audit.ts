// Reading audit logs, newest first, with filters and keyset cursors. Each channel's rows live in its own
// Durable Object (relay/audit-log.ts); the Worker makes and checks the opaque cursors and asks the object.
// An account's view fans out to its channels: at most ACCOUNT_AUDIT_CHANNELS of them (the most recently
// used), FANOUT_PARALLEL objects asked at a time, each for one page past the cursor; the pages are merged
// newest first (createdAt, then channel id, then seq, all descending). The cursor carries the last entry's
// [createdAt, channel id, seq], from which each channel's own position follows, so it stays small whatever
// the number of channels.
import { sql } from "drizzle-orm";
import type { AuditEntry, AuditPage } from "../../protocol/views.js";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";
import { decodeCursor, encodeCursor } from "../registry/cursor.js";
import type { AuditRead } from "../relay/audit-log.js";
import type { ChannelRow } from "./channels.js";
import { configOf, relayOf } from "./relay-stub.js";

/** Channels an account's audit view reads (the most recently used first). */
export const ACCOUNT_AUDIT_CHANNELS = 20;
/** Channel objects asked at once. */
const FANOUT_PARALLEL = 5;

type AuditQuery = Omit<AuditRead, "after"> & { cursor?: string | undefined };
type Channel = Pick<ChannelRow, "id" | "strictNames" | "verificationPolicy">;

const fingerprintOf = (scope: string, id: string, q: AuditQuery) =>
  JSON.stringify([scope, id, q.tool ?? null, q.status ?? null, q.since ?? null, q.until ?? null]);

const filtersOf = (q: AuditQuery): AuditRead => ({
  tool: q.tool,
  status: q.status,
  since: q.since,
  until: q.until,
  limit: q.limit,
});

function badCursor(): never {
  throw new HubError(
    "invalid_cursor",
    "The cursor is not one this API issued. Drop it to start from the first page.",
  );
}

const num = (v: string | number | undefined): number =>
  typeof v === "number" && Number.isSafeInteger(v) ? v : badCursor();

/** GET /api/channels/:id/audit: one channel's page. */
export async function channelAudit(env: Env, channel: Channel, q: AuditQuery): Promise<AuditPage> {
  const fingerprint = fingerprintOf("audit", channel.id, q);
  const k = q.cursor ? decodeCursor(q.cursor, fingerprint) : null;
  const rows = await relayOf(env, channel).readAudit(configOf(channel), {
    ...filtersOf(q),
    after: k ? [num(k[0]), num(k[1])] : null,
  });
  const last = rows.keys[rows.keys.length - 1];
  return {
    entries: rows.entries,
    nextCursor: rows.more && last ? encodeCursor(fingerprint, last) : null,
  };
}

/** GET /api/account/audit: the account's channels' entries, merged newest first, each naming its channel. */
export async function accountAudit(env: Env, db: Db, accountId: string, q: AuditQuery) {
  const fingerprint = fingerprintOf("account-audit", accountId, q);
  const k = q.cursor ? decodeCursor(q.cursor, fingerprint) : null;
  const pos = k ? ([num(k[0]), typeof k[1] === "string" ? k[1] : badCursor(), num(k[2])] as const) : null;
  const channels = await db.all<Channel & { total: number }>(sql`SELECT id, strict_names AS strictNames,
      verification_policy AS verificationPolicy, count(*) OVER () AS total FROM channels
    WHERE account_id = ${accountId}
    ORDER BY last_used_at IS NULL, last_used_at DESC, created_at DESC, id LIMIT ${ACCOUNT_AUDIT_CHANNELS}`);
  type Found = { entry: AuditEntry & { channelId: string }; key: [number, string, number] };
  const found: Found[] = [];
  let more = false;
  const ask = async (ch: Channel & { strictNames: unknown }) => {
    // Past the cursor's entry in the merged order: a channel ordered after its channel may still show
    // entries at the same instant; one ordered before it, only older ones.
    const after: [number, number] | null = !pos
      ? null
      : ch.id < pos[1]
        ? [pos[0], Number.MAX_SAFE_INTEGER]
        : ch.id === pos[1]
          ? [pos[0], pos[2]]
          : [pos[0], 0];
    const rows = await relayOf(env, ch).readAudit(configOf({ ...ch, strictNames: Boolean(ch.strictNames) }), {
      ...filtersOf(q),
      after,
    });
    more ||= rows.more;
    rows.entries.forEach((e, i) =>
      found.push({ entry: { ...e, channelId: ch.id }, key: [rows.keys[i]![0], ch.id, rows.keys[i]![1]] }),
    );
  };
  for (let i = 0; i < channels.length; i += FANOUT_PARALLEL)
    await Promise.all(channels.slice(i, i + FANOUT_PARALLEL).map(ask));
  found.sort(
    (a, b) =>
      b.key[0] - a.key[0] || (a.key[1] < b.key[1] ? 1 : a.key[1] > b.key[1] ? -1 : b.key[2] - a.key[2]),
  );
  const page = found.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((f) => f.entry),
    nextCursor: (more || found.length > q.limit) && last ? encodeCursor(fingerprint, last.key) : null,
    channels: { read: channels.length, total: channels[0]?.total ?? 0 },
  };
}
