// What the channel's object accepts from providers and agents and sends to
// providers — a page URL only on the tab's own origin, the agent named by its token's label, call frames
// bounded in bytes and depth before they are sent, and frame sizes counted in UTF-8 bytes.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { LIMITS, jsonDepth, utf8ByteLength } from "../../src/protocol/index.js";
import { api } from "./helpers.js";
import {
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  HUB,
  type TestChannel,
  type TestProvider,
} from "./relay-helpers.js";

const text = (r: unknown) => ((r as { content: Array<{ text?: string }> }).content[0]?.text ?? "") as string;

async function ownerView(ch: TestChannel) {
  const res = await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } });
  return (await res.json()) as {
    providers: Array<{ id: string; page: { url: string | null; title: string } | null }>;
  };
}

async function auditOf(ch: TestChannel) {
  const res = await api(`/api/channels/${ch.id}/audit`, {
    headers: { authorization: `Bearer ${ch.ownerKey}` },
  });
  return ((await res.json()) as { entries: Array<{ tool: string; status: string; message: string | null }> })
    .entries;
}

/** Frames are handled in order: once the object answers a bad frame, every frame before it was handled. */
async function handled(provider: TestProvider): Promise<void> {
  provider.ws.send("not json");
  await provider.next("error", (f) => f.code === "invalid_json");
}

describe("a tab's page URL and title (item 6)", () => {
  it("keeps only an http(s) URL on the tab's own origin, and caps the title", async () => {
    const ch = await createChannel();
    const tab = await connectProvider(ch, {
      kind: "tab",
      origin: "https://shop.example",
      tools: [echoTool()],
    });
    const cases: Array<[string, string | null]> = [
      ["javascript:alert(document.cookie)", null],
      ["https://evil.example/login", null],
      ["http://shop.example/", null], // another scheme is another origin
      ["https://user:pw@shop.example/", null],
      ["data:text/html,<script>alert(1)</script>", null],
      ["not a url", null],
      ["https://shop.example/cart?item=1#top", "https://shop.example/cart?item=1#top"],
    ];
    for (const [url, kept] of cases) {
      tab.send({ type: "hello", kind: "tab", label: "x", version: "t", page: { url, title: "Cart" } });
      await handled(tab);
      expect((await ownerView(ch)).providers[0]!.page, url).toEqual({ url: kept, title: "Cart" });
    }
    const title = `Your bank\u202e\u0000 ${"x".repeat(244)}`; // 256 characters, the most a hello carries
    tab.send({
      type: "hello",
      kind: "tab",
      label: "x",
      version: "t",
      page: { url: "https://shop.example/", title },
    });
    await handled(tab);
    const page = (await ownerView(ch)).providers[0]!.page!;
    expect(Array.from(page.title).length).toBe(LIMITS.pageTitleMax);
    expect(page.title).toMatch(/^Your bank x+…$/);
  });

  it("shows no page URL for a sidecar, which has no origin", async () => {
    const ch = await createChannel();
    const sidecar = await connectProvider(ch, { kind: "sidecar", tools: [echoTool()] });
    sidecar.send({
      type: "hello",
      kind: "sidecar",
      label: "x",
      version: "t",
      page: { url: "https://anything.example/", title: "t" },
    });
    await handled(sidecar);
    expect((await ownerView(ch)).providers[0]!.page).toEqual({ url: null, title: "t" });
  });
});

describe("the agent's name in approval requests (item 8)", () => {
  it("names the agent by its token's label; a client's self-declared title is secondary and capped", async () => {
    const ch = await createChannel();
    const made = await api(`/api/channels/${ch.id}/agent-tokens`, {
      method: "POST",
      headers: { authorization: `Bearer ${ch.ownerKey}` },
      json: { label: "Claude on my laptop" },
    });
    const { agentToken } = (await made.json()) as { agentToken: string };
    const provider = await connectProvider(ch, { tools: [echoTool("buy", { annotations: {} })] });
    provider.serve(() => ({ content: [{ type: "text", text: "ok" }] }));
    const spoof = `Your bank's security check (verified by webmcp-hub) ${"!".repeat(150)}`;
    const agent = await connectAgent(ch, undefined, agentToken, { name: "x", version: "1", title: spoof });
    await agent.callTool({ name: "buy", arguments: { text: "x" } });
    const call = await provider.next("call");
    expect(call.approval!.agent).toBe("Claude on my laptop");
    expect(Array.from(call.approval!.client!).length).toBe(LIMITS.clientNameMax);
    expect(call.approval!.client).toMatch(/^Your bank's security check .*…$/);
  });

  it("names a plain HTTP agent by its token's label too", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool("buy", { annotations: {} })] });
    provider.serve(() => ({ content: [{ type: "text", text: "ok" }] }));
    const res = await api(`/api/channels/${ch.id}/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${ch.agentToken}` },
      json: { name: "buy", arguments: { text: "x" } },
    });
    expect(res.status).toBe(200);
    expect((await provider.next("call")).approval).toEqual({
      agent: "your agent (token created with the channel)",
    });
  });
});

