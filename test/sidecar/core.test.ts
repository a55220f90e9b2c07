// The search core without MCP or a process: date parsing, containment by path components, the signed
// cursor, the bounded heap, fitting a page into one relay frame, and searchByTime called directly.
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseDateTime } from "../../src/sidecar/arguments.js";
import { InvalidArgumentsError, SearchError } from "../../src/sidecar/errors.js";
import { CursorCodec, isContainedRelativePath, queryDigest } from "../../src/sidecar/cursor.js";
import { fitFrame } from "../../src/sidecar/hub-link.js";
import { comparatorFor, TopK, type FoundEntry, type Position } from "../../src/sidecar/order.js";
import { PageCache } from "../../src/sidecar/page-cache.js";
import { emptyCounts } from "../../src/sidecar/scan.js";
import { isWithin, parseRootSpec, resolveRoots, resolveStart, selectRoot } from "../../src/sidecar/roots.js";
import { searchByTime } from "../../src/sidecar/search.js";
import { removeDir, tempDir } from "./helpers.js";

describe("parseDateTime (RFC 3339 date-time)", () => {
  it("accepts Z, offsets, fractions and a leap second", () => {
    expect(parseDateTime("2025-12-15T00:00:00Z")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-15t00:00:00z")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-15T09:00:00+09:00")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-14T19:30:00-04:30")).toBe(Date.UTC(2025, 11, 15));
    expect(parseDateTime("2025-12-15T00:00:00.25Z")).toBe(Date.UTC(2025, 11, 15) + 250);
    expect(parseDateTime("2024-02-29T00:00:00Z")).toBe(Date.UTC(2024, 1, 29));
    expect(parseDateTime("2016-12-31T23:59:60Z")).toBe(Date.UTC(2017, 0, 1));
    expect(parseDateTime("0099-01-01T00:00:00Z")).toBe(new Date("0099-01-01T00:00:00Z").getTime());
  });

  it("refuses what is not a full date-time with a zone", () => {
    for (const bad of [
      "2025-12-15",
      "2025-12-15T00:00:00",
      "2025-12-15 00:00:00Z",
      "2025-13-01T00:00:00Z",
      "2025-02-29T00:00:00Z",
      "2025-04-31T00:00:00Z",
      "2025-12-15T24:00:00Z",
      "2025-12-15T00:60:00Z",
      "2025-12-15T00:00:61Z",
      "2025-12-15T00:00:00+24:00",
      "1734220800",
      "",
      "next tuesday",
    ]) {
      expect(parseDateTime(bad), bad).toBeUndefined();
    }
  });
});

