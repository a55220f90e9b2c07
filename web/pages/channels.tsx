// Channels: the list of channels this browser keeps and the form to create one; and a channel's console
// (MCP URL and token with client snippets, pairing code with its countdown, live providers and tools,
// the audit log, agent tokens). The hub shows a channel's secrets once; channels.js keeps them in this
// browser's local storage and drives the owner API.
import { sidecarPairCommand } from "../shared/snippets.js";
import { CodeBlock, CopyValue, Notice } from "./components.js";
import type { Child } from "hono/jsx";

const NEEDS_JS = (
  <noscript>
    <Notice kind="info" title="The channel console needs JavaScript.">
      A channel's keys stay in your browser, so the console runs there. Without it, use the API:{" "}
      <code>POST /api/channels</code>, then <code>GET /api/channels/ID</code> with the owner key (see the{" "}
      <a href="/docs#agent">docs</a>).
    </Notice>
  </noscript>
);

/** The signed-in account's channels (any device), listed beside the ones this browser keeps. */
export interface AccountChannelLink {
  id: string;
  name: string;
}

/** The signed-in account's channels: the part of /channels that depends on the request ("" when signed out). */
export function ChannelsAccountList(props: { channels: AccountChannelLink[] }) {
  return (
    <section aria-labelledby="account-channels-title" class="panel">
      <h2 id="account-channels-title">Your account's channels</h2>
      {props.channels.length === 0 ? (
        <p class="meta">None yet: a channel you create while signed in belongs to your account.</p>
      ) : (
        <ul id="account-channel-list" class="plain-list">
          {props.channels.map((ch) => (
            <li data-channel-id={ch.id}>
              <a href={`/channels/${encodeURIComponent(ch.id)}`}>{ch.name}</a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The body of /channels, a static page (static-pages.tsx): `accountChannels` is ChannelsAccountList's markup. */
export function ChannelsBody(props: { accountChannels: Child }) {
  return (
    <>
      <header class="page-head">
        <h1>Channels</h1>
        <p class="lede">
          A channel is your private line between your agents and the tools in your own open tabs (through{" "}
          <a href="/docs#bridge">the bridge</a>) and on your computer (through{" "}
          <a href="/docs#sidecar">the sidecar</a>
          ). Your agent connects to the channel's MCP URL; every call is logged, and tools that change data
          ask you first, in the tab.
        </p>
      </header>
      {NEEDS_JS}
      {props.accountChannels}
      <div class="grid-2">
        <section aria-labelledby="mine-title" class="panel">
          <h2 id="mine-title">Your channels</h2>
          <p class="meta">
            Kept in this browser's local storage (with their keys), nowhere else. Clearing site data forgets
            them.
          </p>
          <ul id="channel-list" class="plain-list"></ul>
          <p id="channel-empty" class="empty-inline" hidden>
            No channels in this browser yet. Create one: it takes a second.
          </p>
        </section>
        <section aria-labelledby="create-title" class="panel">
          <h2 id="create-title">Create a channel</h2>
          <form id="create-form" novalidate>
            <div class="field">
              <label for="channel-name">Name</label>
              <input
                id="channel-name"
                name="name"
                type="text"
                required
                maxlength={100}
                value="My channel"
                aria-describedby="channel-name-hint channel-name-error"
              />
              <p class="hint" id="channel-name-hint">
                For you, like “work laptop”.
              </p>
              <p class="field-error" id="channel-name-error" hidden></p>
            </div>
            <div class="field check">
              <input id="strict-names" name="strictNames" type="checkbox" aria-describedby="strict-hint" />
              <label for="strict-names">Strict tool names</label>
              <p class="hint" id="strict-hint">
                Rewrite names to letters, digits, _ and - (at most 64), for MCP clients that reject dots.
              </p>
            </div>
            <div id="create-error" class="alert error" role="alert" hidden></div>
            <button type="submit" class="btn primary" disabled data-needs-js>
              Create channel
            </button>
          </form>
          <details class="import">
            <summary>Open a channel created in another browser</summary>
            <form id="import-form" novalidate>
              <div class="field">
                <label for="import-id">Channel ID</label>
                <input id="import-id" name="id" type="text" required autocomplete="off" />
              </div>
              <div class="field">
                <label for="import-key">Owner key</label>
                <input
                  id="import-key"
                  name="key"
                  type="password"
                  required
                  autocomplete="off"
                  placeholder="who_…"
                />
              </div>
              <div id="import-error" class="alert error" role="alert" hidden></div>
              <button type="submit" class="btn">
                Open
              </button>
            </form>
          </details>
        </section>
      </div>
    </>
  );
}

const AUDIT_STATUSES = ["ok", "error", "invalid", "denied", "timeout", "disconnected", "cancelled"];

/** The console's sections, in page order: the section nav links each one. */
const CONSOLE_SECTIONS: Array<[id: string, label: string]> = [
  ["providers", "Connected"],
  ["tools", "Tools"],
  ["audit", "Recent calls"],
  ["connect", "Connect"],
  ["access", "Who may call"],
  ["added-tools", "Marketplace"],
  ["browser", "This browser"],
];

/** One fact of the glance strip: a label, a value the console fills in, a link to its section. */
function Glance(props: { id: string; label: string; href: string }) {
  return (
    <div class="glance-item">
      <dt>{props.label}</dt>
      <dd>
        <a href={props.href} id={props.id}>
          …
        </a>
      </dd>
    </div>
  );
}

// The console reads top down as a person asks: is anything connected, what do my agents see, what happened
// lately; then how to connect more, who may call, and this browser's keys. A glance strip answers the first
// three in one line; the section nav reaches every section directly. Tables stack into labelled cards on
// narrow screens, and a table shows only when it has rows (otherwise one sentence says what is missing).
export function ChannelConsoleBody(props: { id: string; hub: string; signedIn: string }) {
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/channels">Channels</a> <span aria-hidden="true">›</span>{" "}
        <span aria-current="page" id="ch-crumb">
          {props.id}
        </span>
      </nav>
      <header
        class="page-head"
        id="console-head"
        data-channel={props.id}
        data-hub={props.hub}
        data-signed-in={props.signedIn}
      >
        <h1 id="ch-name">Channel</h1>
        <p class="meta">
          ID <code id="ch-id">{props.id}</code> <span id="ch-created"></span>{" "}
          <span id="live" class="live" hidden>
            <span aria-hidden="true">●</span> live
          </span>
        </p>
      </header>
      {NEEDS_JS}
      <div id="ch-missing" hidden>
        <Notice kind="warn" title="This browser does not have this channel's owner key.">
          Open it with the owner key you saved when you created it, or{" "}
          <a href="/channels">create a new channel</a>.
        </Notice>
        <form id="missing-form" class="panel" novalidate>
          <div class="field">
            <label for="missing-key">Owner key</label>
            <input id="missing-key" type="password" required autocomplete="off" placeholder="who_…" />
          </div>
          <div id="missing-error" class="alert error" role="alert" hidden></div>
          <button type="submit" class="btn primary">
            Open the console
          </button>
        </form>
      </div>

      <div id="console" hidden>
        <div id="fresh" hidden>
          <Notice kind="warn" title="Your channel is ready.">
            The hub shows its agent token and owner key only once. This browser keeps a copy in local storage
            so the console works here; save them in your password manager too. Then{" "}
            <a href="#connect">connect your agent and a tab</a>.
          </Notice>
        </div>

        <section aria-labelledby="glance-title" id="glance" class="glance-box">
          <h2 id="glance-title" class="sr-only">
            At a glance
          </h2>
          <dl class="glance">
            <Glance id="glance-tabs" label="Tabs" href="#providers" />
            <Glance id="glance-sidecar" label="Sidecar" href="#providers" />
            <Glance id="glance-extension" label="Browser extension" href="#providers" />
            <Glance id="glance-agents" label="Agents" href="#access" />
            <Glance id="glance-tools" label="Tools agents see" href="#tools" />
            <Glance id="glance-last" label="Last call" href="#audit" />
          </dl>
        </section>

        <nav aria-label="Console sections" class="console-nav">
          <ul>
            {CONSOLE_SECTIONS.map(([id, label]) => (
              <li>
                <a href={`#${id}`}>{label}</a>
              </li>
            ))}
          </ul>
        </nav>

        <section aria-labelledby="providers-title" id="providers" class="console-section">
          <h2 id="providers-title">Connected now</h2>
          <p id="providers-summary" class="meta" role="status">
            Checking…
          </p>
          <ul id="provider-list" class="cards two"></ul>
        </section>

        <section aria-labelledby="tools-title" id="tools" class="console-section">
          <h2 id="tools-title">Tools your agents see</h2>
          <p id="tools-empty" class="empty-inline" hidden>
            No tools yet. <a href="#pair">Connect a tab or the sidecar</a> with a pairing code; its tools
            appear here within seconds.
          </p>
          <div
            class="table-wrap"
            id="tools-table"
            role="region"
            aria-labelledby="tools-title"
            tabindex={0}
            hidden
          >
            <table class="data stack live-tools">
              <caption class="sr-only">Tools exposed to this channel's agents</caption>
              <thead>
                <tr>
                  <th scope="col">Name agents call</th>
                  <th scope="col">From</th>
                  <th scope="col">Published</th>
                  <th scope="col">What it may do</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody id="tool-rows"></tbody>
            </table>
          </div>
          <details class="policy">
            <summary>
              What agents may call: <span id="policy-current">every tool</span>
            </summary>
            <form id="policy-form" class="stack">
              <fieldset aria-describedby="policy-hint">
                <legend>What agents may call</legend>
                <p class="hint" id="policy-hint">
                  Each tool a tab offers is checked against what its site published in the registry: verified,
                  changed since published, or unpublished. Sidecar tools are not checked.
                </p>
                <div class="field check">
                  <input type="radio" id="policy-all" name="verificationPolicy" value="all" checked />
                  <label for="policy-all">Every tool</label>
                </div>
                <div class="field check">
                  <input type="radio" id="policy-warn" name="verificationPolicy" value="warn" />
                  <label for="policy-warn">
                    Every tool, with a warning the agent reads on tools that are not verified
                  </label>
                </div>
                <div class="field check">
                  <input type="radio" id="policy-verified" name="verificationPolicy" value="verified" />
                  <label for="policy-verified">Verified tools only (calls to others are refused)</label>
                </div>
              </fieldset>
              <div id="policy-error" class="alert error" role="alert" hidden></div>
              <p id="policy-status" class="meta" role="status"></p>
              <button type="submit" class="btn small">
                Save
              </button>
            </form>
          </details>
        </section>

        <section aria-labelledby="audit-title" id="audit" class="console-section">
          <h2 id="audit-title">Recent calls</h2>
          <p class="meta">
            The audit log: one row for every call your agents made, newest first. Arguments are not stored,
            only their size and SHA-256.
          </p>
          <form id="audit-filters" class="filters" aria-label="Filter the audit log">
            <div class="field inline">
              <label for="audit-tool">Tool</label>
              <input
                id="audit-tool"
                name="tool"
                type="text"
                list="audit-tool-names"
                placeholder="any tool"
                autocomplete="off"
              />
              <datalist id="audit-tool-names"></datalist>
            </div>
            <div class="field inline">
              <label for="audit-status">Status</label>
              <select id="audit-status" name="status">
                <option value="">any</option>
                {AUDIT_STATUSES.map((s) => (
                  <option value={s}>{s}</option>
                ))}
              </select>
            </div>
            <div class="field inline">
              <label for="audit-since">Time</label>
              <select id="audit-since" name="since">
                <option value="">any time</option>
                <option value="3600">last hour</option>
                <option value="86400">last 24 hours</option>
                <option value="604800">last 7 days</option>
              </select>
            </div>
            <button type="submit" class="btn">
              Apply
            </button>
          </form>
          <p id="audit-summary" class="meta" role="status"></p>
          <div
            class="table-wrap"
            id="audit-table"
            role="region"
            aria-labelledby="audit-title"
            tabindex={0}
            hidden
          >
            <table class="data stack audit">
              <caption class="sr-only">Calls, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Tool</th>
                  <th scope="col">Status</th>
                  <th scope="col">Agent</th>
                  <th scope="col">Provider</th>
                  <th scope="col">Took</th>
                  <th scope="col">Arguments</th>
                  <th scope="col">Message</th>
                </tr>
              </thead>
              <tbody id="audit-rows"></tbody>
            </table>
          </div>
          <p id="audit-empty" class="empty-inline" hidden></p>
          <nav class="pager" aria-label="Audit log pages">
            <button type="button" class="btn" id="audit-newest" hidden>
              ← Newest
            </button>
            <span class="meta" id="audit-page"></span>
            <button type="button" class="btn" id="audit-older" hidden>
              Older →
            </button>
          </nav>
        </section>

        <section aria-labelledby="connect-title" id="connect" class="console-section">
          <h2 id="connect-title">Connect</h2>
          <div class="grid-2">
            <section aria-labelledby="agent-title" class="panel" id="agent">
              <h3 id="agent-title">Your agent</h3>
              <p>
                Give your MCP client the URL and the token (sent as a Bearer header), or the capability URL
                alone.
              </p>
              <CopyValue id="mcp-url" label="MCP URL" value="" />
              <div id="agent-token-row">
                <CopyValue id="agent-token" label="Agent token" value="" secret />
              </div>
              <div id="cap-url-row">
                <CopyValue id="cap-url" label="Capability URL (token inside)" value="" secret />
              </div>
              <p id="no-agent-token" class="note" hidden>
                This browser has no agent token of this channel. Create one under{" "}
                <a href="#tokens">Who may call</a>.
              </p>
              <div id="snippets" class="tabs" data-tabs="MCP client"></div>
            </section>

            <section aria-labelledby="pair-title" class="panel" id="pair">
              <h3 id="pair-title">Your tabs and computer</h3>
              <div class="pair-box">
                <span class="label" id="pair-label">
                  Pairing code
                </span>
                <output id="pair-code" class="code-big" aria-labelledby="pair-label">
                  ––––-––––
                </output>
                <p id="pair-countdown" class="meta">
                  &nbsp;
                </p>
                <button type="button" class="btn" id="pair-new">
                  New pairing code
                </button>
              </div>
              <p class="meta">A code works once, for 10 minutes.</p>
              <h4>A tab</h4>
              <p>
                Open a page of a site that embeds <code>/bridge.js</code>, type the code into its webmcp-hub
                pairing box ("Pairing code") and press Pair. Its tools appear under Tools.
              </p>
              <h4>Your computer</h4>
              <p>Serve your files' search to the channel with the sidecar:</p>
              <CodeBlock
                id="sidecar-cmd"
                label="sidecar command"
                code={sidecarPairCommand(props.hub, "CODE")}
              />
            </section>
          </div>
        </section>

        <section aria-labelledby="access-title" id="access" class="console-section">
          <h2 id="access-title">Who may call</h2>
          <section aria-labelledby="tokens-title" id="tokens">
            <h3 id="tokens-title">Agent tokens</h3>
            <p class="meta">
              Give each agent its own token, so you can see who did what and revoke one alone.
            </p>
            <p id="tokens-empty" class="empty-inline" hidden>
              No agent tokens. Create one below, or connect an OAuth app with the MCP URL alone.
            </p>
            <div class="table-wrap" id="tokens-table" hidden>
              <table class="data stack">
                <caption class="sr-only">Agent tokens of this channel</caption>
                <thead>
                  <tr>
                    <th scope="col">Label</th>
                    <th scope="col">Created</th>
                    <th scope="col">State</th>
                    <th scope="col">Tools</th>
                    <th scope="col">
                      <span class="sr-only">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody id="token-rows"></tbody>
              </table>
            </div>
            <form id="token-form" class="filters" novalidate>
              <div class="field inline">
                <label for="token-label">New token for</label>
                <input
                  id="token-label"
                  name="label"
                  type="text"
                  required
                  maxlength={100}
                  placeholder="e.g. claude-code"
                />
              </div>
              <button type="submit" class="btn">
                Create token
              </button>
            </form>
            <div id="token-error" class="alert error" role="alert" hidden></div>
            <div id="token-created" hidden>
              <Notice kind="warn" title="New agent token, shown once.">
                This browser keeps a copy.
              </Notice>
              <CopyValue id="new-token" label="New agent token" value="" secret />
            </div>
          </section>
        </section>

        <section aria-labelledby="added-title" id="added-tools" class="console-section">
          <h2 id="added-title">Marketplace tools added</h2>
          <p class="meta">
            Tools of verified sites added from the marketplace: your agents see them even with no tab open.{" "}
            <a href="/">Add more from the marketplace</a>.
          </p>
          <p id="added-summary" class="meta" role="status">
            Checking…
          </p>
          <p id="added-opener" class="meta" role="status"></p>
          <div id="added-error" class="alert error" role="alert" hidden></div>
          <div id="added-list"></div>
        </section>

        <section aria-labelledby="browser-title" id="browser" class="panel console-section">
          <h2 id="browser-title">This browser</h2>
          <p>
            The owner key lets anyone who has it manage this channel. It is kept in this browser's local
            storage.
          </p>
          <CopyValue id="owner-key" label="Owner key" value="" secret />
          <div id="claim-box" hidden>
            <p>
              Add this channel to your account: you can then open it on any device, and allow OAuth apps
              (Claude, ChatGPT, VS Code, mcp-remote) to use it.
            </p>
            <button type="button" class="btn primary" id="claim-channel">
              Add to my account
            </button>
            <p id="claim-status" class="meta" role="status"></p>
          </div>
          <button type="button" class="btn danger" id="forget-channel">
            Forget this channel in this browser
          </button>
        </section>
      </div>
    </>
  );
}
