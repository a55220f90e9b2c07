// Reading the tool usage rollups (src/usage/rollup.ts writes them): a site owner's analytics (GET
// /api/sites/:host/analytics) and the public usage signals (tool and site pages, /api/tools, search).
// Distinct channels come from the K-minimum-values rows of tool_usage_channels: the union of the days' rows
// holds the K smallest hashes of the whole range (each day keeps its K smallest), so counting the distinct
// hashes is exact below USAGE_KMV_K and past it the estimate is (K-1)/h_K, h_K the K-th smallest hash read as
// a number in (0, 1].
import {
  LATENCY_BUCKETS,
  PUBLIC_USAGE_DAYS,
  PUBLIC_USAGE_MIN_CHANNELS,
  USAGE_DAYS,
  USAGE_KMV_K,
  latencyQuantile,
  type PublicUsage,
  type SiteAnalytics,
} from "../../protocol/usage.js";
import { NAMED_COUNTERS } from "../../usage/rollup.js";
import type { Db } from "../db/client.js";
import { HubError } from "../http/errors.js";

const DAY_MS = 86_400_000;
/** The UTC day of `ms`, YYYY-MM-DD. */
export const usageDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Distinct channels from the sorted K smallest distinct hashes (hex SHA-256) of a key. */
export function kmvCount(sortedHashes: readonly string[]): number {
  if (sortedHashes.length < USAGE_KMV_K) return sortedHashes.length;
  // The first 52 bits as a number in (0, 1]: (x + 1) / 2^52.
  const h = (parseInt(sortedHashes[USAGE_KMV_K - 1]!.slice(0, 13), 16) + 1) / 2 ** 52;
  return Math.max(USAGE_KMV_K, Math.round((USAGE_KMV_K - 1) / h));
}

/** Per tool (and `null` for the tools together), the K smallest distinct channel hashes of host in [from, to]. */
async function channelCounts(
  db: D1Database,
  host: string,
  from: string,
  to: string,
  tools: readonly string[] | null,
): Promise<Map<string | null, number>> {
  const only = tools ? ` AND tool IN (${tools.map(() => "?").join(",")})` : "";
  const where = `host = ? AND day >= ? AND day <= ?${only}`;
  const binds = [host, from, to, ...(tools ?? [])];
  const k = USAGE_KMV_K;
  const { results } = await db
    .prepare(
      `SELECT tool, channel_hash AS h FROM (SELECT tool, channel_hash, row_number() OVER (PARTITION BY tool ORDER BY channel_hash) AS n
         FROM (SELECT DISTINCT tool, channel_hash FROM tool_usage_channels WHERE ${where})) WHERE n <= ${k}
       UNION ALL
       SELECT NULL, channel_hash FROM (SELECT DISTINCT channel_hash FROM tool_usage_channels WHERE ${where} ORDER BY channel_hash LIMIT ${k})
       ORDER BY 1, 2`,
    )
    .bind(...binds, ...binds)
    .all<{ tool: string | null; h: string }>();
  const byTool = new Map<string | null, string[]>();
  for (const r of results) byTool.set(r.tool, [...(byTool.get(r.tool) ?? []), r.h]);
  return new Map([...byTool].map(([t, hs]) => [t, kmvCount(hs)]));
}

/**
 * Public usage of a site's tools over the last PUBLIC_USAGE_DAYS UTC days (today included): calls and distinct
 * channels per tool, `null` where fewer than PUBLIC_USAGE_MIN_CHANNELS channels called (no one user's
 * activity shows). `tools`: the tools to answer for (null: every tool with rows); the key `""` holds the
 * site's tools together (distinct channels across them). Tools without rows are absent (read as null).
 */
export async function publicUsage(
  db: D1Database,
  host: string,
  tools: readonly string[] | null,
  now: number,
): Promise<Map<string, PublicUsage>> {
  if (tools?.length === 0) return new Map();
  const from = usageDay(now - (PUBLIC_USAGE_DAYS - 1) * DAY_MS);
  const to = usageDay(now);
  const only = tools ? ` AND tool IN (${tools.map(() => "?").join(",")})` : "";
  const [calls, channels] = await Promise.all([
    db
      .prepare(
        `SELECT tool, sum(calls) AS calls FROM tool_usage_daily WHERE host = ? AND day >= ? AND day <= ?${only} GROUP BY tool`,
      )
      .bind(host, from, to, ...(tools ?? []))
      .all<{ tool: string; calls: number }>(),
    channelCounts(db, host, from, to, tools),
  ]);
  const out = new Map<string, PublicUsage>();
  const shown = (calls30d: number, channels30d: number): PublicUsage =>
    channels30d >= PUBLIC_USAGE_MIN_CHANNELS ? { calls30d, channels30d } : null;
  let total = 0;
  for (const r of calls.results) {
    total += r.calls;
    out.set(r.tool, shown(r.calls, channels.get(r.tool) ?? 0));
  }
  if (calls.results.length) out.set("", shown(total, channels.get(null) ?? 0));
  return out;
}

