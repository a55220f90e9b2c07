// Tool search over the API: ranking, filters, stable cursors, bad input.
import { describe, expect, it, beforeAll } from "vitest";
import { api, expectError, publish, tool, verifiedSite } from "./helpers.js";

let shop: string;
let gallery: string;

beforeAll(async () => {
  const a = await verifiedSite();
  shop = a.host;
  await publish(a.host, a.key, {
    name: "Zebra Stamps",
    tools: [
      tool("add-stamp", { description: "Add a new stamp to the collection." }),
      tool("buyProduct", { description: "Purchase a product given its unique product_id." }),
      tool("get-dresses", {
        description: "Returns product listings of dresses.",
        annotations: { readOnlyHint: true },
      }),
      tool("zebra_catalog.search", {
        description: "Search the zebra catalog.",
        annotations: { readOnlyHint: true },
      }),
    ],
  });
  const b = await verifiedSite();
  gallery = b.host;
  await publish(b.host, b.key, {
    tools: [
      tool("frame-picture", { description: "Put a picture in a zebra frame." }),
      ...Array.from({ length: 25 }, (_, i) =>
        tool(`zebra-${String(i).padStart(2, "0")}`, {
          description: `Zebra item number ${i}.`,
          annotations: { readOnlyHint: i % 2 === 0 },
        }),
      ),
    ],
  });
});

type Page = {
  tools: Array<{ site: string; name: string; readOnly: boolean; inputSchema: unknown }>;
  nextCursor: string | null;
};
const get = async (qs: string) => (await (await api(`/api/tools?${qs}`)).json()) as Page;

describe("searching tools", () => {
  it("ranks a name match above a description-only match", async () => {
    const page = await get("q=stamp");
    expect(page.tools[0]).toMatchObject({ site: shop, name: "add-stamp" });
  });

  it("finds camelCase and dotted names by their parts, as word prefixes", async () => {
    expect((await get("q=product")).tools.map((t) => t.name)).toContain("buyProduct");
    expect((await get("q=catal")).tools.map((t) => t.name)).toContain("zebra_catalog.search");
  });

  it("requires every word to match", async () => {
    const names = (await get("q=zebra%20frame")).tools.map((t) => t.name);
    expect(names).toEqual(["frame-picture"]);
  });

  it("filters by site and by read-only", async () => {
    const onlyShop = await get(`q=zebra&site=${shop}`);
    expect(onlyShop.tools.every((t) => t.site === shop)).toBe(true);
    expect(onlyShop.tools.length).toBeGreaterThan(0);
    const ro = await get(`site=${gallery}&readOnly=true&limit=100`);
    expect(ro.tools.length).toBe(13);
    expect(ro.tools.every((t) => t.readOnly)).toBe(true);
    const rw = await get(`site=${gallery}&readOnly=false&limit=100`);
    expect(rw.tools.every((t) => !t.readOnly)).toBe(true);
  });

  it("pages through ranked results with cursors, without repeats or gaps", async () => {
    const all = (await get(`q=zebra&limit=100`)).tools.map((t) => `${t.site}/${t.name}`);
    expect(all.length).toBe(27);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Page = await get(`q=zebra&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
      seen.push(...page.tools.map((t) => `${t.site}/${t.name}`));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("pages through unranked listings with cursors too", async () => {
    const first = await get(`site=${gallery}&limit=10`);
    const second = await get(`site=${gallery}&limit=10&cursor=${encodeURIComponent(first.nextCursor!)}`);
    expect(first.tools.length).toBe(10);
    expect(new Set([...first.tools, ...second.tools].map((t) => t.name)).size).toBe(20);
  });

  it("refuses a tampered cursor and a cursor from another query", async () => {
    const page = await get("q=zebra&limit=2");
    await expectError(await api(`/api/tools?q=zebra&cursor=garbage!!`), 400, "invalid_cursor");
    await expectError(
      await api(`/api/tools?q=zebra&cursor=${encodeURIComponent(page.nextCursor!.slice(0, -4))}`),
      400,
      "invalid_cursor",
    );
    const other = await expectError(
      await api(`/api/tools?q=stamp&cursor=${encodeURIComponent(page.nextCursor!)}`),
      400,
      "invalid_cursor",
    );
    expect(other.message).toContain("different query");
  });

  it("answers bad parameters with 400 and the field", async () => {
    expect(
      (await expectError(await api("/api/tools?limit=0"), 400, "validation_failed")).issues?.[0]?.path,
    ).toBe("limit");
    expect(
      (await expectError(await api("/api/tools?limit=abc"), 400, "validation_failed")).issues?.[0]?.path,
    ).toBe("limit");
    expect(
      (await expectError(await api("/api/tools?readOnly=maybe"), 400, "validation_failed")).issues?.[0]?.path,
    ).toBe("readOnly");
    await expectError(await api(`/api/tools?q=${"a".repeat(201)}`), 400, "validation_failed");
  });

  it("treats FTS syntax in the query as plain words", async () => {
    const res = await api(`/api/tools?q=${encodeURIComponent('zebra" OR NEAR(* -')}`);
    expect(res.status).toBe(200);
    const punctuationOnly = await get(`q=${encodeURIComponent('"*()')}&site=${shop}`);
    expect(punctuationOnly.tools.length).toBe(4);
  });
});

describe("listing sites", () => {
  it("lists verified sites with cursors", async () => {
    const first = (await (await api("/api/sites?limit=1")).json()) as {
      sites: Array<{ host: string }>;
      nextCursor: string;
    };
    expect(first.sites.length).toBe(1);
    const second = (await (
      await api(`/api/sites?limit=1&cursor=${encodeURIComponent(first.nextCursor)}`)
    ).json()) as { sites: Array<{ host: string }> };
    expect(second.sites[0]!.host > first.sites[0]!.host).toBe(true);
    const recent = (await (await api("/api/sites?sort=recent&limit=100")).json()) as {
      sites: Array<{ host: string }>;
    };
    expect(recent.sites.map((s) => s.host)).toEqual(expect.arrayContaining([shop, gallery]));
    await expectError(
      await api(`/api/sites?sort=recent&cursor=${encodeURIComponent(first.nextCursor)}`),
      400,
      "invalid_cursor",
    );
  });
});
