// Server-rendered dashboard pages. Routes are thin: parse the request, call the registry's functions,
// render a page component. Every page works without JavaScript; client modules in /assets add live parts.
import { Hono } from "../../src/worker/http/hono.js";
import type { Child } from "hono/jsx";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type {} from "hono/secure-headers";
import { EXPORT_FORMATS, LIMITS, ToolSearchParamsSchema } from "../../src/protocol/index.js";
import type { AppContext, AppEnv } from "../../src/worker/http/context.js";
import { HubError } from "../../src/worker/http/errors.js";
import { exportTools } from "../../src/worker/registry/export.js";
import { getManifestVersion, listManifestVersions } from "../../src/worker/registry/manifests.js";
import { normalizeHost } from "../../src/worker/registry/origins.js";
import { searchTools, siteTools } from "../../src/worker/registry/search.js";
import { publicUsage, usageOf } from "../../src/worker/registry/public-usage.js";
import { getVerifiedSite, listSites, siteView } from "../../src/worker/registry/sites.js";
import { cloudContextOf, flaggedCloudTools } from "../../src/worker/registry/cloud.js";
import { cloudStats } from "../../src/worker/registry/cloud-stats.js";
import { siteCatalogView } from "../../src/worker/registry/site-catalog.js";
import { ChannelsAccountList } from "./channels.js";
import { SignInNotices } from "./account-signin.js";
import { AccountLists } from "./account.js";
import { ExtensionConnectChannels } from "./extension-connect.js";
import { listPasskeys, passkeyView } from "../../src/worker/accounts/passkeys.js";
import { accountChannels, accountSites } from "../../src/worker/accounts/ownership.js";
import { currentAccount } from "../../src/worker/accounts/session.js";
import { safeReturnTo } from "../../src/worker/accounts/return-to.js";
import { sitePath } from "./components.js";
import { cachedCounts, toolPageData } from "./data.js";
import { diffLines, toolChanges } from "./diff.js";
import { HomePage } from "./home.js";
import { CspNonce, Layout, PageUrl } from "./layout.js";
import { crawlRoutes } from "./crawl.js";
import { AddPage, SignedIn } from "./add.js";
import { SitePage, type SiteDiff } from "./site.js";
import { ToolPage } from "./tool.js";
import { markup, staticPage } from "./static-pages.js";

export const pageRoutes = new Hono<AppEnv>();
pageRoutes.route("/", crawlRoutes); // /robots.txt, /sitemap.xml

const cloudOf = (c: AppContext) => cloudContextOf(c.var.hub, c.env);

/** Renders a page; its scripts carry this response's CSP nonce (set by the security headers middleware). */
function renderPage(c: AppContext, node: Child, status?: ContentfulStatusCode) {
  // A page that is not there is not indexed under its URL (PageUrl unset: noindex).
  const url = status && status >= 400 ? undefined : c.req.url;
  return c.html(
    <CspNonce.Provider value={c.get("secureHeadersNonce")}>
      <PageUrl.Provider value={url}>{node}</PageUrl.Provider>
    </CspNonce.Provider>,
    status,
  );
}

function NotFound(props: { title: string; children: Child }) {
  return (
    <Layout title={props.title}>
      <header class="page-head">
        <h1>{props.title}</h1>
      </header>
      <div class="empty">{props.children}</div>
    </Layout>
  );
}

/** The query string without empty values (an empty filter field means "no filter"). */
function filledQuery(c: AppContext): Record<string, string> {
  return Object.fromEntries(Object.entries(c.req.query()).filter(([, v]) => v.trim() !== ""));
}

