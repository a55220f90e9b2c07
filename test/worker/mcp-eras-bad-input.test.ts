// Bad input to a channel's MCP endpoint, per protocol era: each gets the revision's documented HTTP status
// and JSON-RPC error code, and nothing reaches the provider.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/protocol/index.js";
import { legacyRequest, modernRequest, readJsonRpc } from "./mcp-raw.js";
import { connectProvider, createChannel, echoTool, HUB, MODERN, type TestChannel } from "./relay-helpers.js";

async function channel(): Promise<{ ch: TestChannel; calls: string[] }> {
  const ch = await createChannel();
  const calls: string[] = [];
  (await connectProvider(ch, { tools: [echoTool()] })).serve((call) => {
    calls.push(call.name);
    return { content: [{ type: "text", text: "ok" }] };
  });
  return { ch, calls };
}

async function errorOf(
  res: Response,
): Promise<{ status: number; code: number; message: string; id: unknown }> {
  const body = (await readJsonRpc(res)) as { error: { code: number; message: string }; id: unknown };
  return { status: res.status, code: body.error.code, message: body.error.message, id: body.id };
}

const call = { name: "echo", arguments: { text: "x" } };

describe("bad 2026-07-28 requests", () => {
  it("a missing MCP-Protocol-Version header is a header mismatch (400, -32020)", async () => {
    const { ch, calls } = await channel();
    const e = await errorOf(
      await modernRequest(ch, "tools/call", call, { headers: { "mcp-protocol-version": null }, id: 5 }),
    );
    expect(e).toMatchObject({ status: 400, code: -32020, id: 5 });
    expect(calls).toEqual([]);
  });

  it("an MCP-Protocol-Version header that disagrees with the body is a header mismatch (400, -32020)", async () => {
    const { ch, calls } = await channel();
    const e = await errorOf(
      await modernRequest(ch, "tools/call", call, { headers: { "mcp-protocol-version": "2099-01-01" } }),
    );
    expect(e).toMatchObject({ status: 400, code: -32020 });
    expect(calls).toEqual([]);
  });

  it("a missing or mismatched Mcp-Method is a header mismatch (400, -32020)", async () => {
    const { ch, calls } = await channel();
    for (const value of [null, "tools/list"]) {
      const e = await errorOf(
        await modernRequest(ch, "tools/call", call, { headers: { "mcp-method": value } }),
      );
      expect(e, String(value)).toMatchObject({ status: 400, code: -32020 });
    }
    expect(calls).toEqual([]);
  });

  it("a missing or mismatched Mcp-Name on tools/call is a header mismatch (400, -32020)", async () => {
    const { ch, calls } = await channel();
    for (const value of [null, "other"]) {
      const e = await errorOf(
        await modernRequest(ch, "tools/call", call, { headers: { "mcp-name": value } }),
      );
      expect(e, String(value)).toMatchObject({ status: 400, code: -32020 });
    }
    expect(calls).toEqual([]);
  });

  it("an unsupported version is refused with the versions the endpoint supports (400, -32022)", async () => {
    const { ch } = await channel();
    const res = await modernRequest(
      ch,
      "tools/list",
      {},
      {
        headers: { "mcp-protocol-version": "2099-01-01" },
        meta: { "io.modelcontextprotocol/protocolVersion": "2099-01-01" },
      },
    );
    expect(res.status).toBe(400);
    const body = (await readJsonRpc(res)) as {
      error: { code: number; data: { supported: string[]; requested: string } };
    };
    expect(body.error.code).toBe(-32022);
    expect(body.error.data.supported).toContain(MODERN);
    expect(body.error.data.requested).toBe("2099-01-01");
  });

  it("a request without its _meta envelope is invalid params (400, -32602)", async () => {
    const { ch } = await channel();
    const e = await errorOf(await modernRequest(ch, "tools/list", {}, { meta: null }));
    expect(e).toMatchObject({ status: 400, code: -32602 });
  });

  it("a 2026 request carrying a session id is refused (400, -32600), the call not made", async () => {
    const { ch, calls } = await channel();
    const e = await errorOf(
      await modernRequest(ch, "tools/call", call, { headers: { "mcp-session-id": "abc" }, id: 8 }),
    );
    expect(e).toMatchObject({ status: 400, code: -32600, id: 8 });
    expect(e.message).toMatch(/no sessions/);
    expect(calls).toEqual([]);
  });

  it("a method the revision removed (initialize's ping, logging/setLevel) is not found (404, -32601)", async () => {
    const { ch } = await channel();
    for (const method of ["ping", "logging/setLevel"]) {
      const e = await errorOf(await modernRequest(ch, method, method === "ping" ? {} : { level: "info" }));
      expect(e, method).toMatchObject({ status: 404, code: -32601 });
    }
  });

  it("a batch is refused (400, -32600)", async () => {
    const { ch, calls } = await channel();
    const res = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ch.agentToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/list",
      },
      body: JSON.stringify([1, 2].map((id) => ({ jsonrpc: "2.0", id, method: "tools/list", params: {} }))),
    });
    expect(res.status).toBe(400);
    expect(((await readJsonRpc(res)) as { error: { code: number } }).error.code).toBe(-32600);
    expect(calls).toEqual([]);
  });
});

