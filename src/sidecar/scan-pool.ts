// Runs one scan across worker threads (both cores here: stat calls dominate, and synchronous batches in
// threads beat many small async calls through libuv's pool), or, when the pool is busy with another scan,
// unavailable or disabled, on the main thread in short slices that yield to the event loop. Either way the
// caller gets progress, cancellation through its AbortSignal, and the server's time and entry bounds.
// Those bounds hold whatever a thread is doing: a thread that has not stopped within STOP_GRACE_MS of a
// stop (time limit or cancellation) is terminated and replaced, and the scan answers without its entries.
// A failed thread is replaced too; one scan's failure never turns the pool off for the next.
import { existsSync } from "node:fs";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { comparatorFor, TopK, type FoundEntry } from "./order.js";
import {
  CONTROL,
  STOP_CANCELLED,
  STOP_NONE,
  STOP_TIME,
  stopReasonOf,
  type FromWorker,
  type StopReason,
  type ToWorker,
} from "./scan-protocol.js";
import { addCounts, emptyCounts, ScanState, type DirTask, type ScanCounts, type ScanSpec } from "./scan.js";

export interface ScanProgress {
  files: number;
  directories: number;
}

export interface ScanRequest {
  spec: ScanSpec;
  start: DirTask;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: ScanProgress) => void) | undefined;
  /** Stop after examining this many entries. */
  maxEntries: number;
  /** Stop after this long, in ms. */
  maxMs: number;
  /** The clock (epoch ms); the pool's own deadline uses a timer. */
  now: () => number;
}

export interface ScanOutcome {
  /** The best `spec.keep` entries, best first. */
  entries: FoundEntry[];
  counts: ScanCounts;
  /** Why the scan ended before listing everything, or null when it finished. */
  stoppedBy: Exclude<StopReason, "cancelled"> | null;
  /** "pool" or "inline": where it ran. */
  ranOn: "pool" | "inline";
  /** Threads that did not stop in time and were terminated (their entries are not in the outcome). */
  lostThreads: number;
}

const PROGRESS_EVERY_MS = 100;
const SLICE_MS = 12;
/** How long threads get, after a stop, to hand in their entries before they are terminated and replaced. */
export const STOP_GRACE_MS = 250;
/** Threads that may fail (error or exit) in a row, with no scan completed between, before the pool gives up. */
const MAX_FAILURES = 3;

function abortError(signal: AbortSignal | undefined): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(typeof reason === "string" ? reason : "The search was cancelled.");
  error.name = "AbortError";
  return error;
}

