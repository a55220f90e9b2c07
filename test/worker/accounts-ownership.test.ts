// Ownership: channels and sites created while signed in belong to the account, claiming by key, owner and
// publisher keys listed and revoked, the console's routes by session, deleting an account, and the Origin rule
// on every cookie-authenticated write.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { database } from "../../src/worker/db/client.js";
import { accounts, channels, ownerKeys, sites } from "../../src/worker/db/schema.js";
import { runMaintenance, closeChannelRelay } from "../../src/worker/maintenance.js";
import { settingsOf } from "../../src/worker/env.js";
import { api, BASE, expectError, publish, tool, verifiedSite } from "./helpers.js";
import { signedInAccount, type SignedInAccount } from "./account-helpers.js";
import { connectAgent, connectProvider, createChannel, echoTool, HUB } from "./relay-helpers.js";

const db = () => database(env.DB);
const DAY = 24 * 3600 * 1000;

async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** A request to the loopback hub (the relay's tests' host) as the signed-in browser. */
function asUser(me: SignedInAccount, path: string, init: RequestInit & { json?: unknown } = {}) {
  const headers = new Headers(init.headers);
  headers.set("cookie", me.cookie);
  if (!headers.has("origin")) headers.set("origin", HUB);
  if (init.json !== undefined) headers.set("content-type", "application/json");
  return SELF.fetch(HUB + path, {
    ...init,
    headers,
    ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
  });
}

async function ownedChannel(me: SignedInAccount, name = "mine") {
  const res = await asUser(me, "/api/channels", { method: "POST", json: { name } });
  expect(res.status).toBe(201);
  return json(res);
}

