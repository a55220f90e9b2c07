// bench/extension: the browser extension, in one run on one machine.
//   1. One call's round trip, agent (MCP SDK client in Node) → hub (`wrangler dev`) → a Chromium tab → agent,
//      through the extension (a page with no script of ours, relayed by the extension's service worker)
//      against the same tool through /bridge.js (a page that embeds it, in a Chromium without the
//      extension), on ONE channel, interleaved call by call. Target: p50 ≤ 1.1× the bridge path.
//   1b. Where the time goes: the legs of each path's calls, from stamps (hops.mjs).
//   2. The JS heap of the extension's service worker (CDP, after a full GC) with 0, 10 and 50 shared tabs of
//      a page with 5 tools, and again after the 50 closed.
// Prints the tables and refreshes the "extension" section of bench/RESULTS.md. A missed target is printed
// as MISSED; the bench still exits 0.
//
//   BENCH_CALLS   round trips per path (default 300, after 30 warm-ups each)
//   BENCH_TABS    the largest number of shared tabs for the memory table (default 50; the hub takes 64
//                 providers per channel)
//   BENCH_HOP_CALLS  calls a path for the legs table (default 100): a second tool, `echo_timed`, stamped
//                 where the provider's socket reads the call and sends the result, and in the page
import { cp, mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setMaxListeners } from "node:events";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
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
import {
  installIsolatedWorldStamps,
  installMainWorldStamps,
  isolatedWorld,
  pageRealm,
  serviceWorkerRealm,
  takeIsolatedWorldStamps,
  takeMainWorldStamps,
} from "./hops.mjs";
import { TOOLS_PER_PAGE, startPages } from "./pages.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/extension");
const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const WARMUP = 30;
const HOP_CALLS = Number(process.env.BENCH_HOP_CALLS ?? 100);
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

/**
 * The agent: an MCP SDK (v2) client on the channel's capability URL, in the 2025-11-25 era (the SDK's
 * default, as real clients connect today; one session for the whole run).
 */
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

/**
 * A hub for this bench: the real Worker bundled once, its own assets (copies of /bridge.js and the files it
 * loads when a page pairs, /bridge-relay.js and /bridge-ui.js), fresh D1.
 */
