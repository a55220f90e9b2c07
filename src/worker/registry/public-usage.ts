// Public usage signals: a tool's (or a whole site's) calls over the last PUBLIC_USAGE_DAYS UTC days and its
// distinct channels, read from the rollups (tool_usage_daily, tool_usage_channels) in one query for a page of
// tools, and shown only past PUBLIC_USAGE_MIN_CHANNELS channels so no single user's activity shows.
// Distinct channels over the window: the union of the days' K-minimum-values sketches; exact below
// USAGE_KMV_K, else (K−1)/h_K, h_K the K-th smallest hash of the union read as a fraction of 1.
import { sql } from "drizzle-orm";
import {
  PUBLIC_USAGE_DAYS,
  PUBLIC_USAGE_MIN_CHANNELS,
  USAGE_KMV_K,
  type PublicUsage,
} from "../../protocol/usage.js";
import type { Db } from "../db/client.js";

/** A tool (`tool` set) or a whole site (`tool` null) whose usage to read. */
export type UsageKey = { host: string; tool: string | null };

const keyOf = (k: UsageKey) => `${k.host}\n${k.tool ?? ""}`;

/** Each key's public usage (null: under the threshold or no calls), by `host\ntool` (tool "" for a site). */
export async function publicUsage(db: Db, keys: UsageKey[], now: number): Promise<Map<string, PublicUsage>> {
  const out = new Map<string, PublicUsage>(keys.map((k) => [keyOf(k), null]));
  if (!keys.length) return out;
  const since = new Date(now - (PUBLIC_USAGE_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const want = JSON.stringify(keys.map((k) => [k.host, k.tool ?? ""]));
  const rows = await db.all<{ host: string; tool: string; calls: number; n: number; hk: string | null }>(sql`
    WITH w(host, tool) AS (SELECT DISTINCT value ->> 0, value ->> 1 FROM json_each(${want})),
    ch AS (SELECT host, tool, h, row_number() OVER (PARTITION BY host, tool ORDER BY h) AS i FROM (
      SELECT DISTINCT w.host, w.tool, c.channel_hash AS h FROM w JOIN tool_usage_channels c
      ON c.host = w.host AND (w.tool = '' OR c.tool = w.tool) AND c.day >= ${since}))
    SELECT w.host, w.tool,
      (SELECT sum(u.calls) FROM tool_usage_daily u
        WHERE u.host = w.host AND (w.tool = '' OR u.tool = w.tool) AND u.day >= ${since}) AS calls,
      (SELECT count(*) FROM ch WHERE ch.host = w.host AND ch.tool = w.tool) AS n,
      (SELECT h FROM ch WHERE ch.host = w.host AND ch.tool = w.tool AND i = ${USAGE_KMV_K}) AS hk
    FROM w`);
  for (const r of rows) {
    const channels = r.hk ? Math.round((USAGE_KMV_K - 1) / (parseInt(r.hk.slice(0, 12), 16) / 2 ** 48)) : r.n;
    if (channels >= PUBLIC_USAGE_MIN_CHANNELS && r.calls > 0)
      out.set(keyOf({ host: r.host, tool: r.tool || null }), {
        calls30d: r.calls,
        channels30d: channels,
      });
  }
  return out;
}

/** The usage of a tool of `publicUsage`'s answer. */
export const usageOf = (m: Map<string, PublicUsage>, host: string, tool: string | null = null) =>
  m.get(keyOf({ host, tool })) ?? null;
