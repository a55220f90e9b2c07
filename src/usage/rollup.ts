// Tool usage rollups. Calls are added up per (site host, tool, UTC day) in a Durable Object's own
// SQLite (so eviction loses nothing) and sent on at most once every ROLLUP_FLUSH_MS; the pending counters are
// decreased by what was sent only after the receiver accepted it (calls added meanwhile stay), so a failure
// loses nothing and counts nothing twice; a failed send is retried after a backoff. Two kinds of object:
//
// - A channel (src/worker/relay/usage-rollup.ts, UsageRollupCore + `send`): its counters and error messages go
//   by RPC to the site's aggregator, with the channel's hash.
// - A site's one D1 writer (UsageWriter): the hub's SiteUsage object (src/worker/usage/site-usage.ts), which
//   merges every channel's counters for its site, and the cloud runner's SiteRunner (src/cloud/site-runner.ts),
//   which records its own runs. Its flush is ONE db.batch: an upsert per changed (host, tool, day) into
//   tool_usage_daily (counters added); into tool_usage_channels only hashes among the day's USAGE_KMV_K smallest
//   not yet written (all the KMV sketch reads); into tool_usage_errors only messages whose day total changed and
//   that are among the day's ERRORS_TOP (the delta added). It keeps the exact hash set and the message totals
//   per (tool, day) for PUBLIC_USAGE_DAYS + 1 days (pruned by its alarm).
//
// D1 rows ∝ sites × changed tools × flushes, whatever the number of channels: one site's tool called all day
// writes 288 daily rows a day at most. Only Workers' global types are used here (no `cloudflare:workers`
// import), so both Workers bundle it.
import {
  LATENCY_BUCKETS,
  PUBLIC_USAGE_DAYS,
  USAGE_KMV_K,
  USAGE_MESSAGE_MAX,
  latencyBucket,
} from "../protocol/usage.js";
import type { AuditStatus, VerificationStatus } from "../protocol/index.js";

/** Pending counters are sent on at most this often per object. */
export const ROLLUP_FLUSH_MS = 5 * 60_000;
/** After a failed flush the next waits this long, doubling up to ROLLUP_FLUSH_MS. */
const RETRY_MS = 60_000;
/** Keys one flush sends (the rest go in the next, soon after): keeps one batch well inside D1's limits. */
const KEYS_PER_FLUSH = 100;
/** A day's commonest messages per (host, tool) written to D1. */
const ERRORS_TOP = 10;

/** One finished call, as the rollup counts it. */
export interface UsageEvent {
  host: string;
  tool: string;
  status: AuditStatus;
  verification?: VerificationStatus | null | undefined;
  /** The hub ran it in its own browser. */
  cloud: boolean;
  durationMs: number;
  /** The error's text (not ok calls), cut to USAGE_MESSAGE_MAX. */
  message?: string | null | undefined;
  /** When it was called (its UTC day is the key's). */
  at: number;
}

const STATUS_COLUMN: Record<AuditStatus, string> = {
  ok: "ok",
  error: "error",
  denied: "denied",
  timeout: "timeout",
  invalid: "invalid",
  disconnected: "other",
  cancelled: "other",
};
/** tool_usage_daily's named counters (the analytics' fields of the same names). */
export const NAMED_COUNTERS = [
  "calls",
  "ok",
  "error",
  "denied",
  "timeout",
  "invalid",
  "other",
  "verified",
  "changed",
  "unpublished",
  "cloud",
] as const;
/** tool_usage_daily's counters, in order: the named ones, then the latency buckets d0…. */
export const USAGE_COUNTERS = [
  ...NAMED_COUNTERS,
  ...Array.from({ length: LATENCY_BUCKETS }, (_, i) => `d${i}` as const),
] as const;

/** The upsert of one key's counters into tool_usage_daily (ON CONFLICT: added). */
export const DAILY_UPSERT = `INSERT INTO tool_usage_daily (host, tool, day, ${USAGE_COUNTERS}) VALUES (?, ?, ?${", ?".repeat(USAGE_COUNTERS.length)}) ON CONFLICT(host, tool, day) DO UPDATE SET ${USAGE_COUNTERS.map((c) => `${c} = ${c} + excluded.${c}`)}`;
export const CHANNEL_INSERT = `INSERT OR IGNORE INTO tool_usage_channels (host, tool, day, channel_hash) VALUES (?, ?, ?, ?)`;
export const ERROR_UPSERT = `INSERT INTO tool_usage_errors (host, tool, day, message, count) VALUES (?, ?, ?, ?, ?) ON CONFLICT(host, tool, day, message) DO UPDATE SET count = count + excluded.count`;

