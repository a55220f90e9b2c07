// Feeds for mirrors (src/worker/registry/feeds.ts) and delisting: /api/sites?updated_since= and
// /api/tools?updated_since= paged with cursors in (updatedAt, key) order, tombstones for delisted sites, a
// delisted site out of search, listings and its pages (410), relisting, and bad input.
import { env, SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { api, BASE, expectError, publish, tool, verifiedSite } from "./helpers.js";
import { signedInAccount } from "./account-helpers.js";

const T0 = Date.UTC(2001, 0, 1);
const iso = (ms: number) => new Date(ms).toISOString();

interface SiteEntry {
  host: string;
  status: string;
  updatedAt: string;
  delistedAt?: string;
  currentVersion?: number | null;
  verifyError?: string | null;
}
interface ToolEntry {
  host: string;
  name: string;
  version: number;
  digest: string | null;
  updatedAt: string;
}

/** Follows nextCursor to the end; returns every entry and how many pages it took. */
async function drain<E>(path: string, key: "sites" | "tools"): Promise<{ entries: E[]; pages: number }> {
  const entries: E[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const res = await api(path + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""));
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown> & { nextCursor: string | null };
    entries.push(...(body[key] as E[]));
    cursor = body.nextCursor;
    pages++;
  } while (cursor);
  return { entries, pages };
}

async function insertSite(
  host: string,
  updatedAt: number,
  extra: { status?: string; delistedAt?: number } = {},
) {
  await env.DB.prepare(
    `INSERT INTO sites (host, origin, status, verification_method, verified_at, name, created_at, updated_at,
       delisted_at, current_version, tool_count) VALUES (?, ?, ?, 'http', ?, ?, ?, ?, ?, 1, 1)`,
  )
    .bind(
      host,
      `https://${host}`,
      extra.status ?? "verified",
      T0,
      `Site ${host}`,
      T0,
      updatedAt,
      extra.delistedAt ?? null,
    )
    .run();
}

async function insertTool(host: string, name: string, updatedAt: number, digest: string | null) {
  await env.DB.prepare(
    `INSERT INTO tools (host, version, name, description, input_schema, updated_at, digest)
     VALUES (?, 1, ?, 'A tool of the feed test.', '{"type":"object"}', ?, ?)`,
  )
    .bind(host, name, updatedAt, digest)
    .run();
}

const byKey =
  <E extends { updatedAt: string }>(key: (e: E) => string) =>
  (a: E, b: E) =>
    a.updatedAt < b.updatedAt
      ? -1
      : a.updatedAt > b.updatedAt
        ? 1
        : key(a) < key(b)
          ? -1
          : key(a) > key(b)
            ? 1
            : 0;

