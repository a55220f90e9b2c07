// bench/bridge: the browser bridge, in one run on one machine.
//   1. /bridge.js: raw and gzipped size (target ≤ 15 KiB gzipped), /bridge-ui.js (the widget's face and the
//      approval dialog, which /bridge.js imports from the hub only when one is shown) and /bridge-relay.js (the
//      relay, imported only when the page is paired or pairs); neither in the target.
//   2. Registering 1,000 tools in a real Chromium page: the seed-era navigator.modelContext.registerTool,
//      today's document.modelContext.registerTool, and, in a paired page, until the bridge has sent the hub
//      its tools frame; the peer is the floor any registry pays: the same 1,000 objects put in a Map.
//   4. getTools() in a top page whose 10 iframes (5 of its origin, 5 of another, allow="tools *") hold 100
//      tools each, plus 100 of its own: the frames protocol's cache (src/bridge/frames.ts); target ≤ 20 ms p50.
//   3. One call's round trip, agent (MCP SDK client in Node) → hub (`wrangler dev`) → a real Chromium tab
//      → agent, against the same call to a Node provider (`ws`, test/support/conformance-provider.mjs) on
//      the same channel, interleaved, sequential.
// Prints the tables and refreshes the "bridge" section of bench/RESULTS.md.
//
//   BENCH_CALLS    round trips per provider (default 200, after 20 warm-ups each)
//   BENCH_REPEATS  registration repeats, each in a freshly loaded page (default 5)
//   BENCH_FRAME_CALLS  getTools() calls per frames page (default 50, after 5 warm-ups; BENCH_REPEATS pages)
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { mkdir, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { buildBundles } from "../../scripts/lib/bundles.mjs";
import { requireChromium } from "../../scripts/lib/chromium.mjs";
import { freePort } from "../../scripts/lib/ports.mjs";
import { newPairingCode, seedChannel } from "../../scripts/lib/seed.mjs";
import { startStack } from "../../scripts/lib/stack.mjs";
import { startProcess } from "../../scripts/lib/processes.mjs";
import { pairSidecar, waitForTools } from "../../test/support/conformance-provider.mjs";
import { machine, table, writeResultsSection } from "../registry/harness.mjs";
import { connectClient } from "../relay/load.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/bridge");
const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const WARMUP = 20;
const REPEATS = Number(process.env.BENCH_REPEATS ?? 5);
const TOOLS = 1000;
const TARGET_GZIP = 15 * 1024;
const FRAME_CALLS = Number(process.env.BENCH_FRAME_CALLS ?? 50);
const FRAMES = 10;
const FRAME_TOOLS = 100;
const TARGET_FRAMES_P50 = 20;

const log = (line) => console.error(`[bridge] ${line}`);

const chromiumPath = () => requireChromium("bench/bridge");

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const median = (xs) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;

function summary(latencies) {
  const sorted = [...latencies].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  return { p50: percentile(sorted, 50), p95: percentile(sorted, 95), mean, n: sorted.length };
}

/** bench/relay/echo-provider.mjs (`echo` over `ws`, paired as a sidecar) in its own process, once welcomed. */
function startNodeProvider({ relayUrl, providerToken }) {
  return new Promise((resolve, reject) => {
    const output = [];
    const proc = startProcess(
      process.execPath,
      [join(ROOT, "bench/relay/echo-provider.mjs"), JSON.stringify({ relayUrl, providerToken })],
      {
        cwd: ROOT,
        onLine: (line, stream) => {
          output.push(line);
          if (stream === "stdout" && line.startsWith("{")) resolve(proc);
        },
      },
    );
    proc.exited.then((exit) =>
      reject(new Error(`echo-provider exited (${exit.code}):\n${output.join("\n")}`)),
    );
  });
}

