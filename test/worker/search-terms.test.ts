// One-word search through the precomputed term impacts (tool_terms): prefix expansion, whole names, ranking,
// cursors across tools that match through several terms, filters, republish, and the migration's backfill.
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { tokens, toolTerms } from "../../src/worker/registry/terms.js";
import { api, publish, tool, verifiedSite } from "./helpers.js";

type Page = { tools: Array<{ site: string; name: string; readOnly: boolean }>; nextCursor: string | null };
const get = async (qs: string) => (await (await api(`/api/tools?${qs}`)).json()) as Page;

/** Every page of a query, following cursors. */
async function allPages(qs: string, limit: number): Promise<string[]> {
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const page: Page = await get(
      `${qs}&limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`,
    );
    expect(page.tools.length).toBeLessThanOrEqual(limit);
    seen.push(...page.tools.map((t) => `${t.site}/${t.name}`));
    cursor = page.nextCursor;
  } while (cursor);
  return seen;
}

let kennel: string;
let kennelKey: string;
let cafe: string;

// 30 tools that match "quokk" through one, two or three terms (quokka, quokkas, quokkaland), with different
// weights, so the same tool is an entry of several expanded terms and must still show exactly once.
const KENNEL_TOOLS: Array<ReturnType<typeof tool> & { annotations?: { readOnlyHint?: boolean } }> = [
  tool("getQuokka", { description: "Returns one quokka.", annotations: { readOnlyHint: true } }),
  tool("quokka_feed", { description: "Feeds the quokkas of Quokkaland." }),
  tool("list-quokkas", { description: "Lists quokkas.", annotations: { readOnlyHint: true } }),
  ...Array.from({ length: 27 }, (_, i) =>
    tool(`pen-${String(i).padStart(2, "0")}`, {
      description: [
        "A pen for one quokka.",
        "A pen for quokkas, in Quokkaland, where quokkas live.",
        "Cleans the pen of a quokka and of other quokkas.",
      ][i % 3],
      annotations: { readOnlyHint: i % 2 === 0 },
    }),
  ),
];

beforeAll(async () => {
  const a = await verifiedSite();
  kennel = a.host;
  kennelKey = a.key;
  expect((await publish(kennel, kennelKey, { tools: KENNEL_TOOLS })).status).toBe(201);
  const b = await verifiedSite();
  cafe = b.host;
  expect(
    (
      await publish(cafe, b.key, {
        tools: [
          tool("orderPancake", { title: "Order a crêpe", description: "Orders a crêpe at the Café Ørsted." }),
          tool("quokka-latte", { description: "A latte with a quokka drawn in the foam." }),
        ],
      })
    ).status,
  ).toBe(201);
});