describe("the sites feed", () => {
  it("pages every change since updated_since in (updatedAt, host) order, tombstones included, pending never", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const hosts: string[] = [];
    for (let i = 0; i < 23; i++) {
      const host = `s${String(i).padStart(2, "0")}-${tag}.feed.example`;
      hosts.push(host);
      // Three sites share each millisecond: the host breaks the tie, and pages split inside a tie.
      await insertSite(host, T0 + 10 + Math.floor((22 - i) / 3));
    }
    await insertSite(`pending-${tag}.feed.example`, T0 + 11, { status: "pending" });
    await insertSite(`gone-${tag}.feed.example`, T0 + 12, { delistedAt: T0 + 12 });
    await insertSite(`before-${tag}.feed.example`, T0 + 9);

    const { entries, pages } = await drain<SiteEntry>(
      `/api/sites?updated_since=${iso(T0 + 10)}&limit=4`,
      "sites",
    );
    const mine = entries.filter((e) => e.host.endsWith(`${tag}.feed.example`));
    expect(mine.map((e) => e.host).sort()).toEqual([...hosts, `gone-${tag}.feed.example`].sort());
    expect(pages).toBeGreaterThanOrEqual(6);
    // Each entry once, in order (the whole feed, not only this test's rows).
    expect(new Set(entries.map((e) => e.host)).size).toBe(entries.length);
    expect([...entries].sort(byKey<SiteEntry>((e) => e.host))).toEqual(entries);
    expect(entries.every((e) => e.updatedAt >= iso(T0 + 10))).toBe(true);

    const tomb = mine.find((e) => e.host.startsWith("gone-"));
    expect(tomb).toEqual({
      host: `gone-${tag}.feed.example`,
      status: "delisted",
      delistedAt: iso(T0 + 12),
      updatedAt: iso(T0 + 12),
    });
    const live = mine.find((e) => e.host === hosts[0]);
    expect(live).toMatchObject({
      status: "verified",
      currentVersion: 1,
      updatedAt: iso(T0 + 17),
      verifyError: null,
    });

    // Resuming from the last updatedAt a mirror stored is inclusive: that entry comes again, nothing older.
    const last = mine[mine.length - 1]!;
    const again = (await (await api(`/api/sites?updated_since=${last.updatedAt}&limit=100`)).json()) as {
      sites: SiteEntry[];
    };
    expect(again.sites.some((e) => e.host === last.host)).toBe(true);
    expect(again.sites.every((e) => e.updatedAt >= last.updatedAt)).toBe(true);
  });

  it("without updated_since, /api/sites lists verified sites as before (no tombstones)", async () => {
    const res = await api("/api/sites?limit=100&sort=recent");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { sites: Array<{ status: string; delistedAt: string | null }> };
    expect(body.sites.every((s) => s.status === "verified" && s.delistedAt === null)).toBe(true);
  });
});

describe("the tools feed", () => {
  it("pages current tools of listed sites in (updatedAt, id) order with host, name, version and digest", async () => {
    const tag = crypto.randomUUID().slice(0, 8);
    const a = `a-${tag}.feed.example`;
    const b = `b-${tag}.feed.example`;
    const gone = `gone-${tag}.feed.example`;
    await insertSite(a, T0 + 50);
    await insertSite(b, T0 + 50);
    await insertSite(gone, T0 + 50, { delistedAt: T0 + 50 });
    const want: string[] = [];
    for (let i = 0; i < 17; i++) {
      const host = i % 2 ? a : b;
      await insertTool(host, `t${i}`, T0 + 40 + Math.floor(i / 4), i % 3 ? "ab".repeat(32) : null);
      want.push(`${host}/t${i}`);
    }
    await insertTool(gone, "hidden", T0 + 41, null);

    const { entries, pages } = await drain<ToolEntry>(
      `/api/tools?updated_since=${iso(T0 + 40)}&limit=5`,
      "tools",
    );
    const mine = entries.filter((e) => e.host.endsWith(`${tag}.feed.example`));
    // Inserted in (updatedAt, id) order, so the feed gives them back in insertion order.
    expect(mine.map((e) => `${e.host}/${e.name}`)).toEqual(want);
    expect(pages).toBeGreaterThanOrEqual(4);
    expect(new Set(entries.map((e) => `${e.host}/${e.name}`)).size).toBe(entries.length);
    expect(mine[0]).toMatchObject({ host: b, name: "t0", version: 1, digest: null, updatedAt: iso(T0 + 40) });
    expect(mine[1]).toMatchObject({ name: "t1", digest: "ab".repeat(32) });
    expect(entries.some((e) => e.host === gone)).toBe(false);
  });
});