/** Runs in the page: `count` tools registered one way; resolves with the milliseconds it took. */
async function registerInPage(page, how, count) {
  return page.evaluate(
    async ([how, count]) => {
      const tool = (i) => ({
        name: `bench_tool_${i}`,
        description: `Bench tool number ${i}: echoes its text.`,
        inputSchema: {
          type: "object",
          properties: { text: { type: "string", description: "What to echo" } },
          required: ["text"],
        },
        annotations: { readOnlyHint: true },
        execute: ({ text }) => text,
      });
      const tools = Array.from({ length: count }, (_, i) => tool(i));
      const hub = window.webmcpHub;
      const sent =
        how === "paired"
          ? new Promise((resolve) =>
              hub.addEventListener("toolschange", function done() {
                if (hub.toolCount >= Math.min(count, 256)) {
                  hub.removeEventListener("toolschange", done);
                  resolve();
                }
              }),
            )
          : null;
      const t0 = performance.now();
      if (how === "map") {
        const map = new Map();
        for (const t of tools) {
          if (map.has(t.name)) throw new Error("duplicate");
          map.set(t.name, t);
        }
      } else if (how === "seed" || how === "paired") {
        for (const t of tools) navigator.modelContext.registerTool(t);
        if (sent) await sent;
      } else {
        await Promise.all(tools.map((t) => document.modelContext.registerTool(t)));
      }
      return performance.now() - t0;
    },
    [how, count],
  );
}

/**
 * getTools() timings (ms, call to resolution) in a top page of `top` with FRAMES iframes, half of `top`'s
 * origin and half of `other`'s, each with FRAME_TOOLS tools (the cross-origin ones exposed to the top).
 */
async function frameGetTools(browser, top, other) {
  const page = await browser.newPage();
  await page.goto(`${top}/top`);
  await page.evaluate(
    async ([top, other, frames, count]) => {
      const mk = (src) =>
        new Promise((resolve) => {
          const f = document.createElement("iframe");
          f.src = src;
          f.allow = "tools *";
          f.onload = resolve;
          document.body.append(f);
        });
      const register = (w, prefix, exposedTo) => {
        for (let i = 0; i < count; i++) w.postMessage({ register: `${prefix}_${i}`, exposedTo }, "*");
      };
      const tool = (name) => ({
        name,
        description: `Bench tool ${name}: echoes its text.`,
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        execute: ({ text }) => text,
      });
      for (let i = 0; i < count; i++) await document.modelContext.registerTool(tool(`top_${i}`));
      for (let f = 0; f < frames; f++) await mk(`${f % 2 ? other : top}/child`);
      [...document.querySelectorAll("iframe")].forEach((f, n) =>
        register(f.contentWindow, `frame${n}`, n % 2 ? [top] : []),
      );
      const want = count * (frames + 1);
      while ((await document.modelContext.getTools({ fromOrigins: [other] })).length < want)
        await new Promise((r) => setTimeout(r, 20));
    },
    [top, other, FRAMES, FRAME_TOOLS],
  );
  const times = await page.evaluate(
    async ([other, calls, want]) => {
      const out = [];
      for (let i = 0; i < calls + 5; i++) {
        const t0 = performance.now();
        const tools = await document.modelContext.getTools({ fromOrigins: [other] });
        const ms = performance.now() - t0;
        if (tools.length !== want) throw new Error(`getTools gave ${tools.length} tools, not ${want}`);
        if (i >= 5) out.push(ms);
      }
      return out;
    },
    [other, FRAME_CALLS, FRAME_TOOLS * (FRAMES + 1)],
  );
  await page.close();
  return times;
}

/** Pages for frameGetTools: /top and /child (which registers what its parent posts), on every interface. */
async function framesSite(hubUrl) {
  const child = `<script>addEventListener("message", (e) => e.data.register && document.modelContext.registerTool({
    name: e.data.register, description: "Bench tool " + e.data.register + ": echoes its text.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    execute: ({ text }) => text }, { exposedTo: e.data.exposedTo }));</script>`;
  const server = createServer((req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(`<!doctype html><script src="${hubUrl}/bridge.js"></script>${req.url === "/child" ? child : ""}`);
  });
  await new Promise((resolve) => server.listen(0, resolve));
  const { port } = server.address();
  return {
    top: `http://127.0.0.1:${port}`,
    other: `http://localhost:${port}`,
    stop: () => new Promise((resolve) => server.close(resolve)),
  };
}