/** The analytics query: YYYY-MM-DD days (default: the last 30), optionally one tool. */
export interface AnalyticsRange {
  from: string;
  to: string;
  tool: string | null;
}

/** Reads and checks ?from=&to=&tool= against the kept window (USAGE_DAYS back from today). */
export function analyticsRange(q: Record<string, string | undefined>, now: number): AnalyticsRange {
  const today = usageDay(now);
  const oldest = usageDay(now - (USAGE_DAYS - 1) * DAY_MS);
  const bad = (path: string, message: string) =>
    new HubError("validation_failed", `${path}: ${message}`, { issues: [{ path, message }] });
  const day = (name: "from" | "to", fallback: string) => {
    const v = q[name];
    if (v === undefined || v === "") return fallback;
    const ms = /^\d{4}-\d{2}-\d{2}$/.test(v) ? Date.parse(`${v}T00:00:00Z`) : NaN;
    if (Number.isNaN(ms) || usageDay(ms) !== v) throw bad(name, `"${v}" is not a date (YYYY-MM-DD).`);
    return v;
  };
  const to = day("to", today);
  const from = day("from", usageDay(Math.min(now, Date.parse(`${to}T00:00:00Z`)) - 29 * DAY_MS));
  if (from > to) throw bad("from", `from (${from}) is after to (${to}).`);
  if (from < oldest)
    throw bad("from", `Usage is kept for ${USAGE_DAYS} days: the oldest day to ask for is ${oldest}.`);
  if (to > today) throw bad("to", `to (${to}) is after today (${today}, UTC).`);
  const tool = q.tool ? q.tool : null;
  return { from, to, tool };
}

type DailyRow = { tool: string; day: string } & Record<
  | "calls"
  | "ok"
  | "error"
  | "denied"
  | "timeout"
  | "invalid"
  | "other"
  | "verified"
  | "changed"
  | "unpublished"
  | "cloud",
  number
> & { [bucket: `d${number}`]: number };

/** A site's analytics over a range (checked by analyticsRange); `known`: the tools the site publishes. */
export async function siteAnalytics(
  db: D1Database,
  host: string,
  range: AnalyticsRange,
  known: readonly string[],
): Promise<SiteAnalytics> {
  const { from, to, tool } = range;
  const only = tool === null ? "" : " AND tool = ?";
  const binds = [host, from, to, ...(tool === null ? [] : [tool])];
  const where = `host = ? AND day >= ? AND day <= ?${only}`;
  const [daily, dayChannels, errors] = await db.batch([
    db.prepare(`SELECT * FROM tool_usage_daily WHERE ${where} ORDER BY tool, day`).bind(...binds),
    db
      .prepare(
        `SELECT tool, day, channel_hash AS h FROM (SELECT tool, day, channel_hash, row_number() OVER (PARTITION BY tool, day ORDER BY channel_hash) AS n
           FROM tool_usage_channels WHERE ${where}) WHERE n <= ${USAGE_KMV_K} ORDER BY tool, day, h`,
      )
      .bind(...binds),
    db
      .prepare(
        `SELECT tool, message, sum(count) AS count FROM tool_usage_errors WHERE ${where}
         GROUP BY tool, message ORDER BY count DESC, tool, message LIMIT 10`,
      )
      .bind(...binds),
  ]);
  const rows = (daily!.results ?? []) as DailyRow[];
  if (tool !== null && !known.includes(tool) && rows.length === 0)
    throw new HubError("not_found", `${host} publishes no tool ${tool}, and none was called in this range.`);
  const hashes = new Map<string, string[]>();
  for (const r of (dayChannels!.results ?? []) as { tool: string; day: string; h: string }[]) {
    const k = `${r.tool}\n${r.day}`;
    hashes.set(k, [...(hashes.get(k) ?? []), r.h]);
  }
  const totals = await channelCounts(db, host, from, to, tool === null ? null : [tool]);
  const buckets = (r: DailyRow) => Array.from({ length: LATENCY_BUCKETS }, (_, i) => r[`d${i}`] ?? 0);
  const days = rows.map((r) => {
    const b = buckets(r);
    return {
      day: r.day,
      tool: r.tool,
      calls: r.calls,
      ok: r.ok,
      error: r.error,
      denied: r.denied,
      timeout: r.timeout,
      invalid: r.invalid,
      other: r.other,
      verified: r.verified,
      changed: r.changed,
      unpublished: r.unpublished,
      cloud: r.cloud,
      channels: kmvCount(hashes.get(`${r.tool}\n${r.day}`) ?? []),
      p50Ms: latencyQuantile(b, 0.5),
      p95Ms: latencyQuantile(b, 0.95),
    };
  });
  const perTool = new Map<string, { calls: number; ok: number; changed: number; b: number[] }>();
  for (const r of rows) {
    const t = perTool.get(r.tool) ?? { calls: 0, ok: 0, changed: 0, b: Array(LATENCY_BUCKETS).fill(0) };
    t.calls += r.calls;
    t.ok += r.ok;
    t.changed += r.changed;
    buckets(r).forEach((n, i) => (t.b[i] += n));
    perTool.set(r.tool, t);
  }
  return {
    host,
    from,
    to,
    tool,
    days,
    tools: [...perTool].map(([name, t]) => ({
      tool: name,
      calls: t.calls,
      // Calls that did not end ok, of all calls.
      errorRate: t.calls ? (t.calls - t.ok) / t.calls : 0,
      changed: t.changed,
      p50Ms: latencyQuantile(t.b, 0.5),
      p95Ms: latencyQuantile(t.b, 0.95),
      channels: totals.get(name) ?? 0,
    })),
    errors: ((errors!.results ?? []) as { tool: string; message: string; count: number }[]).map((e) => ({
      tool: e.tool,
      message: e.message,
      count: e.count,
    })),
  };
}

