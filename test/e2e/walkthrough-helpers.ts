// Helpers shared by the e2e tests that act as a new user with real clients (test/e2e/snippets.test.ts,
// test/e2e/walkthrough.test.ts): the pinned client releases installed at test time into a cache, a shell whose
// `npx` runs them (as the printed commands say), a passkey account made in Chromium with a CDP virtual
// authenticator, and `mcp-remote` started from a Claude Desktop configuration that goes through the hub's
// OAuth consent in that browser.
//
// The clients are not dependencies (their engines want Node ≥ 22): they are installed at test time into
// node_modules/.cache/webmcp-hub-snippets/<package>@<version>, reused by later runs.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { INSPECTOR } from "../../web/shared/snippets.js";
import { ROOT } from "../../scripts/lib/wrangler.mjs";

/** The releases run here; `@latest` when this was written. Bump them together with what the hub prints. */
export const INSPECTOR_VERSION = "2.12.0";
export const MCP_REMOTE_VERSION = "0.15.1";
const CACHE = join(ROOT, "node_modules/.cache/webmcp-hub-snippets");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function run(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string; timeoutMs?: number } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? ROOT,
      env: options.env ?? process.env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 90_000);
    child.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * `name@version` installed into the cache (once: a later run finds it), with its dependencies and without
 * install scripts. Resolves with the package's folder.
 */
export async function installed(name: string, version: string): Promise<string> {
  const dir = join(CACHE, `${name.replace("/", "+")}@${version}`);
  const pkg = join(dir, "node_modules", name);
  if (existsSync(join(pkg, "package.json"))) return pkg;
  const temp = `${dir}.${process.pid}.tmp`;
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  await writeFile(join(temp, "package.json"), JSON.stringify({ private: true }));
  const npm = await run(
    "npm",
    [
      "install",
      "--no-save",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--no-package-lock",
      "--engine-strict=false",
      "--loglevel=error",
      `${name}@${version}`,
    ],
    { cwd: temp, timeoutMs: 180_000 },
  );
  if (npm.code !== 0) throw new Error(`npm install ${name}@${version} failed:\n${npm.stderr}`);
  if (existsSync(join(pkg, "package.json"))) {
    // Another run installed it meanwhile.
    await rm(temp, { recursive: true, force: true });
    return pkg;
  }
  await rm(dir, { recursive: true, force: true });
  await rename(temp, dir);
  return pkg;
}

/** What a shell runs: `npx` and `claude` shims first on PATH, HOME in a temporary folder. */
export interface Shell {
  env: NodeJS.ProcessEnv;
  home: string;
  run(command: string, timeoutMs?: number): Promise<Run>;
}

/**
 * The shims: `npx -y mcp-remote …` runs the pinned mcp-remote (folder `mcpRemote`) on this Node (as Claude
 * Desktop's npx would), `npx -y @modelcontextprotocol/inspector@latest …` the pinned Inspector on a Node 22
 * when `inspector` is given, anything else fails; `claude …` prints its arguments as JSON.
 */
export async function makeShell(
  mcpRemote: string,
  inspector?: { dir: string; node: string },
): Promise<Shell> {
  const home = await mkdtemp(join(tmpdir(), "webmcp-hub-snippets-"));
  const bin = join(home, "bin");
  await mkdir(bin);
  const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;
  const inspectorCase = inspector
    ? `  ${INSPECTOR.package}) shift; exec ${quote(inspector.node)} ${quote(join(inspector.dir, "clients/launcher/build/index.js"))} "$@" ;;\n`
    : "";
  await writeFile(
    join(bin, "npx"),
    `#!/bin/sh
[ "$1" = "-y" ] && shift
case "$1" in
${inspectorCase}  mcp-remote) shift; exec ${quote(process.execPath)} ${quote(join(mcpRemote, "dist/proxy.js"))} "$@" ;;
  *) echo "npx shim: no cached package for $1" >&2; exit 127 ;;
esac
`,
  );
  await writeFile(
    join(bin, "claude"),
    `#!/bin/sh
exec ${quote(process.execPath)} -e 'process.stdout.write(JSON.stringify(process.argv.slice(1)))' -- "$@"
`,
  );
  await chmod(join(bin, "npx"), 0o755);
  await chmod(join(bin, "claude"), 0o755);
  const env = {
    ...process.env,
    HOME: home,
    PATH: `${bin}:${process.env.PATH}`,
    MCP_REMOTE_CONFIG_DIR: join(home, ".mcp-auth"),
    NO_COLOR: "1",
  };
  return {
    env,
    home,
    run: (command, timeoutMs) => run("sh", ["-c", command], { env, cwd: home, timeoutMs }),
  };
}

export interface McpRemote {
  client: Client;
  /** What mcp-remote has written to stderr so far (for failure messages). */
  stderr(): string;
}

/**
 * `mcp-remote` started as Claude Desktop starts a configured server (`command` and `args` of its
 * claude_desktop_config.json entry, in `shell`), connected over stdio. When it asks the user to authorize
 * (it prints the hub's /authorize URL; BROWSER=true keeps it from opening a browser itself), `consent` gets
 * that URL and must finish in the browser (Allow, up to the redirect to mcp-remote's callback). Resolves
 * once the client is connected and the consent finished; a failed consent rejects at once, with the stderr.
 */
export async function connectMcpRemote(
  server: { command: string; args: string[] },
  shell: Shell,
  consent: (authorizeUrl: string) => Promise<void>,
  clientInfo = { name: "claude-desktop-as-tested", version: "1.0.0" },
): Promise<McpRemote> {
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...(shell.env as Record<string, string>), BROWSER: "true", DISPLAY: "" },
    cwd: shell.home,
    stderr: "pipe",
  });
  let stderr = "";
  let consented: Promise<void> | undefined;
  let failConsent: (e: unknown) => void = () => {};
  const consentFailed = new Promise<never>((_, reject) => (failConsent = reject));
  transport.stderr?.on("data", (d) => {
    stderr += d;
    const url = /Please authorize this client by visiting:\s+(\S+)/.exec(stderr)?.[1];
    if (url && !consented) {
      consented = consent(url);
      consented.catch(failConsent);
    }
  });
  const client = new Client(clientInfo);
  try {
    await Promise.race([client.connect(transport), consentFailed]);
    await consented;
  } catch (e) {
    await client.close().catch(() => {});
    const message = e instanceof Error ? e.message : String(e);
    throw new Error(`${message}\nmcp-remote's stderr:\n${stderr}`);
  }
  return { client, stderr: () => stderr };
}
