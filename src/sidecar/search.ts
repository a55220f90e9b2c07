// searchByTime: the fs.search_by_time core, free of MCP. It parses the arguments, resolves the root and the
// start directory, decodes the cursor, runs one bounded scan (worker threads or inline) and shapes the
// output of seed 001 §2.1.3 plus the sentences an agent reads (summary and notes).
import path from "node:path";
import { parseSearchArguments, type SearchArguments } from "./arguments.js";
import { SearchError } from "./errors.js";
import { CursorCodec, queryDigest } from "./cursor.js";
import { portableLstat, S_IFDIR, S_IFMT, S_IFREG, type StatRecord } from "./lstat.js";
import type { FoundEntry } from "./order.js";
import { globStart } from "./glob-base.js";
import { PageCache, type CachedWindow } from "./page-cache.js";
import { resolveStart, selectRoot, type SearchRoot, type StartDirectory } from "./roots.js";
import { runScan, STOP_GRACE_MS, type ScanOutcome, type ScanPool } from "./scan-pool.js";
import type { ScanSpec } from "./scan.js";
import type { TimeField } from "./tool.js";

/** The server-side bounds of one scan; a scan that reaches one stops and says so in its text. */
export interface SearchLimits {
  /** Entries (files and directories) examined. */
  maxEntries: number;
  /** Wall time of the scan, in ms. */
  maxMs: number;
  /** Directory levels below `path` the server descends into at most (maxDepth beyond it is capped). */
  maxDepth: number;
}

export const DEFAULT_LIMITS: SearchLimits = { maxEntries: 2_000_000, maxMs: 20_000, maxDepth: 256 };

export interface SearchProgress {
  /** Entries examined so far (grows; the total is unknown until the scan ends). */
  progress: number;
  message: string;
}

export interface SearchOptions {
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: SearchProgress) => void) | undefined;
  now?: () => number;
  limits?: Partial<SearchLimits>;
  /** Signs page cursors; defaults to one codec (one random key) per process. */
  cursors?: CursorCodec;
  /** Worker threads for the scan; null or absent scans inline. */
  pool?: ScanPool | null;
  /** Look-ahead windows for the next pages; defaults to one cache per process. */
  pages?: PageCache;
}

export interface SearchMatch {
  path: string;
  isDirectory: boolean;
  sizeBytes: number | null;
  modifiedAt: string;
  createdAt: string | null;
}

/** structuredContent, exactly the output schema of seed 001 §2.1.3. */
export interface SearchOutput {
  timeField: TimeField;
  range: { from: string | null; to: string | null };
  matches: SearchMatch[];
  nextCursor: string | null;
  stats: { scannedFiles: number; scannedDirectories: number; returned: number };
}

export interface SearchResult {
  output: SearchOutput;
  /** The first text block: "Found 2 files (sorted by modified desc)." and any notes. */
  summary: string;
  /** The same page cut to its first `n` matches, with a cursor that continues after them. */
  truncated(n: number): SearchResult;
}

const processCursors = new CursorCodec();
const processPages = new PageCache();

/** Pages of look-ahead a scan keeps for the following calls (at most WINDOW_MAX entries). */
const LOOKAHEAD_PAGES = 4;
const WINDOW_MAX = 5000;

