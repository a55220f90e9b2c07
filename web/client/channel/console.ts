// The channel console on /channels/:id, driven by the owner key this browser keeps (or, for a channel of the
// signed-in account, by its session; or brought by a one-click console link's fragment, open.ts): the glance
// strip (what is connected, the tools, the last call), live providers and tools (GET /api/channels/:id every
// few seconds while visible), the audit log, the agent connection (MCP URL, token, client snippets), the
// pairing code and its countdown, agent tokens and connected apps (each with its tool policy), the pause
// switch, forgetting the channel.
import type {
  AgentTokenView,
  AuditEntry,
  ChannelSnapshot,
  CreatedAgentToken,
  PairingCodeView,
  ProviderView,
} from "../../../src/protocol/views.js";
import { ago, plural } from "../../shared/markup.js";
import { sidecarPairCommand } from "../../shared/snippets.js";
import { api } from "../lib/api.js";
import { announce, byId, h, messageOf, showError, timeText } from "../lib/dom.js";
import { store, type KeptChannel } from "../lib/store.js";
import { shortened, toolName } from "../lib/text.js";
import { addedTools } from "./added-tools.js";
import { offerClaim } from "./claim.js";
import { auditLog } from "./audit.js";
import { connectedApps } from "./connected-apps.js";
import { submitButton } from "./list.js";
import { keepFromLink, openWithKey, takeConsoleLink } from "./open.js";
import { agentPolicies, pauseControl } from "./policies.js";
import { renderSnippets } from "./snippets.js";
import { policyControl, verificationBadge } from "./verification.js";

const POLL_MS = 3000;
/** The agent tokens table's columns (an open policy editor's row spans them). */
const TOKEN_COLUMNS = 5;
/** The most of a provider's self-reported page title and URL the console shows, in characters. */
const PAGE_TITLE_SHOWN = 120;
const PAGE_URL_SHOWN = 160;

const capped = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);
const since = (iso: string) => ago(Date.parse(iso), Date.now());

/**
 * A tab's page URL as a link target, or null: the page reports it, so it is a link only when it is http(s) and
 * on the origin the tab paired from (the hub drops other URLs too; this renders defensively).
 */
