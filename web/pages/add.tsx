// "Add to channel" ("Add from the marketplace"): the control the tool and site pages show for a
// verified, listed site, and the confirm page an agent's proposal links to
// (`/sites/:host/add?tool=a&tool=b&channel=ID`, what /mcp/registry's propose_tools returns). The server renders
// the tools and an empty channel chooser; /assets/add-to-channel.js (web/client/add-to-channel.ts) fills the
// chooser with the signed-in account's channels and the channels kept in this browser, and adds with
// POST /api/channels/:id/tools.
//
// Decisions:
// - The confirm page adds only what the user sees and leaves checked: the names are always sent explicitly,
//   never "all tools" (a republish between showing and adding must not add a tool the user never saw).
// - A proposal naming tools the site does not publish still shows the ones it does publish (they can be
//   added); the unknown names are listed in an error above, so the user knows the proposal was partly wrong.
// - A proposal with no `tool` means every tool of the site's current manifest, each shown.
// - The section is not named by its heading and the chooser's label is "Add to": the tool page's "Try it" has
//   the page's one field labelled "Channel", which its readers (and tests) find by that label.
// - `channel` only pre-selects: a channel that is not one of the user's is ignored (the chooser has no such
//   option), so a link cannot make anyone add to someone else's channel.
import { createContext, useContext } from "./jsx-context.js";
import type { RegistryToolView } from "../../src/protocol/views.js";
import type { SiteView } from "../../src/worker/registry/sites.js";
import { HintBadges, Notice, VerifiedBadge, sitePath, toolPath } from "./components.js";
import { Layout } from "./layout.js";

/** The short form of a definition digest shown beside a tool (the full one is on the tool's page). */
export const shortDigest = (digest: string) => digest.replace(/^sha256:/, "").slice(0, 12);

export interface AddControlProps {
  site: SiteView;
  /** The tools offered; with `choose`, each gets a checkbox (checked), otherwise the one tool is implied. */
  tools: RegistryToolView[];
  choose: boolean;
  /** The channel to pre-select when it is one of the user's. */
  channel?: string | undefined;
  /** Where "Cancel" goes (the confirm page only). */
  cancelHref?: string | undefined;
  /** Show each tool's title, description, read-only badge and digest (the confirm page). */
  detailed?: boolean;
}

/** True when the site's tools may be added: verified and not delisted (the API refuses the rest). */
export const addable = (site: SiteView) => site.status === "verified" && site.delistedAt === null;

/**
 * Whether the request that renders the page is signed in (null: not known). The control's script asks for the
 * account's channels only when it is, so a signed-out visit makes no request the hub refuses with 401.
 */
export const SignedIn = createContext<boolean | null>(null);

