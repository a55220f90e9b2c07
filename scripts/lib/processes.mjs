// Child processes of the dev stack (wrangler and the workerd it spawns): each runs in its own process
// group so stopping it stops its children too, its output arrives line by line, and nothing outlives us.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

const groups = process.platform !== "win32";
/** Children still running; killed synchronously if this process exits without stopping them. */
const live = new Set();

process.once("exit", () => {
  for (const child of live) signal(child, "SIGKILL");
});

function signal(child, name) {
  try {
    if (groups && child.pid) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // Already gone.
  }
}

function groupAlive(child) {
  if (!groups || !child.pid) return false;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `command args` with piped output. `onLine(line, stream)` receives every output line.
 * Returns { pid, exited, running, stop(graceMs) }; `exited` resolves (never rejects) with
 * { code, signal, error? } when the process ends or could not be started.
 */
export function startProcess(command, args, { cwd, env, onLine = () => {} } = {}) {
  const child = spawn(command, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: groups });
  live.add(child);
  let running = true;
  for (const [name, stream] of [
    ["stdout", child.stdout],
    ["stderr", child.stderr],
  ]) {
    createInterface({ input: stream, crlfDelay: Infinity }).on("line", (line) => onLine(line, name));
  }
  const exited = new Promise((resolve) => {
    child.once("error", (error) => {
      running = false;
      live.delete(child);
      resolve({ code: null, signal: null, error });
    });
    child.once("exit", (code, sig) => {
      running = false;
      if (!groupAlive(child)) live.delete(child);
      resolve({ code, signal: sig });
    });
  });

  return {
    pid: child.pid,
    exited,
    get running() {
      return running;
    },
    /** SIGTERM to the whole group, then SIGKILL after `graceMs` for whatever is left. */
    async stop(graceMs = 5000) {
      if (running || groupAlive(child)) {
        signal(child, "SIGTERM");
        const deadline = Date.now() + graceMs;
        await Promise.race([exited, sleep(graceMs)]);
        while (groupAlive(child) && Date.now() < deadline) await sleep(50);
        if (running || groupAlive(child)) signal(child, "SIGKILL");
        await exited;
      }
      live.delete(child);
    },
  };
}

/** Runs a command to completion; resolves with its exit code and collected output lines. */
export async function runProcess(command, args, { cwd, env, onLine = () => {} } = {}) {
  const lines = [];
  const proc = startProcess(command, args, {
    cwd,
    env,
    onLine: (line, stream) => {
      lines.push(line);
      onLine(line, stream);
    },
  });
  const result = await proc.exited;
  await proc.stop(0);
  return { ...result, output: lines };
}
