// A tool's page: what it does and whether it changes anything (plain-language badges), its input and
// output as readable tables with the raw JSON a click away, export snippets for four ecosystems, and a
// "Try it" form whose fields tool.js generates from its inputSchema (read from the raw input schema block) and
// runs in one of your channels. Its definition digest
// (what a live tab's tool is checked against) is shown in full and copyable, like other values one pastes.
import type { ExportFormat, PublicUsage } from "../../src/protocol/index.js";
import type { RegistryToolView, ToolExportView } from "../../src/protocol/views.js";
import type { SiteView } from "../../src/worker/registry/sites.js";
import {
  CodeBlock,
  CopyValue,
  HintBadges,
  Tabs,
  VerifiedBadge,
  hints,
  json,
  sitePath,
} from "./components.js";
import { AddToChannel, addable } from "./add.js";
import { Layout } from "./layout.js";
import { SchemaTable } from "./schema.js";

export const FORMAT_LABELS: Record<ExportFormat, { name: string; how: string }> = {
  mcp: { name: "MCP", how: "An MCP tool definition, as tools/list returns it." },
  openai: {
    name: "OpenAI",
    how: "The `tools` of an OpenAI Responses API request (function tools).",
  },
  anthropic: { name: "Anthropic", how: "The `tools` of an Anthropic Messages API request." },
  gemini: {
    name: "Gemini",
    how: "The `tools` of a Gemini generateContent request (parameters reduced to Gemini's schema subset).",
  },
};

/** Public usage in words (PublicUsage is null under the channel threshold). */
export const usageText = (u: NonNullable<PublicUsage>) =>
  `${u.calls30d.toLocaleString("en")} calls from ${u.channels30d.toLocaleString("en")} channels in the last 30 days`;

export interface ToolProps {
  site: SiteView;
  tool: RegistryToolView;
  pages: string[];
  exports: ToolExportView[];
}

