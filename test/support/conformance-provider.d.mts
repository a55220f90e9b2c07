// Types for the parts of conformance-provider.mjs that TypeScript tests use.
export const CONFORMANCE_TOOLS: ReadonlyArray<{ name: string; description?: string }>;
export const CRASH_TOOLS: ReadonlyArray<{ name: string; description?: string }>;
export function waitForTools(
  hubUrl: string,
  channelId: string,
  ownerKey: string,
  names: string[],
  timeoutMs?: number,
): Promise<unknown>;
export function startConformanceProvider(options: {
  hubUrl: string;
  pairingCode: string;
  label?: string;
  stepMs?: number;
}): Promise<{ close(): Promise<void>; errors: unknown[]; reconnects: number }>;
