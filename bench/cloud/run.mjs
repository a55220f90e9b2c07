// bench/cloud: a published tool run in the cloud, through the hub, against the same tool in a tab,
// in one run on one machine. The stack is the one `npm start` and the e2e tests run (scripts/lib/stack.mjs:
// the hub and its cloud runner in one `wrangler dev`, the runner's browser the system's Chromium through
// scripts/lib/browser-cache.mjs), on free ports, with fresh local state, plus 7 more copies of the demo site
// (each its own origin, so its own host and SiteRunner), all verified and published through the real API.
//   - cold: the first call of each of the 8 sites (no browser session yet: launch, context, page, load, call),
//     an MCP SDK client on `/mcp/sites/<host>`; target p95 ≤ 3 s on this machine;
//   - warm vs tab, interleaved call by call: get-dresses of the demo site through `/mcp/sites/<host>` (the
//     runner's session and page reused) against the same tool through a channel (its MCP URL and agent
//     token) whose only provider is a real Chromium tab of the demo's shop page, paired with /bridge.js's
//     `window.webmcpHub.pair(code)` as bench/extension pairs its bridge tab; target warm p50 ≤ 1.5× the tab's;
//   - 64 concurrent calls over the 8 sites through the hub: failures (none expected within the limits: 2
//     running and 16 waiting per site), then the runner's browsers (one per site) and their open pages (at
//     most 2 kept warm per site: CLOUD_SITE_CONCURRENCY) against the pool's size (no leak).
// Prints a table and refreshes the "cloud" section of bench/RESULTS.md. A missed target prints MISSED and
// still exits 0. The hub's rate limits (120 cloud requests a minute per client and per site) are raised with
// RATE_LIMIT_SCALE, as bench/bridge does: the bench measures the path, not the limiter.
//
//   BENCH_WARM   warm calls per path (default 200, after 20 warm-ups each)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { setMaxListeners } from "node:events";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startDemoSite } from "../../scripts/lib/demo-site.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { seedChannel, seedDemoSite } from "../../scripts/lib/seed.mjs";
import { startStack } from "../../scripts/lib/stack.mjs";
import { launchPlain } from "../extension/chromium.mjs";
import { machine, percentile, table, writeResultsSection } from "../registry/harness.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
const DATA = join(ROOT, "bench/.data/cloud");
const SITES = 8;
const WARM = Number(process.env.BENCH_WARM ?? 200);
const WARMUP = 20;
const BURST = 64;
const TARGET_RATIO = 1.5;
const TARGET_COLD_MS = 3000;
const TOOL = "get-dresses";
const ARGS = { size: 8 };
const EXPECTED = ["dress-001", "dress-004"];
const log = (line) => console.error(`[cloud] ${line}`);
const fmt = (ms) => ms.toFixed(0);
const fmt1 = (ms) => ms.toFixed(1);

/** An MCP SDK (v2) client on `url`, one session for the run (2025-11-25 era, the SDK's default). */
async function connect(url, headers) {
  const client = new Client({ name: "bench-cloud", version: "0.1.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      ...(headers && { requestInit: { headers } }),
      fetch: (input, init) => {
        if (init?.signal) setMaxListeners(0, init.signal);
        return fetch(input, init);
      },
    }),
  );
  return client;
}

/** One get-dresses call: its time, and whether it answered the page's real products. */
async function timedCall(client, name = TOOL) {
  const started = performance.now();
  let result;
  try {
    result = await client.callTool({ name, arguments: ARGS }, { timeout: 120_000 });
  } catch (e) {
    return { ms: performance.now() - started, ok: false, why: e instanceof Error ? e.message : String(e) };
  }
  const ms = performance.now() - started;
  const ids = (result.structuredContent?.products ?? []).map((p) => p.product_id);
  const ok = !result.isError && JSON.stringify(ids) === JSON.stringify(EXPECTED);
  return { ms, ok, why: ok ? "" : (result.content?.[0]?.text ?? JSON.stringify(result)).slice(0, 200) };
}

