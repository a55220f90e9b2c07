// Helpers for the sidecar tests: temp trees with controlled mtimes, the real CLI process behind an MCP SDK
// client of either protocol era (or a raw line driver), and GNU find on the same tree as the reference.
import { execFileSync, spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, type CallToolResult } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

export const REPO = fileURLToPath(new URL("../..", import.meta.url));
export const BIN = join(REPO, "bin/webmcp-hub.mjs");
export const TOOL = "fs.search_by_time";

/** Builds dist/sidecar once (the bin builds when stale; doing it here keeps parallel spawns from racing). */
export function ensureBuilt(): void {
  execFileSync(process.execPath, [BIN, "--version"], { stdio: "ignore" });
}

/** A fresh directory under the OS temp dir, realpath'd (macOS /tmp is a link). */
export function tempDir(prefix = "webmcp-sidecar-"): string {
  return realpathSync(mkdtempSync(join(tmpdir(), prefix)));
}

/**
 * A temp directory on tmpfs (/dev/shm) when there is one: creating 100,000s of files there takes seconds,
 * where a busy disk file system can take minutes. Scans behave the same (tmpfs records birth times too).
 */
export function fastTempDir(prefix = "webmcp-sidecar-"): string {
  if (process.platform === "linux" && existsSync("/dev/shm")) {
    try {
      return realpathSync(mkdtempSync(join("/dev/shm", prefix)));
    } catch {
      // not writable: fall back
    }
  }
  return tempDir(prefix);
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Writes `files` (path → ISO mtime) under `root`, with `contents` of a given size if any. */
export function writeTree(root: string, files: Record<string, string>, size = 3): void {
  for (const [rel, when] of Object.entries(files)) {
    const file = join(root, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, "x".repeat(size));
    const t = Date.parse(when) / 1000;
    utimesSync(file, t, t);
  }
}

/** Sets a directory's mtime (after its contents are written, which would change it). */
export function touchDir(dir: string, when: string): void {
  const t = Date.parse(when) / 1000;
  utimesSync(dir, t, t);
}

export interface FindRow {
  /** mtime in ms (find's %T@, rounded to the ms like the tool's ISO strings). */
  t: number;
  /** root-relative path */
  p: string;
  type: string;
}

/** `find ROOT -mindepth 1 ARGS -printf '%T@ %y %P\0'` parsed; NUL-separated so any file name is safe. */
export function gnuFind(root: string, args: string[]): FindRow[] {
  const out = execFileSync("find", [root, "-mindepth", "1", ...args, "-printf", "%T@ %y %P\\0"], {
    encoding: "utf8",
  });
  return out
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const [t, type] = line.split(" ", 2) as [string, string];
      return { t: Math.floor(Number(t) * 1000), type, p: line.slice(t.length + type.length + 2) };
    });
}

/** find's rows in the tool's time_desc order (newest first, ties by path). */
export function newestFirst(rows: FindRow[]): FindRow[] {
  return [...rows].sort((a, b) => b.t - a.t || (a.p < b.p ? -1 : a.p > b.p ? 1 : 0));
}

export interface SidecarClient {
  client: Client;
  transport: StdioClientTransport;
  stderr: () => string;
  call(args: unknown): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** The protocol revisions a test client speaks: 2025-11-25 through `initialize`, 2026-07-28 pinned. */
export const ERAS = ["2025-11-25", "2026-07-28"] as const;
export type Era = (typeof ERAS)[number];

/**
 * `node bin/webmcp-hub.mjs sidecar ARGS` behind the MCP SDK's (v2) Client over StdioClientTransport: by
 * default a 2025-era client (`initialize`, as Claude, Cursor and the Inspector speak today); with `era`
 * "2026-07-28", a client pinned to that revision (server/discover, then the `_meta` envelope on every request).
 */
export async function startSidecar(
  args: string[],
  env: Record<string, string> = {},
  era: Era = "2025-11-25",
): Promise<SidecarClient> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, "sidecar", ...args],
    cwd: REPO,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client(
    { name: "sidecar-test", version: "1.0.0" },
    era === "2026-07-28" ? { versionNegotiation: { mode: { pin: era } } } : {},
  );
  await client.connect(transport);
  return {
    client,
    transport,
    stderr: () => stderr,
    call: async (callArgs) =>
      (await client.callTool({
        name: TOOL,
        arguments: callArgs as Record<string, unknown>,
      })) as CallToolResult,
    close: () => client.close(),
  };
}

export interface Output {
  timeField: string;
  range: { from: string | null; to: string | null };
  matches: Array<{
    path: string;
    isDirectory: boolean;
    sizeBytes: number | null;
    modifiedAt: string;
    createdAt: string | null;
  }>;
  nextCursor: string | null;
  stats: { scannedFiles: number; scannedDirectories: number; returned: number };
}

