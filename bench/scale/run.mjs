// bench/scale: many channels in the local runtime, each with a provider, and agents calling them,
// to measure what the capacity model (docs/capacity.md) assumes:
//   - D1 row writes per call, amortised (target ≤ 0.01): every INSERT/UPDATE/DELETE on every ordinary D1 table
//     is counted by a trigger the bench installs in its own local D1 (bench/scale/worker.mjs /bench/d1-count),
//     so writes from any code path — the Worker, the objects' alarms, the rollup flush — are counted, and the
//     counters are read before and after the call phase (the flush included);
//   - storage per channel: each channel object's SQLite size (`ctx.storage.sql.databaseSize`) after the run,
//     and after its audit retention is applied as if 31 days had passed (when the object has such a hook);
//   - the rollup's error: the harness knows every call it made (each call's outcome is chosen by the harness
//     and obeyed by the provider), so per (site, tool, day) it compares calls / ok / error / denied / invalid /
//     changed and distinct channels with tool_usage_daily / _channels / _errors as flushed, and p50/p95 read
//     from the histogram with the exact quantiles of the durations the objects logged for the same calls (the
//     audit API), beside the end-to-end latencies the harness observed.
// The stack: bench/scale/wrangler.toml (the real app and ChannelRelay, plus read-only probes and a forced
// flush) bundled once and served by wrangler's dev server without its inspector, fresh state in
// bench/.data/scale; SITES copies of the demo site, registered, verified and published through the real API;
// each channel's provider is a WebSocket tab of one of those origins (bench/scale/providers.mjs, own process).
// Prints a table and refreshes the "scale" section of bench/RESULTS.md; a missed target prints MISSED and
// still exits 0.
//
//   BENCH_SCALE_CHANNELS   channels (default 1000)
//   BENCH_SCALE_CALLS      calls per channel (default 100)
//   BENCH_SCALE_CONCURRENCY  agents' requests in flight (default 32)
//   BENCH_SCALE_BATCH      calls per request (default 5; the route takes up to 20, run in order)
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { startDemoSite } from "../../scripts/lib/demo-site.mjs";
import { startProcess } from "../../scripts/lib/processes.mjs";
import { seedDemoSite } from "../../scripts/lib/seed.mjs";
import {
  buildWorker,
  machine,
  percentile,
  run,
  startWranglerDev,
  table,
  WRANGLER_ENV,
  writeResultsSection,
} from "../registry/harness.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "../..");
const DATA = join(ROOT, "bench/.data/scale");
const CHANNELS = Number(process.env.BENCH_SCALE_CHANNELS ?? 1000);
const CALLS = Number(process.env.BENCH_SCALE_CALLS ?? 100);
const CONCURRENCY = Number(process.env.BENCH_SCALE_CONCURRENCY ?? 32);
const BATCH = Number(process.env.BENCH_SCALE_BATCH ?? 5);
const SITES = 4;
const POLICY_SHARE = 0.05; // channels whose owner runs only verified tools: their calls of the changed tool are denied
const TARGET_WRITES_PER_CALL = 0.01;
const RETAIN_SAMPLE = 50;
const log = (line) => console.error(`[scale] ${line}`);
const uptime = () => execFileSync("uptime", { encoding: "utf8" }).trim();
const day = () => new Date().toISOString().slice(0, 10);

// A small seeded PRNG, so two runs make the same calls.
let seed = 0x2545f491;
const rand = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) / 2 ** 32;
};
const gauss = () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());

/** Runs `fn` over `items` with `n` in flight. */
async function pool(items, n, fn) {
  const out = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i], i);
      }
    }),
  );
  return out;
}

