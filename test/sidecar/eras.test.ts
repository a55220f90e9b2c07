// Both MCP protocol eras on the sidecar's stdio, line by line against the real process (ARCHITECTURE "MCP
// protocol eras"): a connection that opens with `initialize` speaks 2025-11-25 (or the older revision it
// asked for), one that opens with `server/discover` or an enveloped request speaks 2026-07-28 (results carry
// resultType, list results ttlMs/cacheScope, the server names itself in _meta); each refuses the other era's
// requests with the revision's error instead of answering them in the wrong shape. The SDK clients of both
// eras are exercised over the whole tool contract in stdio.test.ts and long-scans.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, RawSidecar, removeDir, requestMeta, tempDir, TOOL, writeTree } from "./helpers.js";

const MODERN = "2026-07-28";
let root: string;

beforeAll(() => {
  ensureBuilt();
  root = tempDir();
  writeTree(root, { "a.md": "2025-12-01T10:00:00Z", "b/c.txt": "2025-12-02T10:00:00Z" });
});

afterAll(() => {
  if (root) removeDir(root);
});

type Answer = { result?: Record<string, unknown>; error?: { code: number; message: string; data?: unknown } };

async function withSidecar(run: (raw: RawSidecar) => Promise<void>): Promise<void> {
  const raw = new RawSidecar(["--root", `docs=${root}`]);
  try {
    await run(raw);
    expect(raw.badLines).toEqual([]);
  } finally {
    await raw.close();
  }
}

let nextId = 1;
async function ask(raw: RawSidecar, method: string, params: Record<string, unknown>): Promise<Answer> {
  const id = nextId++;
  raw.send({ jsonrpc: "2.0", id, method, params });
  return (await raw.waitFor((m) => m.id === id)) as Answer;
}