/** True when the entry still has the times, kind and size the scan saw (a cached page is re-checked). */
function unchanged(rootReal: string, entry: FoundEntry): boolean {
  const st: StatRecord = { mode: 0, size: 0, mtimeMs: 0, birthtimeMs: 0 };
  const file = rootReal + path.sep + (path.sep === "/" ? entry.p : entry.p.split("/").join(path.sep));
  try {
    if (!portableLstat(file, st)) return false;
  } catch {
    return false;
  }
  const type = st.mode & S_IFMT;
  return (
    (type === S_IFDIR) === entry.isDirectory &&
    st.mtimeMs === entry.mtimeMs &&
    (st.birthtimeMs > 0 ? st.birthtimeMs : null) === entry.birthtimeMs &&
    (type === S_IFREG ? st.size : null) === entry.size
  );
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

function toMatch(entry: FoundEntry): SearchMatch {
  return {
    path: entry.p,
    isDirectory: entry.isDirectory,
    sizeBytes: entry.size,
    modifiedAt: iso(entry.mtimeMs),
    createdAt: entry.birthtimeMs === null ? null : iso(entry.birthtimeMs),
  };
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
}

function noun(args: SearchArguments, n: number): string {
  if (args.includeFiles && !args.includeDirectories) return plural(n, "file", "files");
  if (!args.includeFiles) return plural(n, "directory", "directories");
  return plural(n, "entry", "entries");
}

function sortedBy(args: SearchArguments): string {
  if (args.sort === "path_asc") return "path";
  return `${args.timeField} ${args.sort === "time_desc" ? "desc" : "asc"}`;
}

function where(root: SearchRoot, start: StartDirectory): string {
  return start.rel === "" ? `root "${root.name}"` : `"${start.rel}" in root "${root.name}"`;
}

function notesFor(
  args: SearchArguments,
  outcome: Pick<ScanOutcome, "counts" | "stoppedBy" | "lostThreads">,
  limits: SearchLimits,
  depthCapped: boolean,
): string[] {
  const notes: string[] = [];
  const { counts } = outcome;
  if (outcome.stoppedBy !== null) {
    const bound =
      outcome.stoppedBy === "time"
        ? `time limit of ${(limits.maxMs / 1000).toLocaleString("en-US")} s`
        : `limit of ${limits.maxEntries.toLocaleString("en-US")} entries`;
    notes.push(
      `The scan stopped early at the server's ${bound}, after ${plural(counts.files, "file", "files")} in ${plural(counts.directories, "directory", "directories")}: these are the best matches among the entries scanned, not the whole tree. Narrow 'path' or 'maxDepth' to search completely.`,
    );
  }
  if (outcome.lostThreads > 0) {
    notes.push(
      `${plural(outcome.lostThreads, "scan thread", "scan threads")} did not stop within ${STOP_GRACE_MS} ms of that and ${outcome.lostThreads === 1 ? "was" : "were"} replaced: the entries ${outcome.lostThreads === 1 ? "it" : "they"} had examined are not counted or listed here.`,
    );
  }
  if (counts.unreadable > 0) {
    notes.push(
      `${plural(counts.unreadable, "entry", "entries")} could not be read (permission denied or an I/O error) and ${counts.unreadable === 1 ? "was" : "were"} skipped.`,
    );
  }
  if (depthCapped && counts.depthCapped > 0) {
    notes.push(
      `Directories more than ${limits.maxDepth} levels below the start were not searched (the server's depth limit).`,
    );
  }
  if (args.timeField === "created" && !args.includeUnknownTime && counts.unknownTime > 0) {
    notes.push(
      `${plural(counts.unknownTime, "entry has", "entries have")} no created time on this file system and ${counts.unknownTime === 1 ? "was" : "were"} left out; set includeUnknownTime to true to list them.`,
    );
  }
  return notes;
}

/**
 * Searches one allowed root by time. Throws InvalidArgumentsError for a request that breaks the input
 * schema's shape, SearchError for anything the agent can correct (both carry a sentence for it), and the
 * signal's reason when cancelled.
 */
export async function searchByTime(
  roots: readonly SearchRoot[],
  input: unknown,
  options: SearchOptions = {},
): Promise<SearchResult> {
  const args = parseSearchArguments(input);
  const limits: SearchLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const cursors = options.cursors ?? processCursors;
  const root = selectRoot(roots, args.root);
  const start = resolveStart(root, args.path);

  const requestedDescend = args.recursive ? (args.maxDepth ?? Number.POSITIVE_INFINITY) : 0;
  const maxDescend = Math.min(requestedDescend, limits.maxDepth);
  const digest = queryDigest({
    root: root.name,
    rootPath: root.realPath,
    path: start.rel,
    timeField: args.timeField,
    from: args.from?.ms ?? null,
    to: args.to?.ms ?? null,
    glob: args.glob ?? null,
    descend: Number.isFinite(requestedDescend) ? requestedDescend : null,
    includeFiles: args.includeFiles,
    includeDirectories: args.includeDirectories,
    includeUnknownTime: args.includeUnknownTime,
    sort: args.sort,
  });
  const after = args.cursor === undefined ? null : cursors.decode(args.cursor, digest, start.rel);

  const now = options.now ?? Date.now;
  const pages = options.pages ?? processPages;
  let source: CachedWindow | undefined;
  let fromCache = false;
  if (args.cursor !== undefined) {
    const cached = pages.take(args.cursor, now());
    if (cached && (cached.entries.length > args.limit || cached.complete)) {
      const page = cached.entries.slice(0, args.limit);
      if (page.every((entry) => unchanged(root.realPath, entry))) {
        source = cached;
        fromCache = true;
      }
    }
  }
  if (source === undefined) {
    // Keep the page, a look-ahead of a few pages for the next calls, and one more to know if more exist.
    const window = Math.max(args.limit, Math.min(args.limit * (1 + LOOKAHEAD_PAGES), WINDOW_MAX));
    const spec: ScanSpec = {
      rootReal: root.realPath,
      sep: path.sep,
      timeField: args.timeField,
      fromMs: args.from?.ms ?? null,
      toMs: args.to?.ms ?? null,
      glob: args.glob ?? null,
      maxDescend,
      requestedDescend,
      includeFiles: args.includeFiles,
      includeDirectories: args.includeDirectories,
      includeUnknownTime: args.includeUnknownTime,
      sort: args.sort,
      after,
      keep: window + 1,
    };
    const onProgress = options.onProgress;
    let reported = 0; // MCP progress must grow with every notification
    const scannedAt = now();
    const outcome = await runScan(
      {
        spec,
        start: globStart(root.realPath, start.rel, args.glob, maxDescend, args.includeDirectories),
        signal: options.signal,
        onProgress:
          onProgress &&
          ((p) => {
            if (p.files + p.directories <= reported) return;
            reported = p.files + p.directories;
            onProgress({
              progress: reported,
              message: `Scanned ${plural(p.files, "file", "files")} in ${plural(p.directories, "directory", "directories")}…`,
            });
          }),
        maxEntries: limits.maxEntries,
        maxMs: limits.maxMs,
        now,
      },
      options.pool ?? null,
    );
    const { counts } = outcome;
    if (
      args.timeField === "created" &&
      !args.includeUnknownTime &&
      counts.knownTime === 0 &&
      counts.unknownTime > 0
    ) {
      throw new SearchError(
        `The file system under ${where(root, start)} does not record creation times, so a "created" search cannot match anything there. Use timeField "modified", or set includeUnknownTime to true to list the entries anyway.`,
      );
    }
    source = {
      entries: outcome.entries,
      complete: outcome.entries.length < spec.keep && outcome.stoppedBy === null,
      counts,
      stoppedBy: outcome.stoppedBy,
      lostThreads: outcome.lostThreads,
      scannedAt,
    };
  }

  const { entries, counts, complete, scannedAt } = source;
  const notes = notesFor(args, source, limits, maxDescend < requestedDescend);
  if (fromCache) {
    notes.push(
      `This page continues the scan made ${Math.max(0, Math.round((now() - scannedAt) / 1000))} s ago for the previous page; its entries were checked again now.`,
    );
  }
  /** The page of the first `size` entries of the window, with a cursor (and a cached window) after it. */
  const shape = (size: number): SearchResult => {
    const page = entries.slice(0, Math.max(0, size));
    const matches = page.map(toMatch);
    const last = page[page.length - 1];
    const more = entries.length > page.length || !complete;
    const nextCursor = more && last ? cursors.encode(digest, { t: last.t, p: last.p }) : null;
    if (nextCursor !== null) {
      pages.put(nextCursor, { ...source, entries: entries.slice(page.length) });
    }
    const output: SearchOutput = {
      timeField: args.timeField,
      range: { from: args.from?.text ?? null, to: args.to?.text ?? null },
      matches,
      nextCursor,
      stats: { scannedFiles: counts.files, scannedDirectories: counts.directories, returned: matches.length },
    };
    const sentences = [`Found ${noun(args, matches.length)} (sorted by ${sortedBy(args)}).`];
    if (nextCursor !== null) {
      sentences.push(
        "More results exist: call again with the same arguments and 'cursor' set to nextCursor for the next page.",
      );
    } else if (matches.length === 0 && source.stoppedBy === null) {
      sentences.push(
        `Nothing under ${where(root, start)} matched; widen the time range, check 'glob', or search a parent 'path'.`,
      );
    }
    sentences.push(...notes);
    return { output, summary: sentences.join(" "), truncated: (n) => shape(Math.min(n, page.length)) };
  };
  return shape(args.limit);
}
