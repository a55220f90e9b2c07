// The hub's side of the browser extension: one pairing (kind "extension", bound to the extension's own Origin),
// then one relay socket per shared tab (`?origin=<tab origin>`), each an ordinary tab provider labelled and
// routed by that origin; in-band refusals a service worker can read; revocation of every tab at once;
// keep-alive pings; and the signed-in /extension/connect page that hands the extension a code.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { signedInAccount } from "./account-helpers.js";
import { api, expectError } from "./helpers.js";
import {
  connectTab,
  EXTENSION,
  OTHER_EXTENSION,
  type Tab,
  openTabSocket,
  pairedExtension,
  pairExtension,
  providers,
  snapshot,
  until,
} from "./extension-helpers.js";
import { connectAgent, createChannel, newPairingCode, type TestChannel } from "./relay-helpers.js";

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

/** One plain HTTP call with the channel's agent token. */
async function call(ch: TestChannel, name: string, text = "hi") {
  const res = await api(`/api/channels/${ch.id}/calls`, {
    method: "POST",
    json: { name, arguments: { text } },
    headers: { authorization: `Bearer ${ch.agentToken}` },
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as {
    results: Array<{ status: string; result: { content: Array<{ text: string }> } }>;
  };
  return body.results[0]!;
}

describe("pairing the browser extension", () => {
  it("needs the extension's own Origin; a refusal leaves the code usable", async () => {
    const ch = await createChannel({ name: "my laptop" });
    const code = await newPairingCode(ch);
    const refused: Array<Record<string, string>> = [
      {},
      { origin: "https://shop.example" },
      { origin: "null" },
      { origin: "chrome-extension://short" },
      { origin: `${EXTENSION}/popup.html` },
      { origin: "safari-web-extension://abcdefghijklmnopabcdefghijklmnop" },
    ];
    for (const headers of refused) {
      const error = await expectError(await pairExtension(code, headers), 400, "invalid_origin");
      expect(error.message, JSON.stringify(headers)).toMatch(/must come from the extension/);
    }
    const { results } = await env.DB.prepare("SELECT id FROM provider_tokens WHERE channel_id = ?")
      .bind(ch.id)
      .all();
    expect(results).toEqual([]);

    const ok = await pairExtension(code, { origin: EXTENSION });
    expect(ok.status).toBe(201);
    const body = (await ok.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      channelId: ch.id,
      channelName: "my laptop",
      label: "browser extension",
      relayUrl: `ws://hub.test/relay/${ch.id}`,
    });
    expect(body.providerToken).toMatch(/^whr_/);
    const row = await env.DB.prepare("SELECT kind, label, origin FROM provider_tokens WHERE id = ?")
      .bind(body.providerTokenId)
      .first();
    expect(row).toEqual({ kind: "extension", label: "browser extension", origin: EXTENSION });
  });

  it("accepts Firefox's moz-extension origin and a label of the user's choosing", async () => {
    const ch = await createChannel();
    const firefox = "moz-extension://0b7c2a5e-52f3-4b4e-9d3a-1f2e3d4c5b6a";
    const res = await pairExtension(await newPairingCode(ch), { origin: firefox }, "Work Firefox");
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ label: "Work Firefox" });
  });

  it("gives every kind of pairing the channel's name", async () => {
    const ch = await createChannel({ name: "kitchen" });
    const res = await api("/api/pair", {
      method: "POST",
      json: { code: await newPairingCode(ch), kind: "sidecar" },
    });
    expect(await res.json()).toMatchObject({ channelName: "kitchen" });
  });
});

