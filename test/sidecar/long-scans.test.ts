// Long scans through the real process: progress notifications and cancellation (notifications/cancelled stops
// the scan) in both protocol eras, the server's entry and time bounds, concurrent calls, and stdout carrying
// only JSON-RPC.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureBuilt,
  ERAS,
  outputOf,
  RawSidecar,
  requestMeta,
  removeDir,
  startSidecar,
  fastTempDir,
  textOf,
  writeWideTree,
} from "./helpers.js";

// Large enough that a scan on both threads lasts well past the first progress notification (100 ms).
const DIRS = 60;
const PER_DIR = 5000;
let root: string;

beforeAll(() => {
  ensureBuilt();
  root = fastTempDir();
  writeWideTree(root, DIRS, PER_DIR);
}, 120_000);

afterAll(() => {
  if (root) removeDir(root);
});

/** Whether a message is a progress notification for `token`. */
function progressOf(m: Record<string, unknown>, token: string): boolean {
  const params = m.params as { progressToken?: unknown } | undefined;
  return m.method === "notifications/progress" && params?.progressToken === token;
}

describe.each([
  ["on the worker threads", []],
  ["on the main thread (--workers 0)", ["--workers", "0"]],
] as const)("a scan of 300,000 files %s", (_where, flags) => {
  it.each(ERAS)(
    "sends increasing progress notifications when the caller gave a progress token (MCP %s)",
    async (era) => {
      const sidecar = await startSidecar(["--root", root, ...flags], {}, era);
      try {
        const progress: Array<{ progress: number; message?: string }> = [];
        const result = await sidecar.client.callTool(
          { name: "fs.search_by_time", arguments: { timeField: "modified" } },
          { onprogress: (p) => progress.push(p) },
        );
        expect(outputOf(result as never).stats.scannedFiles).toBe(DIRS * PER_DIR);
        expect(progress.length).toBeGreaterThan(0);
        const values = progress.map((p) => p.progress);
        expect(values).toEqual([...values].sort((a, b) => a - b));
        expect(values.at(-1)!).toBeLessThanOrEqual(DIRS * PER_DIR + DIRS + 1);
        expect(progress[0]!.message).toMatch(/^Scanned [\d,]+ files in [\d,]+ director(y|ies)…$/);
      } finally {
        await sidecar.close();
      }
    },
  );

  it.each(ERAS)(
    "stops scanning when the call is cancelled, sends no answer for it, and keeps serving (MCP %s)",
    async (era) => {
      const raw = new RawSidecar(["--root", root, ...flags]);
      try {
        await raw.open(era);
        raw.send({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: {
            name: "fs.search_by_time",
            arguments: { timeField: "modified" },
            _meta: requestMeta(era, { progressToken: "p7" }),
          },
        });
        await raw.waitFor((m) => m.method === "notifications/progress");
        raw.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 7, reason: "test", _meta: requestMeta(era) },
        });
        const cancelledAt = raw.messages.length;
        // Once a later request is answered, the cancel has been handled (stdio is in order): anything of call 7
        // after that would be a scan still running.
        raw.send({ jsonrpc: "2.0", id: 70, method: "tools/list", params: { _meta: requestMeta(era) } });
        await raw.waitFor((m) => m.id === 70);
        const handled = raw.messages.length;
        // A second whole-tree scan reports progress on the same 100 ms cadence a still-running scan 7 would:
        // waiting for two of its notifications lets scan 7 speak if it were still going, without a timer here.
        raw.send({
          jsonrpc: "2.0",
          id: 9,
          method: "tools/call",
          params: {
            name: "fs.search_by_time",
            arguments: { timeField: "modified" },
            _meta: requestMeta(era, { progressToken: "p9" }),
          },
        });
        await raw.waitFor((m) => progressOf(m, "p9"));
        const firstP9 = raw.messages.length;
        await raw.waitFor((m) => progressOf(m, "p9") && raw.messages.indexOf(m) >= firstP9);
        raw.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: 9, reason: "test", _meta: requestMeta(era) },
        });
        const later = raw.messages.slice(handled);
        expect(later.filter((m) => progressOf(m, "p7"))).toEqual([]);
        expect(raw.messages.slice(cancelledAt).some((m) => m.id === 7)).toBe(false);
        raw.send({
          jsonrpc: "2.0",
          id: 8,
          method: "tools/call",
          params: {
            name: "fs.search_by_time",
            arguments: { timeField: "modified", path: "d0001" },
            _meta: requestMeta(era),
          },
        });
        const answer = (await raw.waitFor((m) => m.id === 8)) as {
          result: { structuredContent: { stats: unknown } };
        };
        expect(answer.result.structuredContent.stats).toEqual({
          scannedFiles: PER_DIR,
          scannedDirectories: 1,
          returned: 100,
        });
        expect(raw.badLines).toEqual([]);
      } finally {
        await raw.close();
      }
    },
  );

  it("stops at the server's entry bound and says so in the text", async () => {
    const sidecar = await startSidecar(["--root", root, "--max-entries", "5000", ...flags]);
    try {
      const result = await sidecar.call({ timeField: "modified" });
      const out = outputOf(result);
      expect(out.stats.scannedFiles).toBeLessThan(DIRS * PER_DIR);
      expect(out.matches.length).toBe(100);
      expect(textOf(result)).toContain(
        "The scan stopped early at the server's limit of 5,000 entries, after",
      );
      expect(textOf(result)).toContain(
        "not the whole tree. Narrow 'path' or 'maxDepth' to search completely.",
      );
    } finally {
      await sidecar.close();
    }
  });

  it("stops at the server's time bound and says so in the text", async () => {
    const sidecar = await startSidecar(["--root", root, "--max-seconds", "0.03", ...flags]);
    try {
      const result = await sidecar.call({ timeField: "modified" });
      expect(outputOf(result).stats.scannedFiles).toBeLessThan(DIRS * PER_DIR);
      expect(textOf(result)).toContain("The scan stopped early at the server's time limit of 0.03 s");
    } finally {
      await sidecar.close();
    }
  });
});

