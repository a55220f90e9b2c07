// The entries a scan found beyond the page it returned, kept for a short while under the cursor that leads
// to them, so that paging through results costs one scan per few pages, not one per page. Bounded in entries
// (not only in windows) and in age; a window is used once, and its entries are re-checked (lstat) before
// they are served, so a page never shows an entry that changed or vanished since the scan.
import type { FoundEntry } from "./order.js";
import type { ScanCounts } from "./scan.js";

export interface CachedWindow {
  /** Entries right after the cursor's position, in result order. */
  entries: FoundEntry[];
  /** True when the scan found nothing beyond these (so a short window still ends the results). */
  complete: boolean;
  /** The scan these entries come from. */
  counts: ScanCounts;
  stoppedBy: "time" | "entries" | null;
  /** Scan threads that overran the stop and were terminated: their entries are missing. */
  lostThreads: number;
  /** When that scan ran (epoch ms). */
  scannedAt: number;
}

export class PageCache {
  private readonly windows = new Map<string, CachedWindow>();
  private held = 0;

  constructor(
    readonly maxEntries = 20_000,
    readonly ttlMs = 30_000,
  ) {}

  put(cursor: string, window: CachedWindow): void {
    if (window.entries.length === 0 && !window.complete) return;
    if (window.entries.length > this.maxEntries) return;
    this.drop(cursor);
    this.windows.set(cursor, window);
    this.held += window.entries.length;
    for (const [key, old] of this.windows) {
      if (this.held <= this.maxEntries) break;
      this.drop(key, old);
    }
  }

  /** The window stored under `cursor` if it is younger than the TTL; it is removed either way. */
  take(cursor: string, now: number): CachedWindow | undefined {
    const window = this.windows.get(cursor);
    if (!window) return undefined;
    this.drop(cursor, window);
    for (const [key, old] of this.windows) if (now - old.scannedAt > this.ttlMs) this.drop(key, old);
    return now - window.scannedAt <= this.ttlMs ? window : undefined;
  }

  private drop(key: string, window = this.windows.get(key)): void {
    if (!window) return;
    this.windows.delete(key);
    this.held -= window.entries.length;
  }
}
