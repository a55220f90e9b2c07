// bench/relay: an MCP SDK (v2) client, 2025-11-25 era, calls `echo` through `wrangler dev` →
// ChannelRelay → a Node WebSocket provider, against the same client calling the same tool on a plain MCP
// SDK server in Node (Streamable HTTP), in one run, at concurrency 1, 16 and 64. Prints p50/p99 latency,
// calls/s and the ratios, then where a relayed call's time goes; refreshes the "relay" section of bench/RESULTS.md.
// Targets: p50 ≤ 1.5× the direct server's, and calls/s at concurrency 64 ≥ 0.7× the direct server's.
//
// Two hubs run side by side, both bench/relay/wrangler.toml (the real app and ChannelRelay, plus probes):
// `wrangler dev` as people run it (the CLI; the targets are judged on it), and wrangler's dev server with
// its DevTools inspector off (dev-without-inspector.mjs), which shows the relay without a local-only tax.
//
//   BENCH_SECONDS   seconds of measurement per path and concurrency (default 6, in 3 alternating rounds)
import { mkdir, rm } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { startProcess } from "../../scripts/lib/processes.mjs";
import { createChannel, pairSidecar, waitForTools } from "../../test/support/conformance-provider.mjs";
import { machine, writeResultsSection } from "../registry/harness.mjs";
import { startBenchHub } from "./hub.mjs";
import {
  closedLoop,
  connectClient,
  echoCall,
  fmt,
  markdownTable,
  median,
  merge,
  percentile,
  wallMs,
} from "./load.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/relay");
const LEVELS = [1, 16, 64];
const ROUNDS = 3;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const WARMUP_SECONDS = 1.5;
const PROBE_SECONDS = 2;
const TARGET_P50_RATIO = 1.5;
const TARGET_RPS_RATIO = 0.7;

const PATHS = {
  relay: "relay, `wrangler dev`",
  lean: "relay, `wrangler dev` without inspector",
  direct: "direct SDK server",
};

const log = (line) => console.error(`[relay] ${line}`);

/** Starts `node bench/relay/<script> ...args` and resolves with the first JSON line it prints. */
async function startChild(script, args = []) {
  let resolveReady;
  let rejectReady;
  const ready = new Promise((resolve, reject) => {
    resolveReady = resolve;
    rejectReady = reject;
  });
  const output = [];
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
    return { info: await ready, stop: () => proc.stop(3000), output };
  } finally {
    clearTimeout(timer);
  }
}

