// The synchronous scanner behind fs.search_by_time: lists directories (readdirSync) and lstat's their
// entries in batches, filters them (kind, time range, glob, keyset position) and keeps the best few in a
// bounded heap. The same code runs inside the scan worker threads and, for a scan the pool cannot take, on
// the main thread in short slices. Symbolic links are never followed: lstat reports a link as itself.
import { readdirSync } from "node:fs";
import { compileGlob } from "./glob.js";
import { chooseLstat, S_IFDIR, S_IFMT, S_IFREG, type LstatInto, type StatRecord } from "./lstat.js";
import { comparatorFor, TopK, type FoundEntry, type Position } from "./order.js";
import type { SortOrder, TimeField } from "./tool.js";

/** Everything a scanner needs; plain data, so it can be posted to a worker thread. */
export interface ScanSpec {
  /** The root's realpath; tasks are relative to it. */
  rootReal: string;
  /**
   * True when the process's working directory is the root for this scan (the pool sets it), so entries
   * are reached by root-relative paths: the kernel resolves a few components per lstat instead of the
   * root's whole path, and a rename of the root's parents mid-scan cannot move the scan elsewhere.
   */
  fromCwd?: boolean;
  /** path.sep of the platform (tasks and results use "/"). */
  sep: string;
  timeField: TimeField;
  fromMs: number | null;
  toMs: number | null;
  glob: string | null;
  /** Directory levels below the start directory to descend into (recursive=false → 0). */
  maxDescend: number;
  /** The caller's own limit, when the server's depth cap is lower (to report that the cap cut the scan). */
  requestedDescend: number;
  includeFiles: boolean;
  includeDirectories: boolean;
  includeUnknownTime: boolean;
  sort: SortOrder;
  /** Keyset position: keep only entries strictly after it. */
  after: Position | null;
  /** How many of the best entries to keep (the page, its look-ahead, and one more to know if more exist). */
  keep: number;
}

/** A directory to list: root-relative POSIX path ("" is the root) and its depth below the start directory. */
export interface DirTask {
  rel: string;
  depth: number;
}

export interface ScanCounts {
  /** Non-directory entries examined. */
  files: number;
  /** Directories listed (the start directory included). */
  directories: number;
  /** Directories or entries that could not be read (permissions, I/O errors) and were skipped. */
  unreadable: number;
  /** Candidates (right kind) with and without a created time, for timeField "created". */
  knownTime: number;
  unknownTime: number;
  /** Subdirectories left unlisted because of the server's depth cap. */
  depthCapped: number;
}

export function emptyCounts(): ScanCounts {
  return { files: 0, directories: 0, unreadable: 0, knownTime: 0, unknownTime: 0, depthCapped: 0 };
}

export function addCounts(into: ScanCounts, from: ScanCounts): void {
  into.files += from.files;
  into.directories += from.directories;
  into.unreadable += from.unreadable;
  into.knownTime += from.knownTime;
  into.unknownTime += from.unknownTime;
  into.depthCapped += from.depthCapped;
}

/** What the loop's caller decides between directories. */
export type Verdict = "continue" | "pause" | "stop";

export interface ScanHooks {
  /** Called after each directory (and every 128 entries inside a large one, where "pause" counts as "continue"). */
  check(): Verdict;
}

/** Entries between two checks inside one directory: a stop or a slice's end is seen within ~128 matches. */
const ENTRY_CHECK_MASK = 127;

/** One scan's state in one thread: the directories still to list, the counts, and the best entries so far. */
export class ScanState {
  readonly stack: DirTask[] = [];
  readonly counts: ScanCounts = emptyCounts();
  private readonly heap: TopK<FoundEntry>;
  private readonly compare: (a: Position, b: Position) => number;
  private readonly match: ((path: string) => boolean) | null;
  private readonly lstat: LstatInto;
  private readonly st: StatRecord = { mode: 0, size: 0, mtimeMs: 0, birthtimeMs: 0 };

