// The one stat call a scan makes per entry, into a reused record. fs.lstatSync builds a Stats object per
// call; at 200,000 entries that is a third of a scan's CPU. Where Node's fs binding offers the same lstat
// without the object (its `lstat(path, bigint, undefined, throwIfNoEntry)`, the call fs.lstatSync itself
// makes, on Node 20 and 22), this uses it — but only after checking, in this thread, that it answers
// exactly what fs.lstatSync answers; otherwise, on Windows, or with WEBMCP_HUB_PORTABLE_STAT=1, it uses
// fs.lstatSync. Either way a symbolic link is reported as itself (lstat), never followed.
import { lstatSync } from "node:fs";

/** The fields a scan reads. `mode` carries the file type (S_IFMT bits). */
export interface StatRecord {
  mode: number;
  size: number;
  mtimeMs: number;
  birthtimeMs: number;
}

/** Fills `into` and returns true, or returns false when nothing is at `path` (any other error throws). */
export type LstatInto = (path: string, into: StatRecord) => boolean;

export const S_IFMT = 0o170000;
export const S_IFDIR = 0o040000;
export const S_IFREG = 0o100000;

const NO_THROW = { throwIfNoEntry: false } as const;

export const portableLstat: LstatInto = (path, into) => {
  const st = lstatSync(path, NO_THROW);
  if (st === undefined) return false;
  into.mode = st.mode;
  into.size = st.size;
  into.mtimeMs = st.mtimeMs;
  into.birthtimeMs = st.birthtimeMs;
  return true;
};

type BindingLstat = (path: string, bigint: false, req: undefined, throwIfNoEntry: boolean) => unknown;

function bindingLstat(): LstatInto | null {
  if (process.platform === "win32" || process.env.WEBMCP_HUB_PORTABLE_STAT === "1") return null;
  let lstat: BindingLstat;
  try {
    const binding = (process as unknown as { binding?: (name: string) => Record<string, unknown> }).binding?.(
      "fs",
    );
    if (typeof binding?.lstat !== "function") return null;
    lstat = binding.lstat as BindingLstat;
  } catch {
    return null;
  }
  // Same arithmetic as Node's own Stats: sec * 1e3 + nsec / 1e6.
  const fast: LstatInto = (path, into) => {
    const s = lstat(path, false, undefined, false) as Float64Array | undefined;
    if (s === undefined) return false;
    into.mode = s[1]!;
    into.size = s[8]!;
    into.mtimeMs = s[12]! * 1e3 + s[13]! / 1e6;
    into.birthtimeMs = s[16]! * 1e3 + s[17]! / 1e6;
    return true;
  };
  return fast;
}

/** True when `fast` answers like fs.lstatSync for `probes` (existing and missing paths). */
function agrees(fast: LstatInto, probes: readonly string[]): boolean {
  const a: StatRecord = { mode: 0, size: 0, mtimeMs: 0, birthtimeMs: 0 };
  const b: StatRecord = { mode: 0, size: 0, mtimeMs: 0, birthtimeMs: 0 };
  try {
    for (const probe of probes) {
      const found = fast(probe, a);
      if (found !== portableLstat(probe, b)) return false;
      if (
        found &&
        (a.mode !== b.mode || a.size !== b.size || a.mtimeMs !== b.mtimeMs || a.birthtimeMs !== b.birthtimeMs)
      ) {
        return false;
      }
    }
    return typeof fast("/\u0001webmcp-hub-missing\u0001", a) === "boolean";
  } catch {
    return false;
  }
}

let chosen: { lstat: LstatInto; kind: "binding" | "portable" } | null = null;

/** The lstat this thread uses, checked once against fs.lstatSync on `probes` (e.g. the root being scanned). */
export function chooseLstat(probes: readonly string[]): { lstat: LstatInto; kind: "binding" | "portable" } {
  if (chosen) return chosen;
  const fast = bindingLstat();
  chosen =
    fast && agrees(fast, [...probes, process.execPath, "/"])
      ? { lstat: fast, kind: "binding" }
      : { lstat: portableLstat, kind: "portable" };
  return chosen;
}