describe("bad 2025-11-25 requests", () => {
  async function session(ch: TestChannel): Promise<string> {
    const res = await legacyRequest(ch, {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    expect(res.status).toBe(200);
    await res.text();
    return res.headers.get("mcp-session-id")!;
  }

  it("an unknown or expired session is not found (404, -32001)", async () => {
    const { ch, calls } = await channel();
    const e = await errorOf(
      await legacyRequest(
        ch,
        { jsonrpc: "2.0", id: 3, method: "tools/call", params: call },
        { sessionId: "gone" },
      ),
    );
    expect(e).toMatchObject({ status: 404, code: -32001, id: 3 });
    expect(calls).toEqual([]);
  });

  it("a request other than initialize without a session is refused (400, -32000)", async () => {
    const { ch, calls } = await channel();
    const e = await errorOf(
      await legacyRequest(ch, { jsonrpc: "2.0", id: 2, method: "tools/call", params: call }),
    );
    expect(e).toMatchObject({ status: 400, code: -32000 });
    expect(calls).toEqual([]);
  });

  it("an unsupported MCP-Protocol-Version within a session is refused (400)", async () => {
    const { ch, calls } = await channel();
    const id = await session(ch);
    const res = await legacyRequest(
      ch,
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: call },
      { sessionId: id, headers: { "mcp-protocol-version": "1999-01-01" } },
    );
    expect(res.status).toBe(400);
    expect(((await readJsonRpc(res)) as { error: { code: number } }).error.code).toBe(-32000);
    expect(calls).toEqual([]);
  });

  it("a batch is refused (400, -32600)", async () => {
    const { ch, calls } = await channel();
    const id = await session(ch);
    const res = await legacyRequest(
      ch,
      [1, 2].map((n) => ({ jsonrpc: "2.0", id: n, method: "tools/call", params: call })),
      { sessionId: id },
    );
    expect(res.status).toBe(400);
    expect(((await readJsonRpc(res)) as { error: { code: number } }).error.code).toBe(-32600);
    expect(calls).toEqual([]);
  });
});

describe("bad requests in either era", () => {
  it("a body over the limit is refused before it reaches the channel (413, -32600)", async () => {
    const { ch, calls } = await channel();
    const big = { name: "echo", arguments: { text: "x".repeat(LIMITS.mcpRequestBytes) } };
    for (const res of [
      await modernRequest(ch, "tools/call", big),
      await legacyRequest(
        ch,
        { jsonrpc: "2.0", id: 1, method: "tools/call", params: big },
        { sessionId: "s" },
      ),
    ]) {
      expect(res.status).toBe(413);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32600);
    }
    expect(calls).toEqual([]);
  });

  it("a foreign Origin is refused (403) in both eras", async () => {
    const { ch, calls } = await channel();
    const origin = { origin: "https://evil.example" };
    expect((await modernRequest(ch, "tools/call", call, { headers: origin })).status).toBe(403);
    expect(
      (
        await legacyRequest(
          ch,
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: call },
          { headers: origin },
        )
      ).status,
    ).toBe(403);
    expect(calls).toEqual([]);
  });
});
