// Entry of a scan worker thread (bundled to dist/sidecar/scan-worker.mjs): runs ScanState batches for the
// pool, donates half of its pending directories when another worker is idle, reports progress, and stops
// as soon as the shared control word says so. It imports nothing heavy, so a worker starts in milliseconds.
import { parentPort } from "node:worker_threads";
import { CONTROL, STOP_ENTRIES, STOP_NONE, type FromWorker, type ToWorker } from "./scan-protocol.js";
import { ScanState, type ScanHooks } from "./scan.js";

const PROGRESS_EVERY_MS = 100;

interface Current {
  scanId: number;
  state: ScanState;
  control: Int32Array;
  maxEntries: number;
  /** Entries already added to the shared counter. */
  reported: number;
  lastProgress: number;
}

const port = parentPort;
if (!port) throw new Error("scan-worker.mjs runs only as a worker thread.");
let current: Current | null = null;

function post(message: FromWorker): void {
  port!.postMessage(message);
}

/** Adds this worker's new entries to the shared count; returns the total. */
function publishCount(c: Current): number {
  const delta = c.state.scanned - c.reported;
  c.reported = c.state.scanned;
  return Atomics.add(c.control, CONTROL.scanned, delta) + delta;
}

function hooksFor(c: Current): ScanHooks {
  return {
    check() {
      const { control, state } = c;
      if (publishCount(c) >= c.maxEntries) {
        Atomics.compareExchange(control, CONTROL.stop, STOP_NONE, STOP_ENTRIES);
      }
      if (Atomics.load(control, CONTROL.stop) !== STOP_NONE) return "stop";
      const wanted = Atomics.load(control, CONTROL.steal);
      if (wanted > 0 && state.stack.length >= 2) {
        if (Atomics.compareExchange(control, CONTROL.steal, wanted, wanted - 1) === wanted) {
          post({ type: "donate", scanId: c.scanId, tasks: state.split() });
        }
      }
      const now = Date.now();
      if (now - c.lastProgress >= PROGRESS_EVERY_MS) {
        c.lastProgress = now;
        post({
          type: "progress",
          scanId: c.scanId,
          files: state.counts.files,
          directories: state.counts.directories,
        });
      }
      return "continue";
    },
  };
}

port.on("message", (message: ToWorker) => {
  try {
    switch (message.type) {
      case "start":
        current = {
          scanId: message.scanId,
          state: new ScanState(message.spec),
          control: new Int32Array(message.control),
          maxEntries: message.maxEntries,
          reported: 0,
          lastProgress: Date.now(),
        };
        return;
      case "work": {
        const c = current;
        if (!c || c.scanId !== message.scanId) return;
        c.state.stack.push(...message.tasks);
        c.state.run(hooksFor(c));
        publishCount(c);
        post({ type: "idle", scanId: c.scanId });
        return;
      }
      case "finish": {
        const c = current;
        if (!c || c.scanId !== message.scanId) return;
        current = null;
        post({ type: "result", scanId: c.scanId, entries: c.state.results(), counts: c.state.counts });
        return;
      }
    }
  } catch (e) {
    post({ type: "failed", scanId: message.scanId, message: e instanceof Error ? e.message : String(e) });
  }
});
