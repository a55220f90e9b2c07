// Where a scan can start when the glob has a literal directory prefix: `src/**/*.ts` can only match below
// `src`, so the walk starts there instead of at `path`. Only taken when it cannot change the result: no
// negation or escapes, only files wanted (an ancestor directory could match the glob itself), every
// component a real directory (never a link), and within the depth the caller allows.
import { lstatSync } from "node:fs";
import path from "node:path";
import picomatch from "picomatch";
import type { DirTask } from "./scan.js";

export function globStart(
  rootReal: string,
  startRel: string,
  glob: string | undefined,
  maxDescend: number,
  includeDirectories: boolean,
): DirTask {
  const start: DirTask = { rel: startRel, depth: 0 };
  if (glob === undefined || includeDirectories) return start;
  const scan = picomatch.scan(glob);
  if (scan.negated || scan.base.includes("\\")) return start;
  const literalDir = scan.isGlob ? scan.base : path.posix.dirname(scan.base);
  const base = literalDir === "." ? "" : literalDir.replace(/\/+$/, "");
  if (
    base === "" ||
    path.posix.normalize(base) !== base ||
    base.startsWith("..") ||
    path.posix.isAbsolute(base)
  ) {
    return start;
  }
  if (startRel !== "" && !base.startsWith(`${startRel}/`)) return start;
  const below = (startRel === "" ? base : base.slice(startRel.length + 1)).split("/");
  if (below.length > maxDescend) return start;
  let abs = path.join(rootReal, startRel);
  for (const part of below) {
    abs = path.join(abs, part);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st || !st.isDirectory()) return start;
  }
  return { rel: base, depth: below.length };
}