pageRoutes.get("/", async (c) => {
  const raw = filledQuery(c);
  const parsed = ToolSearchParamsSchema.safeParse(raw);
  let error: string | undefined;
  let params = parsed.success ? parsed.data : ToolSearchParamsSchema.parse({});
  if (!parsed.success) {
    error = `Some search options were not understood (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}); showing all tools.`;
  }
  // A pasted URL or origin in the site filter means its host.
  const site = params.site
    ? normalizeHost(params.site.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "").replace(/\/.*$/, ""))
    : undefined;
  params = { ...params, site };
  const page = Math.max(1, Math.min(10_000, Number.parseInt(raw.page ?? "1", 10) || 1));
  const db = c.var.db;
  // The same ranked search as GET /api/tools.
  const search = searchTools(db, params, cloudOf(c)).catch((e: unknown) => {
    if (!(e instanceof HubError)) throw e;
    error =
      e.code === "invalid_cursor"
        ? "This results page has expired or belongs to another search; showing the first page."
        : e.message;
    return searchTools(db, { ...params, cursor: undefined }, cloudOf(c));
  });
  // The home page shows the registry's counts and the recently published sites; a search shows results.
  const searching = Boolean(params.q || params.site || params.readOnly !== undefined || params.cursor);
  const [result, recent] = await Promise.all([
    search,
    searching ? null : listSites(db, { sort: "recent", limit: 5 }),
  ]);
  // The newest verified site changes whenever the counts can: it keys the counts' cache.
  const newest = recent?.sites[0];
  const counts = recent
    ? await cachedCounts(db, newest ? `${newest.updatedAt} ${newest.host}` : "", c.var.now)
    : null;
  return renderPage(
    c,
    <HomePage
      q={params.q ?? ""}
      site={site ?? ""}
      readOnly={params.readOnly}
      limit={params.limit}
      page={params.cursor && !error ? page : 1}
      tools={result.tools}
      nextCursor={result.nextCursor}
      counts={counts}
      recent={recent?.sites ?? null}
      error={error}
      now={c.var.now}
    />,
  );
});

/** The listed site, or null (not found), or the message saying it was delisted. */
async function verifiedSiteOrNull(c: AppContext, host: string) {
  try {
    return await getVerifiedSite(c.var.db, host);
  } catch (e) {
    if (e instanceof HubError && e.code === "site_not_found") return null;
    if (e instanceof HubError && e.code === "site_delisted") return e.message;
    throw e;
  }
}

function siteNotFound(c: AppContext, host: string, delisted?: string) {
  if (delisted)
    return renderPage(
      c,
      <NotFound title="Site delisted">
        <p>{delisted} Its tools are no longer listed.</p>
        <p>
          <a href="/">Browse all tools</a>
        </p>
      </NotFound>,
      410,
    );
  return renderPage(
    c,
    <NotFound title="No such site">
      <p>
        No verified site <code>{host}</code> is listed. It may not have finished verification yet.
      </p>
      <p>
        <a href={`/?site=${encodeURIComponent(host)}`}>Search its tools</a> · <a href="/">Browse all tools</a>{" "}
        · <a href="/publish">Publish your site</a>
      </p>
    </NotFound>,
    404,
  );
}

const versionParam = (v: string | undefined) => {
  const n = Number(v);
  return Number.isInteger(n) && n >= 1 ? n : undefined;
};

pageRoutes.get("/sites/:host", async (c) => {
  const host = normalizeHost(c.req.param("host"));
  const site = await verifiedSiteOrNull(c, host);
  if (!site || typeof site === "string") return siteNotFound(c, host, site ?? undefined);
  const db = c.var.db;
  const shownVersion = versionParam(c.req.query("v"));
  const from = versionParam(c.req.query("from"));
  const to = versionParam(c.req.query("to"));
  const missing = (e: unknown) => {
    if (e instanceof HubError && e.code === "not_found") return null;
    throw e;
  };
  const cloud = cloudOf(c);
  const account = await currentAccount(c);
  const owns = account !== null && site.accountId === account.id;
  const [tools, versions, shown, fromV, toV, owner, usage] = await Promise.all([
    siteTools(db, site.host, cloud),
    listManifestVersions(db, site),
    site.currentVersion === null ? null : getManifestVersion(db, site, shownVersion).catch(missing),
    from && to ? getManifestVersion(db, site, from).catch(missing) : null,
    from && to ? getManifestVersion(db, site, to).catch(missing) : null,
    // The owner's view: the cloud switch, which tools say "cloud": true, and the runner's counts.
    owns
      ? Promise.all([flaggedCloudTools(db, site.host), cloudStats(c.env, site.host)]).then(
          ([flagged, stats]) => ({ flagged, stats, runs: cloud.runs, catalog: siteCatalogView(site) }),
        )
      : null,
    publicUsage(db, [{ host: site.host, tool: null }], c.var.now),
  ]);
  let diff: SiteDiff | null = null;
  let diffError: string | undefined;
  if (from && to) {
    if (!fromV || !toV) diffError = `There is no version ${!fromV ? from : to} of this manifest.`;
    else {
      diff = {
        from,
        to,
        lines: diffLines(
          JSON.stringify(fromV.manifest, null, 2).split("\n"),
          JSON.stringify(toV.manifest, null, 2).split("\n"),
        ),
        changes: toolChanges(fromV.manifest, toV.manifest),
      };
    }
  }
  return renderPage(
    c,
    <SignedIn.Provider value={account !== null}>
      <SitePage
        site={siteView(site)}
        tools={tools}
        versions={versions}
        shown={shown}
        diff={diff}
        diffError={diffError}
        now={c.var.now}
        owner={owner}
        usage={usageOf(usage, site.host)}
      />
    </SignedIn.Provider>,
  );
});

