// bench/registry: 100,000 tools (10,000 sites × 10) in a local D1; through `wrangler dev`, times
// GET /api/tools?q= against the peer (the LIKE '%q%' scan, /bench/like in the bench Worker) on the same data in
// the same run, and PUT /api/sites/:host/manifest with 50 tools. Prints a table; refreshes bench/RESULTS.md.
import { createServer } from "node:http";
import { loadavg } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { benchManifest } from "./seed.mjs";
import { prepareDatabase } from "./local-d1.mjs";
import {
  buildWorker,
  json,
  machine,
  mean,
  percentile,
  startWranglerDev,
  table,
  timed,
  writeResultsSection,
} from "./harness.mjs";
import { QUERIES } from "./queries.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const CONFIG = join(HERE, "wrangler.toml");
const DATA = join(ROOT, "bench", ".data", "registry");

const SEED = { sites: 10_000, toolsPerSite: 10 };
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 60);
const WARMUP = 5;
const PUBLISH_ITERATIONS = Number(process.env.BENCH_PUBLISH_ITERATIONS ?? 30);
const PUBLISH_TOOLS = 50;
const LIMIT = 20;
const TARGET_P95_MS = 20;
const TARGET_RATIO = 10;

const log = (...args) => console.log("[registry]", ...args);

/** A local origin that serves the ownership token, as the site's own server would. */
function startOrigin() {
  const state = { token: "" };
  const server = createServer((req, res) => {
    if (req.url === "/.well-known/webmcp-hub-verify") {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(state.token);
    } else {
      res.writeHead(404).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, state, origin: `http://127.0.0.1:${server.address().port}` }),
    ),
  );
}

async function measureSearch(base) {
  const urls = (q) => ({
    ours: `${base}/api/tools?q=${encodeURIComponent(q)}&limit=${LIMIT}`,
    like: `${base}/bench/like?q=${encodeURIComponent(q)}&limit=${LIMIT}`,
  });
  const rows = [];
  for (const [q, kind] of QUERIES) {
    const stats = await json(`${base}/bench/stats?q=${encodeURIComponent(q)}`);
    rows.push({
      q,
      kind,
      fts: stats.fts,
      likeMatches: stats.like,
      ours: [],
      like: [],
      oursSql: [],
      likeSql: [],
    });
  }
  for (let i = 0; i < WARMUP; i++) {
    for (const row of rows) {
      await timed(urls(row.q).ours);
      await timed(urls(row.q).like);
    }
  }
  // Sequential and interleaved (ours, then the peer, query after query), so drift on a busy machine hits both.
  for (let i = 0; i < ITERATIONS; i++) {
    for (const row of rows) {
      const ours = await timed(urls(row.q).ours);
      const like = await timed(urls(row.q).like);
      row.ours.push(ours.ms);
      row.oursSql.push(ours.sqlMs);
      row.like.push(like.ms);
      row.likeSql.push(like.sqlMs);
    }
  }
  return rows;
}

