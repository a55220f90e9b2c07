// Who may call what: each agent's tool policy and the channel's pause switch, set by
// the owner over the API, enforced in the channel's object for both MCP eras and plain HTTP calls. A refused
// call is an isError saying why, audited `denied`, and never reaches a provider.
import type { Client } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers.js";
import {
  connectAgent,
  connectProvider,
  createChannel,
  echoTool,
  until,
  type TestChannel,
  type TestProvider,
} from "./relay-helpers.js";

const owner = (ch: TestChannel) => ({ authorization: `Bearer ${ch.ownerKey}` });

/** A channel whose sidecar offers `look` (read-only), `buy` and `sell` (not read-only), answering every call. */
async function shop(): Promise<{ ch: TestChannel; provider: TestProvider }> {
  const ch = await createChannel();
  const provider = await connectProvider(ch, {
    tools: [
      echoTool("look"),
      echoTool("buy", { annotations: { readOnlyHint: false } }),
      echoTool("sell", { annotations: { readOnlyHint: false } }),
    ],
  });
  provider.serve((call) => ({ content: [{ type: "text", text: `${call.name} ran` }] }));
  return { ch, provider };
}

async function secondToken(ch: TestChannel): Promise<{ id: string; token: string }> {
  const res = await api(`/api/channels/${ch.id}/agent-tokens`, {
    method: "POST",
    headers: owner(ch),
    json: { label: "second agent" },
  });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { id: string; agentToken: string };
  return { id: body.id, token: body.agentToken };
}

function putPolicy(ch: TestChannel, tokenId: string, tools: unknown): Promise<Response> {
  return api(`/api/channels/${ch.id}/agent-tokens/${tokenId}/policy`, {
    method: "PUT",
    headers: owner(ch),
    json: { tools },
  });
}

async function names(agent: Client): Promise<string[]> {
  return (await agent.listTools()).tools.map((t) => t.name);
}

