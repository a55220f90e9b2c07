// A site's page: origin, verification, description, its tools, the current manifest, the version history
// and a diff between any two versions (chosen with a plain GET form, so it works without JavaScript). Each
// current tool's definition digest is listed (folded away: most readers need it only to compare or pin one).
// Tools the hub runs with no tab open are named with the site's cloud endpoint; the signed-in owner also sees
// the site's cloud switch (/assets/site-owner.js) and the runner's daily counts of cloud calls and failures,
// and where a manifest refresh pulls from: /.well-known/webmcp.json or a WebMCP manifest the site's own
// ai-catalog.json lists (registry/site-catalog.ts).
import type { ToolView } from "../../src/worker/registry/search.js";
import type { SiteView } from "../../src/worker/registry/sites.js";
import type { ManifestVersionView } from "../../src/worker/registry/manifests.js";
import type { CloudDayStats } from "../../src/worker/registry/cloud-stats.js";
import type { SiteCatalogView } from "../../src/protocol/views.js";
import type { PublicUsage } from "../../src/protocol/index.js";
import { usageText } from "./tool.js";
import {
  Ago,
  CodeBlock,
  CopyValue,
  Empty,
  Notice,
  ToolCard,
  VerifiedBadge,
  json,
  methodLabel,
  plural,
  sitePath,
} from "./components.js";
import { hunks, type DiffLine, type ToolChanges } from "./diff.js";
import { AddToChannel, addable } from "./add.js";
import { Layout } from "./layout.js";

export interface VersionRow {
  version: number;
  publishedAt: string;
  sha256: string;
  toolCount: number;
  sizeBytes: number;
  source: string;
  current: boolean;
}

export interface SiteDiff {
  from: number;
  to: number;
  lines: DiffLine[] | null;
  changes: ToolChanges;
}

export interface SiteProps {
  site: SiteView;
  tools: ToolView[];
  versions: VersionRow[];
  shown: ManifestVersionView | null;
  diff: SiteDiff | null;
  diffError?: string | undefined;
  now: number;
  /** Only for the signed-in account that owns the site. */
  owner?: SiteOwnerView | null | undefined;
  /** Its tools' public usage (null under the channel threshold). */
  usage?: PublicUsage | undefined;
}

export interface SiteOwnerView {
  /** Current tools whose manifest entry says `"cloud": true`. */
  flagged: string[];
  /** The runner's counts, newest day first; null when they cannot be read now. */
  stats: CloudDayStats[] | null;
  /** False when cloud runs are off for the whole hub. */
  runs: boolean;
  /** The site's ai-catalog.json as last read and the chosen manifest source. */
  catalog?: SiteCatalogView | undefined;
}