/** The runner's browsers still running (the browser-cache wrapper records each one's pid) and their pages. */
async function cloudBrowsers(cacheHome) {
  const found = [];
  const chrome = join(cacheHome, ".wrangler/chrome");
  for (const v of existsSync(chrome) ? readdirSync(chrome) : []) {
    const pids = join(chrome, v, "chrome-linux64/pids");
    for (const pid of existsSync(pids) ? readdirSync(pids) : []) {
      if (!existsSync(`/proc/${pid}`)) continue;
      // miniflare starts it with --remote-debugging-port=0 and a temporary --user-data-dir, where Chromium
      // writes the port it took (DevToolsActivePort); its /json/list names the open pages.
      let pages = null;
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
        const dir = args.find((a) => a.startsWith("--user-data-dir="))?.slice("--user-data-dir=".length);
        const port = readFileSync(join(dir, "DevToolsActivePort"), "utf8").split("\n")[0];
        const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
        pages = targets.filter((t) => t.type === "page" && t.url !== "about:blank").length;
      } catch {}
      found.push({ pid: Number(pid), pages });
    }
  }
  return found;
}

function stats(samples) {
  return { n: samples.length, p50: percentile(samples, 50), p95: percentile(samples, 95) };
}

const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();

rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });
const when = new Date().toISOString().slice(0, 10);
const host = machine();
const uptimeBefore = uptime();
const startLoad = loadavg()[0];
console.log(`uptime at the start: ${uptimeBefore}`);

