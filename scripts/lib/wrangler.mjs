// Runs the hub locally with the project's pinned wrangler: D1 migrations on the local database, and
// `wrangler dev` started (the hub, and with `configs` more Workers in the same process: the cloud runner),
// awaited until /healthz answers, and stopped with everything it spawned.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { runProcess, startProcess } from "./processes.mjs";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const WRANGLER_JS = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin/wrangler.js",
);

/** Less network at start-up: no `Request.cf` download (a 3 s wait when offline), no telemetry. */
function wranglerEnv(extra = {}) {
  return {
    ...process.env,
    CLOUDFLARE_CF_FETCH_ENABLED: "false",
    WRANGLER_SEND_METRICS: "false",
    FORCE_COLOR: "0",
    NO_COLOR: "1",
    ...extra,
  };
}

const tail = (lines, n = 40) => lines.slice(-n).join("\n");
// Some of wrangler's messages are coloured even with FORCE_COLOR=0; logs and errors read better without.
const stripAnsi = (line) => line.replace(/\x1b\[[0-9;]*m/g, "");

/** `wrangler d1 migrations apply DB --local [--persist-to DIR]`; throws with wrangler's output on failure. */
export async function applyMigrations({ persistTo, onLine } = {}) {
  const args = [WRANGLER_JS, "d1", "migrations", "apply", "DB", "--local"];
  if (persistTo) args.push("--persist-to", persistTo);
  // CI=true: wrangler never waits for a confirmation it cannot get.
  const result = await runProcess(process.execPath, args, {
    cwd: ROOT,
    env: wranglerEnv({ CI: "true" }),
    onLine: (line, stream) => onLine?.(stripAnsi(line), stream),
  });
  if (result.code !== 0) {
    throw new Error(
      `Applying the D1 migrations failed (wrangler exited with ${result.code ?? result.signal}):\n${tail(result.output.map(stripAnsi))}`,
    );
  }
}

async function healthy(url) {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts `wrangler dev` on host:port and resolves once GET /healthz answers 200. Rejects, after stopping
 * wrangler, if it exits first or is not ready within `readyTimeoutMs`; the error carries its last output.
 */
export async function startWranglerDev({
  host = "127.0.0.1",
  port,
  persistTo,
  inspectorPort,
  onLine = () => {},
  readyTimeoutMs = 90_000,
  vars = {},
  configs = [],
  env = {},
}) {
  const args = [
    WRANGLER_JS,
    "dev",
    // The hub's config first (the one served on the port), then the other Workers it binds to.
    ...(configs.length ? ["-c", "wrangler.toml", ...configs.flatMap((c) => ["-c", c])] : []),
    "--ip",
    host,
    "--port",
    String(port),
    "--show-interactive-dev-session=false",
    // wrangler.toml [vars] keeps it off for deploys; locally the demo site is a loopback origin on plain
    // http, which the hub may verify only with this on.
    "--var",
    "ALLOW_PRIVATE_ORIGINS:true",
  ];
  // Extra [vars] for this run (e.g. bench/bridge raises the rate limits with RATE_LIMIT_SCALE).
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  if (persistTo) args.push("--persist-to", persistTo);
  if (inspectorPort) args.push("--inspector-port", String(inspectorPort));
  const output = [];
  const proc = startProcess(process.execPath, args, {
    cwd: ROOT,
    env: wranglerEnv(env),
    onLine: (raw, stream) => {
      const line = stripAnsi(raw);
      output.push(line);
      if (output.length > 200) output.shift();
      onLine(line, stream);
    },
  });
  const url = `http://${host}:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  let exit;
  proc.exited.then((e) => (exit = e));
  while (!(await healthy(url))) {
    if (exit) {
      await proc.stop();
      const how = exit.error ? exit.error.message : `exit code ${exit.code ?? exit.signal}`;
      throw new Error(`wrangler dev stopped before it was ready (${how}):\n${tail(output)}`);
    }
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(
        `wrangler dev did not answer ${url}/healthz within ${readyTimeoutMs / 1000} s:\n${tail(output)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, exited: proc.exited, stop: (graceMs) => proc.stop(graceMs), output };
}
