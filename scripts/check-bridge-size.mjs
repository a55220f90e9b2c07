// /bridge.js's size as the hub serves it: web/assets/bridge.js (built by scripts/build.mjs, which `npm test`
// runs first) gzipped at level 9, against the 15 KiB limit (kept while the bridge grows:
// frames, validation before execute). Also prints /bridge-ui.js, the widget's face and the approval dialog,
// which /bridge.js imports from the hub only when a widget or a dialog is shown, and /bridge-relay.js, the
// relay, which it imports only when the page is paired or pairs (neither counted in the limit).
// Also checks that @cfworker/json-schema's format checks stayed out of /bridge.js (scripts/lib/bundles.mjs).
// Exits 1 when /bridge.js is over the limit, carries the format checks, or a file is missing. `--limit <KiB>`
// changes the limit.
import { existsSync, readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const at = process.argv.indexOf("--limit");
const LIMIT_KIB = at > 0 ? Number(process.argv[at + 1]) : 15;
const FILES = [
  ["/bridge.js", new URL("../web/assets/bridge.js", import.meta.url)],
  ["/bridge-ui.js", new URL("../web/assets/bridge-ui.js", import.meta.url)],
  ["/bridge-relay.js", new URL("../web/assets/bridge-relay.js", import.meta.url)],
];

const kib = (n) => (n / 1024).toFixed(1);
const sizes = {};
for (const [name, file] of FILES) {
  if (!existsSync(file)) {
    console.error(`${name}: ${file.pathname} is missing: run \`node scripts/build.mjs\` first.`);
    process.exit(1);
  }
  const code = readFileSync(file);
  sizes[name] = gzipSync(code, { level: 9 }).length;
  console.log(`${name}: ${kib(code.length)} KiB, ${kib(sizes[name])} KiB gzipped (gzip -9)`);
}
// A regular expression of @cfworker/json-schema's format.js (uuid), as it appears minified or not.
const FORMAT_MARK = "[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}";
if (readFileSync(FILES[0][1], "utf8").includes(FORMAT_MARK)) {
  console.error("/bridge.js carries @cfworker/json-schema's format checks: see scripts/lib/bundles.mjs.");
  process.exit(1);
}
const over = sizes["/bridge.js"] - LIMIT_KIB * 1024;
if (over > 0) {
  console.error(`/bridge.js is over its ${LIMIT_KIB} KiB gzipped limit by ${kib(over)} KiB.`);
  process.exit(1);
}
console.log(`/bridge.js within its ${LIMIT_KIB} KiB gzipped limit (${kib(-over)} KiB to spare).`);
