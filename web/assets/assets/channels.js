// Channels on /channels (this browser's channels, create, open with an owner key) and the console on
// /channels/:id: MCP URL and token with client snippets, the pairing code and its countdown, live providers
// and tools (GET /api/channels/:id every few seconds), the audit log with filters and pages, agent tokens.
// The hub shows secrets once; this browser keeps them in local storage (common.js `store`).
import { $, ago, announce, api, enhanceTabs, h, showError, store, timeText } from "/assets/common.js";

const POLL_MS = 3000;
const AUDIT_PAGE = 20;
/** The most of a provider's self-reported page title and URL the console shows, in characters. */
const PAGE_TITLE_SHOWN = 120;
const PAGE_URL_SHOWN = 160;
const consoleHead = $("console-head");

if ($("create-form")) listPage();
if (consoleHead) consolePage(consoleHead.dataset.channel, consoleHead.dataset.hub);

const capped = (text, max) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/**
 * A tab's page URL as a link target, or null: the page reports it, so it is a link only when it is http(s) and
 * on the origin the tab paired from (the hub drops other URLs too; this renders defensively).
 */
function pageLink(p) {
  if (p.kind !== "tab" || typeof p.origin !== "string" || typeof p.page?.url !== "string") return null;
  let url;
  try {
    url = new URL(p.page.url);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return url.origin === p.origin ? url.href : null;
}

/** What the console keeps of a channel created (or opened) in this browser. */
function channelRecord(created) {
  return {
    id: created.channel.id,
    name: created.channel.name,
    strictNames: created.channel.strictNames,
    createdAt: created.channel.createdAt,
    ownerKey: created.ownerKey,
    mcpUrl: created.mcpUrl,
    agentToken: created.agentToken,
    agentTokenId: created.agentTokenId,
    tokens: created.agentToken
      ? [{ id: created.agentTokenId, label: "default", token: created.agentToken }]
      : [],
    pairingCode: created.pairingCode,
    pairingCodeExpiresAt: created.pairingCodeExpiresAt,
  };
}

async function openWithKey(id, key, errorBox, field) {
  showError(errorBox, "", field);
  if (!id || !key) {
    showError(errorBox, "Enter the channel ID and its owner key (who_…).", field);
    return;
  }
  try {
    const body = await api(`/api/channels/${encodeURIComponent(id)}`, { token: key });
    store.saveChannel({
      id: body.channel.id,
      name: body.channel.name,
      strictNames: body.channel.strictNames,
      createdAt: body.channel.createdAt,
      ownerKey: key,
      mcpUrl: body.mcpUrl,
      tokens: [],
    });
    location.href = `/channels/${encodeURIComponent(body.channel.id)}`;
  } catch (e) {
    showError(errorBox, e.message, field);
    errorBox.setAttribute("tabindex", "-1");
    errorBox.focus();
  }
}

// ---- /channels ----------------------------------------------------------------------------------------

function listPage() {
  const channels = store.channels();
  $("channel-empty").hidden = channels.length > 0;
  $("channel-list").replaceChildren(
    ...channels.map((c) =>
      h(
        "li",
        { class: "card" },
        h("h3", {}, h("a", { href: `/channels/${encodeURIComponent(c.id)}` }, c.name)),
        h(
          "p",
          { class: "meta" },
          "ID ",
          h("code", {}, c.id),
          c.createdAt ? ` · created ${ago(c.createdAt)}` : "",
        ),
      ),
    ),
  );

  $("create-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("channel-name");
    const name = input.value.trim();
    const fieldError = $("channel-name-error");
    showError(fieldError, "", input);
    showError($("create-error"), "");
    if (!name) {
      showError(fieldError, "Give the channel a name.", input);
      input.focus();
      return;
    }
    const button = event.submitter ?? event.target.querySelector("button[type=submit]");
    button.disabled = true;
    try {
      const created = await api("/api/channels", {
        method: "POST",
        json: { name, strictNames: $("strict-names").checked },
      });
      if (!store.saveChannel(channelRecord(created)) && !store.channel(created.channel.id)) {
        throw new Error("This browser would not store the channel's keys (local storage is off or full).");
      }
      location.href = `/channels/${encodeURIComponent(created.channel.id)}?new=1`;
    } catch (e) {
      showError($("create-error"), e.message);
      button.disabled = false;
    }
  });

  $("import-form").addEventListener("submit", (event) => {
    event.preventDefault();
    void openWithKey(
      $("import-id").value.trim(),
      $("import-key").value.trim(),
      $("import-error"),
      $("import-key"),
    );
  });
}