describe("an extension's tab sockets", () => {
  it("make each tab a provider labelled and routed by the tab's origin", async () => {
    const ch = await createChannel();
    const { token, tokenId } = await pairedExtension(ch);
    const a = await connectTab(ch, token, "https://a.example");
    a.provider.serve((c) => ({ content: [{ type: "text", text: `a says ${String(c.arguments.text)}` }] }));

    const [p] = await providers(ch);
    expect(p).toMatchObject({
      id: a.providerId,
      tokenId,
      kind: "tab",
      label: "a.example",
      origin: "https://a.example",
      pairedFromPage: false,
      via: "extension",
      tools: ["echo"],
    });
    expect(await call(ch, "echo")).toMatchObject({
      status: "ok",
      result: { content: [{ text: "a says hi" }] },
    });

    // Agents see the tab's origin in the tool's _meta, as for any tab.
    const agent = await connectAgent(ch);
    const { tools } = await agent.listTools();
    expect(tools.map((t) => [t.name, t._meta?.["webmcp-hub/provider"]])).toEqual([
      ["echo", expect.objectContaining({ kind: "tab", label: "a.example", origin: "https://a.example" })],
    ]);
    await agent.close();
    a.provider.close();
  });

  it("are separate providers per tab origin, with the usual collision names", async () => {
    const ch = await createChannel();
    const { token } = await pairedExtension(ch);
    const a = await connectTab(ch, token, "https://a.example");
    const b = await connectTab(ch, token, "http://b.example:8080");
    a.provider.serve(() => ({ content: [{ type: "text", text: "from a" }] }));
    b.provider.serve(() => ({ content: [{ type: "text", text: "from b" }] }));

    const { providers: live, tools } = await snapshot(ch);
    expect(live.map((p) => [p.label, p.origin]).sort()).toEqual([
      ["a.example", "https://a.example"],
      ["b.example:8080", "http://b.example:8080"],
    ]);
    expect(tools.map((t) => t.name)).toEqual(["a.example__echo", "b.example_8080__echo"]);
    expect(await call(ch, "a.example__echo")).toMatchObject({ result: { content: [{ text: "from a" }] } });
    expect(await call(ch, "b.example_8080__echo")).toMatchObject({
      result: { content: [{ text: "from b" }] },
    });

    // Closing one tab's socket withdraws only that tab's tools.
    b.provider.close();
    await until(async () => (await providers(ch)).length === 1, "b's withdrawal");
    expect((await snapshot(ch)).tools.map((t) => t.name)).toEqual(["echo"]);
    a.provider.close();
  });

  it("are refused in band (4003) from another Origin or without a serialized http(s) ?origin=", async () => {
    const ch = await createChannel();
    const { token } = await pairedExtension(ch);
    for (const origin of [OTHER_EXTENSION, "https://a.example"]) {
      expect(await refusedInBand(await openTabSocket(ch, token, "https://a.example", origin))).toEqual({
        frame: { type: "error", code: "forbidden", message: expect.stringContaining(EXTENSION) },
        code: 4003,
      });
    }
    // No Origin at all (not a browser): the plain HTTP refusal.
    await expectError(await openTabSocket(ch, token, "https://a.example", null), 403, "forbidden");

    const malformed = [
      undefined,
      "",
      "https://A.example",
      "https://a.example/",
      "https://a.example:443",
      "https://a.example/path",
      "a.example",
      "null",
      "javascript:alert(1)",
      "file:///etc/passwd",
      EXTENSION,
    ];
    for (const tab of malformed) {
      expect(await refusedInBand(await openTabSocket(ch, token, tab)), String(tab)).toEqual({
        frame: { type: "error", code: "invalid_origin", message: expect.stringContaining("?origin=") },
        code: 4003,
      });
    }
    expect(await providers(ch)).toEqual([]);
  });

  it("all close with 4001 when the owner revokes the extension's token", async () => {
    const ch = await createChannel();
    const { token, tokenId } = await pairedExtension(ch);
    const a = await connectTab(ch, token, "https://a.example");
    const b = await connectTab(ch, token, "https://b.example");
    const res = await api(`/api/channels/${ch.id}/providers/${tokenId}`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${ch.ownerKey}` },
    });
    expect(await res.json()).toMatchObject({ revoked: tokenId, closedConnections: 2 });
    expect(await Promise.all([a.closed, b.closed])).toEqual([4001, 4001]);
    expect(await providers(ch)).toEqual([]);
    // A new tab socket with the revoked token is told so in band.
    expect(await refusedInBand(await openTabSocket(ch, token, "https://c.example"))).toMatchObject({
      code: 4001,
    });
  });

  it("answer a ping with a pong, which does not make a tab the most recently active", async () => {
    const ch = await createChannel();
    const { token } = await pairedExtension(ch);
    // Two tabs of one origin: one tool, routed to the most recently active tab.
    const first = await connectTab(ch, token, "https://a.example");
    const second = await connectTab(ch, token, "https://a.example");
    first.provider.serve(() => ({ content: [{ type: "text", text: "first" }] }));
    second.provider.serve(() => ({ content: [{ type: "text", text: "second" }] }));
    const activeAt = async (t: Tab) =>
      Date.parse((await providers(ch)).find((p) => p.id === t.providerId)!.lastActiveAt);

    // The first tab says hello again (it became active): it now gets the calls.
    first.provider.send({ type: "hello", kind: "tab", label: "tab", version: "test" });
    await until(async () => (await activeAt(first)) > (await activeAt(second)), "the first tab's hello");
    expect(await call(ch, "echo")).toMatchObject({ result: { content: [{ text: "first" }] } });

    // The exact keep-alive text (answered by the runtime) and a differently spaced one (by the relay).
    const before = await activeAt(second);
    second.provider.ws.send('{"type":"ping"}');
    await second.provider.next("pong");
    second.provider.ws.send('{ "type" : "ping" }');
    await second.provider.next("pong");
    expect(await activeAt(second)).toBe(before);
    expect(await call(ch, "echo")).toMatchObject({ result: { content: [{ text: "first" }] } });
    first.provider.close();
    second.provider.close();
  });
});

describe("the /extension/connect page", () => {
  it("sends a visitor who is not signed in to sign in, and back here after", async () => {
    const res = await api("/extension/connect", { redirect: "manual" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/signin?return_to=%2Fextension%2Fconnect");
  });

  it("lists the account's channels with a connect button each (and only its own)", async () => {
    const me = await signedInAccount();
    const created = await api("/api/channels", {
      method: "POST",
      json: { name: "Desk <PC>" },
      headers: me.headers,
    });
    expect(created.status).toBe(201);
    const { channel } = (await created.json()) as { channel: { id: string } };
    await createChannel({ name: "not mine" });

    const res = await api("/extension/connect", { headers: { cookie: me.cookie } });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Desk &lt;PC&gt;");
    expect(html).toContain(`<code class="meta">${channel.id}</code>`);
    expect(html).toContain(`data-action="connect-extension" data-channel-id="${channel.id}"`);
    expect(html).toContain("Connect the extension to this channel");
    expect(html).not.toContain("not mine");
    expect(html).toMatch(/<script type="module" nonce="[^"]+" src="\/assets\/extension-connect\.js">/);
    expect(html).toMatch(/aria-live="polite"/);
  });

  it("points an account without channels at creating one", async () => {
    const me = await signedInAccount();
    const html = await (await api("/extension/connect", { headers: { cookie: me.cookie } })).text();
    expect(html).toContain('id="connect-no-channels"');
    expect(html).toContain('<a href="/channels">Create a channel</a>');
  });
});
