// bench/relay floor: our relayed `echo` against the relay floor — the least any
// MCP relay on Workers + Durable Objects pays here (bench/relay/floor-worker.mjs: the Worker answers the
// handshake, one RPC to a Durable Object, one WebSocket frame to the provider, one JSON response back) —
// in one run, under the same `wrangler dev` (bench/relay/wrangler.toml serves both), called by the same
// MCP SDK client (v2, `@modelcontextprotocol/client`), with the same Node provider program
// (echo-provider.mjs; one instance per relay). The direct SDK server (direct-server.mjs) is context.
//
//   node bench/relay/floor.mjs [--era 2025-11-25|2026-07-28] [--hubs lean,cli]
//
// --era pins the client's protocol revision: 2025-11-25 is the legacy `initialize` handshake (the SDK's
// default), 2026-07-28 pins the modern era (`server/discover`, no sessions). --hubs picks the `wrangler dev`
// flavours (hub.mjs): `lean` (wrangler's dev server with its DevTools inspector off) and `cli` (the CLI as
// people run it: the inspector relays an event for every subrequest, a local-only tax on D1 and DO calls).
// BENCH_SECONDS (default 6) is the seconds per path and concurrency, in 3 rounds with the order alternating.
//
// Measures p50 at concurrency 1, calls/s at concurrency 64, and CPU time per call of the workerd process
// that runs the Worker and its Durable Objects (utime + stime from /proc/<pid>/stat over each window, divided
// by the calls in it; Linux only), plus the wrangler proxy's workerd. Measures the Worker bundle
// (`wrangler deploy --dry-run` of wrangler.toml, gzipped). Targets, per era: p50 ≤ 1.1× the floor's, calls/s
// at 64 ≥ 0.9× the floor's, CPU per call ≤ 1.3× the floor's, bundle ≤ 300 KiB gzipped. Prints the table,
// refreshes the `relay-floor-<era>` section of bench/RESULTS.md; a missed target prints MISSED, exits 0.
import { spawnSync } from "node:child_process";
import { setMaxListeners } from "node:events";
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startProcess } from "../../scripts/lib/processes.mjs";
import { createChannel, pairSidecar, waitForTools } from "../../test/support/conformance-provider.mjs";
import { machine, writeResultsSection } from "../registry/harness.mjs";
import { startBenchHub } from "./hub.mjs";
import { closedLoop, fmt, markdownTable, median, merge, percentile } from "./load.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/relay-floor");
export const ERAS = ["2025-11-25", "2026-07-28"];
const ROUNDS = 3;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = 1.5;
export const TARGETS = { p50: 1.1, rps64: 0.9, cpu: 1.3, bundleKiB: 300 };
const HUB_LABEL = {
  lean: "`wrangler dev` without inspector",
  cli: "`wrangler dev` CLI",
};

const log = (line) => console.error(`[relay-floor] ${line}`);

// ---------------------------------------------------------------------------------------------------------
// The client: the MCP SDK v2 client, its era pinned.

/**
 * An MCP SDK (v2) client on Streamable HTTP at `url`, speaking `era`: 2025-11-25 through the legacy
 * `initialize` handshake (the SDK's default), 2026-07-28 pinned (`server/discover`; fails loudly if the
 * server does not offer it). Like load.mjs's client it opens a new session and retries once when a 2025
 * server answers 404 "Session not found" (wrangler restarted the Worker because a source file changed).
 */
export async function connectEraClient(url, era, name = "bench-floor") {
  if (!ERAS.includes(era)) throw new Error(`unknown era ${era}: one of ${ERAS.join(", ")}`);
  const open = async () => {
    const client = new Client(
      { name, version: "0.1.0" },
      era === "2025-11-25" ? {} : { versionNegotiation: { mode: { pin: era } } },
    );
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      fetch: (input, init) => {
        if (init?.signal) setMaxListeners(0, init.signal);
        return fetch(input, init);
      },
    });
    await client.connect(transport);
    const spoken = client.getNegotiatedProtocolVersion?.() ?? era;
    if (spoken !== era) throw new Error(`${url} negotiated ${spoken}, not ${era}`);
    return client;
  };
  let client = await open();
  let reopening = null;
  const wrapper = {
    sessions: 1,
    async callTool(params) {
      const current = client;
      try {
        return await current.callTool(params);
      } catch (e) {
        if (era !== "2025-11-25" || !/Session not found|404/.test(String(e?.message))) throw e;
        if (current === client) {
          reopening ??= open().then((next) => {
            client = next;
            wrapper.sessions++;
            reopening = null;
            void current.close().catch(() => {});
          });
        }
        await reopening;
        return client.callTool(params);
      }
    },
    ping: () => client.ping(),
    listTools: () => client.listTools(),
    close: () => client.close(),
  };
  return wrapper;
}