describe("delisting", () => {
  it("a publisher delists with its key: a tombstone in the feed, out of search and listings, its pages 410; relist brings it back", async () => {
    const site = await verifiedSite();
    expect((await publish(site.host, site.key, { tools: [tool("find_delisted_widget")] })).status).toBe(201);
    const since = iso(Date.now() - 1);
    const searchHits = async () =>
      (
        (await (await api(`/api/tools?q=find_delisted_widget&site=${site.host}`)).json()) as {
          tools: unknown[];
        }
      ).tools.length;
    expect(await searchHits()).toBe(1);

    await expectError(await api(`/api/sites/${site.host}/delist`, { method: "POST" }), 401, "unauthorized");
    const other = await verifiedSite();
    await expectError(
      await api(`/api/sites/${site.host}/delist`, {
        method: "POST",
        headers: { authorization: `Bearer ${other.key}` },
      }),
      403,
      "forbidden",
    );
    const res = await api(`/api/sites/${site.host}/delist`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.key}` },
    });
    expect(res.status).toBe(200);
    const { site: view } = (await res.json()) as { site: { delistedAt: string | null } };
    expect(view.delistedAt).not.toBeNull();

    const feed = await drain<SiteEntry>(`/api/sites?updated_since=${since}&limit=50`, "sites");
    expect(feed.entries.find((e) => e.host === site.host)).toEqual({
      host: site.host,
      status: "delisted",
      delistedAt: view.delistedAt,
      updatedAt: view.delistedAt,
    });
    const tools = await drain<ToolEntry>(`/api/tools?updated_since=${iso(0)}&limit=100`, "tools");
    expect(tools.entries.some((e) => e.host === site.host)).toBe(false);
    expect(await searchHits()).toBe(0);
    const listed = await drain<{ host: string }>(`/api/sites?sort=recent&limit=100`, "sites");
    expect(listed.entries.some((e) => e.host === site.host)).toBe(false);
    await expectError(await api(`/api/sites/${site.host}`), 410, "site_delisted");
    await expectError(await api(`/api/sites/${site.host}/tools`), 410, "site_delisted");
    const page = await api(`/sites/${site.host}`);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain("was delisted by its publisher");
    expect((await api(`/sites/${site.host}/tools/find_delisted_widget`)).status).toBe(410);

    const beforeRelist = iso(Date.now());
    const relisted = await api(`/api/sites/${site.host}/relist`, {
      method: "POST",
      headers: { authorization: `Bearer ${site.key}` },
    });
    expect(relisted.status).toBe(200);
    expect(await searchHits()).toBe(1);
    expect((await api(`/api/sites/${site.host}`)).status).toBe(200);
    // Its tools get a new updatedAt, so a mirror that dropped them on the tombstone finds them again.
    const back = await drain<ToolEntry>(`/api/tools?updated_since=${beforeRelist}&limit=100`, "tools");
    expect(back.entries.filter((e) => e.host === site.host).map((e) => e.name)).toEqual([
      "find_delisted_widget",
    ]);
    const siteBack = await drain<SiteEntry>(`/api/sites?updated_since=${beforeRelist}&limit=100`, "sites");
    expect(siteBack.entries.find((e) => e.host === site.host)).toMatchObject({
      status: "verified",
      currentVersion: 1,
    });
  });

  it("republishing relists a delisted site", async () => {
    const site = await verifiedSite();
    const auth = { authorization: `Bearer ${site.key}` };
    expect((await publish(site.host, site.key, { tools: [tool("republished_tool")] })).status).toBe(201);
    expect((await api(`/api/sites/${site.host}/delist`, { method: "POST", headers: auth })).status).toBe(200);
    // The same manifest again: nothing new is stored, but the publish is the publisher's word to list it.
    expect((await publish(site.host, site.key, { tools: [tool("republished_tool")] })).status).toBe(200);
    const body = (await (await api(`/api/sites/${site.host}`)).json()) as {
      site: { delistedAt: string | null };
    };
    expect(body.site.delistedAt).toBeNull();
  });

  it("the signed-in owner account may delist without the key; another account may not", async () => {
    const site = await verifiedSite();
    const me = await signedInAccount();
    const claimed = await api("/api/account/sites/claim", {
      method: "POST",
      headers: me.headers,
      json: { publisherKey: site.key },
    });
    expect(claimed.status).toBe(201);
    const other = await signedInAccount("Other");
    await expectError(
      await api(`/api/sites/${site.host}/delist`, { method: "POST", headers: other.headers }),
      403,
      "forbidden",
    );
    expect(
      (await api(`/api/sites/${site.host}/delist`, { method: "POST", headers: me.headers })).status,
    ).toBe(200);
    await expectError(await api(`/api/sites/${site.host}`), 410, "site_delisted");
    expect(
      (await api(`/api/sites/${site.host}/relist`, { method: "POST", headers: me.headers })).status,
    ).toBe(200);
    expect((await api(`/api/sites/${site.host}`)).status).toBe(200);
  });
});

describe("a delisted site in /mcp/registry", () => {
  it("search_tools no longer finds its tools and get_site says it was delisted", async () => {
    const site = await verifiedSite();
    expect((await publish(site.host, site.key, { tools: [tool("registry_delist_probe")] })).status).toBe(201);
    const client = new Client({ name: "feeds-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${BASE}/mcp/registry`), {
        fetch: (url, init) => SELF.fetch(url, init),
      }),
    );
    const found = async () =>
      (
        (
          await client.callTool({
            name: "search_tools",
            arguments: { query: "registry_delist_probe", limit: 5 },
          })
        ).structuredContent as { tools: Array<{ site: string }> }
      ).tools.filter((t) => t.site === site.host).length;
    expect(await found()).toBe(1);
    const auth = { authorization: `Bearer ${site.key}` };
    expect((await api(`/api/sites/${site.host}/delist`, { method: "POST", headers: auth })).status).toBe(200);
    expect(await found()).toBe(0);
    const got = await client.callTool({ name: "get_site", arguments: { host: site.host } });
    expect(got.isError).toBe(true);
    expect((got.content as Array<{ text: string }>)[0]!.text).toContain("was delisted by its publisher");
    await client.close();
  });
});