  constructor(readonly spec: ScanSpec) {
    this.lstat = chooseLstat([spec.rootReal]).lstat;
    this.compare = comparatorFor(spec.sort);
    this.heap = new TopK(spec.keep, this.compare);
    this.match = spec.glob === null ? null : compileGlob(spec.glob);
  }

  /** Entries examined so far (files and listed directories), for progress and the server's bound. */
  get scanned(): number {
    return this.counts.files + this.counts.directories;
  }

  /** The best entries kept, best first. */
  results(): FoundEntry[] {
    return this.heap.sorted();
  }

  /** Takes about half of the pending directories (the shallowest, so the largest subtrees) for another thread. */
  split(): DirTask[] {
    if (this.stack.length < 2) return [];
    return this.stack.splice(0, this.stack.length >> 1);
  }

  /** Lists directories until none is left ("done") or `hooks` says to pause or stop. */
  run(hooks: ScanHooks): "done" | "pause" | "stop" {
    for (;;) {
      const task = this.stack.pop();
      if (task === undefined) return "done";
      if (!this.listDirectory(task, hooks)) return "stop";
      if (this.stack.length === 0) return "done";
      const verdict = hooks.check();
      if (verdict !== "continue") return verdict;
    }
  }

  /** Returns false when `hooks` stopped the scan in the middle of a large directory. */
  private listDirectory(task: DirTask, hooks: ScanHooks): boolean {
    const { spec } = this;
    const sep = spec.sep;
    const relative = sep === "/" ? task.rel : task.rel.split("/").join(sep);
    const dirAbs = spec.fromCwd
      ? task.rel === ""
        ? "."
        : relative
      : task.rel === ""
        ? spec.rootReal
        : spec.rootReal + sep + relative;
    let names: string[];
    try {
      names = readdirSync(dirAbs);
    } catch {
      this.counts.unreadable++;
      return true;
    }
    this.counts.directories++;
    const prefixAbs = spec.fromCwd && task.rel === "" ? "" : dirAbs + sep;
    const prefixRel = task.rel === "" ? "" : `${task.rel}/`;
    const childDepth = task.depth + 1;
    const descend = childDepth <= spec.maxDescend;
    const cappedHere = !descend && childDepth <= spec.requestedDescend;
    const { includeFiles, includeDirectories, includeUnknownTime, fromMs, toMs, after } = spec;
    const byCreated = spec.timeField === "created";
    const counts = this.counts;
    const heap = this.heap;
    const match = this.match;
    const lstat = this.lstat;
    const st = this.st;
    for (let i = 0; i < names.length; i++) {
      if ((i & ENTRY_CHECK_MASK) === ENTRY_CHECK_MASK && hooks.check() === "stop") return false;
      const name = names[i]!;
      try {
        if (!lstat(prefixAbs + name, st)) continue; // removed since the listing
      } catch {
        counts.unreadable++;
        continue;
      }
      const type = st.mode & S_IFMT;
      const isDirectory = type === S_IFDIR;
      if (isDirectory) {
        if (descend) this.stack.push({ rel: prefixRel + name, depth: childDepth });
        else if (cappedHere) counts.depthCapped++;
        if (!includeDirectories) continue;
      } else {
        counts.files++;
        if (!includeFiles) continue;
      }
      let t: number | null;
      if (byCreated) {
        const birth = st.birthtimeMs;
        if (birth > 0) {
          counts.knownTime++;
          t = birth;
        } else {
          counts.unknownTime++;
          if (!includeUnknownTime) continue;
          t = null;
        }
      } else {
        t = st.mtimeMs;
      }
      if (t !== null && ((fromMs !== null && t < fromMs) || (toMs !== null && t >= toMs))) continue;
      const p = prefixRel + name;
      if (match !== null && !match(p)) continue;
      const key = { t, p };
      if (after !== null && this.compare(key, after) <= 0) continue;
      if (!heap.wouldKeep(key)) continue;
      const birthtimeMs = st.birthtimeMs > 0 ? st.birthtimeMs : null;
      heap.offer({
        p,
        t,
        isDirectory,
        size: type === S_IFREG ? st.size : null,
        mtimeMs: st.mtimeMs,
        birthtimeMs,
      });
    }
    return true;
  }
}
