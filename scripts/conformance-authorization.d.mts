// Types for conformance-authorization.mjs.
export const AUTHORIZATION_SUITE: string;
export const AUTHORIZATION_SCENARIOS: readonly string[];

export interface AuthorizationCheck {
  id: string;
  name: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "SKIPPED" | "INFO";
  errorMessage?: string;
  details?: unknown;
}

export function runAuthorizationConformance(options: {
  hubUrl: string;
  resource: string;
  port: number;
  authorize: (url: string) => Promise<void>;
  timeoutMs?: number;
}): Promise<{ results: Record<string, AuthorizationCheck[]>; output: string; clientId: string }>;
