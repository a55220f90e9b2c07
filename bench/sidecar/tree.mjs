// Generates (once) and caches the bench's file trees under bench/.data/sidecar/: N empty files in a
// three-level layout with mtimes spread uniformly over two years, from a fixed seed, so every run and every
// peer sees the same tree. A marker file records what was generated; a tree is rebuilt when it is missing.
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
  closeSync,
  openSync,
} from "node:fs";
import { join } from "node:path";

/** Times span [SPAN_FROM, SPAN_TO): mtimes (and so a date range in the middle) are spread over them. */
export const SPAN_FROM = Date.parse("2023-01-01T00:00:00Z");
export const SPAN_TO = Date.parse("2025-01-01T00:00:00Z");
const LAYOUT_VERSION = 1;

/** A small deterministic PRNG (mulberry32). */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Ensures a tree of `files` files at `dir` exists and returns its description. Layout: 50 top directories,
 * 10 subdirectories each, then leaf directories of 100 files (so 200,000 files make 2,000 leaf directories).
 */
export function ensureTree(dir, files, log = () => {}) {
  const marker = `${dir}.json`;
  const want = { version: LAYOUT_VERSION, files };
  if (existsSync(marker)) {
    try {
      const have = JSON.parse(readFileSync(marker, "utf8"));
      if (have.version === want.version && have.files === want.files) return { dir, ...have };
    } catch {
      // rebuild
    }
  }
  log(`generating ${files.toLocaleString("en-US")} files in ${dir} (once; cached afterwards)`);
  rmSync(dir, { recursive: true, force: true });
  const random = prng(files);
  const perLeaf = 100;
  const leaves = Math.ceil(files / perLeaf);
  const top = 50;
  const perTop = 10;
  let made = 0;
  const started = Date.now();
  for (let leaf = 0; leaf < leaves; leaf++) {
    const t = leaf % top;
    const s = Math.floor(leaf / top) % perTop;
    const l = Math.floor(leaf / (top * perTop));
    const leafDir = join(
      dir,
      `top${String(t).padStart(2, "0")}`,
      `sub${s}`,
      `leaf${String(l).padStart(3, "0")}`,
    );
    mkdirSync(leafDir, { recursive: true });
    for (let i = 0; i < perLeaf && made < files; i++, made++) {
      const ext = i % 5 === 0 ? "md" : i % 5 === 1 ? "ts" : "txt";
      const file = join(leafDir, `file${String(i).padStart(3, "0")}.${ext}`);
      closeSync(openSync(file, "w"));
      const secs = (SPAN_FROM + Math.floor(random() * (SPAN_TO - SPAN_FROM))) / 1000;
      utimesSync(file, secs, secs);
    }
  }
  writeFileSync(marker, JSON.stringify(want));
  log(`generated in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { dir, ...want };
}
