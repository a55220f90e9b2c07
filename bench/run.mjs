// `npm run bench`: runs every bench (each bench/<name>/run.mjs, in name order) or those named on the command
// line (`node bench/run.mjs registry`). Each bench prints its table and refreshes its section of RESULTS.md.
// A missed target is printed as MISSED and still exits 0; a bench that fails to run makes this exit 1.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(HERE, { withFileTypes: true })
  .filter((d) => d.isDirectory() && !d.name.startsWith(".") && existsSync(join(HERE, d.name, "run.mjs")))
  .map((d) => d.name)
  .sort();

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`No bench named ${unknown.join(", ")}. Benches: ${available.join(", ")}.`);
  process.exit(2);
}

const failed = [];
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`\n# bench/${name}\n`);
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, [join(HERE, name, "run.mjs")], { stdio: "inherit" });
    child.on("exit", (c, signal) => resolve(signal ? 1 : c));
  });
  if (code !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`\nbench failed to run: ${failed.join(", ")}`);
  process.exit(1);
}
