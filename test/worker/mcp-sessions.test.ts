// MCP sessions: they survive the channel object's eviction (stored in its SQLite), and within a session the
// object checks the token itself, sending anything it cannot vouch for back to the Worker's full check.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import type { ChannelRelay } from "../../src/worker/channel-relay.js";
import { api, expectError } from "./helpers.js";
import {
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  HUB,
  type TestChannel,
} from "./relay-helpers.js";
import { evictDurableObject } from "./evict.js";

const stubOf = (ch: TestChannel) => env.CHANNEL.get(env.CHANNEL.idFromName(ch.id));
const sessionOf = (agent: Client) =>
  (agent as unknown as { transport: { sessionId?: string } }).transport.sessionId!;

async function newAgentToken(ch: TestChannel, label: string): Promise<{ id: string; agentToken: string }> {
  const res = await api(`/api/channels/${ch.id}/agent-tokens`, {
    method: "POST",
    json: { label },
    headers: { authorization: `Bearer ${ch.ownerKey}` },
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; agentToken: string };
}

/** A raw MCP request within a session, with the given token. */
function inSession(
  ch: TestChannel,
  sessionId: string,
  token: string,
  body: unknown = { jsonrpc: "2.0", id: 9, method: "ping" },
) {
  return SELF.fetch(`${HUB}/mcp/${ch.id}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify(body),
  });
}

async function echoChannel(): Promise<{ ch: TestChannel; agent: Client }> {
  const ch = await createChannel();
  (await connectProvider(ch, { tools: [echoTool()] })).serve((call) => ({
    content: [{ type: "text", text: `echo ${(call.arguments as { text: string }).text}` }],
  }));
  // No GET stream: these tests evict the object, which the runtime does not do while a request is open.
  return { ch, agent: await connectAgent(ch, undefined, undefined, undefined, { getStream: false }) };
}

/** A client that picks up an existing session instead of initializing a new one. */
async function resumeAgent(ch: TestChannel, sessionId: string): Promise<Client> {
  const client = new Client({ name: "test-agent", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${HUB}/mcp/${ch.id}`), {
    fetch: (u, init) => SELF.fetch(u, init),
    requestInit: { headers: { authorization: `Bearer ${ch.agentToken}` } },
    sessionId,
  });
  await client.connect(transport);
  return client;
}

/** A 2025 session opened with a raw initialize; returns its id. */
async function rawInitialize(ch: TestChannel): Promise<string> {
  const res = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${ch.agentToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    }),
  });
  expect(res.status).toBe(200);
  await res.text();
  return res.headers.get("mcp-session-id")!;
}

/** The JSON-RPC message of a response, whether sent as JSON or as one SSE event. */
async function sseJson(res: Response): Promise<unknown> {
  const body = await res.text();
  if (!res.headers.get("content-type")?.includes("text/event-stream")) return JSON.parse(body);
  const data = body.split("\n").find((l) => l.startsWith("data: ") && l.length > 6);
  return JSON.parse(data!.slice(6));
}

const text = (r: Awaited<ReturnType<Client["callTool"]>>) => (r.content as Array<{ text: string }>)[0]!.text;

