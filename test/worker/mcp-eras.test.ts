// Both MCP protocol eras on one channel endpoint, chosen per request: a 2025-11-25 client (initialize, a
// session, the GET stream) and a 2026-07-28 client (stateless, server/discover, subscriptions/listen) list
// and call the same relayed tool and both hear list_changed; the 2026 answers carry what the revision asks
// (resultType, ttlMs/cacheScope, deterministic order); progress and cancellation go through the relay.
import { describe, expect, it } from "vitest";
import { api } from "./helpers.js";
import {
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  MODERN,
  type TestChannel,
} from "./relay-helpers.js";
import { modernRequest, readJsonRpc } from "./mcp-raw.js";

describe("both eras on one channel", () => {
  it("a 2025 client and a 2026 client each list and call the same tool, and both hear list_changed when a tab adds one", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool()] })).serve((call) => ({
      content: [{ type: "text", text: `echo ${(call.arguments as { text: string }).text}` }],
    }));
    const old = await connectAgent(ch);
    const now = await connectAgent(ch, undefined, undefined, undefined, { era: "modern" });
    expect(old.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    expect(now.getNegotiatedProtocolVersion()).toBe(MODERN);

    for (const agent of [old, now]) {
      expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
      const result = await agent.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(result.content).toEqual([{ type: "text", text: "echo hi" }]);
    }

    const heard = { old: false, now: false };
    const oldHeard = new Promise<void>((resolve) =>
      old.setNotificationHandler("notifications/tools/list_changed", () => {
        heard.old = true;
        resolve();
      }),
    );
    const nowHeard = new Promise<void>((resolve) =>
      now.setNotificationHandler("notifications/tools/list_changed", () => {
        heard.now = true;
        resolve();
      }),
    );
    const subscription = await now.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter.toolsListChanged).toBe(true);

    await connectProvider(ch, {
      kind: "tab",
      origin: "https://shop.example",
      tools: [echoTool("add_to_cart")],
    });
    await Promise.all([oldHeard, nowHeard]);
    expect(heard).toEqual({ old: true, now: true });
    for (const agent of [old, now]) {
      expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["add_to_cart", "echo"]);
    }
    await subscription.close();
    await old.close();
    await now.close();
  });
});

describe("the 2026-07-28 era", () => {
  async function channelWithTools(): Promise<TestChannel> {
    const ch = await createChannel();
    // Registered out of alphabetical order: the list must not depend on it.
    (await connectProvider(ch, { tools: [echoTool("zeta"), echoTool("alpha"), echoTool("mid")] })).serve(
      () => ({ content: [{ type: "text", text: "ok" }] }),
    );
    return ch;
  }

  it("answers server/discover with the revision, tools.listChanged, the tasks extension and cache fields", async () => {
    const ch = await channelWithTools();
    const res = await modernRequest(ch, "server/discover", {});
    expect(res.status).toBe(200);
    const { result } = (await readJsonRpc(res)) as { result: Record<string, any> };
    expect(result.supportedVersions).toContain(MODERN);
    expect(result.capabilities.tools).toEqual({ listChanged: true });
    expect(result.capabilities.extensions).toEqual({ "io.modelcontextprotocol/tasks": {} });
    expect(result.resultType).toBe("complete");
    expect(result.ttlMs).toBe(3_600_000);
    expect(result.cacheScope).toBe("private");
    expect(result._meta["io.modelcontextprotocol/serverInfo"].name).toBe("webmcp-hub-channel");
  });

  it("lists tools in name order with a short private cache lifetime", async () => {
    const ch = await channelWithTools();
    const res = await modernRequest(ch, "tools/list", {});
    const { result } = (await readJsonRpc(res)) as { result: Record<string, any> };
    expect(result.tools.map((t: { name: string }) => t.name)).toEqual(["alpha", "mid", "zeta"]);
    expect(result).toMatchObject({ resultType: "complete", ttlMs: 5000, cacheScope: "private" });
  });

  it("calls a tool with resultType complete, and answers an unknown tool with -32602", async () => {
    const ch = await channelWithTools();
    const ok = (await readJsonRpc(
      await modernRequest(ch, "tools/call", { name: "mid", arguments: { text: "x" } }),
    )) as { result: Record<string, unknown> };
    expect(ok.result).toMatchObject({ resultType: "complete", content: [{ type: "text", text: "ok" }] });
    const unknown = await modernRequest(ch, "tools/call", { name: "nope", arguments: {} });
    const body = (await readJsonRpc(unknown)) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/^Unknown tool: nope\. Tools in this channel: /);
  });

  it("relays progress and the client's cancellation", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool("slow")] });
    provider.handler = (call, p) => {
      p.send({ type: "progress", id: call.id, progress: 1, total: 2, message: "half" });
    };
    const agent = await connectAgent(ch, undefined, undefined, undefined, { era: "modern" });
    const progress: Array<{ progress: number; total?: number }> = [];
    const controller = new AbortController();
    const pending = agent.callTool(
      { name: "slow", arguments: { text: "x" } },
      {
        onprogress: (p) => {
          progress.push(p);
          controller.abort();
        },
        signal: controller.signal,
      },
    );
    await expect(pending).rejects.toThrow();
    expect(progress).toEqual([expect.objectContaining({ progress: 1, total: 2, message: "half" })]);
    const cancel = await provider.next("cancel");
    expect(cancel.reason).toBe("The agent cancelled the call.");
    await agent.close();
  });

  it("authenticates every request: none, a wrong token and a revoked one are refused", async () => {
    const ch = await channelWithTools();
    expect((await modernRequest(ch, "tools/list", {}, { token: null })).status).toBe(401);
    expect((await modernRequest(ch, "tools/list", {}, { token: `wha_${"A".repeat(43)}` })).status).toBe(401);
    expect((await modernRequest(ch, "tools/list", {})).status).toBe(200);
    const revoke = await api(`/api/channels/${ch.id}/agent-tokens`, {
      method: "DELETE",
      json: { id: ch.agentTokenId },
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(revoke.status).toBeLessThan(300);
    expect((await modernRequest(ch, "tools/list", {})).status).toBe(401);
  });
});
