// The security probe's OAuth attacks, replayed through the Worker: a stolen refresh token used after rotation,
// Client ID Metadata Document fetches as a port scanner (signed out, loopback spellings, floods), a consent
// POST without a form, a client name that reorders itself, oversized and abandoned registrations, and scopes
// the hub does not define. Each test fails on the hub as the probe found it.
import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/worker/app.js";
import { fakeOrigin } from "./helpers.js";
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
  type Owner,
} from "./oauth-helpers.js";

const grantsOf = async (accountId: string) =>
  (await oauthKeys()).filter((k) => k.startsWith(`grant:${accountId}:`));

async function oauthError(res: Response): Promise<{ status: number; error: string; description: string }> {
  const body = (await res.json()) as { error: string; error_description?: string };
  return { status: res.status, error: body.error, description: body.error_description ?? "" };
}

const refresh = (refreshToken: string, clientId: string) =>
  token({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });

describe("refresh-token reuse", () => {
  it("a thief replaying a refresh token the client already rotated gets nothing, and the grant dies for both", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, tokens } = await authorizeFully(who, ch);
    const rt0 = tokens.refresh_token;
    // The client refreshes RT0 → RT1.
    const clientRefresh = await refresh(rt0, clientId);
    expect(clientRefresh.status).toBe(200);
    const client = (await clientRefresh.json()) as { access_token: string; refresh_token: string };
    expect((await mcpInitialize(ch.id, client.access_token)).status).toBe(200);
    // The thief replays RT0: refused, and the whole grant is revoked.
    const thief = await oauthError(await refresh(rt0, clientId));
    expect(thief.status).toBe(400);
    expect(thief.error).toBe("invalid_grant");
    expect(thief.description).toMatch(/already used/);
    expect(await grantsOf(who.accountId)).toEqual([]);
    // The client's RT1 and its access token die with it.
    expect((await oauthError(await refresh(client.refresh_token, clientId))).error).toBe("invalid_grant");
    expect((await mcpInitialize(ch.id, client.access_token)).status).toBe(401);
  });

  it("a thief who refreshes first loses its tokens when the client presents the rotated one", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, tokens } = await authorizeFully(who, ch);
    const stolen = await refresh(tokens.refresh_token, clientId);
    expect(stolen.status).toBe(200);
    const thief = (await stolen.json()) as { access_token: string; refresh_token: string };
    // The thief rotates once more, so the client's token is no longer even the previous one.
    const again = await refresh(thief.refresh_token, clientId);
    expect(again.status).toBe(200);
    const thief2 = (await again.json()) as { access_token: string; refresh_token: string };
    expect((await mcpInitialize(ch.id, thief2.access_token)).status).toBe(200);
    // The client comes back with the token it was given first: a reuse, so everything is revoked.
    expect((await oauthError(await refresh(tokens.refresh_token, clientId))).error).toBe("invalid_grant");
    expect(await grantsOf(who.accountId)).toEqual([]);
    expect((await oauthError(await refresh(thief2.refresh_token, clientId))).error).toBe("invalid_grant");
    expect((await mcpInitialize(ch.id, thief2.access_token)).status).toBe(401);
    expect((await mcpInitialize(ch.id, thief.access_token)).status).toBe(401);
  });

  it("an honest client that rotates every time keeps working", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, tokens } = await authorizeFully(who, ch);
    let current = tokens.refresh_token;
    for (let i = 0; i < 3; i++) {
      const res = await refresh(current, clientId);
      expect(res.status).toBe(200);
      current = ((await res.json()) as { refresh_token: string }).refresh_token;
    }
    expect((await grantsOf(who.accountId)).length).toBe(1);
  });
});

// --- Client ID Metadata Documents -------------------------------------------------------------------------

const cimdDocument = (clientId: string, name = "Metadata app") =>
  JSON.stringify({
    client_id: clientId,
    client_name: name,
    redirect_uris: [REDIRECT],
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  });

/** A fake origin serving a valid document at /client.json for the client id `base + /client.json`. */
async function documentAt(base: (port: number) => string) {
  const o = await fakeOrigin();
  const clientId = `${base(o.port)}/client.json`;
  await o.setRoutes({
    "/client.json": { headers: { "content-type": "application/json" }, body: cimdDocument(clientId) },
  });
  return { clientId, origin: o };
}