describe("call frames to providers are bounded before they are sent (items 9 and 10)", () => {
  it("answers arguments over the frame limit, in UTF-8 bytes, with isError; nothing is sent; audited invalid", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.serve((call) => ({
      content: [{ type: "text", text: `${String(call.arguments.text).length}` }],
    }));
    const agent = await connectAgent(ch);
    // 1.1 MB of ASCII, and 400,000 euro signs: 400,000 UTF-16 units but 1.2 MB on the wire.
    for (const big of ["x".repeat(1_100_000), "€".repeat(400_000)]) {
      const res = await agent.callTool({ name: "echo", arguments: { text: big } });
      expect(res.isError).toBe(true);
      expect(text(res)).toContain(`a frame may be at most ${LIMITS.frameBytes} bytes (LIMITS.frameBytes)`);
    }
    // Just under the limit still goes through.
    const fits = "€".repeat(340_000);
    expect(utf8ByteLength(fits)).toBeLessThan(LIMITS.frameBytes - 1024);
    expect(text(await agent.callTool({ name: "echo", arguments: { text: fits } }))).toBe("340000");
    expect(provider.frames.filter((f) => f.type === "call")).toHaveLength(1); // only the one that fits
    expect((await auditOf(ch)).map((e) => e.status)).toEqual(["ok", "invalid", "invalid"]);
  });

  it("answers arguments nested deeper than LIMITS.jsonDepthMax with isError, sends nothing, audits invalid", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      tools: [echoTool("deep", { inputSchema: { type: "object" } })],
    });
    provider.serve(() => ({ content: [{ type: "text", text: "ran" }] }));
    const agent = await connectAgent(ch);
    const nest = (levels: number) => {
      let v: unknown = 1;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    // The arguments object is one level: LIMITS.jsonDepthMax - 1 more fit, one more does not.
    expect(jsonDepth({ v: nest(LIMITS.jsonDepthMax - 1) })).toBe(LIMITS.jsonDepthMax);
    expect(
      text(await agent.callTool({ name: "deep", arguments: { v: nest(LIMITS.jsonDepthMax - 1) } })),
    ).toBe("ran");
    const res = await agent.callTool({ name: "deep", arguments: { v: nest(LIMITS.jsonDepthMax) } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain(`deeper than ${LIMITS.jsonDepthMax} levels`);
    expect((await auditOf(ch)).map((e) => e.status)).toEqual(["invalid", "ok"]);
  });

  it("answers a call nested a million levels deep with isError, and the object keeps serving", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      tools: [echoTool("deep", { inputSchema: { type: "object" } })],
    });
    provider.serve(() => ({ content: [{ type: "text", text: "ran" }] }));
    const agent = await connectAgent(ch);
    // The SDK client cannot serialise such a value (JSON.stringify recurses): post the JSON-RPC text itself.
    const transport = (agent as unknown as { transport: StreamableHTTPClientTransport }).transport;
    const levels = 1_000_000;
    const body = `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"deep","arguments":{"v":${"[".repeat(levels)}${"]".repeat(levels)}}}}`;
    const res = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${ch.agentToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": transport.sessionId!,
        "mcp-protocol-version": transport.protocolVersion ?? "2025-11-25",
      },
      body,
    });
    expect(res.status).toBe(200);
    const answer = (await res.text())
      .split("\n")
      .filter((l) => l.startsWith("data: "))
      .map(
        (l) => JSON.parse(l.slice(6)) as { id: number; result?: { isError?: boolean; content: unknown[] } },
      )
      .find((m) => m.id === 99)!;
    expect(answer.result?.isError).toBe(true);
    expect(text(answer.result)).toContain(`deeper than ${LIMITS.jsonDepthMax} levels`);
    expect(provider.frames.filter((f) => f.type === "call")).toHaveLength(0);
    expect(text(await agent.callTool({ name: "deep", arguments: { v: 1 } }))).toBe("ran");
  });
});

describe("frames from providers are measured in UTF-8 bytes and depth (item 10)", () => {
  it("refuses a 3,000,039-byte log frame of euro signs and closes the socket", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const frame = JSON.stringify({ type: "log", level: "info", data: "€".repeat(1_000_000) });
    expect(frame.length).toBeLessThan(LIMITS.frameBytes); // what the old check counted
    expect(utf8ByteLength(frame)).toBe(3_000_039);
    provider.ws.send(frame);
    expect(await provider.next("error")).toMatchObject({
      code: "frame_too_large",
      message: expect.stringContaining("3000039"),
    });
    await expect(provider.next("welcome", () => false, 2000)).rejects.toThrow("socket closed");
  });

  it("refuses a frame nested deeper than the depth limit and keeps the connection", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.ws.send(`{"type":"log","level":"info","data":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
    expect(await provider.next("error")).toMatchObject({ code: "frame_too_deep" });
    await handled(provider);
  });
});
