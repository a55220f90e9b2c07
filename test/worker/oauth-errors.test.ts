// Bad input at every OAuth step, through the Worker: what the caller sees (a redirect with an RFC 6749 error
// only once the client and its redirect URI are known, a local page otherwise, an OAuth error body at the
// token endpoint, a Bearer challenge at the MCP endpoint) and that nothing was stored.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { signedInAccount } from "./account-helpers.js";
import { createChannel } from "./relay-helpers.js";
import {
  HUB,
  REDIRECT,
  authorizeFully,
  authorizeUrl,
  consentOf,
  decide,
  getAuthorize,
  mcpInitialize,
  oauthKeys,
  owner,
  ownedChannel,
  pkce,
  registerClient,
  standardParams,
  token,
} from "./oauth-helpers.js";

const grantsOf = async (accountId: string) =>
  (await oauthKeys()).filter((k) => k.startsWith(`grant:${accountId}:`));

/** The client's redirect with an OAuth error: its `error`, the request's `state`, and `iss`. */
function expectErrorRedirect(res: Response, error: string) {
  expect(res.status).toBe(302);
  const location = new URL(res.headers.get("location")!);
  expect(location.origin + location.pathname).toBe(REDIRECT);
  expect(location.searchParams.get("error")).toBe(error);
  expect(location.searchParams.get("state")).toBe("state-123");
  expect(location.searchParams.get("iss")).toBe(HUB);
  expect(location.searchParams.get("code")).toBeNull();
}

async function expectOAuthError(res: Response, status: number, error: string) {
  const body = (await res.json()) as { error: string; error_description?: string };
  expect({ status: res.status, error: body.error }).toEqual({ status, error });
}

describe("the authorize endpoint refuses", () => {
  it("response_type=token with unsupported_response_type at the client, storing nothing", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const p = await pkce();
    const res = await getAuthorize(
      authorizeUrl(standardParams(clientId, p, ch.resource, { response_type: "token" })),
      who.browser,
    );
    expectErrorRedirect(res, "unsupported_response_type");
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("a request without PKCE, or with the plain method, with invalid_request", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const p = await pkce();
    const missing = await getAuthorize(
      authorizeUrl(
        standardParams(clientId, p, ch.resource, {
          code_challenge: undefined,
          code_challenge_method: undefined,
        }),
      ),
      who.browser,
    );
    expectErrorRedirect(missing, "invalid_request");
    const plain = await getAuthorize(
      authorizeUrl(standardParams(clientId, p, ch.resource, { code_challenge_method: "plain" })),
      who.browser,
    );
    expectErrorRedirect(plain, "invalid_request");
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("an unregistered redirect_uri or an unknown client on the hub's own page, never redirecting", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const p = await pkce();
    for (const params of [
      standardParams(clientId, p, ch.resource, { redirect_uri: "https://evil.example/cb" }),
      standardParams("no-such-client", p, ch.resource),
      standardParams(clientId, p, ch.resource, { redirect_uri: undefined }),
    ]) {
      const res = await getAuthorize(authorizeUrl(params), who.browser);
      expect(res.status).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      const html = await res.text();
      expect(html).toContain("invalid_request");
      expect(html).not.toContain("evil.example/cb?");
    }
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("a resource that is no channel of this hub, or several, with invalid_target", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const p = await pkce();
    for (const resource of [
      `${HUB}/mcp/nochannel000000`,
      "https://other.example/mcp/abc",
      `${HUB}/mcp`,
      [ch.resource, `${HUB}/mcp/nochannel000000`],
    ]) {
      const res = await getAuthorize(
        authorizeUrl(standardParams(clientId, p, undefined, { resource })),
        who.browser,
      );
      expectErrorRedirect(res, "invalid_target");
    }
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("sends a visitor who is not signed in to sign in, and back", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const url = authorizeUrl(standardParams(clientId, await pkce(), ch.resource));
    const res = await getAuthorize(url);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!, HUB);
    expect(location.pathname).toBe("/signin");
    expect(location.searchParams.get("return_to")).toBe(url.slice(HUB.length));
  });

  it("a channel no account owns: says how to claim it, grants nothing", async () => {
    const who = await owner();
    const anonymous = await createChannel();
    const { clientId } = await registerClient();
    const res = await getAuthorize(
      authorizeUrl(standardParams(clientId, await pkce(), `${HUB}/mcp/${anonymous.id}`)),
      who.browser,
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Claim this channel first");
    expect(html).toContain("owner key");
    expect(html).not.toContain('name="handle"');
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("another account's channel: 403, no consent form", async () => {
    const who = await owner();
    const stranger = await owner("Stranger");
    const theirs = await ownedChannel(stranger);
    const { clientId } = await registerClient();
    const res = await getAuthorize(
      authorizeUrl(standardParams(clientId, await pkce(), theirs.resource)),
      who.browser,
    );
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('name="handle"');
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("offers a picker of the account's channels when the client names none", async () => {
    const who = await owner();
    const a = await ownedChannel(who, "Alpha");
    const b = await ownedChannel(who, "Beta");
    const { clientId } = await registerClient();
    const res = await getAuthorize(
      authorizeUrl(standardParams(clientId, await pkce(), undefined)),
      who.browser,
    );
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`value="${a.resource}"`);
    expect(html).toContain(`value="${b.resource}"`);
    expect(html).not.toContain('name="handle"');
    // The picker re-submits the same request with the chosen channel as `resource`: then comes consent.
    const chosen = authorizeUrl(standardParams(clientId, await pkce(), b.resource));
    await consentOf(await getAuthorize(chosen, who.browser));
  });
});

describe("the consent decision", () => {
  it("Deny: access_denied at the client, with state and iss, and no grant", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), who.browser),
    );
    expectErrorRedirect(await decide(who, consent, "deny"), "access_denied");
    expect(await grantsOf(who.accountId)).toEqual([]);
  });

  it("refuses a decision from another Origin, or none, and the form still works from the hub afterwards", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), who.browser),
    );
    const foreign = await decide(who, consent, "approve", { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe("forbidden");
    expect(await grantsOf(who.accountId)).toEqual([]);
    expect((await decide(who, consent, "approve")).status).toBe(302);
  });

  it("refuses a handle without its browser's binding cookie, or used twice", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), who.browser),
    );
    const unbound = await decide(who, { handle: consent.handle, cookie: "x=y" }, "approve");
    expect(unbound.status).toBe(400);
    expect(await unbound.text()).toContain("expired");
    expect(await grantsOf(who.accountId)).toEqual([]);
    expect((await decide(who, consent, "approve")).status).toBe(302);
    const again = await decide(who, consent, "approve");
    expect(again.status).toBe(400);
    expect((await grantsOf(who.accountId)).length).toBe(1);
  });
});

