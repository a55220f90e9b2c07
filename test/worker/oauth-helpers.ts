// Helpers for the OAuth tests: an account-owned channel, a client (DCR or CIMD), PKCE, and each step of the
// authorization code flow through the Worker's fetch, as a browser and an OAuth client would make them.
import { env, SELF } from "cloudflare:test";
import { expect } from "vitest";
import { signedInAccount, type SignedInAccount } from "./account-helpers.js";
import { HUB } from "./relay-helpers.js";

export { HUB };
export const REDIRECT = "http://127.0.0.1:5555/callback";

export interface Owner extends SignedInAccount {
  /** Cookie and Origin of a same-origin browser request on HUB. */
  browser: Record<string, string>;
}

export async function owner(name = "Owner"): Promise<Owner> {
  const account = await signedInAccount(name);
  return { ...account, browser: { cookie: account.cookie, origin: HUB } };
}

export interface OwnedChannel {
  id: string;
  ownerKey: string;
  agentToken: string;
  resource: string;
  pairingCode: string;
}

/** A channel created while signed in: the account owns it. */
export async function ownedChannel(who: Owner, name = "Mine"): Promise<OwnedChannel> {
  const res = await SELF.fetch(`${HUB}/api/channels`, {
    method: "POST",
    headers: { ...who.browser, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  expect(res.status).toBe(201);
  const json = (await res.json()) as {
    channel: { id: string };
    ownerKey: string;
    agentToken: string;
    pairingCode: string;
  };
  return {
    id: json.channel.id,
    ownerKey: json.ownerKey,
    agentToken: json.agentToken,
    pairingCode: json.pairingCode,
    resource: `${HUB}/mcp/${json.channel.id}`,
  };
}

/** Registers a public client by DCR; returns its client_id. */
export async function registerClient(
  metadata: Record<string, unknown> = {},
): Promise<{ clientId: string; response: Response }> {
  const response = await SELF.fetch(`${HUB}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: "Test app",
      redirect_uris: [REDIRECT],
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      ...metadata,
    }),
  });
  expect(response.status).toBe(201);
  const json = (await response.clone().json()) as { client_id: string };
  return { clientId: json.client_id, response };
}

export interface Pkce {
  verifier: string;
  challenge: string;
}

function base64Url(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  return btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function pkce(): Promise<Pkce> {
  const verifier = base64Url(crypto.getRandomValues(new Uint8Array(32)));
  const challenge = base64Url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return { verifier, challenge };
}

export function authorizeUrl(params: Record<string, string | string[] | undefined>): string {
  const url = new URL(`${HUB}/authorize`);
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) url.searchParams.append(name, v);
  }
  return url.href;
}

export function standardParams(
  clientId: string,
  p: Pkce,
  resource: string | undefined,
  extra: Record<string, string | string[] | undefined> = {},
) {
  return {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: p.challenge,
    code_challenge_method: "S256",
    state: "state-123",
    resource,
    ...extra,
  };
}

/** GET /authorize as the signed-in browser (no redirects followed). */
export async function getAuthorize(url: string, headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(url, { headers, redirect: "manual" });
}

/** The consent page's handle and the binding cookie its response set. */
export async function consentOf(res: Response): Promise<{ handle: string; cookie: string; html: string }> {
  const html = await res.text();
  expect(res.status, html.slice(0, 2000)).toBe(200);
  const handle = /name="handle" value="([^"]+)"/.exec(html)?.[1];
  expect(handle, html.slice(0, 2000)).toBeTruthy();
  const setCookie = res.headers.getSetCookie().find((c) => c.startsWith("__Host-hub-oauth-consent"));
  expect(setCookie).toBeTruthy();
  return { handle: handle!, cookie: setCookie!.split(";")[0]!, html };
}

/** POSTs the consent form; returns the response (a 302 to the client when decided). */
export async function decide(
  who: Owner,
  consent: { handle: string; cookie: string },
  decision: "approve" | "deny",
  headers: Record<string, string> = {},
): Promise<Response> {
  return SELF.fetch(`${HUB}/authorize`, {
    method: "POST",
    redirect: "manual",
    headers: {
      ...who.browser,
      cookie: `${who.cookie}; ${consent.cookie}`,
      "content-type": "application/x-www-form-urlencoded",
      ...headers,
    },
    body: new URLSearchParams({ handle: consent.handle, decision }).toString(),
  });
}

export async function token(params: Record<string, string | undefined>): Promise<Response> {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) body.set(k, v);
  return SELF.fetch(`${HUB}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
  });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expires_in: number;
  resource?: string;
}

/** The whole flow for a DCR client and an owned channel: access and refresh tokens, and the grant's code. */
export async function authorizeFully(
  who: Owner,
  channel: OwnedChannel,
  clientId?: string,
): Promise<{ clientId: string; tokens: Tokens; code: string; p: Pkce }> {
  const id = clientId ?? (await registerClient()).clientId;
  const p = await pkce();
  const consent = await consentOf(
    await getAuthorize(authorizeUrl(standardParams(id, p, channel.resource)), who.browser),
  );
  const decided = await decide(who, consent, "approve");
  expect(decided.status).toBe(302);
  const location = new URL(decided.headers.get("location")!);
  const code = location.searchParams.get("code")!;
  const res = await token({
    grant_type: "authorization_code",
    code,
    redirect_uri: REDIRECT,
    client_id: id,
    code_verifier: p.verifier,
    resource: channel.resource,
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return { clientId: id, tokens: JSON.parse(text) as Tokens, code, p };
}

/** Every key the OAuth store holds (to prove a refused request stored nothing). */
export async function oauthKeys(): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await env.OAUTH_KV.list(cursor ? { cursor } : {});
    keys.push(...page.keys.map((k) => k.name));
    cursor = page.list_complete ? undefined : page.cursor;
  } while (cursor);
  return keys.sort();
}

export const mcpHeaders = (extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  ...extra,
});

export const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

export async function mcpInitialize(channelId: string, bearer?: string): Promise<Response> {
  return SELF.fetch(`${HUB}/mcp/${channelId}`, {
    method: "POST",
    headers: mcpHeaders(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    body: JSON.stringify(initialize),
  });
}
