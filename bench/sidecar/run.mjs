// bench/sidecar: fs.search_by_time through the real sidecar process (an MCP SDK client over stdio,
// `node bin/webmcp-hub.mjs sidecar --root TREE`) against GNU find on the same tree, in one run, warm cache:
//   first page   limit 100, time_desc, a date range  vs  find -newermt … | sort -rn | head -n 100
//   paging       20 pages of 100 with the cursor      vs  find … | sort -rn | head -n 2000 (checked equal)
// for two tree sizes (200,000 and 50,000 files), with the sidecar's peak RSS (VmHWM) before and after, so
// memory can be seen not to grow with the tree. Also the sidecar with --workers 0 (one thread, inline).
// Targets: first page ≤ 1.0× find+sort; peak memory independent of tree size. A miss prints MISSED.
//
//   BENCH_ROUNDS  samples per measurement (default 7), interleaved ours / find
//   BENCH_SIDECAR_ERA  the client's MCP revision: 2025-11-25 (default, `initialize`) or 2026-07-28 (pinned)
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { machine, table, writeResultsSection } from "../registry/harness.mjs";
import { ensureTree } from "./tree.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/sidecar");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const ERA = process.env.BENCH_SIDECAR_ERA ?? "2025-11-25";
const SIZES = [200_000, 50_000];
const FROM = "2024-01-01T00:00:00.5Z"; // half seconds: no generated mtime (whole seconds) sits on a bound
const TO = "2024-03-01T00:00:00.5Z";
const PAGE = 100;
const PAGES = 20;
const TARGET_RATIO = 1.0;
/** The larger tree's peak RSS may exceed the smaller's by noise (V8's heap sizing); more would mean memory follows the tree. */
const MEMORY_TOLERANCE_MB = 16;

const log = (line) => console.error(`[sidecar] ${line}`);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms.toFixed(1));

function sh(command) {
  return new Promise((resolve, reject) => {
    const child = spawn("sh", ["-c", command], { stdio: ["ignore", "pipe", "inherit"] });
    const chunks = [];
    child.stdout.on("data", (c) => chunks.push(c));
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0
        ? resolve(Buffer.concat(chunks).toString("utf8"))
        : reject(new Error(`${command} → ${code}`)),
    );
  });
}

const findCommand = (tree, head) =>
  `find '${tree}' -newermt '${FROM}' ! -newermt '${TO}' -printf '%T@ %p\\n' | sort -rn | head -n ${head}`;

/** find's lines as [{t (ms), p (root-relative)}]. */
function parseFind(text, tree) {
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => {
      const space = line.indexOf(" ");
      return { t: Number(line.slice(0, space)) * 1000, p: line.slice(space + 1 + tree.length + 1) };
    });
}

async function timeFind(tree, head) {
  const t0 = performance.now();
  const out = await sh(findCommand(tree, head));
  return { ms: performance.now() - t0, rows: parseFind(out, tree) };
}

/** A sidecar process and an MCP client on its stdio. */
async function startSidecar(tree, extra = []) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, "bin/webmcp-hub.mjs"), "sidecar", "--root", `tree=${tree}`, ...extra],
    cwd: ROOT,
    stderr: "ignore",
  });
  const client = new Client(
    { name: "bench", version: "0.1.0" },
    ERA === "2026-07-28" ? { versionNegotiation: { mode: { pin: ERA } } } : {},
  );
  await client.connect(transport);
  await client.listTools();
  const pid = transport.pid;
  const vm = (field) => {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) / 1024;
  };
  return { client, hwm: () => vm("VmHWM"), rss: () => vm("VmRSS"), close: () => client.close() };
}

async function search(client, args) {
  const t0 = performance.now();
  const result = await client.callTool({ name: "fs.search_by_time", arguments: args }, { timeout: 120_000 });
  const ms = performance.now() - t0;
  if (result.isError) throw new Error(`fs.search_by_time failed: ${result.content[0]?.text}`);
  return { ms, out: result.structuredContent };
}

