// Types for conformance.mjs.
export const REQUIRED: readonly string[];

export interface ScenarioResult {
  scenario: string;
  kind: "required" | "expected-failure" | "other";
  verdict: "pass" | "FAIL" | "expected fail" | "UNEXPECTED PASS";
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
export function listServerScenarios(): Promise<string[]>;
export function loadExpectedFailures(listed: string[], file?: string): Promise<Map<string, string>>;
/** Runs the script; resolves with its exit code (0: every required scenario passes, no surprises). */
export function main(argv?: string[], log?: (line: string) => void): Promise<number>;