/** The app as deployed: private origins not allowed (the test pool turns them on, as `npm start` does). */
const deployedApp = createApp();
const deployedEnv = { ...env, ALLOW_PRIVATE_ORIGINS: "false" } as Env;
async function asDeployed(url: string, init: RequestInit = {}): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await deployedApp.fetch(new Request(url, { redirect: "manual", ...init }), deployedEnv, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("Client ID Metadata Document fetches", () => {
  it("fetch nothing for a visitor who is not signed in: sign in first", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, origin } = await documentAt((port) => `https://${port}.cimd.test`);
    const url = authorizeUrl(standardParams(clientId, await pkce(), ch.resource));
    const res = await getAuthorize(url);
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("location")!, HUB).pathname).toBe("/signin");
    expect(await origin.hits()).toEqual([]);
    // Signed in, the same request reads the document once and shows consent.
    await consentOf(await getAuthorize(url, who.browser));
    expect((await origin.hits()).length).toBeGreaterThan(0);
  });

  it("in local mode a loopback client id is fetched (the switch site verification uses)", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId, origin } = await documentAt((port) => `https://127.0.0.1:${port}`);
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), who.browser),
    );
    expect(consent.html).toContain("Metadata app");
    expect((await origin.hits()).length).toBeGreaterThan(0);
  });

  it("as deployed, refuses every spelling of loopback and private addresses before any fetch", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const o = await fakeOrigin();
    const p = o.port;
    const spellings = [
      `https://127.1:${p}`,
      `https://0x7f000001:${p}`,
      `https://2130706433:${p}`,
      `https://0177.0.0.1:${p}`,
      `https://localhost:${p}`,
      `https://[::1]:${p}`,
      `https://127.0.0.1:${p}`,
      "https://127.1",
      "https://localhost",
      "https://app.localhost",
      "https://[::ffff:127.0.0.1]",
      "https://10.0.0.1",
      "https://169.254.169.254",
    ];
    for (const base of spellings) {
      const clientId = `${base}/client.json`;
      await o.setRoutes({
        "/client.json": { headers: { "content-type": "application/json" }, body: cimdDocument(clientId) },
      });
      const res = await asDeployed(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), {
        headers: who.browser,
      });
      const html = await res.text();
      expect(res.status, `${base}: ${html.slice(0, 300)}`).toBe(400);
      expect(html, base).toContain("This app could not be verified");
      expect(html, base).toMatch(/public/);
      expect(html, base).toContain("Nothing was fetched");
      expect(html, base).not.toContain('name="handle"');
      // The token endpoint refuses such a client id too, without fetching it.
      const tokenRes = await asDeployed(`${HUB}/oauth/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: "a:b:c",
          client_id: clientId,
          redirect_uri: REDIRECT,
          code_verifier: "x".repeat(43),
        }).toString(),
      });
      expect((await oauthError(tokenRes)).error, base).toBe("invalid_client");
    }
    expect(await o.hits()).toEqual([]);
  });

  it("limits document look-ups per account before fetching, with 429 and Retry-After", async () => {
    const limits = JSON.parse(env.DEPLOYED_RATE_LIMITS) as Record<string, { limit: number; period: number }>;
    const { limit, period } = limits.ANON_WRITES!;
    // The binding's windows are fixed: a burst that straddles a boundary is run again with a fresh account.
    for (let attempt = 0; attempt < 3; attempt++) {
      const window = Math.floor(Date.now() / (period * 1000));
      const who = await owner();
      const ch = await ownedChannel(who);
      const { clientId, origin } = await documentAt((port) => `https://${port}.cimd.test`);
      const url = authorizeUrl(standardParams(clientId, await pkce(), ch.resource));
      const statuses: number[] = [];
      for (let i = 0; i < limit; i++) {
        const res = await getAuthorize(url, who.browser);
        statuses.push(res.status);
        await res.body?.cancel();
      }
      const hitsBefore = (await origin.hits()).length;
      const refused = await getAuthorize(url, who.browser);
      if (Math.floor(Date.now() / (period * 1000)) !== window) continue;
      expect(statuses.every((s) => s === 200)).toBe(true);
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toBe(String(period));
      expect(await refused.text()).toContain("Too many");
      expect((await origin.hits()).length).toBe(hitsBefore);
      return;
    }
    throw new Error("three bursts in a row straddled a rate-limit window");
  });
});

// --- the consent decision's body ----------------------------------------------------------------------------

describe("POST /authorize without a form", () => {
  it("answers a JSON, text or empty body from a signed-in browser on the hub's Origin with 400 and says why", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), who.browser),
    );
    const bodies: Array<[string | undefined, string | undefined]> = [
      ["application/json", JSON.stringify({ handle: consent.handle, decision: "approve" })],
      ["text/plain", `handle=${consent.handle}&decision=approve`],
      [undefined, undefined],
      ["multipart/form-data; boundary=nope", "not multipart at all"],
    ];
    for (const [type, body] of bodies) {
      const res = await SELF.fetch(`${HUB}/authorize`, {
        method: "POST",
        redirect: "manual",
        headers: {
          ...who.browser,
          cookie: `${who.cookie}; ${consent.cookie}`,
          ...(type ? { "content-type": type } : {}),
        },
        ...(body !== undefined ? { body } : {}),
      });
      const html = await res.text();
      expect(res.status, `${type}: ${html.slice(0, 300)}`).toBe(400);
      expect(html).toContain("consent form");
    }
    expect(await grantsOf(who.accountId)).toEqual([]);
    // The page still works with its own form afterwards.
    expect((await decide(who, consent, "approve")).status).toBe(302);
  });
});

// --- the client's name --------------------------------------------------------------------------------------