describe("channels of an account", () => {
  it("a channel created while signed in belongs to the account and its console works by session alone", async () => {
    const me = await signedInAccount();
    const created = await ownedChannel(me);
    const [row] = await db().select().from(channels).where(eq(channels.id, created.channel.id));
    expect(row!.accountId).toBe(me.accountId);
    const listed = await json(await asUser(me, "/api/account/channels"));
    expect(listed.channels.map((c: { id: string }) => c.id)).toEqual([created.channel.id]);
    expect(listed.channels[0].ownerKeys).toMatchObject([
      { label: "created with the channel", revokedAt: null },
    ]);
    const view = await asUser(me, `/api/channels/${created.channel.id}`);
    expect(view.status).toBe(200);
    expect((await json(view)).channel.name).toBe("mine");
    expect(
      (await asUser(me, `/api/channels/${created.channel.id}/pairing-codes`, { method: "POST" })).status,
    ).toBe(201);
    // The owner key still works too, and an anonymous channel stays anonymous.
    const byKey = await SELF.fetch(`${HUB}/api/channels/${created.channel.id}`, {
      headers: { authorization: `Bearer ${created.ownerKey}` },
    });
    expect(byKey.status).toBe(200);
    const anon = await createChannel();
    const [anonRow] = await db().select().from(channels).where(eq(channels.id, anon.id));
    expect(anonRow!.accountId).toBeNull();
  });

  it("another account's session cannot use a channel's console; no credentials at all: 401", async () => {
    const me = await signedInAccount();
    const other = await signedInAccount("Other");
    const created = await ownedChannel(me);
    await expectError(await asUser(other, `/api/channels/${created.channel.id}`), 403, "forbidden");
    await expectError(
      await asUser(other, `/api/channels/${created.channel.id}/agent-tokens`, { method: "POST" }),
      403,
      "forbidden",
    );
    await expectError(await SELF.fetch(`${HUB}/api/channels/${created.channel.id}`), 401, "unauthorized");
    await expectError(await asUser(me, `/api/channels/nope`), 404, "not_found");
  });

  it("claims an anonymous channel by its owner key; a wrong key, a revoked one or another account's channel is refused", async () => {
    const me = await signedInAccount();
    const anon = await createChannel();
    await expectError(
      await asUser(me, "/api/account/channels/claim", {
        method: "POST",
        json: { ownerKey: "who_" + "A".repeat(43) },
      }),
      401,
      "unauthorized",
    );
    const err = await expectError(
      await asUser(me, "/api/account/channels/claim", { method: "POST", json: { ownerKey: "nope" } }),
      400,
      "validation_failed",
    );
    expect(err.issues?.[0]?.path).toBe("ownerKey");
    const claimed = await asUser(me, "/api/account/channels/claim", {
      method: "POST",
      json: { ownerKey: anon.ownerKey },
    });
    expect(claimed.status).toBe(201);
    expect((await json(claimed)).channel.id).toBe(anon.id);
    // Again: already yours, 200.
    expect(
      (await asUser(me, "/api/account/channels/claim", { method: "POST", json: { ownerKey: anon.ownerKey } }))
        .status,
    ).toBe(200);
    const other = await signedInAccount("Other");
    await expectError(
      await asUser(other, "/api/account/channels/claim", {
        method: "POST",
        json: { ownerKey: anon.ownerKey },
      }),
      409,
      "conflict",
    );
    const [row] = await db().select().from(channels).where(eq(channels.id, anon.id));
    expect(row!.accountId).toBe(me.accountId);
  });

  it("owner keys: a new one is shown once and listed by label; revoking one stops it; an anonymous channel keeps its last", async () => {
    const anon = await createChannel();
    const auth = { authorization: `Bearer ${anon.ownerKey}` };
    const lastErr = await expectError(
      await api(
        `/api/channels/${anon.id}/owner-keys/${(await json(await api(`/api/channels/${anon.id}/owner-keys`, { headers: auth }))).ownerKeys[0].id}`,
        {
          method: "DELETE",
          headers: auth,
        },
      ),
      409,
      "conflict",
    );
    expect(lastErr.message).toMatch(/last owner key/);
    const made = await api(`/api/channels/${anon.id}/owner-keys`, {
      method: "POST",
      headers: auth,
      json: { label: "ci" },
    });
    expect(made.status).toBe(201);
    const { ownerKey } = await json(made);
    const list = (await json(await api(`/api/channels/${anon.id}/owner-keys`, { headers: auth }))).ownerKeys;
    expect(list.map((k: { label: string }) => k.label).sort()).toEqual(["ci", "created with the channel"]);
    expect(JSON.stringify(list)).not.toContain("who_");
    const original = list.find((k: { label: string }) => k.label !== "ci").id;
    expect(
      (
        await api(`/api/channels/${anon.id}/owner-keys/${original}`, {
          method: "DELETE",
          headers: { authorization: `Bearer ${ownerKey}` },
        })
      ).status,
    ).toBe(200);
    await expectError(await api(`/api/channels/${anon.id}`, { headers: auth }), 401, "unauthorized");
    expect(
      (await api(`/api/channels/${anon.id}`, { headers: { authorization: `Bearer ${ownerKey}` } })).status,
    ).toBe(200);
    await expectError(
      await api(`/api/channels/${anon.id}/owner-keys`, {
        method: "POST",
        headers: { authorization: `Bearer ${ownerKey}` },
        json: { label: "" },
      }),
      400,
      "validation_failed",
    );
    expect(await db().select().from(ownerKeys).where(eq(ownerKeys.channelId, anon.id))).toHaveLength(2);
  });

  it("an owned channel may lose every owner key: its account still manages it", async () => {
    const me = await signedInAccount();
    const created = await ownedChannel(me);
    const [key] = (await json(await asUser(me, `/api/channels/${created.channel.id}/owner-keys`))).ownerKeys;
    expect(
      (await asUser(me, `/api/channels/${created.channel.id}/owner-keys/${key.id}`, { method: "DELETE" }))
        .status,
    ).toBe(200);
    expect((await asUser(me, `/api/channels/${created.channel.id}`)).status).toBe(200);
  });

  it("an owned channel never expires as unused or idle", async () => {
    const me = await signedInAccount();
    const created = await ownedChannel(me);
    const now = Date.now();
    await db()
      .update(channels)
      .set({ createdAt: now - 400 * DAY, lastUsedAt: now - 300 * DAY })
      .where(eq(channels.id, created.channel.id));
    await runMaintenance(db(), now, settingsOf(env), closeChannelRelay(env));
    expect(await db().select().from(channels).where(eq(channels.id, created.channel.id))).toHaveLength(1);
  });
});

