// Channels, pairing codes and tokens: single use, expiry, rate limits, Origin binding, revocation.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers.js";
import { connectAgent, connectProvider, createChannel, HUB, pair, until } from "./relay-helpers.js";

/** A refused upgrade told in band: the error frame, then the close code. */
async function refusedInBand(res: Response): Promise<{ frame: unknown; code: number }> {
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const frames: unknown[] = [];
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  ws.addEventListener("message", (e) => frames.push(JSON.parse(e.data as string)));
  ws.accept();
  const code = await closed;
  return { frame: frames[0], code };
}

describe("creating a channel", () => {
  it("returns its secrets once, stores only their hashes, and gives working MCP URLs", async () => {
    const res = await api("/api/channels", { method: "POST", json: { name: "laptop" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.ownerKey).toMatch(/^who_[A-Za-z0-9_-]{43}$/);
    expect(body.agentToken).toMatch(/^wha_[A-Za-z0-9_-]{43}$/);
    expect(body.pairingCode).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}$/);
    expect(body.mcpUrl).toBe(`http://hub.test/mcp/${body.channel.id}`);
    expect(body.mcpCapabilityUrl).toBe(`http://hub.test/mcp/${body.channel.id}/k/${body.agentToken}`);
    const stored = JSON.stringify(
      await env.DB.prepare(
        "SELECT * FROM channels c JOIN agent_tokens a ON a.channel_id = c.id WHERE c.id = ?",
      )
        .bind(body.channel.id)
        .all(),
    );
    expect(stored).not.toContain(body.ownerKey);
    expect(stored).not.toContain(body.agentToken);
    await expectError(
      await api("/api/channels", { method: "POST", json: { name: "" } }),
      400,
      "validation_failed",
    );
    await expectError(
      await api("/api/channels", { method: "POST", json: { name: "x", strictNames: "yes" } }),
      400,
      "validation_failed",
    );
  });

  it("shows the owner its live providers, and nobody else", async () => {
    const ch = await createChannel();
    await connectProvider(ch, { label: "laptop", tools: [{ name: "t", description: "A tool." }] });
    const res = await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } });
    const body = (await res.json()) as any;
    expect(body.providers).toEqual([
      expect.objectContaining({ kind: "sidecar", label: "laptop", tools: ["t"] }),
    ]);
    expect(body.tools.map((t: any) => t.name)).toEqual(["t"]);
    await expectError(await api(`/api/channels/${ch.id}`), 401, "unauthorized");
    const other = await createChannel();
    await expectError(
      await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${other.ownerKey}` } }),
      403,
      "forbidden",
    );
    await expectError(
      await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.agentToken}` } }),
      401,
      "unauthorized",
    );
  });
});

describe("pairing", () => {
  it("redeems a code once, for a sidecar, accepting look-alike characters and a dash", async () => {
    const ch = await createChannel();
    const code = ch.pairingCode.toLowerCase().replace(/1/g, "l").replace(/0/g, "o");
    const res = await pair(code, "sidecar", undefined, "laptop");
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body).toMatchObject({
      channelId: ch.id,
      relayUrl: `ws://hub.test/relay/${ch.id}`,
      label: "laptop",
    });
    expect(body.providerToken).toMatch(/^whr_/);
    await expectError(await pair(ch.pairingCode, "sidecar"), 404, "not_found");
  });

  it("refuses malformed and expired codes", async () => {
    await expectError(await pair("123", "sidecar"), 400, "validation_failed");
    await expectError(await pair("UUUU-UUUU", "sidecar"), 400, "validation_failed");
    const ch = await createChannel();
    await env.DB.prepare("UPDATE pairing_codes SET expires_at = 0 WHERE channel_id = ?").bind(ch.id).run();
    await expectError(await pair(ch.pairingCode, "sidecar"), 404, "not_found");
  });

  it("requires a tab to pair from a page Origin, and labels it by that origin", async () => {
    const ch = await createChannel();
    await expectError(await pair(ch.pairingCode, "tab"), 400, "bad_request");
    const res = await pair(ch.pairingCode, "tab", "https://shop.example");
    expect(((await res.json()) as any).label).toBe("shop.example");
  });

  it("rate limits failed pairing attempts per client", async () => {
    const headers = { "cf-connecting-ip": "203.0.113.7" };
    let last: Response | undefined;
    for (let i = 0; i < 21; i++)
      last = await api("/api/pair", {
        method: "POST",
        json: { code: "ZZZZ-ZZZZ", kind: "sidecar" },
        headers,
      });
    const err = await expectError(last!, 429, "rate_limited");
    expect(err.message).toContain("minute");
    expect(last!.headers.get("retry-after")).toMatch(/^\d+$/);
    // Another client is not affected.
    await expectError(
      await api("/api/pair", {
        method: "POST",
        json: { code: "ZZZZ-ZZZZ", kind: "sidecar" },
        headers: { "cf-connecting-ip": "203.0.113.8" },
      }),
      404,
      "not_found",
    );
  });
});