async function main() {
  await mkdir(DATA, { recursive: true });
  const when = new Date().toISOString().slice(0, 10);
  const host = machine();

  // 1. The bundle.
  await buildBundles({ log: () => {} });
  const bundle = readFileSync(join(ROOT, "web/assets/bridge.js"));
  const gzip = gzipSync(bundle, { level: 9 }).byteLength;
  log(`bridge.js: ${bundle.byteLength} bytes, ${gzip} gzipped`);
  const ui = readFileSync(join(ROOT, "web/assets/bridge-ui.js"));
  const uiGzip = gzipSync(ui, { level: 9 }).byteLength;
  log(`bridge-ui.js: ${ui.byteLength} bytes, ${uiGzip} gzipped`);
  const relay = readFileSync(join(ROOT, "web/assets/bridge-relay.js"));
  const relayGzip = gzipSync(relay, { level: 9 }).byteLength;
  log(`bridge-relay.js: ${relay.byteLength} bytes, ${relayGzip} gzipped`);

  const persistTo = join(DATA, "state");
  await rm(persistTo, { recursive: true, force: true });
  const ports = new Set();
  while (ports.size < 3) ports.add(await freePort());
  const [port, demoPort, inspectorPort] = [...ports];
  log("starting wrangler dev and the demo site…");
  // The round trips below make an agent's calls back to back, faster than the deployed per-token limit.
  const stack = await startStack({
    port,
    demoPort,
    inspectorPort,
    persistTo,
    vars: { RATE_LIMIT_SCALE: "1000" },
  });
  const browser = await chromium.launch({
    executablePath: chromiumPath(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  const cleanups = [() => browser.close(), () => stack.stop()];
  try {
    const hubUrl = stack.hub.url;
    const demo = stack.demo.origin;

    // 2. Registering 1,000 tools.
    const registration = {};
    const context = await browser.newContext();
    for (const how of ["map", "seed", "current"]) {
      registration[how] = [];
      for (let r = 0; r < REPEATS; r++) {
        const page = await context.newPage();
        await page.goto(`${demo}/stamps.html`);
        await page.waitForFunction(() => window.webmcpHub !== undefined);
        await page.evaluate(() => navigator.modelContext.clearContext());
        registration[how].push(await registerInPage(page, how, TOOLS));
        await page.close();
      }
      log(`register ${TOOLS} (${how}): median ${fmt(median(registration[how]))} ms`);
    }

    // 4. getTools() across frames.
    const site = await framesSite(hubUrl);
    cleanups.unshift(() => site.stop());
    const frameTimes = [];
    for (let r = 0; r < REPEATS; r++)
      frameTimes.push(...(await frameGetTools(browser, site.top, site.other)));
    const framesStats = summary(frameTimes);
    log(`getTools() across ${FRAMES} frames: p50 ${fmt(framesStats.p50)} ms, p95 ${fmt(framesStats.p95)} ms`);

    // 3. Round trips: one channel, a paired tab and a Node provider, one agent.
    const channel = await seedChannel({ hubUrl, name: "bridge bench" });
    registration.paired = [];
    const pairedContext = await browser.newContext();
    /** A freshly loaded demo page, connected with the origin's stored pairing, without the page's own tools. */
    const connectedPage = async () => {
      const page = await pairedContext.newPage();
      await page.goto(`${demo}/stamps.html`);
      await page.waitForFunction(() => window.webmcpHub?.status === "connected");
      await page.evaluate(() => navigator.modelContext.clearContext());
      await new Promise((resolve) => setTimeout(resolve, 100)); // the emptied set reaches the hub
      return page;
    };
    const first = await pairedContext.newPage();
    await first.goto(`${demo}/stamps.html`);
    await first.waitForFunction(() => window.webmcpHub !== undefined);
    await first.evaluate((code) => window.webmcpHub.pair(code), channel.pairingCode);
    await first.close();
    for (let r = 0; r < REPEATS; r++) {
      const page = await connectedPage();
      registration.paired.push(await registerInPage(page, "paired", TOOLS));
      await page.close();
    }
    const tab = await connectedPage();
    log(
      `register ${TOOLS} in a paired tab, until the tools frame is sent: ${fmt(median(registration.paired))} ms`,
    );
    await tab.evaluate(() =>
      document.modelContext.registerTool({
        name: "echo_tab",
        description: "Echoes its text (a Chromium tab).",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        annotations: { readOnlyHint: true },
        execute: ({ text }) => ({ content: [{ type: "text", text }] }),
      }),
    );
    const code = await newPairingCode({ hubUrl, channelId: channel.channelId, ownerKey: channel.ownerKey });
    const paired = await pairSidecar(hubUrl, code, "bench-node");
    // In its own process, as in bench/relay, so it does not share the agent's event loop (the tab has its own).
    const node = await startNodeProvider(paired);
    cleanups.unshift(() => node.stop(3000));
    await waitForTools(hubUrl, channel.channelId, channel.ownerKey, ["echo_tab", "echo"]);
    const agent = await connectClient(channel.mcpCapabilityUrl, "bench-agent");
    cleanups.unshift(() => agent.close());

    const latencies = { echo_tab: [], echo: [] };
    const once = async (name, i) => {
      const text = `call ${i}`;
      const t0 = performance.now();
      const result = await agent.callTool({ name, arguments: { text } });
      const ms = performance.now() - t0;
      if (result.isError || result.content?.[0]?.text !== text)
        throw new Error(`${name} answered ${JSON.stringify(result).slice(0, 300)}`);
      return ms;
    };
    for (let i = 0; i < WARMUP; i++) for (const name of ["echo_tab", "echo"]) await once(name, i);
    for (let i = 0; i < CALLS; i++) {
      const order = i % 2 === 0 ? ["echo_tab", "echo"] : ["echo", "echo_tab"];
      for (const name of order) latencies[name].push(await once(name, i));
    }
    const tabStats = summary(latencies.echo_tab);
    const nodeStats = summary(latencies.echo);
    log(`round trip p50: tab ${fmt(tabStats.p50)} ms, node ${fmt(nodeStats.p50)} ms`);

    // Tables.
    const sizeTable = table(
      ["file", "raw", "gzip -9", "target", "verdict"],
      [
        [
          "`/bridge.js`",
          kib(bundle.byteLength),
          `**${kib(gzip)}**`,
          `≤ ${kib(TARGET_GZIP)}`,
          gzip <= TARGET_GZIP ? "met" : "**MISSED**",
        ],
        ["`/bridge-ui.js` (imported when shown)", kib(ui.byteLength), kib(uiGzip), "", ""],
        ["`/bridge-relay.js` (imported when paired)", kib(relay.byteLength), kib(relayGzip), "", ""],
      ],
    );
    const floor = median(registration.map);
    const regRow = (label, key) => {
      const m = median(registration[key]);
      const sorted = [...registration[key]].sort((a, b) => a - b);
      return [
        label,
        fmt(m),
        fmt(sorted[0]),
        fmt(sorted.at(-1)),
        `${(m / TOOLS).toFixed(3)}`,
        `${(m / floor).toFixed(0)}×`,
      ];
    };
    const regTable = table(
      ["1,000 tools", "median ms", "min ms", "max ms", "ms / tool", "vs Map floor"],
      [
        regRow("peer: `Map.set` of the same objects (the floor)", "map"),
        regRow("`navigator.modelContext.registerTool` (seed-era, sync)", "seed"),
        regRow("`document.modelContext.registerTool` (today's draft, all promises settled)", "current"),
        regRow("seed-era, in a paired tab, until the tools frame is sent (256 relayed)", "paired"),
      ],
    );
    const rtTable = table(
      ["provider", "p50 ms", "p95 ms", "mean ms", "calls"],
      [
        ["Chromium tab (the bridge)", fmt(tabStats.p50), fmt(tabStats.p95), fmt(tabStats.mean), tabStats.n],
        ["Node provider (`ws`)", fmt(nodeStats.p50), fmt(nodeStats.p95), fmt(nodeStats.mean), nodeStats.n],
        [
          "**tab / Node**",
          `**${(tabStats.p50 / nodeStats.p50).toFixed(2)}×**`,
          `${(tabStats.p95 / nodeStats.p95).toFixed(2)}×`,
          `${(tabStats.mean / nodeStats.mean).toFixed(2)}×`,
          "",
        ],
      ],
    );
    const framesTable = table(
      [
        "getTools({fromOrigins}) in the top page",
        "p50 ms",
        "p95 ms",
        "mean ms",
        "calls",
        "target",
        "verdict",
      ],
      [
        [
          `${FRAMES} iframes × ${FRAME_TOOLS} tools + ${FRAME_TOOLS} of its own (${(FRAMES + 1) * FRAME_TOOLS} tools)`,
          `**${fmt(framesStats.p50)}**`,
          fmt(framesStats.p95),
          fmt(framesStats.mean),
          framesStats.n,
          `≤ ${TARGET_FRAMES_P50} ms p50`,
          framesStats.p50 <= TARGET_FRAMES_P50 ? "met" : "**MISSED**",
        ],
      ],
    );
    const text = [
      sizeTable,
      "",
      `Registering ${TOOLS.toLocaleString("en")} tools in a real Chromium page (headless, Debian's \`chromium\`), timed inside the page with \`performance.now()\`; each row is the median of ${REPEATS} runs, each in a freshly loaded demo page (\`/stamps.html\`, the bridge loaded). Each tool has a one-property object schema and \`readOnlyHint\`. The hub takes at most 256 tools from one tab, so the paired row relays the first 256.`,
      "",
      regTable,
      "",
      `One call's round trip, agent → hub → provider → agent: an MCP SDK client in Node on the channel's MCP URL (\`wrangler dev\`, local D1 and Durable Object), calling \`echo_tab\` (registered with \`document.modelContext\` in a paired Chromium tab) and \`echo\` (bench/relay/echo-provider.mjs: a Node \`ws\` provider paired as a sidecar, in its own process) on the same channel; both read-only (no approval dialog), both answer \`{content: [{type: "text", text}]}\`. ${CALLS} calls each, sequential, interleaved (the order alternates), after ${WARMUP} warm-ups each.`,
      "",
      rtTable,
      "",
      `\`document.modelContext.getTools()\` across a tab's frames: a top page (127.0.0.1) with ${FRAMES} iframes, half of its origin and half of another (localhost, \`allow="tools *"\`, tools exposed to the top), ${FRAME_TOOLS} tools in each document, the bridge in each; timed in the top page from the call to the promise's resolution (a later task, as the spec says), with \`fromOrigins\` naming the other origin so all ${(FRAMES + 1) * FRAME_TOOLS} tools come back, each with its schema copied. ${FRAME_CALLS} calls in each of ${REPEATS} fresh pages, after 5 warm-ups each. Same-origin frames' tools are read from their documents directly, the others' from the frames protocol's cache (src/bridge/frames.ts), kept current by their messages, so no call waits for another frame.`,
      "",
      framesTable,
      "",
      `- Bundle: **${kib(gzip)}** gzipped (target ≤ 15 KiB: ${gzip <= TARGET_GZIP ? "met" : "**MISSED**"}); one IIFE file; its UI (widget, approval dialog) is imported from the hub when first shown (\`/bridge-ui.js\`, ${kib(uiGzip)} gzipped), its relay when the page is paired or pairs (\`/bridge-relay.js\`, ${kib(relayGzip)} gzipped).`,
      `- Round trip through a tab against a Node provider, p50: **${(tabStats.p50 / nodeStats.p50).toFixed(2)}×** (${tabStats.p50 >= nodeStats.p50 ? "+" : "−"}${fmt(Math.abs(tabStats.p50 - nodeStats.p50))} ms): the hub, not the provider, is where a relayed call's time goes (bench/relay).`,
      `- Registering 1,000 tools costs ${fmt(median(registration.seed))} ms (seed-era) and ${fmt(median(registration.current))} ms (today's API) in the page: ${(median(registration.seed) / TOOLS).toFixed(3)} ms a tool, checks included (name rules, JSON Schema, duplicates); the peer shows what holding them costs without any check.`,
    ].join("\n");
    console.log(`\n${text}\n`);
    await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "bridge", {
      title: "bridge — /bridge.js size, registering 1,000 tools, a call's round trip through a real tab",
      when,
      machine: host,
      command: "node bench/run.mjs bridge",
      text,
    });
    log("bench/RESULTS.md updated (bridge section)");
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
    await rm(persistTo, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(`bench/bridge failed: ${e instanceof Error ? e.stack : String(e)}`);
  process.exit(1);
});