describe("sites of an account", () => {
  it("claims a site by its publisher key, lists it with its keys, adds and revokes keys; another account gets 409", async () => {
    const me = await signedInAccount();
    const site = await verifiedSite();
    const claim = (who: SignedInAccount, publisherKey: string) =>
      api("/api/account/sites/claim", { method: "POST", headers: who.headers, json: { publisherKey } });
    await expectError(await claim(me, "whp_" + "B".repeat(43)), 401, "unauthorized");
    expect((await claim(me, site.key)).status).toBe(201);
    const other = await signedInAccount("Other");
    await expectError(await claim(other, site.key), 409, "conflict");
    const listed = await json(await api("/api/account/sites", { headers: me.headers }));
    expect(listed.sites.map((s: { host: string }) => s.host)).toEqual([site.host]);
    expect(listed.sites[0].publisherKeys).toHaveLength(1);

    const made = await api(`/api/account/sites/${site.host}/publisher-keys`, {
      method: "POST",
      headers: me.headers,
      json: { label: "deploy" },
    });
    expect(made.status).toBe(201);
    const { publisherKey, id } = await json(made);
    expect((await publish(site.host, publisherKey, { name: "S", tools: [tool("a")] })).status).toBe(201);
    expect(
      (
        await api(`/api/account/sites/${site.host}/publisher-keys/${id}`, {
          method: "DELETE",
          headers: me.headers,
        })
      ).status,
    ).toBe(200);
    await expectError(
      await publish(site.host, publisherKey, { name: "S", tools: [tool("b")] }),
      401,
      "unauthorized",
    );
    // Another account cannot touch the keys of a site it does not own.
    await expectError(
      await api(`/api/account/sites/${site.host}/publisher-keys`, { method: "POST", headers: other.headers }),
      404,
      "not_found",
    );
  });

  it("a site registered and verified while signed in belongs to the account", async () => {
    const me = await signedInAccount();
    const site = await verifiedSiteAs(me);
    const [row] = await db().select().from(sites).where(eq(sites.host, site.host));
    expect(row!.accountId).toBe(me.accountId);
  });
});

async function verifiedSiteAs(me: SignedInAccount) {
  const { fakeOrigin } = await import("./helpers.js");
  const o = await fakeOrigin();
  const reg = await json(
    await api("/api/sites", { method: "POST", headers: me.headers, json: { origin: o.origin } }),
  );
  await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: reg.challenge.token } });
  const res = await api(`/api/sites/${reg.site.host}/verify`, {
    method: "POST",
    headers: { ...me.headers, authorization: `Bearer ${reg.claimSecret}` },
    json: { method: "http" },
  });
  expect(res.status).toBe(200);
  return { host: reg.site.host as string, key: (await json(res)).publisherKey as string };
}