// ---- /channels/:id ------------------------------------------------------------------------------------

function codeBlock(id, label, code) {
  return h(
    "div",
    { class: "code-block" },
    h("pre", { id, tabindex: 0, "aria-label": label }, code),
    h(
      "button",
      { type: "button", class: "btn small copy", "data-copy": id, "aria-label": `Copy ${label}` },
      "Copy",
    ),
  );
}

function snippets(ch, token) {
  const url = ch.mcpUrl;
  const auth = `Bearer ${token ?? "wha_…"}`;
  const cap = token ? `${url}/k/${token}` : `${url}/k/wha_…`;
  const j = (v) => JSON.stringify(v, null, 2);
  const clients = [
    [
      "Claude Code",
      "Run in a terminal:",
      `claude mcp add --transport http webmcp-hub ${url} --header "Authorization: ${auth}"`,
    ],
    [
      "Claude Desktop",
      "In claude_desktop_config.json (through mcp-remote):",
      j({ mcpServers: { "webmcp-hub": { command: "npx", args: ["-y", "mcp-remote", cap] } } }),
    ],
    [
      "Cursor",
      "In ~/.cursor/mcp.json:",
      j({ mcpServers: { "webmcp-hub": { url, headers: { Authorization: auth } } } }),
    ],
    [
      "VS Code",
      "In .vscode/mcp.json:",
      j({ servers: { "webmcp-hub": { type: "http", url, headers: { Authorization: auth } } } }),
    ],
    [
      "OpenAI API",
      "A Responses API tool (the hub must be reachable from the internet):",
      j({
        type: "mcp",
        server_label: "webmcp-hub",
        server_url: url,
        headers: { Authorization: auth },
        require_approval: "never",
      }),
    ],
    [
      "MCP Inspector",
      "List the tools from a terminal:",
      `npx @modelcontextprotocol/inspector --cli ${cap} --method tools/list`,
    ],
    [
      "Plain HTTP",
      "For agents without MCP: one call per request.",
      `curl -X POST ${location.origin}/api/channels/${ch.id}/calls \\\n  -H 'authorization: ${auth}' -H 'content-type: application/json' \\\n  -d '{"name":"TOOL","arguments":{}}'`,
    ],
  ];
  const box = $("snippets");
  box.classList.remove("enhanced");
  box.replaceChildren(
    ...clients.map(([name, how, code], i) =>
      h(
        "section",
        { "data-tab": name },
        h("h3", {}, name),
        h("p", { class: "meta" }, how),
        codeBlock(`snippet-${i}`, `${name} configuration`, code),
      ),
    ),
  );
  enhanceTabs(box.parentElement);
}

