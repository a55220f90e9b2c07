// The console's audit log: filters (tool, status, time window), pages through keyset cursors, one row a call.
import type { AgentTokenView, AuditEntry, AuditPage } from "../../../src/protocol/views.js";
import { plural } from "../../shared/markup.js";
import { api } from "../lib/api.js";
import { byId, h, messageOf, timeText } from "../lib/dom.js";
import { auditVerificationBadge } from "./verification.js";

const AUDIT_PAGE = 20;

export interface AuditLog {
  /** Loads the page shown now (the newest page unless the user paged back). */
  load(): Promise<void>;
  /** True on the newest page, where new calls appear as they happen. */
  onNewest(): boolean;
}

/**
 * Wires the filters and pager of `#audit`; `agents` names agent tokens (from the latest snapshot) for rows
 * written before rows named their agent; `onLatest` hears the newest call (null: none) whenever the newest
 * unfiltered page loads.
 */
export function auditLog(
  path: string,
  token: string,
  agents: () => AgentTokenView[],
  onLatest?: (entry: AuditEntry | null) => void,
): AuditLog {
  const state = { tool: "", status: "", since: 0, cursors: [] as string[], next: null as string | null };

  async function load(): Promise<void> {
    const q = new URLSearchParams({ limit: String(AUDIT_PAGE) });
    if (state.tool) q.set("tool", state.tool);
    if (state.status) q.set("status", state.status);
    if (state.since) q.set("since", String(state.since));
    const cursor = state.cursors[state.cursors.length - 1];
    if (cursor) q.set("cursor", cursor);
    let body: AuditPage;
    try {
      body = await api<AuditPage>(`${path}/audit?${q}`, { token });
    } catch (e) {
      byId("audit-summary").textContent = `Could not read the audit log: ${messageOf(e)}`;
      return;
    }
    const rows = body.entries;
    state.next = body.nextCursor;
    const names = new Map(agents().map((t) => [t.id, t.label]));
    byId("audit-table").hidden = rows.length === 0;
    const filtered = state.tool || state.status || state.since;
    if (!filtered && state.cursors.length === 0) onLatest?.(rows[0] ?? null);
    const empty = byId("audit-empty");
    empty.hidden = rows.length > 0;
    empty.textContent = filtered
      ? "No calls match these filters."
      : "No calls yet. When your agent calls a tool, the call appears here within seconds.";
    byId("audit-rows").replaceChildren(...rows.map((r) => auditRow(r, names)));
    const page = state.cursors.length + 1;
    byId("audit-summary").textContent = rows.length
      ? `${plural(rows.length, "call")} on page ${page}, newest first.`
      : "";
    byId("audit-page").textContent = state.cursors.length || state.next ? `Page ${page}` : "";
    byId("audit-newest").hidden = state.cursors.length === 0;
    byId("audit-older").hidden = !state.next;
  }

  byId("audit-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    state.tool = byId("audit-tool", HTMLInputElement).value.trim();
    state.status = byId("audit-status", HTMLSelectElement).value;
    // The window is fixed when the filter is applied, so paging through it keeps one cursor's fingerprint.
    const window = Number(byId("audit-since", HTMLSelectElement).value);
    state.since = window ? Date.now() - window * 1000 : 0;
    state.cursors = [];
    void load();
  });
  byId("audit-older").addEventListener("click", () => {
    if (!state.next) return;
    state.cursors.push(state.next);
    void load().then(() => byId("audit-title").scrollIntoView({ block: "start" }));
  });
  byId("audit-newest").addEventListener("click", () => {
    state.cursors = [];
    void load();
  });

  return { load, onNewest: () => state.cursors.length === 0 };
}

function statusClass(status: AuditEntry["status"]): string {
  if (status === "ok") return "s-ok";
  return status === "denied" || status === "cancelled" ? "s-warn" : "s-bad";
}

function auditRow(r: AuditEntry, agents: Map<string, string>): HTMLTableRowElement {
  return h(
    "tr",
    {},
    h(
      "td",
      { "data-label": "When" },
      h("time", { datetime: r.at, title: timeText(r.at) }, new Date(r.at).toLocaleTimeString()),
    ),
    h(
      "th",
      { scope: "row", "data-label": "Tool" },
      h("code", {}, r.tool),
      r.verification ? " " : "",
      auditVerificationBadge(r.verification),
    ),
    h("td", { "data-label": "Status" }, h("span", { class: `status ${statusClass(r.status)}` }, r.status)),
    h("td", { "data-label": "Agent", class: "agent-cell" }, agentName(r, agents)),
    h("td", { "data-label": "Provider" }, r.provider ? (r.provider.origin ?? r.provider.label ?? "—") : "—"),
    h("td", { "data-label": "Took" }, r.durationMs === null ? "—" : `${r.durationMs} ms`),
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
  );
}

/** The agent as its owner knows it: the row's own name, else its token's current label, else what it was. */
function agentName(r: AuditEntry, agents: Map<string, string>): string {
  if (r.agent) return r.agent;
  const label = r.agentTokenId ? agents.get(r.agentTokenId) : undefined;
  if (label) return label;
  if (r.agentTokenId?.startsWith("oauth:")) return "an OAuth app";
  return r.agentTokenId ? `token ${r.agentTokenId.slice(0, 8)}` : "—";
}
