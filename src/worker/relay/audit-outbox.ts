// The audit outbox: each call's row goes to the Durable Object's own SQLite first (synchronously, so it
// survives eviction), then an alarm ships batches to D1 and deletes what D1 accepted. A D1 failure leaves
// the rows in place and the alarm retries with backoff, so a D1 hiccup loses none. The outbox owns all of
// that: the rows, the alarm it sets, the drain and the backoff; the object's alarm handler only delegates.
//
// A row's sequence number (its D1 id is `<channel>:<seq>`, shipped with INSERT OR IGNORE, so a number must
// never come back) is counted in memory, seeded once per instance from the highest number stored: the
// pending rows' and the `audit_seq` counter, which a shipped batch advances in the same write as it deletes
// its rows. A call costs one INSERT; eviction loses no number (unshipped rows carry theirs, shipped ones are
// in the counter).
import { utf8ByteLength, type AuditStatus, type VerificationStatus } from "../../protocol/index.js";
import { sha256Hex } from "../secrets.js";
import type { FinishedCall } from "./call-dispatch.js";

export interface AuditRow {
  id: string;
  channelId: string;
  seq: number;
  agentTokenId: string | null;
  /** The agent's name when it called: its token's label, or the OAuth client's name (absent on older rows). */
  agentLabel?: string | null;
  providerId: string | null;
  providerLabel: string | null;
  origin: string | null;
  tool: string;
  argBytes: number;
  argSha256: string;
  status: AuditStatus;
  durationMs: number;
  message: string | null;
  createdAt: number;
  /** The tool's verification when called (absent: not a tab's tool, unchecked, or an older row). */
  verification?: VerificationStatus | null;
}

const COLUMNS = [
  "id",
  "channel_id",
  "seq",
  "agent_token_id",
  "agent_label",
  "provider_id",
  "provider_label",
  "origin",
  "tool",
  "arg_bytes",
  "arg_sha256",
  "status",
  "duration_ms",
  "message",
  "created_at",
  "verification",
] as const;
// D1 binds at most 100 parameters per statement.
const ROWS_PER_STATEMENT = Math.floor(100 / COLUMNS.length);
const BATCH_ROWS = 490;

/** The first alarm after a call waits this long, so a burst of calls ships as one batch. */
const FIRST_ALARM_DELAY_MS = 250;
/** Batches one drain ships before it yields to a new alarm. */
const BATCHES_PER_DRAIN = 11;
/** After a failed drain the next waits this long, doubling up to MAX_BACKOFF_MS. */
const FIRST_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60_000;