async function connectedApps(who: Owner, channelId: string) {
  const res = await SELF.fetch(`${HUB}/api/channels/${channelId}/connected-apps`, { headers: who.browser });
  expect(res.status).toBe(200);
  return ((await res.json()) as { connectedApps: Array<{ clientName: string }> }).connectedApps;
}

describe("the consent page's client name", () => {
  it("drops bidi and control characters from client_name, says the name is the app's own claim, and keeps it clean", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient({ client_name: "Claude\u202Eevil\u0007\u200B app\u2066" });
    const consent = await consentOf(
      await getAuthorize(authorizeUrl(standardParams(clientId, await pkce(), ch.resource)), who.browser),
    );
    expect(consent.html).not.toMatch(
      /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/,
    );
    expect(consent.html).toContain("Claude evil app");
    expect(consent.html).toMatch(/name is the app(&#39;|')s own claim/);
    expect((await decide(who, consent, "approve")).status).toBe(302);
    // The grant keeps the clean name: the console and audit rows show what the page showed.
    expect((await connectedApps(who, ch.id)).map((a) => a.clientName)).toEqual(["Claude evil app"]);
  });
});

// --- dynamic client registration ------------------------------------------------------------------------

const register = (metadata: Record<string, unknown>) =>
  SELF.fetch(`${HUB}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "Flood", token_endpoint_auth_method: "none", ...metadata }),
  });

async function clientExpiry(clientId: string): Promise<number | undefined> {
  const page = await env.OAUTH_KV.list({ prefix: `client:${clientId}` });
  return page.keys.find((k) => k.name === `client:${clientId}`)?.expiration;
}

describe("dynamic client registration", () => {
  it("refuses more redirect URIs than the cap, and metadata over the size cap, storing nothing", async () => {
    const before = (await oauthKeys()).filter((k) => k.startsWith("client:"));
    const many = Array.from({ length: 1000 }, (_, i) => `https://app.example/cb/${i}`);
    const manyUris = await register({ redirect_uris: many });
    expect(await oauthError(manyUris)).toMatchObject({ status: 400, error: "invalid_client_metadata" });
    const eleven = await register({ redirect_uris: many.slice(0, 11) });
    expect((await oauthError(eleven)).description).toMatch(/at most 10 redirect URIs/);
    const big = await register({
      redirect_uris: [REDIRECT],
      client_uri: `https://app.example/${"a".repeat(9000)}`,
    });
    expect(await oauthError(big)).toMatchObject({ status: 400, error: "invalid_client_metadata" });
    expect(
      (await oauthError(await register({ redirect_uris: [REDIRECT], contacts: ["x".repeat(9000)] })))
        .description,
    ).toMatch(/KiB/);
    expect((await oauthKeys()).filter((k) => k.startsWith("client:"))).toEqual(before);
    // Ten URIs and ordinary metadata register.
    expect((await register({ redirect_uris: many.slice(0, 10) })).status).toBe(201);
  });

  it("a client that never completes a grant expires within a day; one that does lives as long as its grant", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    const now = Date.now() / 1000;
    const unused = await clientExpiry(clientId);
    expect(unused).toBeDefined();
    expect(unused!).toBeLessThanOrEqual(now + 24 * 3600 + 120);
    await authorizeFully(who, ch, clientId);
    const kept = await clientExpiry(clientId);
    expect(kept!).toBeGreaterThanOrEqual(now + 30 * 24 * 3600);
    // Still usable after the rewrite: another consent and token exchange work.
    await authorizeFully(who, ch, clientId);
  });
});

// --- scopes ------------------------------------------------------------------------------------------------

describe("scopes", () => {
  it("the hub defines none: a request naming any scope gets invalid_scope at the client, and metadata says so", async () => {
    const who = await owner();
    const ch = await ownedChannel(who);
    const { clientId } = await registerClient();
    for (const scope of ["read", "openid email profile", "offline_access"]) {
      const res = await getAuthorize(
        authorizeUrl(standardParams(clientId, await pkce(), ch.resource, { scope })),
        who.browser,
      );
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location")!);
      expect(location.origin + location.pathname).toBe(REDIRECT);
      expect(location.searchParams.get("error")).toBe("invalid_scope");
      expect(location.searchParams.get("state")).toBe("state-123");
      expect(location.searchParams.get("code")).toBeNull();
    }
    expect(await grantsOf(who.accountId)).toEqual([]);
    // No scope: consent as usual, and the token response echoes no scope.
    const { tokens } = await authorizeFully(who, ch, clientId);
    expect((tokens as unknown as { scope?: string }).scope ?? "").toBe("");
    const scoped = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
      scope: "read",
    });
    expect((await oauthError(scoped)).error).toBe("invalid_scope");
    const as = (await (await SELF.fetch(`${HUB}/.well-known/oauth-authorization-server`)).json()) as {
      scopes_supported?: string[];
    };
    expect(as.scopes_supported).toEqual([]);
    const prm = (await (
      await SELF.fetch(`${HUB}/.well-known/oauth-protected-resource/mcp/${ch.id}`)
    ).json()) as { scopes_supported?: string[] };
    expect(prm.scopes_supported).toEqual([]);
  });
});
