// What a bench that drives `wrangler dev` needs: timed requests, a Worker bundled once, the dev server's
// lifetime, percentiles, a Markdown table, the machine's description, and its own section of RESULTS.md.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { createServer } from "node:net";
import { cpus, loadavg, totalmem } from "node:os";

/**
 * One request, timed from send to the last byte of the body; a non-2xx answer throws. `sqlMs` is the SQL time
 * D1 reported for it, when the Worker says (the registry bench Worker's x-bench-sql-ms header).
 */
export async function timed(url, init) {
  const start = performance.now();
  const res = await fetch(url, init);
  const body = await res.text();
  const ms = performance.now() - start;
  if (!res.ok) throw new Error(`${init?.method ?? "GET"} ${url} → ${res.status}: ${body.slice(0, 300)}`);
  const sql = res.headers.get("x-bench-sql-ms");
  return { ms, body, sqlMs: sql === null ? undefined : Number(sql) };
}

export function mean(samples) {
  return samples.reduce((a, b) => a + b, 0) / samples.length;
}

export async function json(url, init) {
  return JSON.parse((await timed(url, init)).body);
}

/** Nearest-rank percentile of `samples` (p in 0..100). */
export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export const WRANGLER_ENV = { CI: "1", WRANGLER_SEND_METRICS: "false", NO_COLOR: "1" };

/** Runs a command, collecting output; rejects with that output when it fails. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(output)
        : reject(new Error(`${command} ${args.join(" ")} failed (${code}):\n${output}`)),
    );
  });
}

/**
 * Bundles the Worker of `config` once, with wrangler's own bundler (`wrangler deploy --dry-run --outdir`), and
 * writes a config next to the bundle that runs it as is (`no_bundle`). `wrangler dev` on that config does not
 * rebuild and restart the Worker when someone edits src/ mid-run, which would otherwise spike the timings.
 * Returns the generated config's path.
 */
export async function buildWorker({ root, config, outDir }) {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await run("npx", ["wrangler", "deploy", "--dry-run", "--outdir", outDir, "-c", config], {
    cwd: root,
    env: { ...process.env, ...WRANGLER_ENV },
  });
  const base = dirname(config);
  const built = readFileSync(config, "utf8")
    .replace(/^main\s*=.*$/m, 'main = "worker.js"\nno_bundle = true')
    .replace(/^(\s*(?:directory|migrations_dir)\s*=\s*)"([^"]+)"/gm, (line, key, path) =>
      isAbsolute(path) ? line : `${key}${JSON.stringify(resolve(base, path))}`,
    );
  const builtConfig = join(outDir, "wrangler.toml");
  writeFileSync(builtConfig, built);
  return builtConfig;
}

/**
 * Starts `wrangler dev` for `config` on a free loopback port with its local state in `persistTo`, waits until
 * it answers GET /healthz, and returns its URL and a `stop()` that ends the process group it started.
 * `inspector: false` runs the same dev server through wrangler's API without the DevTools inspector the CLI
 * always turns on (bench/relay/dev-without-inspector.mjs).
 */
export async function startWranglerDev({
  root,
  config,
  persistTo,
  log,
  timeoutMs = 90_000,
  inspector = true,
}) {
  const port = await freePort();
  let command = "npx";
  let args = ["wrangler", "dev", "-c", config, "--ip", "127.0.0.1", "--port", String(port)];
  args.push("--persist-to", persistTo, "--inspector-port", "0", "--show-interactive-dev-session=false");
  args.push("--log-level", "warn");
  if (!inspector) {
    command = process.execPath;
    args = [join(root, "bench/relay/dev-without-inspector.mjs"), String(port), persistTo, config];
  }
  const child = spawn(command, args, {
    cwd: root,
    detached: true, // its own process group: stop() ends npx, wrangler and workerd together
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...WRANGLER_ENV },
  });
  let output = "";
  child.stdout.on("data", (d) => (output += d));
  child.stderr.on("data", (d) => (output += d));
  const exited = new Promise((resolve) => child.on("exit", resolve));
  let running = true;
  exited.then(() => (running = false));

  const stop = async () => {
    if (!running) return;
    try {
      process.kill(-child.pid, "SIGTERM");
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {}
    }, 5000);
    await exited;
    clearTimeout(timer);
  };

  const url = `http://127.0.0.1:${port}`;
  const started = performance.now();
  for (;;) {
    if (!running) throw new Error(`wrangler dev exited before it was ready:\n${output}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {}
    if (performance.now() - started > timeoutMs) {
      await stop();
      throw new Error(`wrangler dev did not answer within ${timeoutMs / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  log(
    `wrangler dev${inspector ? "" : " (no inspector)"} ready on ${url} (${((performance.now() - started) / 1000).toFixed(1)} s)`,
  );
  return { url, stop, output: () => output };
}

export function table(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

export function machine() {
  const cpu = cpus()[0]?.model?.trim() ?? "unknown CPU";
  const load = loadavg()[0].toFixed(1);
  return `${cpus().length} cores (${cpu}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${process.platform}, load average ${load} at the start`;
}

const INTRO = `# Benchmark results

The latest run of each bench (\`npm run bench\` runs them all; \`node bench/run.mjs <name>\` runs one).
Each bench measures its peer in the same run on the same machine: these machines are noisy, so read the
ratios first and the absolute times second.
`;

/**
 * Replaces (or appends) the bench's own section of RESULTS.md, leaving the other benches' sections alone,
 * and formats the file with the repository's prettier config (so `format:check` stays green).
 */
export async function writeResultsSection(file, name, { title, when, machine, command, text }) {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const section = `${start}\n## ${title}\n\n${when} · ${machine} · \`${command}\`\n\n${text}\n${end}`;
  let doc = existsSync(file) ? readFileSync(file, "utf8") : INTRO;
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  if (from >= 0 && to > from) doc = doc.slice(0, from) + section + doc.slice(to + end.length);
  else doc = `${doc.trimEnd()}\n\n${section}\n`;
  const prettier = await import("prettier");
  const options = (await prettier.resolveConfig(file)) ?? {};
  writeFileSync(file, await prettier.format(doc, { ...options, filepath: file }));
  return file;
}
