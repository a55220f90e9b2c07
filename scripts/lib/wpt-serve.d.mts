// Types for wpt-serve.mjs.
export interface WptHosts {
  host: string;
  remote: string;
  alt: string;
}
export const WPT_HOSTS: WptHosts;
export function substitute(text: string, options: { hosts?: WptHosts; ports: [number, number] }): string;
export function injectScript(html: string, src: string): string;
export function isTestFile(path: string): boolean;
export function statusName(status: number, harness?: boolean): string;

export interface FileResult {
  harness: number;
  message?: string | null;
  tests: Array<{ name: string; status: number; message?: string | null }>;
}
export interface ModeCount {
  passed: number;
  total: number;
  harness?: string;
}
export interface CompareRow {
  file: string;
  behind: boolean;
  bridge?: ModeCount;
  native?: ModeCount;
  bridgeFailures: Array<{ name: string; status: string; message: string }>;
}
export function compare(results: Record<string, Record<string, FileResult>>): CompareRow[];