describe("a connection that opens with server/discover speaks 2026-07-28", () => {
  it("discovers the server: its revision, capabilities, identity and cache hints", async () => {
    await withSidecar(async (raw) => {
      const { result } = (await raw.open(MODERN)) as Answer;
      expect(result).toMatchObject({
        supportedVersions: [MODERN],
        capabilities: { tools: { listChanged: false } },
        resultType: "complete",
        ttlMs: 300_000,
        cacheScope: "private",
        _meta: { "io.modelcontextprotocol/serverInfo": { name: "webmcp-hub-sidecar" } },
      });
      expect(result?.instructions).toContain("roots: docs");
    });
  });

  it("lists the one tool with cache hints, and calls it: results carry resultType", async () => {
    await withSidecar(async (raw) => {
      await raw.open(MODERN);
      const list = await ask(raw, "tools/list", { _meta: requestMeta(MODERN) });
      expect(list.result).toMatchObject({ resultType: "complete", ttlMs: 300_000, cacheScope: "private" });
      expect((list.result?.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([TOOL]);

      const call = await ask(raw, "tools/call", {
        name: TOOL,
        arguments: { timeField: "modified" },
        _meta: requestMeta(MODERN),
      });
      expect(call.result).toMatchObject({ resultType: "complete", isError: false });
      expect(call.result?.structuredContent).toMatchObject({
        matches: [{ path: "b/c.txt" }, { path: "a.md" }],
        nextCursor: null,
      });
    });
  });

  it("opens on an enveloped tools/list too, without discovering first", async () => {
    await withSidecar(async (raw) => {
      const list = await ask(raw, "tools/list", { _meta: requestMeta(MODERN) });
      expect(list.result).toMatchObject({ resultType: "complete" });
    });
  });

  it("keeps seed 001's error split: an unknown tool or a broken shape is -32602, a bad value isError", async () => {
    await withSidecar(async (raw) => {
      await raw.open(MODERN);
      const unknown = await ask(raw, "tools/call", {
        name: "fs.rm",
        arguments: {},
        _meta: requestMeta(MODERN),
      });
      expect(unknown.error).toEqual({
        code: -32602,
        message: `Unknown tool: fs.rm. This server has one tool: ${TOOL}.`,
      });
      const shape = await ask(raw, "tools/call", { name: TOOL, arguments: {}, _meta: requestMeta(MODERN) });
      expect(shape.error?.code).toBe(-32602);
      expect(shape.error?.message).toContain("'timeField' is required");
      const value = await ask(raw, "tools/call", {
        name: TOOL,
        arguments: { timeField: "modified", from: "yesterday" },
        _meta: requestMeta(MODERN),
      });
      expect(value.result).toMatchObject({ resultType: "complete", isError: true });
    });
  });

  it("once an enveloped request has pinned it, refuses a request without the envelope (-32602) and initialize (-32022, naming 2026-07-28)", async () => {
    await withSidecar(async (raw) => {
      await raw.open(MODERN);
      await ask(raw, "tools/list", { _meta: requestMeta(MODERN) });
      const bare = await ask(raw, "tools/list", {});
      expect(bare.error?.code).toBe(-32602);
      expect(bare.error?.message).toContain("io.modelcontextprotocol/protocolVersion");
      const init = await ask(raw, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "raw", version: "1" },
      });
      expect(init.error).toMatchObject({ code: -32022, data: { supported: [MODERN] } });
    });
  });

  it("answers an unsupported revision with -32022 and its supported list, and then still accepts initialize", async () => {
    await withSidecar(async (raw) => {
      const future = await ask(raw, "tools/list", {
        _meta: requestMeta(MODERN, {
          "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        }),
      });
      expect(future.error).toMatchObject({
        code: -32022,
        data: { supported: [MODERN], requested: "2099-01-01" },
      });
      const { result } = (await raw.open("2025-11-25")) as Answer;
      expect(result?.protocolVersion).toBe("2025-11-25");
    });
  });

  it("falls back to 2025-11-25 when initialize follows the discovery (a client probing in 'auto' mode)", async () => {
    await withSidecar(async (raw) => {
      await raw.open(MODERN);
      const { result } = (await raw.open("2025-11-25")) as Answer;
      expect(result?.protocolVersion).toBe("2025-11-25");
      const list = await ask(raw, "tools/list", {});
      expect(list.result).not.toHaveProperty("resultType");
    });
  });
});

describe("a connection that opens with initialize speaks 2025-11-25 and older revisions", () => {
  for (const version of ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]) {
    it(`agrees on ${version} when the client asks for it, and lists and calls as that revision`, async () => {
      await withSidecar(async (raw) => {
        const init = await ask(raw, "initialize", {
          protocolVersion: version,
          capabilities: {},
          clientInfo: { name: "raw", version: "1" },
        });
        expect(init.result).toMatchObject({
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: "webmcp-hub-sidecar" },
        });
        raw.send({ jsonrpc: "2.0", method: "notifications/initialized" });
        const list = await ask(raw, "tools/list", {});
        expect((list.result?.tools as Array<{ name: string }>).map((t) => t.name)).toEqual([TOOL]);
        expect(list.result).not.toHaveProperty("resultType");
        expect(list.result).not.toHaveProperty("ttlMs");
        const call = await ask(raw, "tools/call", { name: TOOL, arguments: { timeField: "modified" } });
        expect(call.result).toMatchObject({ isError: false });
        expect(call.result).not.toHaveProperty("resultType");
      });
    });
  }

  it("refuses a request carrying the 2026-07-28 envelope (-32600) and knows no server/discover (-32601)", async () => {
    await withSidecar(async (raw) => {
      await raw.open("2025-11-25");
      const enveloped = await ask(raw, "tools/list", { _meta: requestMeta(MODERN) });
      expect(enveloped.error?.code).toBe(-32600);
      expect(enveloped.error?.message).toContain("opened with initialize");
      const call = await ask(raw, "tools/call", {
        name: TOOL,
        arguments: { timeField: "modified" },
        _meta: requestMeta(MODERN),
      });
      expect(call.error?.code).toBe(-32600);
      const discover = await ask(raw, "server/discover", { _meta: requestMeta(MODERN) });
      expect(discover.error?.code).toBe(-32601);
    });
  });
});
