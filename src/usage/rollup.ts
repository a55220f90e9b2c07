// Tool usage rollups (issue 25), shared by the hub's channel objects (src/worker/relay/usage-rollup.ts) and
// the cloud runner's site objects (src/cloud/site-runner.ts): calls are added up per (site host, tool, UTC
// day) in the Durable Object's own SQLite (so eviction loses nothing), and flushed to D1 at most once every
// ROLLUP_FLUSH_MS as ONE db.batch: an upsert per key into tool_usage_daily (counters added), the channel's hash
// into tool_usage_channels the first time in a day it calls a (host, tool), and each key's commonest error
// messages (at most ERRORS_PER_FLUSH) into tool_usage_errors. The pending counters are decreased by what was
// flushed only after the batch succeeded (calls added while it ran stay), so a D1 failure loses nothing and
// counts nothing twice; the flush is retried after a backoff. Only Workers' global types are used here (no
// `cloudflare:workers` import), so both Workers bundle it.
//
// Why 5 minutes: a channel calling one tool all day writes 288 daily rows a day for that key, whatever its
// call rate; at one call a second that is 288 / 86,400 ≈ 0.003 D1 row writes per call (the issue's target is
// ≤ 0.01), and a site owner's figures are at most 5 minutes behind.
import { LATENCY_BUCKETS, USAGE_MESSAGE_MAX, latencyBucket } from "../protocol/usage.js";
import type { AuditStatus, VerificationStatus } from "../protocol/index.js";

/** Pending counters are flushed to D1 at most this often per object. */
export const ROLLUP_FLUSH_MS = 5 * 60_000;
/** After a failed flush the next waits this long, doubling up to ROLLUP_FLUSH_MS. */
const RETRY_MS = 60_000;
/** Keys one flush writes (the rest go in the next, soon after): keeps one batch well inside D1's limits. */
const KEYS_PER_FLUSH = 100;
/** Error messages per key per flush, the commonest first. */
const ERRORS_PER_FLUSH = 3;
/** Distinct messages kept pending per key between flushes (more are counted, not kept). */
const ERRORS_PENDING_MAX = 20;

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
/** tool_usage_daily's counters, in order. */
export const USAGE_COUNTERS = [
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
  ...Array.from({ length: LATENCY_BUCKETS }, (_, i) => `d${i}`),
] as const;

/** The upsert of one key's counters into tool_usage_daily (ON CONFLICT: added). */
export const DAILY_UPSERT = `INSERT INTO tool_usage_daily (host, tool, day, ${USAGE_COUNTERS.join(", ")})
  VALUES (${Array(USAGE_COUNTERS.length + 3)
    .fill("?")
    .join(", ")})
  ON CONFLICT(host, tool, day) DO UPDATE SET ${USAGE_COUNTERS.map((c) => `${c} = ${c} + excluded.${c}`).join(", ")}`;
export const CHANNEL_INSERT = `INSERT OR IGNORE INTO tool_usage_channels (host, tool, day, channel_hash) VALUES (?, ?, ?, ?)`;
export const ERROR_UPSERT = `INSERT INTO tool_usage_errors (host, tool, day, message, count) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT(host, tool, day, message) DO UPDATE SET count = count + excluded.count`;

/** Hex SHA-256 of a text (a channel's id in tool_usage_channels). */
export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

type PendingRow = Record<string, number> & { host: string; tool: string; day: string };

export class UsageRollupCore {
  protected readonly sql: SqlStorage;
  /** D1 rows written by the last successful flush (meta.rows_written summed), for the capacity figures. */
  lastRowsWritten = 0;
  private hashed: { id: string; hash: string } | undefined;

