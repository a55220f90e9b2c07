// The live relay end to end in workerd: channel, pairing, a provider on a WebSocket, an MCP SDK client.
import { describe, expect, it } from "vitest";
import { connectAgent, connectProvider, createChannel, echoTool, settle } from "./relay-helpers.js";

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

  it("sends list_changed when a provider's tools change", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const agent = await connectAgent(ch);
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    await agent.listTools();
    await settle(100);
    provider.send({ type: "tools", tools: [echoTool(), echoTool("second")] });
    for (let i = 0; i < 50 && changed === 0; i++) await settle(20);
    expect(changed).toBeGreaterThan(0);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo", "second"]);
    await agent.close();
  });
});