describe("provider connections", () => {
  it("binds a tab's token to the Origin that paired it", async () => {
    const ch = await createChannel();
    const res = await pair(ch.pairingCode, "tab", "https://shop.example");
    const { providerToken } = (await res.json()) as any;
    const connect = (origin?: string) =>
      SELF.fetch(`${HUB}/relay/${ch.id}`, {
        headers: {
          upgrade: "websocket",
          "sec-websocket-protocol": `webmcp-hub.v1, ${providerToken}`,
          ...(origin ? { origin } : {}),
        },
      });
    // A page elsewhere is told in band (a browser cannot read a refused upgrade's status).
    expect(await refusedInBand(await connect("https://evil.example"))).toEqual({
      frame: { type: "error", code: "forbidden", message: expect.stringContaining("https://shop.example") },
      code: 4003,
    });
    // Without an Origin (not a browser), the plain HTTP error.
    await expectError(await connect(), 403, "forbidden");
    const ok = await connect("https://shop.example");
    expect(ok.status).toBe(101);
    ok.webSocket!.accept();
    ok.webSocket!.close();
  });

  it("refuses upgrades without a valid token, for another channel, or without the subprotocol", async () => {
    const ch = await createChannel();
    const other = await createChannel();
    const res = await pair(ch.pairingCode, "sidecar");
    const { providerToken } = (await res.json()) as any;
    const up = (channel: string, protocols: string) =>
      SELF.fetch(`${HUB}/relay/${channel}`, {
        headers: { upgrade: "websocket", "sec-websocket-protocol": protocols },
      });
    await expectError(await up(ch.id, "webmcp-hub.v1"), 401, "unauthorized");
    await expectError(await up(ch.id, `webmcp-hub.v1, whr_${"x".repeat(43)}`), 401, "unauthorized");
    await expectError(await up(other.id, `webmcp-hub.v1, ${providerToken}`), 403, "forbidden");
    await expectError(await up(ch.id, providerToken), 400, "bad_request");
    await expectError(await SELF.fetch(`${HUB}/relay/${ch.id}`), 400, "bad_request");
  });

  it("tells a page in band that its token is no longer accepted (close 4001), so the bridge can say so", async () => {
    const ch = await createChannel();
    const res = await pair(ch.pairingCode, "tab", "https://shop.example");
    const { providerToken } = (await res.json()) as any;
    const tokenId = (await env.DB.prepare("SELECT id FROM provider_tokens WHERE channel_id = ?")
      .bind(ch.id)
      .first<{ id: string }>())!.id;
    const revoked = await api(`/api/channels/${ch.id}/providers/${tokenId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(revoked.status).toBe(200);
    const upgrade = await SELF.fetch(`${HUB}/relay/${ch.id}`, {
      headers: {
        upgrade: "websocket",
        "sec-websocket-protocol": `webmcp-hub.v1, ${providerToken}`,
        origin: "https://shop.example",
      },
    });
    expect(upgrade.headers.get("sec-websocket-protocol")).toBe("webmcp-hub.v1");
    expect(await refusedInBand(upgrade)).toEqual({
      frame: { type: "error", code: "unauthorized", message: expect.stringContaining("revoked") },
      code: 4001,
    });
    // Nothing was connected.
    const snapshot = (await (
      await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } })
    ).json()) as { providers: unknown[] };
    expect(snapshot.providers).toEqual([]);
  });

  it("closes a provider's live connection when the owner revokes its token", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [{ name: "t", description: "A tool." }] });
    const state = (await (
      await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } })
    ).json()) as any;
    const tokenId = state.providers[0].tokenId;
    const res = await api(`/api/channels/${ch.id}/providers/${tokenId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(await res.json()).toMatchObject({ closedConnections: 1 });
    await until(() => provider.closed, "the hub to close the provider's socket");
    expect(provider.closed).toBe(true);
    const after = (await (
      await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } })
    ).json()) as any;
    expect(after.providers).toEqual([]);
    const again = await SELF.fetch(`${HUB}/relay/${ch.id}`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": `webmcp-hub.v1, ${provider.providerToken}` },
    });
    await expectError(again, 401, "unauthorized");
  });
});

describe("agent tokens", () => {
  it("creates, lists and revokes agent tokens; a revoked token ends its sessions and is refused", async () => {
    const ch = await createChannel();
    const created = (await (
      await api(`/api/channels/${ch.id}/agent-tokens`, {
        method: "POST",
        json: { label: "claude" },
        headers: { authorization: `Bearer ${ch.ownerKey}` },
      })
    ).json()) as any;
    expect(created.agentToken).toMatch(/^wha_/);
    const list = (await (
      await api(`/api/channels/${ch.id}/agent-tokens`, {
        headers: { authorization: `Bearer ${ch.ownerKey}` },
      })
    ).json()) as any;
    expect(list.agentTokens.map((t: any) => t.label).sort()).toEqual([
      "claude",
      "your agent (token created with the channel)",
    ]);
    const agent = await connectAgent(ch, `${HUB}/mcp/${ch.id}`, created.agentToken);
    await agent.listTools();
    const revoked = await api(`/api/channels/${ch.id}/agent-tokens`, {
      method: "DELETE",
      json: { id: created.id },
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(await revoked.json()).toMatchObject({ revoked: created.id, closedSessions: 1 });
    await expect(agent.listTools()).rejects.toThrow();
    const res = await SELF.fetch(`${HUB}/mcp/${ch.id}`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${created.agentToken}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: "{}",
    });
    await expectError(res, 401, "unauthorized");
    await expectError(
      await api(`/api/channels/${ch.id}/agent-tokens`, {
        method: "DELETE",
        json: { id: created.id },
        headers: { authorization: `Bearer ${ch.ownerKey}` },
      }),
      404,
      "not_found",
    );
  });
});
