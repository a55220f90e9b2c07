// bench/hardening: the schema ReDoS against `wrangler dev`. A provider offers `match`,
// whose inputSchema has `"pattern": "^(a+)+$"`, and `typed`, whose outputSchema has the same pattern while
// it returns the attack string as structuredContent; an MCP SDK client calls them with 27 and 31 `a`s and a
// `!` (the original report's inputs: 11.9 s and ~30 s of the channel's object before the fix) and with 100,000 `a`s;
// `tree` (nested anyOf through $ref, exponential in the value's depth before) and `unique` (uniqueItems on
// the most items the hub checks) show the other two bounded keywords.
// Then /healthz is timed idle, while four clients call `match` with an ordinary argument back to back (the
// load alone: this machine has two cores for wrangler, workerd and the clients), and while the same four
// call it with the attack input. Targets: an attack call answers in ≤ 50 ms (p50; p95 moves with the machine's load), and the attack calls do
// not delay /healthz more than the same number of ordinary calls do (p95 ≤ 1.5× theirs, or within 5 ms).
// Refreshes the "hardening" section of RESULTS.md.
//
//   BENCH_CALLS   calls per input (default 30)
import { mkdir, rm } from "node:fs/promises";
import { cpus } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  connectRelayProvider,
  createChannel,
  pairSidecar,
  waitForTools,
} from "../../test/support/conformance-provider.mjs";
import {
  WRANGLER_ENV,
  buildWorker,
  machine,
  run,
  startWranglerDev,
  writeResultsSection,
} from "../registry/harness.mjs";
import { connectClient, fmt, markdownTable, percentile } from "../relay/load.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/hardening");
const CALLS = Number(process.env.BENCH_CALLS ?? 30);
const TARGET_CALL_MS = 50;
const ATTACKERS = 4;

const log = (line) => console.error(`[hardening] ${line}`);
const attack = (n) => `${"a".repeat(n)}!`;

const TOOLS = [
  {
    name: "match",
    description: "Echoes a string of a's (its schema's pattern is the ReDoS one).",
    inputSchema: {
      type: "object",
      properties: { text: { type: "string", pattern: "^(a+)+$" } },
      required: ["text"],
    },
    annotations: { readOnlyHint: true },
  },
  {
    name: "typed",
    description: "Returns its text as structuredContent checked against a ReDoS outputSchema pattern.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    outputSchema: {
      type: "object",
      properties: { s: { type: "string", pattern: "^(a+)+$" } },
      required: ["s"],
    },
    annotations: { readOnlyHint: true },
  },
];

// Nested anyOf through $ref: exponential in the value's depth without the hub's step budget.
const BRANCHING = {
  type: "object",
  properties: { v: { $ref: "#/$defs/n" } },
  $defs: {
    n: {
      anyOf: [
        { type: "array", items: { $ref: "#/$defs/n" }, minItems: 2 },
        { type: "array", items: { $ref: "#/$defs/n" } },
      ],
    },
  },
};
TOOLS.push(
  {
    name: "tree",
    description: "Takes a nested array (its schema branches at every level).",
    inputSchema: BRANCHING,
    annotations: { readOnlyHint: true },
  },
  {
    name: "unique",
    description: "Takes an array of distinct items.",
    inputSchema: { type: "object", properties: { a: { type: "array", uniqueItems: true } } },
    annotations: { readOnlyHint: true },
  },
);
const nest = (levels) => {
  let v = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
};

const handlers = {
  tree: () => ({ content: [{ type: "text", text: "ok" }] }),
  unique: () => ({ content: [{ type: "text", text: "ok" }] }),
  match: ({ text }) => ({ content: [{ type: "text", text: String(text).slice(0, 40) }] }),
  typed: ({ text }) => ({ content: [{ type: "text", text: "{}" }], structuredContent: { s: text } }),
};

async function timeCall(client, name, text, expectError) {
  const started = performance.now();
  const args = typeof text === "string" ? { text } : text;
  const result = await client.callTool({ name, arguments: args });
  const ms = performance.now() - started;
  if (Boolean(result.isError) !== expectError)
    throw new Error(`${name} answered ${JSON.stringify(result).slice(0, 300)}`);
  return ms;
}

async function timeHealthz(url, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const res = await fetch(`${url}/healthz`);
    await res.arrayBuffer();
    samples.push(performance.now() - started);
  }
  return samples;
}

const row = (label, samples) => [
  label,
  String(samples.length),
  fmt(percentile(samples, 50)),
  fmt(percentile(samples, 95)),
  fmt(Math.max(...samples)),
];

