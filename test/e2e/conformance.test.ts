// The official MCP conformance suite against a channel's MCP endpoint, through the real relay: runs
// scripts/conformance.mjs against the e2e hub (`wrangler dev` from the global setup), with a Node provider
// paired as a sidecar serving the suite's fixture tools. Every server scenario the package lists is run.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { REQUIRED, listServerScenarios, main, type ScenarioResult } from "../../scripts/conformance.mjs";

const hubUrl = inject("hubUrl");
const expectedFailures = JSON.parse(
  await readFile(new URL("../../conformance/expected-failures.json", import.meta.url), "utf8"),
) as { server: Record<string, string> };

describe("MCP conformance of the channel endpoint", () => {
  let dir: string;
  let exitCode: number;
  let results: ScenarioResult[];
  const output: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "webmcp-hub-conformance-test-"));
    const json = join(dir, "results.json");
    exitCode = await main(["--hub", hubUrl, "--json", json], (line: string) => output.push(line));
    results = JSON.parse(await readFile(json, "utf8")) as ScenarioResult[];
  }, 300_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("passes every scenario that applies to a tools-only server", () => {
    const failed = results
      .filter((r) => r.kind === "required" && !r.passed)
      .map((r) => `${r.scenario}: ${r.problems.join("; ")}`);
    expect(failed, output.join("\n")).toEqual([]);
    expect(results.filter((r) => r.kind === "required").map((r) => r.scenario)).toEqual(
      expect.arrayContaining([...REQUIRED]),
    );
  });

  it("fails exactly the scenarios listed as expected failures, and no other", () => {
    const failing = results.filter((r) => !r.passed).map((r) => r.scenario);
    expect(failing.sort()).toEqual(Object.keys(expectedFailures.server).sort());
    for (const r of results.filter((r) => r.kind === "expected-failure")) {
      expect(r.reason, r.scenario).toMatch(/\S/);
    }
  });

  it("runs every scenario the package lists, each classified, and exits 0", async () => {
    const listed = await listServerScenarios();
    expect(results.map((r) => r.scenario).sort()).toEqual([...listed].sort());
    const known = new Set([...REQUIRED, ...Object.keys(expectedFailures.server)]);
    expect(results.filter((r) => !known.has(r.scenario)).map((r) => r.scenario)).toEqual([]);
    expect(exitCode, output.join("\n")).toBe(0);
  });
});
