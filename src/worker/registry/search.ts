// Tool search, with keyset cursors:
// - one word: the precomputed term impacts (tool_terms, see terms.ts), read in impact order for every term the
//   word is a prefix of (at most MAX_EXPANSIONS of them, in term order) and for the whole-name term, so the
//   first page costs about 21 index rows per expanded term however many tools match;
// - several words: FTS5 MATCH (every word a prefix) ranked by bm25, which must score every match; every word
//   must match, so the matches are few unless every word is very common;
// - no words: host/name order.
// Usage is one signal beside relevance: a page of word matches (its members and the cursor chosen by relevance
// alone) is ordered by `i − min(USAGE_BOOST_MAX, ln(1 + calls30d))`, i the relevance position on the page and
// calls30d the public usage (past the channel threshold, else 0), ties in relevance order. A tool nobody calls
// still comes on the page its words earn, moved down at most USAGE_BOOST_MAX places; the usage of the page is
// one query (registry/public-usage.ts).
import { sql, type SQL } from "drizzle-orm";
import type { JsonSchemaObject, ToolAnnotations } from "../../protocol/index.js";
import type { RegistryToolView, ToolSearchPage } from "../../protocol/views.js";
import { checkTool } from "../../protocol/tool-checks.js";
import type { Db } from "../db/client.js";
import { CLOUD_CAPABLE_SQL, cloudEndpoint, type CloudContext } from "./cloud.js";
import { decodeCursor, encodeCursor } from "./cursor.js";
import { publicUsage, usageOf } from "./public-usage.js";
import { tokens, WHOLE_NAME_PREFIX } from "./terms.js";

/** How many terms one word may expand to, as a prefix ("re" → reservation, return, …). */
export const MAX_EXPANSIONS = 512;
/** Above every character a term can hold: `word + TERM_END` bounds the terms that start with `word`. */
const TERM_END = "\u{10FFFF}";
/** The most places usage can lift a tool above more relevant ones on a page of search results. */
export const USAGE_BOOST_MAX = 4;