async function main() {
  // The relay bench's Worker (the real app and ChannelRelay), bundled once so that edits under src/ during
  // the run do not restart it mid-call.
  const built = await buildWorker({
    root: ROOT,
    config: join(ROOT, "bench/relay/wrangler.toml"),
    outDir: join(DATA, "build"),
  });
  const persistTo = join(DATA, "state");
  await rm(persistTo, { recursive: true, force: true });
  await mkdir(persistTo, { recursive: true });
  await run(
    "npx",
    ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo, "-c", built],
    {
      cwd: ROOT,
      env: { ...process.env, ...WRANGLER_ENV },
    },
  );
  const hub = await startWranglerDev({ root: ROOT, config: built, persistTo, log });
  const stops = [() => hub.stop()];
  try {
    const channel = await createChannel(hub.url, "hardening");
    const paired = await pairSidecar(hub.url, channel.pairingCode, "bench");
    const provider = await connectRelayProvider({
      relayUrl: paired.relayUrl,
      providerToken: paired.providerToken,
      label: "bench",
      tools: TOOLS,
      handlers,
    });
    stops.unshift(() => provider.close());
    await waitForTools(hub.url, channel.channel.id, channel.ownerKey, ["match", "typed", "tree", "unique"]);
    const client = await connectClient(channel.mcpCapabilityUrl);
    stops.unshift(() => client.close());
    log(`hub ${hub.url}, channel ${channel.channel.id}`);

    // Warm up (the Worker, the object, the compiled schema).
    for (let i = 0; i < 5; i++) await timeCall(client, "match", "aaaa", false);

    // Interleaved, one call of each input per round, so the machine's noise falls on all of them alike.
    const inputs = [
      ["`match`, ordinary argument (`aaaa`)", "match", "aaaa", false],
      ["`match`, 27 a's + `!` (inputSchema pattern)", "match", attack(27), true],
      ["`match`, 31 a's + `!` (inputSchema pattern)", "match", attack(31), true],
      ["`match`, 100,000 a's + `!`", "match", attack(100_000), true],
      ["`typed`, 31 a's + `!` (outputSchema pattern)", "typed", attack(31), true],
      ["`tree`, an array nested 60 deep (branching anyOf)", "tree", { v: nest(60) }, true],
      ["`unique`, 2,000 distinct numbers (uniqueItems)", "unique", { a: [...Array(2000).keys()] }, false],
    ];
    const calls = inputs.map(([label]) => [label, []]);
    for (let i = 0; i < CALLS; i++) {
      for (const [k, [, name, text, expectError]] of inputs.entries()) {
        calls[k][1].push(await timeCall(client, name, text, expectError));
      }
    }

    await timeHealthz(hub.url, 10);
    const clients = await Promise.all(
      Array.from({ length: ATTACKERS }, () => connectClient(channel.mcpCapabilityUrl)),
    );
    for (const c of clients) stops.unshift(() => c.close());
    /** /healthz timings while every client calls `match` with `text` back to back. */
    const under = async (text) => {
      let running = true;
      let count = 0;
      const loops = clients.map(async (c) => {
        while (running) {
          await c.callTool({ name: "match", arguments: { text } });
          count++;
        }
      });
      await timeHealthz(hub.url, 5);
      const samples = await timeHealthz(hub.url, 50);
      running = false;
      await Promise.all(loops);
      return { samples, count };
    };
    // Two rounds, alternating, so a burst of load from elsewhere on the machine hits both alike.
    const idle = [];
    const ordinary = { samples: [], count: 0 };
    const attacked = { samples: [], count: 0 };
    for (let round = 0; round < 2; round++) {
      idle.push(...(await timeHealthz(hub.url, 50)));
      const phases = round === 0 ? ["aaaa", attack(31)] : [attack(31), "aaaa"];
      for (const text of phases) {
        const got = await under(text);
        const into = text === "aaaa" ? ordinary : attacked;
        into.samples.push(...got.samples);
        into.count += got.count;
      }
    }

    const attacks = calls.slice(1, 6); // every attack input (`unique` is a valid call, shown for its cost)
    const worstAttackP50 = Math.max(...attacks.map(([, s]) => percentile(s, 50)));
    const worstAttackP95 = Math.max(...attacks.map(([, s]) => percentile(s, 95)));
    const ordinaryCallP50 = percentile(calls[0][1], 50);
    const callMet = worstAttackP50 <= TARGET_CALL_MS;
    const idleP95 = percentile(idle, 95);
    const ordinaryP95 = percentile(ordinary.samples, 95);
    const attackedP95 = percentile(attacked.samples, 95);
    const healthMet = attackedP95 <= Math.max(1.5 * ordinaryP95, ordinaryP95 + 5);

    const header = ["", "n", "p50 ms", "p95 ms", "max ms"];
    const text = [
      "Latency of a call through `wrangler dev` → ChannelRelay → a Node provider, by input (the attack",
      "inputs answer `isError`: the string does not match the pattern; `tree` answers that it could not be",
      "checked within the step budget; `unique` is the most items uniqueItems is checked on).",
      "",
      markdownTable(
        header,
        calls.map(([label, s]) => row(label, s)),
      ),
      "",
      `\`GET /healthz\`, sequential: idle, and while ${ATTACKERS} clients call \`match\` back to back with an ordinary argument (${ordinary.count} calls meanwhile) or with 31 a's + \`!\` (${attacked.count} calls):`,
      "",
      markdownTable(header, [
        row("idle", idle),
        row("during ordinary calls", ordinary.samples),
        row("during attack calls", attacked.samples),
      ]),
      "",
      `- **Attack call ≤ ${TARGET_CALL_MS} ms (p50): ${callMet ? "met" : "MISSED"}** (worst p50 ${fmt(worstAttackP50)} ms and p95 ${fmt(worstAttackP95)} ms, against ${fmt(ordinaryCallP50)} ms p50 for an ordinary call in the same rounds; before the fix 27 a's took 11.9 s and 31 a's ~30 s).`,
      `- **/healthz not delayed by the attack: ${healthMet ? "met" : "MISSED"}** (p95 ${fmt(idleP95)} ms idle, ${fmt(ordinaryP95)} ms during as many ordinary calls, ${fmt(attackedP95)} ms during attack calls; the difference from idle is the load of ${ATTACKERS} busy clients on a ${cpus().length}-core machine, with or without the attack).`,
    ].join("\n");
    console.log(text);
    await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "hardening", {
      title: "hardening (schema ReDoS)",
      when: new Date().toISOString().slice(0, 10),
      machine: machine(),
      command: "node bench/run.mjs hardening",
      text,
    });
  } finally {
    for (const stop of stops) await Promise.resolve(stop()).catch(() => {});
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