export function pageLink(p: Pick<ProviderView, "kind" | "origin" | "page">): string | null {
  if (p.kind !== "tab" || typeof p.origin !== "string" || typeof p.page?.url !== "string") return null;
  let url: URL;
  try {
    url = new URL(p.page.url);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  return url.origin === p.origin ? url.href : null;
}

export function consolePage(id: string, hub: string): void {
  // First of all: a console link's fragment leaves the address bar before anything else happens.
  const link = takeConsoleLink();
  if (link) {
    keepFromLink(id, link)
      .then((kept) => {
        runConsole(kept, hub);
        announce(
          "This browser now keeps the channel's owner key; the link's keys were removed from the address bar.",
        );
      })
      .catch((e: unknown) =>
        openKept(id, hub, `The owner key in the link did not open this channel: ${messageOf(e)}`),
      );
    return;
  }
  openKept(id, hub);
}

/** Opens the console with what this browser keeps, or the account's session, or asks for the owner key. */
function openKept(id: string, hub: string, problem?: string): void {
  const kept = store.channel(id);
  if (kept) {
    runConsole(kept, hub);
    if (problem) announce(problem);
    return;
  }
  // Not kept here: a channel of the signed-in account opens by the session cookie alone (no key sent);
  // otherwise the owner key is asked for.
  api<ChannelSnapshot>(`/api/channels/${encodeURIComponent(id)}`)
    .then((body) => runConsole(sessionRecord(body), hub))
    .catch(() => {
      byId("ch-missing").hidden = false;
      const key = byId("missing-key", HTMLInputElement);
      if (problem) showError(byId("missing-error"), problem, key);
      byId("missing-form").addEventListener("submit", (event) => {
        event.preventDefault();
        void openWithKey(id, key.value.trim(), byId("missing-error"), key);
      });
    });
}

/** A channel the signed-in account owns, opened without an owner key: requests go with the session cookie. */
function sessionRecord(body: ChannelSnapshot): KeptChannel {
  return {
    id: body.channel.id,
    name: body.channel.name,
    strictNames: body.channel.strictNames,
    createdAt: body.channel.createdAt,
    ownerKey: "",
    mcpUrl: body.mcpUrl,
    tokens: [],
  };
}

function runConsole(kept: KeptChannel, hub: string): void {
  const id = kept.id;
  let ch: KeptChannel = kept;
  byId("console").hidden = false;
  const params = new URLSearchParams(location.search);
  if (params.has("new")) {
    byId("fresh").hidden = false;
    history.replaceState(null, "", location.pathname + location.hash);
  }
  document.title = `${ch.name} · Channel console · webmcp-hub`;
  byId("ch-name").textContent = ch.name;
  byId("ch-crumb").textContent = ch.name;
  if (ch.createdAt) byId("ch-created").textContent = `· created ${timeText(ch.createdAt)}`;
  byId("owner-key").textContent = ch.ownerKey || "(not needed here: your account owns this channel)";
  void offerClaim(ch);
  // Empty when opened by the account's session: then no Authorization header is sent and the cookie is used.
  const token = ch.ownerKey;
  const path = `/api/channels/${encodeURIComponent(id)}`;

  const save = (patch: Partial<KeptChannel>) => {
    ch = { ...ch, ...patch };
    store.saveChannel(ch);
  };

  // -- Who may call what: the pause switch at the top, each agent's policy in its list --
  const runState = pauseControl(path, token);
  const agentPolicy = agentPolicies(token);
  agentPolicy.onChange(() => {
    if (snapshot) renderTokens(snapshot);
  });

  // -- Agent connection --
  const currentToken = () => ch.agentToken ?? ch.tokens?.find((t) => !t.revoked)?.token ?? null;
  function renderAgent() {
    const agentToken = currentToken();
    byId("mcp-url").textContent = ch.mcpUrl;
    byId("agent-token").textContent = agentToken ?? "";
    byId("cap-url").textContent = agentToken ? `${ch.mcpUrl}/k/${agentToken}` : "";
    byId("agent-token-row").hidden = !agentToken;
    byId("cap-url-row").hidden = !agentToken;
    byId("no-agent-token").hidden = Boolean(agentToken);
    renderSnippets(ch, agentToken);
  }
  renderAgent();

  // -- Pairing code --
  const code = byId("pair-code");
  const countdown = byId("pair-countdown");
  const sidecarCmd = byId("sidecar-cmd");
  function renderCode(): boolean {
    const expires = ch.pairingCodeExpiresAt ? Date.parse(ch.pairingCodeExpiresAt) : 0;
    const left = expires ? expires - Date.now() : -1;
    if (!ch.pairingCode || left <= 0) {
      code.textContent = "––––-––––";
      countdown.textContent = ch.pairingCode
        ? "That code has expired. Get a new one."
        : "Get a code to connect a tab or the sidecar.";
      sidecarCmd.textContent = sidecarPairCommand(hub, "CODE");
      return false;
    }
    code.textContent = ch.pairingCode;
    const s = Math.ceil(left / 1000);
    countdown.textContent = `Valid for ${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")} more (until ${new Date(expires).toLocaleTimeString()}).`;
    sidecarCmd.textContent = sidecarPairCommand(hub, ch.pairingCode);
    return true;
  }
  renderCode();
  setInterval(renderCode, 1000);
  const pairNew = byId("pair-new", HTMLButtonElement);
  pairNew.addEventListener("click", async () => {
    pairNew.disabled = true;
    try {
      const body = await api<PairingCodeView>(`${path}/pairing-codes`, { method: "POST", token });
      save({ pairingCode: body.pairingCode, pairingCodeExpiresAt: body.expiresAt });
      renderCode();
      announce(`New pairing code ${body.pairingCode}, valid for 10 minutes.`);
    } catch (e) {
      countdown.textContent = `Could not get a code: ${messageOf(e)}`;
    } finally {
      pairNew.disabled = false;
    }
  });

  // -- At a glance: what is connected, the tools, the last call (each links to its section) --
  let apps: number | null = null;
  let lastCall: AuditEntry | null | undefined;
  const setText = (elId: string, text: string) => {
    const el = byId(elId);
    if (el.textContent !== text) el.textContent = text;
  };
  function renderGlance() {
    if (snapshot) {
      const tabs = snapshot.providers.filter((p) => p.kind === "tab");
      const sidecars = snapshot.providers.filter((p) => p.kind === "sidecar").length;
      setText("glance-tabs", tabs.length ? `${plural(tabs.length, "tab")} connected` : "none connected");
      setText("glance-sidecar", sidecars ? `${plural(sidecars, "sidecar")} connected` : "not connected");
      const browsers = snapshot.extensionsConnected ?? 0;
      setText("glance-extension", browsers ? `connected in ${plural(browsers, "browser")}` : "not connected");
      setText("glance-tools", snapshot.tools.length ? plural(snapshot.tools.length, "tool") : "none yet");
      const tokens = snapshot.agentTokens.filter((t) => !t.revokedAt).length;
      setText(
        "glance-agents",
        `${plural(tokens, "agent token")}${apps === null ? "" : ` · ${plural(apps, "app")}`}`,
      );
    }
    if (lastCall !== undefined)
      setText(
        "glance-last",
        lastCall ? `${lastCall.tool} · ${lastCall.status} · ${since(lastCall.at)}` : "none yet",
      );
  }

  // -- Live state --
  let snapshot: ChannelSnapshot | null = null;
  let lastSummary = "";
  function renderProviders(s: ChannelSnapshot) {
    const tabs = s.providers.filter((p) => p.kind === "tab").length;
    const sidecars = s.providers.length - tabs;
    const viaExtension = s.providers.filter((p) => p.via === "extension").length;
    const summary = s.providers.length
      ? `${s.providers.length} connected: ${plural(tabs, "tab")}${viaExtension ? ` (${viaExtension} through the browser extension)` : ""}, ${plural(sidecars, "sidecar")}.`
      : "Nothing is connected. Use a pairing code (under Connect) to connect a tab or the sidecar.";
    if (summary !== lastSummary) {
      byId("providers-summary").textContent = summary;
      lastSummary = summary;
    }
    byId("provider-list").replaceChildren(...s.providers.map(providerCard));
    const opener = s.extensionsConnected
      ? `Open on demand: ${plural(s.extensionsConnected, "browser")} with the webmcp-hub extension connected. When an agent calls an added tool that no tab offers, the extension asks you there to open its page.`
      : "No browser with the webmcp-hub extension is connected: an added tool runs only while its page is open in a shared tab.";
    const openerLine = byId("added-opener");
    if (openerLine.textContent !== opener) openerLine.textContent = opener;
  }

  function providerCard(p: ProviderView): HTMLLIElement {
    // The heading is what the hub knows (a tab's origin host, a sidecar's paired label); what the page says
    // about itself (its title and URL) is secondary, capped, and a link only on the tab's origin.
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
        p.via === "extension" ? " " : "",
        p.via === "extension" ? h("span", { class: "badge info via-extension" }, "via extension") : "",
        " ",
        p.origin ?? p.label,
      ),
      p.kind === "tab" && p.pairedFromPage === false && p.via !== "extension"
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
      h("p", { class: "meta" }, `Connected ${since(p.connectedAt)} · active ${since(p.lastActiveAt)}`),
      h(
        "p",
        {},
        p.tools.length ? `${plural(p.tools.length, "tool")}: ` : "No tools registered on this page.",
        ...p.tools.flatMap((t, i) => [i ? ", " : "", h("code", {}, t)]),
      ),
      h(
        "button",
        {
          type: "button",
          class: "btn small danger",
          onclick: () => void disconnect(p),
          "aria-label":
            p.via === "extension"
              ? `Disconnect the browser extension (all its tabs)`
              : `Disconnect ${p.label}`,
        },
        p.via === "extension" ? "Disconnect the browser extension" : "Disconnect",
      ),
    );
  }

  async function disconnect(p: ProviderView) {
    // The extension's tabs share one token: revoking it disconnects every tab it relays.
    const who = p.via === "extension" ? "The browser extension" : p.label;
    const question =
      p.via === "extension"
        ? "Disconnect the browser extension? Every tab it shares disconnects, and it needs a new pairing code to connect again."
        : `Disconnect ${p.label}? It needs a new pairing code to connect again.`;
    if (!confirm(question)) return;
    try {
      await api(`${path}/providers/${encodeURIComponent(p.tokenId)}`, { method: "DELETE", token });
      announce(`${who} was disconnected.`);
      await refresh();
    } catch (e) {
      alert(messageOf(e));
    }
  }

  function renderTools(s: ChannelSnapshot) {
    byId("tools-empty").hidden = s.tools.length > 0;
    byId("tools-table").hidden = s.tools.length === 0;
    byId("tool-rows").replaceChildren(
      ...s.tools.map((t) =>
        h(
          "tr",
          {},
          h(
            "th",
            { scope: "row", "data-label": "Name agents call" },
            toolName(t.name),
            t.originalName && t.originalName !== t.name
              ? h("span", { class: "meta" }, " (", toolName(t.originalName), ")")
              : "",
          ),
          h("td", { "data-label": "From" }, t.origin ?? t.label),
          h("td", { "data-label": "Published" }, verificationBadge(t.verification ?? null, t.origin)),
          h(
            "td",
            { "data-label": "What it may do" },
            h(
              "span",
              { class: `badge ${t.readOnly ? "ro" : "rw"}` },
              t.readOnly ? "read-only" : "changes data — asks for approval",
            ),
          ),
          h("td", { "data-label": "Description", class: "desc-cell" }, shortened(t.description)),
        ),
      ),
    );
    const names = new Set(s.tools.map((t) => t.name));
    byId("audit-tool-names").replaceChildren(...[...names].map((n) => h("option", { value: n })));
  }

  // Rendered again only when what it shows changed: an open policy editor keeps its focus between polls.
  let tokensShown = "";
  function renderTokens(s: ChannelSnapshot) {
    const mine = new Map((ch.tokens ?? []).map((t) => [t.id, t]));
    const shown = JSON.stringify([
      s.agentTokens.map((t) => [t, t.revokedAt && since(t.revokedAt)]),
      [...mine.keys()],
      agentPolicy.key(),
    ]);
    if (shown === tokensShown) return;
    tokensShown = shown;
    byId("tokens-empty").hidden = s.agentTokens.length > 0;
    byId("tokens-table").hidden = s.agentTokens.length === 0;
    const live = s.agentTokens.filter((t) => !t.revokedAt);
    agentPolicy.keepOnly(new Set(live.map((t) => t.id)), (agent) => !agent.startsWith("oauth:"));
    const agentOf = (t: AgentTokenView) => ({
      id: t.id,
      name: `the token “${t.label}”`,
      url: `${path}/agent-tokens/${encodeURIComponent(t.id)}/policy`,
    });
    byId("token-rows").replaceChildren(
      ...s.agentTokens
        .flatMap((t) => [
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
                ? h("span", { class: "badge danger" }, `revoked ${since(t.revokedAt)}`)
                : h("span", { class: "badge ro" }, "active"),
            ),
            h(
              "td",
              { "data-label": "Tools", class: "policy-summary" },
              t.revokedAt ? "—" : agentPolicy.cell(agentOf(t), TOKEN_COLUMNS),
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
                      onclick: () => void revoke(t),
                      "aria-label": `Revoke token ${t.label}`,
                    },
                    "Revoke",
                  ),
            ),
          ),
          t.revokedAt ? null : agentPolicy.editorRow(t.id),
        ])
        .filter((row): row is HTMLTableRowElement => row !== null),
    );
  }

  async function revoke(t: AgentTokenView) {
    if (!confirm(`Revoke the token “${t.label}”? Agents using it are cut off at once.`)) return;
    try {
      await api(`${path}/agent-tokens`, { method: "DELETE", json: { id: t.id }, token });
      const tokens = (ch.tokens ?? []).map((x) => (x.id === t.id ? { ...x, revoked: true } : x));
      const patch: Partial<KeptChannel> = { tokens };
      if (ch.agentTokenId === t.id) {
        const next = tokens.find((x) => !x.revoked);
        patch.agentToken = next?.token;
        patch.agentTokenId = next?.id;
      }
      save(patch);
      renderAgent();
      announce(`The token ${t.label} was revoked.`);
      await refresh();
    } catch (e) {
      showError(byId("token-error"), messageOf(e));
    }
  }

  const tokenForm = byId("token-form", HTMLFormElement);
  tokenForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const input = byId("token-label", HTMLInputElement);
    const label = input.value.trim();
    const error = byId("token-error");
    showError(error, "", input);
    if (!label) {
      showError(error, "Give the token a label, like the agent that will use it.", input);
      input.focus();
      return;
    }
    const button = submitButton(event, tokenForm);
    button.disabled = true;
    try {
      const body = await api<CreatedAgentToken>(`${path}/agent-tokens`, {
        method: "POST",
        json: { label },
        token,
      });
      const tokens = [...(ch.tokens ?? []), { id: body.id, label: body.label, token: body.agentToken }];
      save(currentToken() ? { tokens } : { tokens, agentToken: body.agentToken, agentTokenId: body.id });
      byId("new-token").textContent = body.agentToken;
      byId("token-created").hidden = false;
      input.value = "";
      renderAgent();
      await refresh();
      byId("token-created").querySelector("button")?.focus();
    } catch (e) {
      showError(error, messageOf(e), input);
    } finally {
      button.disabled = false;
    }
  });

  let failing = false;
  async function refresh() {
    try {
      const askedAt = Date.now();
      const s = await api<ChannelSnapshot>(path, { token });
      snapshot = s;
      failing = false;
      runState.show(s.paused, askedAt);
      agentPolicy.update(s);
      byId("live").hidden = false;
      renderProviders(snapshot);
      renderTools(snapshot);
      policy.show(snapshot.channel.verificationPolicy);
      renderTokens(snapshot);
      renderGlance();
    } catch (e) {
      byId("live").hidden = true;
      if (!failing) byId("providers-summary").textContent = `Could not read the channel: ${messageOf(e)}`;
      lastSummary = "";
      failing = true;
    }
  }

  // -- Audit log --
  const audit = auditLog(
    path,
    token,
    () => snapshot?.agentTokens ?? [],
    (newest) => {
      lastCall = newest;
      renderGlance();
    },
  );
  const policy = policyControl(path, token);
  connectedApps(
    path,
    token,
    (count) => {
      apps = count;
      renderGlance();
    },
    agentPolicy,
  );
  addedTools(path, token);

  byId("forget-channel").addEventListener("click", () => {
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
      if (audit.onNewest()) await audit.load();
    }
    setTimeout(() => void tick(), POLL_MS);
  }
  void tick();
}