export interface ToolSearchQuery {
  q?: string | undefined;
  site?: string | undefined;
  readOnly?: boolean | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface ToolRow {
  id: number;
  host: string;
  origin: string;
  name: string;
  title: string | null;
  description: string;
  read_only: number;
  annotations: string;
  input_schema: string;
  output_schema: string | null;
  version: number;
  updated_at: number;
  digest: string | null;
  /** 1 when cloud-capable by D1 (registry/cloud.ts CLOUD_CAPABLE_SQL). */
  cloud_capable: number;
  score?: number;
}

/** Turns free text into an FTS5 query: every word must match, as a prefix, in any column. */
export function ftsQuery(q: string): string | undefined {
  const words = q.toLowerCase().match(/[\p{L}\p{N}]+/gu);
  if (!words || words.length === 0) return undefined;
  return words
    .slice(0, 12)
    .map((w) => `"${w}"*`)
    .join(" ");
}

const BM25 = sql.raw("bm25(tools_fts, 10.0, 6.0, 4.0, 1.0, 2.0)");
export const TOOL_COLUMNS = sql.raw(
  `t.id, t.host, s.origin, t.name, t.title, t.description, t.read_only, t.annotations, t.input_schema, t.output_schema, t.version, t.updated_at, t.digest, ${CLOUD_CAPABLE_SQL} AS cloud_capable`,
);

export async function searchTools(
  db: Db,
  query: ToolSearchQuery,
  cloud: CloudContext,
  now = Date.now(),
): Promise<ToolSearchPage> {
  const match = query.q ? ftsQuery(query.q) : undefined;
  const fingerprint = JSON.stringify(["tools", match ?? null, query.site ?? null, query.readOnly ?? null]);
  const after = query.cursor ? decodeCursor(query.cursor, fingerprint) : undefined;
  const filters: SQL[] = [sql`s.status = 'verified' AND s.delisted_at IS NULL`];
  if (query.site) filters.push(sql`t.host = ${query.site}`);
  if (query.readOnly !== undefined) filters.push(sql`t.read_only = ${query.readOnly ? 1 : 0}`);
  const take = query.limit + 1;

  const words = query.q ? tokens(query.q) : [];
  let rows: ToolRow[];
  if (match && words.length === 1) {
    rows = await db.all<ToolRow>(oneWordSearch(words[0]!, query, take, after));
  } else if (match) {
    // Rank inside the FTS table and join tools/sites only for the page: bm25 must score every match,
    // so the per-match work is kept to the index (2-3× faster than joining every match first).
    const rankFilters: SQL[] = [];
    if (query.site) rankFilters.push(sql`t.host = ${query.site}`);
    if (query.readOnly !== undefined) rankFilters.push(sql`t.read_only = ${query.readOnly ? 1 : 0}`);
    const ranked = sql`SELECT tools_fts.rowid AS id, ${BM25} AS score FROM tools_fts
      ${rankFilters.length ? sql`JOIN tools t ON t.id = tools_fts.rowid` : sql``}
      WHERE tools_fts MATCH ${match}${rankFilters.length ? sql` AND ${sql.join(rankFilters, sql` AND `)}` : sql``}`;
    const keyset = after
      ? sql`WHERE score > ${Number(after[0])} OR (score = ${Number(after[0])} AND id > ${Number(after[1])})`
      : sql``;
    rows = await db.all<ToolRow>(sql`SELECT ${TOOL_COLUMNS}, r.score AS score
      FROM (SELECT id, score FROM (${ranked}) ${keyset} ORDER BY score, id LIMIT ${take}) r
      JOIN tools t ON t.id = r.id JOIN sites s ON s.host = t.host
      WHERE s.status = 'verified' AND s.delisted_at IS NULL
      ORDER BY r.score, r.id`);
  } else {
    if (after) filters.push(sql`(t.host, t.name) > (${String(after[0])}, ${String(after[1])})`);
    // CROSS JOIN keeps tools as the outer loop, walking tools_host_name in order: the page reads
    // limit+1 rows instead of sorting every tool (1 ms instead of 51 ms of SQL at 100,000 tools).
    rows = await db.all<ToolRow>(sql`SELECT ${TOOL_COLUMNS}
      FROM tools t CROSS JOIN sites s ON s.host = t.host
      WHERE ${sql.join(filters, sql` AND `)} ORDER BY t.host, t.name LIMIT ${take}`);
  }
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  let nextCursor: string | null = null;
  if (rows.length > query.limit && last) {
    nextCursor = encodeCursor(fingerprint, match ? [last.score ?? 0, last.id] : [last.host, last.name]);
  }
  const usage = await publicUsage(
    db,
    page.map((r) => ({ host: r.host, tool: r.name })),
    now,
  );
  const tools = page.map((r, i) => {
    const view = { ...toolView(r, cloud), usage: usageOf(usage, r.host, r.name) };
    const boost = match ? Math.min(USAGE_BOOST_MAX, Math.log1p(view.usage?.calls30d ?? 0)) : 0;
    return { view, key: i - boost };
  });
  return { tools: tools.sort((a, b) => a.key - b.key).map((t) => t.view), nextCursor };
}

/**
 * One word, ranked by precomputed impact. A tool matches through its best term (the smallest impact among the
 * terms the word expands to); the keyset is on that best impact, so a tool shows once, on the page of its best.
 */
function oneWordSearch(word: string, query: ToolSearchQuery, take: number, after?: unknown[]): SQL {
  const upper = word + TERM_END;
  const whole = WHOLE_NAME_PREFIX + word;
  const inWord = (col: SQL) => sql`((${col} >= ${word} AND ${col} < ${upper}) OR ${col} = ${whole})`;
  const afterScore = after ? Number(after[0]) : undefined;
  const afterId = after ? Number(after[1]) : undefined;
  if (query.site) {
    // One site has at most a few hundred tools: read their terms from the tools' side, then rank them.
    return sql`SELECT ${TOOL_COLUMNS}, m.score AS score FROM (
        SELECT x.tool_id AS id, min(x.impact) AS score FROM tools t CROSS JOIN tool_terms x ON x.tool_id = t.id
        WHERE t.host = ${query.site} ${query.readOnly === undefined ? sql`` : sql`AND t.read_only = ${query.readOnly ? 1 : 0}`}
          AND ${inWord(sql`x.term`)}
        GROUP BY x.tool_id) m
      JOIN tools t ON t.id = m.id JOIN sites s ON s.host = t.host
      WHERE s.status = 'verified' AND s.delisted_at IS NULL
        ${after ? sql`AND (m.score > ${afterScore} OR (m.score = ${afterScore} AND m.id > ${afterId}))` : sql``}
      ORDER BY m.score, m.id LIMIT ${take}`;
  }
  // Past the first page, skip a tool whose best term ranked it on an earlier page.
  const notShown = after
    ? sql`AND (x.impact > ${afterScore} OR (x.impact = ${afterScore} AND x.tool_id > ${afterId}))
        AND NOT EXISTS (SELECT 1 FROM tool_terms y WHERE y.tool_id = x.tool_id AND ${inWord(sql`y.term`)}
          AND (y.impact < ${afterScore} OR (y.impact = ${afterScore} AND y.tool_id <= ${afterId})))`
    : sql``;
  const readOnly =
    query.readOnly === undefined
      ? sql``
      : sql`AND EXISTS (SELECT 1 FROM tools r WHERE r.id = x.tool_id AND r.read_only = ${query.readOnly ? 1 : 0})`;
  // Each expanded term's best `take` entries (a JSON array: SQLite has no LATERAL join), then each tool's best.
  return sql`WITH RECURSIVE expanded(term) AS (
        SELECT (SELECT min(term) FROM tool_terms WHERE term >= ${word} AND term < ${upper})
        UNION ALL
        SELECT (SELECT min(term) FROM tool_terms WHERE term > e.term AND term < ${upper})
        FROM expanded e WHERE e.term IS NOT NULL
        LIMIT ${MAX_EXPANSIONS + 1}),
      terms(term) AS (SELECT term FROM expanded WHERE term IS NOT NULL UNION SELECT ${whole}),
      entries(id, term) AS (
        SELECT j.value ->> 0, j.value ->> 1 FROM terms, json_each((
          SELECT json_group_array(json_array(x.tool_id, x.term)) FROM (
            SELECT x.tool_id, x.term FROM tool_terms x WHERE x.term = terms.term ${notShown} ${readOnly}
            ORDER BY x.impact, x.tool_id LIMIT ${take}) x)) j),
      best(id, score) AS (
        SELECT e.id, min(x.impact) FROM entries e JOIN tool_terms x ON x.tool_id = e.id AND x.term = e.term
        GROUP BY e.id ORDER BY 2, 1 LIMIT ${take})
    SELECT ${TOOL_COLUMNS}, b.score AS score FROM best b
      JOIN tools t ON t.id = b.id JOIN sites s ON s.host = t.host
    WHERE s.status = 'verified' AND s.delisted_at IS NULL
    ORDER BY b.score, b.id`;
}

export function toolView(row: ToolRow, cloud: CloudContext): RegistryToolView {
  const capable = cloud.runs && row.cloud_capable === 1;
  const definition = {
    name: row.name,
    title: row.title,
    description: row.description,
    inputSchema: JSON.parse(row.input_schema) as JsonSchemaObject,
    outputSchema: row.output_schema ? (JSON.parse(row.output_schema) as JsonSchemaObject) : null,
  };
  // A definition stored before the checks refused anything is shown with what would refuse it now.
  const { refused, warnings } = checkTool(definition);
  return {
    site: row.host,
    origin: row.origin,
    name: row.name,
    title: row.title,
    description: row.description,
    readOnly: row.read_only === 1,
    annotations: JSON.parse(row.annotations) as ToolAnnotations,
    inputSchema: definition.inputSchema,
    outputSchema: definition.outputSchema,
    version: row.version,
    updatedAt: new Date(row.updated_at).toISOString(),
    digest: row.digest ?? null,
    cloud: capable,
    cloudEndpoint: capable ? cloudEndpoint(cloud.hub, row.host) : null,
    warnings: [...refused, ...warnings],
  };
}

/** All current tools of one site, in name order (for the site page and exports). */
export async function siteTools(db: Db, host: string, cloud: CloudContext): Promise<RegistryToolView[]> {
  const rows = await db.all<ToolRow>(sql`SELECT ${TOOL_COLUMNS}
    FROM tools t JOIN sites s ON s.host = t.host WHERE t.host = ${host} ORDER BY t.name`);
  return rows.map((r) => toolView(r, cloud));
}

/** Verified sites and their current tools, from sites alone (`tool_count` is written with the tools). */
export async function registryCounts(db: Db): Promise<{ sites: number; tools: number }> {
  const [row] = await db.all<{ sites: number; tools: number | null }>(
    sql`SELECT count(*) AS sites, sum(tool_count) AS tools FROM sites WHERE status = 'verified' AND delisted_at IS NULL`,
  );
  return { sites: row?.sites ?? 0, tools: row?.tools ?? 0 };
}