export function SitePage(p: SiteProps) {
  const s = p.site;
  const title = s.name ?? s.host;
  const base = sitePath(s.host);
  const apiBase = `/api/sites/${encodeURIComponent(s.host)}`;
  const defaultTo = p.diff?.to ?? s.currentVersion ?? 1;
  const defaultFrom = p.diff?.from ?? Math.max(1, defaultTo - 1);
  const canAdd = addable(s) && p.tools.length > 0;
  const cloudTools = p.tools.filter((t) => t.cloud);
  const scripts = [...(canAdd ? ["add-to-channel"] : []), ...(p.owner ? ["site-owner"] : [])];
  return (
    <Layout
      title={title}
      description={s.description ?? `WebMCP tools of ${s.host}`}
      section="tools"
      scripts={scripts}
    >
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Tools</a> <span aria-hidden="true">›</span> <span aria-current="page">{s.host}</span>
      </nav>
      <header class="page-head">
        <h1>{title}</h1>
        <p class="meta">
          <a href={s.origin} rel="nofollow noopener">
            {s.origin}
          </a>{" "}
          {s.status === "verified" ? <VerifiedBadge method={s.verificationMethod} /> : null}
        </p>
        {s.status === "unverified" ? (
          <p class="alert error" role="status">
            Verification lapsed: {s.verifyError ?? "the ownership proof could not be checked"},{" "}
            {s.verifyCheckedAt ? <Ago iso={s.verifyCheckedAt} now={p.now} /> : "recently"}. This site is not
            listed in search until its owner republishes or verifies it again.
          </p>
        ) : null}
        {s.description ? <p class="lede">{s.description}</p> : null}
        <dl class="facts">
          <div>
            <dt>Tools</dt>
            <dd>{s.toolCount}</dd>
          </div>
          <div>
            <dt>Manifest</dt>
            <dd>{s.currentVersion ? `version ${s.currentVersion}` : "none yet"}</dd>
          </div>
          <div>
            <dt>Verified</dt>
            <dd>
              {s.verifiedAt ? <Ago iso={s.verifiedAt} now={p.now} /> : "—"}
              {s.verificationMethod ? ` by ${methodLabel(s.verificationMethod)}` : ""}
            </dd>
          </div>
          <div>
            <dt>Updated</dt>
            <dd>
              <Ago iso={s.updatedAt} now={p.now} />
            </dd>
          </div>
          {p.usage ? (
            <div>
              <dt>Used</dt>
              <dd>{usageText(p.usage)}</dd>
            </div>
          ) : null}
        </dl>
        {p.owner ? (
          <p class="meta">
            <a href={`${base}/analytics`} id="analytics-link">
              Usage analytics
            </a>
            : how agents call your tools, day by day.
          </p>
        ) : null}
      </header>

      <section aria-labelledby="tools-title">
        <h2 id="tools-title">Tools</h2>
        {p.tools.length === 0 ? (
          <Empty>
            <p>This site is verified but has not published a manifest yet.</p>
          </Empty>
        ) : (
          <ul class="cards two">
            {p.tools.map((t) => (
              <ToolCard tool={t} showSite={false} />
            ))}
          </ul>
        )}
        {p.tools.length ? (
          <p class="meta">
            All tools as function-calling definitions:{" "}
            {(["mcp", "openai", "anthropic", "gemini"] as const).map((f, i) => (
              <>
                {i ? " · " : ""}
                <a href={`${apiBase}/tools?format=${f}`}>
                  {f === "mcp"
                    ? "MCP"
                    : f === "openai"
                      ? "OpenAI"
                      : f === "anthropic"
                        ? "Anthropic"
                        : "Gemini"}
                </a>
              </>
            ))}
          </p>
        ) : null}
        {cloudTools.length && cloudTools[0]!.cloudEndpoint ? (
          <div class="cloud-endpoint">
            <CopyValue id="cloud-endpoint" label="Cloud MCP endpoint" value={cloudTools[0]!.cloudEndpoint} />
            <p class="hint">
              Runs in the cloud, with no tab open: {cloudTools.map((t) => t.name).join(", ")}. Any MCP client
              can call {cloudTools.length === 1 ? "it" : "them"} here, with no credentials.
            </p>
            <p class="meta" id="hub-catalog">
              <a href={`${base}/ai-catalog.json`}>This site's AI Catalog on the hub</a>: link it from your own{" "}
              <code>/.well-known/ai-catalog.json</code> as a nested catalog entry.
            </p>
          </div>
        ) : null}
        {p.tools.some((t) => t.digest) ? (
          <details class="digests">
            <summary>Definition digests</summary>
            <p class="hint">
              SHA-256 of each tool's published definition as RFC 8785 JSON: what a live tab's tool is checked
              against.
            </p>
            {p.tools.map((t, i) =>
              t.digest ? <CopyValue id={`digest-${i}`} label={t.name} value={t.digest} /> : null,
            )}
          </details>
        ) : null}
      </section>

      {canAdd ? <AddToChannel site={s} tools={p.tools} choose /> : null}

      {p.owner ? <CloudRuns site={s} owner={p.owner} /> : null}
      {p.owner?.catalog ? <ManifestSource view={p.owner.catalog} now={p.now} /> : null}

      {p.versions.length ? (
        <section aria-labelledby="history-title">
          <h2 id="history-title">Version history</h2>
          <div class="table-wrap">
            <table class="data stack">
              <caption class="sr-only">Manifest versions, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Published</th>
                  <th scope="col">Tools</th>
                  <th scope="col">Source</th>
                  <th scope="col">SHA-256</th>
                  <th scope="col">
                    <span class="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {p.versions.map((v) => (
                  <tr>
                    <th scope="row" data-label="Version">
                      v{v.version} {v.current ? <span class="badge ro">current</span> : null}
                    </th>
                    <td data-label="Published">
                      <Ago iso={v.publishedAt} now={p.now} />
                    </td>
                    <td data-label="Tools">{v.toolCount}</td>
                    <td data-label="Source">
                      {v.source === "api"
                        ? "published"
                        : v.source === "refresh"
                          ? "pulled from the site"
                          : v.source}
                    </td>
                    <td data-label="SHA-256">
                      <code title={v.sha256}>{v.sha256.slice(0, 12)}</code>
                    </td>
                    <td data-label="Actions">
                      <a href={`${base}?v=${v.version}#manifest`}>View</a>
                      {v.version > 1 ? (
                        <>
                          {" · "}
                          <a href={`${base}?from=${v.version - 1}&to=${v.version}#diff`}>Changes</a>
                        </>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>

          {p.versions.length > 1 ? (
            <form method="get" action={`${base}#diff`} class="diff-form" aria-label="Compare two versions">
              <div class="field inline">
                <label for="from">Compare version</label>
                <select id="from" name="from">
                  {p.versions.map((v) => (
                    <option value={String(v.version)} selected={v.version === defaultFrom}>
                      v{v.version}
                    </option>
                  ))}
                </select>
              </div>
              <div class="field inline">
                <label for="to">with</label>
                <select id="to" name="to">
                  {p.versions.map((v) => (
                    <option value={String(v.version)} selected={v.version === defaultTo}>
                      v{v.version}
                    </option>
                  ))}
                </select>
              </div>
              <button type="submit" class="btn">
                Show changes
              </button>
            </form>
          ) : null}
          {p.diffError ? <Notice kind="error">{p.diffError}</Notice> : null}
          {p.diff ? <DiffView diff={p.diff} /> : null}
        </section>
      ) : null}

      {p.shown ? (
        <section aria-labelledby="manifest-title" id="manifest">
          <h2 id="manifest-title">
            Manifest v{p.shown.version}
            {p.shown.current ? " (current)" : ""}
          </h2>
          <p class="meta">
            Published <Ago iso={p.shown.publishedAt} now={p.now} /> · {plural(p.shown.toolCount, "tool")} ·{" "}
            <a href={`${apiBase}/manifest?version=${p.shown.version}`}>JSON from the API</a>
          </p>
          <details>
            <summary>Show the manifest JSON</summary>
            <CodeBlock id="manifest-json" label="manifest JSON" code={json(p.shown.manifest)} lang="json" />
          </details>
        </section>
      ) : null}
    </Layout>
  );
}

/** The owner's cloud section: the site's switch, which tools say `"cloud": true`, and the daily counts. */
function CloudRuns(props: { site: SiteView; owner: SiteOwnerView }) {
  const { site, owner } = props;
  const on = site.cloudEnabled;
  return (
    <section aria-labelledby="cloud-title" class="panel" id="cloud-runs">
      <h2 id="cloud-title">Cloud runs</h2>
      <p>
        Cloud runs for this site are <strong id="cloud-state">{on ? "on" : "off"}</strong>.{" "}
        {owner.flagged.length
          ? `${plural(owner.flagged.length, "tool")} of the current manifest ${owner.flagged.length === 1 ? "says" : "say"} "cloud": true: ${owner.flagged.join(", ")}.`
          : 'No tool of the current manifest says "cloud": true.'}{" "}
        While on, the hub may run them with no tab open; off stops every cloud run of the site at once.
      </p>
      {owner.runs ? null : <Notice kind="info">Cloud runs are off on this hub for now.</Notice>}
      <p>
        <button
          type="button"
          class="btn"
          id="cloud-switch"
          data-host={site.host}
          data-enabled={String(on)}
          disabled
          data-needs-js
        >
          {on ? "Turn cloud runs off" : "Turn cloud runs on"}
        </button>
      </p>
      <p id="cloud-status" class="meta" role="status"></p>
      <h3>Cloud calls, last 7 days</h3>
      {owner.stats === null ? (
        <p class="muted">The counts of cloud calls are not available right now.</p>
      ) : owner.stats.length === 0 || owner.stats.every((d) => d.calls === 0) ? (
        <p class="muted">No cloud calls in the last 7 days.</p>
      ) : (
        <div class="table-wrap">
          <table class="data stack" id="cloud-stats">
            <caption class="sr-only">Cloud calls per day, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Calls</th>
                <th scope="col">Succeeded</th>
                <th scope="col">Failures</th>
                <th scope="col">Browser time</th>
              </tr>
            </thead>
            <tbody>
              {owner.stats.map((d) => (
                <tr>
                  <th scope="row" data-label="Day">
                    {d.day}
                  </th>
                  <td data-label="Calls">{d.calls}</td>
                  <td data-label="Succeeded">{d.ok}</td>
                  <td data-label="Failures">
                    {Object.entries(d.failures)
                      .filter(([, n]) => n > 0)
                      .map(([kind, n]) => `${kind} ${n}`)
                      .join(", ") || "none"}
                  </td>
                  <td data-label="Browser time">{(d.browserMs / 1000).toFixed(1)} s</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The owner's choice of manifest source among /.well-known/webmcp.json and their catalog's WebMCP entries. */
function ManifestSource(props: { view: SiteCatalogView; now: number }) {
  const { manifestSource: chosen, catalog, host } = props.view;
  const sources = catalog.entries.filter((e) => e.kind === "webmcp");
  const servers = catalog.entries.filter((e) => e.kind === "mcp");
  const path = (url: string) => new URL(url).pathname;
  return (
    <section aria-labelledby="source-title" class="panel" id="manifest-source">
      <h2 id="source-title">Manifest source</h2>
      <p>
        Where the hub pulls your manifest from when you refresh it: <code>/.well-known/webmcp.json</code>, or
        a WebMCP manifest your <a href={catalog.url}>/.well-known/ai-catalog.json</a> lists. The catalog was{" "}
        {catalog.checkedAt ? (
          <>
            read <Ago iso={catalog.checkedAt} now={props.now} />
          </>
        ) : (
          "not read yet"
        )}
        {catalog.checkedAt && !catalog.error && !catalog.entries.length && !catalog.ignored.length
          ? ": it lists no WebMCP manifest."
          : "."}
      </p>
      {catalog.error ? (
        <Notice kind="error">Your ai-catalog.json could not be used: {catalog.error}</Notice>
      ) : null}
      {chosen && !sources.some((e) => e.url === chosen) ? (
        <Notice kind="info">
          Your chosen source {chosen} is no longer in your catalog; refreshes pull from it until you choose
          another.
        </Notice>
      ) : null}
      <form id="source-form" class="stack" data-host={host}>
        <fieldset>
          <legend>Pull the manifest from</legend>
          <div class="field check">
            <input type="radio" id="source-default" name="source" value="" checked={!chosen} />
            <label for="source-default">
              <code>/.well-known/webmcp.json</code> (default)
            </label>
          </div>
          {sources.map((e, i) => (
            <div class="field check">
              <input type="radio" id={`source-${i}`} name="source" value={e.url} checked={chosen === e.url} />
              <label for={`source-${i}`}>
                <code>{path(e.url)}</code>
                {e.displayName ? ` ${e.displayName}` : ""}
                {e.version ? ` (version ${e.version})` : ""}
              </label>
            </div>
          ))}
        </fieldset>
        <p class="actions">
          <button type="submit" class="btn small" disabled data-needs-js>
            Use this source
          </button>{" "}
          <button type="button" class="btn small" id="manifest-pull" disabled data-needs-js>
            Pull the manifest now
          </button>{" "}
          <button type="button" class="btn small" id="catalog-read" disabled data-needs-js>
            Read my ai-catalog.json now
          </button>
        </p>
        <p id="source-status" class="meta" role="status"></p>
      </form>
      {servers.length ? (
        <>
          <h3>MCP servers in your catalog</h3>
          <ul>
            {servers.map((e) => (
              <li>
                <code>{path(e.url)}</code> {e.displayName ?? e.identifier} ({e.type}): not a manifest source.
                It describes a remote MCP server, not the WebMCP tools of your pages.
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {catalog.ignored.length ? (
        <details>
          <summary>{plural(catalog.ignored.length, "catalog entry", "catalog entries")} not used</summary>
          <ul>
            {catalog.ignored.map((e) => (
              <li>
                <code>{e.identifier}</code>: {e.reason}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

function DiffView(props: { diff: SiteDiff }) {
  const d = props.diff;
  const c = d.changes;
  const nothing = !c.added.length && !c.removed.length && !c.changed.length && !c.siteFields.length;
  return (
    <div id="diff" class="diff-view">
      <h3>
        Changes from v{d.from} to v{d.to}
      </h3>
      {d.from === d.to ? (
        <p class="muted">These are the same version. Pick two different versions.</p>
      ) : nothing ? (
        <p class="muted">The tools are the same in both versions.</p>
      ) : (
        <ul class="changes">
          {c.added.map((n) => (
            <li>
              <span class="badge ro">added</span> <code>{n}</code>
            </li>
          ))}
          {c.removed.map((n) => (
            <li>
              <span class="badge danger">removed</span> <code>{n}</code>
            </li>
          ))}
          {c.changed.map((t) => (
            <li>
              <span class="badge rw">changed</span> <code>{t.name}</code>: {t.fields.join(", ")}
            </li>
          ))}
          {c.siteFields.length ? (
            <li>
              <span class="badge info">site</span> {c.siteFields.join(" and ")} changed
            </li>
          ) : null}
        </ul>
      )}
      {d.lines === null ? (
        <p class="muted">
          Too many lines changed to show them one by one; compare the two versions' JSON instead.
        </p>
      ) : d.from !== d.to ? (
        <pre
          class="diff"
          tabindex={0}
          role="region"
          aria-label={`Line changes from version ${d.from} to ${d.to}`}
        >
          {hunks(d.lines).map((h) => (
            <>
              <span class="hunk">{h.header}</span>
              {"\n"}
              {h.lines.map((l) => (
                <>
                  <span class={l.op === "+" ? "add" : l.op === "-" ? "del" : "ctx"}>
                    {l.op === "+" ? (
                      <span class="sr-only">added: </span>
                    ) : l.op === "-" ? (
                      <span class="sr-only">removed: </span>
                    ) : null}
                    {l.op} {l.text}
                  </span>
                  {"\n"}
                </>
              ))}
            </>
          ))}
        </pre>
      ) : null}
    </div>
  );
}
