// The live relay end to end in workerd: channel, pairing, a provider on a WebSocket, an MCP SDK client.
import { describe, expect, it } from "vitest";
import { connectAgent, connectProvider, createChannel, echoTool, until } from "./relay-helpers.js";

describe("calling a provider's tool through the channel", () => {
  it("lists the provider's tools and relays a call and its result", async () => {
    const ch = await createChannel();
    const provider = (await connectProvider(ch, { tools: [echoTool()] })).serve((call) => ({
      content: [{ type: "text", text: `echo: ${call.arguments.text}` }],
    }));
    const agent = await connectAgent(ch);
    const { tools } = await agent.listTools();
    expect(tools.map((t) => t.name)).toEqual(["echo"]);
    expect(tools[0]!._meta?.["webmcp-hub/provider"]).toMatchObject({ kind: "sidecar", label: "sidecar" });
    const result = await agent.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result).toMatchObject({ content: [{ type: "text", text: "echo: hi" }] });
    provider.close();
    await agent.close();
  });

  it("a tool from one of a tab's frames carries the frame's origin in _meta; a bad one is refused", async () => {
    const ch = await createChannel();
    const origin = "https://shop.example";
    const provider = await connectProvider(ch, { kind: "tab", origin, tools: [echoTool()] });
    const agent = await connectAgent(ch);
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    await agent.listTools();
    const framed = { ...echoTool("framed"), frameOrigin: "https://widget.example:8443" };
    provider.send({ type: "tools", tools: [echoTool(), framed] });
    await until(() => changed > 0, "notifications/tools/list_changed");
    const { tools } = await agent.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("framed")).not.toHaveProperty("frameOrigin");
    expect(byName.get("framed")!._meta?.["webmcp-hub/provider"]).toMatchObject({
      kind: "tab",
      origin,
      frameOrigin: "https://widget.example:8443",
    });
    expect(byName.get("echo")!._meta?.["webmcp-hub/provider"]).not.toHaveProperty("frameOrigin");
    // Not an origin: the frame is refused as malformed and the last good tools stay.
    provider.send({ type: "tools", tools: [{ ...framed, frameOrigin: "javascript:alert(1)" }] });
    expect(await provider.next("error")).toMatchObject({ type: "error" });
    expect((await agent.listTools()).tools.map((t) => t.name).sort()).toEqual(["echo", "framed"]);
    await agent.close();
  });

  it("sends list_changed when a provider's tools change", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const agent = await connectAgent(ch);
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    await agent.listTools();
    provider.send({ type: "tools", tools: [echoTool(), echoTool("second")] });
    await until(() => changed > 0, "notifications/tools/list_changed");
    expect(changed).toBeGreaterThan(0);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo", "second"]);
    await agent.close();
  });
});
