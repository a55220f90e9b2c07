// The channel's audit log, kept in its own Durable Object's SQLite: one row per call, never its arguments
// (their size and sha256). D1 receives no per-call row; the object answers GET /api/channels/:id/audit itself
// (ChannelRelay.readAudit) and applies the retention (AUDIT_RETENTION_DAYS) on its alarm.
//
// - A call costs one INSERT (calls ending together share one commit, see record), plus at most once an hour per channel one
//   conditional D1 UPDATE of channels.last_used_at (what keeps the channel from expiring, maintenance.ts).
// - Rows are numbered on, never reusing a number: the `audit_seq` counter keeps the highest number before
//   the retention deletes rows, and the next number is seeded from it and the rows kept.
// - Retention: each alarm deletes at most PRUNE_BATCH expired rows; if more remain the next alarm is now,
//   else at the oldest row's expiry (ChannelRelay.alarm schedules it, the object has one alarm).
// - Rows D1 `audit_log` holds from before this change are MOVED, not left: on the channel's first audit
//   reads, the object pulls its channel's unexpired D1 rows, newest first, MOVE_BATCH at a time, into its
//   storage and deletes them from D1; a read moves only until its page is complete (the moved frontier is
//   older than the page's last row) and at most MOVE_BATCHES_PER_READ batches. Meanwhile the daily
//   maintenance keeps pruning D1 `audit_log` by age, so channels nobody reads lose their old rows there.
//   The outbox rows not yet shipped when the object first wakes after the upgrade move in here at once.
import { utf8ByteLength } from "../../protocol/index.js";
import type { AuditEntry } from "../../protocol/views.js";
import { sha256Hex } from "../secrets.js";
import type { FinishedCall } from "./call-dispatch.js";

/** The audit query the Worker hands the object: today's filters and a keyset position ([createdAt, seq]). */
export interface AuditRead {
  tool?: string | undefined;
  status?: string | undefined;
  /** ms since the epoch, inclusive */
  since?: number | undefined;
  /** ms since the epoch, exclusive */
  until?: number | undefined;
  /** Rows strictly older than this [createdAt, seq] (the cursor's position). */
  after?: [number, number] | null | undefined;
  limit: number;
}

export interface AuditRows {
  entries: AuditEntry[];
  /** Each entry's keyset position [createdAt, seq]. */
  keys: Array<[number, number]>;
  /** More rows match past the last entry. */
  more: boolean;
}

const HOUR_MS = 60 * 60 * 1000;
/** Expired rows one alarm deletes. */
const PRUNE_BATCH = 1000;
/** Legacy D1 rows one move batch reads (one D1 SELECT, one DELETE). */
const MOVE_BATCH = 500;
const MOVE_BATCHES_PER_READ = 10;
/** A call ending this soon after the one before it joins the next group write (record). */
const GROUP_WINDOW_MS = 1;

const COLS =
  "seq,created_at,tool,status,agent_token_id,agent_label,provider_id,provider_label,origin,arg_bytes,arg_sha256,duration_ms,message,verification";
const INSERT = `INSERT OR IGNORE INTO audit (${COLS}) VALUES (${"?,".repeat(13)}?)`;

type Row = {
  seq: number;
  created_at: number;
  tool: string;
  status: string;
  agent_token_id: string | null;
  agent_label: string | null;
  provider_id: string | null;
  provider_label: string | null;
  origin: string | null;
  arg_bytes: number;
  arg_sha256: string;
  duration_ms: number;
  message: string | null;
  verification: string | null;
};

export class AuditLog {
  private readonly sql: SqlStorage;
  /** The last number handed out (undefined until seeded from storage). */
  private seq: number | undefined;
  /** Rows of finished calls waiting for the next write (record), and that write. */
  private pending: SqlStorageValue[][] = [];
  private written: Promise<void> | undefined;
  /** When the last call ended (see record). */
  private lastEndAt = 0;
  /** When this object last wrote channels.last_used_at (undefined until read from storage). */
  private useNoted: number | undefined;

