// What search engines may index: `GET /robots.txt` keeps crawlers out of private pages (a channel's console,
// sign-in, the account, search results) and names the sitemap; `GET /sitemap.xml` lists the public pages and
// every listed site and tool page, up to the sitemap protocol's 50,000 URLs. `pageIndexing` is the same rule
// for one page: its canonical URL, or `noindex`; the layout turns it into <link rel=canonical> or
// <meta name=robots>. Decisions: a page not known to be public is `noindex`
// (error pages, consent); /channels (the list) is public, its entries are not; a site page's `?version=` and
// `?diff=` views are that site's page (canonical without the query).
import { Hono } from "../../src/worker/http/hono.js";
import type { AppEnv } from "../../src/worker/http/context.js";

/** Pages anyone may find, with nothing in them that depends on who asks. */
const PUBLIC_PAGES = ["/", "/publish", "/docs", "/channels"];
/** Path prefixes kept out of search engines (robots.txt `Disallow`, and `noindex` on the pages). */
const PRIVATE_PREFIXES = [
  "/channels/",
  "/signin",
  "/account",
  "/extension/",
  "/authorize",
  "/oauth/",
  "/api/",
  "/mcp/",
];
/** Query parameters that make the home page a search result. */
const SEARCH_PARAMS = ["q", "site", "readOnly", "cursor", "page", "limit"];
/** The sitemap protocol's cap on URLs in one file. */
const SITEMAP_MAX_URLS = 50_000;

const SITE_PAGE = /^\/sites\/[^/]+$/;
const TOOL_PAGE = /^\/sites\/[^/]+\/tools\/[^/]+$/;

/** A page's canonical URL, or that it must not be indexed. */
export function pageIndexing(url: string | undefined): { canonical: string } | { noindex: true } {
  if (!url) return { noindex: true };
  const u = new URL(url);
  const path = u.pathname;
  if (path === "/" && SEARCH_PARAMS.some((p) => u.searchParams.has(p))) return { noindex: true };
  if (PUBLIC_PAGES.includes(path) || SITE_PAGE.test(path) || TOOL_PAGE.test(path))
    return { canonical: u.origin + path };
  return { noindex: true };
}

export function robotsTxt(origin: string): string {
  return [
    "User-agent: *",
    ...PRIVATE_PREFIXES.map((p) => `Disallow: ${p}`),
    // Search results: the home page with a query (`/?q=…`); `/` itself stays allowed.
    "Disallow: /?",
    "Disallow: /sites/*/add",
    "",
    `Sitemap: ${origin}/sitemap.xml`,
    "",
  ].join("\n");
}

const xmlEscape = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[ch]!,
  );

export function sitemapXml(urls: Array<{ loc: string; lastmod?: number }>): string {
  const entries = urls.map(
    (u) =>
      `<url><loc>${xmlEscape(u.loc)}</loc>${u.lastmod ? `<lastmod>${new Date(u.lastmod).toISOString().slice(0, 10)}</lastmod>` : ""}</url>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${entries.join("\n")}\n</urlset>\n`;
}

export const crawlRoutes = new Hono<AppEnv>();

crawlRoutes.get("/robots.txt", (c) => {
  c.header("cache-control", "public, max-age=3600");
  return c.text(robotsTxt(c.var.hub));
});

crawlRoutes.get("/sitemap.xml", async (c) => {
  const origin = c.var.hub;
  const page = (path: string) => origin + path.split("/").map(encodeURIComponent).join("/");
  const urls: Array<{ loc: string; lastmod?: number }> = PUBLIC_PAGES.map((p) => ({ loc: origin + p }));
  const room = SITEMAP_MAX_URLS - urls.length;
  // Listed sites (verified, not delisted) and their current tools, newest first, within one file's cap.
  const rows = await c.env.DB.prepare(
    `SELECT s.host AS host, NULL AS name, s.updated_at AS updated FROM sites s
       WHERE s.status = 'verified' AND s.delisted_at IS NULL
     UNION ALL
     SELECT t.host, t.name, t.updated_at FROM tools t JOIN sites s ON s.host = t.host
       WHERE s.status = 'verified' AND s.delisted_at IS NULL
     ORDER BY updated DESC LIMIT ?`,
  )
    .bind(room)
    .all<{ host: string; name: string | null; updated: number }>();
  for (const r of rows.results)
    urls.push({
      loc: r.name === null ? page(`/sites/${r.host}`) : page(`/sites/${r.host}/tools/${r.name}`),
      lastmod: r.updated,
    });
  c.header("cache-control", "public, max-age=3600");
  return c.body(sitemapXml(urls), 200, { "content-type": "application/xml; charset=utf-8" });
});
