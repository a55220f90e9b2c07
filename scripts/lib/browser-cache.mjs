// Cloudflare's browser binding under `wrangler dev` and the tests, offline, with the system's Chromium.
// Miniflare (wrangler's and the vitest pool's) launches Chrome for Testing from
// $XDG_CACHE_HOME/.wrangler/chrome/linux-<version>/chrome-linux64/chrome and downloads it only when that file
// is missing; <version> is a literal in miniflare's source, read here from each installed miniflare. We put
// an executable wrapper there that execs Chromium:
//   - with --no-sandbox and the flags in the `flags` file beside it (miniflare starts the browser with an empty
//     environment, so flags cannot come from a variable): native WebMCP (--enable-blink-features=WebMCP) and
//     the machine's launch flags (scripts/lib/chromium.mjs; --headless is miniflare's own);
//   - with PATH set (Debian's /usr/bin/chromium is a shell script) and HOME=<wrapper dir>/home, which gives
//     Chromium a profile of its own and marks its processes as ours;
//   - recording its pid in pids/: miniflare spawns it detached (its own process group) and does not reliably
//     close every browser when wrangler exits, so cleanupBrowsers() kills each recorded group whose process is
//     still ours (/proc/<pid>/environ has our HOME).
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { CHROMIUM_ARGS, requireChromium } from "./chromium.mjs";
import { ROOT } from "./wrangler.mjs";

/** The flags every local cloud browser gets (besides miniflare's own and --no-sandbox). */
export const CLOUD_BROWSER_FLAGS = [
  "--enable-blink-features=WebMCP",
  ...CHROMIUM_ARGS.filter((flag) => flag !== "--headless" && flag !== "--no-sandbox"),
];

/** The Chrome for Testing version each installed miniflare looks for (wrangler's, the vitest pool's). */
export function miniflareBrowserVersions() {
  const versions = new Set();
  const require = createRequire(join(ROOT, "package.json"));
  for (const from of ["wrangler", "@cloudflare/vitest-pool-workers"]) {
    let source;
    try {
      const pkg = require.resolve(`${from}/package.json`);
      const miniflare = createRequire(pkg).resolve("miniflare");
      source = readFileSync(join(dirname(miniflare), "index.js"), "utf8");
    } catch {
      continue;
    }
    for (const m of source.matchAll(/browserVersion: "(\d+(?:\.\d+){3})"/g)) versions.add(m[1]);
  }
  if (!versions.size)
    throw new Error(
      "Could not find the browser version miniflare expects (node_modules/**/miniflare/dist/src/index.js).",
    );
  return [...versions];
}

const wrapper = (chromium) => `#!/bin/sh
# Written by scripts/lib/browser-cache.mjs: miniflare's "Chrome for Testing", which is the system's Chromium.
export PATH=/usr/local/bin:/usr/bin:/bin HOME="$(dirname "$0")/home"
dir=$(dirname "$0")
echo $$ > "$dir/pids/$$"
extra=""
[ -f "$dir/flags" ] && extra=$(grep -v '^#' "$dir/flags" | tr '\\n' ' ')
# shellcheck disable=SC2086
exec ${JSON.stringify(chromium)} --no-sandbox $extra "$@"
`;

/** The wrapper directories (…/chrome-linux64) under one XDG_CACHE_HOME. */
function wrapperDirs(cacheHome) {
  const chrome = join(cacheHome, ".wrangler", "chrome");
  if (!existsSync(chrome)) return [];
  return readdirSync(chrome)
    .filter((name) => name.startsWith("linux-"))
    .map((name) => join(chrome, name, "chrome-linux64"));
}

/**
 * Prepares `cacheHome` (an XDG_CACHE_HOME for wrangler or the vitest pool): the wrapper, its flags file and
 * pids/ for every browser version an installed miniflare expects. Kills browsers an earlier run left there.
 * Returns { cacheHome, env: { XDG_CACHE_HOME }, cleanup() }.
 * @param {{ cacheHome: string, chromium?: string, flags?: string[] }} options
 */
export function prepareBrowserCache({ cacheHome, chromium, flags = CLOUD_BROWSER_FLAGS }) {
  const binary = chromium ?? requireChromium("The cloud runner's local browser");
  cleanupBrowsers(cacheHome);
  for (const version of miniflareBrowserVersions()) {
    const dir = join(cacheHome, ".wrangler", "chrome", `linux-${version}`, "chrome-linux64");
    mkdirSync(join(dir, "pids"), { recursive: true });
    mkdirSync(join(dir, "home"), { recursive: true });
    writeFileSync(join(dir, "chrome"), wrapper(binary), { mode: 0o755 });
  }
  writeBrowserFlags(cacheHome, flags);
  return { cacheHome, env: { XDG_CACHE_HOME: cacheHome }, cleanup: () => cleanupBrowsers(cacheHome) };
}

/** Sets the flags of the browsers launched from `cacheHome` from now on (one a line in each wrapper's `flags`). */
export function writeBrowserFlags(cacheHome, flags) {
  for (const dir of wrapperDirs(cacheHome))
    writeFileSync(
      join(dir, "flags"),
      `# One flag a line (scripts/lib/browser-cache.mjs).\n${flags.join("\n")}\n`,
    );
}

/** Whether `pid` is a process our wrapper started (its environment has the wrapper dir's HOME). */
function ours(pid, dir) {
  try {
    return readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .includes(`HOME=${join(dir, "home")}`);
  } catch {
    return false;
  }
}

/**
 * Kills the process group of every browser the wrappers under `cacheHome` recorded that is still ours, and
 * forgets the pid files. Returns how many groups it killed. Safe to call any time (also from an exit handler).
 */
export function cleanupBrowsers(cacheHome) {
  let killed = 0;
  for (const dir of wrapperDirs(cacheHome)) {
    const pids = join(dir, "pids");
    if (!existsSync(pids)) continue;
    for (const name of readdirSync(pids)) {
      const pid = Number(name);
      if (Number.isInteger(pid) && pid > 1 && ours(pid, dir)) {
        try {
          process.kill(-pid, "SIGKILL");
          killed++;
        } catch {
          // Already gone.
        }
      }
      rmSync(join(pids, name), { force: true });
    }
  }
  return killed;
}
