// The audit outbox: each call's row goes to the Durable Object's own SQLite first (synchronously, so it
// survives eviction), then an alarm ships batches to D1 and deletes what D1 accepted. A D1 failure leaves
// the rows in place and the alarm retries with backoff, so a D1 hiccup loses none.
import type { AuditStatus } from "../../protocol/index.js";

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
] as const;
// D1 binds at most 100 parameters per statement.
const ROWS_PER_STATEMENT = Math.floor(100 / COLUMNS.length);
const BATCH_ROWS = 490;

export class AuditOutbox {
  constructor(private readonly sql: SqlStorage) {
    sql.exec(`CREATE TABLE IF NOT EXISTS audit_outbox (seq INTEGER PRIMARY KEY, row TEXT NOT NULL)`);
    sql.exec(`CREATE TABLE IF NOT EXISTS counters (name TEXT PRIMARY KEY, value INTEGER NOT NULL)`);
  }

  nextSeq(): number {
    const row = this.sql
      .exec<{ value: number }>(
        `INSERT INTO counters (name, value) VALUES ('audit_seq', 1)
        ON CONFLICT(name) DO UPDATE SET value = value + 1 RETURNING value`,
      )
      .one();
    return row.value;
  }

  record(row: AuditRow): void {
    this.sql.exec(`INSERT INTO audit_outbox (seq, row) VALUES (?, ?)`, row.seq, JSON.stringify(row));
  }

  pending(): number {
    return this.sql.exec<{ n: number }>(`SELECT count(*) AS n FROM audit_outbox`).one().n;
  }

  /** Ships up to one batch to D1; returns how many rows remain. Throws if D1 refuses (rows stay). */
  async ship(db: D1Database): Promise<number> {
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
      ]);
      statements.push(
        db
          .prepare(`INSERT OR IGNORE INTO audit_log (${COLUMNS.join(", ")}) VALUES ${placeholders}`)
          .bind(...values),
      );
    }
    await db.batch(statements);
    const last = rows[rows.length - 1]!.seq;
    this.sql.exec(`DELETE FROM audit_outbox WHERE seq <= ?`, last);
    return this.pending();
  }
}
