// Reading a channel's audit log from D1, newest first, with filters and keyset cursors. Each row names its
// agent as the hub knew it when it called: the agent token's label, or the OAuth app's registered name.
import { and, desc, eq, gte, lt, or, type SQL } from "drizzle-orm";
import type { Db } from "../db/client.js";
import { auditLog } from "../db/schema.js";
import { decodeCursor, encodeCursor } from "../registry/cursor.js";

export async function listAudit(
  db: Db,
  channelId: string,
  q: {
    tool?: string | undefined;
    status?: string | undefined;
    /** ms since the epoch, inclusive */
    since?: number | undefined;
    /** ms since the epoch, exclusive */
    until?: number | undefined;
    cursor?: string | undefined;
    limit: number;
  },
) {
  const fingerprint = JSON.stringify([
    "audit",
    channelId,
    q.tool ?? null,
    q.status ?? null,
    q.since ?? null,
    q.until ?? null,
  ]);
  const filters: SQL[] = [eq(auditLog.channelId, channelId)];
  if (q.tool) filters.push(eq(auditLog.tool, q.tool));
  if (q.status) filters.push(eq(auditLog.status, q.status as "ok"));
  if (q.since !== undefined) filters.push(gte(auditLog.createdAt, q.since));
  if (q.until !== undefined) filters.push(lt(auditLog.createdAt, q.until));
  if (q.cursor) {
    const [at, seq] = decodeCursor(q.cursor, fingerprint);
    filters.push(
      or(
        lt(auditLog.createdAt, Number(at)),
        and(eq(auditLog.createdAt, Number(at)), lt(auditLog.seq, Number(seq))),
      )!,
    );
  }
  const rows = await db
    .select()
    .from(auditLog)
    .where(and(...filters))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.seq))
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    entries: page.map((r) => ({
      id: r.id,
      tool: r.tool,
      status: r.status,
      agentTokenId: r.agentTokenId,
      agent: r.agentLabel,
      provider: r.providerId ? { id: r.providerId, label: r.providerLabel, origin: r.origin } : null,
      argBytes: r.argBytes,
      argSha256: r.argSha256,
      durationMs: r.durationMs,
      message: r.message,
      verification: r.verification ?? null,
      at: new Date(r.createdAt).toISOString(),
    })),
    nextCursor: rows.length > q.limit && last ? encodeCursor(fingerprint, [last.createdAt, last.seq]) : null,
  };
}
