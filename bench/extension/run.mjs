// bench/extension (issue 13): the browser extension, in one run on one machine.
//   1. One call's round trip, agent (MCP SDK client in Node) → hub (`wrangler dev`) → a Chromium tab → agent,
//      through the extension (a page with no script of ours, relayed by the extension's service worker)
//      against the same tool through /bridge.js (a page that embeds it, in a Chromium without the
//      extension), on ONE channel, interleaved call by call. Target: p50 ≤ 1.1× the bridge path.
//   2. The JS heap of the extension's service worker (CDP, after a full GC) with 0, 10 and 50 shared tabs of
//      a page with 5 tools, and again after the 50 closed.
// Prints the tables and refreshes the "extension" section of bench/RESULTS.md. A missed target is printed
// as MISSED; the bench still exits 0.
//
//   BENCH_CALLS   round trips per path (default 300, after 30 warm-ups each)
//   BENCH_TABS    the largest number of shared tabs for the memory table (default 50; the hub takes 64
//                 providers per channel)
//   BENCH_HOPS=1  also time each leg of a call (agent → page → agent) with a second, stamping tool
import { cp, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setMaxListeners } from "node:events";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { buildBundles } from "../../scripts/lib/bundles.mjs";
import { newPairingCode, seedChannel } from "../../scripts/lib/seed.mjs";
import {
  WRANGLER_ENV,
  buildWorker,
  machine,
  percentile,
  run,
  startWranglerDev,
  writeResultsSection,
} from "../registry/harness.mjs";
import { fmt, markdownTable } from "../relay/load.mjs";
import { launchPlain, launchWithExtension } from "./chromium.mjs";
import { TOOLS_PER_PAGE, startPages } from "./pages.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/extension");
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = 30;
const MAX_TABS = Math.min(60, Number(process.env.BENCH_TABS ?? 50));
const TARGET = 1.1;