describe("the token endpoint refuses", () => {
  it("a reused code with invalid_grant", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, code, p } = await authorizeFully(who, ch);
    const res = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: p.verifier,
    });
    await expectOAuthError(res, 400, "invalid_grant");
  });

  // A code's 10 minutes are the OAuth store's KV expiration (the library keeps no time on the code itself), so
  // only a real 10-minute wait could show it; an access token carries its expiry and is checked against the clock.
  it("an expired access token with 401 invalid_token", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { tokens } = await authorizeFully(who, ch);
    expect((await mcpInitialize(ch.id, tokens.access_token)).status).toBe(200);
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      // Access tokens live an hour.
      vi.setSystemTime(Date.now() + 61 * 60_000);
      const res = await mcpInitialize(ch.id, tokens.access_token);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toContain('error="invalid_token"');
    } finally {
      vi.useRealTimers();
    }
  });

  it("a wrong verifier with invalid_grant, and the code is not spent by it", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const p = await pkce();
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, p, ch.resource)), who.browser),
    );
    const code = new URL((await decide(who, consent, "approve")).headers.get("location")!).searchParams.get(
      "code",
    )!;
    const wrong = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
      code_verifier: (await pkce()).verifier,
    });
    await expectOAuthError(wrong, 400, "invalid_grant");
    expect((await oauthKeys()).filter((k) => k.startsWith(`token:${who.accountId}:`))).toEqual([]);
  });

  it("a code with another channel's resource, or a resource that is no channel, with invalid_target", async () => {
    const who = await owner();
    const a = await ownedChannel(who, "A");
    const b = await ownedChannel(who, "B");
    const { clientId } = await registerClient();
    for (const resource of [b.resource, `${HUB}/mcp/nochannel000000`]) {
      const p = await pkce();
      const consent = await consentOf(
        await getAuthorize(authorizeUrl(standardParams(clientId, p, a.resource)), who.browser),
      );
      const code = new URL((await decide(who, consent, "approve")).headers.get("location")!).searchParams.get(
        "code",
      )!;
      const res = await token({
        grant_type: "authorization_code",
        code,
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: p.verifier,
        resource,
      });
      await expectOAuthError(res, 400, "invalid_target");
    }
    expect((await oauthKeys()).filter((k) => k.startsWith(`token:${who.accountId}:`))).toEqual([]);
  });

  it("an unknown client with invalid_client, a code exchange without a code with invalid_request, a made-up code with invalid_grant", async () => {
    await expectOAuthError(
      await token({
        grant_type: "authorization_code",
        code: "a:b:c",
        client_id: "nobody",
        code_verifier: "x",
      }),
      401,
      "invalid_client",
    );
    const { clientId } = await registerClient();
    await expectOAuthError(
      await token({ grant_type: "authorization_code", client_id: clientId, redirect_uri: REDIRECT }),
      400,
      "invalid_request",
    );
    await expectOAuthError(
      await token({
        grant_type: "authorization_code",
        code: "someone:somegrant:secret",
        redirect_uri: REDIRECT,
        client_id: clientId,
        code_verifier: (await pkce()).verifier,
      }),
      400,
      "invalid_grant",
    );
  });

  it("refreshing a grant whose channel left the account: invalid_grant", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, tokens } = await authorizeFully(who, ch);
    await env.DB.prepare("UPDATE channels SET account_id = NULL WHERE id = ?").bind(ch.id).run();
    await expectOAuthError(
      await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId }),
      400,
      "invalid_grant",
    );
    expect((await mcpInitialize(ch.id, tokens.access_token)).status).toBe(401);
  });
});

