// The esbuild bundles the project ships besides the Worker (which wrangler bundles itself); see
// scripts/build.mjs. An entry that does not exist yet is skipped with a one-line note.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export const BUNDLES = [
  {
    name: "bridge",
    entry: "src/bridge/index.ts",
    outfile: "web/assets/bridge.js",
    options: { platform: "browser", format: "iife", target: ["es2022"], minify: true },
  },
  {
    name: "sidecar",
    entry: "src/sidecar/cli.ts",
    outfile: "dist/sidecar/cli.mjs",
    // Dependencies stay in node_modules; the bundle only joins the project's own modules.
    options: { platform: "node", format: "esm", target: ["node20"], packages: "external" },
  },
];

/** Builds every bundle whose entry exists; resolves with the names built and skipped. */
export async function buildBundles({ log = (line) => console.log(line) } = {}) {
  const built = [];
  const skipped = [];
  for (const bundle of BUNDLES) {
    const entry = join(ROOT, bundle.entry);
    if (!existsSync(entry)) {
      log(`build: skipping ${bundle.name} (${bundle.entry} does not exist yet)`);
      skipped.push(bundle.name);
      continue;
    }
    const started = Date.now();
    await esbuild.build({
      entryPoints: [entry],
      outfile: join(ROOT, bundle.outfile),
      bundle: true,
      legalComments: "none",
      logLevel: "warning",
      ...bundle.options,
    });
    log(`build: ${bundle.entry} → ${bundle.outfile} (${Date.now() - started} ms)`);
    built.push(bundle.name);
  }
  return { built, skipped };
}
