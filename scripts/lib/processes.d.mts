// Types for processes.mjs.
export type OutputStream = "stdout" | "stderr";
export type LineHandler = (line: string, stream: OutputStream) => void;

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
}

export interface ManagedProcess {
  pid: number | undefined;
  exited: Promise<ProcessExit>;
  readonly running: boolean;
  stop(graceMs?: number): Promise<void>;
}

export interface ProcessOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  onLine?: LineHandler;
}

export function startProcess(command: string, args: string[], options?: ProcessOptions): ManagedProcess;
export function runProcess(
  command: string,
  args: string[],
  options?: ProcessOptions,
): Promise<ProcessExit & { output: string[] }>;
