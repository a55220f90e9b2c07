// Cloud runs, the registry's side: a manifest tool's `"cloud": true` (allowed only on a read-only tool with a
// page; each refusal a 422 at tools[i].cloud, nothing stored), the flag stored on publish and refresh and kept
// out of the definition digest, the owner's switch PUT /api/sites/:host/cloud, which tools are cloud-capable
// (cloudTool / cloudTools), and the views that say so with the site's endpoint.
import { env, SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { definitionDigest } from "../../src/protocol/digest.js";
import { manifestJsonSchema } from "../../src/protocol/index.js";
import { database } from "../../src/worker/db/client.js";
import { cloudTool, cloudTools } from "../../src/worker/registry/cloud.js";
import { cloudStats } from "../../src/worker/registry/cloud-stats.js";
import { searchTools, siteTools } from "../../src/worker/registry/search.js";
import { getVerifiedSite, siteView } from "../../src/worker/registry/sites.js";
import { SitePage } from "../../web/pages/site.js";
import { signedInAccount } from "./account-helpers.js";
import { withOwnerSections } from "./owner-sections.js";
import { api, BASE, expectError, publish, tool, verifiedSite } from "./helpers.js";

const db = () => database(env.DB);

async function count(sql: string, ...bind: unknown[]): Promise<number> {
  return (await env.DB.prepare(sql)
    .bind(...bind)
    .first<{ n: number }>())!.n;
}

const reader = (name: string, extra: Record<string, unknown> = {}) =>
  tool(name, { annotations: { readOnlyHint: true }, pages: ["/"], cloud: true, ...extra });

async function cloudFlags(host: string): Promise<Record<string, number>> {
  const { results } = await env.DB.prepare("SELECT name, cloud FROM tools WHERE host = ? ORDER BY name")
    .bind(host)
    .all<{ name: string; cloud: number }>();
  return Object.fromEntries(results.map((r) => [r.name, r.cloud]));
}

const endpoint = (host: string) => `${BASE}/mcp/sites/${encodeURIComponent(host)}`;

function setCloud(host: string, body: unknown, headers: Record<string, string>) {
  return api(`/api/sites/${host}/cloud`, {
    method: "PUT",
    headers: { ...headers, "content-type": "application/json" },
    ...(typeof body === "string" ? { body } : { json: body }),
  });
}

describe("the manifest's cloud key", () => {
  it("is refused on a tool that is not read-only, at tools[i].cloud with why, and nothing is stored", async () => {
    const { host, key } = await verifiedSite();
    for (const annotations of [undefined, { readOnlyHint: false }, { readOnlyHint: "false" }]) {
      const res = await publish(host, key, {
        tools: [reader("fine"), tool("writer", { cloud: true, pages: ["/"], annotations })],
      });
      const error = await expectError(res, 422, "invalid_manifest");
      expect(error.issues).toEqual([
        {
          path: "tools[1].cloud",
          message:
            "cloud runs are for read-only tools: set annotations.readOnlyHint to true, or remove cloud",
        },
      ]);
      expect(error.message).toContain("tools[1].cloud");
    }
    expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", host)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM tools WHERE host = ?", host)).toBe(0);
  });

  it("is refused on a tool with no page, and a wrong type is refused at the same path", async () => {
    const { host, key } = await verifiedSite();
    for (const pages of [undefined, []]) {
      const error = await expectError(
        await publish(host, key, { tools: [reader("no-page", { pages })] }),
        422,
        "invalid_manifest",
      );
      expect(error.issues).toEqual([
        {
          path: "tools[0].cloud",
          message:
            'cloud needs a page in pages that registers the tool (a path on your site, like "/"), or remove cloud',
        },
      ]);
    }
    const typed = await expectError(
      await publish(host, key, { tools: [reader("typed", { cloud: "yes" })] }),
      422,
      "invalid_manifest",
    );
    expect(typed.issues?.[0]?.path).toBe("tools[0].cloud");
    expect(await count("SELECT count(*) AS n FROM manifest_versions WHERE host = ?", host)).toBe(0);
  });

  it('accepts readOnlyHint given as the string "true", and `"cloud": false` anywhere', async () => {
    const { host, key } = await verifiedSite();
    const res = await publish(host, key, {
      tools: [
        reader("stringly", { annotations: { readOnlyHint: "true" } }),
        tool("writer", { cloud: false }),
      ],
    });
    expect(res.status).toBe(201);
    expect(await cloudFlags(host)).toEqual({ stringly: 1, writer: 0 });
  });

  it("is described in the manifest's JSON Schema", async () => {
    const schema = (await (await api("/schema/manifest.json")).json()) as any;
    expect(schema).toEqual(manifestJsonSchema());
    const toolSchema = schema.properties.tools.items;
    expect(toolSchema.properties.cloud.type).toBe("boolean");
    expect(toolSchema.properties.cloud.description).toMatch(/readOnlyHint/);
    expect(toolSchema.properties.cloud.description).toMatch(/pages/);
  });
});

