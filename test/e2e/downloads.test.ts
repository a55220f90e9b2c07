// The hub's downloads, used as a new user uses them, outside the checkout: `npx -y HUB/downloads/
// webmcp-hub-sidecar.tgz pair CODE` in an empty temp folder pairs with the hub it came from and shares that
// folder, so an agent calls fs.search_by_time on the channel; the same tarball's `sidecar --root DIR` is a
// stdio MCP server (Claude Desktop's config); and the extension zip, unzipped and loaded in Chromium, points at
// this hub. npx runs with a private cache and a registry that cannot be reached: the package needs none.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join, relative } from "node:path";
import { promisify } from "node:util";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { CHROMIUM_ARGS, findChromium } from "./browser.js";
import { createChannel, api, type Channel } from "./hub-api.js";
import { REPO, removeDir, tempDir, TOOL, writeTree } from "../sidecar/helpers.js";

const hubUrl = inject("hubUrl");
const SIDECAR = `${hubUrl}/downloads/webmcp-hub-sidecar.tgz`;
const EXTENSION = `${hubUrl}/downloads/webmcp-hub-extension.zip`;
const NPX = process.platform === "win32" ? "npx.cmd" : "npx";

let dir: string;
let closedPort: Server;
/** The environment npx runs in: only Node on the PATH, a fresh home and npm cache, an unreachable registry. */
let env: Record<string, string>;

beforeAll(async () => {
  dir = tempDir("webmcp-downloads-");
  expect(relative(REPO, dir).startsWith("..")).toBe(true); // outside the checkout
  mkdirSync(join(dir, "home"));
  // A port that refuses connections: npm would fail loudly if it asked the registry for anything.
  closedPort = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => closedPort.listen(0, "127.0.0.1", resolve));
  const registry = `http://127.0.0.1:${(closedPort.address() as { port: number }).port}/`;
  env = Object.fromEntries(
    Object.entries(process.env).filter(([k, v]) => v !== undefined && !/^npm_/i.test(k)),
  ) as Record<string, string>;
  Object.assign(env, {
    HOME: join(dir, "home"),
    XDG_CONFIG_HOME: join(dir, "home", ".config"),
    npm_config_cache: join(dir, "npm-cache"),
    npm_config_registry: registry,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  });
});

afterAll(async () => {
  await new Promise((resolve) => closedPort?.close(resolve));
  if (dir) removeDir(dir);
});

