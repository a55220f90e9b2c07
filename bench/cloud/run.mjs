// bench/cloud: the cloud runner (wrangler.cloud.toml) alone under `wrangler dev`, with the system's Chromium
// as its browser (scripts/lib/browser-cache.mjs), calling the demo site's read-only get-dresses on its page:
//   - cold: the first call of a site (no browser session yet: launch, context, page, load, call), p50 / p95,
//     target p95 ≤ 3 s on this machine;
//   - warm: later calls of one site (session and page reused), p50 / p95;
//   - 64 concurrent calls over 8 sites: failures (none expected within the limits: 2 running and 16 waiting
//     per site), and the browsers running afterwards (one per site: the pool's size, no leak).
// The issue's peer, the same tool through the extension's tab path (warm p50 ≤ 1.5× it), needs the hub's
// cloud endpoint; until the hub calls the runner it is not measured here (see RESULTS.md's note).
// Prints a table and refreshes the "cloud" section of bench/RESULTS.md.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import canonicalize from "canonicalize";
import { prepareBrowserCache } from "../../scripts/lib/browser-cache.mjs";
import { buildCaptureScript } from "../../scripts/lib/capture-script.mjs";
import { startDemoSite } from "../../scripts/lib/demo-site.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { startProcess } from "../../scripts/lib/processes.mjs";
import { machine, percentile, table, writeResultsSection } from "../registry/harness.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA = join(ROOT, "bench/.data/cloud");
const COLD = Number(process.env.BENCH_COLD ?? 8);
const WARM = Number(process.env.BENCH_WARM ?? 60);
const log = (line) => console.log(`• ${line}`);
const fmt = (ms) => ms.toFixed(0);

/** The published digest of a manifest tool (src/protocol/digest.ts: RFC 8785 JSON of the covered members). */
function digestOf(tool) {
  const def = { name: tool.name, description: tool.description };
  if (tool.title !== undefined) def.title = tool.title;
  def.inputSchema = tool.inputSchema ?? { type: "object", properties: {} };
  if (tool.outputSchema !== undefined) def.outputSchema = tool.outputSchema;
  if (tool.annotations && Object.keys(tool.annotations).length) def.annotations = tool.annotations;
  return createHash("sha256").update(canonicalize(def)).digest("hex");
}

/** Browsers started from the cache that are still running (the wrapper records each one's pid). */
function runningBrowsers(cacheHome) {
  let n = 0;
  const chrome = join(cacheHome, ".wrangler/chrome");
  for (const v of existsSync(chrome) ? readdirSync(chrome) : []) {
    const pids = join(chrome, v, "chrome-linux64/pids");
    for (const pid of existsSync(pids) ? readdirSync(pids) : []) if (existsSync(`/proc/${pid}`)) n++;
  }
  return n;
}

rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });
await buildCaptureScript({ log });
const cache = prepareBrowserCache({ cacheHome: join(DATA, "cache") });
const demo = await startDemoSite({ port: 0 });
const tool = (await demo.manifest()).tools.find((t) => t.name === "get-dresses");
const port = await freePort();
const output = [];
const runner = startProcess(
  process.execPath,
  [
    join(ROOT, "node_modules/wrangler/bin/wrangler.js"),
    "dev",
    "-c",
    "wrangler.cloud.toml",
    "--ip",
    "127.0.0.1",
    "--port",
    String(port),
    "--inspector-port",
    String(await freePort()),
    "--show-interactive-dev-session=false",
    "--persist-to",
    join(DATA, "state"),
  ],
  {
    cwd: ROOT,
    env: {
      ...process.env,
      ...cache.env,
      CLOUDFLARE_CF_FETCH_ENABLED: "false",
      WRANGLER_SEND_METRICS: "false",
    },
    onLine: (line) => output.push(line),
  },
);
const url = `http://127.0.0.1:${port}`;
const call = async (site) => {
  const started = performance.now();
  const res = await fetch(`${url}/run`, {
    method: "POST",
    body: JSON.stringify({
      site,
      origin: demo.origin,
      page: `${demo.origin}/shop.html`,
      tool: tool.name,
      arguments: { color: "blue" },
      digest: digestOf(tool),
      timeoutMs: 60_000,
      via: "public",
    }),
  });
  const body = await res.json();
  return { ms: performance.now() - started, body };
};

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/stats?site=x`)).ok) break;
    } catch {}
    if (i > 240) throw new Error(`wrangler dev did not start:\n${output.slice(-30).join("\n")}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  log(`runner up on ${url}; ${COLD} cold calls (one per site), then ${WARM} warm calls`);
  const cold = [];
  for (let i = 0; i < COLD; i++) {
    const { ms, body } = await call(`site-${i}.bench`);
    if (!body.ok) throw new Error(`cold call failed: ${JSON.stringify(body)}`);
    cold.push(ms);
  }
  const warm = [];
  for (let i = 0; i < WARM; i++) {
    const { ms, body } = await call("site-0.bench");
    if (!body.ok || !body.warm) throw new Error(`warm call not ok and warm: ${JSON.stringify(body)}`);
    warm.push(ms);
  }
  log("64 concurrent calls over 8 sites");
  const started = performance.now();
  const burst = await Promise.all(Array.from({ length: 64 }, (_, i) => call(`site-${i % 8}.bench`)));
  const burstMs = performance.now() - started;
  const failures = burst.filter((r) => !r.body.ok).map((r) => r.body.failure);
  const browsers = runningBrowsers(cache.cacheHome);

  const row = (name, samples) => [
    name,
    String(samples.length),
    fmt(percentile(samples, 50)),
    fmt(percentile(samples, 95)),
  ];
  const coldP95 = percentile(cold, 95);
  const text = [
    table(
      ["call", "n", "p50 ms", "p95 ms"],
      [
        row("cold (new site: launch, page, call)", cold),
        row("warm (session and page reused)", warm),
        row(
          "64 concurrent over 8 sites",
          burst.map((r) => r.ms),
        ),
      ],
    ),
    "",
    `- Cold p95 **${fmt(coldP95)} ms** (target ≤ 3,000 ms: ${coldP95 <= 3000 ? "met" : "**MISSED**"}); warm p50 **${fmt(percentile(warm, 50))} ms**, ${(percentile(cold, 50) / percentile(warm, 50)).toFixed(0)}× faster than cold.`,
    `- 64 concurrent calls over 8 sites in ${fmt(burstMs)} ms: ${failures.length ? `**${failures.length} failed** (${failures.join(", ")})` : "no failures"}; afterwards ${browsers} browsers running for ${COLD} sites (${browsers <= COLD ? "no leak" : "**LEAK**"}).`,
    "- Not measured yet: the issue's peer, the same tool through the extension's tab path (warm p50 ≤ 1.5× it). The runner here is called directly, without the hub in front; once the hub's `/mcp/sites/<host>` calls it, the bench should call both through the hub.",
  ].join("\n");
  console.log(`\n${text}\n`);
  await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "cloud", {
    title: "cloud — a published tool run in the runner's browser: cold, warm, 64 concurrent",
    when: new Date().toISOString().slice(0, 10),
    machine: machine(),
    command: "node bench/run.mjs cloud",
    text,
  });
} finally {
  await runner.stop();
  cache.cleanup();
  await demo.close();
}
