// `node bench/registry/investigate.mjs`: measures a proposed change to searchTools through the same Worker
// path as the bench: today's /api/tools?q= against /bench/candidate (rank inside tools_fts, join only the
// page, as searchTools now does; with cap=N, rank only the N newest matches), with how many of today's top 20
// each still returns.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
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
const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 30);
const log = (...args) => console.log("[registry:investigate]", ...args);

const VARIANTS = {
  today: (q) => `/api/tools?q=${encodeURIComponent(q)}&limit=20`,
  "rank the newest 5,000": (q) => `/bench/candidate?cap=5000&q=${encodeURIComponent(q)}&limit=20`,
  "rank the newest 1,000": (q) => `/bench/candidate?cap=1000&q=${encodeURIComponent(q)}&limit=20`,
};

const key = (t) => `${t.site} ${t.name}`;
const host = machine();

const { persistTo } = await prepareDatabase({
  root: ROOT,
  dataDir: join(ROOT, "bench", ".data", "registry"),
  config: CONFIG,
  options: { sites: 10_000, toolsPerSite: 10 },
  log,
});
const built = await buildWorker({
  root: ROOT,
  config: CONFIG,
  outDir: join(ROOT, "bench", ".data", "registry", "build"),
});
const dev = await startWranglerDev({ root: ROOT, config: built, persistTo, log });
const rows = [];
try {
  for (const [q, kind] of QUERIES) {
    const results = {};
    for (const [name, path] of Object.entries(VARIANTS)) results[name] = await json(dev.url + path(q));
    const reference = new Set(results.today.tools.map(key));
    const overlap = Object.fromEntries(
      Object.entries(results).map(([name, r]) => [name, r.tools.filter((t) => reference.has(key(t))).length]),
    );
    const series = () => Object.fromEntries(Object.keys(VARIANTS).map((n) => [n, []]));
    rows.push({ q, kind, overlap, total: reference.size, times: series(), sql: series() });
  }
  for (let i = 0; i < 3; i++)
    for (const row of rows) for (const path of Object.values(VARIANTS)) await timed(dev.url + path(row.q));
  for (let i = 0; i < ITERATIONS; i++) {
    for (const row of rows) {
      for (const [name, path] of Object.entries(VARIANTS)) {
        const { ms, sqlMs } = await timed(dev.url + path(row.q));
        row.times[name].push(ms);
        row.sql[name].push(sqlMs);
      }
    }
  }
} finally {
  await dev.stop();
}

const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));
const names = Object.keys(VARIANTS);
const header = [
  "query",
  "kind",
  ...names.map((n) => `${n}: p50 / p95 (SQL mean)`),
  ...names.slice(1).map((n) => `${n}: same top 20`),
];
const cell = (times, sql) =>
  `${fmt(percentile(times, 50))} / ${fmt(percentile(times, 95))} (${fmt(mean(sql))})`;
const body = rows.map((r) => [
  `\`${r.q}\``,
  r.kind,
  ...names.map((n) => cell(r.times[n], r.sql[n])),
  ...names.slice(1).map((n) => `${r.overlap[n]} of ${r.total}`),
]);
body.push([
  "**all queries**",
  "",
  ...names.map(
    (n) =>
      `**${cell(
        rows.flatMap((r) => r.times[n]),
        rows.flatMap((r) => r.sql[n]),
      )}**`,
  ),
  ...names.slice(1).map(() => ""),
]);
const text = [
  `Candidate search queries measured through the bench Worker (\`/bench/candidate\` in \`bench/registry/worker.mjs\`), interleaved with today's \`GET /api/tools\`, ${ITERATIONS} samples a query; ms; SQL: D1's own \`meta.duration\`. "Same top 20": how many of today's first page the candidate also returns.`,
  "",
  table(header, body),
].join("\n");
console.log(`\n${text}\n`);
await writeResultsSection(join(ROOT, "bench", "RESULTS.md"), "registry-investigation", {
  title: "registry — investigation: candidate search queries",
  when: new Date().toISOString().slice(0, 10),
  machine: host,
  command: "node bench/registry/investigate.mjs",
  text,
});
