// The glob attack through the real process: the attack glob `*?*?…Z` over 47-character names answers within
// the time limit with a truthful result; after a cancelled attack scan no thread keeps the CPU busy; an
// overlong glob (and one with too many wildcards) is an isError naming the bound, and the pool stays on:
// the next slow scan runs on the worker threads while tools/list is answered.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  cpuMs,
  ensureBuilt,
  fastTempDir,
  outputOf,
  RawSidecar,
  removeDir,
  startSidecar,
  textOf,
  writeLongNameTree,
} from "./helpers.js";

const LIMIT_S = 2;
/** What the client allows a call beyond the server's time limit before it counts it as over the limit. */
const SLACK_MS = 3000;
const attack = (pairs: number) => `${"*?".repeat(pairs)}Z`;

let small: string;
let large: string;
let largeMatches: number;

beforeAll(() => {
  ensureBuilt();
  small = fastTempDir();
  writeLongNameTree(small, 1, 20);
  large = fastTempDir();
  largeMatches = writeLongNameTree(large, 12, 5000);
}, 120_000);

afterAll(() => {
  if (small) removeDir(small);
  if (large) removeDir(large);
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the attack glob", () => {
  it("over 20 files of 47-character names answers within the time limit with the whole, truthful result", async () => {
    const sidecar = await startSidecar(["--root", small, "--max-seconds", String(LIMIT_S)]);
    try {
      for (const pairs of [9, 11]) {
        const result = await sidecar.client.callTool(
          { name: "fs.search_by_time", arguments: { timeField: "modified", glob: `**/${attack(pairs)}` } },
          { timeout: LIMIT_S * 1000 + SLACK_MS },
        );
        const out = outputOf(result as never);
        expect(out.stats).toEqual({ scannedFiles: 20, scannedDirectories: 2, returned: 10 });
        expect(out.matches.map((m) => m.path.endsWith("Z"))).toEqual(Array(10).fill(true));
        expect(textOf(result as never)).not.toContain("stopped early");
      }
    } finally {
      await sidecar.close();
    }
  });

  it("leaves no thread busy once its call is cancelled", async () => {
    const raw = new RawSidecar(["--root", large, "--max-seconds", "60"]);
    try {
      await raw.initialize();
      raw.send({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: {
          name: "fs.search_by_time",
          arguments: { timeField: "modified", glob: `**/${attack(9)}` },
          _meta: { progressToken: "p1" },
        },
      });
      // Cancelled mid-scan: once the threads have reported their first progress.
      const first = await raw.waitFor((m) => m.method === "notifications/progress" || m.id === 1, 30_000);
      expect(first.method).toBe("notifications/progress");
      raw.send({
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "test" },
      });
      raw.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
      await raw.waitFor((m) => m.id === 2);
      await sleep(500); // what a thread may still need to notice the stop, and the pool's grace after it
      const before = cpuMs(raw.proc.pid!);
      await sleep(1000);
      // Threads still matching would burn up to 2 × 1,000 ms here; an idle sidecar burns next to nothing.
      expect(cpuMs(raw.proc.pid!) - before).toBeLessThan(300);
      expect(raw.messages.some((m) => m.id === 1 && "result" in m && m.result !== undefined)).toBe(false);
    } finally {
      await raw.close();
    }
  });
});

describe("the glob's bounds", () => {
  it("refuse an overlong glob and one with too many wildcards with an isError, and leave the scan threads on", async () => {
    const raw = new RawSidecar(["--root", large, "--max-seconds", "60"]);
    const call = (id: number, glob: string) =>
      raw.send({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "fs.search_by_time", arguments: { timeField: "modified", glob } },
      });
    type Answer = { result: { isError: boolean; content: Array<{ text: string }> } };
    try {
      await raw.initialize();
      call(1, "a".repeat(65_536));
      const long = (await raw.waitFor((m) => m.id === 1)) as Answer;
      expect(long.result.isError).toBe(true);
      expect(long.result.content[0]!.text).toBe(
        "'glob' is 65,536 characters long; the server accepts at most 1,024. Use a shorter pattern, or narrow the search with 'path'.",
      );
      call(2, attack(20));
      const wild = (await raw.waitFor((m) => m.id === 2)) as Answer;
      expect(wild.result.isError).toBe(true);
      expect(wild.result.content[0]!.text).toBe(
        "'glob' has 40 wildcards (each *, ?, [, { and ( counts); the server accepts at most 32. Use fewer wildcards, or narrow the search with 'path'.",
      );

      // The next slow scan (60,000 files, the attack glob) runs on the worker threads: the main thread
      // answers tools/list first and spends a small share of the process's CPU.
      const pid = raw.proc.pid!;
      const mainBefore = cpuMs(pid, pid);
      const allBefore = cpuMs(pid);
      call(3, `**/${attack(9)}`);
      raw.send({ jsonrpc: "2.0", id: 4, method: "tools/list" });
      const scan = (await raw.waitFor((m) => m.id === 3, 60_000)) as {
        result: {
          isError: boolean;
          structuredContent: { stats: { scannedFiles: number }; matches: unknown[] };
        };
      };
      const mainUsed = cpuMs(pid, pid) - mainBefore;
      const allUsed = cpuMs(pid) - allBefore;
      expect(scan.result.isError).toBe(false);
      expect(scan.result.structuredContent.stats.scannedFiles).toBe(60_000);
      expect(scan.result.structuredContent.matches).toHaveLength(100);
      expect(largeMatches).toBe(30_000);
      const order = raw.messages.map((m) => m.id);
      expect(order.indexOf(4)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(4)).toBeLessThan(order.indexOf(3));
      expect(mainUsed).toBeLessThan(allUsed / 2);
      expect(raw.badLines).toEqual([]);
    } finally {
      await raw.close();
    }
  });
});
