// bench/dashboard: how fast the Worker renders the dashboard's pages with 100,000 tools
// (10,000 verified sites × 10, the registry bench's seeded D1, copied — never written), and how many bytes
// each page sends. Through `wrangler dev`, sequential, each page interleaved with its peer: the JSON API
// request that returns the same data (`/api/tools?q=` for a search page), so the table separates rendering
// from the query. Targets for home, search and tool pages: p50 ≤ 30 ms, p95 ≤ 60 ms; ≤ 100 KiB of
// HTML + CSS + JS per page. Prints a table and MISSED for a missed target; refreshes bench/RESULTS.md.
//
//   BENCH_ITERATIONS   rounds (default 30; a round renders home, site, tool once and every search query)
import { cpSync, existsSync, readFileSync, rmSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
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
} from "../registry/harness.mjs";
import { prepareDatabase } from "../registry/local-d1.mjs";
import { buildBundles } from "../../scripts/lib/bundles.mjs";
import { QUERIES } from "../registry/queries.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
const REGISTRY_DATA = join(ROOT, "bench", ".data", "registry");
const REGISTRY_CONFIG = join(ROOT, "bench", "registry", "wrangler.toml");
const DATA = join(ROOT, "bench", ".data", "dashboard");
const SEED = { sites: 10_000, toolsPerSite: 10 }; // what bench/registry seeds
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const WARMUP = 3;
const TARGET_P50 = 30;
const TARGET_P95 = 60;
const MAX_PAGE_BYTES = 100 * 1024;
const SAMPLED_TOOLS = 30;

const log = (...args) => console.log("[dashboard]", ...args);

/**
 * The registry bench's seeded database, copied to our own directory: we never write to it. If it was never
 * seeded, bench/registry's own code seeds it first (once; about a minute).
 */
async function database() {
  const seedDir = join(REGISTRY_DATA, "seed");
  const marker = join(seedDir, "seeded.json");
  if (!existsSync(marker)) {
    log("no seeded registry database in bench/.data/registry yet: seeding it with bench/registry's code");
    await prepareDatabase({
      root: ROOT,
      dataDir: REGISTRY_DATA,
      config: REGISTRY_CONFIG,
      options: SEED,
      log,
    });
  }
  const stats = JSON.parse(readFileSync(marker, "utf8"));
  const runDir = join(DATA, "run");
  rmSync(runDir, { recursive: true, force: true });
  cpSync(seedDir, runDir, { recursive: true });
  log(
    `copied the registry bench's database (${stats.tools} tools on ${stats.sites} sites) to ${relative(ROOT, runDir)}`,
  );
  return { persistTo: runDir, stats };
}

const enc = encodeURIComponent;

/** Every stylesheet and script a page loads (module imports included), fetched once. */
async function pageBytes(base, path) {
  const html = (await timed(base + path)).body;
  const files = { [path]: html };
  const queue = [
    ...[...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]),
    ...[...html.matchAll(/<script[^>]+src="([^"]+)"/g)].map((m) => m[1]),
  ];
  while (queue.length) {
    const url = queue.shift();
    if (url in files) continue;
    const text = (await timed(base + url)).body;
    files[url] = text;
    if (url.endsWith(".js")) for (const m of text.matchAll(/from\s+"(\/assets\/[^"]+)"/g)) queue.push(m[1]);
  }
  const size = (t) => Buffer.byteLength(t);
  const gz = (t) => gzipSync(t).byteLength;
  const all = Object.values(files);
  return {
    html: size(html),
    htmlGz: gz(html),
    total: all.reduce((n, t) => n + size(t), 0),
    totalGz: all.reduce((n, t) => n + gz(t), 0),
    files: Object.keys(files).length,
  };
}

/** The pages to render and, for each, the API request that returns the same data (the peer). */
async function plan(base) {
  const sites = await json(`${base}/api/sites?limit=100`);
  const hosts = sites.sites.map((s) => s.host);
  const tools = [];
  for (const host of hosts.filter((_, i) => i % 3 === 0).slice(0, SAMPLED_TOOLS)) {
    const found = await json(`${base}/api/tools?site=${enc(host)}&limit=10`);
    const tool = found.tools[tools.length % found.tools.length];
    if (tool) tools.push(tool);
  }
  return [
    { kind: "home", target: true, items: [{ page: "/", peer: "/api/tools?limit=20" }] },
    {
      kind: "search",
      target: true,
      items: QUERIES.map(([q]) => ({ page: `/?q=${enc(q)}`, peer: `/api/tools?q=${enc(q)}&limit=20`, q })),
    },
    {
      kind: "tool",
      target: true,
      items: tools.map((t) => ({
        page: `/sites/${enc(t.site)}/tools/${enc(t.name)}`,
        peer: `/api/sites/${enc(t.site)}/tools?format=mcp`,
      })),
    },
    {
      kind: "site",
      target: false,
      items: hosts
        .slice(0, SAMPLED_TOOLS)
        .map((h) => ({ page: `/sites/${enc(h)}`, peer: `/api/sites/${enc(h)}` })),
    },
  ];
}

