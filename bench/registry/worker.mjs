// Bench-only Worker entry (bench/registry/wrangler.toml; never deployed). Serves the real app unchanged and,
// under /bench/, the peer the registry bench measures against: the LIKE '%q%' substring scan the official
// MCP registry uses for search, run through the same Hono context, drizzle handle and JSON rendering. Every
// response carries x-bench-sql-ms: the SQL time D1 itself reported for the request (sql-time.mjs).
// Plain JS because tsconfig.node.json typechecks bench/ for Node, without the Workers types.
import { Hono } from "hono";
import { sql } from "drizzle-orm";
import { createApp } from "../../src/worker/app.ts";
import { hubContext, query } from "../../src/worker/http/context.ts";
import { renderError } from "../../src/worker/http/errors.ts";
import { nameWords, toolTerms } from "../../src/worker/registry/terms.ts";
import { ftsQuery, toolView } from "../../src/worker/registry/search.ts";
import { ToolSearchParamsSchema } from "../../src/protocol/index.ts";
import { timedDatabase, withSqlTime } from "./sql-time.mjs";

export { ChannelRelay } from "../../src/worker/index.ts";

const BM25 = sql.raw("bm25(tools_fts, 10.0, 6.0, 4.0, 1.0, 2.0)");
const COLUMNS = sql.raw(
  "t.id, t.host, s.origin, t.name, t.title, t.description, t.read_only, t.annotations, t.input_schema, t.output_schema, t.version, t.updated_at",
);