  constructor(
    storage: DurableObjectStorage,
    private readonly db: D1Database,
    private readonly channelId: () => string,
    readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {
    const sql = (this.sql = storage.sql);
    // Columns as COLS (SQLite needs no types here); seq is the row's key.
    sql.exec(`CREATE TABLE IF NOT EXISTS audit (${COLS.replace(",", " INTEGER PRIMARY KEY,")})`);
    sql.exec(`CREATE INDEX IF NOT EXISTS audit_time ON audit (created_at, seq)`);
    sql.exec(`CREATE INDEX IF NOT EXISTS audit_tool_time ON audit (tool, created_at, seq)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
    // The outbox of before (rows not yet shipped to D1, a JSON row each) moves in once.
    if (sql.exec(`SELECT 1 FROM sqlite_master WHERE name = 'audit_outbox'`).toArray().length) {
      for (const { row } of sql.exec<{ row: string }>(`SELECT row FROM audit_outbox`).toArray()) {
        const r = JSON.parse(row) as Record<string, unknown>;
        const camel = (k: string) => r[k.replace(/_(.)/g, (_, c: string) => c.toUpperCase())] ?? null;
        sql.exec(INSERT, ...COLS.split(",").map(camel));
      }
      sql.exec(`DROP TABLE audit_outbox`);
    }
  }

  /**
   * Writes a finished call's row (never its arguments: their size and sha256); resolves, with its createdAt,
   * once the row is written. Under load, rows of calls that end close together are written together (group
   * commit): a call that ends within GROUP_WINDOW_MS of the one before it waits one timer tick in memory
   * for the others, and its answer waits for it. So no answer leaves before its row is stored (the object's
   * output gate then holds it until the write is durable), an object with a row pending is not evicted (its
   * timer keeps it), and calls ending together share one storage commit instead of one each, which under load
   * was the largest part of a call's CPU. A call on a quiet channel is written at once, as it ends.
   */
  async record(call: FinishedCall): Promise<number> {
    const { req, exposed, outcome } = call;
    const now = this.now();
    const firstText = outcome.result.content.find((c) => c.type === "text");
    const argSha256 = await sha256Hex(call.argText);
    // In COLS order.
    this.pending.push([
      this.nextSeq(),
      call.started,
      req.name.slice(0, 200),
      outcome.status,
      req.agentTokenId,
      req.agentLabel.slice(0, 200),
      call.providerId,
      exposed?.label ?? null,
      exposed?.origin ?? null,
      utf8ByteLength(call.argText),
      argSha256,
      now - call.started,
      outcome.status !== "ok" && firstText && "text" in firstText ? firstText.text.slice(0, 500) : null,
      call.verification?.status ?? null,
    ]);
    const quiet = now - this.lastEndAt > GROUP_WINDOW_MS;
    this.lastEndAt = now;
    if (this.written === undefined && quiet) {
      this.writePending();
    } else {
      this.written ??= new Promise<void>((resolve) =>
        setTimeout(() => {
          this.written = undefined;
          this.writePending();
          resolve();
        }, 0),
      );
      await this.written;
    }
    await this.noteUse(now);
    return call.started;
  }

  private writePending(): void {
    const rows = this.pending;
    this.pending = [];
    for (const row of rows) this.sql.exec(INSERT, ...row);
  }

  /** The channel's use, on its D1 row at most once an hour (a D1 hiccup only postpones it to the next call). */
  private async noteUse(now: number): Promise<void> {
    this.useNoted ??= this.counter("use_noted");
    const id = this.channelId();
    if (now - this.useNoted < HOUR_MS || id === "unknown") return;
    this.useNoted = now;
    try {
      await this.db
        .prepare(
          `UPDATE channels SET last_used_at = ?1 WHERE id = ?2 AND (last_used_at IS NULL OR last_used_at < ?1 - ${HOUR_MS})`,
        )
        .bind(now, id)
        .run();
      this.setCounter("use_noted", now);
    } catch (e) {
      this.useNoted = 0;
      console.warn(`channel ${id}: noting its use failed (${String(e)})`);
    }
  }

  /** Rows matching `q`, newest first (createdAt, then seq); moves legacy D1 rows first when the page needs them. */
  async read(q: AuditRead, now: number): Promise<AuditRows> {
    let rows = this.query(q);
    for (let i = 0; i < MOVE_BATCHES_PER_READ; i++) {
      const frontier = this.legacyFrontier();
      if (frontier === null) break;
      const last = rows[q.limit];
      if (last && !before([last.created_at, last.seq], frontier)) break;
      try {
        await this.moveBatch(now);
      } catch (e) {
        console.warn(`channel ${this.channelId()}: moving audit rows from D1 failed (${String(e)})`);
        break;
      }
      rows = this.query(q);
    }
    const page = rows.slice(0, q.limit);
    const id = this.channelId();
    return {
      entries: page.map((r) => ({
        id: `${id}:${r.seq}`,
        tool: r.tool,
        status: r.status as AuditEntry["status"],
        agentTokenId: r.agent_token_id,
        agent: r.agent_label,
        provider: r.provider_id ? { id: r.provider_id, label: r.provider_label, origin: r.origin } : null,
        argBytes: r.arg_bytes,
        argSha256: r.arg_sha256,
        durationMs: r.duration_ms,
        message: r.message,
        verification: (r.verification ?? null) as AuditEntry["verification"],
        at: new Date(r.created_at).toISOString(),
      })),
      keys: page.map((r) => [r.created_at, r.seq]),
      more: rows.length > q.limit,
    };
  }

  private query(q: AuditRead): Row[] {
    const where: string[] = [];
    const args: unknown[] = [];
    const add = (clause: string, ...values: unknown[]) => (where.push(clause), args.push(...values));
    if (q.tool) add(`tool = ?`, q.tool);
    if (q.status) add(`status = ?`, q.status);
    if (q.since !== undefined) add(`created_at >= ?`, q.since);
    if (q.until !== undefined) add(`created_at < ?`, q.until);
    if (q.after) add(`(created_at < ? OR (created_at = ? AND seq < ?))`, q.after[0], q.after[0], q.after[1]);
    return this.sql
      .exec<Row>(
        `SELECT * FROM audit ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
        ORDER BY created_at DESC, seq DESC LIMIT ?`,
        ...args,
        q.limit + 1,
      )
      .toArray();
  }

  /**
   * Where the move of legacy D1 rows stands: null once done, else the oldest [createdAt, seq] moved so far
   * (every unexpired D1 row of the channel is older), [Infinity, 0] before the first batch.
   */
  private legacyFrontier(): [number, number] | null {
    if (this.counter("legacy_done")) return null;
    const at = this.counter("legacy_at");
    return at ? [at, this.counter("legacy_seq")] : [Infinity, 0];
  }

  /** Moves one batch of the channel's legacy D1 rows (newest first) here, then deletes them from D1. */
  private async moveBatch(now: number): Promise<void> {
    const id = this.channelId();
    // Rows as arrays in COLS order: seq first, created_at second.
    const rows = await this.db
      .prepare(
        `SELECT ${COLS} FROM audit_log WHERE channel_id = ? AND created_at >= ? ORDER BY created_at DESC, seq DESC LIMIT ${MOVE_BATCH}`,
      )
      .bind(id, now - this.retentionMs)
      .raw<[number, number, ...unknown[]]>();
    const last = rows[rows.length - 1];
    // One synchronous block: the rows, the frontier and the counter are written together.
    for (const r of rows) this.sql.exec(INSERT, ...r);
    if (last) {
      this.setCounter("legacy_at", last[1]);
      this.setCounter("legacy_seq", last[0]);
      this.seq = Math.max(this.currentSeq(), ...rows.map((r) => r[0]));
      this.setCounter("audit_seq", this.seq);
      await this.db
        .prepare(
          `DELETE FROM audit_log WHERE channel_id = ?1 AND (created_at > ?2 OR (created_at = ?2 AND seq >= ?3))`,
        )
        .bind(id, last[1], last[0])
        .run();
    }
    if (rows.length < MOVE_BATCH) this.setCounter("legacy_done", 1);
  }

  /** Deletes up to PRUNE_BATCH expired rows; returns when the log next needs the alarm (null: no rows). */
  prune(now: number): number | null {
    const cutoff = now - this.retentionMs;
    // The highest number survives its row.
    this.setCounter("audit_seq", this.currentSeq());
    this.sql.exec(
      `DELETE FROM audit WHERE seq IN (SELECT seq FROM audit WHERE created_at < ? ORDER BY created_at LIMIT ?)`,
      cutoff,
      PRUNE_BATCH,
    );
    return this.nextNeed(now);
  }

  /** When the oldest row expires (not before `now`); null: no rows. */
  nextNeed(now: number): number | null {
    const oldest = this.sql.exec<{ at: number | null }>(`SELECT min(created_at) AS at FROM audit`).one().at;
    return oldest === null ? null : Math.max(now, oldest + this.retentionMs);
  }

  private counter(name: string): number {
    return (
      this.sql.exec<{ value: number }>(`SELECT value FROM counters WHERE name = ?`, name).toArray()[0]
        ?.value ?? 0
    );
  }

  private setCounter(name: string, value: number): void {
    this.sql.exec(`INSERT OR REPLACE INTO counters (name, value) VALUES (?, ?)`, name, value);
  }

  private currentSeq(): number {
    this.seq ??= this.sql
      .exec<{ value: number }>(
        `SELECT max(coalesce((SELECT value FROM counters WHERE name = 'audit_seq'), 0),
          coalesce((SELECT max(seq) FROM audit), 0)) AS value`,
      )
      .one().value;
    return this.seq;
  }

  private nextSeq(): number {
    return (this.seq = this.currentSeq() + 1);
  }
}

/** a is older than b in the log's order (createdAt, then seq). */
function before(a: [number, number], b: [number, number]): boolean {
  return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
}
