#!/usr/bin/env node
// The `webmcp-hub` command. Runs dist/sidecar/cli.mjs (and its scan worker, dist/sidecar/scan-worker.mjs).
// In a checkout (src/sidecar exists) it first builds them with esbuild when either is missing or older than
// the sources, so `npx webmcp-hub …` works right after `npm install`; an installed package ships them built
// (`prepack` runs `node bin/webmcp-hub.mjs build`). Build notes go to stderr: in `sidecar` mode stdout
// carries MCP messages only.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCES = ["src/sidecar", "src/protocol"];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.isFile()) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * The sidecar's bundles, from the project's one list (scripts/lib/bundles.mjs; a checkout only): the CLI
 * (the bundle named "sidecar", which this runs) and every file it loads next to itself (its scan worker).
 */
async function sidecarBundles() {
  const bundles = await import(pathToFileURL(join(ROOT, "scripts/lib/bundles.mjs")).href);
  const outputs = bundles.BUNDLES.filter((b) => b.group === "sidecar");
  const cli = outputs.find((b) => b.name === "sidecar");
  if (!cli) throw new Error('scripts/lib/bundles.mjs lists no "sidecar" bundle.');
  return { outputs, cli: cli.outfile, build: bundles.buildBundles };
}

function isStale(outputs) {
  const sources = Math.max(
    statSync(join(ROOT, "package.json")).mtimeMs,
    ...SOURCES.map((dir) => newestMtime(join(ROOT, dir))),
  );
  return outputs.some(({ outfile }) => {
    const out = join(ROOT, outfile);
    return !existsSync(out) || statSync(out).mtimeMs < sources;
  });
}

async function build({ build }) {
  const started = Date.now();
  await build({ group: "sidecar", log: () => {} });
  process.stderr.write(`webmcp-hub: built dist/sidecar from src/sidecar (${Date.now() - started} ms)\n`);
}

const checkout = existsSync(join(ROOT, "src/sidecar/cli.ts"));
const args = process.argv.slice(2);
// An installed package ships no scripts/, only dist/sidecar as `prepack` built it from the list.
let cli = "dist/sidecar/cli.mjs";
let outputs = [{ outfile: cli }];
try {
  if (args[0] === "build") {
    if (!checkout) throw new Error("`build` works in a checkout of webmcp-hub only.");
    await build(await sidecarBundles());
    process.exit(0);
  }
  if (checkout) {
    const sidecar = await sidecarBundles();
    outputs = sidecar.outputs;
    cli = sidecar.cli;
    if (isStale(outputs)) await build(sidecar);
  }
} catch (e) {
  process.stderr.write(`webmcp-hub: could not build the CLI: ${e instanceof Error ? e.message : e}\n`);
  if (!outputs.every(({ outfile }) => existsSync(join(ROOT, outfile)))) process.exit(1);
}
await import(pathToFileURL(join(ROOT, cli)).href);
