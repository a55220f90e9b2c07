// The `webmcp-hub` command as a user runs it: help and flag errors, `publish` against a local hub stand-in
// (a real HTTP server), and `pair` against a local relay stand-in (a real WebSocket server speaking the
// relay frames): pairing, serving calls, cancel, reconnection after the hub drops, restart without a code,
// and a refused token. The real hub is exercised by test/e2e/sidecar-hub.test.ts.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { WebSocketServer, type WebSocket } from "ws";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { ProviderFrameSchema, ToolsFrameSchema, type ProviderFrame } from "../../src/protocol/index.js";
import { BIN, ensureBuilt, REPO, removeDir, runCli, startSidecar, tempDir, writeTree } from "./helpers.js";

let dir: string;
let treeRoot: string;

beforeAll(() => {
  ensureBuilt();
  dir = tempDir();
  treeRoot = join(dir, "tree");
  writeTree(treeRoot, {
    "a/one.md": "2025-12-01T00:00:00Z",
    "a/two.md": "2025-12-02T00:00:00Z",
    "b/three.txt": "2025-12-03T00:00:00Z",
  });
});

afterAll(() => {
  if (dir) removeDir(dir);
});

describe("help and flags", () => {
  for (const command of [[], ["--help"], ["sidecar", "--help"], ["pair", "--help"], ["publish", "-h"]]) {
    it(`webmcp-hub ${command.join(" ") || "(no arguments)"} prints usage and exits 0`, async () => {
      const { code, stdout } = await runCli(command);
      expect(code).toBe(0);
      expect(stdout).toMatch(/Usage:/);
    });
  }

  it("--version prints the package version", async () => {
    const { code, stdout } = await runCli(["--version"]);
    expect(code).toBe(0);
    expect(stdout.trim()).toBe(JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")).version);
  });

  for (const [args, message] of [
    [["frobnicate"], 'webmcp-hub: unknown command "frobnicate". Commands: sidecar, pair, publish'],
    [
      ["sidecar", "--rooot", "x"],
      'webmcp-hub sidecar: unknown flag --rooot. Run "webmcp-hub sidecar --help" for the flags.',
    ],
    [["sidecar"], "webmcp-hub sidecar: give at least one folder with --root DIR."],
    [["sidecar", "--root"], "webmcp-hub sidecar: --root needs a value."],
    [
      ["sidecar", "--root", "/definitely/not/here"],
      "webmcp-hub sidecar: --root /definitely/not/here: /definitely/not/here does not exist.",
    ],
    [["sidecar", "--root", "/etc/hostname"], "is not a directory"],
    [["sidecar", "--root", "a=/tmp", "--root", "a=/var"], 'Two roots are named "a"'],
    [
      ["sidecar", "--root", "/tmp", "--max-entries", "many"],
      '--max-entries must be a whole number of at least 1, not "many".',
    ],
    [["sidecar", "--root", "/tmp", "extra"], 'unexpected argument "extra"'],
    [["pair", "ABCD-EFGH", "--root", "/tmp"], "--hub URL is required with a pairing code."],
    [
      ["pair", "ABCD-EFGH", "--hub", "not a url", "--root", "/tmp"],
      "--hub must be a URL like https://hub.example.com",
    ],
    [
      ["publish", "m.json", "--hub", "http://127.0.0.1:9", "--site", "example.com"],
      "--key KEY (or WEBMCP_HUB_PUBLISHER_KEY) is required",
    ],
    [["publish", "--hub", "http://127.0.0.1:9"], "give one manifest file"],
  ] as const) {
    it(`${args.join(" ")} exits 2 and says what is wrong`, async () => {
      const { code, stderr, stdout } = await runCli([...args], { WEBMCP_HUB_PUBLISHER_KEY: "" });
      expect(code).toBe(2);
      expect(stderr).toContain(message);
      expect(stdout).toBe("");
    });
  }
});

// ------------------------------------------------------------------------------------------------------------
// A local stand-in for the hub: /api/pair, /api/sites/:host/manifest, and the relay WebSocket.

interface FakeHub {
  url: string;
  requests: Array<{ method: string; path: string; auth: string | undefined; body: string }>;
  sockets: WebSocket[];
  frames: ProviderFrame[];
  connections: number;
  refuseToken: boolean;
  publishAnswer: { status: number; body: unknown };
  close(): Promise<void>;
}

const TOKEN = "whr_test_token_0123456789";

async function startFakeHub(): Promise<FakeHub> {
  const wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (set) => (set.has("webmcp-hub.v1") ? "webmcp-hub.v1" : false),
  });
  const hub: FakeHub = {
    url: "",
    requests: [],
    sockets: [],
    frames: [],
    connections: 0,
    refuseToken: false,
    publishAnswer: { status: 201, body: { host: "example.com", version: 3, toolCount: 1, unchanged: false } },
    close: async () => {
      for (const s of hub.sockets) s.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  };
  const server: Server = createServer((req: IncomingMessage, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      hub.requests.push({ method: req.method!, path: req.url!, auth: req.headers.authorization, body });
      if (req.method === "POST" && req.url === "/api/pair") {
        const { code, kind, label } = JSON.parse(body) as { code: string; kind: string; label: string };
        if (code !== "7K3M-Q9XD" || kind !== "sidecar") {
          return json(res, 404, {
            error: { code: "not_found", message: "This pairing code is unknown, used or expired." },
          });
        }
        return json(res, 201, {
          channelId: "ch_1",
          providerToken: TOKEN,
          providerTokenId: "pt_1",
          relayUrl: `${hub.url.replace(/^http/, "ws")}/relay/ch_1`,
          label,
        });
      }
      if (req.method === "PUT" && req.url === "/api/sites/example.com/manifest") {
        return json(res, hub.publishAnswer.status, hub.publishAnswer.body);
      }
      json(res, 404, { error: { code: "not_found", message: "no route" } });
    });
  });
  server.on("upgrade", (req, socket, head) => {
    const offered = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((s) => s.trim());
    if (req.url !== "/relay/ch_1" || hub.refuseToken || !offered.includes(TOKEN)) {
      const body = JSON.stringify({
        error: {
          code: "unauthorized",
          message: "This provider token is unknown or was revoked. Pair again.",
        },
      });
      socket.end(
        `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
      );
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      hub.connections++;
      hub.sockets.push(ws);
      ws.on("message", (data) => hub.frames.push(ProviderFrameSchema.parse(JSON.parse(String(data)))));
      ws.send(JSON.stringify({ type: "welcome", providerId: `p_${hub.connections}`, channelId: "ch_1" }));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  hub.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return hub;
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe("publish", () => {
  let hub: FakeHub;
  beforeAll(async () => {
    hub = await startFakeHub();
  });
  afterAll(() => hub.close());

  const manifest = {
    name: "Example",
    tools: [
      {
        name: "search",
        description: "Searches the catalogue.",
        inputSchema: { type: "object", properties: {} },
      },
    ],
  };

  it("refuses a manifest with mistakes before sending it, one line per problem with its path", async () => {
    const file = join(dir, "bad.json");
    writeFileSync(
      file,
      JSON.stringify({
        tools: [
          { name: "bad name!", description: "", inputSchema: { type: "string" } },
          { name: "x", descripton: "typo" },
        ],
      }),
    );
    const before = hub.requests.length;
    const { code, stderr } = await runCli([
      "publish",
      file,
      "--hub",
      hub.url,
      "--site",
      "example.com",
      "--key",
      "whp_k",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(`${file} is not a valid manifest; nothing was sent to the hub.`);
    expect(stderr).toMatch(/^ {2}- tools\[0\]\.name: /m);
    expect(stderr).toMatch(/^ {2}- tools\[0\]\.description: /m);
    expect(stderr).toMatch(/^ {2}- tools\[0\]\.inputSchema/m);
    expect(stderr).toMatch(/^ {2}- tools\[1\]/m);
    expect(hub.requests.length).toBe(before);
  });

  it("refuses a file that is not JSON", async () => {
    const file = join(dir, "broken.json");
    writeFileSync(file, "{ tools: ");
    const { code, stderr } = await runCli([
      "publish",
      file,
      "--hub",
      hub.url,
      "--site",
      "example.com",
      "--key",
      "whp_k",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain("is not valid JSON");
  });

  it("prints the hub's own refusal with every issue's path", async () => {
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify(manifest));
    hub.publishAnswer = {
      status: 422,
      body: {
        error: {
          code: "invalid_manifest",
          message: "The manifest has 1 problem.",
          issues: [{ path: "tools[0].inputSchema.properties", message: "must be an object" }],
        },
      },
    };
    const { code, stderr } = await runCli([
      "publish",
      file,
      "--hub",
      hub.url,
      "--site",
      "example.com",
      "--key",
      "whp_k",
    ]);
    expect(code).toBe(1);
    expect(stderr).toContain(
      "The hub refused the manifest (HTTP 422 invalid_manifest): The manifest has 1 problem.",
    );
    expect(stderr).toContain("  - tools[0].inputSchema.properties: must be an object");
  });

  it("publishes with the key as a bearer token and prints the new version", async () => {
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify(manifest));
    hub.publishAnswer = {
      status: 201,
      body: { host: "example.com", version: 3, toolCount: 1, unchanged: false },
    };
    const { code, stdout } = await runCli(["publish", file, "--hub", hub.url, "--site", "example.com"], {
      WEBMCP_HUB_PUBLISHER_KEY: "whp_from_env",
    });
    expect(code).toBe(0);
    expect(stdout.trim()).toBe("example.com: published version 3 (1 tools).");
    const put = hub.requests.at(-1)!;
    expect(put).toMatchObject({
      method: "PUT",
      path: "/api/sites/example.com/manifest",
      auth: "Bearer whp_from_env",
    });
    expect(JSON.parse(put.body)).toEqual(manifest);
  });
});

describe("pair", () => {
  let hub: FakeHub;
  let proc: ChildProcessWithoutNullStreams | null = null;
  let stderr = "";
  const config = () => join(dir, "config", "sidecar.json");

  function startPair(args: string[]): ChildProcessWithoutNullStreams {
    stderr = "";
    const child = spawn(process.execPath, [BIN, "pair", ...args, "--config", config()], { cwd: REPO });
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
    proc = child;
    return child;
  }

  async function stop(child: ChildProcessWithoutNullStreams): Promise<number | null> {
    if (child.exitCode !== null) return child.exitCode;
    const exited = new Promise<number | null>((r) => child.once("exit", r));
    child.kill("SIGTERM");
    return exited;
  }

  beforeAll(async () => {
    hub = await startFakeHub();
  });
  afterEach(async () => {
    if (proc) await stop(proc);
    proc = null;
  });
  afterAll(() => hub.close());

  interface RelayedResult {
    result: {
      isError?: boolean;
      content: Array<{ type: string; text: string }>;
      structuredContent: Record<string, unknown> & { matches: unknown[] };
    };
  }

  async function nextResult(id: string): Promise<RelayedResult> {
    const frame = await until(`the result of ${id}`, () =>
      hub.frames.find((f) => f.type === "result" && f.id === id),
    );
    return frame as unknown as RelayedResult;
  }

  it("redeems the code, saves the token (0600), sends hello and tools, and serves calls like stdio", async () => {
    const child = startPair([
      "7K3M-Q9XD",
      "--hub",
      hub.url,
      "--root",
      `docs=${treeRoot}`,
      "--label",
      "laptop",
    ]);
    await until("tools", () => hub.frames.find((f) => f.type === "tools"));
    const pairRequest = hub.requests.find((r) => r.path === "/api/pair")!;
    expect(JSON.parse(pairRequest.body)).toEqual({ code: "7K3M-Q9XD", kind: "sidecar", label: "laptop" });
    const hello = hub.frames.find((f) => f.type === "hello");
    expect(hello).toMatchObject({ type: "hello", kind: "sidecar", label: "laptop" });
    const tools = ToolsFrameSchema.parse(hub.frames.find((f) => f.type === "tools"));
    expect(tools.tools.map((t) => t.name)).toEqual(["fs.search_by_time"]);
    expect(tools.tools[0]!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });

    const saved = JSON.parse(readFileSync(config(), "utf8"));
    expect(saved.links[0]).toMatchObject({
      hub: hub.url,
      channelId: "ch_1",
      providerToken: TOKEN,
      label: "laptop",
    });
    expect(saved.links[0].roots).toEqual([`docs=${treeRoot}`]);
    expect(statSync(config()).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, "config")).mode & 0o777).toBe(0o700);

    const args = { timeField: "modified", sort: "path_asc" };
    hub.sockets[0]!.send(
      JSON.stringify({
        type: "call",
        id: "c1",
        name: "fs.search_by_time",
        arguments: args,
        timeoutMs: 10_000,
      }),
    );
    const relayed = await nextResult("c1");
    const stdio = await startSidecar(["--root", `docs=${treeRoot}`]);
    try {
      const direct = await stdio.call(args);
      const { nextCursor: _a, ...relayedOut } = relayed.result.structuredContent;
      const { nextCursor: _b, ...directOut } = direct.structuredContent as Record<string, unknown>;
      expect(relayedOut).toEqual(directOut);
      expect(relayed.result.content).toEqual(direct.content);
    } finally {
      await stdio.close();
    }

    hub.sockets[0]!.send(
      JSON.stringify({
        type: "call",
        id: "c2",
        name: "fs.search_by_time",
        arguments: { timeField: "someday" },
        timeoutMs: 10_000,
      }),
    );
    const refused = await nextResult("c2");
    expect(refused.result.isError).toBe(true);
    expect(refused.result.content[0]!.text).toMatch(/^Invalid 'timeField' "someday"/);

    hub.sockets[0]!.send(
      JSON.stringify({
        type: "call",
        id: "c3",
        name: "fs.search_by_time",
        arguments: { timeField: "modified", bogus: 1 },
        timeoutMs: 10_000,
      }),
    );
    const broken = await nextResult("c3");
    expect(broken.result.isError).toBe(true);
    expect(broken.result.content[0]!.text).toContain("unknown property 'bogus'");

    hub.sockets[0]!.send(
      JSON.stringify({ type: "call", id: "c4", name: "rm_rf", arguments: {}, timeoutMs: 10_000 }),
    );
    const unknown = await nextResult("c4");
    expect(unknown.result.content[0]!.text).toBe(
      "This sidecar has no tool named rm_rf; it offers fs.search_by_time.",
    );

    expect(await stop(child)).toBe(0);
  });

  it("reconnects with backoff when the hub drops the connection, and serves again", async () => {
    startPair(["--hub", hub.url]); // the saved pairing: no code, no --root
    const before = hub.connections;
    await until("a connection", () => hub.connections > before && hub.frames.some((f) => f.type === "tools"));
    const first = hub.sockets.at(-1)!;
    first.terminate(); // as when wrangler dev or a Durable Object restarts
    await until("a reconnection", () => hub.connections > before + 1, 20_000);
    expect(stderr).toMatch(/Disconnected from the hub.*reconnecting in \d+\.\d s\./);
    const second = hub.sockets.at(-1)!;
    second.send(
      JSON.stringify({
        type: "call",
        id: "r1",
        name: "fs.search_by_time",
        arguments: { timeField: "modified" },
        timeoutMs: 10_000,
      }),
    );
    const result = await nextResult("r1");
    expect(result.result.structuredContent.matches).toHaveLength(3);
  });

  it("a cancel frame stops the call and no result is sent for it", async () => {
    startPair(["--hub", hub.url]);
    const before = hub.connections;
    await until("a connection", () => hub.connections > before);
    const socket = hub.sockets.at(-1)!;
    socket.send(
      JSON.stringify({
        type: "call",
        id: "x1",
        name: "fs.search_by_time",
        arguments: { timeField: "modified" },
        timeoutMs: 10_000,
      }),
    );
    socket.send(JSON.stringify({ type: "cancel", id: "x1", reason: "The agent cancelled the call." }));
    socket.send(
      JSON.stringify({
        type: "call",
        id: "x2",
        name: "fs.search_by_time",
        arguments: { timeField: "modified" },
        timeoutMs: 10_000,
      }),
    );
    await nextResult("x2");
    await new Promise((r) => setTimeout(r, 200));
    expect(hub.frames.some((f) => f.type === "result" && f.id === "x1")).toBe(false);
  });

  it("stops with exit 1 and says to pair again when the hub refuses the token", async () => {
    hub.refuseToken = true;
    try {
      const child = startPair(["--hub", hub.url]);
      const code = await new Promise<number | null>((r) => child.once("exit", r));
      expect(code).toBe(1);
      expect(stderr).toContain(
        "The hub refused this sidecar's provider token (HTTP 401: This provider token is unknown or was revoked. Pair again.)",
      );
      expect(stderr).toContain("Pair again: webmcp-hub pair CODE --hub URL --root DIR.");
    } finally {
      hub.refuseToken = false;
    }
  });

  it("prints the hub's refusal of a pairing code and exits 1", async () => {
    const { code, stderr: err } = await runCli([
      "pair",
      "ZZZZ-ZZZZ",
      "--hub",
      hub.url,
      "--root",
      treeRoot,
      "--config",
      join(dir, "other.json"),
    ]);
    expect(code).toBe(1);
    expect(err).toContain(
      "The hub refused the pairing code (HTTP 404 not_found): This pairing code is unknown, used or expired.",
    );
  });

  it("without a code and without a saved pairing, says how to pair", async () => {
    const { code, stderr: err } = await runCli([
      "pair",
      "--hub",
      hub.url,
      "--config",
      join(dir, "none.json"),
    ]);
    expect(code).toBe(2);
    expect(err).toContain(`no saved pairing for ${hub.url}`);
  });
});