export function ToolPage(p: ToolProps) {
  const t = p.tool;
  const title = t.title ?? t.name;
  const needsApproval = !t.readOnly;
  const canAdd = addable(p.site);
  return (
    <Layout
      title={`${title} — ${p.site.host}`}
      description={t.description}
      section="tools"
      scripts={canAdd ? ["tool", "add-to-channel"] : ["tool"]}
    >
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Tools</a> <span aria-hidden="true">›</span>{" "}
        <a href={sitePath(p.site.host)}>{p.site.host}</a> <span aria-hidden="true">›</span>{" "}
        <span aria-current="page">{t.name}</span>
      </nav>
      <header class="page-head">
        <h1>{title}</h1>
        <p class="meta">
          <code>{t.name}</code> · from <a href={sitePath(p.site.host)}>{p.site.name ?? p.site.host}</a>{" "}
          {p.site.status === "verified" ? (
            <VerifiedBadge method={p.site.verificationMethod} />
          ) : (
            <span class="badge">verification lapsed</span>
          )}{" "}
          · manifest v{t.version}
          {t.usage ? ` · ${usageText(t.usage)}` : null}
        </p>
        <p class="badges">
          <HintBadges readOnly={t.readOnly} annotations={t.annotations} />
        </p>
        <p class="lede">{t.description}</p>
        <ul class="hint-list">
          {hints(t.readOnly, t.annotations).map((h) => (
            <li>
              <strong>{h.label}:</strong> {h.title}
            </li>
          ))}
        </ul>
        {t.digest ? (
          <div class="digest">
            <CopyValue id="definition-digest" label="Definition digest" value={t.digest} />
            <p class="hint" id="definition-digest-hint">
              SHA-256 of this tool's published definition (name, title, description, schemas, annotations) as
              RFC 8785 JSON. A live tab's tool with another digest is not the one published here.
            </p>
          </div>
        ) : null}
        {t.cloudEndpoint ? (
          <div class="cloud-run">
            <p>
              <span class="badge info">Runs in the cloud</span> The hub runs this tool on its page in its own
              browser, with no tab open and no one signed in. Any MCP client can call it at this endpoint,
              with no credentials.
            </p>
            <CopyValue id="cloud-endpoint" label="Cloud MCP endpoint" value={t.cloudEndpoint} />
          </div>
        ) : null}
        <p class="jump">
          <a class="btn primary" href="#try">
            Try it
          </a>
          <a class="btn" href="#export-title">
            Use it in your code
          </a>
          {canAdd ? (
            <a class="btn" href="#add-to-channel">
              Add to a channel
            </a>
          ) : null}
        </p>
        {p.pages.length ? (
          <p class="meta">
            Offered on{" "}
            {p.pages.map((path, i) => (
              <>
                {i ? ", " : ""}
                <a href={t.origin + path} rel="nofollow noopener">
                  {path}
                </a>
              </>
            ))}{" "}
            of {t.origin}
          </p>
        ) : null}
      </header>

      {t.warnings.length ? (
        <section class="alert warn findings" id="definition-warnings" aria-labelledby="warnings-title">
          <h2 id="warnings-title">Warnings about this definition</h2>
          <p>
            The hub's <a href="/docs#definition-checks">definition checks</a> found these. Agents see the
            definition as published.
          </p>
          <ul>
            {t.warnings.map((w) => (
              <li>
                <code>{w.path}</code>: {w.message}
              </li>
            ))}
          </ul>
        </section>
      ) : null}

      <section aria-labelledby="input-title">
        <h2 id="input-title">What it takes</h2>
        <SchemaTable
          schema={t.inputSchema}
          caption={`Arguments of ${t.name}`}
          empty="This tool takes no arguments."
        />
        <details>
          <summary>Raw input schema (JSON)</summary>
          <CodeBlock id="input-schema" label="input schema" code={json(t.inputSchema)} lang="json" />
        </details>
      </section>

      <section aria-labelledby="output-title">
        <h2 id="output-title">What it returns</h2>
        {t.outputSchema ? (
          <>
            <SchemaTable
              schema={t.outputSchema}
              caption={`Structured result of ${t.name}`}
              empty="The output schema lists no fields."
            />
            <details>
              <summary>Raw output schema (JSON)</summary>
              <CodeBlock id="output-schema" label="output schema" code={json(t.outputSchema)} lang="json" />
            </details>
          </>
        ) : (
          <p class="empty-inline">
            No output schema: the tool answers with text or other content blocks for the agent to read.
          </p>
        )}
      </section>

      <section aria-labelledby="export-title">
        <h2 id="export-title">Use it in your code</h2>
        <p>The same tool in each ecosystem's function-calling shape.</p>
        <Tabs label="Export format">
          {p.exports.map((e) => {
            const renamed = Object.entries(e.names);
            return (
              <section
                data-tab={FORMAT_LABELS[e.format].name}
                id={`export-${e.format}`}
                aria-labelledby={`export-${e.format}-h`}
              >
                <h3 id={`export-${e.format}-h`}>{FORMAT_LABELS[e.format].name}</h3>
                <p class="meta">{FORMAT_LABELS[e.format].how}</p>
                {renamed.length ? (
                  <p class="note">
                    This format does not allow the name <code>{t.name}</code>; it is exported as{" "}
                    <code>{renamed[0]![0]}</code>. Map it back when the model calls it.
                  </p>
                ) : null}
                <CodeBlock
                  id={`export-${e.format}-code`}
                  label={`${FORMAT_LABELS[e.format].name} definition`}
                  code={json(e.format === "mcp" ? e.tools[0] : e.tools)}
                  lang="json"
                />
              </section>
            );
          })}
        </Tabs>
      </section>

      {canAdd ? <AddToChannel site={p.site} tools={[t]} choose={false} /> : null}

      <section
        aria-labelledby="try-title"
        id="try"
        class="panel try"
        data-origin={t.origin}
        data-host={t.site}
        data-tool={t.name}
        data-readonly={String(t.readOnly)}
        data-pages={JSON.stringify(p.pages)}
        data-cloud={String(t.cloud)}
      >
        <h2 id="try-title">Try it</h2>
        {t.cloud ? (
          <p>
            Runs <code>{t.name}</code> in the hub's own browser, on{" "}
            {p.pages[0] ? <code>{p.pages[0]}</code> : "its page"} of <strong>{t.origin}</strong>, with no one
            signed in: nothing to install, no channel, no account.
          </p>
        ) : (
          <p>
            Runs <code>{t.name}</code> in your own open tab of <strong>{t.origin}</strong>, through one of
            your channels, exactly as an agent would.
            {needsApproval
              ? " The tab asks you to approve the call first, because this tool may change data."
              : ""}
          </p>
        )}
        <noscript>
          <p class="alert info">
            {t.cloud ? (
              <>
                Try it needs JavaScript. Without it, call <code>POST /api/sites/HOST/tools/NAME/try</code>{" "}
                with <code>{'{"arguments": {…}}'}</code>, or the MCP endpoint above.
              </>
            ) : (
              <>
                Try it needs JavaScript: the channel's keys stay in this browser. Without it, call{" "}
                <code>POST /api/channels/ID/calls</code> with your agent token (see the{" "}
                <a href="/docs#agent">docs</a>).
              </>
            )}
          </p>
        </noscript>
        <form id="try-form" novalidate>
          {t.cloud ? null : (
            <div class="field">
              <label for="try-channel">Channel</label>
              <select id="try-channel" name="channel" aria-describedby="try-channel-hint" disabled>
                <option value="">Loading your channels…</option>
              </select>
              <p class="hint" id="try-channel-hint">
                Channels created in this browser. <a href="/channels">Open the channel console</a>.
              </p>
            </div>
          )}
          <div id="try-status" class="alert" role="status" tabindex={-1} hidden></div>
          <fieldset class="args" id="try-fields">
            <legend>Arguments</legend>
            {/* tool.js builds the fields from the raw input schema above (lib/arg-fields.ts). */}
            <noscript>
              <p class="empty-inline">The fields for the arguments appear when JavaScript runs.</p>
            </noscript>
          </fieldset>
          <details>
            <summary>Arguments as JSON</summary>
            <pre id="try-args" aria-live="off">
              {"{}"}
            </pre>
          </details>
          <div class="actions">
            <button type="submit" class="btn primary" id="try-run" disabled>
              Run {t.name}
            </button>
          </div>
        </form>
        <div id="try-result" class="try-result" aria-live="polite"></div>
      </section>
    </Layout>
  );
}