describe("the pages that explain it", () => {
  it("the docs and the publish page say what cloud does and what it needs", async () => {
    const docs = await (await SELF.fetch(`${BASE}/docs`)).text();
    expect(docs).toContain('id="cloud"');
    expect(docs).toContain(`${BASE}/mcp/sites/&lt;host&gt;`);
    expect(docs).toContain("tools[i].cloud");
    const publishPage = await (await SELF.fetch(`${BASE}/publish`)).text();
    expect(publishPage).toContain('href="/docs#cloud"');
    expect(publishPage).toContain("annotations.readOnlyHint: true");
  });
});

describe("the stored flag", () => {
  it("follows each publish and refresh, and never changes a tool's definition digest", async () => {
    const s = await verifiedSite();
    expect((await publish(s.host, s.key, { tools: [reader("books"), tool("add-book")] })).status).toBe(201);
    expect(await cloudFlags(s.host)).toEqual({ "add-book": 0, books: 1 });
    const digestOf = async () =>
      (await env.DB.prepare("SELECT digest FROM tools WHERE host = ? AND name = 'books'")
        .bind(s.host)
        .first<{ digest: string }>())!.digest;
    const withCloud = await digestOf();

    // Republished without the flag: no longer cloud, same definition, same digest.
    const { cloud: _c, ...plain } = reader("books") as Record<string, unknown>;
    expect((await publish(s.host, s.key, { tools: [plain, tool("add-book")] })).status).toBe(201);
    expect(await cloudFlags(s.host)).toEqual({ "add-book": 0, books: 0 });
    expect(await digestOf()).toBe(withCloud);
    expect(await definitionDigest(reader("books") as never)).toBe(await definitionDigest(plain as never));

    // Pulled from the site with the flag again.
    await s.origin_.setRoutes({
      "/.well-known/webmcp.json": {
        body: JSON.stringify({ tools: [reader("books")] }),
        headers: { "content-type": "application/json" },
      },
    });
    const res = await api(`/api/sites/${s.host}/manifest/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect(res.status).toBe(201);
    expect(await cloudFlags(s.host)).toEqual({ books: 1 });
    expect(await digestOf()).toBe(withCloud);
    const manifest = (await (await api(`/api/sites/${s.host}/manifest`)).json()) as any;
    expect(manifest.manifest.tools[0].cloud).toBe(true);
    expect(manifest.digests.books).toBe(withCloud);
  });
});

describe("the owner's switch, PUT /api/sites/:host/cloud", () => {
  it("turns cloud runs off and on for the whole site with the publisher key, answering the site", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [reader("books")] });
    const auth = { authorization: `Bearer ${key}` };
    const off = await setCloud(host, { enabled: false }, auth);
    expect(off.status).toBe(200);
    expect(((await off.json()) as any).site).toMatchObject({ host, cloudEnabled: false });
    expect(await cloudTools(db(), host, true)).toEqual([]);
    const again = await setCloud(host, { enabled: false }, auth);
    expect(again.status).toBe(200);
    const on = await setCloud(host, { enabled: true }, auth);
    expect(((await on.json()) as any).site).toMatchObject({ host, cloudEnabled: true });
    expect((await cloudTools(db(), host, true)).map((t) => t.tool.name)).toEqual(["books"]);
    const view = (await (await api(`/api/sites/${host}`)).json()) as any;
    expect(view.site.cloudEnabled).toBe(true);
  });

  it("answers to the owning account's session, and refuses everyone else", async () => {
    const { host, key } = await verifiedSite();
    const me = await signedInAccount();
    expect(
      (
        await api("/api/account/sites/claim", {
          method: "POST",
          headers: me.headers,
          json: { publisherKey: key },
        })
      ).status,
    ).toBe(201);
    const mine = await setCloud(host, { enabled: false }, me.headers);
    expect(mine.status).toBe(200);
    expect(((await mine.json()) as any).site.cloudEnabled).toBe(false);

    const other = await signedInAccount("Other");
    await expectError(await setCloud(host, { enabled: true }, other.headers), 403, "forbidden");
    await expectError(await setCloud(host, { enabled: true }, {}), 401, "unauthorized");
    const stranger = await verifiedSite();
    await expectError(
      await setCloud(host, { enabled: true }, { authorization: `Bearer ${stranger.key}` }),
      403,
      "forbidden",
    );
    await expectError(
      await setCloud("nowhere.example", { enabled: true }, me.headers),
      404,
      "site_not_found",
    );
    const row = await env.DB.prepare("SELECT cloud_enabled AS on_ FROM sites WHERE host = ?")
      .bind(host)
      .first<{ on_: number }>();
    expect(row!.on_).toBe(0);
  });

  it("refuses a body that is not {enabled: boolean}, changing nothing", async () => {
    const { host, key } = await verifiedSite();
    const auth = { authorization: `Bearer ${key}` };
    for (const body of [{}, { enabled: "false" }, { enabled: false, extra: 1 }, []]) {
      const error = await expectError(await setCloud(host, body, auth), 400, "validation_failed");
      expect(error.message).toMatch(/enabled|extra|object/);
    }
    await expectError(await setCloud(host, "{not json", auth), 400, "invalid_json");
    const row = await env.DB.prepare("SELECT cloud_enabled AS on_ FROM sites WHERE host = ?")
      .bind(host)
      .first<{ on_: number }>();
    expect(row!.on_).toBe(1);
  });
});

describe("which tools are cloud-capable", () => {
  it("gives the run's facts for a cloud tool: its origin, first page as a URL, definition and digest", async () => {
    const { host, origin, key } = await verifiedSite();
    await publish(host, key, {
      tools: [reader("books", { pages: ["/reading.html", "/"] }), tool("add-book")],
    });
    const found = await cloudTool(db(), host, "books", true);
    expect(found).toMatchObject({
      ok: true,
      site: host,
      origin,
      page: `${origin}/reading.html`,
      tool: { name: "books", cloud: true, annotations: { readOnlyHint: true } },
    });
    const digest = (await (await api(`/api/sites/${host}/manifest`)).json()) as any;
    expect(found.ok && found.digest).toBe(digest.digests.books);
    expect(await cloudTools(db(), host, true)).toEqual([
      {
        site: host,
        origin,
        page: `${origin}/reading.html`,
        tool: expect.objectContaining({ name: "books" }),
        digest: digest.digests.books,
      },
    ]);
  });

  it("keeps a page that looks like another host on the site's own origin", async () => {
    const { host, origin, key } = await verifiedSite();
    await publish(host, key, {
      tools: [
        reader("slashes", { pages: ["//evil.example/x"] }),
        reader("backslash", { pages: ["/\\evil.example"] }),
      ],
    });
    for (const name of ["slashes", "backslash"]) {
      const found = await cloudTool(db(), host, name, true);
      expect(found.ok, name).toBe(true);
      expect(found.ok && new URL(found.page).origin, name).toBe(origin);
    }
  });

  it("says why not: hub off, not cloud, unknown tool or site, owner's switch, delisted, lapsed", async () => {
    const { host, key } = await verifiedSite();
    await publish(host, key, { tools: [reader("books"), tool("add-book")] });
    const why = async (name = "books", h = host, runs = true) => {
      const r = await cloudTool(db(), h, name, runs);
      return r.ok ? "ok" : r.reason;
    };
    expect(await why()).toBe("ok");
    expect(await why("books", host, false)).toBe("disabled");
    expect(await cloudTools(db(), host, false)).toEqual([]);
    expect(await why("add-book")).toBe("not_cloud");
    expect(await why("nope")).toBe("unpublished");
    expect(await why("books", "nowhere.example")).toBe("site_not_found");
    const auth = { authorization: `Bearer ${key}` };

    await setCloud(host, { enabled: false }, auth);
    expect(await why()).toBe("disabled");
    const refused = await cloudTool(db(), host, "books", true);
    expect(refused.ok ? "" : refused.message).toContain("owner");
    await setCloud(host, { enabled: true }, auth);

    await api(`/api/sites/${host}/delist`, { method: "POST", headers: auth });
    expect(await why()).toBe("site_delisted");
    expect(await cloudTools(db(), host, true)).toEqual([]);
    await api(`/api/sites/${host}/relist`, { method: "POST", headers: auth });
    expect(await why()).toBe("ok");

    await env.DB.prepare("UPDATE sites SET status = 'unverified' WHERE host = ?").bind(host).run();
    expect(await why()).toBe("site_unverified");
    expect(await cloudTools(db(), host, true)).toEqual([]);
  });
});

describe("the views", () => {
  async function cloudSite() {
    const s = await verifiedSite();
    await publish(s.host, s.key, {
      name: "Cloud reading list",
      tools: [reader("list-cloudbooks"), tool("add-cloudbook")],
    });
    return s;
  }

  it("/api/tools and /api/sites/:host say which tools run in the cloud and give the site's endpoint", async () => {
    const { host, key } = await cloudSite();
    const listed = (await (await api(`/api/tools?site=${encodeURIComponent(host)}`)).json()) as any;
    expect(listed.tools.map((t: any) => [t.name, t.cloud, t.cloudEndpoint])).toEqual([
      ["add-cloudbook", false, null],
      ["list-cloudbooks", true, endpoint(host)],
    ]);
    const site = (await (await api(`/api/sites/${host}`)).json()) as any;
    expect(site.cloudEndpoint).toBe(endpoint(host));
    expect(site.manifest.tools.map((t: any) => [t.name, t.cloud, t.cloudEndpoint])).toEqual([
      ["add-cloudbook", false, null],
      ["list-cloudbooks", true, endpoint(host)],
    ]);

    await setCloud(host, { enabled: false }, { authorization: `Bearer ${key}` });
    const off = (await (await api(`/api/tools?site=${encodeURIComponent(host)}`)).json()) as any;
    expect(off.tools.map((t: any) => t.cloud)).toEqual([false, false]);
    const offSite = (await (await api(`/api/sites/${host}`)).json()) as any;
    expect(offSite.cloudEndpoint).toBeNull();
    expect(offSite.site.cloudEnabled).toBe(false);
  });

  it("say no tool runs in the cloud while the hub's runs are off", async () => {
    const { host } = await cloudSite();
    const off = { hub: BASE, runs: false };
    const found = await searchTools(db(), { site: host, limit: 10 }, off);
    expect(found.tools.map((t) => [t.cloud, t.cloudEndpoint])).toEqual([
      [false, null],
      [false, null],
    ]);
    expect((await siteTools(db(), host, off)).some((t) => t.cloud)).toBe(false);
    const on = await siteTools(db(), host, { hub: BASE, runs: true });
    expect(on.map((t) => t.cloud)).toEqual([false, true]);
  });

  it("/mcp/registry's search_tools and get_site say so too", async () => {
    const { host } = await cloudSite();
    const client = new Client({ name: "cloud-views-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
        fetch: (url, init) => SELF.fetch(url, init),
      }),
    );
    const search = await client.callTool({
      name: "search_tools",
      arguments: { query: "cloudbook", site: host },
    });
    expect(search.isError).toBeFalsy();
    const found = (search.structuredContent as any).tools;
    expect(found.map((t: any) => [t.name, t.cloud, t.cloudEndpoint]).sort()).toEqual([
      ["add-cloudbook", false, null],
      ["list-cloudbooks", true, endpoint(host)],
    ]);
    expect((search.content as Array<{ text: string }>)[0]!.text).toContain(
      `runs in the cloud: ${endpoint(host)}`,
    );
    const site = await client.callTool({ name: "get_site", arguments: { site: host } });
    expect(site.structuredContent).toMatchObject({
      cloudEndpoint: endpoint(host),
      cloudTools: ["list-cloudbooks"],
    });
    expect((site.content as Array<{ text: string }>)[0]!.text).toContain(endpoint(host));
    await client.close();
  });

  it("the tool and site pages show a cloud tool's endpoint, and nothing for the others", async () => {
    const { host } = await cloudSite();
    const page = async (path: string) => (await SELF.fetch(BASE + path)).text();
    const cloudPage = await page(`/sites/${encodeURIComponent(host)}/tools/list-cloudbooks`);
    expect(cloudPage).toContain(endpoint(host));
    expect(cloudPage).toContain("Runs in the cloud");
    const tabPage = await page(`/sites/${encodeURIComponent(host)}/tools/add-cloudbook`);
    expect(tabPage).not.toContain(endpoint(host));
    const sitePage = await page(`/sites/${encodeURIComponent(host)}`);
    expect(sitePage).toContain(endpoint(host));
  });

  it("the site page gives its owner the cloud switch and the cloud calls, and no one else", async () => {
    const { host, key } = await cloudSite();
    const me = await signedInAccount();
    await api("/api/account/sites/claim", {
      method: "POST",
      headers: me.headers,
      json: { publisherKey: key },
    });
    const path = `/sites/${encodeURIComponent(host)}`;
    const ownerPage = async () =>
      withOwnerSections(await (await SELF.fetch(BASE + path, { headers: { cookie: me.cookie } })).text());
    const mine = await ownerPage();
    expect(mine).toContain('id="cloud-switch"');
    expect(mine).toContain("Turn cloud runs off");
    expect(mine).toContain("list-cloudbooks.");
    // The runner's counts come through the CLOUD binding, which answers nothing here.
    expect(mine).toContain("The counts of cloud calls are not available right now.");
    expect(mine).toContain("/assets/site-owner.js");
    const other = await signedInAccount("Other");
    const theirs = await (await SELF.fetch(BASE + path, { headers: { cookie: other.cookie } })).text();
    expect(theirs).not.toContain('id="site-owner"');
    expect(await withOwnerSections(theirs)).not.toContain('id="cloud-switch"');
    expect(await (await SELF.fetch(BASE + path)).text()).not.toContain('id="site-owner"');

    await setCloud(host, { enabled: false }, me.headers);
    const off = await ownerPage();
    expect(off).toContain("Turn cloud runs on");
    expect(off).not.toContain(endpoint(host));
  });

  it("the owner's section shows the runner's daily counts of cloud calls and failures", async () => {
    const { host } = await cloudSite();
    const asked: string[] = [];
    const runner = (answer: () => Response) => ({
      CLOUD: {
        fetch: async (url: string) => {
          asked.push(url);
          return answer();
        },
      },
    });
    const days = [
      { day: "2026-11-26", calls: 5, ok: 3, failures: { timeout: 1, budget: 1 }, browserMs: 4200 },
      { day: "2026-11-25", calls: 0, ok: 0, failures: {}, browserMs: 0 },
    ];
    const stats = await cloudStats(
      runner(() => Response.json({ site: host, days })),
      host,
    );
    expect(asked).toEqual([`https://cloud.internal/stats?site=${encodeURIComponent(host)}&days=7`]);
    expect(stats).toEqual(days);
    // Anything else is "not available", never a failed page.
    expect(await cloudStats({}, host)).toBeNull();
    expect(
      await cloudStats(
        runner(() => new Response("no", { status: 503 })),
        host,
      ),
    ).toBeNull();
    expect(
      await cloudStats(
        runner(() => Response.json({ site: host, days: "many" })),
        host,
      ),
    ).toBeNull();
    const broken = {
      CLOUD: {
        fetch: async () => {
          throw new Error("gone");
        },
      },
    };
    expect(await cloudStats(broken, host)).toBeNull();

    const site = await getVerifiedSite(db(), host);
    const page = SitePage({
      site: siteView(site),
      tools: await siteTools(db(), host, { hub: BASE, runs: false }),
      versions: [],
      shown: null,
      diff: null,
      now: Date.now(),
      owner: { flagged: ["list-cloudbooks"], stats, runs: false },
    });
    const html = await withOwnerSections(
      String(await (page as unknown as { toString(): Promise<string> }).toString()),
    );
    expect(html).toContain('id="cloud-stats"');
    expect(html).toContain("timeout 1, budget 1");
    expect(html).toContain("4.2 s");
    expect(html).toContain("Cloud runs are off on this hub");
  });
});