/** Scans on the calling thread in slices of ~12 ms, yielding between them so messages keep flowing. */
export async function scanInline(req: ScanRequest): Promise<ScanOutcome> {
  const state = new ScanState(req.spec);
  state.stack.push(req.start);
  const deadline = req.now() + req.maxMs;
  let stoppedBy: StopReason | null = null;
  let lastProgress = req.now();
  let sliceEnd = 0;
  const hooks = {
    check: (): "continue" | "pause" | "stop" => {
      if (req.signal?.aborted) stoppedBy = "cancelled";
      else if (state.scanned >= req.maxEntries) stoppedBy = "entries";
      const now = req.now();
      if (stoppedBy === null && now >= deadline) stoppedBy = "time";
      if (stoppedBy !== null) return "stop";
      if (req.onProgress && now - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = now;
        req.onProgress({ files: state.counts.files, directories: state.counts.directories });
      }
      return performance.now() >= sliceEnd ? "pause" : "continue";
    },
  };
  for (;;) {
    sliceEnd = performance.now() + SLICE_MS;
    const verdict = state.run(hooks);
    if (verdict !== "pause") break;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  if (stoppedBy === "cancelled") throw abortError(req.signal);
  return { entries: state.results(), counts: state.counts, stoppedBy, ranOn: "inline", lostThreads: 0 };
}

interface PoolWorker {
  worker: Worker;
}

interface ActiveScan {
  id: number;
  req: ScanRequest;
  control: Int32Array;
  idle: Set<number>;
  /** Workers waiting for a share of another worker's directories (counted in control[steal]). */
  starving: Set<number>;
  pending: DirTask[];
  progress: Map<number, ScanProgress>;
  lastProgress: number;
  results: Map<number, { entries: FoundEntry[]; counts: ScanCounts }>;
  /** Threads terminated during this scan (overran a stop, or failed); not waited for. */
  lost: Set<number>;
  finishing: boolean;
  resolve: (outcome: ScanOutcome) => void;
  reject: (error: Error) => void;
}

/**
 * Makes `rootReal` the process's working directory for a pool scan, when that is safe: POSIX, and the
 * directory reached is exactly the root's realpath (a root swapped for a link since start is not entered).
 * Nothing else in the sidecar resolves relative paths; inline scans use absolute ones.
 */
function enterRoot(rootReal: string): boolean {
  if (process.platform === "win32" || process.env.WEBMCP_HUB_ABSOLUTE_PATHS === "1") return false;
  try {
    process.chdir(rootReal);
    return process.cwd() === rootReal;
  } catch {
    return false;
  }
}

/** The default worker script: next to the bundled CLI (dist/sidecar/scan-worker.mjs). */
export const DEFAULT_WORKER_URL = new URL("./scan-worker.mjs", import.meta.url);

export function defaultPoolSize(): number {
  return Math.max(1, Math.min(4, availableParallelism()));
}

/**
 * A fixed set of scan worker threads that serves one scan at a time (`tryScan` answers null while busy, and
 * the caller scans inline instead, so a small search never waits behind a large one).
 */
export class ScanPool {
  /** Indexed by thread slot; a slot is empty only after the pool gave up (failures) or closed. */
  private readonly workers: Array<PoolWorker | undefined> = [];
  private active: ActiveScan | null = null;
  private nextId = 1;
  private broken: string | null = null;
  private failures = 0;
  /** Threads terminated and replaced so far (they overran a stop, or failed). */
  replaced = 0;

  constructor(
    readonly size: number = defaultPoolSize(),
    private readonly workerUrl: URL = DEFAULT_WORKER_URL,
    /** Where notes about replaced threads go (stderr in the CLI; stdout carries MCP messages only). */
    private readonly log: (line: string) => void = () => {},
  ) {}

  /** False when the worker script is missing (e.g. running from sources), threads keep failing, or closed. */
  get usable(): boolean {
    if (this.broken !== null || this.size < 1) return false;
    if (this.workerUrl.protocol === "file:" && !existsSync(fileURLToPath(this.workerUrl))) {
      this.broken = `no worker script at ${fileURLToPath(this.workerUrl)}`;
      return false;
    }
    return true;
  }

  /** The thread ids of the current threads (a replaced thread gets a new id). */
  get threadIds(): number[] {
    return this.workers.flatMap((entry) => (entry ? [entry.worker.threadId] : []));
  }

  /** Starts the threads now, so the first search does not pay for it. */
  warm(): void {
    if (!this.usable) return;
    for (let i = 0; i < this.size; i++) if (!this.workers[i]) this.spawn(i);
  }

  private spawn(index: number): void {
    const worker = new Worker(this.workerUrl, {
      name: `webmcp-hub-scan-${index}`,
      // A scan's garbage is short-lived (names, paths): a small young generation keeps each thread's
      // memory flat instead of growing it with the tree.
      resourceLimits: { maxYoungGenerationSizeMb: 4 },
    });
    const entry: PoolWorker = { worker };
    worker.unref();
    worker.on("message", (message: FromWorker) => {
      if (this.workers[index] === entry) this.onMessage(index, message);
    });
    worker.on("error", (error) => {
      if (this.workers[index] === entry)
        this.threadFailed(index, `scan worker ${index} failed: ${error.message}`);
    });
    worker.on("exit", (code) => {
      if (this.workers[index] === entry) this.threadFailed(index, `scan worker ${index} exited (${code})`);
    });
    this.workers[index] = entry;
  }

  /** Terminates thread `index` (whatever it is doing) and starts a fresh one in its place. */
  private replace(index: number): void {
    const old = this.workers[index];
    if (!old) return;
    this.replaced++;
    if (this.broken === null) this.spawn(index);
    else this.workers[index] = undefined;
    void old.worker.terminate();
  }

  /** A thread failed: it is replaced, the scan it served fails, and the pool stays on unless this keeps happening. */
  private threadFailed(index: number, reason: string): void {
    this.log(`${reason}; starting a new scan thread in its place.`);
    if (++this.failures >= MAX_FAILURES) this.broken ??= `${reason} (${this.failures} failures in a row)`;
    this.replace(index);
    const scan = this.active;
    if (scan) {
      scan.lost.add(index);
      Atomics.compareExchange(scan.control, CONTROL.stop, STOP_NONE, STOP_CANCELLED); // the others stop too
      scan.reject(new Error(`The scan failed: ${reason}.`));
    }
  }

  /** Runs the scan on the pool, or resolves null at once when the pool is busy or unusable. */
  tryScan(req: ScanRequest): Promise<ScanOutcome> | null {
    if (this.active !== null || !this.usable) return null;
    this.warm();
    return new Promise<ScanOutcome>((resolve, reject) => {
      const control = new Int32Array(new SharedArrayBuffer(CONTROL.slots * 4));
      const scan: ActiveScan = {
        id: this.nextId++,
        req,
        control,
        idle: new Set(this.workers.map((_, i) => i)),
        starving: new Set(),
        pending: [req.start],
        progress: new Map(),
        lastProgress: Date.now(),
        results: new Map(),
        lost: new Set(),
        finishing: false,
        resolve,
        reject,
      };
      let grace: ReturnType<typeof setTimeout> | undefined;
      const stop = (code: number) => {
        Atomics.compareExchange(control, CONTROL.stop, STOP_NONE, code);
        if (grace === undefined) {
          grace = setTimeout(() => this.overran(scan), STOP_GRACE_MS);
          grace.unref();
        }
      };
      const onAbort = () => stop(STOP_CANCELLED);
      const timer = setTimeout(() => stop(STOP_TIME), req.maxMs);
      timer.unref();
      req.signal?.addEventListener("abort", onAbort, { once: true });
      if (req.signal?.aborted) onAbort();
      let settled = false;
      const settle = () => {
        settled = true;
        clearTimeout(timer);
        clearTimeout(grace);
        req.signal?.removeEventListener("abort", onAbort);
        if (this.active === scan) this.active = null;
      };
      scan.resolve = (outcome) => {
        if (settled) return;
        settle();
        this.failures = 0;
        resolve(outcome);
      };
      scan.reject = (error) => {
        if (settled) return;
        settle();
        reject(error);
      };
      this.active = scan;
      const spec = { ...req.spec, fromCwd: enterRoot(req.spec.rootReal) };
      for (const entry of this.workers) {
        this.send(entry!.worker, {
          type: "start",
          scanId: scan.id,
          spec,
          control: control.buffer as SharedArrayBuffer,
          maxEntries: req.maxEntries,
        });
      }
      this.dispatch(scan);
    });
  }

  /**
   * A stop was signalled STOP_GRACE_MS ago and the scan has not answered: every thread still busy with it
   * is terminated and replaced, and the scan answers with the entries of the threads that did stop.
   */
  private overran(scan: ActiveScan): void {
    if (this.active !== scan) return;
    for (let index = 0; index < this.workers.length; index++) {
      if (scan.results.has(index) || scan.lost.has(index)) continue;
      if (scan.finishing || !scan.idle.has(index)) {
        scan.lost.add(index);
        scan.idle.delete(index);
        this.log(
          `scan thread ${index} did not stop within ${STOP_GRACE_MS} ms of the scan's ${stopReasonOf(Atomics.load(scan.control, CONTROL.stop)) ?? "stop"}; it was terminated and replaced.`,
        );
        this.replace(index);
      }
    }
    if (this.active !== scan) return; // a replacement failed and ended the scan
    if (scan.finishing) this.settleIfComplete(scan);
    else this.finish(scan);
  }

  private send(worker: Worker, message: ToWorker): void {
    worker.postMessage(message);
  }

  /** Threads still taking part in the scan (not terminated during it). */
  private participants(scan: ActiveScan): number {
    return this.workers.length - scan.lost.size;
  }

  /** Hands pending directories to idle workers; idle workers left over ask busy ones for a share. */
  private dispatch(scan: ActiveScan): void {
    const idle = [...scan.idle];
    let given = 0;
    while (scan.pending.length > 0 && given < idle.length) {
      const index = idle[given++]!;
      const share = Math.ceil(scan.pending.length / (idle.length - given + 1));
      const tasks = scan.pending.splice(0, share);
      scan.idle.delete(index);
      if (scan.starving.delete(index)) this.unsteal(scan);
      this.send(this.workers[index]!.worker, { type: "work", scanId: scan.id, tasks });
    }
    if (scan.idle.size === this.participants(scan)) return this.finish(scan);
    for (const index of scan.idle) {
      if (!scan.starving.has(index)) {
        scan.starving.add(index);
        Atomics.add(scan.control, CONTROL.steal, 1);
      }
    }
  }

  private unsteal(scan: ActiveScan): void {
    for (;;) {
      const n = Atomics.load(scan.control, CONTROL.steal);
      if (n <= 0 || Atomics.compareExchange(scan.control, CONTROL.steal, n, n - 1) === n) return;
    }
  }

  private finish(scan: ActiveScan): void {
    if (scan.finishing) return;
    scan.finishing = true;
    Atomics.store(scan.control, CONTROL.steal, 0);
    this.workers.forEach((entry, index) => {
      if (entry && !scan.lost.has(index)) this.send(entry.worker, { type: "finish", scanId: scan.id });
    });
    this.settleIfComplete(scan);
  }

  /** Answers the scan once every participating thread has handed in its entries. */
  private settleIfComplete(scan: ActiveScan): void {
    if (scan.results.size < this.participants(scan)) return;
    const reason = stopReasonOf(Atomics.load(scan.control, CONTROL.stop));
    if (reason === "cancelled") return scan.reject(abortError(scan.req.signal));
    const counts = emptyCounts();
    const best = new TopK<FoundEntry>(scan.req.spec.keep, comparatorFor(scan.req.spec.sort));
    for (const r of scan.results.values()) {
      addCounts(counts, r.counts);
      for (const entry of r.entries) best.offer(entry);
    }
    scan.resolve({
      entries: best.sorted(),
      counts,
      stoppedBy: reason,
      ranOn: "pool",
      lostThreads: scan.lost.size,
    });
  }

  private onMessage(index: number, message: FromWorker): void {
    const scan = this.active;
    if (!scan || message.scanId !== scan.id || scan.lost.has(index)) return;
    switch (message.type) {
      case "progress": {
        scan.progress.set(index, { files: message.files, directories: message.directories });
        const now = Date.now();
        if (scan.req.onProgress && now - scan.lastProgress >= PROGRESS_EVERY_MS) {
          scan.lastProgress = now;
          let files = 0;
          let directories = 0;
          for (const p of scan.progress.values()) {
            files += p.files;
            directories += p.directories;
          }
          scan.req.onProgress({ files, directories });
        }
        return;
      }
      case "donate":
        if (Atomics.load(scan.control, CONTROL.stop) !== STOP_NONE) return; // stopping: drop the share
        scan.pending.push(...message.tasks);
        this.dispatch(scan);
        return;
      case "idle":
        scan.idle.add(index);
        if (Atomics.load(scan.control, CONTROL.stop) !== STOP_NONE) {
          scan.pending.length = 0;
          if (scan.idle.size === this.participants(scan)) this.finish(scan);
          return;
        }
        this.dispatch(scan);
        return;
      case "result":
        scan.results.set(index, { entries: message.entries, counts: message.counts });
        if (scan.finishing) this.settleIfComplete(scan);
        return;
      case "failed":
        this.threadFailed(index, `scan worker ${index} failed: ${message.message}`);
        return;
    }
  }

  /** Ends the threads (the process can then exit). */
  async close(): Promise<void> {
    const workers = this.workers.splice(0);
    this.broken ??= "closed";
    await Promise.all(workers.map((entry) => entry?.worker.terminate()));
  }
}

/**
 * Where a search's scan runs: the pool when free, otherwise inline on this thread (matching there is
 * linear-time, and the slices yield every 12 ms). A scan the pool fails is not run again: the error is the
 * answer; only when the pool cannot be used at all does the scan run inline, within the time left.
 */
export async function runScan(req: ScanRequest, pool: ScanPool | null): Promise<ScanOutcome> {
  if (req.signal?.aborted) throw abortError(req.signal);
  const startedAt = req.now();
  const pooled = pool?.tryScan(req);
  if (pooled) {
    try {
      return await pooled;
    } catch (e) {
      if (req.signal?.aborted || pool!.usable) throw e;
    }
  }
  const left = Math.max(0, req.maxMs - (req.now() - startedAt));
  return scanInline({ ...req, maxMs: left });
}
