// Messages and shared control words between the scan pool (main thread) and its worker threads.
// Control lives in a SharedArrayBuffer so a worker busy in a synchronous batch still sees a stop or a
// request for work between two directories, without returning to its event loop.
import type { FoundEntry } from "./order.js";
import type { DirTask, ScanCounts, ScanSpec } from "./scan.js";

/** Int32 slots of the control buffer. */
export const CONTROL = {
  /** Why the scan stops: one of STOP_*; 0 while it runs. */
  stop: 0,
  /** Requests from idle workers for a share of a busy worker's pending directories. */
  steal: 1,
  /** Entries examined by all workers so far (for the server's entry bound). */
  scanned: 2,
  slots: 3,
} as const;

export const STOP_NONE = 0;
export const STOP_CANCELLED = 1;
export const STOP_TIME = 2;
export const STOP_ENTRIES = 3;

export type StopReason = "cancelled" | "time" | "entries";

export function stopReasonOf(code: number): StopReason | null {
  return code === STOP_CANCELLED
    ? "cancelled"
    : code === STOP_TIME
      ? "time"
      : code === STOP_ENTRIES
        ? "entries"
        : null;
}

export type ToWorker =
  | { type: "start"; scanId: number; spec: ScanSpec; control: SharedArrayBuffer; maxEntries: number }
  | { type: "work"; scanId: number; tasks: DirTask[] }
  | { type: "finish"; scanId: number };

export type FromWorker =
  | { type: "progress"; scanId: number; files: number; directories: number }
  | { type: "donate"; scanId: number; tasks: DirTask[] }
  | { type: "idle"; scanId: number }
  | { type: "result"; scanId: number; entries: FoundEntry[]; counts: ScanCounts }
  | { type: "failed"; scanId: number; message: string };