const firstPageArgs = { timeField: "modified", from: FROM, to: TO, sort: "time_desc", limit: PAGE };

/** Same entries in the same order; times agree to the millisecond (ours are ISO ms, find prints ns). */
function agree(ours, theirs) {
  if (ours.length !== theirs.length) return `${ours.length} vs ${theirs.length} entries`;
  const theirTime = new Map(theirs.map((r) => [r.p, r.t]));
  for (let i = 0; i < ours.length; i++) {
    const a = ours[i];
    const t = Date.parse(a.modifiedAt);
    const b = theirTime.get(a.path);
    if (b === undefined) return `${a.path} is not in find's output`;
    if (Math.abs(t - b) >= 1) return `${a.path}: ${a.modifiedAt} vs ${b} ms`;
    // Order: ours is by time, ties by path; find's `sort -rn` orders the times only.
    if (Math.abs(Date.parse(a.modifiedAt) - theirs[i].t) >= 1) return `#${i}: ${a.path} vs ${theirs[i].p}`;
  }
  return null;
}

async function measureTree(size) {
  const tree = ensureTree(join(DATA, `tree-${size}`), size, log).dir;
  const ours = await startSidecar(tree);
  const inline = await startSidecar(tree, ["--workers", "0"]);
  const idleHwm = ours.hwm();
  log(`${size} files: warming up`);
  await timeFind(tree, PAGE);
  await search(ours.client, firstPageArgs);
  await search(inline.client, firstPageArgs);

  const samples = { find: [], ours: [], inline: [] };
  let firstPage;
  let findPage;
  for (let round = 0; round < ROUNDS; round++) {
    const f = await timeFind(tree, PAGE);
    samples.find.push(f.ms);
    findPage = f.rows;
    const o = await search(ours.client, firstPageArgs);
    samples.ours.push(o.ms);
    firstPage = o.out;
    samples.inline.push((await search(inline.client, firstPageArgs)).ms);
  }
  const firstPageAgreement = agree(firstPage.matches, findPage);

  // Paging: 20 pages of 100 through the cursor, against find's first 2,000.
  const pagingSamples = [];
  const pagingFind = [];
  let paged = [];
  let pagingAgreement = null;
  for (let round = 0; round < Math.max(1, Math.ceil(ROUNDS / 3)); round++) {
    const f = await timeFind(tree, PAGE * PAGES);
    pagingFind.push(f.ms);
    const t0 = performance.now();
    paged = [];
    let cursor;
    for (let page = 0; page < PAGES; page++) {
      const { out } = await search(ours.client, { ...firstPageArgs, ...(cursor ? { cursor } : {}) });
      paged.push(...out.matches);
      cursor = out.nextCursor;
      if (!cursor) break;
    }
    pagingSamples.push(performance.now() - t0);
    pagingAgreement = agree(paged, f.rows);
  }
  const result = {
    size,
    scanned: firstPage.stats,
    find: median(samples.find),
    ours: median(samples.ours),
    inline: median(samples.inline),
    // Each round times find and ours back to back: the median of those paired ratios is steadier on a
    // machine whose load changes during the run than a ratio of medians.
    ratio: median(samples.ours.map((ms, i) => ms / samples.find[i])),
    inlineRatio: median(samples.inline.map((ms, i) => ms / samples.find[i])),
    pagingOurs: median(pagingSamples),
    pagingFind: median(pagingFind),
    firstPageAgreement,
    pagingAgreement,
    paged: paged.length,
    idleHwm,
    hwm: ours.hwm(),
    inlineHwm: inline.hwm(),
  };
  await ours.close();
  await inline.close();
  return result;
}

const when = new Date().toISOString().slice(0, 10);
const machineLine = machine();
await sh(`node '${join(ROOT, "bin/webmcp-hub.mjs")}' build >/dev/null 2>&1`);
const results = [];
for (const size of SIZES) results.push(await measureTree(size));

