// The scan pool's own guarantees, with real worker threads that misbehave on purpose
// (fixtures/stubborn-scan-worker.mjs): a thread that never looks at the stop word is terminated and
// replaced once the time limit or a cancellation has given it STOP_GRACE_MS, the scan answers truthfully
// without it, no CPU keeps burning afterwards, and a thread that fails fails its scan only: the pool stays on.
import { afterEach, describe, expect, it } from "vitest";
import { ScanPool, STOP_GRACE_MS, type ScanRequest } from "../../src/sidecar/scan-pool.js";
import type { ScanSpec } from "../../src/sidecar/scan.js";

const STUBBORN = new URL("./fixtures/stubborn-scan-worker.mjs", import.meta.url);

function request(glob: string, extra: Partial<ScanRequest> = {}): ScanRequest {
  const spec: ScanSpec = {
    rootReal: process.cwd(),
    sep: "/",
    timeField: "modified",
    fromMs: null,
    toMs: null,
    glob,
    maxDescend: 0,
    requestedDescend: 0,
    includeFiles: true,
    includeDirectories: false,
    includeUnknownTime: false,
    sort: "time_desc",
    after: null,
    keep: 10,
  };
  return { spec, start: { rel: "", depth: 0 }, maxEntries: 1000, maxMs: 200, now: Date.now, ...extra };
}

/** CPU the whole process (every thread) uses over `ms` of wall time, in ms. */
async function cpuOver(ms: number): Promise<number> {
  const before = process.cpuUsage();
  await new Promise((r) => setTimeout(r, ms));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

let pool: ScanPool | null = null;
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe("the scan pool", () => {
  it("terminates and replaces threads that overrun the time limit, and answers without them", async () => {
    const notes: string[] = [];
    pool = new ScanPool(2, STUBBORN, (line) => notes.push(line));
    pool.warm();
    const before = pool.threadIds;
    const outcome = await pool.tryScan(request("spin"))!;
    // The one start directory went to thread 0, which spins; thread 1 stayed idle and answered.
    expect(outcome).toMatchObject({ stoppedBy: "time", ranOn: "pool", lostThreads: 1, entries: [] });
    expect(outcome.counts.directories).toBe(1);
    expect(pool.replaced).toBe(1);
    const after = pool.threadIds;
    expect(after).toHaveLength(2);
    expect(before).not.toContain(after[0]);
    expect(after[1]).toBe(before[1]);
    expect(notes).toEqual([
      `scan thread 0 did not stop within ${STOP_GRACE_MS} ms of the scan's time; it was terminated and replaced.`,
    ]);
    // A thread still spinning would burn ~500 ms of CPU here.
    expect(await cpuOver(500)).toBeLessThan(200);
    // The fresh threads serve the next scan.
    expect(await pool.tryScan(request("none"))!).toMatchObject({ stoppedBy: null, lostThreads: 0 });
  });

  it("terminates and replaces threads that do not stop when the scan is cancelled", async () => {
    pool = new ScanPool(2, STUBBORN);
    pool.warm();
    const controller = new AbortController();
    const scan = pool.tryScan(request("spin", { maxMs: 60_000, signal: controller.signal }))!;
    controller.abort(new Error("The agent cancelled the call."));
    await expect(scan).rejects.toThrow("The agent cancelled the call.");
    expect(pool.replaced).toBe(1);
    expect(await cpuOver(500)).toBeLessThan(200);
    expect(pool.usable).toBe(true);
  });

  it("fails only the scan whose thread failed: the thread is replaced and the next scan runs on the pool", async () => {
    pool = new ScanPool(2, STUBBORN);
    pool.warm();
    await expect(pool.tryScan(request("fail"))!).rejects.toThrow("told to fail");
    expect(pool.usable).toBe(true);
    expect(await pool.tryScan(request("none"))!).toMatchObject({ ranOn: "pool", stoppedBy: null });
  });
});