function consolePage(id, hub) {
  let ch = store.channel(id);
  if (!ch) {
    $("ch-missing").hidden = false;
    $("missing-form").addEventListener("submit", (event) => {
      event.preventDefault();
      void openWithKey(id, $("missing-key").value.trim(), $("missing-error"), $("missing-key"));
    });
    return;
  }
  $("console").hidden = false;
  const params = new URLSearchParams(location.search);
  if (params.has("new")) {
    $("fresh").hidden = false;
    history.replaceState(null, "", location.pathname + location.hash);
  }
  document.title = `${ch.name} · Channel console · webmcp-hub`;
  $("ch-name").textContent = ch.name;
  $("ch-crumb").textContent = ch.name;
  if (ch.createdAt) $("ch-created").textContent = `· created ${timeText(ch.createdAt)}`;
  $("owner-key").textContent = ch.ownerKey;
  const auth = { token: ch.ownerKey };
  const path = `/api/channels/${encodeURIComponent(id)}`;

  const save = (patch) => {
    ch = { ...ch, ...patch };
    store.saveChannel(ch);
  };

  // -- Agent connection --
  const currentToken = () => ch.agentToken ?? ch.tokens?.find((t) => !t.revoked)?.token ?? null;
  function renderAgent() {
    const token = currentToken();
    $("mcp-url").textContent = ch.mcpUrl;
    $("agent-token").textContent = token ?? "";
    $("cap-url").textContent = token ? `${ch.mcpUrl}/k/${token}` : "";
    $("agent-token-row").hidden = !token;
    $("cap-url-row").hidden = !token;
    $("no-agent-token").hidden = Boolean(token);
    snippets(ch, token);
  }
  renderAgent();

  // -- Pairing code --
  const code = $("pair-code");
  const countdown = $("pair-countdown");
  function renderCode() {
    const left = ch.pairingCodeExpiresAt ? Date.parse(ch.pairingCodeExpiresAt) - Date.now() : -1;
    if (!ch.pairingCode || left <= 0) {
      code.textContent = "––––-––––";
      countdown.textContent = ch.pairingCode
        ? "That code has expired. Get a new one."
        : "Get a code to connect a tab or the sidecar.";
      $("sidecar-cmd").textContent = `npx webmcp-hub pair CODE --hub ${hub} --root ~/Documents`;
      return false;
    }
    code.textContent = ch.pairingCode;
    const s = Math.ceil(left / 1000);
    countdown.textContent = `Valid for ${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")} more (until ${new Date(ch.pairingCodeExpiresAt).toLocaleTimeString()}).`;
    $("sidecar-cmd").textContent = `npx webmcp-hub pair ${ch.pairingCode} --hub ${hub} --root ~/Documents`;
    return true;
  }
  renderCode();
  setInterval(renderCode, 1000);
  $("pair-new").addEventListener("click", async (event) => {
    const button = event.currentTarget;
    button.disabled = true;
    try {
      const body = await api(`${path}/pairing-codes`, { method: "POST", ...auth });
      save({ pairingCode: body.pairingCode, pairingCodeExpiresAt: body.expiresAt });
      renderCode();
      announce(`New pairing code ${body.pairingCode}, valid for 10 minutes.`);
    } catch (e) {
      countdown.textContent = `Could not get a code: ${e.message}`;
    } finally {
      button.disabled = false;
    }
  });

  // -- Live state --
  let snapshot = null;
  let lastSummary = "";
  function renderProviders(s) {
    const list = $("provider-list");
    const tabs = s.providers.filter((p) => p.kind === "tab").length;
    const sidecars = s.providers.length - tabs;
    const summary = s.providers.length
      ? `${s.providers.length} connected: ${tabs} tab${tabs === 1 ? "" : "s"}, ${sidecars} sidecar${sidecars === 1 ? "" : "s"}.`
      : "Nothing is connected. Use the pairing code above to connect a tab or the sidecar.";
    if (summary !== lastSummary) {
      $("providers-summary").textContent = summary;
      lastSummary = summary;
    }
    list.replaceChildren(
      ...s.providers.map((p) => {
        // The heading is what the hub knows (a tab's origin host, a sidecar's paired label); what the page
        // says about itself (its title and URL) is secondary, capped, and a link only on the tab's origin.
        const link = pageLink(p);
        const title = typeof p.page?.title === "string" ? p.page.title.trim() : "";
        return h(
          "li",
          { class: "card provider" },
          h("h3", {}, p.label),
          h(
            "p",
            { class: "meta" },
            h(
              "span",
              { class: `badge ${p.kind === "tab" ? "verified" : "info"}` },
              p.kind === "tab" ? "tab" : "sidecar",
            ),
            " ",
            p.origin ?? p.label,
          ),
          p.kind === "tab" && p.pairedFromPage === false
            ? h(
                "p",
                { class: "alert warn paired-by-script" },
                h("strong", {}, "Paired by a script — not from a browser page."),
                ` Its pairing request did not come from a page of ${p.origin ?? p.label}. If you did not pair it with a program of your own, disconnect it.`,
              )
            : null,
          title ? h("p", { class: "meta page-title" }, "Page: ", capped(title, PAGE_TITLE_SHOWN)) : null,
          link
            ? h(
                "p",
                { class: "meta" },
                h(
                  "a",
                  { href: link, target: "_blank", rel: "noopener noreferrer" },
                  capped(link, PAGE_URL_SHOWN),
                ),
              )
            : null,
          h("p", { class: "meta" }, `Connected ${ago(p.connectedAt)} · active ${ago(p.lastActiveAt)}`),
          h(
            "p",
            {},
            p.tools.length
              ? `${p.tools.length} tool${p.tools.length === 1 ? "" : "s"}: `
              : "No tools registered on this page.",
            ...p.tools.flatMap((t, i) => [i ? ", " : "", h("code", {}, t)]),
          ),
          h(
            "button",
            {
              type: "button",
              class: "btn small danger",
              onclick: () => disconnect(p),
              "aria-label": `Disconnect ${p.label}`,
            },
            "Disconnect",
          ),
        );
      }),
    );
  }

  async function disconnect(p) {
    if (!confirm(`Disconnect ${p.label}? It needs a new pairing code to connect again.`)) return;
    try {
      await api(`${path}/providers/${encodeURIComponent(p.tokenId)}`, { method: "DELETE", ...auth });
      announce(`${p.label} was disconnected.`);
      await refresh();
    } catch (e) {
      alert(e.message);
    }
  }

  function renderTools(s) {
    $("tools-empty").hidden = s.tools.length > 0;
    $("tools-table").hidden = s.tools.length === 0;
    $("tool-rows").replaceChildren(
      ...s.tools.map((t) =>
        h(
          "tr",
          {},
          h(
            "th",
            { scope: "row", "data-label": "Name agents call" },
            h("code", {}, t.name),
            t.originalName && t.originalName !== t.name
              ? h("span", { class: "meta" }, ` (${t.originalName})`)
              : "",
          ),
          h("td", { "data-label": "From" }, t.origin ?? t.label),
          h(
            "td",
            { "data-label": "What it may do" },
            h(
              "span",
              { class: `badge ${t.readOnly ? "ro" : "rw"}` },
              t.readOnly ? "read-only" : "changes data — asks for approval",
            ),
          ),
          h("td", { "data-label": "Description" }, t.description),
        ),
      ),
    );
    const names = new Set(s.tools.map((t) => t.name));
    $("audit-tool-names").replaceChildren(...[...names].map((n) => h("option", { value: n })));
  }

  function renderTokens(s) {
    const mine = new Map((ch.tokens ?? []).map((t) => [t.id, t]));
    $("token-rows").replaceChildren(
      ...s.agentTokens.map((t) =>
        h(
          "tr",
          {},
          h(
            "th",
            { scope: "row", "data-label": "Label" },
            t.label,
            mine.has(t.id) ? h("span", { class: "meta" }, " · kept in this browser") : "",
          ),
          h("td", { "data-label": "Created" }, timeText(t.createdAt)),
          h(
            "td",
            { "data-label": "State" },
            t.revokedAt
              ? h("span", { class: "badge danger" }, `revoked ${ago(t.revokedAt)}`)
              : h("span", { class: "badge ro" }, "active"),
          ),
          h(
            "td",
            { "data-label": "Actions" },
            t.revokedAt
              ? ""
              : h(
                  "button",
                  {
                    type: "button",
                    class: "btn small danger",
                    onclick: () => revoke(t),
                    "aria-label": `Revoke token ${t.label}`,
                  },
                  "Revoke",
                ),
          ),
        ),
      ),
    );
  }

  async function revoke(t) {
    if (!confirm(`Revoke the token “${t.label}”? Agents using it are cut off at once.`)) return;
    try {
      await api(`${path}/agent-tokens`, { method: "DELETE", json: { id: t.id }, ...auth });
      const tokens = (ch.tokens ?? []).map((x) => (x.id === t.id ? { ...x, revoked: true } : x));
      const patch = { tokens };
      if (ch.agentTokenId === t.id) {
        patch.agentToken = tokens.find((x) => !x.revoked)?.token;
        patch.agentTokenId = tokens.find((x) => !x.revoked)?.id;
      }
      save(patch);
      renderAgent();
      announce(`The token ${t.label} was revoked.`);
      await refresh();
    } catch (e) {
      showError($("token-error"), e.message);
    }
  }

  $("token-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = $("token-label");
    const label = input.value.trim();
    showError($("token-error"), "", input);
    if (!label) {
      showError($("token-error"), "Give the token a label, like the agent that will use it.", input);
      input.focus();
      return;
    }
    try {
      const body = await api(`${path}/agent-tokens`, { method: "POST", json: { label }, ...auth });
      const tokens = [...(ch.tokens ?? []), { id: body.id, label: body.label, token: body.agentToken }];
      save(currentToken() ? { tokens } : { tokens, agentToken: body.agentToken, agentTokenId: body.id });
      $("new-token").textContent = body.agentToken;
      $("token-created").hidden = false;
      input.value = "";
      renderAgent();
      await refresh();
      $("token-created").querySelector("button")?.focus();
    } catch (e) {
      showError($("token-error"), e.message, input);
    }
  });

  let failing = false;
  async function refresh() {
    try {
      snapshot = await api(path, auth);
      failing = false;
      $("live").hidden = false;
      renderProviders(snapshot);
      renderTools(snapshot);
      renderTokens(snapshot);
    } catch (e) {
      $("live").hidden = true;
      if (!failing) $("providers-summary").textContent = `Could not read the channel: ${e.message}`;
      lastSummary = "";
      failing = true;
    }
  }

  // -- Audit log --
  const audit = { tool: "", status: "", since: 0, cursors: [], next: null };
  async function loadAudit() {
    const q = new URLSearchParams({ limit: String(AUDIT_PAGE) });
    if (audit.tool) q.set("tool", audit.tool);
    if (audit.status) q.set("status", audit.status);
    if (audit.since) q.set("since", String(audit.since));
    const cursor = audit.cursors[audit.cursors.length - 1];
    if (cursor) q.set("cursor", cursor);
    let body;
    try {
      body = await api(`${path}/audit?${q}`, auth);
    } catch (e) {
      $("audit-summary").textContent = `Could not read the audit log: ${e.message}`;
      return;
    }
    const rows = body.entries;
    audit.next = body.nextCursor;
    const agents = new Map((snapshot?.agentTokens ?? []).map((t) => [t.id, t.label]));
    $("audit-table").hidden = rows.length === 0;
    const filtered = audit.tool || audit.status || audit.since;
    $("audit-empty").hidden = rows.length > 0;
    $("audit-empty").textContent = filtered
      ? "No calls match these filters."
      : "No calls yet. When your agent calls a tool, the call appears here within seconds.";
    $("audit-rows").replaceChildren(
      ...rows.map((r) =>
        h(
          "tr",
          {},
          h(
            "td",
            { "data-label": "When" },
            h("time", { datetime: r.at, title: timeText(r.at) }, new Date(r.at).toLocaleTimeString()),
          ),
          h("th", { scope: "row", "data-label": "Tool" }, h("code", {}, r.tool)),
          h(
            "td",
            { "data-label": "Status" },
            h(
              "span",
              {
                class: `status ${r.status === "ok" ? "s-ok" : r.status === "denied" || r.status === "cancelled" ? "s-warn" : "s-bad"}`,
              },
              r.status,
            ),
          ),
          h(
            "td",
            { "data-label": "Agent" },
            agents.get(r.agentTokenId) ?? (r.agentTokenId ? r.agentTokenId.slice(0, 8) : "—"),
          ),
          h(
            "td",
            { "data-label": "Provider" },
            r.provider ? (r.provider.origin ?? r.provider.label ?? "—") : "—",
          ),
          h(
            "td",
            { "data-label": "Took" },
            r.durationMs === null || r.durationMs === undefined ? "—" : `${r.durationMs} ms`,
          ),
          h(
            "td",
            { "data-label": "Arguments" },
            h(
              "span",
              {},
              `${r.argBytes} B `,
              h("code", { title: `SHA-256 ${r.argSha256}` }, (r.argSha256 ?? "").slice(0, 8)),
            ),
          ),
          h("td", { "data-label": "Message" }, r.message ?? ""),
        ),
      ),
    );
    const page = audit.cursors.length + 1;
    $("audit-summary").textContent = rows.length
      ? `${rows.length} call${rows.length === 1 ? "" : "s"} on page ${page}, newest first.`
      : "";
    $("audit-page").textContent = audit.cursors.length || audit.next ? `Page ${page}` : "";
    $("audit-newest").hidden = audit.cursors.length === 0;
    $("audit-older").hidden = !audit.next;
  }
  $("audit-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    audit.tool = $("audit-tool").value.trim();
    audit.status = $("audit-status").value;
    // The window is fixed when the filter is applied, so paging through it keeps one cursor's fingerprint.
    const window = Number($("audit-since").value);
    audit.since = window ? Date.now() - window * 1000 : 0;
    audit.cursors = [];
    void loadAudit();
  });
  $("audit-older").addEventListener("click", () => {
    if (!audit.next) return;
    audit.cursors.push(audit.next);
    void loadAudit().then(() => $("audit-title").scrollIntoView({ block: "start" }));
  });
  $("audit-newest").addEventListener("click", () => {
    audit.cursors = [];
    void loadAudit();
  });

  $("forget-channel").addEventListener("click", () => {
    if (
      !confirm(
        `Forget “${ch.name}” in this browser? Without its owner key (shown above) you cannot manage it again.`,
      )
    )
      return;
    store.forgetChannel(id);
    location.href = "/channels";
  });

  // Poll while the page is visible; on the first audit page, new calls appear as they happen.
  async function tick() {
    if (document.visibilityState === "visible") {
      await refresh();
      if (audit.cursors.length === 0) await loadAudit();
    }
    setTimeout(tick, POLL_MS);
  }
  void tick();
}