const log = (line) => console.error(`[extension] ${line}`);
const kib = (bytes) => `${(bytes / 1024).toFixed(0)} KiB`;
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(2)} MiB`;

/** Polls `check` until it returns a truthy value (or throws with `what` after `timeoutMs`). */
async function until(check, what, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${typeof what === "function" ? what() : what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The agent: an MCP SDK client on the channel's capability URL (one session for the whole run). */
async function connectAgent(url) {
  const client = new Client({ name: "bench-extension-agent", version: "0.1.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      fetch: (input, init) => {
        if (init?.signal) setMaxListeners(0, init.signal); // one signal for every request of the session
        return fetch(input, init);
      },
    }),
  );
  return client;
}

/** The channel's tools as the agent lists them, with the origin of the provider of each. */
async function listed(agent) {
  const { tools } = await agent.listTools();
  return tools.map((t) => ({ name: t.name, origin: t._meta?.["webmcp-hub/provider"]?.origin }));
}

function summary(samples) {
  const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
  return {
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    mean,
    n: samples.length,
  };
}

/** A hub for this bench: the real Worker bundled once, its own assets (a copy of /bridge.js), fresh D1. */
async function startHub() {
  const assets = join(DATA, "assets");
  await rm(assets, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  await cp(join(ROOT, "web/assets/bridge.js"), join(assets, "bridge.js"));
  const built = await buildWorker({
    root: ROOT,
    config: join(HERE, "wrangler.toml"),
    outDir: join(DATA, "build"),
  });
  const persistTo = join(DATA, "state");
  await rm(persistTo, { recursive: true, force: true });
  await mkdir(persistTo, { recursive: true });
  await run(
    "npx",
    ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo, "-c", built],
    { cwd: ROOT, env: { ...process.env, ...WRANGLER_ENV } },
  );
  return startWranglerDev({ root: ROOT, config: built, persistTo, log });
}

async function main() {
  const when = new Date().toISOString().slice(0, 10);
  const host = machine();
  await mkdir(DATA, { recursive: true });

  // The bundles: /bridge.js and the extension, each copied so a rebuild elsewhere mid-run changes nothing.
  await buildBundles({ log: () => {} });
  const extensionDir = join(DATA, "extension-unpacked");
  await rm(extensionDir, { recursive: true, force: true });
  await cp(join(ROOT, "dist/extension"), extensionDir, { recursive: true });

  log("bundling the Worker and starting wrangler dev…");
  const hub = await startHub();
  const cleanups = [() => hub.stop()];
  try {
    const pages = await startPages({ hubUrl: hub.url, sites: MAX_TABS });
    cleanups.unshift(() => pages.close());
    const bridgeOrigin = `http://127.0.0.1:${pages.port}`;
    const extOrigin = `http://localhost:${pages.port}`;

    // One channel for both paths: the same hub, Durable Object, agent session and routing; only the
    // provider's side differs.
    const channel = await seedChannel({ hubUrl: hub.url, name: "extension bench" });
    const agent = await connectAgent(channel.mcpCapabilityUrl);
    cleanups.unshift(() => agent.close());

    // The /bridge.js path: a plain Chromium, the page pairs through window.webmcpHub.pair(code).
    const plain = await launchPlain(DATA);
    cleanups.unshift(() => plain.close());
    const bridgePage = await plain.context.newPage();
    await bridgePage.goto(`${bridgeOrigin}/bridge.html`);
    await bridgePage.waitForFunction(() => window.webmcpHub !== undefined);
    await bridgePage.evaluate((code) => window.webmcpHub.pair(code), channel.pairingCode);
    await bridgePage.waitForFunction(() => window.webmcpHub.status === "connected");

    // The extension's path: paired once, the site allowed, a page with no script of ours.
    log("launching Chromium with the extension and pairing it…");
    const ext = await launchWithExtension(DATA, extensionDir);
    cleanups.unshift(() => ext.close());
    const setHub = await ext.ui({ type: "ui:set-hub", url: hub.url });
    if (!setHub.ok) throw new Error(`ui:set-hub: ${JSON.stringify(setHub)}`);
    const code = await newPairingCode({
      hubUrl: hub.url,
      channelId: channel.channelId,
      ownerKey: channel.ownerKey,
    });
    const paired = await ext.ui({ type: "ui:pair", code });
    if (!paired.ok) throw new Error(`ui:pair: ${JSON.stringify(paired)}`);
    const allowed = await ext.ui({ type: "ui:site", origin: extOrigin, decision: "always" });
    if (!allowed.ok) throw new Error(`ui:site: ${JSON.stringify(allowed)}`);
    const extPage = await ext.context.newPage();
    await extPage.goto(`${extOrigin}/plain.html`);

    // Both `echo`s collide on the channel, so the hub names them by label; find each by its provider.
    const names = await until(async () => {
      const tools = await listed(agent);
      const bridge = tools.find((t) => t.origin === bridgeOrigin)?.name;
      const extension = tools.find((t) => t.origin === extOrigin)?.name;
      return bridge && extension && tools.length === 2 ? { bridge, extension } : null;
    }, "both echo tools on the channel");
    log(`tools: ${names.bridge} (bridge), ${names.extension} (extension)`);

    const once = async (name, i) => {
      const text = `call ${i}`;
      const t0 = performance.now();
      const result = await agent.callTool({ name, arguments: { text } });
      const ms = performance.now() - t0;
      if (result.isError || result.content?.[0]?.text !== text)
        throw new Error(`${name} answered ${JSON.stringify(result).slice(0, 300)}`);
      return ms;
    };
    const paths = ["bridge", "extension"];
    for (let i = 0; i < WARMUP; i++) for (const p of paths) await once(names[p], i);
    const latencies = { bridge: [], extension: [] };
    const started = performance.now();
    for (let i = 0; i < CALLS; i++) {
      // The order alternates, so neither path always follows the other.
      for (const p of i % 2 === 0 ? paths : [...paths].reverse())
        latencies[p].push(await once(names[p], i));
    }
    const roundSeconds = (performance.now() - started) / 1000;
    const b = summary(latencies.bridge);
    const e = summary(latencies.extension);
    const diffs = latencies.extension.map((ms, i) => ms - latencies.bridge[i]);
    const ratio = e.p50 / b.p50;
    const met = ratio <= TARGET;
    log(
      `p50 bridge ${fmt(b.p50)} ms, extension ${fmt(e.p50)} ms: ${ratio.toFixed(2)}× (${met ? "met" : "MISSED"})`,
    );

    // Memory: the extension's tab is closed, the bridge's browser too, so only the tools tabs count.
    await plain.close();
    await extPage.close();
    await until(async () => (await listed(agent)).length === 0, "the echo tools withdrawn");
    await until(async () => (await ext.connections()).length === 0, "the extension's sockets closed");

    const sw = await ext.serviceWorker();
    cleanups.unshift(() => sw.close());
    /** Three readings after a full GC each; their median. */
    const heap = async () => {
      const readings = [];
      for (let i = 0; i < 3; i++) readings.push(await sw.heap());
      readings.sort((x, y) => x.used - y.used);
      return readings[1];
    };
    const memory = [];
    memory.push({ tabs: 0, label: "0 shared tabs (paired, after the round trips)", ...(await heap()) });
    const tabs = [];
    for (const target of [10, MAX_TABS]) {
      while (tabs.length < target) {
        // A site of its own per tab (see pages.mjs), allowed as the user would.
        const origin = `http://localhost:${pages.sitePorts[tabs.length]}`;
        const allowedSite = await ext.ui({ type: "ui:site", origin, decision: "always" });
        if (!allowedSite.ok) throw new Error(`ui:site ${origin}: ${JSON.stringify(allowedSite)}`);
        const page = await ext.context.newPage();
        await page.goto(`${origin}/tools.html`);
        tabs.push(page);
      }
      let count = 0;
      let sockets;
      await until(
        async () => (count = (await listed(agent)).length) === target * TOOLS_PER_PAGE,
        () =>
          `${target * TOOLS_PER_PAGE} tools of ${target} tabs listed (the agent lists ${count})`,
        60_000,
      ).catch(async (e) => {
        sockets = await ext.connections();
        throw new Error(`${e.message}; the extension's sockets: ${JSON.stringify(sockets)}`);
      });
      sockets = await ext.connections();
      if (sockets.length !== target || sockets.some((s) => s !== "connected"))
        throw new Error(`expected ${target} connected tab sockets, the extension has ${sockets.join(", ")}`);
      memory.push({
        tabs: target,
        label: `${target} shared tabs, ${target * TOOLS_PER_PAGE} tools listed by the agent`,
        ...(await heap()),
      });
      log(`${target} tabs: ${mib(memory.at(-1).used)} used`);
    }
    for (const page of tabs.splice(0)) await page.close();
    await until(async () => (await listed(agent)).length === 0, "the tools withdrawn");
    await until(async () => (await ext.connections()).length === 0, "the tab sockets closed");
    memory.push({ tabs: 0, label: `0 again (the ${MAX_TABS} tabs closed)`, ...(await heap()) });

    // Tables.
    const rtTable = markdownTable(
      ["path", "p50 ms", "p95 ms", "p99 ms", "mean ms", "calls"],
      [
        ["`/bridge.js` tab (plain Chromium)", fmt(b.p50), fmt(b.p95), fmt(b.p99), fmt(b.mean), b.n],
        ["extension-relayed tab", fmt(e.p50), fmt(e.p95), fmt(e.p99), fmt(e.mean), e.n],
        [
          "**extension ÷ bridge**",
          `**${ratio.toFixed(2)}×**`,
          `${(e.p95 / b.p95).toFixed(2)}×`,
          `${(e.p99 / b.p99).toFixed(2)}×`,
          `${(e.mean / b.mean).toFixed(2)}×`,
          "",
        ],
      ],
    );
    const base = memory[0].used;
    const memTable = markdownTable(
      ["service worker", "JS heap used", "JS heap allocated", "used − 0 tabs", "per tab"],
      memory.map((m) => [
        m.label,
        mib(m.used),
        mib(m.total),
        m.tabs > 0 || m !== memory[0] ? kib(m.used - base) : "",
        m.tabs > 0 ? kib((m.used - base) / m.tabs) : "",
      ]),
    );
    const verdict = met ? "met" : "**MISSED**";
    const text = [
      `One call's round trip, agent → hub → tab → agent: an MCP SDK client in Node on the channel's MCP URL (\`wrangler dev\` of the real Worker, bundled once; local D1 and Durable Object) calls \`echo\` (read-only, \`{content: [{type: "text", text}]}\`, registered with \`document.modelContext\`) in two tabs of the same page server on two origins, both paired with ONE channel, so the hub, the Durable Object, the agent's session and the routing are the same and only the provider's side differs:`,
      "",
      `- **\`/bridge.js\` tab**: \`${bridgeOrigin}/bridge.html\` embeds the hub's \`/bridge.js\` and pairs with \`window.webmcpHub.pair(code)\`, in a Chromium without the extension (which would take the page over). The tab's own WebSocket carries the call.`,
      `- **extension-relayed tab**: \`${extOrigin}/plain.html\`, no script of ours, in a Chromium with the unpacked extension, paired once and the site allowed ("always"). The call goes hub → the service worker's WebSocket for that tab → the tab's ISOLATED-world script (a \`chrome.runtime\` Port) → the MAIN-world script (a \`MessagePort\`) → \`execute\`, and back the same way.`,
      "",
      `Both tools are named \`echo\`, so the hub lists them by label (\`${names.bridge}\`, \`${names.extension}\`). Both Chromiums: Debian's \`chromium\`, \`--headless=new\`. ${CALLS} calls a path, sequential, interleaved call by call (the order alternates), after ${WARMUP} warm-ups each; ${roundSeconds.toFixed(1)} s in all.`,
      "",
      rtTable,
      "",
      `- Extension p50 against the bridge's: **${ratio.toFixed(2)}×** (target ≤ ${TARGET}×: ${verdict}); ${e.p50 >= b.p50 ? "+" : "−"}${fmt(Math.abs(e.p50 - b.p50))} ms. Median of the per-round differences (extension − bridge, same round): ${fmt(percentile(diffs, 50))} ms.`,
      "",
      `The extension's service worker, JS heap of its isolate after a full GC (CDP \`HeapProfiler.collectGarbage\`, then \`Runtime.getHeapUsage\`; the median of three readings), with tabs of a page that registers ${TOOLS_PER_PAGE} tools (\`/tools.html\`), each tab a site of its own (\`http://localhost:<port>\`, so the hub does not merge their tools), all allowed ("always") and relayed, each its own WebSocket to the hub; the agent listed every tool before each reading.`,
      "",
      memTable,
    ].join("\n");
    console.log(`\n${text}\n`);
    console.log(
      met
        ? `p50 target (≤ ${TARGET}× the bridge path): met (${ratio.toFixed(2)}×)`
        : `p50 target (≤ ${TARGET}× the bridge path): MISSED (${ratio.toFixed(2)}×)`,
    );
    await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "extension", {
      title: "extension — a call through an extension-relayed tab against a /bridge.js tab; the service worker's memory",
      when,
      machine: host,
      command: "node bench/run.mjs extension",
      text,
    });
    log("bench/RESULTS.md updated (extension section)");
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

main().catch((e) => {
  console.error(`bench/extension failed: ${e instanceof Error ? e.stack : String(e)}`);
  process.exit(1);
});
