// `node bench/relay/profile.mjs`: where the Worker isolate's CPU goes during relayed MCP calls. Starts the
// bench hub (bench/relay/wrangler.toml), a provider serving `echo`, and an MCP SDK client calling it at
// concurrency 16, and takes a V8 CPU profile of the Worker isolate (which runs the Worker and the channel's
// Durable Object) through wrangler's inspector. Prints the busy share, self time by package of the bundle,
// and inclusive time of the hub's own functions; writes the profile to bench/.data/relay/relay.cpuprofile
// (open it in Chrome DevTools).
//   PROFILE_SECONDS (default 6), PROFILE_CONCURRENCY (default 16)
import { mkdir, readFile, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import {
  connectRelayProvider,
  createChannel,
  pairSidecar,
  waitForTools,
} from "../../test/support/conformance-provider.mjs";
import { startBenchHub } from "./hub.mjs";
import { closedLoop, connectClient, echoCall } from "./load.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DATA = join(ROOT, "bench/.data/relay-profile");
const SECONDS = Number(process.env.PROFILE_SECONDS ?? 6);
const CONCURRENCY = Number(process.env.PROFILE_CONCURRENCY ?? 16);
const SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };

/** The bundle wrangler is serving (its line numbers are the profile's), found under a .wrangler/tmp dir. */
async function findBundle() {
  const found = [];
  for (const base of [join(ROOT, "bench/relay/.wrangler/tmp"), join(ROOT, ".wrangler/tmp")]) {
    for (const dir of await readdir(base).catch(() => [])) {
      const file = join(base, dir, "worker.js");
      const info = await stat(file).catch(() => null);
      if (info) found.push({ file, mtime: info.mtimeMs });
    }
  }
  found.sort((a, b) => b.mtime - a.mtime);
  return found[0] ? readFile(found[0].file, "utf8") : null;
}

/** Line (0-based) → package or source file, from esbuild's `// path` comments in the bundle. */
function packageOfLine(bundle) {
  const marks = [];
  bundle.split("\n").forEach((line, i) => {
    const m = /^\/\/ (\S+\.(?:m?js|ts|cjs|json))$/.exec(line);
    if (m) {
      const path = m[1];
      const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
      marks.push([i, nm ? nm[1] : path.replace(/^(\.\.\/)+/, "")]);
    }
  });
  return (line) => {
    let lo = 0;
    let hi = marks.length - 1;
    let best = "(bundle prelude)";
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (marks[mid][0] <= line) {
        best = marks[mid][1];
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return best;
  };
}

function inspector(url) {
  const ws = new WebSocket(url);
  let id = 0;
  const pending = new Map();
  ws.on("message", (data) => {
    const message = JSON.parse(String(data));
    if (message.id && pending.has(message.id)) {
      pending.get(message.id)(message);
      pending.delete(message.id);
    }
  });
  return {
    open: new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    }),
    send: (method, params = {}) =>
      new Promise((resolve) => {
        const i = ++id;
        pending.set(i, resolve);
        ws.send(JSON.stringify({ id: i, method, params }));
      }),
    close: () => ws.close(),
  };
}

function summarize(profile, packageOf) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const total = profile.samples.length;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === "(idle)").map((n) => n.id));
  const busy = profile.samples.filter((s) => !idle.has(s)).length;
  const selfByPackage = {};
  const inclusive = {};
  for (const sample of profile.samples) {
    if (idle.has(sample)) continue;
    const frame = nodes.get(sample).callFrame;
    const where =
      frame.url === "worker.js"
        ? packageOf(frame.lineNumber)
        : frame.url
          ? frame.url
          : "(runtime: native, GC, program)";
    selfByPackage[where] = (selfByPackage[where] ?? 0) + 1;
    const seen = new Set();
    for (let id = sample; id !== undefined; id = parent.get(id)) {
      const f = nodes.get(id).callFrame;
      if (f.url !== "worker.js" || !f.functionName) continue;
      const pkg = packageOf(f.lineNumber);
      if (!pkg.startsWith("src/") && !pkg.startsWith("bench/")) continue;
      const key = `${f.functionName} (${pkg})`;
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive[key] = (inclusive[key] ?? 0) + 1;
    }
  }
  const pct = (n, of) => `${((100 * n) / of).toFixed(1)}%`.padStart(6);
  const top = (o, n) =>
    Object.entries(o)
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${pct(v, busy)}  ${k}`)
      .join("\n");
  return [
    `${total} samples; the isolate was busy in ${pct(busy, total).trim()} of them. Shares below are of the busy samples.`,
    "",
    "Self time by package or source file:",
    top(selfByPackage, 20),
    "",
    "Inclusive time of the hub's own functions:",
    top(inclusive, 30),
  ].join("\n");
}

async function main() {
  await rm(DATA, { recursive: true, force: true });
  await mkdir(DATA, { recursive: true });
  const hub = await startBenchHub({ persistTo: DATA });
  const stops = [() => hub.stop()];
  try {
    const channel = await createChannel(hub.url, "profile");
    const paired = await pairSidecar(hub.url, channel.pairingCode, "profile");
    const provider = await connectRelayProvider({
      relayUrl: paired.relayUrl,
      providerToken: paired.providerToken,
      label: "profile",
      tools: [
        {
          name: "echo",
          description: "Echoes its text.",
          inputSchema: SCHEMA,
          annotations: { readOnlyHint: true },
        },
      ],
      handlers: { echo: ({ text }) => ({ content: [{ type: "text", text }] }) },
    });
    stops.unshift(provider.close);
    await waitForTools(hub.url, channel.channel.id, channel.ownerKey, ["echo"]);
    const client = await connectClient(channel.mcpCapabilityUrl);
    stops.unshift(() => client.close());
    await closedLoop({ concurrency: CONCURRENCY, durationMs: 2000, ...echoCall(client) });

    const bundle = await findBundle();
    const targets = await (await fetch(`http://127.0.0.1:${hub.inspectorPort}/json`)).json();
    const cdp = inspector(targets[0].webSocketDebuggerUrl);
    await cdp.open;
    await cdp.send("Profiler.enable");
    await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
    await cdp.send("Profiler.start");
    const run = await closedLoop({
      concurrency: CONCURRENCY,
      durationMs: SECONDS * 1000,
      ...echoCall(client),
    });
    const { result } = await cdp.send("Profiler.stop");
    cdp.close();
    const file = join(DATA, "relay.cpuprofile");
    await writeFile(file, JSON.stringify(result.profile));
    console.log(
      `${run.calls} calls in ${run.seconds.toFixed(1)} s at concurrency ${CONCURRENCY} (${run.perSecond.toFixed(0)} calls/s while profiling); profile: ${file}\n`,
    );
    console.log(summarize(result.profile, bundle ? packageOfLine(bundle) : () => "worker.js"));
  } finally {
    for (const stop of stops) await Promise.resolve(stop()).catch(() => {});
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