  constructor(
    storage: DurableObjectStorage,
    private readonly db: D1Database,
    /** The channel whose calls these are (its hash goes to tool_usage_channels); null: not a channel's. */
    private readonly channel: () => string | null,
    private readonly flushMs: number = ROLLUP_FLUSH_MS,
  ) {
    this.sql = storage.sql;
    this.sql
      .exec(`CREATE TABLE IF NOT EXISTS usage_pending (host TEXT NOT NULL, tool TEXT NOT NULL, day TEXT NOT NULL,
      ${USAGE_COUNTERS.map((c) => `${c} INTEGER NOT NULL DEFAULT 0`).join(", ")}, PRIMARY KEY (host, tool, day))`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS usage_errors_pending (host TEXT NOT NULL, tool TEXT NOT NULL,
      day TEXT NOT NULL, message TEXT NOT NULL, count INTEGER NOT NULL, PRIMARY KEY (host, tool, day, message))`);
    // Keys whose channel hash D1 already has (so it is sent once a day per key); yesterday's and today's.
    this.sql
      .exec(`CREATE TABLE IF NOT EXISTS usage_seen (host TEXT NOT NULL, tool TEXT NOT NULL, day TEXT NOT NULL,
      PRIMARY KEY (host, tool, day))`);
    // `first`: when the oldest pending call was added; `retry`/`backoff`: after a failed flush.
    this.sql.exec(`CREATE TABLE IF NOT EXISTS usage_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
  }

  /** Counts one call; returns true when it is the first pending since the last flush (set an alarm). */
  record(e: UsageEvent, now: number): boolean {
    const day = new Date(e.at).toISOString().slice(0, 10);
    const cols = ["calls", STATUS_COLUMN[e.status], `d${latencyBucket(Math.max(0, e.durationMs))}`];
    if (e.verification) cols.push(e.verification);
    if (e.cloud) cols.push("cloud");
    this.sql.exec(
      `INSERT INTO usage_pending (host, tool, day, ${cols.join(", ")}) VALUES (?, ?, ?${", 1".repeat(cols.length)})
       ON CONFLICT(host, tool, day) DO UPDATE SET ${cols.map((c) => `${c} = ${c} + 1`).join(", ")}`,
      e.host,
      e.tool,
      day,
    );
    const message = e.status === "ok" ? null : e.message?.slice(0, USAGE_MESSAGE_MAX);
    if (message) {
      const key = [e.host, e.tool, day];
      const bumped = this.sql.exec(
        `UPDATE usage_errors_pending SET count = count + 1 WHERE host = ? AND tool = ? AND day = ? AND message = ?`,
        ...key,
        message,
      ).rowsWritten;
      const held = this.sql
        .exec<{ n: number }>(
          `SELECT count(*) AS n FROM usage_errors_pending WHERE host = ? AND tool = ? AND day = ?`,
          ...key,
        )
        .one().n;
      if (!bumped && held < ERRORS_PENDING_MAX)
        this.sql.exec(`INSERT INTO usage_errors_pending VALUES (?, ?, ?, ?, 1)`, ...key, message);
    }
    return this.sql.exec(`INSERT OR IGNORE INTO usage_meta VALUES ('first', ?)`, now).rowsWritten > 0;
  }

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

  /** Flushes pending counters now; returns whether D1 took them. */
  async flush(now: number): Promise<boolean> {
    const rows = this.sql
      .exec<PendingRow>(`SELECT * FROM usage_pending ORDER BY day, host, tool LIMIT ?`, KEYS_PER_FLUSH)
      .toArray();
    if (!rows.length) {
      this.sql.exec(`DELETE FROM usage_meta`);
      return true;
    }
    const id = this.channel();
    if (id && this.hashed?.id !== id) this.hashed = { id, hash: await sha256Hex(id) };
    const hash = id ? this.hashed!.hash : null;
    const keyOf = (r: { host: string; tool: string; day: string }) => `${r.host}\n${r.tool}\n${r.day}`;
    const seen = new Set(this.sql.exec<PendingRow>(`SELECT * FROM usage_seen`).toArray().map(keyOf));
    const errors = new Map<string, { message: string; count: number }[]>();
    for (const e of this.sql
      .exec<{ host: string; tool: string; day: string; message: string; count: number }>(
        `SELECT * FROM usage_errors_pending ORDER BY count DESC, message`,
      )
      .toArray())
      errors.set(keyOf(e), [...(errors.get(keyOf(e)) ?? []), e]);
    const statements: D1PreparedStatement[] = [];
    const newKeys: PendingRow[] = [];
    const sent: { row: PendingRow; errors: { message: string; count: number }[] }[] = [];
    for (const r of rows) {
      statements.push(
        this.db.prepare(DAILY_UPSERT).bind(r.host, r.tool, r.day, ...USAGE_COUNTERS.map((c) => r[c])),
      );
      if (hash && !seen.has(keyOf(r))) {
        statements.push(this.db.prepare(CHANNEL_INSERT).bind(r.host, r.tool, r.day, hash));
        newKeys.push(r);
      }
      const errs = errors.get(keyOf(r)) ?? [];
      for (const e of errs.slice(0, ERRORS_PER_FLUSH))
        statements.push(this.db.prepare(ERROR_UPSERT).bind(r.host, r.tool, r.day, e.message, e.count));
      sent.push({ row: r, errors: errs });
    }
    let results: D1Result[];
    try {
      results = await this.db.batch(statements);
    } catch (e) {
      const backoff = Math.min(this.flushMs, (this.meta("backoff") ?? RETRY_MS / 2) * 2);
      this.sql.exec(
        `INSERT OR REPLACE INTO usage_meta VALUES ('backoff', ?), ('retry', ?)`,
        backoff,
        now + backoff,
      );
      console.warn(`usage rollup: flushing to D1 failed (${String(e)}); retrying in ${backoff} ms`);
      return false;
    }
    this.lastRowsWritten = results.reduce((n, r) => n + (r.meta?.rows_written ?? 0), 0);
    // One synchronous block (one atomic write): take off what D1 now has; calls added meanwhile stay.
    for (const { row, errors: errs } of sent) {
      const key = [row.host, row.tool, row.day];
      this.sql.exec(
        `UPDATE usage_pending SET ${USAGE_COUNTERS.map((c) => `${c} = ${c} - ?`).join(", ")} WHERE host = ? AND tool = ? AND day = ?`,
        ...USAGE_COUNTERS.map((c) => row[c]),
        ...key,
      );
      // Messages past the commonest ERRORS_PER_FLUSH are let go with them.
      for (const e of errs)
        this.sql.exec(
          `UPDATE usage_errors_pending SET count = count - ? WHERE host = ? AND tool = ? AND day = ? AND message = ?`,
          e.count,
          ...key,
          e.message,
        );
    }
    this.sql.exec(`DELETE FROM usage_pending WHERE calls <= 0`);
    this.sql.exec(`DELETE FROM usage_errors_pending WHERE count <= 0`);
    for (const r of newKeys)
      this.sql.exec(`INSERT OR IGNORE INTO usage_seen VALUES (?, ?, ?)`, r.host, r.tool, r.day);
    const yesterday = new Date(now - 86_400_000).toISOString().slice(0, 10);
    this.sql.exec(`DELETE FROM usage_seen WHERE day < ?`, yesterday);
    this.sql.exec(`DELETE FROM usage_meta`);
    // Calls added while the batch ran (or keys past KEYS_PER_FLUSH) wait for the next flush.
    if (this.pending()) this.sql.exec(`INSERT INTO usage_meta VALUES ('first', ?)`, now);
    return true;
  }
}
