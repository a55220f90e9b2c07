// A site's page: origin, verification, description, its tools, the current manifest, the version history
// and a diff between any two versions (chosen with a plain GET form, so it works without JavaScript). Each
// current tool's definition digest is listed (folded away: most readers need it only to compare or pin one).
// Tools the hub runs with no tab open are named with the site's cloud endpoint; the signed-in owner also sees
// the site's cloud switch and the runner's daily counts of cloud calls and failures, and where a manifest
// refresh pulls from: /.well-known/webmcp.json or a WebMCP manifest the site's own ai-catalog.json lists
// (registry/site-catalog.ts). Those owner sections are built in the browser by /assets/site-owner.js from the
// data the page holds (#site-owner; web/shared/site-owner.ts), so the Worker carries no markup of theirs.
import type { ManifestVersionView, RegistryToolView } from "../../src/protocol/views.js";
import type { SiteView } from "../../src/worker/registry/sites.js";
import type { SiteOwnerData } from "../shared/site-owner.js";
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
  tools: RegistryToolView[];
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

/** The owner's sections' data (web/shared/site-owner.ts), but for what the site's view says already. */
export type SiteOwnerView = Omit<SiteOwnerData, "host" | "cloudEnabled">;

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

      {p.owner ? (
        <div
          id="site-owner"
          data-view={JSON.stringify({ ...p.owner, host: s.host, cloudEnabled: s.cloudEnabled })}
        >
          <noscript>
            <p class="alert info">Your site's cloud runs and manifest source show here with JavaScript on.</p>
          </noscript>
        </div>
      ) : null}

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
