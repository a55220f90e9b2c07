// Debian's Chromium for the scripts and benches that drive one (scripts/wpt.mjs, bench/bridge, bench/extension):
// where it is (CHROMIUM_PATH, else `chromium` on PATH, as `which chromium` finds it) and the flags every launch
// uses. test/e2e/browser.ts imports these too, so the tests and the tools launch the same browser.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Headless, sandbox and first-run off, no background traffic: the machine's and CI's launch flags. */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * The Chromium binary, or undefined when there is none: CHROMIUM_PATH if set, else `chromium` on PATH.
 * @returns {string | undefined}
 */
export function chromiumOnPath() {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (dir && existsSync(join(dir, "chromium"))) return join(dir, "chromium");
  }
  return undefined;
}

/**
 * The Chromium binary, or an Error naming `who` needs it and how to install it.
 * @param {string} who
 * @returns {string}
 */
export function requireChromium(who) {
  const path = chromiumOnPath();
  if (!path) throw new Error(`${who} needs Chromium: apt-get install -y chromium, or set CHROMIUM_PATH.`);
  return path;
}