async function postJson(url, body) {
  const res = await fetch(url, { method: "POST", body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${await res.text()}`);
  return res.json();
}

/**
 * A hub with a channel, the echo provider paired to it (its own process), and MCP clients: `client` on
 * the real endpoint (capability URL) and `bare` on /bench/mcp (no token check).
 */
async function startRelay(name, inspector, stops) {
  const persistTo = join(DATA, name);
  await mkdir(persistTo, { recursive: true });
  const hub = await startBenchHub({ persistTo, inspector });
  stops.unshift(() => hub.stop());
  const channel = await createChannel(hub.url, "bench");
  const paired = await pairSidecar(hub.url, channel.pairingCode, "bench");
  const provider = await startChild("echo-provider.mjs", [
    JSON.stringify({ relayUrl: paired.relayUrl, providerToken: paired.providerToken }),
  ]);
  stops.unshift(provider.stop);
  const channelId = channel.channel.id;
  await waitForTools(hub.url, channelId, channel.ownerKey, ["echo", "echo_timed"]);
  const client = await connectClient(channel.mcpCapabilityUrl);
  const bare = await connectClient(`${hub.url}/bench/mcp/${channelId}`);
  stops.unshift(
    () => client.close(),
    () => bare.close(),
  );
  log(`${PATHS[name]}: ${hub.url}, channel ${channelId}, provider ${provider.info.providerId}`);
  return { hub, channelId, agentToken: channel.agentToken, client, bare };
}

/** Every path at one concurrency: ROUNDS rounds, the order alternating, merged. */
async function measureLevel(paths, concurrency) {
  const runs = Object.fromEntries(paths.map((p) => [p.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? paths : [...paths].reverse();
    for (const path of order) {
      runs[path.name].push(
        await closedLoop({
          concurrency,
          durationMs: (SECONDS * 1000) / ROUNDS,
          // When a source file of the Worker changes, wrangler restarts it: calls in flight get 503 "Your
          // worker restarted mid-request" and the sessions are gone. Counted and reported, not timed.
          maxFailureShare: path.name === "direct" ? 0.02 : 0.5,
          ...echoCall(path.client),
        }),
      );
    }
  }
  return Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, merge(r)]));
}

/** `echo_timed` calls, split into legs by the provider's stamps (same machine, same clock). */
function timedEcho(client, legs) {
  return async (w, n) => {
    const sent = wallMs();
    const result = await client.callTool({ name: "echo_timed", arguments: { text: `w${w}-${n}` } });
    const received = wallMs();
    const arrivedAt = result._meta?.["bench/arrivedAt"];
    const sentAt = result._meta?.["bench/sentAt"];
    if (typeof arrivedAt === "number" && typeof sentAt === "number") {
      legs.out.push(arrivedAt - sent);
      legs.provider.push(sentAt - arrivedAt);
      legs.back.push(received - sentAt);
    }
    return result;
  };
}

/**
 * Where a relayed call's time goes: on the hub without inspector, the same path with one cost after
 * another taken off; on both hubs, the legs of a call.
 */
async function investigate({ relay, lean, direct }) {
  // Two passes over every probe, half the time each, merged: the machine's noise comes in waves.
  const runs = {};
  const legsOf = {};
  const probe = async (name, concurrency, call, check) => {
    (runs[`${name}@${concurrency}`] ??= []).push(
      await closedLoop({ concurrency, durationMs: (PROBE_SECONDS * 1000) / 2, call, check }),
    );
  };
  const { hub, channelId, agentToken } = lean;
  const get =
    (url, headers = {}) =>
    async () => {
      const res = await fetch(url, { headers });
      await res.arrayBuffer();
      return res.ok;
    };
  const bearer = { authorization: `Bearer ${agentToken}` };
  const setAudit = (enabled) => postJson(`${hub.url}/bench/audit/${channelId}`, { enabled });
  for (const c of [1, 64, 1, 64]) {
    await probe("healthz-cli", c, get(`${relay.hub.url}/healthz`), (ok) => ok);
    await probe("healthz", c, get(`${hub.url}/healthz`), (ok) => ok);
    await probe("d1", c, get(`${hub.url}/bench/d1`), (ok) => ok);
    await probe("auth", c, get(`${hub.url}/bench/auth/${channelId}`, bearer), (ok) => ok);
    await probe("auth-sql", c, get(`${hub.url}/bench/auth-sql/${channelId}`, bearer), (ok) => ok);
    await probe("do", c, get(`${hub.url}/bench/do/${channelId}`), (ok) => ok);
    await probe("ping-bare", c, () => lean.bare.ping());
    await probe("ping-hub", c, () => lean.client.ping());
    await probe("ping-direct", c, () => direct.ping());
    await probe("echo-bare", c, ...Object.values(echoCall(lean.bare)));
    await setAudit(false);
    await probe("echo-bare-no-audit", c, ...Object.values(echoCall(lean.bare)));
    await setAudit(true);
    await probe(
      "plain-call",
      c,
      async (w, n) => {
        const res = await fetch(`${hub.url}/api/channels/${channelId}/calls`, {
          method: "POST",
          headers: { ...bearer, "content-type": "application/json" },
          body: JSON.stringify({ name: "echo", arguments: { text: `w${w}-${n}` } }),
        });
        return res.ok ? res.json() : { status: res.status };
      },
      (body, w, n) => body.results?.[0]?.result?.content?.[0]?.text === `w${w}-${n}`,
    );
    for (const [name, path] of [
      ["lean", lean],
      ["relay", relay],
    ]) {
      const legs = (legsOf[`legs-${name}@${c}`] ??= { out: [], provider: [], back: [] });
      await probe(`echo-timed-${name}`, c, timedEcho(path.client, legs));
    }
  }
  return {
    ...Object.fromEntries(Object.entries(runs).map(([key, r]) => [key, merge(r)])),
    ...legsOf,
  };
}

async function main() {
  const started = performance.now();
  const host = machine();
  await rm(DATA, { recursive: true, force: true });
  const stops = [];
  let results;
  let probes;
  let reopened = [];
  try {
    log("starting two hubs (bench/relay/wrangler.toml, fresh local databases in bench/.data/relay)");
    const [relay, lean] = await Promise.all([
      startRelay("relay", true, stops),
      startRelay("lean", false, stops),
    ]);
    const direct = await startChild("direct-server.mjs");
    stops.unshift(direct.stop);
    const directClient = await connectClient(direct.info.url);
    stops.unshift(() => directClient.close());
    log(`${PATHS.direct}: ${direct.info.url}`);
    const paths = [
      { name: "relay", client: relay.client },
      { name: "lean", client: lean.client },
      { name: "direct", client: directClient },
    ];

    log(`warming up (${WARMUP_SECONDS} s a path at concurrency 1 and 16)`);
    for (const c of [1, 16]) {
      for (const path of paths) {
        await closedLoop({ concurrency: c, durationMs: WARMUP_SECONDS * 1000, ...echoCall(path.client) });
      }
    }
    results = [];
    for (const c of LEVELS) {
      log(`concurrency ${c}: ${SECONDS} s a path in ${ROUNDS} rounds, the order alternating`);
      results.push({ concurrency: c, ...(await measureLevel(paths, c)) });
    }
    log(`investigating where a relayed call's time goes (${PROBE_SECONDS} s a probe)`);
    probes = await investigate({ relay, lean, direct: directClient });
    reopened = [
      ["relay", relay],
      ["lean", lean],
    ].flatMap(([name, path]) =>
      ["client", "bare"]
        .filter((c) => path[c].sessions > 1)
        .map((c) => `${PATHS[name]} (${c}): ${path[c].sessions - 1}`),
    );
    if (directClient.sessions > 1) reopened.push(`${PATHS.direct}: ${directClient.sessions - 1}`);
  } finally {
    for (const stop of stops) await Promise.resolve(stop()).catch(() => {});
  }

  const report = render(results, probes, reopened);
  console.log(`\n## relay\n\n${report.text}\n`);
  const file = await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "relay", {
    title: "relay — MCP calls through wrangler dev → ChannelRelay → a WebSocket provider",
    when: new Date().toISOString().slice(0, 10),
    machine: host,
    command: "node bench/run.mjs relay",
    text: report.text,
  });
  log(`wrote ${relative(ROOT, file)} (${((performance.now() - started) / 1000).toFixed(0)} s in all)`);
  for (const line of report.missed) console.log(`MISSED: ${line}`);
}