describe("the MCP endpoint refuses", () => {
  it("a token of another channel, and a made-up token, with 401 invalid_token and the challenge", async () => {
    const who = await owner();
    const a = await ownedChannel(who, "A");
    const b = await ownedChannel(who, "B");
    const { tokens } = await authorizeFully(who, a);
    for (const bearer of [tokens.access_token, `${who.accountId}:nogrant:secret`, "garbage"]) {
      const res = await mcpInitialize(b.id, bearer);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toBe(
        `Bearer error="invalid_token", resource_metadata="${HUB}/.well-known/oauth-protected-resource/mcp/${b.id}"`,
      );
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await mcpInitialize(a.id, tokens.access_token)).status).toBe(200);
  });

  it("a revoked token: the connected app's grant is gone, its refresh token too", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, tokens } = await authorizeFully(who, ch);
    const list = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, { headers: who.browser });
    const { connectedApps } = (await list.json()) as { connectedApps: Array<{ grantId: string }> };
    const del = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps/${connectedApps[0]!.grantId}`, {
      method: "DELETE",
      headers: who.browser,
    });
    expect(del.status).toBe(200);
    expect((await mcpInitialize(ch.id, tokens.access_token)).status).toBe(401);
    await expectOAuthError(
      await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId }),
      400,
      "invalid_grant",
    );
  });
});

describe("connected apps", () => {
  it("refuses a cookie-authenticated revocation from another Origin, and an unknown grant with 404", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    await authorizeFully(who, ch);
    const list = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, { headers: who.browser });
    const { connectedApps } = (await list.json()) as { connectedApps: Array<{ grantId: string }> };
    const foreign = await SELF.fetch(
      `${HUB}/api/channels/${ch.id}/connected-apps/${connectedApps[0]!.grantId}`,
      {
        method: "DELETE",
        headers: { ...who.browser, origin: "https://evil.example" },
      },
    );
    expect(foreign.status).toBe(403);
    const unknown = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps/nosuchgrant`, {
      method: "DELETE",
      headers: who.browser,
    });
    expect(unknown.status).toBe(404);
    expect(
      (
        (await (
          await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, { headers: who.browser })
        ).json()) as { connectedApps: unknown[] }
      ).connectedApps,
    ).toHaveLength(1);
    // Another account's session sees nothing of it.
    const stranger = await signedInAccount("Stranger");
    const theirs = await SELF.fetch(`${HUB}/api/channels/${ch.id}/connected-apps`, {
      headers: { cookie: stranger.cookie, origin: HUB },
    });
    expect(theirs.status).toBe(403);
  });
});

describe("rate limits", () => {
  it("limits client registrations and token requests per client address with 429 and Retry-After", async () => {
    const limits = JSON.parse(env.DEPLOYED_RATE_LIMITS) as Record<string, { limit: number; period: number }>;
    const ip = { "cf-connecting-ip": "203.0.113.77" };
    const register = () =>
      SELF.fetch(`${HUB}/oauth/register`, {
        method: "POST",
        headers: { "content-type": "application/json", ...ip },
        body: JSON.stringify({
          client_name: "Flood",
          redirect_uris: [REDIRECT],
          token_endpoint_auth_method: "none",
        }),
      });
    for (let i = 0; i < limits.ANON_WRITES!.limit; i++) expect((await register()).status).toBe(201);
    const before = (await oauthKeys()).filter((k) => k.startsWith("client:")).length;
    const refused = await register();
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe(String(limits.ANON_WRITES!.period));
    // The OAuth error shape, which clients parse: `error` a string, `error_description` a sentence.
    const body = (await refused.json()) as { error: string; error_description: string };
    expect(body.error).toBe("rate_limited");
    expect(body.error_description).toMatch(
      /^Too many client registrations from your address\. Wait \d+ seconds/,
    );
    expect((await oauthKeys()).filter((k) => k.startsWith("client:")).length).toBe(before);

    const tokenRequest = () =>
      SELF.fetch(`${HUB}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...ip },
        body: "grant_type=refresh_token&refresh_token=a:b:c&client_id=x",
      });
    for (let i = 0; i < limits.ANON_WRITES!.limit; i++) expect((await tokenRequest()).status).not.toBe(429);
    const limited = await tokenRequest();
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe(String(limits.ANON_WRITES!.period));
    expect(((await limited.json()) as { error: string }).error).toBe("rate_limited");
  });
});