pageRoutes.get("/sites/:host/tools/:name", async (c) => {
  const host = normalizeHost(c.req.param("host"));
  const name = c.req.param("name");
  const { site, tool, pages } = await toolPageData(c.var.db, host, name, cloudOf(c));
  if (!site) return siteNotFound(c, host);
  if (site.delistedAt !== null)
    return siteNotFound(
      c,
      host,
      `${site.host} was delisted by its publisher on ${new Date(site.delistedAt).toISOString()}.`,
    );
  if (!tool) {
    return renderPage(
      c,
      <NotFound title="No such tool">
        <p>
          <code>{site.host}</code> has no tool named <code>{name}</code> in its current manifest.
        </p>
        <p>
          <a href={sitePath(site.host)}>See the tools of {site.name ?? site.host}</a> ·{" "}
          <a href={`/?q=${encodeURIComponent(name)}`}>Search for “{name}”</a>
        </p>
      </NotFound>,
      404,
    );
  }
  const [signedIn, usage] = await Promise.all([
    currentAccount(c).then((a) => a !== null),
    publicUsage(c.var.db, [{ host: site.host, tool: tool.name }], c.var.now),
  ]);
  return renderPage(
    c,
    <SignedIn.Provider value={signedIn}>
      <ToolPage
        site={siteView(site)}
        tool={{ ...tool, usage: usageOf(usage, site.host, tool.name) }}
        pages={pages}
        exports={EXPORT_FORMATS.map((f) => exportTools(f, site, [tool]))}
      />
    </SignedIn.Provider>,
  );
});

// The confirm page of an agent's proposal (web/pages/add.tsx): `?tool=` repeatable (none: every tool),
// `?channel=` pre-selects one of the user's channels.
pageRoutes.get("/sites/:host/add", async (c) => {
  const host = normalizeHost(c.req.param("host"));
  const site = await verifiedSiteOrNull(c, host);
  if (!site || typeof site === "string") return siteNotFound(c, host, site ?? undefined);
  if (site.status !== "verified")
    return renderPage(
      c,
      <NotFound title="Site not verified">
        <p>
          <code>{site.host}</code> is not verified
          {site.verifyError ? ` (its re-verification failed: ${site.verifyError})` : ""}; only a verified
          site's tools can be added to a channel.
        </p>
        <p>
          <a href={sitePath(site.host)}>See its page</a> · <a href="/">Browse all tools</a>
        </p>
      </NotFound>,
      403,
    );
  const published = await siteTools(c.var.db, site.host, cloudOf(c));
  const names = [...new Set((c.req.queries("tool") ?? []).map((n) => n.trim()).filter(Boolean))].slice(
    0,
    LIMITS.toolsPerProvider,
  );
  const byName = new Map(published.map((t) => [t.name, t]));
  const tools = names.length ? names.flatMap((n) => byName.get(n) ?? []) : published;
  const channel = c.req.query("channel")?.slice(0, 100);
  const signedIn = (await currentAccount(c)) !== null;
  return renderPage(
    c,
    <SignedIn.Provider value={signedIn}>
      <AddPage
        site={siteView(site)}
        tools={tools}
        unknown={names.filter((n) => !byName.has(n))}
        channel={channel}
      />
    </SignedIn.Provider>,
  );
});

