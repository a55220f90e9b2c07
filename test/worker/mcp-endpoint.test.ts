// The channel MCP endpoint's HTTP rules: auth, capability URL, Origin/Host, protocol version, sessions.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { expectError } from "./helpers.js";
import { connectAgent, connectProvider, createChannel, echoTool, HUB } from "./relay-helpers.js";

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};
const headers = (extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra,
});

describe("the channel MCP endpoint", () => {
  it("works from the capability URL alone, with the token in the path", async () => {
    const ch = await createChannel();
    (await connectProvider(ch, { tools: [echoTool()] })).serve(() => ({
      content: [{ type: "text", text: "ok" }],
    }));
    const agent = await connectAgent(ch, `${HUB}/mcp/${ch.id}/k/${ch.agentToken}`, null);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    expect(agent.getServerCapabilities()).toMatchObject({ tools: { listChanged: true }, logging: {} });
  });

  it("requires the channel's agent token", async () => {
    const ch = await createChannel();
    const other = await createChannel();
    await expectError(
      await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify(initialize),
      }),
      401,
      "unauthorized",
    );
    await expectError(
      await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
        method: "POST",
        headers: headers({ authorization: `Bearer ${other.agentToken}` }),
        body: JSON.stringify(initialize),
      }),
      403,
      "forbidden",
    );
    await expectError(
      await SELF.fetch(`${HUB}/mcp/${ch.id}/k/${other.agentToken}`, {
        method: "POST",
        headers: headers(),
        body: JSON.stringify(initialize),
      }),
      403,
      "forbidden",
    );
  });

  it("rejects a foreign Origin and a non-loopback Host with 403 (DNS rebinding), accepts loopback ones", async () => {
    const ch = await createChannel();
    const auth = { authorization: `Bearer ${ch.agentToken}` };
    await expectError(
      await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
        method: "POST",
        headers: headers({ ...auth, origin: "http://evil.example.com" }),
        body: JSON.stringify(initialize),
      }),
      403,
      "forbidden",
    );
    await expectError(
      await SELF.fetch(`http://evil.example.com/mcp/${ch.id}`, {
        method: "POST",
        headers: headers({ ...auth, origin: "http://evil.example.com" }),
        body: JSON.stringify(initialize),
      }),
      403,
      "forbidden",
    );
    const ok = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: headers({ ...auth, origin: HUB }),
      body: JSON.stringify(initialize),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("mcp-session-id")).toBeTruthy();
    expect(ok.headers.get("access-control-allow-origin")).toBe(HUB);
  });

  it("answers an unsupported protocol version with 400 and an unknown session with 404", async () => {
    const ch = await createChannel();
    const auth = { authorization: `Bearer ${ch.agentToken}` };
    const init = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: headers(auth),
      body: JSON.stringify(initialize),
    });
    const session = init.headers.get("mcp-session-id")!;
    await init.text();
    const list = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    const badVersion = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: headers({ ...auth, "mcp-session-id": session, "mcp-protocol-version": "1999-01-01" }),
      body: list,
    });
    expect(badVersion.status).toBe(400);
    const unknown = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: headers({
        ...auth,
        "mcp-session-id": "no-such-session",
        "mcp-protocol-version": "2025-11-25",
      }),
      body: list,
    });
    expect(unknown.status).toBe(404);
    const noSession = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "GET",
      headers: { ...auth, accept: "text/event-stream" },
    });
    expect(noSession.status).toBe(400);
    // Another agent token of the same channel cannot use this session.
    const del = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "DELETE",
      headers: { ...auth, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
    });
    expect(del.status).toBe(200);
    const gone = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: headers({ ...auth, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" }),
      body: list,
    });
    expect(gone.status).toBe(404);
  });
});
