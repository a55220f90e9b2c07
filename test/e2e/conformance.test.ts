// The official MCP conformance suite against a channel's MCP endpoint, through the real relay, in both
// protocol eras: scripts/conformance.mjs against the e2e hub (`wrangler dev` from the global setup), with a
// Node provider paired as a sidecar serving the suite's fixture tools. 2025-11-25: every server scenario the
// installed 0.1.16 lists. 2026-07-28: every server scenario 0.2.0-alpha.12 lists for that revision, and the
// tasks extension's scenarios.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { listServerScenarios, main, requiredFor, type ScenarioResult } from "../../scripts/conformance.mjs";

const hubUrl = inject("hubUrl");

const FILES = {
  "2025-11-25": "../../conformance/expected-failures.json",
  "2026-07-28": "../../conformance/expected-failures-2026-07-28.json",
} as const;

describe.each(["2025-11-25", "2026-07-28"] as const)("MCP conformance of the channel endpoint, %s", (era) => {
  let dir: string;
  let exitCode: number;
  let results: ScenarioResult[];
  let expected: { server: Record<string, string>; checksOf?: Record<string, Record<string, string>> };
  const output: string[] = [];

  beforeAll(async () => {
    expected = JSON.parse(await readFile(new URL(FILES[era], import.meta.url), "utf8")) as typeof expected;
    dir = await mkdtemp(join(tmpdir(), "webmcp-hub-conformance-test-"));
    const json = join(dir, "results.json");
    exitCode = await main(["--hub", hubUrl, "--spec-version", era, "--json", json], (line: string) =>
      output.push(line),
    );
    results = JSON.parse(await readFile(json, "utf8")) as ScenarioResult[];
  }, 400_000);

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("passes every scenario that applies to a tools-only server (partly applicable ones on their applicable checks)", () => {
    const failed = results
      .filter((r) => (r.kind === "required" || r.kind === "partial") && !r.ok)
      .map((r) => `${r.scenario}: ${r.problems.join("; ")}`);
    expect(failed, output.join("\n")).toEqual([]);
    expect(results.filter((r) => r.kind === "required").map((r) => r.scenario)).toEqual(
      expect.arrayContaining([...requiredFor(era)]),
    );
  });

  it("fails exactly the scenarios listed as expected failures, each with its reason, and no other", () => {
    const failing = results.filter((r) => !r.passed).map((r) => r.scenario);
    expect(failing.sort()).toEqual(Object.keys(expected.server).sort());
    for (const r of results.filter((r) => r.kind === "expected-failure" || r.kind === "partial")) {
      expect(r.reason, r.scenario).toMatch(/\S/);
    }
  });

  it("runs every scenario the suite lists, each classified, and exits 0", async () => {
    const listed = await listServerScenarios(era);
    expect(results.map((r) => r.scenario).sort()).toEqual([...listed].sort());
    const known = new Set([
      ...requiredFor(era),
      ...Object.keys(expected.server),
      ...Object.keys(expected.checksOf ?? {}),
    ]);
    expect(results.filter((r) => !known.has(r.scenario)).map((r) => r.scenario)).toEqual([]);
    expect(exitCode, output.join("\n")).toBe(0);
  });
});
