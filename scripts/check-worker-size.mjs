// The Worker bundle's size as deployed: `wrangler deploy --dry-run` of wrangler.toml (minified, [alias] applied)
// into a temporary directory, its .js gzipped at level 9, beside wrangler's own gzip figure. The target is
// 300 KiB gzipped (bench/relay/floor.mjs breaks the unminified bundle down by package). Prints the figures; exits 1 when the bundle is over the limit, so it can join
// `npm test` once the bundle meets it. `--limit <KiB>` changes the limit (default 300).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const WRANGLER = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin/wrangler.js",
);
const at = process.argv.indexOf("--limit");
const LIMIT_KIB = at > 0 ? Number(process.argv[at + 1]) : 300;

const outdir = mkdtempSync(join(tmpdir(), "webmcp-hub-size-"));
try {
  const run = spawnSync(process.execPath, [WRANGLER, "deploy", "--dry-run", "--outdir", outdir], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
  });
  if (run.status !== 0) {
    console.error(`wrangler deploy --dry-run failed:\n${run.stdout}\n${run.stderr}`);
    process.exit(1);
  }
  const wranglerFigure = /gzip: ([\d.]+) KiB/.exec(run.stdout)?.[1];
  let raw = 0;
  let gzipped = 0;
  for (const file of readdirSync(outdir)) {
    if (!/\.m?js$/.test(file)) continue;
    const code = readFileSync(join(outdir, file));
    raw += code.length;
    const gz = gzipSync(code, { level: 9 }).length;
    gzipped += gz;
  }
  const kib = (n) => (n / 1024).toFixed(1);
  console.log(
    `Worker bundle: ${kib(raw)} KiB, ${kib(gzipped)} KiB gzipped (gzip -9; wrangler says ${wranglerFigure ?? "?"} KiB); limit ${LIMIT_KIB} KiB`,
  );
  if (gzipped > LIMIT_KIB * 1024) {
    console.error(`Over the limit by ${kib(gzipped - LIMIT_KIB * 1024)} KiB gzipped.`);
    process.exit(1);
  }
} finally {
  rmSync(outdir, { recursive: true, force: true });
}
