// Calls through the relay: naming, validation, approval, timeout, cancellation, progress, logs, faults.
import { describe, expect, it } from "vitest";
import {
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  type TestProvider,
  until,
} from "./relay-helpers.js";
import { api } from "./helpers.js";

const text = (r: unknown) => ((r as { content: Array<{ text?: string }> }).content[0]?.text ?? "") as string;

describe("tool names", () => {
  it("prefixes every colliding tool with its provider's label and routes each to its own provider", async () => {
    const ch = await createChannel();
    const a = (
      await connectProvider(ch, {
        kind: "tab",
        origin: "https://shop.example",
        tools: [echoTool("search"), echoTool("cart")],
      })
    ).serve(() => ({ content: [{ type: "text", text: "from shop" }] }));
    const b = (
      await connectProvider(ch, { kind: "tab", origin: "https://news.example", tools: [echoTool("search")] })
    ).serve(() => ({ content: [{ type: "text", text: "from news" }] }));
    const agent = await connectAgent(ch);
    const names = (await agent.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(["cart", "news.example__search", "shop.example__search"]);
    expect(text(await agent.callTool({ name: "news.example__search", arguments: { text: "x" } }))).toBe(
      "from news",
    );
    expect(text(await agent.callTool({ name: "shop.example__search", arguments: { text: "x" } }))).toBe(
      "from shop",
    );
    await expect(agent.callTool({ name: "search", arguments: { text: "x" } })).rejects.toMatchObject({
      code: -32602,
    });
    a.close();
    b.close();
  });

  it("restricts names to [A-Za-z0-9_-]{1,64} when the channel asks for it", async () => {
    const ch = await createChannel({ name: "strict", strictNames: true });
    await connectProvider(ch, {
      kind: "tab",
      origin: "http://127.0.0.1:9000",
      tools: [echoTool("fs.search_by_time"), echoTool("x".repeat(100))],
    });
    await connectProvider(ch, {
      kind: "sidecar",
      label: "my laptop",
      tools: [echoTool("fs.search_by_time")],
    });
    const agent = await connectAgent(ch);
    const tools = (await agent.listTools()).tools;
    for (const t of tools) expect(t.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["127_0_0_1_9000__fs_search_by_time", "my_laptop__fs_search_by_time"]),
    );
    expect(tools.find((t) => t.name.startsWith("xxxx"))!._meta?.["webmcp-hub/provider"]).toMatchObject({
      originalName: "x".repeat(100),
    });
  });

  it("treats several tabs of one origin as one tool, routed to the most recently active tab", async () => {
    const ch = await createChannel();
    const first = (
      await connectProvider(ch, { kind: "tab", origin: "https://shop.example", tools: [echoTool()] })
    ).serve(() => ({ content: [{ type: "text", text: "first" }] }));
    const second = (
      await connectProvider(ch, { kind: "tab", origin: "https://shop.example", tools: [echoTool()] })
    ).serve(() => ({ content: [{ type: "text", text: "second" }] }));
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    expect(text(await agent.callTool({ name: "echo", arguments: { text: "x" } }))).toBe("second");
    first.send({ type: "hello", kind: "tab", label: "x", version: "t" }); // the first tab becomes active again
    await first.flush();
    expect(text(await agent.callTool({ name: "echo", arguments: { text: "x" } }))).toBe("first");
    second.close();
  });
});