async function plainCall(ch: TestChannel, token: string, name: string) {
  const res = await api(`/api/channels/${ch.id}/calls`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}` },
    json: { name, arguments: { text: "x" } },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: Array<{ status: string; result: any }> }).results[0]!;
}

function callsSent(provider: TestProvider): string[] {
  return provider.frames.flatMap((f) => (f.type === "call" ? [f.name] : []));
}

async function auditStatuses(ch: TestChannel): Promise<Array<[string, string]>> {
  const res = await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch) });
  const body = (await res.json()) as { entries: Array<{ tool: string; status: string }> };
  return body.entries.map((e) => [e.tool, e.status]);
}

describe("per-agent tool policies", () => {
  it("one agent read-only, another a chosen list: both eras list and call only those, plain HTTP too", async () => {
    const { ch, provider } = await shop();
    const b = await secondToken(ch);
    expect(await (await putPolicy(ch, ch.agentTokenId, "read-only")).json()).toEqual({ tools: "read-only" });
    expect(await (await putPolicy(ch, b.id, { allow: ["sell"] })).json()).toEqual({
      tools: { allow: ["sell"] },
    });
    const read = await api(`/api/channels/${ch.id}/agent-tokens/${b.id}/policy`, { headers: owner(ch) });
    expect(await read.json()).toEqual({ tools: { allow: ["sell"] } });

    for (const era of ["legacy", "modern"] as const) {
      const a = await connectAgent(ch, undefined, ch.agentToken, undefined, { era });
      const other = await connectAgent(ch, undefined, b.token, undefined, { era });
      expect(await names(a)).toEqual(["look"]);
      expect(await names(other)).toEqual(["sell"]);
      expect((await a.callTool({ name: "look", arguments: { text: "x" } })).content).toEqual([
        { type: "text", text: "look ran" },
      ]);
      const refused = await a.callTool({ name: "buy", arguments: { text: "x" } });
      expect(refused.isError).toBe(true);
      expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(
        /owner's policy refused this call to buy: it lets this agent call only read-only tools/,
      );
      const notListed = await other.callTool({ name: "look", arguments: { text: "x" } });
      expect(notListed.isError).toBe(true);
      expect((notListed.content as Array<{ text: string }>)[0]!.text).toMatch(/does not list this tool/);
      expect((await other.callTool({ name: "sell", arguments: { text: "x" } })).isError).toBeFalsy();
    }
    const plain = await plainCall(ch, ch.agentToken, "sell");
    expect(plain.status).toBe("denied");
    expect(plain.result.content[0].text).toMatch(/owner's policy refused/);
    // Refused calls never reached the provider; allowed ones did.
    expect(callsSent(provider).sort()).toEqual(["look", "look", "sell", "sell"]);
    const audit = await auditStatuses(ch);
    expect(audit.filter(([, s]) => s === "denied")).toHaveLength(5);
  });

  it("`none` hides every tool and refuses every call; `all` gives them back", async () => {
    const { ch, provider } = await shop();
    await putPolicy(ch, ch.agentTokenId, "none");
    const agent = await connectAgent(ch);
    expect(await names(agent)).toEqual([]);
    const refused = await agent.callTool({ name: "look", arguments: { text: "x" } });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/lets this agent call no tools/);
    expect(callsSent(provider)).toEqual([]);
    expect(await (await putPolicy(ch, ch.agentTokenId, "all")).json()).toEqual({ tools: "all" });
    expect(await names(agent)).toEqual(["buy", "look", "sell"]);
  });

  it("a change reaches that agent at once (list_changed, both eras) and not the others", async () => {
    const { ch, provider } = await shop();
    const b = await secondToken(ch);
    const heard = { a: 0, aNow: 0, b: 0, bNow: 0 };
    const listen = async (token: string, era: "legacy" | "modern", key: keyof typeof heard) => {
      const client = await connectAgent(ch, undefined, token, undefined, { era });
      client.setNotificationHandler("notifications/tools/list_changed", () => void heard[key]++);
      if (era === "modern") await client.listen({ toolsListChanged: true });
      else await client.listTools(); // the session's GET stream opens after initialization
      return client;
    };
    await listen(ch.agentToken, "legacy", "a");
    await listen(ch.agentToken, "modern", "aNow");
    await listen(b.token, "legacy", "b");
    await listen(b.token, "modern", "bNow");
    // Everyone's stream is open: a change for all reaches all.
    provider.send({
      type: "tools",
      tools: [
        echoTool("look"),
        echoTool("buy", { annotations: { readOnlyHint: false } }),
        echoTool("sell", { annotations: { readOnlyHint: false } }),
        echoTool("extra"),
      ],
    });
    await until(() => Object.values(heard).every((n) => n >= 1), "everyone hearing the new tool");
    const before = { ...heard };

    expect((await putPolicy(ch, ch.agentTokenId, "read-only")).status).toBe(200);
    await until(() => heard.a > before.a && heard.aNow > before.aNow, "agent A hearing its policy change");
    expect((await putPolicy(ch, b.id, { allow: ["extra"] })).status).toBe(200);
    await until(() => heard.b > before.b && heard.bNow > before.bNow, "agent B hearing its policy change");
    // On each stream notifications arrive in order: had A's change reached B, B would have heard two.
    expect({ b: heard.b - before.b, bNow: heard.bNow - before.bNow }).toEqual({ b: 1, bNow: 1 });
    expect({ a: heard.a - before.a, aNow: heard.aNow - before.aNow }).toEqual({ a: 1, aNow: 1 });
  });

  it("refuses what it cannot apply: an unknown tool name (422 naming it), another channel's token (404), a bad body", async () => {
    const { ch } = await shop();
    const unknown = await putPolicy(ch, ch.agentTokenId, { allow: ["look", "nope"] });
    const error = await expectError(unknown, 422, "unknown_tool");
    expect(error.message).toMatch(/"nope"/);
    expect(error.issues).toEqual([
      { path: "tools.allow.1", message: 'The channel has no tool named "nope".' },
    ]);
    // Nothing changed.
    const read = await api(`/api/channels/${ch.id}/agent-tokens/${ch.agentTokenId}/policy`, {
      headers: owner(ch),
    });
    expect(await read.json()).toEqual({ tools: "all" });

    const other = await createChannel();
    await expectError(await putPolicy(ch, other.agentTokenId, "none"), 404, "not_found");
    await expectError(await putPolicy(ch, ch.agentTokenId, "some"), 400, "validation_failed");
    await expectError(
      await api(`/api/channels/${ch.id}/connected-apps/no-such-grant/policy`, { headers: owner(ch) }),
      404,
      "not_found",
    );
    // Only the owner sets policies.
    const asAgent = await api(`/api/channels/${ch.id}/agent-tokens/${ch.agentTokenId}/policy`, {
      method: "PUT",
      headers: { authorization: `Bearer ${ch.agentToken}` },
      json: { tools: "all" },
    });
    expect(asAgent.status).toBe(401);
  });
});

describe("pausing a channel", () => {
  it("refuses every agent call at once while paused, keeps providers connected, and resumes", async () => {
    const { ch, provider } = await shop();
    const legacy = await connectAgent(ch);
    const modern = await connectAgent(ch, undefined, undefined, undefined, { era: "modern" });
    const paused = await api(`/api/channels/${ch.id}/pause`, { method: "POST", headers: owner(ch) });
    expect(paused.status).toBe(200);
    const { paused: since } = (await paused.json()) as { paused: string };
    expect(Date.parse(since)).toBeGreaterThan(0);

    for (const agent of [legacy, modern]) {
      // Tools are still listed; calling them is refused, even a name the channel does not have.
      expect(await names(agent)).toEqual(["buy", "look", "sell"]);
      for (const name of ["look", "buy", "missing"]) {
        const result = await agent.callTool({ name, arguments: { text: "x" } });
        expect(result.isError).toBe(true);
        expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/paused by the channel's owner/);
      }
    }
    const plain = await plainCall(ch, ch.agentToken, "buy");
    expect(plain).toMatchObject({ status: "denied" });
    expect(callsSent(provider)).toEqual([]);
    expect(provider.closed).toBe(false);

    const snapshot = (await (await api(`/api/channels/${ch.id}`, { headers: owner(ch) })).json()) as any;
    expect(snapshot.paused).toBe(since);
    expect(snapshot.providers).toHaveLength(1);

    const resumed = await api(`/api/channels/${ch.id}/resume`, { method: "POST", headers: owner(ch) });
    expect(await resumed.json()).toEqual({ paused: null });
    expect((await legacy.callTool({ name: "look", arguments: { text: "x" } })).content).toEqual([
      { type: "text", text: "look ran" },
    ]);
    expect(callsSent(provider)).toEqual(["look"]);
    expect((await auditStatuses(ch)).filter(([, s]) => s === "denied")).toHaveLength(7);
    // The switch is the owner's.
    const asAgent = await api(`/api/channels/${ch.id}/pause`, {
      method: "POST",
      headers: { authorization: `Bearer ${ch.agentToken}` },
    });
    expect(asAgent.status).toBe(401);
  });
});