describe("bad feed input", () => {
  it("refuses a malformed or future updated_since, a foreign or forged cursor, and feed plus search filters", async () => {
    for (const bad of [
      "yesterday",
      "2026-13-01T00:00:00Z",
      "2026-01-01",
      "2026-01-01T00:00:00",
      "1700000000",
      "",
    ]) {
      for (const feed of ["sites", "tools"]) {
        const err = await expectError(
          await api(`/api/${feed}?updated_since=${encodeURIComponent(bad)}`),
          400,
          "bad_request",
        );
        expect(err.message).toContain("RFC 3339");
      }
    }
    const future = iso(Date.now() + 60 * 60 * 1000);
    for (const feed of ["sites", "tools"]) {
      const err = await expectError(await api(`/api/${feed}?updated_since=${future}`), 400, "bad_request");
      expect(err.message).toContain("in the future");
    }
    await expectError(await api(`/api/sites?updated_since=${iso(0)}&cursor=nonsense`), 400, "invalid_cursor");
    // A cursor of the listing (or of the other feed) is not a feed cursor.
    const listing = (await (await api("/api/sites?limit=1")).json()) as { nextCursor: string | null };
    if (listing.nextCursor)
      await expectError(
        await api(`/api/sites?updated_since=${iso(0)}&cursor=${listing.nextCursor}`),
        400,
        "invalid_cursor",
      );
    const toolsPage = (await (await api(`/api/tools?updated_since=${iso(0)}&limit=1`)).json()) as {
      nextCursor: string | null;
    };
    if (toolsPage.nextCursor)
      await expectError(
        await api(`/api/sites?updated_since=${iso(0)}&cursor=${toolsPage.nextCursor}`),
        400,
        "invalid_cursor",
      );
    await expectError(await api(`/api/tools?updated_since=${iso(0)}&q=weather`), 400, "bad_request");
    await expectError(await api(`/api/tools?updated_since=${iso(0)}&readOnly=true`), 400, "bad_request");
  });
});
