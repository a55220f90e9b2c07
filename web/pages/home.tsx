// Home and search: the ranked search of GET /api/tools as a page, with filters, pagination, the
// registry's counts and the recently published sites.
import type { SiteView } from "../../src/worker/registry/sites.js";
import type { RegistryToolView } from "../../src/protocol/views.js";
import { Ago, Empty, Notice, ToolCard, plural, sitePath } from "./components.js";
import { Layout } from "./layout.js";

export interface HomeProps {
  q: string;
  site: string;
  readOnly: boolean | undefined;
  limit: number;
  page: number;
  tools: RegistryToolView[];
  nextCursor: string | null;
  /** Shown on the home page; null on search results. */
  counts: { sites: number; tools: number } | null;
  recent: SiteView[] | null;
  error?: string | undefined;
  now: number;
}

export const DEFAULT_LIMIT = 20;

function searchHref(p: HomeProps, extra: Record<string, string>): string {
  const params = new URLSearchParams();
  if (p.q) params.set("q", p.q);
  if (p.site) params.set("site", p.site);
  if (p.readOnly !== undefined) params.set("readOnly", String(p.readOnly));
  if (p.limit !== DEFAULT_LIMIT) params.set("limit", String(p.limit));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  const s = params.toString();
  return s ? `/?${s}` : "/";
}

export function HomePage(p: HomeProps) {
  const filtered = Boolean(p.site) || p.readOnly !== undefined;
  const searching = Boolean(p.q) || filtered;
  const first = (p.page - 1) * p.limit + 1;
  const heading = p.q ? `Results for “${p.q}”` : filtered ? "Filtered tools" : "All tools";
  return (
    <Layout
      title={p.q ? `“${p.q}” — search` : "WebMCP tools"}
      description="Search the tools websites offer to AI agents through WebMCP."
      section="tools"
    >
      <section class="hero" aria-labelledby="hero-title">
        <h1 id="hero-title">Find tools websites offer to AI agents</h1>
        {p.counts ? (
          <>
            <p class="counts">
              {plural(p.counts.sites, "verified site")}, {plural(p.counts.tools, "tool")}.
            </p>
            <p class="lede">
              Sites publish the WebMCP tools their pages register. Find one, see what it does and whether it
              changes anything, then let your agent call it in your own browser tab.
            </p>
          </>
        ) : null}
        <form role="search" action="/" method="get" class="search">
          <div class="search-row">
            <label for="q" class="sr-only">
              Search tools
            </label>
            <input
              id="q"
              name="q"
              type="search"
              value={p.q}
              placeholder="Search tools, e.g. add stamp, book a table"
              maxlength={200}
              autocomplete="off"
            />
            <button type="submit" class="btn primary">
              Search
            </button>
          </div>
          <fieldset class="filters">
            <legend class="sr-only">Filters</legend>
            <div class="field inline">
              <label for="site">Site</label>
              <input id="site" name="site" type="text" value={p.site} placeholder="any site (host)" />
            </div>
            <div class="field inline">
              <label for="readOnly">What it may do</label>
              <select id="readOnly" name="readOnly">
                <option value="" selected={p.readOnly === undefined}>
                  Anything
                </option>
                <option value="true" selected={p.readOnly === true}>
                  Read-only tools
                </option>
                <option value="false" selected={p.readOnly === false}>
                  Tools that change data
                </option>
              </select>
            </div>
            {p.limit !== DEFAULT_LIMIT ? <input type="hidden" name="limit" value={String(p.limit)} /> : null}
            {searching ? (
              <a class="clear" href="/">
                Clear search
              </a>
            ) : null}
          </fieldset>
        </form>
      </section>

      {p.error ? <Notice kind="error">{p.error}</Notice> : null}

      <div class="home-grid">
        <section aria-labelledby="results-title" class="results">
          <div class="results-head">
            <h2 id="results-title">{heading}</h2>
            <p class="meta" id="results-summary">
              {p.tools.length === 0
                ? "No tools"
                : `${first.toLocaleString("en")}–${(first + p.tools.length - 1).toLocaleString("en")}${p.nextCursor ? "" : ` of ${(first + p.tools.length - 1).toLocaleString("en")}`}`}
              {p.page > 1 ? ` · page ${p.page}` : ""}
              {p.q ? " · best matches first" : p.tools.length ? " · by site and name" : ""}
            </p>
          </div>
          {p.tools.length === 0 ? (
            <Empty>
              {p.q || filtered ? (
                <>
                  <p>
                    <strong>
                      No tools match{p.q ? ` “${p.q}”` : ""}
                      {filtered ? " with these filters" : ""}.
                    </strong>
                  </p>
                  <ul>
                    {p.q ? (
                      <li>Try fewer words, or the start of a word: “reserv” finds “reservation”.</li>
                    ) : null}
                    {filtered ? (
                      <li>
                        <a href={searchHref({ ...p, site: "", readOnly: undefined }, {})}>
                          Search without the filters
                        </a>
                        .
                      </li>
                    ) : null}
                    <li>
                      <a href="/">Browse all tools</a>.
                    </li>
                  </ul>
                </>
              ) : (
                <>
                  <p>
                    <strong>No tools are published yet.</strong>
                  </p>
                  <p>
                    Run a site with WebMCP tools? <a href="/publish">Publish them here</a> — it takes a
                    minute.
                  </p>
                </>
              )}
            </Empty>
          ) : (
            <ul class="cards" aria-describedby="results-summary">
              {p.tools.map((t) => (
                <ToolCard tool={t} />
              ))}
            </ul>
          )}
          {p.page > 1 || p.nextCursor ? (
            <nav class="pager" aria-label="Result pages">
              {p.page > 1 ? (
                <a class="btn" href={searchHref(p, {})}>
                  ← First page
                </a>
              ) : null}
              <span class="meta">Page {p.page}</span>
              {p.nextCursor ? (
                <a
                  class="btn"
                  rel="next"
                  href={searchHref(p, { cursor: p.nextCursor, page: String(p.page + 1) })}
                >
                  Next page →
                </a>
              ) : null}
            </nav>
          ) : null}
        </section>

        <aside class="side">
          {p.recent ? (
            <section aria-labelledby="recent-title" class="panel">
              <h2 id="recent-title">Recently published</h2>
              {p.recent.length === 0 ? (
                <p class="muted">No sites yet. Yours could be first.</p>
              ) : (
                <ul class="recent">
                  {p.recent.map((s) => (
                    <li>
                      <a href={sitePath(s.host)}>{s.name ?? s.host}</a> — {plural(s.toolCount, "tool")}
                      <br />
                      <span class="meta">
                        {s.host} · <Ago iso={s.updatedAt} now={p.now} />
                      </span>
                    </li>
                  ))}
                </ul>
              )}
            </section>
          ) : null}
          <section aria-labelledby="start-title" class="panel">
            <h2 id="start-title">Get started</h2>
            <ul class="links">
              <li>
                <a href="/channels">Connect your agent</a> to your own tabs through a private channel.
              </li>
              <li>
                <a href="/publish">Publish your site's tools</a> after proving you own the origin.
              </li>
              <li>
                <a href="/docs">Read the docs</a>: bridge, tools, sidecar.
              </li>
            </ul>
          </section>
        </aside>
      </div>
    </Layout>
  );
}