/** The CSV's columns: the day, the tool, the day's named counters, then what is read from the rest. */
const CSV_COLUMNS = ["day", "tool", ...NAMED_COUNTERS, "channels", "p50Ms", "p95Ms"] as const;

/** The analytics' days as CSV: a header, then one row per (day, tool). */
export function analyticsCsv(a: SiteAnalytics): string {
  const cell = (v: unknown) => {
    const s = v === null ? "" : String(v);
    return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const sorted = [...a.days].sort((x, y) => x.day.localeCompare(y.day) || x.tool.localeCompare(y.tool));
  return [CSV_COLUMNS.join(","), ...sorted.map((d) => CSV_COLUMNS.map((c) => cell(d[c])).join(","))]
    .map((l) => `${l}\r\n`)
    .join("");
}

/** Errors kept per (host, tool, day) by the daily maintenance. */
const ERRORS_KEPT = 10;
/** Days the maintenance prunes the sketch and errors of (flushes land within minutes; this covers missed runs). */
const PRUNE_DAYS = 7;

/**
 * The daily maintenance's part (maintenance.ts): rollup rows older than USAGE_DAYS go; each recent (host, tool,
 * day) keeps its USAGE_KMV_K smallest channel hashes and its ERRORS_KEPT commonest messages. Returns rows deleted.
 */
export async function pruneUsage(db: Db, now: number): Promise<number> {
  const d1 = db.$client;
  const oldest = usageDay(now - (USAGE_DAYS - 1) * DAY_MS);
  const recent = usageDay(now - PRUNE_DAYS * DAY_MS);
  const beyond = (table: string, col: string, order: string, keep: number) =>
    d1
      .prepare(
        `DELETE FROM ${table} WHERE (host, tool, day, ${col}) IN (SELECT host, tool, day, ${col} FROM
          (SELECT host, tool, day, ${col}, row_number() OVER (PARTITION BY host, tool, day ORDER BY ${order}) AS n
           FROM ${table} WHERE day >= ?) WHERE n > ${keep})`,
      )
      .bind(recent);
  const results = await d1.batch([
    ...["tool_usage_daily", "tool_usage_channels", "tool_usage_errors"].map((t) =>
      d1.prepare(`DELETE FROM ${t} WHERE day < ?`).bind(oldest),
    ),
    beyond("tool_usage_channels", "channel_hash", "channel_hash", USAGE_KMV_K),
    beyond("tool_usage_errors", "message", "count DESC, message", ERRORS_KEPT),
  ]);
  return results.reduce((n, r) => n + (r.meta?.changes ?? 0), 0);
}
