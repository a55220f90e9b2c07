// OAuth 2.1 for the channel MCP endpoint, through the Worker: discovery, the authorization code flow with
// PKCE and consent, tokens bound to one channel, refresh rotation, the MCP client naming the OAuth app, and
// connected apps (listed, revoked, cut off at once).
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { connectAgent, connectProvider, echoTool, type TestChannel } from "./relay-helpers.js";
import {
  HUB,
  REDIRECT,
  authorizeFully,
  authorizeUrl,
  consentOf,
  decide,
  getAuthorize,
  mcpInitialize,
  owner,
  ownedChannel,
  pkce,
  registerClient,
  standardParams,
  token,
} from "./oauth-helpers.js";

const asTestChannel = (ch: { id: string; ownerKey: string; agentToken: string; pairingCode: string }) =>
  ({ ...ch, agentTokenId: "", mcpUrl: `${HUB}/mcp/${ch.id}` }) as TestChannel;

describe("OAuth discovery", () => {
  it("answers an MCP request without credentials with 401, a Bearer challenge naming the channel's metadata, and a JSON body", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const res = await mcpInitialize(ch.id);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${HUB}/.well-known/oauth-protected-resource/mcp/${ch.id}"`,
    );
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe("unauthorized");
  });

  it("publishes the channel's protected-resource metadata and the same authorization server metadata for every channel", async () => {
    const who = await owner();
    const a = await ownedChannel(who, "A");
    const b = await ownedChannel(who, "B");
    const prm = await SELF.fetch(`${HUB}/.well-known/oauth-protected-resource/mcp/${a.id}`);
    expect(prm.status).toBe(200);
    expect(await prm.json()).toMatchObject({
      resource: a.resource,
      authorization_servers: [HUB],
      bearer_methods_supported: ["header"],
    });
    const prmB = (await (
      await SELF.fetch(`${HUB}/.well-known/oauth-protected-resource/mcp/${b.id}`)
    ).json()) as Record<string, unknown>;
    expect(Object.keys(prmB).sort()).toEqual(
      Object.keys(
        (await (
          await SELF.fetch(`${HUB}/.well-known/oauth-protected-resource/mcp/${a.id}`)
        ).json()) as object,
      ).sort(),
    );

    const as = await SELF.fetch(`${HUB}/.well-known/oauth-authorization-server`);
    expect(as.status).toBe(200);
    const metadata = (await as.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      issuer: HUB,
      authorization_endpoint: `${HUB}/authorize`,
      token_endpoint: `${HUB}/oauth/token`,
      registration_endpoint: `${HUB}/oauth/register`,
      response_types_supported: ["code"],
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(metadata).not.toHaveProperty("protected_resources");
    expect(metadata.grant_types_supported).toEqual(
      expect.arrayContaining(["authorization_code", "refresh_token"]),
    );
  });
});

describe("the authorization code flow", () => {
  it("grants a DCR client one channel after consent; the token lists and calls its tools, naming the app", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const provider = await connectProvider(asTestChannel(ch), { tools: [echoTool()] });
    const seen: string[] = [];
    provider.handler = (call, p) => {
      seen.push(call.approval?.agent ?? "");
      p.send({ type: "result", id: call.id, result: { content: [{ type: "text", text: "echoed" }] } });
    };
    const { clientId } = await registerClient({ client_name: "Claude test" });
    const p = await pkce();
    const page = await getAuthorize(authorizeUrl(standardParams(clientId, p, ch.resource)), who.browser);
    const consent = await consentOf(page);
    expect(consent.html).toContain("Claude test");
    expect(consent.html).toContain("127.0.0.1");
    expect(consent.html).toContain("Mine");
    const decided = await decide(who, consent, "approve");
    expect(decided.status).toBe(302);
    const location = new URL(decided.headers.get("location")!);
    expect(location.origin + location.pathname).toBe(REDIRECT);
    expect(location.searchParams.get("state")).toBe("state-123");
    expect(location.searchParams.get("iss")).toBe(HUB);
    const res = await token({
      grant_type: "authorization_code",
      code: location.searchParams.get("code")!,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: p.verifier,
      resource: ch.resource,
    });
    expect(res.status).toBe(200);
    const tokens = (await res.json()) as { access_token: string; refresh_token: string; token_type: string };
    expect(tokens.token_type.toLowerCase()).toBe("bearer");

    const agent = await connectAgent(asTestChannel(ch), ch.resource, tokens.access_token);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    const result = await agent.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(result.content).toEqual([{ type: "text", text: "echoed" }]);
    await agent.close();
    provider.close();
  });

  it("rotates the refresh token: the new one works, and the access token it returns opens a session", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, tokens } = await authorizeFully(who, ch);
    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      resource: ch.resource,
    });
    expect(refreshed.status).toBe(200);
    const next = (await refreshed.json()) as { access_token: string; refresh_token: string };
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await mcpInitialize(ch.id, next.access_token)).status).toBe(200);
    // Omitting `resource` on refresh keeps the grant's channel.
    const again = await token({
      grant_type: "refresh_token",
      refresh_token: next.refresh_token,
      client_id: clientId,
    });
    expect(again.status).toBe(200);
  });
});

