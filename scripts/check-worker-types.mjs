// `npm test` runs this first: src/worker/worker-configuration.d.ts must be exactly what `npm run types`
// (`wrangler types src/worker/worker-configuration.d.ts`) writes from wrangler.toml today, so nobody hand-edits
// it and nobody forgets to regenerate it after changing a binding. `wrangler types --check` alone is not
// enough: it compares only the header lines (a hash of the Env types, the runtime types' workerd version, date
// and flags), so an edit below them (a binding added by hand) passes. So both: `--check` on the file, then a
// fresh generation into a temporary directory compared with the whole text, after mapping what depends on
// where the file is written (the command in the header, the `import("…/index")` specifiers, and so the Env
// hash) back to the checked-in location. Exit 1 with the first difference when they differ.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TYPES = "src/worker/worker-configuration.d.ts";
const WRANGLER = join(
  dirname(createRequire(import.meta.url).resolve("wrangler/package.json")),
  "bin/wrangler.js",
);

function wrangler(args) {
  const run = spawnSync(process.execPath, [WRANGLER, ...args], {
    cwd: ROOT,
    encoding: "utf8",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false", FORCE_COLOR: "0" },
  });
  return {
    ok: run.status === 0,
    output: `${run.stdout}\n${run.stderr}`.trim(),
    status: run.status ?? run.signal,
  };
}

const checked = wrangler(["types", TYPES, "--check"]);
if (!checked.ok) {
  console.error(
    `\`wrangler types ${TYPES} --check\` failed:\n${checked.output}\nRun \`npm run types\` and commit the result.`,
  );
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "webmcp-hub-types-"));
try {
  const out = join(dir, "worker-configuration.d.ts");
  const run = wrangler(["types", out]);
  if (!run.ok) {
    console.error(`wrangler types failed (${run.status}):\n${run.output}`);
    process.exit(1);
  }
  // wrangler writes import specifiers relative to the output file (no extension); map them back.
  const entryFrom = (from) => relative(from, join(ROOT, "src/worker/index")).split("\\").join("/");
  const fresh = readFileSync(out, "utf8")
    .replace(/`wrangler types \S+` \(hash: \w+\)/, `\`wrangler types ${TYPES}\` (hash: checked above)`)
    .replaceAll(`import("${entryFrom(dir)}")`, `import("./index")`);
  const current = readFileSync(join(ROOT, TYPES), "utf8").replace(
    /`wrangler types \S+` \(hash: \w+\)/,
    `\`wrangler types ${TYPES}\` (hash: checked above)`,
  );
  if (fresh !== current) {
    const a = current.split("\n");
    const b = fresh.split("\n");
    const first = Array.from({ length: Math.max(a.length, b.length) }, (_, i) => i).find(
      (i) => a[i] !== b[i],
    );
    console.error(
      `${TYPES} is not what \`npm run types\` generates from wrangler.toml (first difference at line ${(first ?? 0) + 1}):\n` +
        `  checked in: ${JSON.stringify(a[first ?? 0] ?? "(end of file)")}\n` +
        `  generated:  ${JSON.stringify(b[first ?? 0] ?? "(end of file)")}\n` +
        "Run `npm run types` and commit the result (never edit the file by hand: declare bindings in wrangler.toml).",
    );
    process.exit(1);
  }
  console.log(`${TYPES} is up to date with wrangler.toml.`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
