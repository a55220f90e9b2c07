// Helpers for tests of the browser extension's hub side: pairing it, its per-tab relay sockets, the owner's
// view of the channel's providers.
import { SELF } from "cloudflare:test";
import { expect } from "vitest";
import { api } from "./helpers.js";
import { echoTool, HUB, newPairingCode, TestProvider, type TestChannel } from "./relay-helpers.js";

export const EXTENSION = "chrome-extension://abcdefghijklmnopabcdefghijklmnop";
export const OTHER_EXTENSION = "chrome-extension://ponmlkjihgfedcbaponmlkjihgfedcba";

export async function pairExtension(code: string, headers: Record<string, string>, label?: string) {
  return api("/api/pair", {
    method: "POST",
    json: { code, kind: "extension", ...(label ? { label } : {}) },
    headers,
  });
}

/** Pairs the extension with `ch`; its provider token and token id. */
export async function pairedExtension(ch: TestChannel): Promise<{ token: string; tokenId: string }> {
  const res = await pairExtension(await newPairingCode(ch), { origin: EXTENSION });
  expect(res.status).toBe(201);
  const body = (await res.json()) as { providerToken: string; providerTokenId: string };
  return { token: body.providerToken, tokenId: body.providerTokenId };
}

/** The upgrade request of an extension's tab socket. `tab` undefined: no ?origin= at all. */
export function openTabSocket(
  ch: TestChannel,
  token: string,
  tab: string | undefined,
  origin: string | null = EXTENSION,
) {
  const query = tab === undefined ? "" : `?origin=${encodeURIComponent(tab)}`;
  return SELF.fetch(`${HUB}/relay/${ch.id}${query}`, {
    headers: {
      upgrade: "websocket",
      "sec-websocket-protocol": `webmcp-hub.v1, ${token}`,
      ...(origin ? { origin } : {}),
    },
  });
}

export interface Tab {
  provider: TestProvider;
  providerId: string;
  /** Resolves with the close code once the hub closes the socket. */
  closed: Promise<number>;
}

/** An extension's socket for the tab at `tab`, welcomed, with `tools` stored by the hub. */
export async function connectTab(
  ch: TestChannel,
  token: string,
  tab: string,
  tools = [echoTool()],
): Promise<Tab> {
  const res = await openTabSocket(ch, token, tab);
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  const closed = new Promise<number>((resolve) => ws.addEventListener("close", (e) => resolve(e.code)));
  ws.accept();
  const provider = new TestProvider(ws, token);
  const { providerId } = await provider.next("welcome");
  // What the service worker sends: the tab's socket says kind "tab".
  provider.send({ type: "hello", kind: "tab", label: "tab", version: "test" });
  provider.send({ type: "tools", tools });
  await until(
    async () => (await providers(ch)).find((p) => p.id === providerId)?.tools.length === tools.length,
  );
  return { provider, providerId, closed };
}

export interface ProviderRow {
  id: string;
  tokenId: string;
  kind: string;
  label: string;
  origin: string | null;
  pairedFromPage: boolean | null;
  via: string | null;
  lastActiveAt: string;
  tools: string[];
}

export async function snapshot(ch: TestChannel) {
  const res = await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } });
  expect(res.status).toBe(200);
  return (await res.json()) as {
    providers: ProviderRow[];
    tools: Array<{ name: string; label: string; origin: string | null }>;
  };
}

export async function providers(ch: TestChannel): Promise<ProviderRow[]> {
  return (await snapshot(ch)).providers;
}

/** Polls `check` (each poll is a request to the hub) until it holds. */
export async function until(check: () => Promise<boolean>, what = "condition"): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
