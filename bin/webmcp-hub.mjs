#!/usr/bin/env node
// The `webmcp-hub` command. Runs dist/sidecar/cli.mjs (and its scan worker, dist/sidecar/scan-worker.mjs).
// In a checkout (src/sidecar exists) it first builds them with esbuild when either is missing or older than
// the sources, so `npx webmcp-hub …` works right after `npm install`; an installed package ships them built
// (`prepack` runs `node bin/webmcp-hub.mjs build`). Build notes go to stderr: in `sidecar` mode stdout
// carries MCP messages only.
import { existsSync, readdirSync, renameSync, rmSync, statSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SOURCES = ["src/sidecar", "src/protocol"];
const OUTPUTS = [
  { entry: "src/sidecar/cli.ts", outfile: "dist/sidecar/cli.mjs" },
  { entry: "src/sidecar/scan-worker.ts", outfile: "dist/sidecar/scan-worker.mjs" },
];

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (entry.isFile()) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

function isStale() {
  const sources = Math.max(
    statSync(join(ROOT, "package.json")).mtimeMs,
    ...SOURCES.map((dir) => newestMtime(join(ROOT, dir))),
  );
  return OUTPUTS.some(({ outfile }) => {
    const out = join(ROOT, outfile);
    return !existsSync(out) || statSync(out).mtimeMs < sources;
  });
}

/** Bundles both entries like scripts/lib/bundles.mjs does; each file is written whole, then renamed. */
async function build() {
  let esbuild;
  try {
    esbuild = await import("esbuild");
  } catch {
    throw new Error("esbuild is not installed: run `npm install` in the checkout first.");
  }
  const started = Date.now();
  for (const { entry, outfile } of OUTPUTS) {
    const result = await esbuild.build({
      entryPoints: [join(ROOT, entry)],
      outfile: join(ROOT, outfile),
      bundle: true,
      platform: "node",
      format: "esm",
      target: ["node20"],
      packages: "external",
      legalComments: "none",
      logLevel: "warning",
      write: false,
    });
    const out = join(ROOT, outfile);
    mkdirSync(dirname(out), { recursive: true });
    const temp = `${out}.${process.pid}.tmp`;
    writeFileSync(temp, result.outputFiles[0].contents);
    renameSync(temp, out);
  }
  process.stderr.write(`webmcp-hub: built dist/sidecar from src/sidecar (${Date.now() - started} ms)\n`);
}

const checkout = existsSync(join(ROOT, "src/sidecar/cli.ts"));
const args = process.argv.slice(2);
try {
  if (args[0] === "build") {
    if (!checkout) throw new Error("`build` works in a checkout of webmcp-hub only.");
    await build();
    process.exit(0);
  }
  if (checkout && isStale()) await build();
} catch (e) {
  for (const { outfile } of OUTPUTS) rmSync(join(ROOT, `${outfile}.${process.pid}.tmp`), { force: true });
  process.stderr.write(`webmcp-hub: could not build the CLI: ${e instanceof Error ? e.message : e}\n`);
  if (!OUTPUTS.every(({ outfile }) => existsSync(join(ROOT, outfile)))) process.exit(1);
}
await import(pathToFileURL(join(ROOT, "dist/sidecar/cli.mjs")).href);