describe("containment", () => {
  it("compares whole path components, never string prefixes", () => {
    expect(isWithin("/data", "/data")).toBe(true);
    expect(isWithin("/data", "/data/a/b")).toBe(true);
    expect(isWithin("/data", "/data-evil")).toBe(false);
    expect(isWithin("/data", "/data-evil/x")).toBe(false);
    expect(isWithin("/data", "/dat")).toBe(false);
    expect(isWithin("/data", "/")).toBe(false);
    expect(isWithin("/data", "/data/..foo")).toBe(true);
    expect(isWithin("/data/a", "/data/ab")).toBe(false);
  });

  it("a cursor's path must be a plain relative path under the start directory", () => {
    expect(isContainedRelativePath("a/b.txt", "")).toBe(true);
    expect(isContainedRelativePath("notes/a.md", "notes")).toBe(true);
    expect(isContainedRelativePath("notes-evil/a.md", "notes")).toBe(false);
    expect(isContainedRelativePath("notes", "notes")).toBe(false);
    for (const bad of ["", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", "a/", "a\0b", ".."]) {
      expect(isContainedRelativePath(bad, ""), JSON.stringify(bad)).toBe(false);
    }
  });

  it("root specs: NAME=DIR, or a DIR (a path with '=' can be written ./a=b)", () => {
    expect(parseRootSpec("docs=/home/me/docs")).toEqual({ name: "docs", dir: "/home/me/docs" });
    expect(parseRootSpec("/home/me/docs")).toEqual({ name: undefined, dir: "/home/me/docs" });
    expect(parseRootSpec("./a=b")).toEqual({ name: undefined, dir: "./a=b" });
  });
});

describe("the cursor", () => {
  const codec = new CursorCodec(Buffer.alloc(32, 7));
  const digest = queryDigest({ timeField: "modified", glob: null });

  it("round-trips a keyset position and refuses another query's digest", () => {
    const cursor = codec.encode(digest, { t: 1734220800000.5, p: "a/b c.txt" });
    expect(codec.decode(cursor, digest, "")).toEqual({ t: 1734220800000.5, p: "a/b c.txt" });
    expect(() => codec.decode(cursor, queryDigest({ timeField: "created", glob: null }), "")).toThrow(
      /belongs to a different search/,
    );
    expect(() => codec.decode(cursor, digest, "elsewhere")).toThrow(SearchError);
  });

  it("refuses another key, a changed payload and garbage", () => {
    const cursor = codec.encode(digest, { t: null, p: "x" });
    expect(() => new CursorCodec(Buffer.alloc(32, 8)).decode(cursor, digest, "")).toThrow(
      /^Invalid 'cursor'/,
    );
    const [payload, sig] = cursor.split(".");
    const changed = Buffer.from(JSON.stringify({ v: 1, q: digest, t: null, p: "y" })).toString("base64url");
    expect(() => codec.decode(`${changed}.${sig}`, digest, "")).toThrow(/^Invalid 'cursor'/);
    expect(() => codec.decode(`${payload}`, digest, "")).toThrow(/^Invalid 'cursor'/);
    expect(() => codec.decode("x".repeat(20_000), digest, "")).toThrow(/^Invalid 'cursor'/);
  });

  it("a correctly signed cursor whose path escapes is still refused", () => {
    const cursor = codec.encode(digest, { t: 1, p: "../outside" });
    expect(() => codec.decode(cursor, digest, "")).toThrow(/^Invalid 'cursor'/);
  });
});

describe("TopK", () => {
  it("keeps exactly the best k of a stream, in the result order, for every sort", () => {
    const entries: Position[] = [];
    for (let i = 0; i < 2000; i++)
      entries.push({ t: i % 7 === 0 ? null : (i * 7919) % 500, p: `f${(i * 31) % 2000}` });
    for (const sort of ["time_desc", "time_asc", "path_asc"] as const) {
      const compare = comparatorFor(sort);
      const heap = new TopK<Position>(37, compare);
      for (const e of entries) heap.offer(e);
      expect(heap.sorted()).toEqual([...entries].sort(compare).slice(0, 37));
    }
  });

  it("sorts unknown times last, ties by path", () => {
    const compare = comparatorFor("time_desc");
    const sorted = [
      { t: null, p: "b" },
      { t: 5, p: "b" },
      { t: null, p: "a" },
      { t: 5, p: "a" },
      { t: 9, p: "z" },
    ].sort(compare);
    expect(sorted).toEqual([
      { t: 9, p: "z" },
      { t: 5, p: "a" },
      { t: 5, p: "b" },
      { t: null, p: "a" },
      { t: null, p: "b" },
    ]);
  });
});

describe("PageCache", () => {
  const entry = (p: string): FoundEntry => ({
    p,
    t: 1,
    isDirectory: false,
    size: 0,
    mtimeMs: 1,
    birthtimeMs: 1,
  });
  const window = (n: number, scannedAt = 0) => ({
    entries: Array.from({ length: n }, (_, i) => entry(`f${i}`)),
    complete: false,
    counts: emptyCounts(),
    stoppedBy: null,
    lostThreads: 0,
    scannedAt,
  });

  it("holds at most maxEntries entries, dropping the oldest windows first", () => {
    const cache = new PageCache(100, 30_000);
    cache.put("a", window(60));
    cache.put("b", window(30));
    cache.put("c", window(30));
    expect(cache.take("a", 0)).toBeUndefined();
    expect(cache.take("b", 0)?.entries).toHaveLength(30);
    expect(cache.take("c", 0)?.entries).toHaveLength(30);
  });

  it("serves a window once, and only while it is younger than the TTL", () => {
    const cache = new PageCache(100, 1000);
    cache.put("a", window(5, 0));
    cache.put("b", window(5, 0));
    expect(cache.take("a", 500)?.entries).toHaveLength(5);
    expect(cache.take("a", 500)).toBeUndefined();
    expect(cache.take("b", 1001)).toBeUndefined();
  });
});

describe("searchByTime, called directly (inline scan)", () => {
  let base: string;
  let roots: ReturnType<typeof resolveRoots>;

  beforeAll(() => {
    base = tempDir();
    const root = join(base, "r");
    const longDir = join(root, "long", "y".repeat(200));
    mkdirSync(longDir, { recursive: true });
    // Long paths (~440 characters), so that a page of 1,000 does not fit one 1 MiB relay frame.
    for (let i = 0; i < 1000; i++) {
      const file = join(longDir, `${String(i).padStart(4, "0")}-${"x".repeat(230)}.txt`);
      writeFileSync(file, "");
      const t = Date.UTC(2025, 0, 1) / 1000 + i;
      utimesSync(file, t, t);
    }
    symlinkSync("/etc", join(root, "etc-link"));
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(root, "many", `d${d}`), { recursive: true });
      for (let f = 0; f < 5; f++) writeFileSync(join(root, "many", `d${d}`, `f${f}`), "");
    }
    roots = resolveRoots([`r=${root}`]);
  });
  afterAll(() => removeDir(base));

  it("separates a broken request (InvalidArgumentsError) from a correctable one (SearchError)", async () => {
    await expect(searchByTime(roots, { timeField: "modified", nope: 1 })).rejects.toBeInstanceOf(
      InvalidArgumentsError,
    );
    await expect(searchByTime(roots, [])).rejects.toBeInstanceOf(InvalidArgumentsError);
    await expect(searchByTime(roots, { timeField: "modified", limit: 0 })).rejects.toBeInstanceOf(
      SearchError,
    );
    await expect(searchByTime(roots, { timeField: "modified", path: "etc-link" })).rejects.toThrow(
      /goes through a symbolic link/,
    );
    expect(() => selectRoot(roots, "/etc")).toThrow(/is not an allowed root/);
    expect(() => resolveStart(roots[0]!, "/etc")).toThrow(/must be relative/);
  });

  it("rejects with the signal's reason when cancelled", async () => {
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(
      searchByTime(roots, { timeField: "modified" }, { signal: controller.signal }),
    ).rejects.toThrow("stop");
  });

  it("honours the entry bound, and says nothing of it when the scan completes", async () => {
    const result = await searchByTime(
      roots,
      { timeField: "modified", path: "many" },
      { limits: { maxEntries: 10 } },
    );
    expect(result.summary).toContain("The scan stopped early at the server's limit of 10 entries");
    expect(result.output.stats.scannedFiles).toBeLessThan(100);
    const complete = await searchByTime(roots, { timeField: "modified", path: "many" });
    expect(complete.output.stats).toEqual({ scannedFiles: 100, scannedDirectories: 21, returned: 100 });
    expect(complete.summary).not.toContain("stopped early");
  });

  it("cuts a page that would overflow a relay frame, with a cursor that continues after it", async () => {
    const full = await searchByTime(roots, { timeField: "modified", limit: 1000, glob: "long/**" });
    expect(full.output.matches).toHaveLength(1000);
    const fitted = fitFrame("call-1", full);
    const frame = JSON.stringify({ type: "result", id: "call-1", result: fitted });
    expect(Buffer.byteLength(frame)).toBeLessThanOrEqual(1024 * 1024);
    const kept = (fitted.structuredContent as { matches: Array<{ path: string }>; nextCursor: string })
      .matches;
    expect(kept.length).toBeGreaterThan(100);
    expect(kept.length).toBeLessThan(1000);
    expect((fitted.content[0] as { text: string }).text).toContain("to fit the relay's 1 MiB frame limit");
    const rest = await searchByTime(roots, {
      timeField: "modified",
      limit: 1000,
      glob: "long/**",
      cursor: (fitted.structuredContent as { nextCursor: string }).nextCursor,
    });
    expect([...kept, ...rest.output.matches].map((m) => m.path)).toEqual(
      full.output.matches.map((m) => m.path),
    );
    const small = await searchByTime(roots, { timeField: "modified", limit: 5 });
    expect(fitFrame("call-2", small).structuredContent).toEqual(small.output);
  });
});
