// The sidecar through the real hub under `wrangler dev`: `webmcp-hub pair CODE` joins a new channel, an
// agent's MCP client calls fs.search_by_time on the channel's MCP endpoint and gets what stdio gives; the
// sidecar comes back after a restart without a new code; and `webmcp-hub publish` publishes a manifest of a
// site verified through the real API.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  BIN,
  ensureBuilt,
  REPO,
  removeDir,
  runCli,
  startSidecar,
  tempDir,
  writeTree,
  type SidecarClient,
} from "../sidecar/helpers.js";

const hubUrl = inject("hubUrl");

async function api<T>(method: string, path: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(hubUrl + path, {
    method,
    headers: {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = (await res.json()) as T;
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(json)}`);
  return json;
}

interface Channel {
  channel: { id: string };
  ownerKey: string;
  agentToken: string;
  mcpUrl: string;
  pairingCode: string;
}

async function waitForTool(channel: Channel, name: string, present = true): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const state = await api<{ tools?: Array<{ name: string }> }>(
      "GET",
      `/api/channels/${channel.channel.id}`,
      undefined,
      channel.ownerKey,
    );
    if ((state.tools ?? []).some((t) => t.name === name) === present) return;
    if (Date.now() > deadline) throw new Error(`the channel did not ${present ? "list" : "drop"} ${name}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

let dir: string;
let tree: string;
let stdio: SidecarClient;
let pairProcess: ChildProcessWithoutNullStreams | null = null;
let pairLog = "";

function pair(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [BIN, "pair", ...args, "--config", join(dir, "sidecar.json")], {
    cwd: REPO,
  });
  child.stderr.on("data", (c: Buffer) => (pairLog += c.toString("utf8")));
  pairProcess = child;
  return child;
}

async function stopPair(): Promise<void> {
  const child = pairProcess;
  pairProcess = null;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  await exited;
}

beforeAll(async () => {
  ensureBuilt();
  dir = tempDir();
  tree = join(dir, "projects");
  writeTree(tree, {
    "webmcp/README.md": "2025-12-14T09:00:00Z",
    "webmcp/src/index.ts": "2025-12-15T10:30:00Z",
    "webmcp/src/old.ts": "2025-11-01T00:00:00Z",
    "notes/todo.md": "2025-12-15T08:00:00Z",
    "notes/2024.md": "2024-06-01T00:00:00Z",
  });
  stdio = await startSidecar(["--root", `projects=${tree}`]);
});

afterAll(async () => {
  await stopPair();
  await stdio?.close();
  if (dir) removeDir(dir);
});

describe("the sidecar paired to a channel", () => {
  let channel: Channel;
  let agent: Client;

  beforeAll(async () => {
    channel = await api<Channel>("POST", "/api/channels", { name: "sidecar e2e" });
    pair([channel.pairingCode, "--hub", hubUrl, "--root", `projects=${tree}`, "--label", "e2e-laptop"]);
    await waitForTool(channel, "fs.search_by_time");
    agent = new Client({ name: "e2e-agent", version: "1.0.0" });
    await agent.connect(
      new StreamableHTTPClientTransport(new URL(channel.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${channel.agentToken}` } },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
  });

  it("lists fs.search_by_time with the seed's schemas, read-only", async () => {
    const { tools } = await agent.listTools();
    const tool = tools.find((t) => t.name === "fs.search_by_time")!;
    const local = (await stdio.client.listTools()).tools[0]!;
    expect(tool.inputSchema).toEqual(local.inputSchema);
    expect(tool.outputSchema).toEqual(local.outputSchema);
    expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
  });

  it("“files I changed in the last two days under my projects folder”: the same answer as over stdio", async () => {
    const args = { timeField: "modified", from: "2025-12-14T00:00:00Z", to: "2025-12-16T00:00:00Z" };
    const remote = await agent.callTool({ name: "fs.search_by_time", arguments: args });
    const local = await stdio.call(args);
    expect(remote.isError).toBeFalsy();
    expect(remote.structuredContent).toEqual(local.structuredContent);
    expect(remote.content).toEqual(local.content);
    expect(
      (remote.structuredContent as { matches: Array<{ path: string }> }).matches.map((m) => m.path),
    ).toEqual(["webmcp/src/index.ts", "notes/todo.md", "webmcp/README.md"]);
  });

  it("pages through the hub with the sidecar's cursor", async () => {
    const first = await agent.callTool({
      name: "fs.search_by_time",
      arguments: { timeField: "modified", limit: 2 },
    });
    const cursor = (first.structuredContent as { nextCursor: string }).nextCursor;
    expect(cursor).toEqual(expect.any(String));
    const second = await agent.callTool({
      name: "fs.search_by_time",
      arguments: { timeField: "modified", limit: 2, cursor },
    });
    const paths = [first, second].flatMap((r) =>
      (r.structuredContent as { matches: Array<{ path: string }> }).matches.map((m) => m.path),
    );
    const all = await stdio.call({ timeField: "modified", limit: 4 });
    expect(paths).toEqual(
      (all.structuredContent as { matches: Array<{ path: string }> }).matches.map((m) => m.path),
    );
  });

  it("domain errors come back as isError with the sidecar's sentence", async () => {
    const result = await agent.callTool({
      name: "fs.search_by_time",
      arguments: { timeField: "modified", path: "../../etc" },
    });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(
      /leaves the root "projects" through "\.\."/,
    );
    const range = await agent.callTool({
      name: "fs.search_by_time",
      arguments: { timeField: "modified", from: "2025-12-16T00:00:00Z", to: "2025-12-14T00:00:00Z" },
    });
    expect(range.isError).toBe(true);
    expect((range.content as Array<{ text: string }>)[0]!.text).toBe(
      "Invalid range: 'from' must be earlier than 'to'.",
    );
  });

  it("comes back after a restart with the saved token, without a new pairing code", async () => {
    await stopPair();
    await waitForTool(channel, "fs.search_by_time", false);
    pair(["--hub", hubUrl]);
    await waitForTool(channel, "fs.search_by_time");
    const again = await agent.callTool({
      name: "fs.search_by_time",
      arguments: { timeField: "modified", glob: "notes/**" },
    });
    expect(
      (again.structuredContent as { matches: Array<{ path: string }> }).matches.map((m) => m.path),
    ).toEqual(["notes/todo.md", "notes/2024.md"]);
    expect(pairLog).toContain("Connected to channel");
  });
});

describe("webmcp-hub publish against the hub", () => {
  let origin: Server;
  let token = "";

  beforeAll(async () => {
    origin = createServer((req, res) => {
      if (req.url === "/.well-known/webmcp-hub-verify")
        res.writeHead(200, { "content-type": "text/plain" }).end(token);
      else res.writeHead(404).end();
    });
    await new Promise<void>((r) => origin.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    await new Promise((r) => origin.close(r));
  });

  it("publishes a manifest for a verified site, then reports an unchanged one", async () => {
    const siteOrigin = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
    const registered = await api<{
      site: { host: string };
      challenge: { token: string };
      claimSecret: string;
    }>("POST", "/api/sites", { origin: siteOrigin });
    token = registered.challenge.token;
    const host = registered.site.host;
    const verified = await api<{ publisherKey: string }>(
      "POST",
      `/api/sites/${encodeURIComponent(host)}/verify`,
      { method: "http" },
      registered.claimSecret,
    );
    const file = join(dir, "manifest.json");
    writeFileSync(
      file,
      JSON.stringify({
        name: "Sidecar e2e site",
        tools: [
          {
            name: "find-recent",
            description: "Finds recent things.",
            inputSchema: { type: "object", properties: { q: { type: "string" } } },
            annotations: { readOnlyHint: "true" },
          },
        ],
      }),
    );
    const args = ["publish", file, "--hub", hubUrl, "--site", host, "--key", verified.publisherKey];
    const first = await runCli(args);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout.trim()).toBe(`${host}: published version 1 (1 tools).`);
    const second = await runCli(args);
    expect(second.stdout.trim()).toBe(`${host}: the manifest is unchanged; version 1 stays current.`);
    const stored = await api<{ manifest: { tools: Array<{ name: string }> } }>(
      "GET",
      `/api/sites/${encodeURIComponent(host)}/manifest`,
    );
    expect(stored.manifest.tools.map((t) => t.name)).toEqual(["find-recent"]);

    const wrongKey = await runCli([
      "publish",
      file,
      "--hub",
      hubUrl,
      "--site",
      host,
      "--key",
      "whp_not_a_real_key",
    ]);
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^The hub refused the manifest \(HTTP 401 unauthorized\): /);
  });
});
