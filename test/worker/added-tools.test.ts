// Marketplace tools added to a channel ("Add from the marketplace"): the owner adds a verified
// site's published tools by REST (all, or chosen ones; unknown names and unverified or delisted sites
// refused, nothing half-stored), its agents see them with no tab open (not live, verified, the published
// definition), a tab of the site's origin offering one replaces it and gives it back when it leaves, a call
// with no tab says which page to open, DELETE removes them, and only the channel's owner may do any of it.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError, publish, tool, verifiedSite } from "./helpers.js";
import { connectAgent, connectProvider, createChannel, type TestChannel, until } from "./relay-helpers.js";

const owner = (ch: TestChannel) => ({ authorization: `Bearer ${ch.ownerKey}` });
const PROVIDER = "webmcp-hub/provider";
const VERIFICATION = "webmcp-hub/verification";

/** A verified site publishing `greet` (on /hello) and `sum`, and a fresh channel. */
async function setup() {
  const site = await verifiedSite();
  const res = await publish(site.host, site.key, {
    tools: [
      tool("greet", { pages: ["/hello", "/other"] }),
      tool("sum", { annotations: { readOnlyHint: true } }),
    ],
  });
  expect(res.status).toBe(201);
  const { version } = (await res.json()) as { version: number };
  return { site, version, ch: await createChannel() };
}

function addTools(ch: TestChannel, json: unknown, headers = owner(ch)) {
  return api(`/api/channels/${ch.id}/tools`, { method: "POST", json, headers });
}

