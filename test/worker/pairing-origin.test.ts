// POST /api/pair: a tab's Origin is parsed and stored serialized (only http(s) origins), and whether the
// request came from a browser page (Fetch Metadata) is recorded and shown per provider in the channel view.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError } from "./helpers.js";
import { createChannel, HUB, newPairingCode, TestProvider, type TestChannel } from "./relay-helpers.js";

/** What a page's fetch() of another origin sends (the bridge's pairing request in a browser). */
const PAGE_FETCH = { "sec-fetch-site": "cross-site", "sec-fetch-mode": "cors", "sec-fetch-dest": "empty" };

async function pairWith(code: string, headers: Record<string, string>, kind: "tab" | "sidecar" = "tab") {
  return api("/api/pair", { method: "POST", json: { code, kind }, headers });
}

async function storedTokens(ch: TestChannel) {
  const { results } = await env.DB.prepare(
    "SELECT kind, label, origin, paired_from_page AS fromPage FROM provider_tokens WHERE channel_id = ?",
  )
    .bind(ch.id)
    .all<{ kind: string; label: string; origin: string | null; fromPage: number | null }>();
  return results;
}

async function connect(ch: TestChannel, token: string, origin?: string): Promise<TestProvider> {
  const res = await SELF.fetch(`${HUB}/relay/${ch.id}`, {
    headers: {
      upgrade: "websocket",
      "sec-websocket-protocol": `webmcp-hub.v1, ${token}`,
      ...(origin ? { origin } : {}),
    },
  });
  expect(res.status).toBe(101);
  const ws = res.webSocket!;
  ws.accept();
  const provider = new TestProvider(ws, token);
  await provider.next("welcome");
  return provider;
}

async function providersOf(ch: TestChannel) {
  const res = await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } });
  return (
    (await res.json()) as { providers: Array<{ label: string; kind: string; pairedFromPage: unknown }> }
  ).providers;
}

describe("the Origin of a tab's pairing", () => {
  it("refuses anything but an http(s) origin, stores nothing and leaves the code usable", async () => {
    const ch = await createChannel();
    const code = await newPairingCode(ch);
    const refused = [
      "javascript:alert(1)",
      "null",
      "data:text/html,<script>alert(1)</script>",
      "file:///etc/passwd",
      "chrome-extension://abcdefghijklmnop",
      "ftp://files.example",
      "https://github.com/login",
      "https://github.com?x=1",
      "https://user:pw@github.com",
      "github.com",
      "https://",
      "x".repeat(3000),
    ];
    for (const origin of refused) {
      const error = await expectError(await pairWith(code, { ...PAGE_FETCH, origin }), 400, "invalid_origin");
      expect(error.message, origin).toMatch(/http\(s\) origin/);
      expect(error.message.length, origin).toBeLessThan(400);
    }
    expect(await storedTokens(ch)).toEqual([]);
    // The code was not consumed by the refusals.
    const ok = await pairWith(code, { ...PAGE_FETCH, origin: "https://shop.example" });
    expect(ok.status).toBe(201);
  });

  it("stores the serialized origin and labels the tab by its host", async () => {
    const ch = await createChannel();
    const res = await pairWith(await newPairingCode(ch), {
      ...PAGE_FETCH,
      origin: "HTTPS://Shop.Example:443",
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { label: string; providerToken: string };
    expect(body.label).toBe("shop.example");
    expect(await storedTokens(ch)).toEqual([
      { kind: "tab", label: "shop.example", origin: "https://shop.example", fromPage: 1 },
    ]);
    // The page's own (serialized) Origin is what the relay then accepts.
    const tab = await connect(ch, body.providerToken, "https://shop.example");
    tab.close();
  });

  it("keeps a sidecar's pairing free of an Origin", async () => {
    const ch = await createChannel();
    const res = await pairWith(await newPairingCode(ch), { origin: "javascript:alert(1)" }, "sidecar");
    expect(res.status).toBe(201);
    expect(await storedTokens(ch)).toEqual([
      { kind: "sidecar", label: "sidecar", origin: null, fromPage: 0 },
    ]);
  });
});

describe("whether a pairing came from a browser page", () => {
  it("is recorded from Fetch Metadata and reported per provider in the channel view", async () => {
    const ch = await createChannel();
    const cases: Array<[string, Record<string, string>, boolean]> = [
      ["page.example", PAGE_FETCH, true],
      ["same-site.example", { ...PAGE_FETCH, "sec-fetch-site": "same-site" }, true],
      ["script.example", {}, false],
      [
        "navigation.example",
        { ...PAGE_FETCH, "sec-fetch-mode": "navigate", "sec-fetch-dest": "document" },
        false,
      ],
      ["typed.example", { ...PAGE_FETCH, "sec-fetch-site": "none" }, false],
      ["mode-only.example", { "sec-fetch-mode": "cors" }, false],
      ["no-cors.example", { ...PAGE_FETCH, "sec-fetch-mode": "no-cors" }, false],
      ["image.example", { ...PAGE_FETCH, "sec-fetch-dest": "image" }, false],
      // A page of another origin cannot claim to be same-origin with the hub.
      ["liar.example", { ...PAGE_FETCH, "sec-fetch-site": "same-origin" }, false],
    ];
    const tabs: TestProvider[] = [];
    for (const [host, headers, _] of cases) {
      const origin = `https://${host}`;
      const res = await pairWith(await newPairingCode(ch), { ...headers, origin });
      expect(res.status, host).toBe(201);
      tabs.push(await connect(ch, ((await res.json()) as { providerToken: string }).providerToken, origin));
    }
    const stored = new Map((await storedTokens(ch)).map((t) => [t.label, t.fromPage]));
    const shown = new Map((await providersOf(ch)).map((p) => [p.label, p.pairedFromPage]));
    for (const [host, , fromPage] of cases) {
      expect(stored.get(host), host).toBe(fromPage ? 1 : 0);
      expect(shown.get(host), host).toBe(fromPage);
    }
    for (const t of tabs) t.close();
  });

  it("is false for a sidecar, which pairs from a program", async () => {
    const ch = await createChannel();
    const res = await pairWith(await newPairingCode(ch), {}, "sidecar");
    const { providerToken } = (await res.json()) as { providerToken: string };
    const sidecar = await connect(ch, providerToken);
    expect(await providersOf(ch)).toEqual([
      expect.objectContaining({ kind: "sidecar", pairedFromPage: false }),
    ]);
    sidecar.close();
  });
});