describe("one-word search", () => {
  it("finds every tool with a word the query is a prefix of, each once, on any page size", async () => {
    const expected = [...KENNEL_TOOLS.map((t) => `${kennel}/${t.name}`), `${cafe}/quokka-latte`].sort();
    const whole = await allPages("q=quokk", 100);
    expect([...whole].sort()).toEqual(expected);
    for (const limit of [1, 4, 7]) expect(await allPages("q=quokk", limit)).toEqual(whole);
  });

  it("ranks name matches above description-only matches", async () => {
    const first = (await get("q=quokka&limit=4")).tools.map((t) => t.name);
    expect(first.slice(0, 3).sort()).toEqual(["getQuokka", "list-quokkas", "quokka_feed"]);
  });

  it("finds a camelCase name typed whole, and folds case and diacritics as the FTS index does", async () => {
    expect((await get("q=getquokka")).tools.map((t) => t.name)).toEqual(["getQuokka"]);
    expect((await get("q=GetQuokka")).tools.map((t) => t.name)).toEqual(["getQuokka"]);
    expect((await get("q=crepe")).tools.map((t) => t.name)).toEqual(["orderPancake"]);
    expect((await get("q=CAFÉ")).tools.map((t) => t.name)).toEqual(["orderPancake"]);
    expect((await get("q=ørs")).tools.map((t) => t.name)).toEqual(["orderPancake"]);
  });

  it("answers a word nothing contains with an empty page", async () => {
    expect(await get("q=xylophonequokka")).toEqual({ tools: [], nextCursor: null });
  });

  it("pages within one site and within read-only tools", async () => {
    const site = await allPages(`q=quokk&site=${kennel}`, 4);
    expect(site.length).toBe(KENNEL_TOOLS.length);
    expect(site.every((s) => s.startsWith(`${kennel}/`))).toBe(true);
    expect(site).toEqual((await allPages("q=quokk", 100)).filter((s) => s.startsWith(`${kennel}/`)));

    const readOnly = await allPages("q=quokk&readOnly=true", 3);
    const expected = KENNEL_TOOLS.filter((t) => t.annotations?.readOnlyHint).map(
      (t) => `${kennel}/${t.name}`,
    );
    expect([...readOnly].sort()).toEqual(expected.sort());
    const both = await allPages(`q=quokk&site=${kennel}&readOnly=false`, 5);
    expect(both.length).toBe(KENNEL_TOOLS.length - expected.length);
  });

  it("forgets a tool's terms when a new version drops the tool", async () => {
    const kept = KENNEL_TOOLS.filter((t) => t.name !== "getQuokka");
    expect((await publish(kennel, kennelKey, { tools: kept })).status).toBe(201);
    expect((await get("q=getquokka")).tools).toEqual([]);
    expect((await get(`q=quokk&site=${kennel}&limit=100`)).tools.length).toBe(kept.length);
    const orphans = await env.DB.prepare(
      "SELECT count(*) AS n FROM tool_terms WHERE tool_id NOT IN (SELECT id FROM tools)",
    ).first<{ n: number }>();
    expect(orphans?.n).toBe(0);
    expect((await publish(kennel, kennelKey, { tools: KENNEL_TOOLS })).status).toBe(201);
  });
});

describe("term impacts", () => {
  it("tokenizes like FTS5's unicode61 with remove_diacritics 2", () => {
    expect(tokens("Café Ørsted's crêpes, 2×MAX_SIZE")).toEqual([
      "cafe",
      "ørsted",
      "s",
      "crepes",
      "2",
      "max",
      "size",
    ]);
  });

  it("gives a term more weight in the name than in the description, and less in a longer tool", () => {
    const terms = new Map(
      toolTerms({ name: "getQuokka", title: null, description: "Returns a quokka.", host: "a.example" }),
    );
    expect(terms.get("get")!).toBeLessThan(terms.get("returns")!);
    expect(terms.get("quokka")!).toBeLessThan(terms.get("get")!);
    expect(terms.has("=getquokka")).toBe(true);
    const longer = new Map(
      toolTerms({
        name: "getQuokka",
        title: null,
        description: "Returns a quokka. ".repeat(20),
        host: "a.example",
      }),
    );
    expect(longer.get("get")!).toBeGreaterThan(terms.get("get")!);
  });

  it("migration 0003's backfill writes the terms publish writes, for ASCII text", async () => {
    const migration = env.TEST_MIGRATIONS.find((m) => m.name.startsWith("0003"));
    const backfill = migration?.queries.find((q) => q.includes("INSERT INTO `tool_terms`"));
    expect(backfill).toBeDefined();
    await env.DB.exec("CREATE TABLE backfill_check (tool_id INTEGER, term TEXT, impact REAL)");
    await env.DB.prepare(backfill!.replace("INSERT INTO `tool_terms`", "INSERT INTO `backfill_check`")).run();
    const compare = (table: string) =>
      env.DB.prepare(
        `SELECT x.tool_id, x.term, round(x.impact, 9) AS impact FROM ${table} x JOIN tools t ON t.id = x.tool_id
         WHERE t.host = ? ORDER BY 1, 2`,
      )
        .bind(kennel)
        .all();
    const written = (await compare("tool_terms")).results;
    expect(written.length).toBeGreaterThan(KENNEL_TOOLS.length * 5);
    expect((await compare("backfill_check")).results).toEqual(written);
  });
});