async function added(ch: TestChannel) {
  const res = await api(`/api/channels/${ch.id}/tools`, { headers: owner(ch) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { tools: Array<Record<string, any>> }).tools;
}

describe("adding a site's tools to a channel", () => {
  it("adds all of them, or the chosen ones; GET lists them with their published definition and page", async () => {
    const { site, version, ch } = await setup();
    const chosen = await addTools(ch, { host: site.host, tools: ["greet"] });
    expect(chosen.status).toBe(201);
    expect(await chosen.json()).toEqual({ host: site.host, added: ["greet"] });
    expect((await added(ch)).map((t) => t.name)).toEqual(["greet"]);

    const all = await addTools(ch, { host: site.host });
    expect(all.status).toBe(201);
    expect(((await all.json()) as { added: string[] }).added.sort()).toEqual(["greet", "sum"]);
    const [greet, sum] = await added(ch);
    expect(greet).toMatchObject({
      host: site.host,
      name: "greet",
      status: "listed",
      reason: null,
      site: { host: site.host, origin: site.origin, status: "verified", version },
      definition: { name: "greet", pages: ["/hello", "/other"] },
      page: `${site.origin}/hello`,
    });
    expect(sum).toMatchObject({ name: "sum", status: "listed", page: null });
  });

  it("never points at a page off the site's origin (a manifest page like //other.example/x)", async () => {
    const site = await verifiedSite();
    const res = await publish(site.host, site.key, {
      tools: [tool("greet", { pages: ["//evil.example/x"] })],
    });
    expect(res.status).toBe(201);
    const ch = await createChannel();
    expect((await addTools(ch, { host: site.host })).status).toBe(201);
    expect((await added(ch))[0]).toMatchObject({ name: "greet", page: null });
    const result = await (await connectAgent(ch)).callTool({ name: "greet", arguments: { text: "x" } });
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).not.toContain("evil.example");
    expect(text).toContain("publishes no page");
    expect(text).toContain(`open a page of ${site.origin}`);
  });

  it("refuses unknown names (422, naming them) and stores nothing", async () => {
    const { site, ch } = await setup();
    const res = await addTools(ch, { host: site.host, tools: ["greet", "nope", "gone"] });
    const body = await expectError(res, 422, "unknown_tool");
    expect(JSON.stringify(body)).toContain("nope, gone");
    expect(await added(ch)).toEqual([]);
  });

  it("refuses an unknown host, a site not verified (or no longer), and a delisted one", async () => {
    const { site, ch } = await setup();
    await expectError(await addTools(ch, { host: "nobody.example" }), 404, "site_not_found");
    await env.DB.prepare(`UPDATE sites SET status = 'unverified' WHERE host = ?`).bind(site.host).run();
    await expectError(await addTools(ch, { host: site.host }), 403, "site_not_verified");
    await env.DB.prepare(`UPDATE sites SET status = 'verified' WHERE host = ?`).bind(site.host).run();
    const delisted = await api(`/api/sites/${site.host}/delist`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.key}` },
    });
    expect(delisted.status).toBe(200);
    await expectError(await addTools(ch, { host: site.host }), 410, "site_delisted");
    await expectError(await addTools(ch, { host: site.host, extra: 1 }), 400, "validation_failed");
    expect(await added(ch)).toEqual([]);
  });

  it("is the channel owner's only: another channel's owner key is 403, an agent token 401", async () => {
    const { site, ch } = await setup();
    const other = await createChannel();
    const stranger = { authorization: `Bearer ${other.ownerKey}` };
    await expectError(await addTools(ch, { host: site.host }, stranger), 403, "forbidden");
    await expectError(
      await addTools(ch, { host: site.host }, { authorization: `Bearer ${ch.agentToken}` }),
      401,
      "unauthorized",
    );
    expect((await addTools(ch, { host: site.host })).status).toBe(201);
    await expectError(await api(`/api/channels/${ch.id}/tools`, { headers: stranger }), 403, "forbidden");
    await expectError(
      await api(`/api/channels/${ch.id}/tools/${site.host}`, { method: "DELETE", headers: stranger }),
      403,
      "forbidden",
    );
    expect(await added(ch)).toHaveLength(2);
  });
});

describe("added tools and the channel's agents", () => {
  it("are listed with no tab open: the published definition, not live, verified", async () => {
    const { site, version, ch } = await setup();
    expect((await addTools(ch, { host: site.host })).status).toBe(201);
    const { tools } = await (await connectAgent(ch)).listTools();
    expect(tools.map((t) => t.name)).toEqual(["greet", "sum"]);
    const greet = tools[0]!;
    expect(greet.description).toBe("The greet tool does greet things.");
    expect(greet.inputSchema).toMatchObject({ required: ["text"] });
    expect(greet._meta?.[PROVIDER]).toEqual({
      kind: "registry",
      origin: site.origin,
      site: site.host,
      live: false,
    });
    expect(greet._meta?.[VERIFICATION]).toEqual({ status: "verified", site: site.host, version });
  });

  it("follow the channel's naming: a sidecar's same-named tool makes both prefixed; the console shows them", async () => {
    const { site, version, ch } = await setup();
    expect((await addTools(ch, { host: site.host, tools: ["greet"] })).status).toBe(201);
    await connectProvider(ch, { kind: "sidecar", label: "files", tools: [tool("greet")] });
    const names = (await (await connectAgent(ch)).listTools()).tools.map((t) => t.name).sort();
    const label = site.host.replace(/[^A-Za-z0-9_.-]/g, "_");
    expect(names).toEqual([`${label}__greet`, "files__greet"].sort());
    const snap = (await (await api(`/api/channels/${ch.id}`, { headers: owner(ch) })).json()) as {
      tools: Array<{ name: string; providers: number; verification: unknown }>;
    };
    expect(snap.tools.find((t) => t.name === `${label}__greet`)).toMatchObject({
      providers: 0,
      verification: { status: "verified", site: site.host, version },
    });
  });

  it("a call with no tab open and no extension connected is an isError naming the page to open, audited as disconnected", async () => {
    const { site, ch } = await setup();
    expect((await addTools(ch, { host: site.host })).status).toBe(201);
    const agent = await connectAgent(ch);
    const result = await agent.callTool({ name: "greet", arguments: { text: "x" } });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toContain("no open tab offers it");
    expect(text).toContain("No browser with the webmcp-hub extension paired to this channel is connected");
    expect(text).toContain(`${site.origin}/hello`);
    // A tool that names no page cannot be opened: the answer says to open one of the site's that registers it.
    const sum = await agent.callTool({ name: "sum", arguments: { text: "x" } });
    const sumText = (sum.content as Array<{ text: string }>)[0]!.text;
    expect(sumText).toContain("publishes no page");
    expect(sumText).toContain(`open a page of ${site.origin} that registers sum`);
    const audit = await api(`/api/channels/${ch.id}/audit`, { headers: owner(ch) });
    const entries = ((await audit.json()) as { entries: Array<{ tool: string; status: string }> }).entries;
    expect(entries.find((e) => e.tool === "greet")?.status).toBe("disconnected");
  });

  it("a tab of the site's origin offering the tool replaces the registry entry, which returns when it leaves", async () => {
    const { site, version, ch } = await setup();
    expect((await addTools(ch, { host: site.host, tools: ["greet"] })).status).toBe(201);
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools[0]?._meta?.[PROVIDER]).toMatchObject({ kind: "registry" });
    const tab = await connectProvider(ch, { kind: "tab", origin: site.origin, tools: [tool("greet")] });
    tab.serve(() => ({ content: [{ type: "text", text: "hello from the tab" }] }));
    const live = (await agent.listTools()).tools;
    expect(live.map((t) => t.name)).toEqual(["greet"]);
    expect(live[0]?._meta?.[PROVIDER]).toMatchObject({ kind: "tab", origin: site.origin });
    expect(live[0]?._meta?.[VERIFICATION]).toEqual({ status: "verified", site: site.host, version });
    const result = await agent.callTool({ name: "greet", arguments: { text: "x" } });
    expect(result.content).toEqual([{ type: "text", text: "hello from the tab" }]);

    tab.close();
    let back: Array<{ name: string; _meta?: Record<string, unknown> }> = [];
    await until(async () => {
      back = (await agent.listTools()).tools;
      return (back[0]?._meta?.[PROVIDER] as { kind?: string } | undefined)?.kind === "registry";
    }, "the registry's tool to be listed again");
    expect(back.map((t) => t.name)).toEqual(["greet"]);
    expect(back[0]?._meta?.[PROVIDER]).toMatchObject({ kind: "registry", live: false });
  });

  it("DELETE removes them (one, or a site's all), and agents hear list_changed", async () => {
    const { site, ch } = await setup();
    expect((await addTools(ch, { host: site.host })).status).toBe(201);
    const agent = await connectAgent(ch);
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    expect((await agent.listTools()).tools).toHaveLength(2);
    const one = await api(`/api/channels/${ch.id}/tools/${site.host}/greet`, {
      method: "DELETE",
      headers: owner(ch),
    });
    expect(one.status).toBe(200);
    expect(await one.json()).toEqual({ host: site.host, removed: 1 });
    await until(() => changed > 0, "notifications/tools/list_changed");
    expect(changed).toBeGreaterThan(0);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["sum"]);
    const rest = await api(`/api/channels/${ch.id}/tools/${site.host}`, {
      method: "DELETE",
      headers: owner(ch),
    });
    expect(await rest.json()).toEqual({ host: site.host, removed: 1 });
    expect((await agent.listTools()).tools).toEqual([]);
    await expectError(
      await api(`/api/channels/${ch.id}/tools/${site.host}`, { method: "DELETE", headers: owner(ch) }),
      404,
      "not_found",
    );
  });

  it("a site delisted or unverified since: its tools are no longer listed, and GET says why", async () => {
    const { site, ch } = await setup();
    expect((await addTools(ch, { host: site.host })).status).toBe(201);
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools).toHaveLength(2);
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    await env.DB.prepare(`UPDATE sites SET status = 'unverified' WHERE host = ?`).bind(site.host).run();
    const marked = await added(ch);
    expect(marked.map((t) => t.status)).toEqual(["site_unverified", "site_unverified"]);
    expect(marked[0]!.reason).toContain("no longer verified");
    // The owner's read had the channel read them again too (else its 60 s cache): agents no longer see them.
    await until(() => changed > 0, "notifications/tools/list_changed");
    expect(changed).toBeGreaterThan(0);
    expect((await agent.listTools()).tools).toEqual([]);

    await env.DB.prepare(`UPDATE sites SET status = 'verified', delisted_at = 1 WHERE host = ?`)
      .bind(site.host)
      .run();
    expect((await added(ch)).map((t) => t.status)).toEqual(["site_delisted", "site_delisted"]);
    expect((await added(ch))[0]!.reason).toContain("delisted");
    expect((await agent.listTools()).tools).toEqual([]);
    // Relisted (and verified): the rows were kept, and they are listed again.
    await env.DB.prepare(`UPDATE sites SET delisted_at = NULL WHERE host = ?`).bind(site.host).run();
    expect((await added(ch)).map((t) => t.status)).toEqual(["listed", "listed"]);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["greet", "sum"]);
  });

  it("a site delisted, relisted or republished through the API reaches the channel at once (no cache wait)", async () => {
    const { site, ch } = await setup();
    expect((await addTools(ch, { host: site.host, tools: ["greet"] })).status).toBe(201);
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["greet"]);
    let changed = 0;
    agent.setNotificationHandler("notifications/tools/list_changed", () => {
      changed++;
    });
    const publisher = { authorization: `Bearer ${site.key}` };
    /** Waits for the next list_changed and returns what the agent lists then (never GET /tools: no re-read). */
    const next = async () => {
      const before = changed;
      await until(() => changed > before, "the next notifications/tools/list_changed");
      expect(changed).toBeGreaterThan(before);
      return (await agent.listTools()).tools;
    };

    expect((await api(`/api/sites/${site.host}/delist`, { method: "POST", headers: publisher })).status).toBe(
      200,
    );
    expect(await next()).toEqual([]);
    expect((await api(`/api/sites/${site.host}/relist`, { method: "POST", headers: publisher })).status).toBe(
      200,
    );
    expect((await next()).map((t) => t.name)).toEqual(["greet"]);
    const republished = await publish(site.host, site.key, {
      tools: [tool("greet", { description: "Greets, republished.", pages: ["/hello"] })],
    });
    expect(republished.status).toBe(201);
    expect((await next()).map((t) => t.description)).toEqual(["Greets, republished."]);
  });
});
