// What search engines and visitors are told about each page: robots.txt, the sitemap, canonical links on public
// pages and noindex on private ones (web/pages/crawl.ts), and why /account sent a signed-out visitor to sign in.
import { describe, expect, it } from "vitest";
import { api, BASE, publish, register, tool, verifiedSite } from "./helpers.js";

const head = async (path: string) => {
  const res = await api(path);
  expect(res.status).toBe(200);
  const html = await res.text();
  return {
    html,
    canonical: /<link rel="canonical" href="([^"]*)"/.exec(html)?.[1],
    noindex: html.includes('<meta name="robots" content="noindex"/>'),
  };
};

describe("robots.txt and the sitemap", () => {
  it("keeps crawlers out of private pages and search results, and names the sitemap", async () => {
    const res = await api("/robots.txt");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const lines = (await res.text()).split("\n");
    for (const path of ["/channels/", "/signin", "/account", "/?", "/authorize"])
      expect(lines).toContain(`Disallow: ${path}`);
    expect(lines).not.toContain("Disallow: /");
    expect(lines).toContain(`Sitemap: ${BASE}/sitemap.xml`);
  });

  it("lists the public pages and every listed site's page and tool pages, and no unverified site", async () => {
    const s = await verifiedSite();
    expect((await publish(s.host, s.key, { tools: [tool("find.items"), tool("other")] })).status).toBe(201);
    const pending = await register(`http://pending-${crypto.randomUUID().slice(0, 8)}.example`);
    const res = await api("/sitemap.xml");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/xml");
    const xml = await res.text();
    expect(xml).toMatch(
      /^<\?xml version="1.0" encoding="UTF-8"\?>\n<urlset xmlns="http:\/\/www.sitemaps.org\/schemas\/sitemap\/0.9">/,
    );
    const locs = [...xml.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
    for (const path of ["/", "/publish", "/docs", "/channels"]) expect(locs).toContain(`${BASE}${path}`);
    // Paths as the dashboard links them (web/pages/components.tsx sitePath, toolPath).
    const site = `${BASE}/sites/${encodeURIComponent(s.host)}`;
    expect(locs).toContain(site);
    expect(locs).toContain(`${site}/tools/find.items`);
    expect(locs).toContain(`${site}/tools/other`);
    expect(locs.some((l) => l!.includes(encodeURIComponent(pending.site.host)))).toBe(false);
  });
});

describe("canonical links and noindex", () => {
  it("gives public pages a canonical link without the query, and no noindex", async () => {
    const s = await verifiedSite();
    expect((await publish(s.host, s.key, { tools: [tool("lookup")] })).status).toBe(201);
    const site = `/sites/${encodeURIComponent(s.host)}`;
    for (const [path, canonical] of [
      ["/", "/"],
      ["/docs", "/docs"],
      ["/publish", "/publish"],
      ["/channels", "/channels"],
      [`${site}?version=1`, site],
      [`${site}/tools/lookup`, `${site}/tools/lookup`],
    ]) {
      const page = await head(path!);
      expect(page.canonical, path).toBe(`${BASE}${canonical}`);
      expect(page.noindex, path).toBe(false);
    }
  });

  it("marks private pages and search results noindex, with no canonical link", async () => {
    for (const path of ["/channels/ch_abc123", "/signin", "/?q=dress", "/?site=shop.example"]) {
      const page = await head(path);
      expect(page.noindex, path).toBe(true);
      expect(page.canonical, path).toBeUndefined();
    }
  });
});

describe("signing in", () => {
  it("sends a signed-out visitor from /account to sign in, and the sign-in page says why", async () => {
    const res = await api("/account", { redirect: "manual" });
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    expect(location).toBe("/signin?return_to=%2Faccount");
    const page = await head(location);
    expect(page.html).toContain("Sign in to see your account.");
    // Reached without a reason, it gives none.
    expect((await head("/signin")).html).not.toContain('id="signin-reason"');
  });
});

describe("focusable scrolling areas", () => {
  it("name and role every focusable code block and the docs' annotations table", async () => {
    const { html } = await head("/docs");
    const focusable = [...html.matchAll(/<(pre|div)\b[^>]*tabindex="0"[^>]*>/g)].map((m) => m[0]);
    expect(focusable.length).toBeGreaterThan(5);
    for (const tag of focusable) {
      expect(tag).toContain('role="region"');
      expect(tag).toMatch(/aria-label(ledby)?="/);
    }
    expect(html).toMatch(/<div class="table-wrap" tabindex="0" role="region" aria-labelledby="hints-title">/);
  });
});