describe("the stdio transport", () => {
  it(
    "answers concurrent calls alike, whether the pool or the main thread runs them",
    { timeout: 90_000 },
    async () => {
      const sidecar = await startSidecar(["--root", root]);
      try {
        const args = { timeField: "modified", sort: "path_asc", glob: "d00[0-4]?/f1?.txt", limit: 1000 };
        const alone = outputOf(await sidecar.call(args));
        const together = await Promise.all([1, 2, 3].map(() => sidecar.call(args)));
        for (const result of together) expect(outputOf(result).matches).toEqual(alone.matches);
        expect(alone.matches).toHaveLength(50 * 10);
      } finally {
        await sidecar.close();
      }
    },
  );

  it("writes nothing but JSON-RPC to stdout, answers unparsable lines with -32700 / -32600, and exits when stdin ends", async () => {
    const raw = new RawSidecar(["--root", root]);
    await raw.initialize();
    raw.send("this is not json");
    const parseError = await raw.waitFor((m) => (m.error as { code?: number } | undefined)?.code === -32700);
    expect(parseError.id).toBeNull();
    raw.send({ hello: "world" });
    const invalid = await raw.waitFor((m) => (m.error as { code?: number } | undefined)?.code === -32600);
    expect(invalid.id).toBeNull();
    raw.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "fs.search_by_time", arguments: "x" },
    });
    const broken = (await raw.waitFor((m) => m.id === 1)) as { error: { code: number; message: string } };
    expect(broken.error.code).toBe(-32602); // a broken CallToolRequest: Invalid params
    expect(broken.error.message).toContain("Invalid tools/call request");
    raw.send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await raw.waitFor((m) => m.id === 2);
    const exited = new Promise<number | null>((resolve) => raw.proc.once("exit", resolve));
    raw.proc.stdin.end();
    expect(await exited).toBe(0);
    expect(raw.badLines).toEqual([]);
  });
});