async function measurePublish(base) {
  const origin = await startOrigin();
  try {
    const registered = await json(`${base}/api/sites`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ origin: origin.origin }),
    });
    origin.state.token = registered.challenge.token;
    const host = registered.site.host;
    const verified = await json(`${base}/api/sites/${host}/verify`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${registered.claimSecret}` },
      body: JSON.stringify({ method: "http" }),
    });
    const put = (n) =>
      timed(`${base}/api/sites/${host}/manifest`, {
        method: "PUT",
        headers: { "content-type": "application/json", authorization: `Bearer ${verified.publisherKey}` },
        body: JSON.stringify(benchManifest(1000 + n, PUBLISH_TOOLS)),
      });
    for (let i = 0; i < 3; i++) await put(-1 - i);
    const times = [];
    const sql = [];
    let last;
    for (let i = 0; i < PUBLISH_ITERATIONS; i++) {
      const { ms, body, sqlMs } = await put(i);
      last = JSON.parse(body);
      if (last.unchanged || last.toolCount !== PUBLISH_TOOLS)
        throw new Error(`publish stored nothing new: ${body}`);
      times.push(ms);
      sql.push(sqlMs);
    }
    const found = await json(`${base}/api/tools?site=${encodeURIComponent(host)}&limit=100`);
    if (found.tools.length !== PUBLISH_TOOLS)
      throw new Error(`published ${PUBLISH_TOOLS} tools, search lists ${found.tools.length}`);
    return { times, sql, version: last.version };
  } finally {
    origin.server.close();
  }
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const ratio = (a, b) => `${(a / b).toFixed(1)}×`;
/** SQL means can be 0 (D1 reports whole milliseconds). */
const sqlRatio = (like, ours) => (ours > 0 ? ratio(like, ours) : like > 0 ? "∞" : "–");

async function main() {
  const started = performance.now();
  const host = machine(); // before the bench loads the machine
  const { persistTo, stats } = await prepareDatabase({
    root: ROOT,
    dataDir: DATA,
    config: CONFIG,
    options: SEED,
    log,
  });
  const built = await buildWorker({ root: ROOT, config: CONFIG, outDir: join(DATA, "build") });
  const dev = await startWranglerDev({ root: ROOT, config: built, persistTo, log });
  let search;
  let publish;
  let floor;
  try {
    const words = await json(`${dev.url}/bench/check-words`);
    if (words.mismatches.length > 0) {
      throw new Error(
        `seeded search rows differ from what publish writes (e.g. ${JSON.stringify(words.mismatches[0])}): update nameWords in bench/registry/seed.mjs, or the backfill in migrations/0003`,
      );
    }
    floor = [];
    for (let i = 0; i < 30; i++) floor.push((await timed(`${dev.url}/healthz`)).ms);
    log(
      `searching: ${QUERIES.length} queries × ${ITERATIONS} iterations, each through /api/tools and /bench/like`,
    );
    search = await measureSearch(dev.url);
    log(`publishing: ${PUBLISH_ITERATIONS} manifests of ${PUBLISH_TOOLS} tools`);
    publish = await measurePublish(dev.url);
  } finally {
    await dev.stop();
  }
  // The same searches through wrangler's dev server without the DevTools inspector the CLI always turns on
  // (it relays a Network event per D1 query to wrangler's Node process; deployed Workers have nothing like it).
  const lean = await startWranglerDev({ root: ROOT, config: built, persistTo, log, inspector: false });
  let leanSearch;
  let leanFloor;
  try {
    leanFloor = [];
    for (let i = 0; i < 30; i++) leanFloor.push((await timed(`${lean.url}/healthz`)).ms);
    log("searching again without the inspector");
    leanSearch = await measureSearch(lean.url);
  } finally {
    await lean.stop();
  }

  const oursAll = search.flatMap((r) => r.ours);
  const likeAll = search.flatMap((r) => r.like);
  const oursP95 = percentile(oursAll, 95);
  const likeP95 = percentile(likeAll, 95);
  const worst = search.reduce((a, r) => (percentile(r.ours, 95) > percentile(a.ours, 95) ? r : a));
  const searchMet = oursP95 <= TARGET_P95_MS;
  const ratioMet = likeP95 / oursP95 >= TARGET_RATIO;
  // Where the peer cannot stop early: fewer matches than a page, so it reads all 100,000 rows.
  const fullScans = search.filter((r) => r.likeMatches <= LIMIT);
  const scanOurs = fullScans.flatMap((r) => r.ours);
  const scanLike = fullScans.flatMap((r) => r.like);
  const scanSqlOurs = mean(fullScans.flatMap((r) => r.oursSql));
  const scanSqlLike = mean(fullScans.flatMap((r) => r.likeSql));
  const slower = search.filter((r) => percentile(r.ours, 50) > percentile(r.like, 50)).map((r) => `"${r.q}"`);

  const header = [
    "query",
    "kind",
    "matches (FTS / LIKE)",
    "ours p50",
    "ours p95",
    "LIKE p50",
    "LIKE p95",
    "LIKE/ours p50",
    "LIKE/ours p95",
    "SQL mean, ours / LIKE",
    "LIKE/ours SQL",
  ];
  const body = search.map((r) => [
    `\`${r.q}\``,
    r.kind,
    `${r.fts} / ${r.likeMatches}`,
    fmt(percentile(r.ours, 50)),
    fmt(percentile(r.ours, 95)),
    fmt(percentile(r.like, 50)),
    fmt(percentile(r.like, 95)),
    ratio(percentile(r.like, 50), percentile(r.ours, 50)),
    ratio(percentile(r.like, 95), percentile(r.ours, 95)),
    `${fmt(mean(r.oursSql))} / ${fmt(mean(r.likeSql))}`,
    sqlRatio(mean(r.likeSql), mean(r.oursSql)),
  ]);
  const oursSqlAll = search.flatMap((r) => r.oursSql);
  const likeSqlAll = search.flatMap((r) => r.likeSql);
  body.push([
    "**all queries**",
    "",
    "",
    `**${fmt(percentile(oursAll, 50))}**`,
    `**${fmt(oursP95)}**`,
    `**${fmt(percentile(likeAll, 50))}**`,
    `**${fmt(likeP95)}**`,
    `**${ratio(percentile(likeAll, 50), percentile(oursAll, 50))}**`,
    `**${ratio(likeP95, oursP95)}**`,
    `**${fmt(mean(oursSqlAll))} / ${fmt(mean(likeSqlAll))}**`,
    `**${sqlRatio(mean(likeSqlAll), mean(oursSqlAll))}**`,
  ]);
  const verdict = (met) => (met ? "met" : "**MISSED**");
  const leanOurs = leanSearch.flatMap((r) => r.ours);
  const leanOursP95 = percentile(leanOurs, 95);
  const leanLikeP95 = percentile(
    leanSearch.flatMap((r) => r.like),
    95,
  );
  const lines = [
    `${stats.tools.toLocaleString("en")} tools on ${stats.sites.toLocaleString("en")} verified sites; times in ms, wall clock of one HTTP request to \`wrangler dev\` (sequential; ${ITERATIONS} samples a query after ${WARMUP} warm-ups; \`limit=${LIMIT}\`). HTTP floor (\`GET /healthz\`, no D1): p50 ${fmt(percentile(floor, 50))}, p95 ${fmt(percentile(floor, 95))}. SQL: the execution time D1 itself reports for the request's statements (\`meta.duration\`, in whole ms, hence means), i.e. the query without HTTP, Worker and the local D1 round trip.`,
    "",
    table(header, body),
    "",
    `- Search p95, all queries: **${fmt(oursP95)} ms** (target ≤ ${TARGET_P95_MS} ms: ${verdict(searchMet)}); worst query \`${worst.q}\` p95 ${fmt(percentile(worst.ours, 95))} ms.`,
    `- Against the LIKE scan, p95 over all queries: **${ratio(likeP95, oursP95)}** faster (target ≥ ${TARGET_RATIO}×: ${verdict(ratioMet)})${slower.length ? `; slower than the scan at p50 on ${slower.join(", ")} (there the scan stops at its 21st match, in id order, without ranking)` : ""}.`,
    fullScans.length > 0
      ? `- Where the scan reads the whole table (${fullScans.map((r) => `\`${r.q}\``).join(", ")}: at most ${LIMIT} substring matches): p95 ${fmt(percentile(scanOurs, 95))} ms against ${fmt(percentile(scanLike, 95))} ms, ${ratio(percentile(scanLike, 95), percentile(scanOurs, 95))}; SQL alone ${fmt(scanSqlOurs)} ms against ${fmt(scanSqlLike)} ms, ${sqlRatio(scanSqlLike, scanSqlOurs)} (the rest of each request is the HTTP floor and the local D1 round trip).`
      : "",
    `- Without the DevTools inspector (the same dev server through wrangler's API, \`bench/relay/dev-without-inspector.mjs\`; same Worker, same database, measured after the run above): HTTP floor p50 ${fmt(percentile(leanFloor, 50))}, p95 ${fmt(percentile(leanFloor, 95))}; search p50 ${fmt(percentile(leanOurs, 50))}, p95 **${fmt(leanOursP95)} ms** (target ≤ ${TARGET_P95_MS} ms: ${verdict(leanOursP95 <= TARGET_P95_MS)}); LIKE p95 ${fmt(leanLikeP95)} ms, **${ratio(leanLikeP95, leanOursP95)}** (target ≥ ${TARGET_RATIO}×: ${verdict(leanLikeP95 / leanOursP95 >= TARGET_RATIO)}).`,
    `- Publish, ${PUBLISH_TOOLS}-tool manifest (\`PUT /api/sites/:host/manifest\`, a new version each time, ${PUBLISH_ITERATIONS} samples): p50 **${fmt(percentile(publish.times, 50))} ms**, p95 **${fmt(percentile(publish.times, 95))} ms** (SQL mean ${fmt(mean(publish.sql))} ms; no peer: the official registry has no per-tool index to rewrite).`,
    "",
    "Ours: `GET /api/tools?q=`: one word is read from the precomputed term impacts (`tool_terms`, best 21 entries of every term the word is a prefix of); several words are an FTS5 `MATCH` (every word a prefix) bm25-ranked inside tools_fts; the page is then joined with tools and sites. Peer: the same Worker, Hono context, drizzle handle and JSON rendering, with the official MCP registry's search: `LIKE '%q%'` on name, title and description (the whole query as one substring), unranked, `ORDER BY id LIMIT` (`/bench/like` in `bench/registry/worker.mjs`), given its best plan: tools scanned in id order, so it stops at the 21st match and reads the whole table only when fewer match. Matches: how many tools each method finds.",
  ];
  const text = lines.join("\n");
  console.log(`\n## registry\n\n${text}\n`);
  const file = await writeResultsSection(join(ROOT, "bench", "RESULTS.md"), "registry", {
    title: "registry — search and publish at 100,000 tools",
    when: new Date().toISOString().slice(0, 10),
    machine: `${host}, ${loadavg()[0].toFixed(1)} at the end`,
    command: "node bench/run.mjs registry",
    text,
  });
  log(`wrote ${relative(ROOT, file)} (${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  if (!searchMet || !ratioMet) log("MISSED: a target does not hold; see the lines above.");
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