/** `%q%` with LIKE's own wildcards escaped, so the query is matched literally (case-insensitive for ASCII). */
function likePattern(q) {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

const LIKE_WHERE = (pattern) => sql`s.status = 'verified' AND (t.name LIKE ${pattern} ESCAPE '\\'
  OR t.title LIKE ${pattern} ESCAPE '\\' OR t.description LIKE ${pattern} ESCAPE '\\')`;

const peer = new Hono();
peer.use("*", hubContext());

/**
 * The peer: same parameters and response shape as GET /api/tools; like the official registry
 * (`value->>'name' ILIKE '%q%' ... ORDER BY id LIMIT n` in its internal/database/postgres.go) it matches
 * the whole query as one substring, unranked, in id order — here over name, title and description.
 */
peer.get("/bench/like", async (c) => {
  const params = query(c, ToolSearchParamsSchema);
  // CROSS JOIN keeps tools as the outer loop, so the scan walks ids in order and stops at the limit: the
  // peer's best plan. (Left to itself the planner starts from sites and sorts: 3× slower on a full scan.)
  const rows = await c.var.db.all(sql`SELECT ${COLUMNS} FROM tools t CROSS JOIN sites s ON s.host = t.host
    WHERE ${LIKE_WHERE(likePattern(params.q ?? ""))} ORDER BY t.id LIMIT ${params.limit + 1}`);
  return c.json({ tools: rows.slice(0, params.limit).map(toolView), nextCursor: null });
});

/**
 * A candidate for searchTools (q and limit only), to measure a proposed change through the same path:
 * bm25 ranks inside tools_fts alone and only the page is joined with tools and sites; with `cap` > 0 only
 * the `cap` most recently indexed matches are ranked (what bounds the cost of very common words).
 */
peer.get("/bench/candidate", async (c) => {
  const params = query(c, ToolSearchParamsSchema);
  const cap = Number(c.req.query("cap") ?? "1000");
  const match = ftsQuery(params.q ?? "") ?? '""';
  const matches =
    cap > 0
      ? sql`SELECT rowid AS id, ${BM25} AS score FROM tools_fts WHERE tools_fts MATCH ${match} ORDER BY rowid DESC LIMIT ${cap}`
      : sql`SELECT rowid AS id, ${BM25} AS score FROM tools_fts WHERE tools_fts MATCH ${match}`;
  const rows = await c.var.db.all(sql`SELECT ${COLUMNS}, r.score FROM
    (SELECT id, score FROM (${matches}) ORDER BY score, id LIMIT ${params.limit + 1}) r
    JOIN tools t ON t.id = r.id JOIN sites s ON s.host = t.host
    WHERE s.status = 'verified' ORDER BY r.score, r.id`);
  return c.json({ tools: rows.slice(0, params.limit).map(toolView), nextCursor: null });
});

/** How many tools each method matches for q (not timed; printed next to the latencies). */
peer.get("/bench/stats", async (c) => {
  const q = c.req.query("q") ?? "";
  const match = ftsQuery(q);
  const [fts] = match
    ? await c.var.db.all(sql`SELECT count(*) AS n FROM tools_fts JOIN tools t ON t.id = tools_fts.rowid
        JOIN sites s ON s.host = t.host WHERE tools_fts MATCH ${match} AND s.status = 'verified'`)
    : [{ n: 0 }];
  const [like] = await c.var.db.all(sql`SELECT count(*) AS n FROM tools t JOIN sites s ON s.host = t.host
    WHERE ${LIKE_WHERE(likePattern(q))}`);
  return c.json({ q, match: match ?? null, fts: fts.n, like: like.n });
});

/** Compares the seeded tools_fts `words` of a sample of rows with the Worker's own nameWords. */
peer.get("/bench/check-words", async (c) => {
  const rows = await c.var.db.all(
    sql`SELECT name, words FROM tools_fts WHERE rowid IN (SELECT id FROM tools ORDER BY random() LIMIT 500)`,
  );
  const mismatches = rows.filter((r) => nameWords(r.name) !== r.words);
  // The backfilled tool_terms of a sample against what publish would write (toolTerms).
  const sample = await c.var.db.all(
    sql`SELECT t.id, t.name, t.title, t.description, t.host, json_group_object(x.term, x.impact) AS terms
      FROM (SELECT * FROM tools ORDER BY random() LIMIT 200) t JOIN tool_terms x ON x.tool_id = t.id GROUP BY t.id`,
  );
  for (const row of sample) {
    const stored = JSON.parse(row.terms);
    const expected = toolTerms(row);
    const same =
      expected.length === Object.keys(stored).length &&
      expected.every(([term, impact]) => Math.abs((stored[term] ?? Infinity) - impact) < 1e-9);
    if (!same) mismatches.push({ name: row.name, terms: stored, expected: Object.fromEntries(expected) });
  }
  return c.json({ checked: rows.length + sample.length, mismatches: mismatches.slice(0, 5) });
});

/** Only SELECTs reach the two investigation endpoints below. */
async function selectStatement(c) {
  const body = await c.req.json();
  if (!/^\s*(SELECT|WITH)\s/i.test(body.statement)) throw new Error("only SELECT statements");
  return { params: [], iterations: 20, ...body };
}

/** EXPLAIN QUERY PLAN of a SELECT, for investigating a slow query. */
peer.post("/bench/explain", async (c) => {
  const { statement, params } = await selectStatement(c);
  const prepared = c.env.DB.prepare(`EXPLAIN QUERY PLAN ${statement}`).bind(...params);
  return c.json((await prepared.all()).results);
});

/** Times a read-only statement inside the Worker (no HTTP), for comparing candidate queries. */
peer.post("/bench/time", async (c) => {
  const { statement, params, iterations } = await selectStatement(c);
  const prepared = c.env.DB.prepare(statement).bind(...params);
  const times = [];
  const durations = [];
  let rows = 0;
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    const result = await prepared.all();
    times.push(performance.now() - t);
    durations.push(result.meta.duration);
    rows = result.results.length;
  }
  return c.json({ rows, times, durations });
});
peer.onError(renderError);

const app = createApp();
const benchEnvs = new WeakMap();

/** The same env with DB wrapped to sum D1's own SQL timings (one wrapped env per env, so settings stay cached). */
function benchEnv(env) {
  let wrapped = benchEnvs.get(env);
  if (!wrapped) benchEnvs.set(env, (wrapped = { ...env, DB: timedDatabase(env.DB) }));
  return wrapped;
}

export default {
  fetch(request, env, ctx) {
    const handler = new URL(request.url).pathname.startsWith("/bench/") ? peer : app;
    return withSqlTime(() => handler.fetch(request, benchEnv(env), ctx));
  },
};