describe("MCP sessions across eviction", () => {
  it("keeps an agent's session, its log level and the provider's tools when the object is evicted", async () => {
    const { ch, agent } = await echoChannel();
    await agent.setLoggingLevel("warning");
    expect(text(await agent.callTool({ name: "echo", arguments: { text: "before" } }))).toBe("echo before");
    const session = sessionOf(agent);
    // An object with an open GET stream is never evicted (that request is in flight), so the agent drops its
    // connection first, as a client between turns does; closing the transport does not end the session.
    await agent.close();
    await evictDurableObject(stubOf(ch));

    const again = await resumeAgent(ch, session);
    expect(text(await again.callTool({ name: "echo", arguments: { text: "after" } }))).toBe("echo after");
    expect(sessionOf(again)).toBe(session);
    expect((await again.request({ method: "tools/list", params: {} })).tools.map((t) => t.name)).toEqual([
      "echo",
    ]);
    const stored = await runInDurableObject(stubOf(ch), (_instance: ChannelRelay, state) =>
      state.storage.sql.exec<{ id: string; level: string }>("SELECT id, level FROM mcp_sessions").toArray(),
    );
    expect(stored).toEqual([{ id: session, level: "warning" }]);
    await again.close();
  });

  it("after eviction, a GET stream reopened together with a POST still gets list_changed", async () => {
    const { ch, agent } = await echoChannel();
    const session = sessionOf(agent);
    await agent.close();
    await evictDurableObject(stubOf(ch));

    const headers = {
      authorization: `Bearer ${ch.agentToken}`,
      "mcp-session-id": session,
      "mcp-protocol-version": "2025-11-25",
    };
    const [stream, ping] = await Promise.all([
      SELF.fetch(`${HUB}/mcp/${ch.id}`, { headers: { ...headers, accept: "text/event-stream" } }),
      inSession(ch, session, ch.agentToken),
    ]);
    expect(stream.status).toBe(200);
    expect(ping.status).toBe(200);
    // The stream belongs to the session the object keeps: a tools change reaches it.
    const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
    await connectProvider(ch, { tools: [echoTool("second")] });
    let seen = "";
    while (!seen.includes("notifications/tools/list_changed")) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += value;
    }
    expect(seen).toContain("notifications/tools/list_changed");
    await reader.cancel();
  });

  it("ends a session for good when the agent deletes it, eviction or not", async () => {
    const { ch, agent } = await echoChannel();
    const session = sessionOf(agent);
    await (
      agent as unknown as { transport: { terminateSession(): Promise<void> } }
    ).transport.terminateSession();
    await evictDurableObject(stubOf(ch));
    const res = await inSession(ch, session, ch.agentToken);
    expect(res.status).toBe(404);
  });

  it("forgets a revoked token's stored sessions too", async () => {
    const { ch, agent } = await echoChannel();
    const session = sessionOf(agent);
    await evictDurableObject(stubOf(ch));
    const revoked = await api(`/api/channels/${ch.id}/agent-tokens`, {
      method: "DELETE",
      json: { id: ch.agentTokenId },
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(await revoked.json()).toMatchObject({ closedSessions: 1 });
    await expectError(await inSession(ch, session, ch.agentToken), 401, "unauthorized");
    const count = await runInDurableObject(
      stubOf(ch),
      (_i: ChannelRelay, state) =>
        state.storage.sql.exec<{ n: number }>("SELECT count(*) AS n FROM mcp_sessions").one().n,
    );
    expect(count).toBe(0);
  });
});

describe("the token within a session", () => {
  it("answers the session's own token, and 404 to another valid token of the channel", async () => {
    const { ch, agent } = await echoChannel();
    const session = sessionOf(agent);
    expect((await inSession(ch, session, ch.agentToken)).status).toBe(200);
    const other = await newAgentToken(ch, "other");
    expect((await inSession(ch, session, other.agentToken)).status).toBe(404);
  });

  it("answers a bad token with 401 and another channel's token with 403, as outside a session", async () => {
    const { ch, agent } = await echoChannel();
    const session = sessionOf(agent);
    await expectError(await inSession(ch, session, "wha_" + "x".repeat(43)), 401, "unauthorized");
    await expectError(await inSession(ch, session, "not-a-token"), 401, "unauthorized");
    const elsewhere = await createChannel();
    await expectError(await inSession(ch, session, elsewhere.agentToken), 403, "forbidden");
  });

  it("does not trust relay headers sent by the client", async () => {
    const { ch, agent } = await echoChannel();
    const res = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionOf(agent),
        "mcp-protocol-version": "2025-11-25",
        "x-webmcp-agent-hash": "0".repeat(64),
        "x-webmcp-agent": JSON.stringify({ agentTokenId: ch.agentTokenId, agentLabel: "x", tokenHash: "0" }),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    await expectError(res, 401, "unauthorized");
  });

  it("reports an unknown tool as one JSON-RPC error whose message is the hub's own, not prefixed", async () => {
    const { ch } = await echoChannel();
    const init = await rawInitialize(ch);
    const res = await inSession(ch, init, ch.agentToken, {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "nope", arguments: {} },
    });
    const body = (await sseJson(res)) as { error: { code: number; message: string }; id: number };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32602);
    expect(body.error.message).toMatch(/^Unknown tool: nope\. Tools in this channel: echo\./);
  });
});