async function startHub() {
  const assets = join(DATA, "assets");
  await rm(assets, { recursive: true, force: true });
  await mkdir(assets, { recursive: true });
  for (const file of ["bridge.js", "bridge-relay.js", "bridge-ui.js"])
    await cp(join(ROOT, "web/assets", file), join(assets, file));
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

    // Both tabs are the visible one of their window (a hidden tab's renderer runs its tasks at a lower
    // priority, which would not be the path's own cost).
    for (const page of [bridgePage, extPage]) {
      const visibility = await page.evaluate(() => document.visibilityState);
      if (visibility !== "visible") log(`warning: ${page.url()} is ${visibility}`);
    }

    // Both pages' tools collide on the channel, so the hub names them by label; find each by its provider.
    const names = await until(async () => {
      const tools = await listed(agent);
      const find = (origin, tool) =>
        tools.find((t) => t.origin === origin && t.name.endsWith(`__${tool}`))?.name;
      const found = {
        bridge: find(bridgeOrigin, "echo"),
        extension: find(extOrigin, "echo"),
        bridgeTimed: find(bridgeOrigin, "echo_timed"),
        extensionTimed: find(extOrigin, "echo_timed"),
      };
      return tools.length === 4 && Object.values(found).every(Boolean) ? found : null;
    }, "both pages' tools on the channel");
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
      for (const p of i % 2 === 0 ? paths : [...paths].reverse()) latencies[p].push(await once(names[p], i));
    }
    const roundSeconds = (performance.now() - started) / 1000;
    const b = summary(latencies.bridge);
    const e = summary(latencies.extension);
    const diffs = latencies.extension.map((ms, i) => ms - latencies.bridge[i]);
    const ratio = e.p50 / b.p50;
    const met = ratio <= TARGET;
    log(
      `p50 bridge ${fmt(b.p50)} ms, extension ${fmt(e.p50)} ms: ${ratio.toFixed(3)}× (${met ? "met" : "MISSED"})`,
    );

    // Where the time goes: the same round trips with `echo_timed`, stamped on the provider's side of the
    // hub's WebSocket (hops.mjs) and in the page when the tool runs.
    const sw = await ext.serviceWorker();
    cleanups.unshift(() => sw.close());
    const realms = { bridge: pageRealm(bridgePage), extension: serviceWorkerRealm(sw) };
    for (const realm of Object.values(realms)) await realm.install();
    // The extension's tab connects its Port again, now stamped; the hub lists its tools again.
    await extPage.reload();
    const timedNames = await until(async () => {
      const tools = await listed(agent);
      const find = (origin) =>
        tools.find((t) => t.origin === origin && t.name.endsWith("__echo_timed"))?.name;
      const found = { bridge: find(bridgeOrigin), extension: find(extOrigin) };
      return tools.length === 4 && found.bridge && found.extension ? found : null;
    }, "the reloaded tab's tools on the channel");
    await extPage.evaluate(installMainWorldStamps);
    const isolated = await isolatedWorld(ext.context, extPage, ext.extensionId);
    cleanups.unshift(() => isolated.close());
    await isolated.evaluate(installIsolatedWorldStamps);
    const timed = { bridge: [], extension: [] };
    const wall = () => performance.timeOrigin + performance.now();
    const stamped = async (p, i) => {
      const text = `timed ${i}`;
      const t0 = wall();
      const result = await agent.callTool({ name: timedNames[p], arguments: { text } });
      const t1 = wall();
      const answer = JSON.parse(result.content?.[0]?.text ?? "{}");
      if (result.isError || answer.text !== text)
        throw new Error(`${timedNames[p]} answered ${JSON.stringify(result).slice(0, 300)}`);
      const [hop] = await realms[p].take();
      if (!hop?.sent || (p === "extension" && !(hop.posted && hop.back)))
        throw new Error(`missing stamps from the ${p} path: ${JSON.stringify(hop)}`);
      if (p === "extension") {
        const [main] = JSON.parse(await extPage.evaluate(takeMainWorldStamps));
        if (main?.id !== hop.id) throw new Error(`no MAIN-world stamp for ${hop.id}`);
        hop.mainRecv = main.at;
        const [forwarded] = JSON.parse(await isolated.evaluate(takeIsolatedWorldStamps));
        if (forwarded?.id !== hop.id) throw new Error(`no ISOLATED-world stamp for ${hop.id}`);
        hop.isolatedForward = forwarded.at;
      }
      timed[p].push({ ...hop, t0, at: answer.at, t1 });
    };
    for (let i = 0; i < 10; i++) for (const p of paths) await stamped(p, i);
    timed.bridge.length = timed.extension.length = 0;
    for (let i = 0; i < HOP_CALLS; i++)
      for (const p of i % 2 === 0 ? paths : [...paths].reverse()) await stamped(p, i);
    const legs = (p) => {
      const med = (f) => percentile(timed[p].map(f), 50);
      return {
        total: med((s) => s.t1 - s.t0),
        outside: med((s) => s.t1 - s.t0 - (s.sent - s.recv)),
        inside: med((s) => s.sent - s.recv),
        down: med((s) => s.at - s.recv),
        up: med((s) => s.sent - s.at),
        swToPort: p === "extension" ? med((s) => s.posted - s.recv) : undefined,
        portToPage: p === "extension" ? med((s) => s.at - s.posted) : undefined,
        portToMain: p === "extension" ? med((s) => s.mainRecv - s.posted) : undefined,
        portToIsolated: p === "extension" ? med((s) => s.isolatedForward - s.posted) : undefined,
        isolatedToMain: p === "extension" ? med((s) => s.mainRecv - s.isolatedForward) : undefined,
        mainToRun: p === "extension" ? med((s) => s.at - s.mainRecv) : undefined,
        pageToPort: p === "extension" ? med((s) => s.back - s.at) : undefined,
        portToSocket: p === "extension" ? med((s) => s.sent - s.back) : undefined,
        agentToSocket: med((s) => s.recv - s.t0),
        socketToAgent: med((s) => s.t1 - s.sent),
      };
    };
    const hops = { bridge: legs("bridge"), extension: legs("extension") };
    log(
      `legs p50: provider side bridge ${fmt(hops.bridge.inside)} ms, extension ${fmt(hops.extension.inside)} ms; hub and network bridge ${fmt(hops.bridge.outside)} ms, extension ${fmt(hops.extension.outside)} ms`,
    );

    // Memory: the extension's tab is closed, the bridge's browser too, so only the tools tabs count.
    await plain.close();
    await extPage.close();
    await until(async () => (await listed(agent)).length === 0, "the echo tools withdrawn");
    await until(async () => (await ext.connections()).length === 0, "the extension's sockets closed");

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
    /** Opens shared tabs up to `target` (each a site of its own, see pages.mjs, allowed as a user would). */
    const openTabs = async (target) => {
      while (tabs.length < target) {
        const origin = `http://localhost:${pages.sitePorts[tabs.length]}`;
        const allowedSite = await ext.ui({ type: "ui:site", origin, decision: "always" });
        if (!allowedSite.ok) throw new Error(`ui:site ${origin}: ${JSON.stringify(allowedSite)}`);
        const page = await ext.context.newPage();
        await page.goto(`${origin}/tools.html`);
        tabs.push(page);
      }
      let count = 0;
      await until(
        async () => (count = (await listed(agent)).length) === target * TOOLS_PER_PAGE,
        () => `${target * TOOLS_PER_PAGE} tools of ${target} tabs listed (the agent lists ${count})`,
        60_000,
      );
      const sockets = await ext.connections();
      if (sockets.length !== target || sockets.some((c) => c !== "connected"))
        throw new Error(`expected ${target} connected tab sockets, the extension has ${sockets.join(", ")}`);
    };
    const closeTabs = async () => {
      for (const page of tabs.splice(0)) await page.close();
      await until(async () => (await listed(agent)).length === 0, "the tools withdrawn");
      await until(async () => (await ext.connections()).length === 0, "the tab sockets closed");
    };
    for (const target of [10, MAX_TABS]) {
      await openTabs(target);
      memory.push({
        tabs: target,
        label: `${target} shared tabs, ${target * TOOLS_PER_PAGE} tools listed by the agent`,
        ...(await heap()),
      });
      log(`${target} tabs: ${mib(memory.at(-1).used)} used`);
    }
    await closeTabs();
    memory.push({ tabs: 0, label: `0 again (the ${MAX_TABS} tabs closed)`, ...(await heap()) });
    // A second round of the same tabs: what stays after the first is either kept for good (compiled code,
    // the 50 sites' decisions) or grows with every round (a leak).
    await openTabs(MAX_TABS);
    await closeTabs();
    memory.push({
      tabs: 0,
      label: `0 again (${MAX_TABS} more opened, relayed and closed)`,
      ...(await heap()),
    });

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
    const hopRow = (label, key, note = "") => {
      const [b, e] = [hops.bridge[key], hops.extension[key]];
      const diff = b === undefined ? "" : `${e - b >= 0 ? "+" : "−"}${fmt(Math.abs(e - b))}`;
      return [label, b === undefined ? "" : fmt(b), fmt(e), diff, note];
    };
    const hopTable = markdownTable(
      ["leg (p50)", "bridge", "extension", "extension − bridge", "clocks"],
      [
        hopRow("whole call (agent's clock)", "total", "Node"),
        hopRow(
          "hub and network: agent → hub → socket, socket → hub → agent",
          "outside",
          "Node; the socket's realm",
        ),
        hopRow("provider side: call frame parsed → result frame sent", "inside", "the socket's realm"),
        hopRow("… call frame parsed → the tool runs in the page", "down", "socket's realm → page"),
        hopRow("… the tool ran → result frame sent", "up", "page → socket's realm"),
        hopRow("extension: call frame parsed → posted on the tab's Port", "swToPort", "service worker"),
        hopRow(
          "extension: posted → the tool runs (browser process, ISOLATED world, MessagePort, MAIN world)",
          "portToPage",
          "service worker → page",
        ),
        hopRow(
          "… posted → the MAIN-world script reads it off its MessagePort",
          "portToMain",
          "service worker → page",
        ),
        hopRow(
          "… … posted → the ISOLATED-world script forwards it (browser process, extension messaging)",
          "portToIsolated",
          "service worker → page",
        ),
        hopRow("… … forwarded → the MAIN world reads it (MessagePort)", "isolatedToMain", "page"),
        hopRow("… read → the tool runs (registry, input checked)", "mainToRun", "page"),
        hopRow(
          "extension: the tool ran → result on the service worker's Port (MAIN, ISOLATED, browser process)",
          "pageToPort",
          "page → service worker",
        ),
        hopRow("extension: result on the Port → result frame sent", "portToSocket", "service worker"),
        hopRow("agent sends → call frame parsed", "agentToSocket", "Node → socket's realm"),
        hopRow("result frame sent → agent has it", "socketToAgent", "socket's realm → Node"),
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
      `- Extension p50 against the bridge's: **${ratio.toFixed(3)}×** (target ≤ ${TARGET}×: ${verdict}); ${e.p50 >= b.p50 ? "+" : "−"}${fmt(Math.abs(e.p50 - b.p50))} ms. Median of the per-round differences (extension − bridge, same round): ${fmt(percentile(diffs, 50))} ms.`,
      "",
      `Where the time goes: ${HOP_CALLS} more calls a path, interleaved, to \`echo_timed\` (the same tool, answering with the page's clock when it ran), stamped where the provider's end of the hub's WebSocket parses the \`call\` frame and sends the \`result\` frame (JSON.parse and WebSocket.prototype.send wrapped, after the timed calls above, in the bridge page's main world and, over CDP, in the service worker; \`bench/extension/hops.mjs\`). p50 of each leg, ms; "hub and network" is the whole call less the provider's side, the same clock at each end.`,
      "",
      hopTable,
      "",
      `The extension's service worker, JS heap of its isolate after a full GC (CDP \`HeapProfiler.collectGarbage\`, then \`Runtime.getHeapUsage\`; the median of three readings), with tabs of a page that registers ${TOOLS_PER_PAGE} tools (\`/tools.html\`), each tab a site of its own (\`http://localhost:<port>\`, so the hub does not merge their tools), all allowed ("always") and relayed, each its own WebSocket to the hub; the agent listed every tool before each reading.`,
      "",
      memTable,
    ].join("\n");
    console.log(`\n${text}\n`);
    console.log(
      met
        ? `p50 target (≤ ${TARGET}× the bridge path): met (${ratio.toFixed(3)}×)`
        : `p50 target (≤ ${TARGET}× the bridge path): MISSED (${ratio.toFixed(3)}×)`,
    );
    await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "extension", {
      title:
        "extension — a call through an extension-relayed tab against a /bridge.js tab; the service worker's memory",
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