describe("deleting an account", () => {
  it("closes its channels (a live provider socket closes, agent tokens stop working) and releases its sites", async () => {
    const me = await signedInAccount();
    const created = await ownedChannel(me);
    const ch = {
      id: created.channel.id,
      ownerKey: created.ownerKey,
      agentToken: created.agentToken,
      agentTokenId: created.agentTokenId,
      mcpUrl: created.mcpUrl,
      pairingCode: created.pairingCode,
    };
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.length).toBeGreaterThan(0);
    const site = await verifiedSite();
    await api("/api/account/sites/claim", {
      method: "POST",
      headers: me.headers,
      json: { publisherKey: site.key },
    });

    const res = await asUser(me, "/api/account", { method: "DELETE" });
    expect(res.status).toBe(200);
    expect(await json(res)).toMatchObject({ deletedChannels: 1, releasedSites: 1 });
    expect(res.headers.get("set-cookie")).toMatch(/Max-Age=0/);

    await provider.next("welcome").catch(() => undefined);
    expect(provider.closed).toBe(true);
    await expect(agent.listTools()).rejects.toThrow();
    const call = await SELF.fetch(`${HUB}/api/channels/${ch.id}/calls`, {
      method: "POST",
      headers: { authorization: `Bearer ${ch.agentToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "echo", arguments: {} }),
    });
    await expectError(call, 401, "unauthorized");
    expect(await db().select().from(accounts).where(eq(accounts.id, me.accountId))).toEqual([]);
    const [siteRow] = await db().select().from(sites).where(eq(sites.host, site.host));
    expect(siteRow!.accountId).toBeNull();
    expect((await publish(site.host, site.key, { name: "S", tools: [tool("a")] })).status).toBe(201);
    await expectError(await asUser(me, "/api/account"), 401, "unauthorized");
  });
});

describe("the Origin rule on every cookie-authenticated write", () => {
  it("each is refused from another origin and changes nothing", async () => {
    const me = await signedInAccount();
    const created = await ownedChannel(me);
    const id = created.channel.id;
    const [key] = (await json(await asUser(me, `/api/channels/${id}/owner-keys`))).ownerKeys;
    const writes: Array<[string, string, unknown?]> = [
      ["POST", "/api/account/sign-out"],
      ["POST", "/api/account/sign-out-everywhere"],
      ["DELETE", "/api/account"],
      ["POST", "/api/account/passkeys/options"],
      ["POST", "/api/account/passkeys/verify", {}],
      ["PATCH", "/api/account/passkeys/x", { label: "x" }],
      ["DELETE", "/api/account/passkeys/x"],
      ["POST", "/api/account/channels/claim", { ownerKey: created.ownerKey }],
      ["POST", "/api/account/sites/claim", { publisherKey: "whp_" + "C".repeat(43) }],
      ["POST", "/api/account/sites/x.example/publisher-keys"],
      ["DELETE", "/api/account/sites/x.example/publisher-keys/k"],
      ["POST", "/api/account/sign-up/options", { displayName: "X" }],
      ["POST", "/api/account/sign-in/options"],
      ["POST", "/api/channels", { name: "x" }],
      ["POST", `/api/channels/${id}/pairing-codes`],
      ["POST", `/api/channels/${id}/agent-tokens`],
      ["DELETE", `/api/channels/${id}/agent-tokens`, { id: created.agentTokenId }],
      ["DELETE", `/api/channels/${id}/providers/p`],
      ["POST", `/api/channels/${id}/owner-keys`],
      ["DELETE", `/api/channels/${id}/owner-keys/${key.id}`],
      ["POST", "/api/sites", { origin: "https://x.example" }],
      ["POST", "/api/sites/x.example/verify", { method: "http" }],
    ];
    for (const [method, path, body] of writes) {
      const res = await asUser(me, path, {
        method,
        headers: { origin: "https://evil.example" },
        ...(body !== undefined ? { json: body } : {}),
      });
      await expectError(res, 403, "forbidden");
    }
    // Nothing changed: still signed in, one channel, its tokens and keys intact.
    expect((await json(await asUser(me, "/api/account/channels"))).channels).toHaveLength(1);
    const view = await json(await asUser(me, `/api/channels/${id}`));
    expect(view.agentTokens.every((t: { revokedAt: string | null }) => t.revokedAt === null)).toBe(true);
    expect((await json(await asUser(me, `/api/channels/${id}/owner-keys`))).ownerKeys).toHaveLength(1);
  });

  it("the same write from the hub's own origin passes", async () => {
    const me = await signedInAccount();
    const res = await api("/api/account/sign-out", {
      method: "POST",
      headers: { cookie: me.cookie, origin: BASE },
    });
    expect(res.status).toBe(200);
  });
});
