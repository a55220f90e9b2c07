// The extension's package: every file of the built extension (dist/extension/, manifest.json at the zip's
// root) in one zip, byte-for-byte the same for the same files: one fixed timestamp, fixed compression. Used by
// scripts/build.mjs after the extension's bundles are built, for the Chrome Web Store and for the hub's
// /downloads/webmcp-hub-extension.zip.
// The first entry is hub.json, the hub the extension starts with (scripts/lib/hub-stamp.mjs), stored
// uncompressed so that the hub serving the zip writes its own origin there (src/worker/routes/downloads.ts
// finds it as the first entry without reading the directory); the others follow sorted by path.
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { zipSync } from "fflate";
import { hubStamp } from "./hub-stamp.mjs";

/** The stamped entry's name (read by extension/background/settings.ts). */
export const HUB_FILE = "hub.json";

/** Every entry's time (local midnight, 1 Jan 2000: zip stores local time, so this gives the same bytes anywhere). */
const MTIME = new Date(2000, 0, 1, 0, 0, 0);

/** What the build leaves next to the files while writing them (scripts/lib/bundles.mjs): never packaged. */
const TEMPORARY = /\.\d+\.tmp$/;

/** The files under `dir`, as sorted zip paths (forward slashes). */
function filesOf(dir) {
  const found = [];
  const walk = (at) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile() && !TEMPORARY.test(entry.name) && !entry.name.startsWith("."))
        found.push(relative(dir, path).split(sep).join("/"));
    }
  };
  walk(dir);
  return found.sort();
}

/**
 * Writes `dir`/hub.json for `hub` (the hub the extension starts with; "" for none) and zips every file of `dir`
 * into `outFile` (written whole, then renamed into place), hub.json first and stored. Resolves with the zip's
 * paths and its bytes. Throws when `dir` has no manifest.json: that is no built extension.
 */
export async function zipExtension(dir, outFile, { hub = "" } = {}) {
  const root = dir instanceof URL ? fileURLToPath(dir) : dir;
  const out = outFile instanceof URL ? fileURLToPath(outFile) : outFile;
  if (!filesOf(root).includes("manifest.json"))
    throw new Error(`${root} has no manifest.json: build the extension first (node scripts/build.mjs).`);
  writeFileSync(join(root, HUB_FILE), hubStamp(hub));
  const files = [HUB_FILE, ...filesOf(root).filter((path) => path !== HUB_FILE)];
  const entries = {};
  for (const path of files)
    entries[path] = [readFileSync(join(root, path)), { mtime: MTIME, level: path === HUB_FILE ? 0 : 9 }];
  const zip = zipSync(entries);
  const temp = `${out}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, zip);
    renameSync(temp, out);
  } finally {
    rmSync(temp, { force: true });
  }
  return { files, zip };
}
