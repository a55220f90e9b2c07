// The result order of fs.search_by_time and the bounded heap that keeps only the best few entries of a scan
// (the page, a look-ahead and one more), so a search's memory is O(limit) whatever the tree's size. A page's
// position is a keyset (time, path): the next page keeps only entries strictly after it, so paging never
// re-sorts the tree.
import type { SortOrder } from "./tool.js";

/** One matching entry as the scanner found it (paths are root-relative, POSIX separators). */
export interface FoundEntry {
  /** Root-relative POSIX path. */
  p: string;
  /** The sort time in epoch ms (the timeField's time), or null when the created time is unknown. */
  t: number | null;
  isDirectory: boolean;
  /** Regular files only; null for directories, symbolic links and other special files. */
  size: number | null;
  mtimeMs: number;
  /** null when the file system does not record it (birthtimeMs <= 0). */
  birthtimeMs: number | null;
}

/** A keyset position: the sort key of the last entry of a page. */
export interface Position {
  t: number | null;
  p: string;
}

/** JavaScript string order (UTF-16 code units): deterministic, and the same in every thread. */
function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Total order of results: time_desc = newest first, time_asc = oldest first (entries with an unknown time
 * last in both), ties and path_asc by path. Paths are unique, so no two entries compare equal.
 */
export function comparatorFor(sort: SortOrder): (a: Position, b: Position) => number {
  if (sort === "path_asc") return (a, b) => comparePaths(a.p, b.p);
  const sign = sort === "time_desc" ? -1 : 1;
  return (a, b) => {
    if (a.t !== b.t) {
      if (a.t === null) return 1;
      if (b.t === null) return -1;
      return a.t < b.t ? -sign : sign;
    }
    return comparePaths(a.p, b.p);
  };
}

/**
 * Keeps the `capacity` smallest entries (by `compare`) offered to it: a binary max-heap whose root is the
 * worst entry kept, so a worse candidate is rejected with one comparison and no allocation.
 */
export class TopK<T extends Position> {
  private readonly heap: T[] = [];

  constructor(
    readonly capacity: number,
    private readonly compare: (a: Position, b: Position) => number,
  ) {}

  get size(): number {
    return this.heap.length;
  }

  /** True when an entry at `key` would be kept (so the caller can skip building it otherwise). */
  wouldKeep(key: Position): boolean {
    return this.heap.length < this.capacity || this.compare(key, this.heap[0]!) < 0;
  }

  offer(entry: T): void {
    const heap = this.heap;
    if (heap.length < this.capacity) {
      heap.push(entry);
      this.siftUp(heap.length - 1);
    } else if (this.compare(entry, heap[0]!) < 0) {
      heap[0] = entry;
      this.siftDown(0);
    }
  }

  /** The kept entries, best first. */
  sorted(): T[] {
    return [...this.heap].sort(this.compare);
  }

  private siftUp(i: number): void {
    const heap = this.heap;
    const item = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(item, heap[parent]!) <= 0) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = item;
  }

  private siftDown(i: number): void {
    const heap = this.heap;
    const n = heap.length;
    const item = heap[i]!;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const larger = right < n && this.compare(heap[right]!, heap[left]!) > 0 ? right : left;
      if (this.compare(heap[larger]!, item) <= 0) break;
      heap[i] = heap[larger]!;
      i = larger;
    }
    heap[i] = item;
  }
}
