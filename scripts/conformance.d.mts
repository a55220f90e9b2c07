// Types for conformance.mjs.
export const REQUIRED: readonly string[];
export const REQUIRED_2026: readonly string[];
export const TASKS_SCENARIOS: readonly string[];
export const ERAS: readonly string[];
export const MODERN_SUITE: string;
export function requiredFor(era?: string): readonly string[];

export interface ScenarioResult {
  scenario: string;
  /** "partial": a scenario that applies in part (the expected-failures file's `checksOf`). */
  kind: "required" | "partial" | "expected-failure" | "other";
  verdict: "pass" | "pass (applicable checks)" | "FAIL" | "expected fail" | "UNEXPECTED PASS";
  /** No check FAILURE or WARNING. */
  passed: boolean;
  /** Whether this result is what the run wants (a pass, or an expected failure that failed). */
  ok: boolean;
  ms: number;
  success: number;
  failure: number;
  warning: number;
  problems: string[];
  checks: Array<{ id: string; name: string; status: string; errorMessage?: string; details?: unknown }>;
  /** Why it is an expected failure (conformance/expected-failures.json). */
  reason?: string;
}

export const CONFORMANCE_NODE_VERSION: string;
export function nodeForConformance(): Promise<string>;
export function listServerScenarios(era?: string): Promise<string[]>;
export function loadExpectedFailures(
  listed: string[],
  file?: string,
  era?: string,
): Promise<Map<string, string>>;
/** Runs the script; resolves with its exit code (0: every required scenario passes, no surprises). */
export function main(argv?: string[], log?: (line: string) => void): Promise<number>;