pageRoutes.get("/publish", async (c) =>
  renderPage(c, await staticPage(c.env.ASSETS, "publish", { hub: c.var.hub })),
);
pageRoutes.get("/channels", async (c) => {
  const account = await currentAccount(c);
  const owned = account ? await accountChannels(c.var.db, account.id) : null;
  return renderPage(
    c,
    await staticPage(c.env.ASSETS, "channels", {
      hub: c.var.hub,
      channels: owned ? await markup(<ChannelsAccountList channels={owned} />) : "",
    }),
  );
});
pageRoutes.get("/channels/:id", async (c) => {
  const signedIn = String((await currentAccount(c)) !== null);
  return renderPage(
    c,
    await staticPage(c.env.ASSETS, "console", { id: c.req.param("id"), hub: c.var.hub, signedIn }),
  );
});
pageRoutes.get("/signin", async (c) => {
  const returnTo = safeReturnTo(c.req.query("return_to"), c.var.hub);
  // Already signed in: straight on (the OAuth consent page sends people here first).
  if (await currentAccount(c)) return c.redirect(returnTo ?? "/account", 303);
  const url = new URL(c.req.url);
  // 127.0.0.1 (how `npm start` listens) is no valid WebAuthn relying party ID; localhost is.
  const ipHost = /^\[|^\d+\.\d+\.\d+\.\d+$/.test(url.hostname);
  const port = url.port ? `:${url.port}` : "";
  const localhostUrl = ipHost ? `${url.protocol}//localhost${port}${url.pathname}${url.search}` : undefined;
  const notices = SignInNotices({ returnTo, localhostUrl });
  return renderPage(
    c,
    await staticPage(c.env.ASSETS, "signin", {
      hub: c.var.hub,
      returnTo: returnTo ?? "",
      reason: await markup(notices.reason),
      ipNotice: await markup(notices.ipNotice),
    }),
  );
});
pageRoutes.get("/account", async (c) => {
  const account = await currentAccount(c);
  // The sign-in page says why from return_to (account-signin.tsx signInReason).
  if (!account) return c.redirect("/signin?return_to=%2Faccount", 303);
  const [passkeys, channels, sites] = await Promise.all([
    listPasskeys(c.var.db, account.id),
    accountChannels(c.var.db, account.id),
    accountSites(c.var.db, account.id),
  ]);
  const lists = AccountLists({ account, passkeys: passkeys.map(passkeyView), channels, sites });
  return renderPage(
    c,
    await staticPage(c.env.ASSETS, "account", {
      hub: c.var.hub,
      name: account.displayName,
      channels: await markup(lists.channels),
      sites: await markup(lists.sites),
      passkeys: await markup(lists.passkeys),
    }),
  );
});
pageRoutes.get("/extension/connect", async (c) => {
  const account = await currentAccount(c);
  if (!account) return c.redirect("/signin?return_to=%2Fextension%2Fconnect", 303);
  const channels = await accountChannels(c.var.db, account.id);
  const list = <ExtensionConnectChannels channels={channels.map(({ id, name }) => ({ id, name }))} />;
  return renderPage(
    c,
    await staticPage(c.env.ASSETS, "extension-connect", {
      hub: c.var.hub,
      channels: await markup(list),
    }),
  );
});
// The owner's analytics (web/client/analytics.ts fetches GET /api/sites/:host/analytics, which checks the owner).
pageRoutes.get("/sites/:host/analytics", async (c) =>
  renderPage(
    c,
    await staticPage(c.env.ASSETS, "analytics", {
      hub: c.var.hub,
      host: normalizeHost(c.req.param("host")),
    }),
  ),
);
pageRoutes.get("/docs", async (c) =>
  renderPage(c, await staticPage(c.env.ASSETS, "docs", { hub: c.var.hub })),
);