export function AddToChannel(p: AddControlProps) {
  const host = p.site.host;
  const signedIn = useContext(SignedIn);
  return (
    <section
      id="add-to-channel"
      class="panel add-channel"
      data-host={host}
      data-channel={p.channel ?? ""}
      data-signed-in={signedIn === null ? undefined : String(signedIn)}
    >
      <h2 id="add-title">Add to a channel</h2>
      <p>
        Your channel's agents see {p.choose ? "the tools you choose" : "this tool"} even with no tab of{" "}
        <strong>{p.site.origin}</strong> open, as published here; a call asks your browser extension to open
        the site's page, and tools that change data ask you first.
      </p>
      <noscript>
        <p class="alert info">
          Adding needs JavaScript: the channel's keys stay in this browser. Without it, call{" "}
          <code>POST /api/channels/ID/tools</code> with the owner key (see the <a href="/docs">docs</a>).
        </p>
      </noscript>
      <form id="add-form" novalidate>
        {p.choose ? (
          <fieldset class="add-tools">
            <legend>Tools to add</legend>
            {p.tools.map((t, i) => (
              <div class="field check">
                <input
                  type="checkbox"
                  id={`add-tool-${i}`}
                  name="tool"
                  value={t.name}
                  checked
                  aria-describedby={p.detailed ? `add-tool-${i}-about` : undefined}
                />
                <label for={`add-tool-${i}`}>
                  {p.detailed && t.title ? (
                    <>
                      {t.title} <code>{t.name}</code>
                    </>
                  ) : (
                    <code>{t.name}</code>
                  )}
                </label>
                {p.detailed ? (
                  <div class="hint" id={`add-tool-${i}-about`}>
                    <p>{t.description}</p>
                    <p class="badges">
                      <HintBadges readOnly={t.readOnly} annotations={t.annotations} />{" "}
                      {t.digest ? (
                        <span class="meta">
                          digest <code title={t.digest}>{shortDigest(t.digest)}</code>
                        </span>
                      ) : null}{" "}
                      <a href={toolPath(host, t.name)}>Details</a>
                    </p>
                  </div>
                ) : null}
              </div>
            ))}
          </fieldset>
        ) : (
          p.tools.map((t) => <input type="hidden" name="tool" value={t.name} />)
        )}
        <div class="field">
          <label for="add-channel">Add to</label>
          <select id="add-channel" name="channel" aria-describedby="add-channel-hint" disabled>
            <option value="">Loading your channels…</option>
          </select>
          <p class="hint" id="add-channel-hint">
            Your account's channels and the channels kept in this browser.
          </p>
        </div>
        <div id="add-none" class="alert info" hidden>
          <p>
            <strong>You need a channel first.</strong> <a href="/channels">Create a channel</a>
            <span id="add-signin">
              {" "}
              or <a href="/signin">sign in</a> to use your account's channels
            </span>
            , then come back to this page.
          </p>
        </div>
        <div class="actions">
          <button type="submit" class="btn primary" id="add-submit" disabled>
            Add to channel
          </button>
          {p.cancelHref ? (
            <a class="btn" href={p.cancelHref} id="add-cancel">
              Cancel
            </a>
          ) : null}
        </div>
      </form>
      <div id="add-status" class="alert" role="status" aria-live="polite" tabindex={-1} hidden></div>
    </section>
  );
}

export interface AddPageProps {
  site: SiteView;
  /** The proposed tools the site publishes, in the order asked (all of them when none was named). */
  tools: RegistryToolView[];
  /** Proposed names the site's current manifest does not publish. */
  unknown: string[];
  channel?: string | undefined;
}

/** The confirm page of a proposal: what would be added, to which of the user's channels. */
export function AddPage(p: AddPageProps) {
  const s = p.site;
  const title = s.name ?? s.host;
  return (
    <Layout
      title={`Add tools of ${s.host} to a channel`}
      description={`Confirm adding WebMCP tools of ${s.host} to one of your channels`}
      section="channels"
      scripts={["add-to-channel"]}
    >
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Tools</a> <span aria-hidden="true">›</span> <a href={sitePath(s.host)}>{s.host}</a>{" "}
        <span aria-hidden="true">›</span> <span aria-current="page">Add to a channel</span>
      </nav>
      <header class="page-head">
        <h1>Add tools of {title} to a channel?</h1>
        <p class="meta">
          <a href={s.origin} rel="nofollow noopener">
            {s.origin}
          </a>{" "}
          <VerifiedBadge method={s.verificationMethod} /> · manifest v{s.currentVersion ?? "—"}
        </p>
        <p class="lede">
          An agent proposed adding {p.tools.length === 1 ? "this tool" : "these tools"} to one of your
          channels. Nothing is added until you choose a channel and confirm.
        </p>
      </header>
      {p.unknown.length ? (
        <Notice kind="error" title="Some proposed tools do not exist.">
          {s.host}'s current manifest does not publish{" "}
          {p.unknown.map((n, i) => (
            <>
              {i ? ", " : ""}
              <code>{n}</code>
            </>
          ))}
          . {p.tools.length ? "Only the tools listed below can be added." : "There is nothing to add."}
        </Notice>
      ) : null}
      {p.tools.length ? (
        <AddToChannel
          site={s}
          tools={p.tools}
          choose
          detailed
          channel={p.channel}
          cancelHref={sitePath(s.host)}
        />
      ) : (
        <p>
          <a class="btn" href={sitePath(s.host)}>
            See the tools of {title}
          </a>
        </p>
      )}
    </Layout>
  );
}