async function measure(base, kinds) {
  const stats = Object.fromEntries(
    kinds.map((k) => [k.kind, { page: [], peer: [], pageSql: [], peerSql: [], perQuery: new Map() }]),
  );
  const round = async (i, record) => {
    for (const k of kinds) {
      // Searches run every query each round; the other kinds take the next sampled page.
      const items = k.kind === "search" ? k.items : [k.items[i % k.items.length]];
      for (const item of items) {
        const page = await timed(base + item.page);
        const peer = await timed(base + item.peer);
        if (!record) continue;
        const s = stats[k.kind];
        s.page.push(page.ms);
        s.peer.push(peer.ms);
        s.pageSql.push(page.sqlMs ?? 0);
        s.peerSql.push(peer.sqlMs ?? 0);
        if (item.q) {
          const q = s.perQuery.get(item.q) ?? [];
          q.push(page.ms);
          s.perQuery.set(item.q, q);
        }
      }
    }
  };
  for (let i = 0; i < WARMUP; i++) await round(i, false);
  for (let i = 0; i < ITERATIONS; i++) await round(i, true);
  return stats;
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const kib = (b) => `${(b / 1024).toFixed(1)} KiB`;

async function main() {
  const started = performance.now();
  const host = machine();
  const { persistTo, stats: seed } = await database();
  // The page scripts are built from web/client (generated files): bytes per page count what a user loads.
  await buildBundles({ group: "browser", log });
  const built = await buildWorker({ root: ROOT, config: REGISTRY_CONFIG, outDir: join(DATA, "build") });
  const dev = await startWranglerDev({ root: ROOT, config: built, persistTo, log });
  let kinds;
  let results;
  let bytes;
  let floor;
  try {
    kinds = await plan(dev.url);
    floor = [];
    for (let i = 0; i < 30; i++) floor.push((await timed(`${dev.url}/healthz`)).ms);
    bytes = {};
    for (const k of kinds) bytes[k.kind] = await pageBytes(dev.url, k.items[0].page);
    for (const path of ["/publish", "/channels", "/channels/example", "/docs"])
      bytes[path] = await pageBytes(dev.url, path);
    log(
      `rendering: ${ITERATIONS} rounds of home, ${QUERIES.length} searches, a tool page and a site page, each with its API peer`,
    );
    results = await measure(dev.url, kinds);
  } finally {
    await dev.stop();
  }

  const header = [
    "page",
    "samples",
    "page p50",
    "page p95",
    "API p50",
    "API p95",
    "page − API, p50",
    "SQL mean, page / API",
    "HTML (gzip)",
    "HTML+CSS+JS (gzip)",
    "target p50 ≤ 30, p95 ≤ 60",
  ];
  const missed = [];
  const rows = kinds.map((k) => {
    const s = results[k.kind];
    const p50 = percentile(s.page, 50);
    const p95 = percentile(s.page, 95);
    const b = bytes[k.kind];
    let verdict = "—";
    if (k.target) {
      const ok = p50 <= TARGET_P50 && p95 <= TARGET_P95;
      verdict = ok ? "met" : "**MISSED**";
      if (!ok) missed.push(`${k.kind} (p50 ${fmt(p50)}, p95 ${fmt(p95)})`);
    }
    return [
      k.kind,
      String(s.page.length),
      fmt(p50),
      fmt(p95),
      fmt(percentile(s.peer, 50)),
      fmt(percentile(s.peer, 95)),
      fmt(p50 - percentile(s.peer, 50)),
      `${fmt(mean(s.pageSql))} / ${fmt(mean(s.peerSql))}`,
      `${kib(b.html)} (${kib(b.htmlGz)})`,
      `${kib(b.total)} (${kib(b.totalGz)})`,
      verdict,
    ];
  });
  const heavy = Object.entries(bytes).filter(([, b]) => b.total > MAX_PAGE_BYTES);
  for (const [page, b] of heavy) missed.push(`${page} weighs ${kib(b.total)}`);
  const perQuery = [...results.search.perQuery.entries()].map(([q, samples]) => {
    const kind = QUERIES.find(([x]) => x === q)[1];
    return `\`${q}\` ${fmt(percentile(samples, 50))}/${fmt(percentile(samples, 95))}${kind === "very common word" ? " (very common word)" : ""}`;
  });
  const other = Object.entries(bytes)
    .filter(([p]) => p.startsWith("/"))
    .map(([p, b]) => `\`${p}\` ${kib(b.total)} (${kib(b.totalGz)} gzip)`);

  const lines = [
    `${seed.tools.toLocaleString("en")} tools on ${seed.sites.toLocaleString("en")} verified sites (the registry bench's database). Times in ms: wall clock of one request to \`wrangler dev\`, from send to the last byte, sequential, ${ITERATIONS} rounds after ${WARMUP} warm-ups; each page request is followed by its peer, the JSON API request for the same data (home: \`/api/tools?limit=20\`; search: \`/api/tools?q=\`, the ${QUERIES.length} registry-bench queries; tool: \`/api/sites/:host/tools?format=mcp\`; site: \`/api/sites/:host\`). Tool and site pages: ${SAMPLED_TOOLS} sampled sites, one page a round. HTTP floor (\`GET /healthz\`, no D1): p50 ${fmt(percentile(floor, 50))}, p95 ${fmt(percentile(floor, 95))}. SQL: D1's own \`meta.duration\` summed over a request's statements.`,
    "",
    table(header, rows),
    "",
    `- Search pages by query, p50/p95: ${perQuery.join(", ")}.`,
    `- Other pages (static shells filled by their scripts), HTML+CSS+JS: ${other.join(", ")}. Every page is under ${MAX_PAGE_BYTES / 1024} KiB: ${heavy.length ? "**MISSED**" : "met"}.`,
    missed.length ? `- **MISSED**: ${missed.join("; ")}.` : "- All targets met.",
  ];
  const text = lines.join("\n");
  console.log(`\n## dashboard\n\n${text}\n`);
  const file = await writeResultsSection(join(ROOT, "bench", "RESULTS.md"), "dashboard", {
    title: "dashboard — server-rendered pages at 100,000 tools",
    when: new Date().toISOString().slice(0, 10),
    machine: host,
    command: "node bench/run.mjs dashboard",
    text,
  });
  log(`wrote ${relative(ROOT, file)} (${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  if (missed.length) log(`MISSED: ${missed.join("; ")}`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