function echo(client) {
  return {
    call: (worker, n) => client.callTool({ name: "echo", arguments: { text: `w${worker}-${n}` } }),
    check: (result, worker, n) => !result.isError && result.content?.[0]?.text === `w${worker}-${n}`,
  };
}

// ---------------------------------------------------------------------------------------------------------
// CPU time of the hub's workerd processes (Linux /proc).

const CLK_TCK = (() => {
  const out = spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout?.trim();
  return Number(out) > 0 ? Number(out) : 100;
})();

/** {comm, ppid, ticks (utime + stime)} of a process, or null once it is gone. */
function procStat(pid) {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const fields = text.slice(close + 2).split(" ");
    return { comm, ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

const pids = () => readdirSync("/proc").filter((d) => /^\d+$/.test(d));

/** The pid listening on 127.0.0.1:`port` (by the socket's inode in /proc/net/tcp and /proc/<pid>/fd). */
function listenerPid(port) {
  const hexPort = port.toString(16).toUpperCase().padStart(4, "0");
  const inodes = new Set();
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[1]?.endsWith(`:${hexPort}`) && cols[3] === "0A") inodes.add(`socket:[${cols[9]}]`);
    }
  }
  for (const pid of pids()) {
    let fds = [];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        if (inodes.has(readlinkSync(`/proc/${pid}/fd/${fd}`))) return Number(pid);
      } catch {
        // closed meanwhile
      }
    }
  }
  return null;
}

/**
 * The hub's processes: `proxy`, the workerd listening on the hub's port (wrangler's ProxyWorker),
 * `runtime`, the other workerd children of the same wrangler process (the assets router, the Worker, its
 * Durable Objects, local D1), and `wrangler`, their parent (Node).
 */
function hubProcesses(url) {
  const proxy = listenerPid(Number(new URL(url).port));
  if (!proxy) throw new Error(`no process listens on ${url}`);
  const wrangler = procStat(proxy)?.ppid;
  const runtime = pids()
    .map(Number)
    .filter((pid) => pid !== proxy)
    .filter((pid) => {
      const s = procStat(pid);
      return s?.comm === "workerd" && s.ppid === wrangler;
    });
  return { proxy, runtime, wrangler };
}

const ticksOf = (list) => list.reduce((sum, pid) => sum + (procStat(pid)?.ticks ?? NaN), 0);

/** Snapshot of the hub's CPU ticks; `since(snapshot)` gives seconds of CPU per process role (NaN if one restarted). */
function cpuSnapshot(url) {
  const procs = hubProcesses(url);
  return {
    procs,
    ticks: {
      runtime: ticksOf(procs.runtime),
      proxy: ticksOf([procs.proxy]),
      wrangler: ticksOf([procs.wrangler]),
    },
  };
}

function cpuSince(url, before) {
  const now = cpuSnapshot(url);
  const same =
    now.procs.runtime.join() === before.procs.runtime.join() && now.procs.proxy === before.procs.proxy;
  const delta = (role) => (same ? (now.ticks[role] - before.ticks[role]) / CLK_TCK : NaN);
  return { runtime: delta("runtime"), proxy: delta("proxy"), wrangler: delta("wrangler") };
}

// ---------------------------------------------------------------------------------------------------------
// The Worker bundle.

