// A connected OAuth app's tool policy: set by the owner on the app's grant, enforced on the app's MCP
// requests as an agent token's is (its agent is `oauth:<grantId>`), and gone with the grant.
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { HUB, authorizeFully, owner, ownedChannel } from "./oauth-helpers.js";
import { connectProvider, echoTool, type TestChannel } from "./relay-helpers.js";

async function oauthClient(channelId: string, accessToken: string): Promise<Client> {
  const client = new Client({ name: "oauth-app", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${HUB}/mcp/${channelId}`), {
      fetch: (u, init) => SELF.fetch(u, init),
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  return client;
}

describe("a connected app's policy", () => {
  it("read-only for the app: it lists and calls only read-only tools; GET reads it back", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const provider = await connectProvider({ ...ch, agentTokenId: "", mcpUrl: ch.resource } as TestChannel, {
      tools: [echoTool("look"), echoTool("buy", { annotations: { readOnlyHint: false } })],
    });
    provider.serve((call) => ({ content: [{ type: "text", text: `${call.name} ran` }] }));
    const { tokens } = await authorizeFully(who, ch);
    const apps = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, { headers: who.browser });
    const { connectedApps } = (await apps.json()) as { connectedApps: Array<{ grantId: string }> };
    const grantId = connectedApps[0]!.grantId;
    const policyUrl = `${HUB}/api/channels/${ch.id}/connected-apps/${grantId}/policy`;

    const put = await SELF.fetch(policyUrl, {
      method: "PUT",
      headers: { ...who.browser, "content-type": "application/json" },
      body: JSON.stringify({ tools: "read-only" }),
    });
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ tools: "read-only" });
    expect(await (await SELF.fetch(policyUrl, { headers: who.browser })).json()).toEqual({
      tools: "read-only",
    });
    const snapshot = (await (
      await SELF.fetch(`${HUB}/api/channels/${ch.id}`, { headers: who.browser })
    ).json()) as {
      policies: Record<string, unknown>;
    };
    expect(snapshot.policies).toEqual({ [`oauth:${grantId}`]: "read-only" });

    const app = await oauthClient(ch.id, tokens.access_token);
    expect((await app.listTools()).tools.map((t) => t.name)).toEqual(["look"]);
    const refused = await app.callTool({ name: "buy", arguments: { text: "x" } });
    expect(refused.isError).toBe(true);
    expect((refused.content as Array<{ text: string }>)[0]!.text).toMatch(/owner's policy refused/);
    expect((await app.callTool({ name: "look", arguments: { text: "x" } })).content).toEqual([
      { type: "text", text: "look ran" },
    ]);
    expect(provider.frames.flatMap((f) => (f.type === "call" ? [f.name] : []))).toEqual(["look"]);

    // Disconnecting the app forgets its policy.
    const del = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps/${grantId}`, {
      method: "DELETE",
      headers: who.browser,
    });
    expect(del.status).toBe(200);
    const after = (await (
      await SELF.fetch(`${HUB}/api/channels/${ch.id}`, { headers: who.browser })
    ).json()) as {
      policies: Record<string, unknown>;
    };
    expect(after.policies).toEqual({});
  });
});