const x = (value) => `${value.toFixed(2)}×`;
const bold = (text, on) => (on ? `**${text}**` : text);

function render(results, probes, reopened) {
  const missed = [];
  const rows = [];
  for (const r of results) {
    const direct = r.direct;
    for (const name of ["direct", "relay", "lean"]) {
      const run = r[name];
      const p50 = median(run.latencies) / median(direct.latencies);
      const p99 = percentile(run.latencies, 99) / percentile(direct.latencies, 99);
      const rps = run.perSecond / direct.perSecond;
      const judged = name === "relay";
      const p50Missed = judged && p50 > TARGET_P50_RATIO;
      const rpsMissed = judged && r.concurrency === 64 && rps < TARGET_RPS_RATIO;
      if (p50Missed) {
        missed.push(
          `p50 at concurrency ${r.concurrency} is ${x(p50)} the direct server's (target ≤ ${TARGET_P50_RATIO}×)`,
        );
      }
      if (rpsMissed) {
        missed.push(
          `calls/s at concurrency 64 is ${x(rps)} the direct server's (target ≥ ${TARGET_RPS_RATIO}×)`,
        );
      }
      rows.push([
        String(r.concurrency),
        PATHS[name],
        fmt(median(run.latencies)),
        fmt(percentile(run.latencies, 99)),
        run.perSecond.toFixed(0),
        name === "direct" ? "" : bold(x(p50), p50Missed),
        name === "direct" ? "" : x(p99),
        name === "direct" ? "" : bold(x(rps), rpsMissed),
        `${run.calls}${run.failures ? ` (+${run.failures} failed)` : ""}`,
      ]);
    }
  }
  const table = markdownTable(
    [
      "concurrency",
      "path",
      "p50",
      "p99",
      "calls/s",
      "p50 ÷ direct",
      "p99 ÷ direct",
      "calls/s ÷ direct",
      "calls",
    ],
    rows,
  );
  const worst = (name) =>
    Math.max(...results.map((r) => median(r[name].latencies) / median(r.direct.latencies)));
  const at64 = results.find((r) => r.concurrency === 64);
  const rps64 = (name) => at64[name].perSecond / at64.direct.perSecond;
  const verdict = (met) => (met ? "met" : "**MISSED**");
  const failures = results.flatMap((r) =>
    ["relay", "lean", "direct"]
      .filter((name) => r[name].failures > 0)
      .map(
        (name) =>
          `- ${r[name].failures} calls (${PATHS[name]}, concurrency ${r.concurrency}) failed and are left out of the latencies; the first: ${r[name].firstFailure}`,
      ),
  );

  const probeOf = (key) => {
    if (!probes[key]) throw new Error(`no probe ${key}`);
    return probes[key];
  };
  const p = (name, c) => median(probeOf(`${name}@${c}`).latencies);
  const rps = (name, c) => probeOf(`${name}@${c}`).perSecond;
  const leg = (name, c, part) => median(probeOf(`legs-${name}@${c}`)[part]);
  const directP50 = median(results[0].direct.latencies);
  const probeRows = [
    ["`GET /healthz` under the `wrangler dev` CLI: the local floor as people run it", "healthz-cli"],
    ["`GET /healthz`: the Worker alone (no D1, no Durable Object)", "healthz"],
    ["`GET /bench/d1`: one D1 round trip (`SELECT 1`)", "d1"],
    [
      "`GET /bench/auth`: the agent-token check alone (`authenticateAgent`: one joined query through drizzle)",
      "auth",
    ],
    ["`GET /bench/auth-sql`: the same check as one raw SQL join", "auth-sql"],
    ["`GET /bench/do`: one RPC to the channel's Durable Object that does nothing", "do"],
    ["MCP `ping` on `/bench/mcp` (no token check): Worker, DO, SDK transport", "ping-bare"],
    ["MCP `ping` on the real endpoint: + the token's hash checked by the session", "ping-hub"],
    ["MCP `ping`, direct server", "ping-direct"],
    ["`echo` on `/bench/mcp`: + validation, WebSocket, provider, audit row", "echo-bare"],
    ["… the same (SSE) without the audit row", "echo-bare-no-audit"],
    ["`POST /api/channels/:id/calls` `echo`: token check and DO RPC, no MCP transport", "plain-call"],
    ["`echo_timed` on the real endpoint: everything", "echo-timed-lean"],
    ["`echo_timed` on the real endpoint under the `wrangler dev` CLI", "echo-timed-relay"],
  ].map(([label, name]) => [label, fmt(p(name, 1)), fmt(p(name, 64)), rps(name, 64).toFixed(0)]);
  const legRows = [
    ["client → provider (Worker, token check, DO, MCP transport, validation, WebSocket)", "out"],
    ["the provider (run `echo`, send the result)", "provider"],
    ["provider → client (DO, audit row, SSE, Worker, client)", "back"],
  ].map(([label, part]) => [
    label,
    fmt(leg("lean", 1, part)),
    fmt(leg("lean", 64, part)),
    fmt(leg("relay", 1, part)),
    fmt(leg("relay", 64, part)),
  ]);

  const lines = [
    `Times in ms, from \`callTool\` to its result in the client; calls/s over the whole window. One MCP SDK v2 client (2025-11-25 era, one session) per path, with 1, 16 or 64 callers calling back to back (closed loop); ${SECONDS} s a path and concurrency, in ${ROUNDS} rounds with the order alternating, after ${WARMUP_SECONDS} s warm-ups.`,
    "",
    `- **${PATHS.relay}**: the channel's MCP endpoint (capability URL) under the \`wrangler dev\` CLI (local D1 and Durable Object, \`ALLOW_PRIVATE_ORIGINS\` on) → ChannelRelay → a Node \`ws\` provider paired as a sidecar, in its own process (\`bench/relay/echo-provider.mjs\`). The targets are judged on this path.`,
    `- **${PATHS.lean}**: the same through wrangler's own dev server (\`unstable_startWorker\`, which the CLI runs) with \`dev.inspector: false\` (\`bench/relay/dev-without-inspector.mjs\`). The CLI always turns on the DevTools inspector, and wrangler then relays a Network event for every subrequest (each D1 query, each Durable Object call) to its Node process; deployed Workers pay nothing like it.`,
    `- **${PATHS.direct}**: an SDK v2 low-level \`Server\` with the same \`echo\`, here in the 2025-11-25 era over \`WebStandardStreamableHTTPServerTransport\` (sessionful, SSE responses), in its own process (\`bench/relay/direct-server.mjs\`).`,
    "",
    'Both hubs run `bench/relay/wrangler.toml`: the real app and ChannelRelay, plus the `/bench/` probes below. Every path answers `{content: [{type: "text", text}]}`.',
    "",
    table,
    "",
    ...failures,
    ...(reopened.length
      ? [
          `- wrangler restarted a hub's Worker during the run (a source file changed), which ends its MCP sessions; the clients opened new ones after the 404, as the spec asks, and the provider reconnected. New sessions: ${reopened.join("; ")}.`,
        ]
      : []),
    `- p50 against direct, worst concurrency: **${x(worst("relay"))}** (target ≤ ${TARGET_P50_RATIO}×: ${verdict(worst("relay") <= TARGET_P50_RATIO)}); without the inspector ${x(worst("lean"))}.`,
    `- calls/s at concurrency 64 against direct: **${x(rps64("relay"))}** (target ≥ ${TARGET_RPS_RATIO}×: ${verdict(rps64("relay") >= TARGET_RPS_RATIO)}); without the inspector ${x(rps64("lean"))}.`,
    "",
    "### Where a relayed call's time goes",
    "",
    `Requests that take one cost after another off a relayed call, on the hub without inspector unless said (${PROBE_SECONDS} s each, in two passes; p50 in ms):`,
    "",
    markdownTable(["request", "p50 at 1", "p50 at 64", "calls/s at 64"], probeRows),
    "",
    "The legs of one `echo_timed` call (p50 in ms; the provider stamps when the call frame arrived and when the result left, on the same machine's clock):",
    "",
    markdownTable(["leg", "no inspector, at 1", "no inspector, at 64", "CLI, at 1", "CLI, at 64"], legRows),
    "",
    "What the probes say (this run):",
    "",
    `- The local floor: the Worker alone answers \`GET /healthz\` in ${fmt(p("healthz-cli", 1))} ms p50 under the CLI (${fmt(p("healthz", 1))} without inspector), ${x(p("healthz-cli", 1) / directP50)} the direct server's whole \`echo\` call (${fmt(directP50)} ms). Every request crosses wrangler's ProxyWorker, the assets router and the Worker before any of our code runs; a Worker request with one no-op Durable Object RPC: ${fmt(p("do", 1))} ms.`,
    `- The DevTools inspector of the CLI: \`echo_timed\` ${fmt(p("echo-timed-relay", 1))} against ${fmt(p("echo-timed-lean", 1))} ms at 1, ${rps("echo-timed-relay", 64).toFixed(0)} against ${rps("echo-timed-lean", 64).toFixed(0)} calls/s at 64.`,
    `- The agent token within a session (D1 is asked once, at \`initialize\`; later requests send the token's SHA-256, which the session compares): MCP \`ping\` takes ${fmt(p("ping-hub", 1) - p("ping-bare", 1))} ms more with it at 1, and runs ${x(rps("ping-bare", 64) / rps("ping-hub", 64))} the calls/s without it at 64. The full check (\`authenticateAgent\`) alone: ${fmt(p("auth", 1))} ms; a Worker request with one local D1 \`SELECT 1\`: ${fmt(p("d1", 1))} ms; the same join as raw SQL, without drizzle: ${fmt(p("auth-sql", 1))} against ${fmt(p("auth", 1))} ms.`,
    `- The audit row (SHA-256 of the arguments, two SQLite writes per call): \`echo\` without it runs ${x(rps("echo-bare-no-audit", 64) / rps("echo-bare", 64))} the calls/s at 64.`,
    "",
    "`node bench/relay/profile.mjs` takes a CPU profile of the Worker isolate during relayed calls. bench/relay/README.md has what it showed and the proposals.",
  ];
  return { text: lines.join("\n"), missed };
}

// Exiting runs scripts/lib/processes.mjs's exit hook, which kills wrangler, workerd and the bench's children.
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));

main().catch((e) => {
  console.error(e);
  if (/restarted|Session not found/i.test(String(e?.message))) {
    console.error(
      "wrangler dev restarted the Worker during the run (a source file it bundles changed): run the bench again.",
    );
  }
  process.exit(1);
});