export class AuditOutbox {
  private readonly sql: SqlStorage;
  /** True once this instance knows an alarm is set; cleared when it runs. Saves a storage round trip a call. */
  private alarmSet = false;
  /** The last sequence number handed out (undefined until seeded from storage). */
  private seq: number | undefined;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly db: D1Database,
    /** The channel, for row ids and log lines (known once the Worker has configured the object). */
    private readonly channelId: () => string,
  ) {
    this.sql = storage.sql;
    this.sql.exec(`CREATE TABLE IF NOT EXISTS audit_outbox (seq INTEGER PRIMARY KEY, row TEXT NOT NULL)`);
    this.sql.exec(`CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
  }

  /** Writes a finished call's row (never its arguments: their size and sha256) and makes sure an alarm ships it. */
  async record(call: FinishedCall): Promise<void> {
    const { req, exposed, outcome } = call;
    const now = Date.now();
    const seq = this.nextSeq();
    const channelId = this.channelId();
    const firstText = outcome.result.content.find((c) => c.type === "text");
    const row: AuditRow = {
      id: `${channelId}:${seq}`,
      channelId,
      seq,
      agentTokenId: req.agentTokenId,
      agentLabel: req.agentLabel.slice(0, 200),
      providerId: call.providerId,
      providerLabel: exposed?.label ?? null,
      origin: exposed?.origin ?? null,
      tool: req.name.slice(0, 200),
      argBytes: utf8ByteLength(call.argText),
      argSha256: await sha256Hex(call.argText),
      status: outcome.status,
      durationMs: now - call.started,
      message:
        outcome.status === "ok"
          ? null
          : firstText && "text" in firstText
            ? firstText.text.slice(0, 500)
            : null,
      createdAt: call.started,
      verification: call.verification?.status ?? null,
    };
    this.sql.exec(`INSERT INTO audit_outbox (seq, row) VALUES (?, ?)`, row.seq, JSON.stringify(row));
    // One storage round trip per alarm, not per call: remember that an alarm is set until it runs.
    if (!this.alarmSet) {
      if ((await this.storage.getAlarm()) === null) await this.storage.setAlarm(now + FIRST_ALARM_DELAY_MS);
      this.alarmSet = true;
    }
  }

  pending(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM audit_outbox`).one().n;
  }

  /** The object's alarm: drains; if rows remain, comes back at once; if D1 failed, after a growing backoff. */
  async alarm(): Promise<void> {
    this.alarmSet = false;
    try {
      const remaining = await this.drain();
      this.sql.exec(`DELETE FROM counters WHERE name = 'audit_backoff_ms'`);
      if (remaining > 0) await this.setAlarm(Date.now());
    } catch (e) {
      const last = this.sql
        .exec<{ value: number }>(`SELECT value FROM counters WHERE name = 'audit_backoff_ms'`)
        .toArray()[0];
      const backoff = Math.min(MAX_BACKOFF_MS, last ? last.value * 2 : FIRST_BACKOFF_MS);
      this.sql.exec(`INSERT OR REPLACE INTO counters (name, value) VALUES ('audit_backoff_ms', ?)`, backoff);
      console.warn(
        `channel ${this.channelId()}: shipping audit rows failed (${String(e)}); retrying in ${backoff} ms`,
      );
      await this.setAlarm(Date.now() + backoff);
    }
  }

  /** Ships pending rows now (a reader of the audit log sees every finished call); returns how many remain. */
  async flush(): Promise<number> {
    try {
      return await this.drain();
    } catch {
      return this.pending();
    }
  }

  /** Ships up to BATCHES_PER_DRAIN batches; returns how many rows remain. Throws if D1 refuses (rows stay). */
  private async drain(): Promise<number> {
    let remaining = this.pending();
    for (let i = 0; remaining > 0 && i < BATCHES_PER_DRAIN; i++) remaining = await this.ship();
    return remaining;
  }

  private nextSeq(): number {
    if (this.seq === undefined) {
      const stored = this.sql
        .exec<{ value: number | null }>(
          `SELECT max(coalesce((SELECT value FROM counters WHERE name = 'audit_seq'), 0),
                      coalesce((SELECT max(seq) FROM audit_outbox), 0)) AS value`,
        )
        .one().value;
      this.seq = stored ?? 0;
    }
    return ++this.seq;
  }

  private async setAlarm(at: number): Promise<void> {
    await this.storage.setAlarm(at);
    this.alarmSet = true;
  }

  /** Ships one batch to D1; returns how many rows remain. Throws if D1 refuses (rows stay). */
  private async ship(): Promise<number> {
    const rows = this.sql
      .exec<{ seq: number; row: string }>(
        `SELECT seq, row FROM audit_outbox ORDER BY seq LIMIT ?`,
        BATCH_ROWS,
      )
      .toArray();
    if (rows.length === 0) return 0;
    const parsed = rows.map((r) => JSON.parse(r.row) as AuditRow);
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < parsed.length; i += ROWS_PER_STATEMENT) {
      const chunk = parsed.slice(i, i + ROWS_PER_STATEMENT);
      const placeholders = chunk.map(() => `(${COLUMNS.map(() => "?").join(", ")})`).join(", ");
      const values = chunk.flatMap((r) => [
        r.id,
        r.channelId,
        r.seq,
        r.agentTokenId,
        r.agentLabel ?? null,
        r.providerId,
        r.providerLabel,
        r.origin,
        r.tool,
        r.argBytes,
        r.argSha256,
        r.status,
        r.durationMs,
        r.message,
        r.createdAt,
        r.verification ?? null,
      ]);
      statements.push(
        this.db
          .prepare(`INSERT OR IGNORE INTO audit_log (${COLUMNS.join(", ")}) VALUES ${placeholders}`)
          .bind(...values),
      );
    }
    await this.db.batch(statements);
    const last = rows[rows.length - 1]!.seq;
    // One synchronous block, so one atomic write: the counter keeps the shipped rows' highest number.
    this.sql.exec(
      `INSERT INTO counters (name, value) VALUES ('audit_seq', ?)
      ON CONFLICT(name) DO UPDATE SET value = max(value, excluded.value)`,
      last,
    );
    this.sql.exec(`DELETE FROM audit_outbox WHERE seq <= ?`, last);
    return this.pending();
  }
}