async function waitForTool(channel: Channel, name: string): Promise<void> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const { body } = await api(`/api/channels/${channel.id}`, { token: channel.ownerKey });
    if (((body.tools ?? []) as { name: string }[]).some((t) => t.name === name)) return;
    if (Date.now() > deadline) throw new Error(`the channel did not list ${name}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Stops a process started here, with everything npx started under it (its own process group). */
async function stopGroup(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  process.kill(-child.pid!, "SIGTERM");
  await exited;
}

describe("GET /downloads/webmcp-hub-sidecar.tgz", () => {
  it("is a gzipped npm package with no dependencies and this hub in its hub.json", async () => {
    const res = await fetch(SIDECAR);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/gzip");
    const file = join(dir, "sidecar.tgz");
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    const out = join(dir, "unpacked");
    mkdirSync(out);
    // GNU tar checks the gzip CRCs and the tar headers' checksums.
    await promisify(execFile)("tar", ["-xzf", file, "-C", out]);
    const pkg = JSON.parse(readFileSync(join(out, "package/package.json"), "utf8"));
    expect(pkg).toMatchObject({ name: "webmcp-hub", bin: { "webmcp-hub": "cli.mjs" } });
    expect(pkg.dependencies).toBeUndefined();
    expect(JSON.parse(readFileSync(join(out, "package/hub.json"), "utf8"))).toEqual({ hub: hubUrl });
  });

  it("`npx -y HUB/downloads/webmcp-hub-sidecar.tgz pair CODE` in an empty folder serves that folder to the channel", async () => {
    const work = join(dir, "my-project");
    writeTree(work, {
      "notes/today.md": "2025-12-15T08:00:00Z",
      "src/index.ts": "2025-12-15T10:30:00Z",
      "old.txt": "2024-06-01T00:00:00Z",
    });
    const channel = await createChannel("downloaded sidecar");
    const child = spawn(NPX, ["-y", SIDECAR, "pair", channel.pairingCode], {
      cwd: work,
      env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stdout.on("data", (c: Buffer) => (log += c));
    child.stderr.on("data", (c: Buffer) => (log += c));
    const agent = new Client({ name: "downloads-e2e", version: "1.0.0" });
    try {
      await Promise.race([
        waitForTool(channel, TOOL),
        new Promise((_, reject) =>
          child.once("exit", (code) => reject(new Error(`npx exited (${code}) before pairing:\n${log}`))),
        ),
      ]);
      expect(log).toContain(`on ${hubUrl}`);
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(channel.mcpUrl), {
          requestInit: { headers: { authorization: `Bearer ${channel.agentToken}` } },
        }),
      );
      expect((await agent.listTools()).tools.map((t) => t.name)).toContain(TOOL);
      const result = await agent.callTool({
        name: TOOL,
        arguments: { timeField: "modified", from: "2025-12-15T00:00:00Z", to: "2025-12-16T00:00:00Z" },
      });
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      const paths = (result.structuredContent as { matches: { path: string }[] }).matches.map((m) => m.path);
      expect(paths.sort()).toEqual(["notes/today.md", "src/index.ts"]);
    } finally {
      await agent.close();
      await stopGroup(child);
    }
  }, 180_000);

  it("`pair CODE` with no --root refuses to share the home folder", async () => {
    const channel = await createChannel("downloaded sidecar, home");
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      execFile(
        NPX,
        ["-y", SIDECAR, "pair", channel.pairingCode],
        { cwd: env.HOME, env },
        (error, _o, stderr) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stderr }),
      );
    });
    expect(code).toBe(2);
    expect(stderr).toContain("pass --root DIR");
  }, 120_000);

  it("`npx -y HUB/downloads/webmcp-hub-sidecar.tgz sidecar --root DIR` is a stdio MCP server", async () => {
    const root = join(dir, "stdio-root");
    writeTree(root, { "a.txt": "2025-12-15T08:00:00Z" });
    const transport = new StdioClientTransport({
      command: NPX,
      args: ["-y", SIDECAR, "sidecar", "--root", root],
      cwd: dir,
      env,
      stderr: "pipe",
    });
    const client = new Client({ name: "claude-desktop-like", version: "1.0.0" });
    try {
      await client.connect(transport);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([TOOL]);
      const result = await client.callTool({
        name: TOOL,
        arguments: { timeField: "modified", from: "2025-12-15T00:00:00Z", to: "2025-12-16T00:00:00Z" },
      });
      expect(
        (result.structuredContent as { matches: { path: string }[] }).matches.map((m) => m.path),
      ).toEqual(["a.txt"]);
    } finally {
      await client.close();
    }
  }, 180_000);
});

describe("GET /downloads/webmcp-hub-extension.zip", () => {
  it("unzips cleanly and, loaded in Chromium, starts pointed at this hub", async () => {
    const res = await fetch(EXTENSION);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/zip");
    const file = join(dir, "extension.zip");
    writeFileSync(file, new Uint8Array(await res.arrayBuffer()));
    const unpacked = join(dir, "extension");
    // unzip checks each entry's CRC-32: the stamped hub.json's too.
    await promisify(execFile)("unzip", ["-q", file, "-d", unpacked]);
    expect(JSON.parse(readFileSync(join(unpacked, "hub.json"), "utf8"))).toEqual({ hub: hubUrl });

    const profile = join(dir, "profile");
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: findChromium(),
      headless: false, // --headless=new below: the old headless mode cannot load extensions.
      args: [
        "--headless=new",
        ...CHROMIUM_ARGS.filter((a) => a !== "--headless"),
        `--disable-extensions-except=${unpacked}`,
        `--load-extension=${unpacked}`,
      ],
    });
    try {
      const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
      const page = await context.newPage();
      await page.goto(`chrome-extension://${new URL(worker.url()).host}/popup.html`);
      await expect.poll(() => page.locator("#hub-url").inputValue(), { timeout: 30_000 }).toBe(hubUrl);
      await expect.poll(() => page.locator("#hub-help").textContent()).toContain(`Default: ${hubUrl}`);
    } finally {
      await context.close();
    }
  }, 120_000);
});
