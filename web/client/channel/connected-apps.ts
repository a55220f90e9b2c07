// The channel console's "Connected apps": the OAuth clients (Claude, ChatGPT, VS Code, …) the owning account
// allowed to use this channel, when each was granted and last used, and Disconnect (revokes the grant and
// ends the app's MCP sessions at once), and the tools each may call (policies.ts). Its own part of "Who may
// call", after "Agent tokens"; console.ts starts it.
import type {
  ConnectedAppView,
  ConnectedAppsResponse,
  RevokedConnectedApp,
} from "../../../src/protocol/index.js";
import { ago, plural } from "../../shared/markup.js";
import { api } from "../lib/api.js";
import { announce, h, messageOf, showError, timeText } from "../lib/dom.js";
import type { AgentPolicies } from "./policies.js";

const POLL_MS = 10_000;
const COLUMNS = 5;

/**
 * Adds the section to the console and keeps it current; `token` is the owner key ("" : the session cookie).
 * `onCount` hears how many apps are connected after each load. The table shows only when there are apps.
 * `policies` (when given) shows and edits each app's tool policy.
 */
export function connectedApps(
  path: string,
  token: string,
  onCount?: (count: number) => void,
  policies?: AgentPolicies,
): void {
  const rows = h("tbody", { id: "app-rows" });
  const summary = h("p", { class: "meta", id: "apps-summary" }, "Loading…");
  const error = h("div", { id: "apps-error", class: "alert error", role: "alert", hidden: true });
  const section = h(
    "section",
    { id: "connected-apps", "aria-labelledby": "apps-title" },
    h("h3", { id: "apps-title" }, "Connected apps"),
    h(
      "p",
      { class: "meta" },
      "OAuth apps you allowed to use this channel by pasting its MCP URL. Disconnecting one revokes its access and ends its sessions at once; it must ask you again.",
    ),
    summary,
    h(
      "div",
      { class: "table-wrap", id: "apps-table", hidden: true },
      h(
        "table",
        { class: "data stack" },
        h("caption", { class: "sr-only" }, "Apps connected to this channel"),
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "App"),
            h("th", { scope: "col" }, "Granted"),
            h("th", { scope: "col" }, "Last used"),
            policies ? h("th", { scope: "col" }, "Tools") : null,
            h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")),
          ),
        ),
        rows,
      ),
    ),
    error,
  );
  const anchor = document.getElementById("tokens");
  if (anchor) anchor.after(section);
  else document.getElementById("console")?.append(section);

  const since = (iso: string) => ago(Date.parse(iso), Date.now());

  // Rendered again only when what it shows changed: an open policy editor keeps its focus between loads.
  let shown = "";
  let last: ConnectedAppView[] = [];
  policies?.onChange(() => render(last));
  const agentOf = (app: ConnectedAppView) => ({
    id: `oauth:${app.grantId}`,
    name: `the app “${app.clientName}”`,
    url: `${path}/connected-apps/${encodeURIComponent(app.grantId)}/policy`,
  });

  function render(apps: ConnectedAppView[]) {
    last = apps;
    const key = JSON.stringify([
      apps.map((a) => [a, a.lastUsedAt && since(a.lastUsedAt)]),
      policies?.key() ?? "",
    ]);
    if (key === shown) return;
    shown = key;
    policies?.keepOnly(new Set(apps.map((a) => agentOf(a).id)), (id) => id.startsWith("oauth:"));
    summary.textContent = apps.length
      ? `${plural(apps.length, "app")} connected.`
      : "No app is connected. Paste this channel's MCP URL into an OAuth MCP client to connect one.";
    section.querySelector<HTMLElement>("#apps-table")!.hidden = apps.length === 0;
    onCount?.(apps.length);
    rows.replaceChildren(
      ...apps
        .flatMap((app) => [
          h(
            "tr",
            {},
            h(
              "th",
              { scope: "row", "data-label": "App" },
              app.clientName,
              /^https:\/\//.test(app.clientId)
                ? h("span", { class: "meta" }, ` · ${new URL(app.clientId).hostname}`)
                : "",
            ),
            h("td", { "data-label": "Granted" }, timeText(app.grantedAt)),
            h(
              "td",
              { "data-label": "Last used" },
              app.lastUsedAt
                ? h(
                    "time",
                    { datetime: app.lastUsedAt, title: timeText(app.lastUsedAt) },
                    since(app.lastUsedAt),
                  )
                : "not yet",
            ),
            policies
              ? h(
                  "td",
                  { "data-label": "Tools", class: "policy-summary" },
                  policies.cell(agentOf(app), COLUMNS),
                )
              : null,
            h(
              "td",
              { "data-label": "Actions" },
              h(
                "button",
                {
                  type: "button",
                  class: "btn small danger",
                  onclick: () => void disconnect(app),
                  "aria-label": `Disconnect ${app.clientName}`,
                },
                "Disconnect",
              ),
            ),
          ),
          policies?.editorRow(agentOf(app).id) ?? null,
        ])
        .filter((row): row is HTMLTableRowElement => row !== null),
    );
  }

  async function load() {
    try {
      const body = await api<ConnectedAppsResponse>(`${path}/connected-apps`, { token });
      showError(error, "");
      render(body.connectedApps);
    } catch (e) {
      showError(error, `Could not read the connected apps: ${messageOf(e)}`);
    }
  }

  async function disconnect(app: ConnectedAppView) {
    if (!confirm(`Disconnect “${app.clientName}”? It loses access to this channel at once.`)) return;
    try {
      const body = await api<RevokedConnectedApp>(
        `${path}/connected-apps/${encodeURIComponent(app.grantId)}`,
        { method: "DELETE", token },
      );
      announce(
        `${app.clientName} was disconnected; ${body.closedSessions} ${plural(body.closedSessions, "session")} ended.`,
      );
      await load();
    } catch (e) {
      showError(error, messageOf(e));
    }
  }

  async function tick() {
    if (document.visibilityState === "visible") await load();
    setTimeout(() => void tick(), POLL_MS);
  }
  void tick();
}