const persistTo = join(DATA, "state");
const browserCache = join(DATA, "cloud-browser");
const wranglerLines = [];
log("starting the stack (hub + cloud runner in one wrangler dev, the demo site)…");
const stack = await startStack({
  port: await freePort(),
  demoPort: 0,
  persistTo,
  inspectorPort: await freePort(),
  browserCache,
  log,
  onWranglerLine: (line) => {
    wranglerLines.push(line);
    if (wranglerLines.length > 200) wranglerLines.shift();
  },
  vars: { RATE_LIMIT_SCALE: 1000 },
});
const hubUrl = stack.hub.url;
const cleanups = [() => stack.stop()];
let exitCode = 0;
try {
  // The other 7 sites: the same pages on origins of their own.
  const hosts = [stack.seeded.host];
  for (let i = 1; i < SITES; i++) {
    const demo = await startDemoSite({ port: 0 });
    cleanups.unshift(() => demo.close());
    hosts.push((await seedDemoSite({ hubUrl, demo })).host);
  }
  log(`hub on ${hubUrl}; sites ${hosts.join(", ")}`);
  const siteUrl = (h) => `${hubUrl}/mcp/sites/${encodeURIComponent(h)}`;
  const clients = [];
  for (const h of hosts) {
    const client = await connect(siteUrl(h));
    cleanups.unshift(() => client.close());
    clients.push(client);
  }

  // The tab path: a channel whose only provider is the demo's shop page in a plain Chromium.
  const channel = await seedChannel({ hubUrl, name: "cloud bench" });
  const browser = await launchPlain(DATA);
  cleanups.unshift(() => browser.close());
  const tab = await browser.context.newPage();
  await tab.goto(`${stack.demo.origin}/shop.html`);
  await tab.waitForFunction(() => window.webmcpHub !== undefined);
  await tab.evaluate((code) => window.webmcpHub.pair(code), channel.pairingCode);
  await tab.waitForFunction(() => window.webmcpHub.status === "connected");
  const agent = await connect(channel.mcpUrl, { authorization: `Bearer ${channel.agentToken}` });
  cleanups.unshift(() => agent.close());
  let tabTool;
  for (let i = 0; !tabTool; i++) {
    const { tools } = await agent.listTools();
    tabTool = tools.find((t) => t.name === TOOL || t.name.endsWith(`__${TOOL}`));
    if (!tabTool && i > 100) throw new Error(`the channel never listed ${TOOL}: ${tools.map((t) => t.name)}`);
    if (!tabTool) await new Promise((r) => setTimeout(r, 100));
  }
  const tabProvider = tabTool._meta?.["webmcp-hub/provider"];
  if (tabProvider?.kind === "cloud")
    throw new Error(`the channel's ${TOOL} runs in the cloud, not in the tab`);
  log(`tab path: ${tabTool.name} (provider ${JSON.stringify(tabProvider)})`);

  // Cold: the first call of each site, one after another.
  log(`${SITES} cold calls (one per site)`);
  const cold = [];
  for (const client of clients) {
    const r = await timedCall(client);
    if (!r.ok) throw new Error(`cold call failed: ${r.why}`);
    cold.push(r.ms);
  }

  // Warm cloud vs tab, interleaved call by call (alternating which goes first).
  log(`${WARMUP} warm-ups and ${WARM} calls per path, interleaved`);
  const warm = [];
  const inTab = [];
  const failed = { cloud: [], tab: [] };
  for (let i = 0; i < WARMUP + WARM; i++) {
    const order = i % 2 ? ["tab", "cloud"] : ["cloud", "tab"];
    for (const path of order) {
      const r = await timedCall(
        path === "cloud" ? clients[0] : agent,
        path === "cloud" ? TOOL : tabTool.name,
      );
      if (!r.ok) failed[path].push(r.why);
      else if (i >= WARMUP) (path === "cloud" ? warm : inTab).push(r.ms);
    }
  }
  if (failed.cloud.length || failed.tab.length)
    log(
      `failed calls: cloud ${failed.cloud.length}, tab ${failed.tab.length}: ${[...failed.cloud, ...failed.tab][0]}`,
    );

  // 64 concurrent over the 8 sites.
  log(`${BURST} concurrent calls over ${SITES} sites`);
  const started = performance.now();
  const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => timedCall(clients[i % SITES])));
  const burstMs = performance.now() - started;
  const burstFailures = burst.filter((r) => !r.ok).map((r) => r.why);
  await new Promise((r) => setTimeout(r, 1000)); // pages given back close asynchronously
  const browsers = await cloudBrowsers(browserCache);
  const pagesKnown = browsers.every((b) => b.pages !== null);
  const pages = browsers.reduce((n, b) => n + (b.pages ?? 0), 0);
  const maxPages = SITES * 2; // CLOUD_SITE_CONCURRENCY pages kept warm per site at most
  const uptimeAfter = uptime();

  const c = stats(cold);
  const w = stats(warm);
  const t = stats(inTab);
  const b = stats(burst.map((r) => r.ms));
  const ratio = w.p50 / t.p50;
  const loaded = Math.max(startLoad, loadavg()[0]) > cpus().length;
  const leak = browsers.length > SITES || (pagesKnown && pages > maxPages);
  const text = [
    table(
      ["call", "n", "p50 ms", "p95 ms"],
      [
        ["cold cloud, through the hub (new site: launch, page, call)", String(c.n), fmt(c.p50), fmt(c.p95)],
        ["warm cloud, through the hub (`/mcp/sites/<host>`)", String(w.n), fmt1(w.p50), fmt1(w.p95)],
        ["tab: a channel's /bridge.js tab (channel MCP URL)", String(t.n), fmt1(t.p50), fmt1(t.p95)],
        [`${BURST} concurrent over ${SITES} sites, through the hub`, String(b.n), fmt(b.p50), fmt(b.p95)],
      ],
    ),
    "",
    `- Warm cloud p50 / tab p50 = **${ratio.toFixed(2)}×**, ${fmt1(w.p50 - t.p50)} ms more a call (target ≤ ${TARGET_RATIO}×: ${ratio <= TARGET_RATIO ? "**MET**" : "**MISSED**"}); warm cloud p95 / tab p95 = ${(w.p95 / t.p95).toFixed(2)}×. Interleaved call by call after ${WARMUP} warm-ups a path; failed calls: cloud ${failed.cloud.length}, tab ${failed.tab.length}.`,
    `- Cold p95 **${fmt(c.p95)} ms** (target ≤ ${TARGET_COLD_MS.toLocaleString("en")} ms: ${c.p95 <= TARGET_COLD_MS ? "**MET**" : "**MISSED**"}).`,
    `- ${BURST} concurrent calls over ${SITES} sites in ${fmt(burstMs)} ms: ${burstFailures.length ? `**${burstFailures.length} failed** (${[...new Set(burstFailures)].join("; ")})` : "no failures"}; afterwards ${browsers.length} runner browsers for ${SITES} sites, ${pagesKnown ? `${pages} open pages (the pool keeps at most ${maxPages})` : "open pages unknown (no DevTools port found)"}: ${leak ? "**LEAK**" : "no leak (**MET**)"}.`,
    `- The machine: \`uptime\` ${uptimeBefore.replace(/.*load/, "load")} at the start, ${uptimeAfter.replace(/.*load/, "load")} at the end${loaded ? ` — loaded (more runnable work than its ${cpus().length} cores, e.g. another CI run): the figures are noisy; read the ratio, taken from interleaved calls, before the absolute times` : ""}.`,
  ].join("\n");
  console.log(`\n${text}\n`);
  await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "cloud", {
    title:
      "cloud — a published tool run in the cloud through the hub, against a tab: warm, cold, 64 concurrent",
    when,
    machine: host,
    command: "node bench/run.mjs cloud",
    text,
  });
} catch (e) {
  console.error(e);
  console.error(wranglerLines.slice(-30).join("\n"));
  exitCode = 1;
} finally {
  for (const cleanup of cleanups)
    await Promise.resolve()
      .then(cleanup)
      .catch(() => {});
}
process.exit(exitCode);