/** The structured output of a successful call; fails the test with the text when the call failed. */
export function outputOf(result: CallToolResult): Output {
  if (result.isError) throw new Error(`expected a result, got isError: ${JSON.stringify(result.content)}`);
  return result.structuredContent as unknown as Output;
}

export function textOf(result: CallToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

/**
 * A request's `_meta` in `era`: `extra` (a progress token, say), plus for 2026-07-28 the per-request envelope
 * the revision requires in place of `initialize` (protocol version, client capabilities, client info).
 */
export function requestMeta(era: Era, extra: Record<string, unknown> = {}): Record<string, unknown> {
  if (era === "2025-11-25") return extra;
  return {
    "io.modelcontextprotocol/protocolVersion": era,
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
    ...extra,
  };
}

/** A raw stdio driver: JSON lines in, every stdout line parsed (and checked to be JSON-RPC). */
export class RawSidecar {
  readonly proc: ChildProcessWithoutNullStreams;
  readonly messages: Array<Record<string, unknown>> = [];
  readonly badLines: string[] = [];
  private buffer = "";
  private waiters: Array<() => void> = [];

  constructor(args: string[]) {
    this.proc = spawn(process.execPath, [BIN, "sidecar", ...args], { cwd: REPO });
    this.proc.stdout.setEncoding("utf8");
    this.proc.stdout.on("data", (chunk: string) => {
      this.buffer += chunk;
      let nl;
      while ((nl = this.buffer.indexOf("\n")) >= 0) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        try {
          const message = JSON.parse(line) as Record<string, unknown>;
          if (message.jsonrpc !== "2.0") this.badLines.push(line);
          this.messages.push(message);
        } catch {
          this.badLines.push(line);
        }
        for (const w of this.waiters.splice(0)) w();
      }
    });
  }

  send(message: unknown): void {
    this.proc.stdin.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  async waitFor(
    predicate: (m: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(predicate);
      if (found) return found;
      if (Date.now() > deadline)
        throw new Error(
          `no such message within ${timeoutMs} ms: ${JSON.stringify(this.messages).slice(0, 2000)}`,
        );
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /**
   * Opens the connection in `era`: `initialize` + `notifications/initialized` for 2025-11-25, a
   * `server/discover` carrying the 2026-07-28 envelope for 2026-07-28 (the revision has no handshake).
   */
  async open(era: Era): Promise<Record<string, unknown>> {
    if (era === "2025-11-25") return this.initialize();
    this.send({
      jsonrpc: "2.0",
      id: "discover",
      method: "server/discover",
      params: { _meta: requestMeta(era) },
    });
    return this.waitFor((m) => m.id === "discover");
  }

  async initialize(): Promise<Record<string, unknown>> {
    this.send({
      jsonrpc: "2.0",
      id: "init",
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    const answer = await this.waitFor((m) => m.id === "init");
    this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return answer;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.proc.exitCode !== null) return resolve();
      this.proc.once("exit", () => resolve());
      this.proc.stdin.end();
      setTimeout(() => this.proc.kill("SIGKILL"), 5000).unref();
    });
  }
}

/** Runs the CLI to completion: exit code, stdout and stderr. */
export function runCli(
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`webmcp-hub ${args.join(" ")} did not exit within ${timeoutMs} ms:\n${stderr}`));
    }, timeoutMs);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Many empty files fast (for progress, cancellation and bounds): `dirs` directories of `perDir` files. */
export function writeWideTree(root: string, dirs: number, perDir: number): void {
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `d${String(d).padStart(4, "0")}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < perDir; f++) writeFileSync(join(dir, `f${f}.txt`), "");
  }
}

/**
 * `dirs` directories of `perDir` files with 47-character names (the attack was on names this long);
 * every other name ends in "Z". Returns how many end in "Z".
 */
export function writeLongNameTree(root: string, dirs: number, perDir: number): number {
  let endingInZ = 0;
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `d${String(d).padStart(3, "0")}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < perDir; f++) {
      const stem = `f${String(f).padStart(5, "0")}-`;
      const last = f % 2 === 0 ? "Z" : "y";
      if (last === "Z") endingInZ++;
      writeFileSync(join(dir, stem + "n".repeat(47 - stem.length - 1) + last), "");
    }
  }
  return endingInZ;
}

/**
 * CPU time a process (or one of its threads: `tid`, the main thread's is the pid) has used so far, in ms,
 * from /proc (user + system; Linux only).
 */
export function cpuMs(pid: number, tid?: number): number {
  const file = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const stat = readFileSync(file, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // After the name: state is field 3, utime field 14, stime field 15 (1-based in proc(5)).
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

const CLOCK_TICKS = Number(
  (() => {
    try {
      return execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim();
    } catch {
      return "100";
    }
  })(),
);