/** The package (or top source directory) of each `// path` section of an unminified esbuild bundle. */
function packagesOf(text) {
  const sizes = new Map();
  for (const part of text.split(/\n(?=\/\/ \S+\.(?:m?js|ts|tsx|cjs|json)\n)/)) {
    const path = /^\/\/ (\S+)/.exec(part)?.[1] ?? "";
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1];
    const name = pkg
      ? /^(@peculiar\/|asn1js|pvtsutils|pvutils|tsyringe|reflect-metadata|@levischuck\/|@hexagon\/)/.test(pkg)
        ? "@simplewebauthn/server's dependencies"
        : path.includes("zod/v4/locales/")
          ? "zod (locales)"
          : pkg
      : path.replace(/^(\.\.\/)+/, "").split("/")[0] || "(prelude)";
    sizes.set(name, (sizes.get(name) ?? "") + part);
  }
  return [...sizes]
    .map(([name, code]) => ({ name, gzipped: gzipSync(code, { level: 9 }).length }))
    .sort((a, b) => b.gzipped - a.gzipped);
}

/**
 * `wrangler deploy --dry-run` of wrangler.toml into a temp dir (as deployed: not minified), the .js outputs'
 * bytes raw and gzipped (level 9), the share of each package (each gzipped alone), and the gzipped size
 * with `--minify`.
 */
export async function workerBundle() {
  const plain = await dryRun([]);
  const minified = await dryRun(["--minify"]);
  return { ...plain, packages: packagesOf(plain.text), minifiedGzipped: minified.gzipped };
}