describe("calls", () => {
  it("validates arguments against inputSchema before they reach the provider", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const agent = await connectAgent(ch);
    const res = await agent.callTool({ name: "echo", arguments: { text: 5, extra: true } });
    expect(res.isError).toBe(true);
    expect(text(res)).toMatch(/Invalid arguments for echo: .*text/);
    expect(provider.frames.filter((f) => f.type === "call")).toEqual([]);
  });

  it("asks for approval on a tool that is not read-only, and reports a refusal as an error", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      kind: "tab",
      origin: "https://shop.example",
      tools: [echoTool("buy", { annotations: { readOnlyHint: false } }), echoTool("look")],
    });
    provider.handler = (call) =>
      provider.send(
        call.approval
          ? {
              type: "result",
              id: call.id,
              denied: true,
              result: { isError: true, content: [{ type: "text", text: "The user declined this call." }] },
            }
          : { type: "result", id: call.id, result: { content: [{ type: "text", text: "looked" }] } },
      );
    const agent = await connectAgent(ch);
    const denied = await agent.callTool({ name: "buy", arguments: { text: "x" } });
    expect(denied.isError).toBe(true);
    expect(text(denied)).toContain("declined");
    expect(text(await agent.callTool({ name: "look", arguments: { text: "x" } }))).toBe("looked");
    const audit = (await (
      await api(`/api/channels/${ch.id}/audit`, { headers: { authorization: `Bearer ${ch.ownerKey}` } })
    ).json()) as any;
    expect(audit.entries.map((e: any) => [e.tool, e.status])).toEqual([
      ["look", "ok"],
      ["buy", "denied"],
    ]);
  });

  it("names the calling agent in the approval request by its token's label, the client's own name second", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool("buy", { annotations: {} })] });
    provider.serve(() => ({ content: [{ type: "text", text: "ok" }] }));
    const agent = await connectAgent(ch);
    await agent.callTool({ name: "buy", arguments: { text: "x" } });
    const call = await provider.next("call");
    expect(call.approval).toEqual({
      agent: "your agent (token created with the channel)",
      client: "test-agent",
    });
  });

  it("times out a call the provider never answers, and cancels it on the provider", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const agent = await connectAgent(ch);
    const res = await agent.callTool({
      name: "echo",
      arguments: { text: "x" },
      _meta: { "webmcp-hub/timeoutMs": 300 },
    });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("did not answer within 0.3 s");
    const call = await provider.next("call");
    expect(call.timeoutMs).toBe(300);
    expect(await provider.next("cancel", (f) => f.id === call.id)).toMatchObject({
      reason: expect.stringContaining("Timed out"),
    });
  });

  it("forwards an agent's cancellation to the provider as a cancel frame", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const agent = await connectAgent(ch);
    const controller = new AbortController();
    const pending = agent.callTool(
      { name: "echo", arguments: { text: "x" } },
      {
        signal: controller.signal,
      },
    );
    const call = await provider.next("call");
    controller.abort("changed my mind");
    await expect(pending).rejects.toThrow();
    expect(await provider.next("cancel", (f) => f.id === call.id)).toMatchObject({ type: "cancel" });
    let audit: any;
    await until(async () => {
      audit = await (
        await api(`/api/channels/${ch.id}/audit`, { headers: { authorization: `Bearer ${ch.ownerKey}` } })
      ).json();
      return audit.entries.length > 0;
    }, "the cancelled call's audit row");
    expect(audit.entries[0]).toMatchObject({ tool: "echo", status: "cancelled" });
  });

  it("relays progress as notifications/progress and logs as notifications/message at the agent's level", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    // The result goes once the agent has heard the log: the log can only arrive with its call in flight.
    let heardLog: () => void = () => {};
    const logHeard = new Promise<void>((resolve) => (heardLog = resolve));
    provider.handler = async (call) => {
      for (const p of [0, 50, 100])
        provider.send({ type: "progress", id: call.id, progress: p, total: 100, message: `at ${p}` });
      provider.send({ type: "log", id: call.id, level: "debug", data: "noisy detail" });
      provider.send({
        type: "log",
        id: call.id,
        level: "warning",
        data: { note: "careful" },
        logger: "shop",
      });
      await logHeard;
      provider.send({ type: "result", id: call.id, result: { content: [{ type: "text", text: "done" }] } });
    };
    const agent = await connectAgent(ch);
    await agent.setLoggingLevel("info");
    const logs: unknown[] = [];
    agent.setNotificationHandler("notifications/message", (n) => {
      logs.push(n.params);
      heardLog();
    });
    const progress: unknown[] = [];
    const res = await agent.callTool(
      { name: "echo", arguments: { text: "x" } },
      {
        onprogress: (p) => progress.push(p),
      },
    );
    expect(text(res)).toBe("done");
    // Each notification as the provider sent it, the values rising (MCP requires it): in order, all three;
    // a frame a busy runtime delivers after a later one is not relayed, and the last (highest) always is.
    const sent = [0, 50, 100].map((p) => ({ progress: p, total: 100, message: `at ${p}` }));
    expect(progress.length).toBeGreaterThan(0);
    for (const p of progress) expect(sent).toContainEqual(p);
    const values = progress.map((p) => (p as { progress: number }).progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
    expect(values.at(-1)).toBe(100);
    expect(logs).toEqual([{ level: "warning", logger: "shop", data: { note: "careful" } }]);
  });

  it("passes on progress only when it rises: a repeated or lower value from the provider is not relayed", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.handler = async (call) => {
      provider.send({ type: "progress", id: call.id, progress: 60, message: "most of it" });
      await provider.flush();
      provider.send({ type: "progress", id: call.id, progress: 60, message: "most of it, again" });
      provider.send({ type: "progress", id: call.id, progress: 10, message: "a late frame" });
      await provider.flush();
      provider.send({ type: "progress", id: call.id, progress: 90, message: "nearly" });
      await provider.flush();
      provider.send({ type: "result", id: call.id, result: { content: [{ type: "text", text: "done" }] } });
    };
    const agent = await connectAgent(ch);
    const progress: unknown[] = [];
    const res = await agent.callTool(
      { name: "echo", arguments: { text: "x" } },
      { onprogress: (p) => progress.push(p) },
    );
    expect(text(res)).toBe("done");
    expect(progress).toEqual([
      { progress: 60, message: "most of it" },
      { progress: 90, message: "nearly" },
    ]);
  });

  it("fails a call at once when its provider disconnects mid-call", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      kind: "tab",
      origin: "https://shop.example",
      tools: [echoTool()],
    });
    provider.handler = () => provider.close();
    const agent = await connectAgent(ch);
    const started = Date.now();
    const res = await agent.callTool({ name: "echo", arguments: { text: "x" } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("disconnected");
    expect(Date.now() - started).toBeLessThan(10_000);
    await until(async () => (await agent.listTools()).tools.length === 0, "the closed tab's tools to go");
  });

  it("requires structuredContent matching the tool's outputSchema", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      tools: [
        echoTool("typed", {
          outputSchema: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
        }),
      ],
    });
    let reply: unknown = { content: [{ type: "text", text: "{}" }], structuredContent: { n: "one" } };
    provider.serve(() => reply);
    const agent = await connectAgent(ch);
    const bad = await agent.callTool({ name: "typed", arguments: { text: "x" } });
    expect(bad.isError).toBe(true);
    expect(text(bad)).toContain("outputSchema");
    reply = { content: [{ type: "text", text: '{"n":1}' }], structuredContent: { n: 1 } };
    expect((await agent.callTool({ name: "typed", arguments: { text: "x" } })).structuredContent).toEqual({
      n: 1,
    });
  });
});