async function api(hubUrl, method, path, { json, token, origin } = {}) {
  const headers = { accept: "application/json" };
  if (json !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  if (origin) headers.origin = origin;
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(hubUrl + path, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    const text = await res.text();
    if (res.ok) return JSON.parse(text);
    if (res.status >= 500 && attempt < 3) continue;
    throw new Error(`${method} ${path} answered ${res.status}: ${text.slice(0, 300)}`);
  }
}

/** The quantile as the rollup's histogram reads it: the smallest value with at least q of the samples ≤ it. */
function exactQuantile(sorted, q) {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

const pct = (a, b) => (b === 0 ? (a === 0 ? "0%" : "∞") : `${(((a - b) / b) * 100).toFixed(1)}%`);

rmSync(DATA, { recursive: true, force: true });
mkdirSync(DATA, { recursive: true });
const when = day();
const host = machine();
const uptimeBefore = uptime();
const startLoad = loadavg()[0];
console.log(`uptime at the start: ${uptimeBefore}`);
const cleanups = [];
let exitCode = 0;
try {
  const persistTo = join(DATA, "state");
  log("bundling the bench Worker once…");
  const config = await buildWorker({
    root: ROOT,
    config: join(HERE, "wrangler.toml"),
    outDir: join(DATA, "build"),
  });
  await run(
    "npx",
    ["wrangler", "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo, "-c", config],
    {
      cwd: ROOT,
      env: { ...process.env, ...WRANGLER_ENV },
    },
  );
  const dev = await startWranglerDev({ root: ROOT, config, persistTo, log, inspector: false });
  cleanups.unshift(() => dev.stop());
  const hubUrl = dev.url;

  // Sites: copies of the demo site on origins of their own, verified and published through the API.
  const sites = [];
  for (let i = 0; i < SITES; i++) {
    const demo = await startDemoSite({ port: 0 });
    cleanups.unshift(() => demo.close());
    const seeded = await seedDemoSite({ hubUrl, demo });
    const manifest = await demo.manifest();
    const pick = (name) => manifest.tools.find((t) => t.name === name);
    // greet and add-book as published (verified); buyProduct live with another description (changed).
    const tools = [
      pick("greet"),
      pick("add-book"),
      { ...pick("buyProduct"), description: `${pick("buyProduct").description} (changed on the page)` },
    ];
    sites.push({ host: seeded.host, origin: demo.origin, tools });
  }
  log(`hub ${hubUrl}; sites ${sites.map((s) => s.host).join(", ")}`);

  // Count every D1 row write from here on (setup's writes are in the first reading and subtracted).
  await api(hubUrl, "POST", "/bench/d1-count");

  // Channels, each paired with one tab provider of a site.
  log(`creating and pairing ${CHANNELS} channels…`);
  const setupStarted = performance.now();
  const channels = await pool(
    Array.from({ length: CHANNELS }, (_, i) => i),
    16,
    async (i) => {
      const site = sites[i % SITES];
      const created = await api(hubUrl, "POST", "/api/channels", { json: { name: `scale ${i}` } });
      const id = created.channel.id;
      const policy = i % Math.round(1 / POLICY_SHARE) === 7;
      if (policy)
        await api(hubUrl, "PATCH", `/api/channels/${id}`, {
          json: { verificationPolicy: "verified" },
          token: created.ownerKey,
        });
      const paired = await api(hubUrl, "POST", "/api/pair", {
        json: { code: created.pairingCode, kind: "tab", label: site.host },
        origin: site.origin,
      });
      return {
        id,
        site,
        policy,
        ownerKey: created.ownerKey,
        agentToken: created.agentToken,
        relayUrl: paired.relayUrl,
        providerToken: paired.providerToken,
      };
    },
  );
  const specsFile = join(DATA, "providers.json");
  writeFileSync(
    specsFile,
    JSON.stringify(
      channels.map((c) => ({
        relayUrl: c.relayUrl,
        providerToken: c.providerToken,
        origin: c.site.origin,
        tools: c.site.tools,
      })),
    ),
  );
  const providerLines = [];
  const connected = new Promise((resolve, reject) => {
    const proc = startProcess(process.execPath, [join(HERE, "providers.mjs"), specsFile], {
      cwd: ROOT,
      onLine: (line, stream) => {
        providerLines.push(line);
        if (stream === "stdout" && line.startsWith("{")) resolve(JSON.parse(line));
      },
    });
    cleanups.unshift(() => proc.stop(3000));
    proc.exited.then((e) =>
      reject(new Error(`providers exited (${e.code}): ${providerLines.slice(-10).join("\n")}`)),
    );
  });
  log(`providers: ${JSON.stringify(await connected)}`);

  // The names agents call, from one channel of each site (one provider: the tools' own names, or prefixed).
  for (const site of sites) {
    const c = channels.find((ch) => ch.site === site);
    for (let attempt = 0; ; attempt++) {
      const snap = await api(hubUrl, "GET", `/api/channels/${c.id}`, { token: c.ownerKey });
      const names = (snap.tools ?? []).map((t) => t.name);
      site.exposed = Object.fromEntries(
        site.tools.map((t) => [
          t.name,
          names.find((n) => n === t.name || n.endsWith(`__${t.name}`) || n.endsWith(`_${t.name}`)),
        ]),
      );
      if (Object.values(site.exposed).every(Boolean)) break;
      if (attempt > 100) throw new Error(`channel ${c.id} lists ${names.join(", ")}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const setupSeconds = (performance.now() - setupStarted) / 1000;
  log(`setup ${setupSeconds.toFixed(0)} s; exposed names ${JSON.stringify(sites[0].exposed)}`);

  // The plan: every call's channel, tool, arguments and expected outcome, decided here.
  const plan = [];
  for (const c of channels)
    for (let k = 0; k < CALLS; k++) {
      const r = rand();
      const delay = rand() < 0.3 ? 0 : Math.min(400, Math.round(Math.exp(Math.log(6) + gauss())));
      let tool = rand() < 0.5 ? "greet" : "add-book";
      let outcome = "ok";
      if (r < 0.08) outcome = "error";
      else if (r < 0.11) outcome = "denied";
      else if (r < 0.14) outcome = "invalid";
      else if (r < 0.28) tool = "buyProduct";
      const text = `${outcome}:${delay}:${k}`;
      const args =
        outcome === "invalid"
          ? { wrong: 1 }
          : tool === "greet"
            ? { name: text }
            : tool === "add-book"
              ? { title: text, author: "Bench" }
              : { product_id: text };
      const expected = tool === "buyProduct" && c.policy ? "denied" : outcome;
      plan.push({ c, tool, args, expected });
    }
  // Requests of BATCH calls of one channel each (the plain HTTP route runs a request's calls in order), the
  // channels' requests interleaved, as many agents at once would send them.
  const requests = [];
  for (let i = 0; i < plan.length; i += BATCH) requests.push(plan.slice(i, i + BATCH).map((p, j) => i + j));
  for (let i = requests.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [requests[i], requests[j]] = [requests[j], requests[i]];
  }

  const before = await api(hubUrl, "GET", "/bench/d1-writes");
  log(`${plan.length} calls in ${requests.length} requests, ${CONCURRENCY} requests in flight…`);
  const callsStarted = performance.now();
  let done = 0;
  const ticker = setInterval(() => {
    const s = (performance.now() - callsStarted) / 1000;
    log(`${done} calls in ${s.toFixed(0)} s (${(done / s).toFixed(0)}/s)`);
  }, 15_000);
  const results = new Array(plan.length);
  const requestMs = await pool(requests, CONCURRENCY, async (idx) => {
    const c = plan[idx[0]].c;
    const t0 = performance.now();
    const at = day();
    let statuses;
    try {
      const body = await api(hubUrl, "POST", `/api/channels/${c.id}/calls`, {
        // A model's output with several calls: a JSON array of {function, arguments} (protocol/function-calls.ts).
        json: {
          text: JSON.stringify(
            idx.map((i) => ({ function: c.site.exposed[plan[i].tool], arguments: plan[i].args })),
          ),
        },
        token: c.agentToken,
      });
      statuses = body.results.map((r) => r.status);
    } catch (e) {
      statuses = idx.map(() => `failed: ${e.message.slice(0, 120)}`);
    }
    idx.forEach((i, j) => (results[i] = { status: statuses[j], day: at }));
    done += idx.length;
    return performance.now() - t0;
  });
  clearInterval(ticker);
  const callSeconds = (performance.now() - callsStarted) / 1000;
  const mismatched = results.filter((r, i) => r.status !== plan[i].expected);
  log(`calls done in ${callSeconds.toFixed(0)} s; ${mismatched.length} not as planned`);

  // Force each channel's rollup flush (its alarm would, ROLLUP_FLUSH_MS after its first call).
  const flushed = await pool(channels, 16, (c) => api(hubUrl, "POST", `/bench/flush/${c.id}`));
  // Then each site's aggregator writes D1 (its alarm would, ROLLUP_FLUSH_MS after the first channel's flush).
  await pool(sites, 4, (s) => api(hubUrl, "POST", `/bench/flush-site/${s.host}`));
  const flushHook = flushed.some((f) => f.flushed);
  const after = await api(hubUrl, "GET", "/bench/d1-writes");
  const d1Rows = await api(hubUrl, "GET", "/bench/d1-rows");
  const writes = {};
  for (const [t, ops] of Object.entries(after)) {
    const b = before[t] ?? { insert: 0, update: 0, delete: 0 };
    const n = ops.insert - b.insert + ops.update - b.update + (ops.delete - b.delete);
    if (n)
      writes[t] = {
        insert: ops.insert - b.insert,
        update: ops.update - b.update,
        delete: ops.delete - b.delete,
        n,
      };
  }
  const totalWrites = Object.values(writes).reduce((a, w) => a + w.n, 0);
  const perCall = totalWrites / plan.length;

  // Exact figures, per (site, tool, day), from what the harness made.
  const key = (h, t, d) => `${h} ${t} ${d}`;
  const exact = new Map();
  plan.forEach((p, i) => {
    const k = key(p.c.site.host, p.tool, results[i].day);
    const e =
      exact.get(k) ??
      exact
        .set(k, {
          calls: 0,
          ok: 0,
          error: 0,
          denied: 0,
          invalid: 0,
          changed: 0,
          channels: new Set(),
          durations: [],
        })
        .get(k);
    e.calls++;
    if (e[results[i].status] !== undefined) e[results[i].status]++;
    if (p.tool === "buyProduct") e.changed++;
    e.channels.add(p.c.id);
  });
  // The durations the objects logged for the same calls (the audit API, every page of every channel).
  log("reading every channel's audit log for the logged durations…");
  const auditPages = await pool(channels, 16, async (c) => {
    const rows = [];
    let cursor = null;
    do {
      const page = await api(
        hubUrl,
        "GET",
        `/api/channels/${c.id}/audit?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
        { token: c.ownerKey },
      );
      rows.push(...(page.entries ?? page.rows ?? page.items ?? []));
      cursor = page.nextCursor;
    } while (cursor);
    return rows;
  });
  let auditRows = 0;
  auditPages.forEach((rows, i) => {
    const c = channels[i];
    for (const r of rows) {
      auditRows++;
      const tool = c.site.tools.find((t) => c.site.exposed[t.name] === r.tool)?.name ?? r.tool;
      const d = String(r.at).slice(0, 10);
      const e = exact.get(key(c.site.host, tool, d));
      if (e && typeof r.durationMs === "number") e.durations.push(r.durationMs);
    }
  });

  const usage = await api(hubUrl, "GET", "/bench/usage");
  const rollupRows = [];
  let worstCount = 0;
  let worstP = 0;
  let missingKeys = 0;
  for (const [k, e] of [...exact].sort()) {
    const [h, t, d] = k.split(" ");
    const row = usage.daily.find((r) => r.host === h && r.tool === t && r.day === d);
    const ch = usage.channels.find((r) => r.host === h && r.tool === t && r.day === d);
    if (!row) missingKeys++;
    const durations = [...e.durations].sort((a, b) => a - b);
    const ex50 = exactQuantile(durations, 0.5);
    const ex95 = exactQuantile(durations, 0.95);
    for (const f of ["calls", "ok", "error", "denied", "invalid", "changed"])
      worstCount = Math.max(worstCount, Math.abs((row?.[f] ?? 0) - e[f]));
    if (row?.p50Ms != null && ex50 != null)
      worstP = Math.max(worstP, row.p50Ms / Math.max(ex50, 1), row.p95Ms / Math.max(ex95, 1));
    rollupRows.push([
      `${h} ${t}`,
      d,
      `${row?.calls ?? "—"} / ${e.calls}`,
      `${row?.ok ?? "—"} / ${e.ok}`,
      `${row?.error ?? "—"} / ${e.error}`,
      `${row?.denied ?? "—"} / ${e.denied}`,
      `${row?.invalid ?? "—"} / ${e.invalid}`,
      `${row?.changed ?? "—"} / ${e.changed}`,
      ch ? `${ch.estimate} (${ch.n} rows) / ${e.channels.size}` : `— / ${e.channels.size}`,
      `${row?.p50Ms ?? "—"} / ${ex50 ?? "—"}`,
      `${row?.p95Ms ?? "—"} / ${ex95 ?? "—"}`,
    ]);
  }
  const errorRows = usage.errors.length;

  // Storage per channel: every object's SQLite, then a sample after retention as if 31 days had passed.
  log("reading each channel object's storage…");
  const storage = await pool(channels, 16, (c) => api(hubUrl, "GET", `/bench/storage/${c.id}`));
  const sizes = storage.map((s) => s.databaseSize).sort((a, b) => a - b);
  const tablesSeen = {};
  for (const s of storage)
    for (const [t, n] of Object.entries(s.rows)) tablesSeen[t] = (tablesSeen[t] ?? 0) + n;
  const sample = channels.slice(0, RETAIN_SAMPLE);
  const retained = await pool(sample, 8, (c) =>
    api(hubUrl, "POST", `/bench/retain/${c.id}`, { json: { days: 31 } }),
  );
  const retainHook = retained.find((r) => r.hook)?.hook ?? null;
  const afterRetention = retainHook
    ? (await pool(sample, 8, (c) => api(hubUrl, "GET", `/bench/storage/${c.id}`))).map((s) => s)
    : [];
  const kib = (b) => (b / 1024).toFixed(1);
  const mean = (a) => a.reduce((x, y) => x + y, 0) / Math.max(1, a.length);
  const uptimeAfter = uptime();
  const loaded = Math.max(startLoad, loadavg()[0]) > cpus().length;

  const statusCounts = {};
  for (const r of results)
    statusCounts[r.status.split(":")[0]] = (statusCounts[r.status.split(":")[0]] ?? 0) + 1;
  const text = [
    `${CHANNELS.toLocaleString("en")} channels (${SITES} sites, ${channels.filter((c) => c.policy).length} channels running verified tools only), ${CALLS} calls each: ${plan.length.toLocaleString("en")} calls in ${callSeconds.toFixed(0)} s (${(plan.length / callSeconds).toFixed(0)}/s, ${CONCURRENCY} in flight, plain HTTP \`POST /api/channels/:id/calls\` with ${BATCH} calls a request, request p50 ${percentile(requestMs, 50).toFixed(0)} ms, p95 ${percentile(requestMs, 95).toFixed(0)} ms); outcomes ${Object.entries(
      statusCounts,
    )
      .map(([s, n]) => `${s} ${n}`)
      .join(
        ", ",
      )}; ${mismatched.length} not as planned. Setup (channels created, paired, providers connected) ${setupSeconds.toFixed(0)} s.`,
    "",
    "**D1 row writes during the calls and the forced flush** (counted by triggers on every D1 table):",
    "",
    table(
      ["table", "inserted", "updated", "deleted", "rows written"],
      [
        ...Object.entries(writes).map(([t, w]) => [
          t,
          String(w.insert),
          String(w.update),
          String(w.delete),
          String(w.n),
        ]),
        ["**all**", "", "", "", `**${totalWrites}**`],
      ],
    ),
    "",
    `- **${perCall.toFixed(4)} D1 rows written per call** (target ≤ ${TARGET_WRITES_PER_CALL}: ${perCall <= TARGET_WRITES_PER_CALL ? "**MET**" : "**MISSED**"}); ${flushHook ? "the rollups were flushed by the bench's hooks (each channel's flush to its site's aggregator, then each aggregator's one D1 write, as their alarms run them)" : "**no rollup flush in this build** (usage-rollup.ts not present): D1 got no rollups"}. D1 rows afterwards: ${
      Object.entries(d1Rows)
        .filter(([t]) => /audit|usage/.test(t))
        .map(([t, n]) => `${t} ${n}`)
        .join(", ") || "—"
    }.`,
    `- Rollup rows: ${usage.daily.length} in tool_usage_daily, ${usage.channels.reduce((a, r) => a + r.n, 0)} in tool_usage_channels, ${errorRows} in tool_usage_errors, for ${exact.size} (site, tool, day) keys${missingKeys ? `; **${missingKeys} keys missing**` : ""}.`,
    "",
    "**Rollup against exact** (rollup / exact; p50/p95 in ms: the rollup's histogram / the exact quantile of the durations the objects logged in their audit rows for the same calls):",
    "",
    table(
      [
        "site tool",
        "day",
        "calls",
        "ok",
        "error",
        "denied",
        "invalid",
        "changed",
        "channels (KMV estimate from D1's rows)",
        "p50",
        "p95",
      ],
      rollupRows,
    ),
    "",
    `- Largest count difference ${worstCount}; latency from the histogram at most ${worstP ? worstP.toFixed(2) : "—"}× the exact quantile (bucket bounds ⌈2^(i/2)⌉ ms: a reading is at most ~1.44× the true value above 20 ms; more than that means the two durations differ — the rollup takes its Date.now() after the audit row's write has been awaited, the audit row before). Audit rows read back: ${auditRows} of ${plan.length}.`,
    "",
    "**Storage per channel object** (SQLite `databaseSize`):",
    "",
    table(
      ["", "min", "median", "mean", "max"],
      [
        [
          "after the run, KiB",
          kib(sizes[0]),
          kib(percentile(sizes, 50)),
          kib(mean(sizes)),
          kib(sizes.at(-1)),
        ],
        ...(afterRetention.length
          ? [
              (() => {
                const s = afterRetention.map((x) => x.databaseSize).sort((a, b) => a - b);
                return [
                  `after retention (+31 days, ${RETAIN_SAMPLE} channels), KiB`,
                  kib(s[0]),
                  kib(percentile(s, 50)),
                  kib(mean(s)),
                  kib(s.at(-1)),
                ];
              })(),
            ]
          : []),
      ],
    ),
    "",
    `- Rows in the objects' tables after the run, all channels: ${Object.entries(tablesSeen)
      .map(([t, n]) => `${t} ${n}`)
      .join(
        ", ",
      )}. About ${kib((mean(sizes) - (afterRetention.length ? mean(afterRetention.map((x) => x.databaseSize)) : 0)) / CALLS)} KiB a call kept in the object${afterRetention.length ? ` (the difference before and after retention, per call); retention hook \`${retainHook}\`` : " (no retention hook in this build: the size includes the object's fixed tables)"}.`,
    `- The machine: \`uptime\` ${uptimeBefore.replace(/.*load/, "load")} at the start, ${uptimeAfter.replace(/.*load/, "load")} at the end${loaded ? ` — loaded (more runnable work than its ${cpus().length} cores): the rates are noisy; the counts and sizes are not` : ""}.`,
  ].join("\n");
  console.log(`\n${text}\n`);
  await writeResultsSection(join(ROOT, "bench/RESULTS.md"), "scale", {
    title: "scale — many channels: D1 row writes per call, storage per channel, rollups against exact counts",
    when,
    machine: host,
    command: `BENCH_SCALE_CHANNELS=${CHANNELS} BENCH_SCALE_CALLS=${CALLS} node bench/run.mjs scale`,
    text,
  });
} catch (e) {
  console.error(e);
  exitCode = 1;
} finally {
  for (const cleanup of cleanups)
    await Promise.resolve()
      .then(cleanup)
      .catch(() => {});
}
process.exit(exitCode);