async function dryRun(extra) {
  const outdir = await mkdtemp(join(tmpdir(), "webmcp-hub-wb-"));
  try {
    const wrangler = join(ROOT, "node_modules/wrangler/bin/wrangler.js");
    const run = spawnSync(process.execPath, [wrangler, "deploy", "--dry-run", "--outdir", outdir, ...extra], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
    });
    if (run.status !== 0) throw new Error(`wrangler deploy --dry-run failed:\n${run.stdout}\n${run.stderr}`);
    let raw = 0;
    let gzipped = 0;
    let text = "";
    for (const file of await readdir(outdir, { recursive: true })) {
      if (!/\.m?js$/.test(file)) continue;
      const bytes = await readFile(join(outdir, file));
      raw += bytes.length;
      gzipped += gzipSync(bytes, { level: 9 }).length;
      text += bytes.toString("utf8");
    }
    return { raw, gzipped, text };
  } finally {
    await rm(outdir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------------------
// The run.

/** Starts `node bench/relay/<script> ...args`; resolves with the first JSON line it prints. */
async function startChild(script, args = []) {
  const output = [];
  let resolveReady;
  let rejectReady;
  const ready = new Promise((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  const proc = startProcess(process.execPath, [join(HERE, script), ...args], {
    cwd: ROOT,
    onLine: (line, stream) => {
      output.push(line);
      if (stream === "stdout" && line.startsWith("{")) resolveReady(JSON.parse(line));
    },
  });
  proc.exited.then((exit) =>
    rejectReady(new Error(`${script} exited (${exit.code ?? exit.signal}):\n${output.join("\n")}`)),
  );
  const timer = setTimeout(() => rejectReady(new Error(`${script} printed nothing within 20 s`)), 20_000);
  try {
    return { info: await ready, stop: () => proc.stop(3000) };
  } finally {
    clearTimeout(timer);
  }
}

/** One hub with both relays on it: ours (a channel, paired provider, capability URL) and the floor. */
async function startHub(name, era, stops) {
  const persistTo = join(DATA, name);
  await mkdir(persistTo, { recursive: true });
  const hub = await startBenchHub({ persistTo, inspector: name === "cli" });
  stops.unshift(() => hub.stop());

  const channel = await createChannel(hub.url, "bench-floor");
  const paired = await pairSidecar(hub.url, channel.pairingCode, "bench");
  const ours = await startChild("echo-provider.mjs", [
    JSON.stringify({ relayUrl: paired.relayUrl, providerToken: paired.providerToken }),
  ]);
  stops.unshift(ours.stop);
  await waitForTools(hub.url, channel.channel.id, channel.ownerKey, ["echo"]);

  const floorName = `floor-${name}`;
  const floorProvider = await startChild("echo-provider.mjs", [
    JSON.stringify({
      relayUrl: `${hub.url.replace(/^http/, "ws")}/floor/provider/${floorName}`,
      providerToken: "floor",
    }),
  ]);
  stops.unshift(floorProvider.stop);

  let oursClient;
  try {
    oursClient = await connectEraClient(channel.mcpCapabilityUrl, era);
  } catch (e) {
    throw new Error(
      `our channel endpoint does not speak ${era} with the MCP SDK client (${e instanceof Error ? e.message : e})`,
    );
  }
  const floorClient = await connectEraClient(`${hub.url}/floor/mcp/${floorName}`, era);
  stops.unshift(
    () => oursClient.close(),
    () => floorClient.close(),
  );
  const listed = await floorClient.listTools();
  if (!listed.tools.some((t) => t.name === "echo")) throw new Error("the floor lists no echo tool");
  log(
    `${HUB_LABEL[name]}: ${hub.url} (channel ${channel.channel.id}); processes ${JSON.stringify(hubProcesses(hub.url))}`,
  );
  return {
    name,
    url: hub.url,
    ours: oursClient,
    floor: floorClient,
    floorName,
    channelId: channel.channel.id,
    agentToken: channel.agentToken,
  };
}

async function measure(paths, concurrency, rounds = ROUNDS) {
  const runs = Object.fromEntries(paths.map((p) => [p.key, []]));
  const cpu = Object.fromEntries(paths.map((p) => [p.key, []]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? paths : [...paths].reverse();
    for (const path of order) {
      const before = path.hubUrl ? cpuSnapshot(path.hubUrl) : null;
      const run = await closedLoop({
        concurrency,
        durationMs: (SECONDS * 1000) / rounds,
        maxFailureShare: path.key === "direct" ? 0.02 : 0.5,
        ...(path.load ?? echo(path.client)),
      });
      runs[path.key].push(run);
      if (before) cpu[path.key].push({ ...cpuSince(path.hubUrl, before), calls: run.calls });
    }
  }
  return Object.fromEntries(
    paths.map((p) => {
      const samples = cpu[p.key].filter((s) => !Number.isNaN(s.runtime));
      const calls = samples.reduce((a, s) => a + s.calls, 0);
      const per = (role) => (calls ? (samples.reduce((a, s) => a + s[role], 0) * 1000) / calls : NaN);
      return [
        p.key,
        {
          ...merge(runs[p.key]),
          cpuMsPerCall: { runtime: per("runtime"), proxy: per("proxy"), wrangler: per("wrangler") },
          cpuWindows: `${samples.length}/${cpu[p.key].length}`,
        },
      ];
    }),
  );
}

/**
 * Where our call's time goes, on one hub: the same measurements for requests that take one part after
 * another off a relayed call (the floor's `ping` answered by the Worker alone; ours without the per-request
 * token check; without the audit row; the plain-call REST endpoint, without the MCP transport).
 */
async function probe(hub, era, stops) {
  const post = async (path, body) => {
    const res = await fetch(`${hub.url}${path}`, { method: "POST", body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`POST ${path} answered ${res.status}`);
    await res.arrayBuffer();
  };
  const bare = await connectEraClient(`${hub.url}/bench/mcp/${hub.channelId}`, era);
  stops.unshift(() => bare.close());
  const ping = (client) => ({ call: () => client.ping(), check: () => true });
  const plainCall = {
    call: async (w, n) => {
      const res = await fetch(`${hub.url}/api/channels/${hub.channelId}/calls`, {
        method: "POST",
        headers: { authorization: `Bearer ${hub.agentToken}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "echo", arguments: { text: `w${w}-${n}` } }),
      });
      return res.ok ? res.json() : { status: res.status };
    },
    check: (body, w, n) => body.results?.[0]?.result?.content?.[0]?.text === `w${w}-${n}`,
  };
  const healthz = {
    call: async () => {
      const res = await fetch(`${hub.url}/healthz`);
      await res.arrayBuffer();
      return res.ok;
    },
    check: (ok) => ok,
  };
  const noopDo = {
    call: async () => {
      const res = await fetch(`${hub.url}/bench/do/${hub.channelId}`);
      await res.arrayBuffer();
      return res.ok;
    },
    check: (ok) => ok,
  };
  const P = (key, label, load) => ({ key, label, hubUrl: hub.url, load });
  const paths = [
    P("healthz", "`GET /healthz`: the Worker alone, no Durable Object", healthz),
    P("do-noop", "`GET /bench/do`: the Worker and one no-op RPC to the channel's object", noopDo),
    P("floor-ping", "floor MCP `ping`: the Worker answers, no Durable Object", ping(hub.floor)),
    P("floor", "floor `echo`", echo(hub.floor)),
    P("ours-ping", "our MCP `ping`: Worker, token hash, object, SDK transport", ping(hub.ours)),
    P(
      "plain-call",
      "our `POST /api/channels/:id/calls` `echo`: token check in D1, object, audit; no MCP",
      plainCall,
    ),
    P("bare", "our `echo` on `/bench/mcp` (no token check)", echo(bare)),
    P("bare-no-audit", "… and no audit row", echo(bare)),
    P("ours", "our `echo` (everything)", echo(hub.ours)),
  ];
  // 2026-07-28 has no `ping`.
  const asked = era === "2025-11-25" ? paths : paths.filter((p) => !p.key.endsWith("ping"));
  const results = {};
  for (const c of [1, 64]) {
    log(`probes at concurrency ${c} (${HUB_LABEL[hub.name]})`);
    for (const path of asked) {
      if (path.key === "bare-no-audit") await post(`/bench/audit/${hub.channelId}`, { enabled: false });
      const one = await measure([path], c, 1);
      if (path.key === "bare-no-audit") await post(`/bench/audit/${hub.channelId}`, { enabled: true });
      (results[path.key] ??= { label: path.label })[c] = one[path.key];
    }
  }
  return results;
}

async function main() {
  const { values } = parseArgs({
    options: { era: { type: "string", default: ERAS[0] }, hubs: { type: "string", default: "lean,cli" } },
  });
  const era = values.era;
  if (!ERAS.includes(era)) throw new Error(`--era must be one of ${ERAS.join(", ")}`);
  const hubNames = values.hubs.split(",").filter(Boolean);
  for (const h of hubNames) if (!HUB_LABEL[h]) throw new Error(`unknown hub ${h}: lean or cli`);
  const started = performance.now();
  const host = machine();
  await rm(DATA, { recursive: true, force: true });

  log("measuring the Worker bundle (wrangler deploy --dry-run of wrangler.toml)");
  const bundle = await workerBundle();

  const stops = [];
  let results;
  let hubs;
  let directError = null;
  let probes = null;
  try {
    log(`starting ${hubNames.length} hub(s) (bench/relay/wrangler.toml), era ${era}`);
    hubs = [];
    for (const name of hubNames) hubs.push(await startHub(name, era, stops));
    const paths = hubs.flatMap((h) => [
      { key: `ours-${h.name}`, client: h.ours, hubUrl: h.url },
      { key: `floor-${h.name}`, client: h.floor, hubUrl: h.url },
    ]);
    try {
      const direct = await startChild("direct-server.mjs");
      stops.unshift(direct.stop);
      const client = await connectEraClient(direct.info.url, era);
      stops.unshift(() => client.close());
      paths.push({ key: "direct", client, hubUrl: null });
    } catch (e) {
      directError = e instanceof Error ? e.message.split("\n")[0] : String(e);
      log(`the direct SDK server is left out: ${directError}`);
    }
    log(`warming up (${WARMUP_SECONDS} s a path at concurrency 1 and 16)`);
    for (const c of [1, 16]) {
      for (const path of paths) {
        await closedLoop({
          concurrency: c,
          durationMs: WARMUP_SECONDS * 1000,
          maxFailureShare: 0.5,
          ...echo(path.client),
        });
      }
    }
    results = {};
    for (const c of [1, 64]) {
      log(`concurrency ${c}: ${SECONDS} s a path in ${ROUNDS} rounds, the order alternating`);
      results[c] = await measure(paths, c);
    }
    if (process.env.BENCH_PROBES !== "0") {
      // The probes explain; a failed one must not cost the measurements above.
      probes = await probe(hubs[0], era, stops).catch((e) => {
        log(`the probes failed: ${e instanceof Error ? e.message : e}`);
        return null;
      });
    }
  } finally {
    for (const stop of stops) await Promise.resolve(stop()).catch(() => {});
  }

  const report = render({ era, hubs, results, bundle, directError, probes });
  console.log(`\n## relay floor (${era})\n\n${report.text}\n`);
  const file = await writeResultsSection(join(ROOT, "bench/RESULTS.md"), `relay-floor-${era}`, {
    title: `relay floor, MCP ${era} — ours against a minimal Worker + Durable Object relay`,
    when: new Date().toISOString().slice(0, 10),
    machine: host,
    command: `node bench/relay/floor.mjs --era ${era}`,
    text: report.text,
  });
  log(`wrote ${relative(ROOT, file)} (${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  for (const line of report.missed) console.log(`MISSED: ${line}`);
}

const x = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : "–");
const ms = (v) => (Number.isFinite(v) ? fmt(v) : "–");

function render({ era, hubs, results, bundle, directError, probes }) {
  const missed = [];
  const judge = (label, value, ok) => {
    if (!ok) missed.push(`${label}: ${value}`);
    return ok ? `${value} met` : `**${value} MISSED**`;
  };
  const p50 = (key) => median(results[1][key].latencies);
  const rps = (key) => results[64][key].perSecond;
  const cpu = (key, c = 64) => results[c][key].cpuMsPerCall.runtime;
  const rows = [];
  const verdicts = [];
  for (const hub of hubs) {
    const ours = `ours-${hub.name}`;
    const floor = `floor-${hub.name}`;
    for (const [key, label] of [
      [floor, "floor"],
      [ours, "ours"],
    ]) {
      rows.push([
        HUB_LABEL[hub.name],
        label,
        ms(p50(key)),
        ms(percentile(results[1][key].latencies, 99)),
        rps(key).toFixed(0),
        ms(percentile(results[64][key].latencies, 50)),
        ms(cpu(key, 1)),
        ms(cpu(key, 64)),
        ms(results[64][key].cpuMsPerCall.proxy),
        `${results[1][key].calls + results[64][key].calls}${results[1][key].failures + results[64][key].failures ? ` (+${results[1][key].failures + results[64][key].failures} failed)` : ""}`,
      ]);
    }
    const rP50 = p50(ours) / p50(floor);
    const rRps = rps(ours) / rps(floor);
    const rCpu = cpu(ours) / cpu(floor);
    const rCpu1 = cpu(ours, 1) / cpu(floor, 1);
    verdicts.push(
      `- **${HUB_LABEL[hub.name]}**: p50 at 1 ${judge(`p50 ÷ floor (${hub.name}, target ≤ ${TARGETS.p50}×)`, x(rP50), rP50 <= TARGETS.p50)}; calls/s at 64 ${judge(`calls/s at 64 ÷ floor (${hub.name}, target ≥ ${TARGETS.rps64}×)`, x(rRps), rRps >= TARGETS.rps64)}; workerd CPU per call at 64 ${judge(`CPU per call ÷ floor (${hub.name}, target ≤ ${TARGETS.cpu}×)`, x(rCpu), rCpu <= TARGETS.cpu)} (at 1: ${x(rCpu1)}).`,
    );
  }
  const kib = bundle.gzipped / 1024;
  verdicts.push(
    `- **Worker bundle** (\`wrangler deploy --dry-run\`, gzip -9): ${(bundle.raw / 1024).toFixed(0)} KiB, ${judge(`bundle (target ≤ ${TARGETS.bundleKiB} KiB gzipped)`, `${kib.toFixed(0)} KiB gzipped`, kib <= TARGETS.bundleKiB)}; with \`--minify\` ${(bundle.minifiedGzipped / 1024).toFixed(0)} KiB gzipped. Its largest parts, each gzipped alone: ${bundle.packages
      .slice(0, 10)
      .map((p) => `${p.name} ${(p.gzipped / 1024).toFixed(0)}`)
      .join(", ")} KiB.`,
  );
  const context = [];
  if (results[1].direct) {
    rows.push([
      "Node",
      "direct SDK server",
      ms(p50("direct")),
      ms(percentile(results[1].direct.latencies, 99)),
      rps("direct").toFixed(0),
      ms(percentile(results[64].direct.latencies, 50)),
      "",
      "",
      "",
      String(results[1].direct.calls + results[64].direct.calls),
    ]);
    for (const hub of hubs) {
      context.push(
        `- Against the direct SDK server (${HUB_LABEL[hub.name]}): p50 at 1 ours ${x(p50(`ours-${hub.name}`) / p50("direct"))}, floor ${x(p50(`floor-${hub.name}`) / p50("direct"))}; calls/s at 64 ours ${x(rps(`ours-${hub.name}`) / rps("direct"))}, floor ${x(rps(`floor-${hub.name}`) / rps("direct"))}.`,
      );
    }
  } else {
    context.push(`- The direct SDK server did not run in ${era}: ${directError}`);
  }
  const table = markdownTable(
    [
      "hub",
      "relay",
      "p50 at 1",
      "p99 at 1",
      "calls/s at 64",
      "p50 at 64",
      "workerd CPU/call at 1",
      "workerd CPU/call at 64",
      "proxy CPU/call at 64",
      "calls",
    ],
    rows,
  );
  const windows = hubs
    .flatMap((h) => [`ours-${h.name}`, `floor-${h.name}`])
    .map((k) => `${k} ${results[1][k].cpuWindows} + ${results[64][k].cpuWindows}`)
    .join(", ");
  const text = [
    `MCP ${era}, one MCP SDK v2 client per relay (${era === "2025-11-25" ? "the legacy `initialize` handshake" : "pinned: `server/discover`, no session"}), calling \`echo\` back to back from 1 or 64 callers (closed loop), ${SECONDS} s a path and concurrency in ${ROUNDS} rounds with the order alternating, after ${WARMUP_SECONDS} s warm-ups. Times in ms; CPU in ms per call, from utime + stime of the process over each window.`,
    "",
    "- **floor**: `bench/relay/floor-worker.mjs`, in the same Worker as ours: the Worker answers the handshake itself and makes one RPC per `tools/call` to a Durable Object, which writes one `call` frame to the provider's WebSocket (Hibernation API) and resolves with its `result` frame; one JSON response. No auth, sessions, validation or audit.",
    "- **ours**: the channel's MCP endpoint (capability URL), the real app and ChannelRelay.",
    "- Both relays' providers are `bench/relay/echo-provider.mjs` (own process each); both run in the same `wrangler dev` (bench/relay/wrangler.toml). **workerd** is the process running the Worker, its Durable Objects and local D1; **proxy** is wrangler's ProxyWorker process in front of it.",
    "",
    table,
    "",
    ...verdicts,
    ...context,
    `- CPU windows kept (a window is dropped when wrangler restarted a process during it), at 1 + at 64: ${windows}.`,
    ...(probes ? ["", ...renderProbes(probes, hubs[0])] : []),
  ].join("\n");
  return { text, missed };
}

function renderProbes(probes, hub) {
  const rows = Object.values(probes).map((p) => [
    p.label,
    ms(median(p[1].latencies)),
    p[64].perSecond.toFixed(0),
    ms(p[1].cpuMsPerCall.runtime),
    ms(p[64].cpuMsPerCall.runtime),
    ms(p[64].cpuMsPerCall.proxy),
  ]);
  return [
    "### Where our call's time goes",
    "",
    `Requests that take one part after another off a relayed call, on the hub ${HUB_LABEL[hub.name]}, ${SECONDS} s each at 1 and at 64 (ms; CPU per request of the workerd running the Worker, and of wrangler's proxy):`,
    "",
    markdownTable(
      ["request", "p50 at 1", "calls/s at 64", "workerd CPU at 1", "workerd CPU at 64", "proxy CPU at 64"],
      rows,
    ),
  ];
}

// Exiting runs scripts/lib/processes.mjs's exit hook, which kills wrangler, workerd and the bench's children.
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(e);
    process.exit(1);
  });
}