describe("bad frames and limits", () => {
  it("answers a bad frame with an error frame and keeps the connection", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.ws.send("not json");
    expect(await provider.next("error")).toMatchObject({ code: "invalid_json" });
    provider.send({ type: "tools", tools: [{ name: "bad name!", description: "x" }] });
    expect(await provider.next("error")).toMatchObject({
      code: "invalid_frame",
      message: expect.stringContaining("tools.0.name"),
    });
    provider.send({ type: "teleport" });
    expect(await provider.next("error")).toMatchObject({ code: "invalid_frame" });
    provider.send({ type: "result", id: "nobody", result: { content: [] } });
    provider.send({
      type: "tools",
      tools: [echoTool("ok"), { name: "broken", description: "x", inputSchema: { type: "string" } }],
    });
    expect(await provider.next("error")).toMatchObject({
      code: "invalid_tools",
      message: expect.stringContaining("broken"),
    });
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["ok"]);
  });

  it("reads result frames as the schema does, in their usual shape and any other, and refuses bad ones", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    let reply: unknown;
    provider.serve(() => reply);
    const call = async () => {
      const res = await api(`/api/channels/${ch.id}/calls`, {
        method: "POST",
        json: { name: "echo", arguments: { text: "x" } },
        headers: { authorization: `Bearer ${ch.agentToken}` },
      });
      expect(res.status).toBe(200);
      return ((await res.json()) as { results: Array<{ status: string; result: unknown }> }).results[0]!;
    };
    // The usual shape, checked by hand: passed on as it came.
    reply = {
      content: [{ type: "text", text: "a" }],
      structuredContent: { n: 1 },
      isError: false,
      _meta: { k: "v" },
    };
    expect(await call()).toMatchObject({ status: "ok", result: reply });
    // Other content and annotations: read by the schema, still delivered.
    reply = {
      content: [
        { type: "text", text: "b", annotations: { priority: 0.5 } },
        { type: "image", data: "AAAA", mimeType: "image/png" },
      ],
    };
    expect(await call()).toMatchObject({ status: "ok", result: reply });
    // A key the schema does not know is dropped, as before.
    reply = { content: [{ type: "text", text: "c", extra: 1 }] };
    expect((await call()).result).toEqual({ content: [{ type: "text", text: "c" }] });
    // Malformed result frames are refused in band, whichever path read them.
    const refusals: Array<[unknown, string]> = [
      [{ type: "result", id: "x", result: { content: [{ type: "text", text: 5 }] } }, "result.content.0"],
      [{ type: "result", id: "x".repeat(65), result: { content: [] } }, "id"],
      [{ type: "result", id: "x", result: { content: [] }, denied: "yes" }, "denied"],
      [{ type: "result", id: "x", result: { content: "text" } }, "result.content"],
      [{ type: "result", id: "x", result: { content: [], isError: "no" } }, "result.isError"],
      [
        { type: "result", id: "x", result: { content: [], structuredContent: [1] } },
        "result.structuredContent",
      ],
      [{ type: "result", id: "", result: { content: [] } }, "id"],
    ];
    for (const [frame, where] of refusals) {
      provider.send(frame);
      expect(await provider.next("error")).toMatchObject({
        code: "invalid_frame",
        message: expect.stringContaining(where),
      });
    }
  });

  it("refuses more than 256 tools from one provider", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.send({ type: "tools", tools: Array.from({ length: 257 }, (_, i) => echoTool(`t${i}`)) });
    expect(await provider.next("error")).toMatchObject({ message: expect.stringContaining("256") });
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
  });

  it("accepts 64 providers and turns the 65th away with a reason", async () => {
    const ch = await createChannel();
    const providers: TestProvider[] = [];
    for (let i = 0; i < 64; i++)
      providers.push(await connectProvider(ch, { label: `p${i}`, tools: [echoTool(`tool${i}`)] }));
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.length).toBe(64);
    const res = await (
      await import("./relay-helpers.js")
    ).pair(await (await import("./relay-helpers.js")).newPairingCode(ch), "sidecar");
    const { providerToken } = (await res.json()) as any;
    const { SELF } = await import("cloudflare:test");
    const up = await SELF.fetch(`http://127.0.0.1:8787/relay/${ch.id}`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": `webmcp-hub.v1, ${providerToken}` },
    });
    const ws = up.webSocket!;
    const got: string[] = [];
    const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
    ws.addEventListener("message", (e) => got.push(String(e.data)));
    ws.accept();
    expect(await closed).toBe(4009);
    expect(got.join()).toContain("channel_full");
    for (const p of providers) p.close();
  }, 60_000);
});