/** Hex SHA-256 of a text (a channel's id in tool_usage_channels). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export type UsageKey = { host: string; tool: string; day: string };
/** A key's pending counters (USAGE_COUNTERS by name). */
export type PendingRow = Record<string, number> & UsageKey;
/** A key's error message and its count. */
export type ErrorCount = UsageKey & { message: string; count: number };
const KEY = `host = ? AND tool = ? AND day = ?`;
const keyOf = (r: UsageKey) => [r.host, r.tool, r.day];

export abstract class UsageRollupCore {
  protected readonly sql: SqlStorage;

  constructor(
    storage: DurableObjectStorage,
    private readonly flushMs: number,
    /** Where messages are added up, and how many distinct ones a key keeps (more are counted, not kept). */
    protected readonly errorTable = "usage_errors_pending",
    private readonly errorsMax = 20,
  ) {
    this.sql = storage.sql;
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS usage_pending (host, tool, day, ${USAGE_COUNTERS.map((c) => `${c} DEFAULT 0`)}, PRIMARY KEY (host, tool, day))`,
    );
    // `sent`: how much of the count D1 has (UsageWriter's day totals).
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS ${errorTable} (host, tool, day, message, count, sent DEFAULT 0, PRIMARY KEY (host, tool, day, message))`,
    );
    // `first`: when the oldest pending call was added; `retry`/`backoff`: after a failed flush.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS usage_meta (key PRIMARY KEY, value)`);
  }

  /** Counts one call; returns true when it is the first pending since the last flush (set an alarm). */
  record(e: UsageEvent, now: number): boolean {
    const day = new Date(e.at).toISOString().slice(0, 10);
    const row: Record<string, number | string> = { host: e.host, tool: e.tool, day, calls: 1 };
    for (const c of [STATUS_COLUMN[e.status], `d${latencyBucket(Math.max(0, e.durationMs))}`]) row[c] = 1;
    if (e.verification) row[e.verification] = 1;
    if (e.cloud) row.cloud = 1;
    const message = e.status === "ok" ? null : e.message?.slice(0, USAGE_MESSAGE_MAX);
    return this.addRows(
      [row as PendingRow],
      message ? [{ host: e.host, tool: e.tool, day, message, count: 1 }] : [],
      now,
    );
  }

  /** Adds counters and messages to the pending ones; true when they are the first pending (set an alarm). */
  addRows(rows: PendingRow[], errors: ErrorCount[], now: number): boolean {
    for (const r of rows) {
      const cols = USAGE_COUNTERS.filter((c) => r[c]);
      this.sql.exec(
        `INSERT INTO usage_pending (host, tool, day, ${cols}) VALUES (?, ?, ?${", ?".repeat(cols.length)}) ON CONFLICT DO UPDATE SET ${cols.map((c) => `${c} = ${c} + excluded.${c}`)}`,
        ...keyOf(r),
        ...cols.map((c) => r[c]),
      );
    }
    // A new message only while the key holds fewer than errorsMax others.
    for (const e of errors)
      this.sql.exec(
        `INSERT INTO ${this.errorTable} (host, tool, day, message, count) SELECT ?, ?, ?, ?, ? WHERE (SELECT count(*) FROM ${this.errorTable} WHERE ${KEY} AND message != ?) < ? ON CONFLICT DO UPDATE SET count = count + excluded.count`,
        ...keyOf(e),
        e.message,
        e.count,
        ...keyOf(e),
        e.message,
        this.errorsMax,
      );
    return this.sql.exec(`INSERT OR IGNORE INTO usage_meta VALUES ('first', ?)`, now).rowsWritten > 0;
  }

  /** Sends one host's pending rows on; resolves (with what to do once taken off) when the receiver took them. */
  protected abstract send(rows: PendingRow[]): Promise<(() => void) | void>;

  private meta(key: string): number | null {
    return (
      this.sql.exec<{ value: number }>(`SELECT value FROM usage_meta WHERE key = ?`, key).toArray()[0]
        ?.value ?? null
    );
  }

  /** When the pending counters should be flushed (null: none pending). */
  nextFlushAt(): number | null {
    const first = this.meta("first");
    if (first === null) return null;
    return this.meta("retry") ?? first + this.flushMs;
  }

  /** The object's alarm: flushes when due. Never throws (a failed flush is retried later). */
  async onAlarm(now: number): Promise<void> {
    const at = this.nextFlushAt();
    if (at !== null && now >= at) await this.flush(now);
  }

  /** Keys pending (tests, the console). */
  pending(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM usage_pending`).one().n;
  }

  /** Sends pending counters now, one batch per host; returns whether every one was taken. */
  async flush(now: number): Promise<boolean> {
    const rows = this.sql
      .exec<PendingRow>(`SELECT * FROM usage_pending ORDER BY host, day, tool LIMIT ?`, KEYS_PER_FLUSH)
      .toArray();
    let ok = true;
    for (const host of new Set(rows.map((r) => r.host))) {
      const batch = rows.filter((r) => r.host === host);
      let taken: (() => void) | void;
      try {
        taken = await this.send(batch);
      } catch (e) {
        const backoff = Math.min(this.flushMs, (this.meta("backoff") ?? RETRY_MS / 2) * 2);
        this.sql.exec(
          `INSERT OR REPLACE INTO usage_meta VALUES ('backoff', ?), ('retry', ?)`,
          backoff,
          now + backoff,
        );
        console.warn(`usage of ${host}: ${String(e)}`);
        ok = false;
        break;
      }
      // One synchronous block (one atomic write): take off what was taken; calls added meanwhile stay.
      for (const r of batch)
        this.sql.exec(
          `UPDATE usage_pending SET ${USAGE_COUNTERS.map((c) => `${c} = ${c} - ?`)} WHERE ${KEY}`,
          ...USAGE_COUNTERS.map((c) => r[c]),
          ...keyOf(r),
        );
      taken?.();
    }
    this.sql.exec(`DELETE FROM usage_pending WHERE calls <= 0`);
    if (!ok) return false;
    this.sql.exec(`DELETE FROM usage_meta`);
    // Calls added while it ran (or keys past KEYS_PER_FLUSH) wait for the next flush.
    if (this.pending()) this.sql.exec(`INSERT INTO usage_meta VALUES ('first', ?)`, now);
    return true;
  }
}

/** A site's one writer of usage rows to D1 (the hub's SiteUsage aggregator; the cloud runner's SiteRunner). */
export class UsageWriter extends UsageRollupCore {
  /** D1 rows written by the last successful batch (meta.rows_written summed), for the capacity figures. */
  lastRowsWritten = 0;

  constructor(
    storage: DurableObjectStorage,
    private readonly db: D1Database,
    flushMs = ROLLUP_FLUSH_MS,
  ) {
    super(storage, flushMs, "usage_errors_day", 50);
    // The exact set of channels per key; `written`: D1 has it.
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS usage_hashes (host, tool, day, hash, written DEFAULT 0, PRIMARY KEY (host, tool, day, hash))`,
    );
  }

  /** A channel's flush (its hash with each key), merged into the pending counters. */
  merge(rows: PendingRow[], errors: ErrorCount[], hash: string, now: number): boolean {
    for (const r of rows)
      this.sql.exec(
        `INSERT OR IGNORE INTO usage_hashes (host, tool, day, hash) VALUES (?, ?, ?, ?)`,
        ...keyOf(r),
        hash,
      );
    return this.addRows(rows, errors, now);
  }

  protected async send(rows: PendingRow[]) {
    const statements: D1PreparedStatement[] = [];
    const after: [string, number, number][] = [];
    for (const r of rows) {
      statements.push(this.db.prepare(DAILY_UPSERT).bind(...keyOf(r), ...USAGE_COUNTERS.map((c) => r[c])));
      // By rowid: stable while the batch runs (only this flush deletes from these tables).
      for (const h of this.sql.exec<{ id: number; hash: string }>(
        `SELECT * FROM (SELECT rowid id, * FROM usage_hashes WHERE ${KEY} ORDER BY hash LIMIT ?) WHERE written = 0`,
        ...keyOf(r),
        USAGE_KMV_K,
      )) {
        statements.push(this.db.prepare(CHANNEL_INSERT).bind(...keyOf(r), h.hash));
        after.push(["usage_hashes SET written = ?", 1, h.id]);
      }
      for (const e of this.sql.exec<ErrorCount & { id: number; sent: number }>(
        `SELECT * FROM (SELECT rowid id, * FROM usage_errors_day WHERE ${KEY} ORDER BY count DESC, message LIMIT ?) WHERE count > sent`,
        ...keyOf(r),
        ERRORS_TOP,
      )) {
        statements.push(this.db.prepare(ERROR_UPSERT).bind(...keyOf(r), e.message, e.count - e.sent));
        after.push(["usage_errors_day SET sent = sent + ?", e.count - e.sent, e.id]);
      }
    }
    const results = await this.db.batch(statements);
    this.lastRowsWritten = results.reduce((n, r) => n + (r.meta?.rows_written ?? 0), 0);
    return () => {
      for (const [set, value, id] of after) this.sql.exec(`UPDATE ${set} WHERE rowid = ?`, value, id);
    };
  }

  override async onAlarm(now: number): Promise<void> {
    await super.onAlarm(now);
    // The exact hashes and message totals: PUBLIC_USAGE_DAYS + 1 days kept.
    const oldest = new Date(now - PUBLIC_USAGE_DAYS * 86_400_000).toISOString().slice(0, 10);
    for (const t of ["usage_hashes", "usage_errors_day"])
      this.sql.exec(`DELETE FROM ${t} WHERE day < ?`, oldest);
  }
}