describe("connected apps", () => {
  it("lists the app with its name and last use, names it in audit rows, and revoking it ends its open session at once", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const provider = await connectProvider(asTestChannel(ch), { tools: [echoTool()] });
    provider.serve(() => ({ content: [{ type: "text", text: "ok" }] }));
    const { clientId } = await registerClient({ client_name: "Audit app" });
    const { tokens } = await authorizeFully(who, ch, clientId);
    const agent = await connectAgent(asTestChannel(ch), ch.resource, tokens.access_token);
    await agent.callTool({ name: "echo", arguments: { text: "one" } });

    const listed = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, { headers: who.browser });
    expect(listed.status).toBe(200);
    const { connectedApps } = (await listed.json()) as {
      connectedApps: Array<{
        grantId: string;
        clientId: string;
        clientName: string;
        grantedAt: string;
        lastUsedAt: string | null;
      }>;
    };
    expect(connectedApps).toHaveLength(1);
    expect(connectedApps[0]).toMatchObject({ clientId, clientName: "Audit app" });
    expect(connectedApps[0]!.lastUsedAt).not.toBeNull();
    // The owner key sees the same list.
    const byKey = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, {
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(((await byKey.json()) as { connectedApps: unknown[] }).connectedApps).toHaveLength(1);

    const audit = await SELF.fetch(`${HUB}/api/channels/${ch.id}/audit`, { headers: who.browser });
    expect(audit.status).toBe(200);
    // The API's rows name the app as the owner knows it, not by its grant id.
    const { entries } = (await audit.json()) as {
      entries: Array<{ agent: string | null; agentTokenId: string }>;
    };
    expect(entries.map((e) => ({ agentTokenId: e.agentTokenId, agent: e.agent }))).toEqual([
      { agentTokenId: `oauth:${connectedApps[0]!.grantId}`, agent: "Audit app" },
    ]);

    const revoked = await SELF.fetch(
      `${HUB}/api/channels/${ch.id}/connected-apps/${connectedApps[0]!.grantId}`,
      {
        method: "DELETE",
        headers: who.browser,
      },
    );
    expect(revoked.status).toBe(200);
    expect(await revoked.json()).toEqual({ revoked: connectedApps[0]!.grantId, closedSessions: 1 });
    await expect(agent.callTool({ name: "echo", arguments: { text: "two" } })).rejects.toThrow();
    const after = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, { headers: who.browser });
    expect(((await after.json()) as { connectedApps: unknown[] }).connectedApps).toEqual([]);
    provider.close();
  });

  it("names an agent-token caller by its token's label in audit rows (the first token labelled for what it is)", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const provider = await connectProvider(asTestChannel(ch), { tools: [echoTool()] });
    provider.serve(() => ({ content: [{ type: "text", text: "ok" }] }));
    const agent = await connectAgent(asTestChannel(ch), ch.resource, ch.agentToken);
    await agent.callTool({ name: "echo", arguments: { text: "one" } });
    const audit = await SELF.fetch(`${HUB}/api/channels/${ch.id}/audit`, { headers: who.browser });
    const { entries } = (await audit.json()) as { entries: Array<{ agent: string | null }> };
    expect(entries.map((e) => e.agent)).toEqual(["your agent (token created with the channel)"]);
    await agent.close();
    provider.close();
  });
});
