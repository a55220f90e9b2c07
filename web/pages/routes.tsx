// Server-rendered pages of the marketplace: home/search and a site's page. Work without JavaScript.
import { Hono } from "hono";
import { ToolSearchParamsSchema } from "../../src/protocol/index.js";
import type { AppEnv } from "../../src/worker/http/context.js";
import { HubError } from "../../src/worker/http/errors.js";
import { registryCounts, searchTools, siteTools, type ToolView } from "../../src/worker/registry/search.js";
import { getVerifiedSite, listSites } from "../../src/worker/registry/sites.js";
import { Layout } from "./layout.js";

export const pageRoutes = new Hono<AppEnv>();

function ToolCard({ tool }: { tool: ToolView }) {
  return (
    <li class="card">
      <h3>
        <a href={`/sites/${encodeURIComponent(tool.site)}#tool-${tool.name}`}>{tool.title ?? tool.name}</a>
      </h3>
      <p class="meta">
        <code>{tool.name}</code> · <a href={`/sites/${encodeURIComponent(tool.site)}`}>{tool.site}</a>{" "}
        <span class="badge verified" title="The site proved it controls this origin">
          verified
        </span>{" "}
        {tool.readOnly ? <span class="badge ro">read-only</span> : <span class="badge rw">changes data</span>}
      </p>
      <p>{tool.description}</p>
    </li>
  );
}

pageRoutes.get("/", async (c) => {
  const parsed = ToolSearchParamsSchema.safeParse(c.req.query());
  const params = parsed.success ? parsed.data : { limit: 20 };
  let error: string | undefined;
  let result: Awaited<ReturnType<typeof searchTools>> = { tools: [], nextCursor: null };
  try {
    result = await searchTools(c.var.db, params);
  } catch (e) {
    if (!(e instanceof HubError)) throw e;
    error = e.message;
  }
  const [counts, recent] = await Promise.all([
    registryCounts(c.var.db),
    listSites(c.var.db, { sort: "recent", limit: 5 }),
  ]);
  const q = "q" in params ? (params.q ?? "") : "";
  const next = new URLSearchParams({
    ...(q ? { q } : {}),
    ...(result.nextCursor ? { cursor: result.nextCursor } : {}),
  });
  return c.html(
    <Layout title={q ? `“${q}”` : "WebMCP tools"}>
      <section class="hero">
        <h1>Find tools websites offer to AI agents</h1>
        <p>
          {counts.sites} verified site{counts.sites === 1 ? "" : "s"}, {counts.tools} tool
          {counts.tools === 1 ? "" : "s"}.
        </p>
        <form role="search" action="/" method="get">
          <label for="q">Search tools</label>
          <input id="q" name="q" type="search" value={q} placeholder="e.g. add stamp, buy product" />
          <button type="submit">Search</button>
        </form>
      </section>
      {error ? (
        <p role="alert" class="error">
          {error}
        </p>
      ) : null}
      <section aria-label="Results">
        {result.tools.length === 0 ? (
          <p class="empty">
            {q ? "No tools match these words. Try fewer or different ones." : "No tools are published yet."}
          </p>
        ) : (
          <ul class="cards">
            {result.tools.map((t) => (
              <ToolCard tool={t} />
            ))}
          </ul>
        )}
        {result.nextCursor ? (
          <a class="next" href={`/?${next.toString()}`}>
            Next page →
          </a>
        ) : null}
      </section>
      <section aria-label="Recently published">
        <h2>Recently published</h2>
        <ul>
          {recent.sites.map((s) => (
            <li>
              <a href={`/sites/${encodeURIComponent(s.host)}`}>{s.name ?? s.host}</a> — {s.toolCount} tools
            </li>
          ))}
        </ul>
      </section>
    </Layout>,
  );
});

pageRoutes.get("/sites/:host", async (c) => {
  let site;
  try {
    site = await getVerifiedSite(c.var.db, c.req.param("host"));
  } catch (e) {
    if (e instanceof HubError && e.code === "site_not_found") {
      return c.html(
        <Layout title="Not found">
          <h1>No such site</h1>
          <p>{e.message}</p>
        </Layout>,
        404,
      );
    }
    throw e;
  }
  const tools = await siteTools(c.var.db, site.host);
  return c.html(
    <Layout title={site.name ?? site.host}>
      <h1>{site.name ?? site.host}</h1>
      <p class="meta">
        <a href={site.origin}>{site.origin}</a>{" "}
        <span class="badge verified">verified by {site.verificationMethod}</span> · manifest v
        {site.currentVersion ?? "—"}
      </p>
      {site.description ? <p>{site.description}</p> : null}
      <h2>Tools</h2>
      <ul class="cards">
        {tools.map((t) => (
          <li class="card" id={`tool-${t.name}`}>
            <h3>{t.title ?? t.name}</h3>
            <p class="meta">
              <code>{t.name}</code>{" "}
              {t.readOnly ? (
                <span class="badge ro">read-only</span>
              ) : (
                <span class="badge rw">changes data</span>
              )}
            </p>
            <p>{t.description}</p>
            <details>
              <summary>Input schema</summary>
              <pre>{JSON.stringify(t.inputSchema, null, 2)}</pre>
            </details>
          </li>
        ))}
      </ul>
    </Layout>,
  );
});
