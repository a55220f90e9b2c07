// The relay bench's hub: bench/relay/wrangler.toml (the real app and ChannelRelay plus /bench/ probes)
// under `wrangler dev` on free loopback ports, its D1 migrated into a fresh --persist-to directory. Either
// the CLI as people run it (DevTools inspector on), or `dev-without-inspector.mjs` (wrangler's dev API,
// inspector off). scripts/lib/wrangler.mjs does the same for the project's wrangler.toml; this takes `-c`.
import { createWriteStream } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "../../scripts/lib/ports.mjs";
import { runProcess, startProcess } from "../../scripts/lib/processes.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CONFIG = join(ROOT, "bench/relay/wrangler.toml");
const WRANGLER = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin/wrangler.js",
);
const ENV = {
  ...process.env,
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  FORCE_COLOR: "0",
  CI: "true",
};

const tail = (lines) => lines.slice(-40).join("\n");

/**
 * Migrates a fresh local D1 in `persistTo`, starts `wrangler dev`, resolves once /healthz answers.
 * `inspector: false` runs dev-without-inspector.mjs instead of the CLI. Everything wrangler prints goes
 * to `persistTo`/wrangler.log (`BENCH_WRANGLER_LOG=info` says more, for the CLI).
 */
export async function startBenchHub({ persistTo, inspector = true, readyTimeoutMs = 90_000 }) {
  const logFile = createWriteStream(join(persistTo, "wrangler.log"));
  const migrated = await runProcess(
    process.execPath,
    [WRANGLER, "d1", "migrations", "apply", "DB", "--local", "--persist-to", persistTo, "-c", CONFIG],
    { cwd: ROOT, env: ENV },
  );
  if (migrated.code !== 0) throw new Error(`Applying the D1 migrations failed:\n${tail(migrated.output)}`);

  const port = await freePort();
  let inspectorPort = await freePort();
  while (inspectorPort === port) inspectorPort = await freePort();
  const output = [];
  const args = inspector
    ? [
        WRANGLER,
        "dev",
        "-c",
        CONFIG,
        "--ip",
        "127.0.0.1",
        "--port",
        String(port),
        "--inspector-port",
        String(inspectorPort),
        "--persist-to",
        persistTo,
        "--show-interactive-dev-session=false",
        "--log-level",
        process.env.BENCH_WRANGLER_LOG ?? "warn",
      ]
    : [join(ROOT, "bench/relay/dev-without-inspector.mjs"), String(port), persistTo];
  const proc = startProcess(process.execPath, args, {
    cwd: ROOT,
    env: ENV,
    onLine: (line) => {
      logFile.write(`${new Date().toISOString()} ${line}\n`);
      output.push(line);
      if (output.length > 400) output.shift();
    },
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (!proc.running) throw new Error(`wrangler dev exited before it was ready:\n${tail(output)}`);
    try {
      const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
      await res.arrayBuffer();
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await proc.stop();
      throw new Error(
        `wrangler dev did not answer ${url}/healthz within ${readyTimeoutMs / 1000} s:\n${tail(output)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return {
    url,
    inspectorPort: inspector ? inspectorPort : null,
    output,
    logFile: logFile.path,
    stop: async () => {
      await proc.stop();
      logFile.end();
    },
  };
}