const rows = results.map((r) => [
  r.size.toLocaleString("en-US"),
  `${r.scanned.scannedFiles.toLocaleString("en-US")} / ${r.scanned.scannedDirectories.toLocaleString("en-US")}`,
  fmt(r.find),
  fmt(r.ours),
  `**${r.ratio.toFixed(2)}×**`,
  `${fmt(r.inline)} (${r.inlineRatio.toFixed(2)}×)`,
  r.firstPageAgreement ? `NO: ${r.firstPageAgreement}` : "yes",
  `${fmt(r.pagingOurs)} (${fmt(r.pagingOurs / PAGES)} a page)`,
  fmt(r.pagingFind),
  r.pagingAgreement ? `NO: ${r.pagingAgreement}` : `yes (${r.paged})`,
  `${r.idleHwm.toFixed(0)} → ${r.hwm.toFixed(0)}`,
  r.inlineHwm.toFixed(0),
]);
const header = [
  "files",
  "scanned files / dirs",
  "find+sort ms",
  "ours ms",
  "ours/find",
  "ours, 1 thread ms",
  "same 100 as find",
  "20 pages ms",
  "find top 2,000 ms",
  "same 2,000 as find",
  "peak RSS MB, idle → after",
  "peak RSS MB, 1 thread",
];
const lines = [];
const worst = Math.max(...results.map((r) => r.ratio));
const bySize = [...results].sort((a, b) => b.size - a.size);
const growth = bySize[0].hwm - bySize[bySize.length - 1].hwm;
const disagree = results.filter((r) => r.firstPageAgreement || r.pagingAgreement);
lines.push(
  `- First page against find+sort, worst tree: **${worst.toFixed(2)}×** (target ≤ ${TARGET_RATIO.toFixed(1)}×${worst <= TARGET_RATIO ? "" : ": **MISSED**"}).`,
);
lines.push(
  `- Peak RSS after all searches: ${bySize.map((r) => `${r.hwm.toFixed(0)} MB at ${r.size.toLocaleString("en-US")} files`).join(", ")}: ${growth > 0 ? `${growth.toFixed(0)} MB more` : "no more"} for ${(bySize[0].size / bySize[bySize.length - 1].size).toFixed(0)}× the files (target: independent of tree size, growth ≤ ${MEMORY_TOLERANCE_MB} MB${growth <= MEMORY_TOLERANCE_MB ? "" : ": **MISSED**"}).`,
);
if (disagree.length > 0)
  lines.push(`- Results differ from find: **MISSED** (${disagree.map((r) => r.size).join(", ")} files).`);
const text = [
  `Warm cache; times are medians of ${ROUNDS} rounds, each timing find, ours and ours on one thread back to back, and the ratios are the medians of each round's ratio; ms of wall time from the MCP client's \`callTool\` to its result (a sidecar process started once, \`node bin/webmcp-hub.mjs sidecar --root tree=…\`, 2 scan threads on this machine), and of the whole \`sh -c "find … | sort -rn | head"\` pipeline. Query: \`{timeField: "modified", from: "${FROM}", to: "${TO}", sort: "time_desc", limit: ${PAGE}}\` (≈8% of the files match); peer: \`find ROOT -newermt FROM ! -newermt TO -printf '%T@ %p\\n' | sort -rn | head -n ${PAGE}\`. "1 thread": the same sidecar with \`--workers 0\` (scans on its main thread in 12 ms slices). Paging: ${PAGES} calls of ${PAGE} following nextCursor (a scan keeps a look-ahead of 4 pages; the page after it is a new bounded scan from the keyset position), against \`head -n ${PAGE * PAGES}\`. Peak RSS: the sidecar's VmHWM when idle after start, and after all its searches.`,
  "",
  table(header, rows),
  "",
  ...lines,
].join("\n");
console.log(text);
await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "sidecar", {
  title: "sidecar — fs.search_by_time against GNU find",
  when,
  machine: machineLine,
  command: "node bench/run.mjs sidecar",
  text,
});
for (const line of lines) if (line.includes("MISSED")) console.log(line.replace(/\*\*/g, ""));

// Part 2: the glob attack (its own section of RESULTS.md).
await import("./glob-attack.mjs");
