// The console's "Marketplace tools added" section ("Add from the marketplace"): the channel's added
// tools (GET /api/channels/:id/tools), by site, each saying whether its agents see it now or why not, with a
// Remove button per tool (DELETE …/tools/:host/:name) and per site (DELETE …/tools/:host).
//
// Decisions:
// - Read when the console opens, after each removal, and when the page becomes visible again (the user may have
//   added tools in another tab), not every few seconds like the live tools: each read also has the channel's
//   object reload its added tools, and they change only when the owner or the site acts.
// - Removing asks for confirmation (an agent relying on the tool loses it at once); Remove all of a site says
//   how many tools go.
import type { AddedChannelToolView } from "../../../src/protocol/views.js";
import { plural } from "../../shared/markup.js";
import { api } from "../lib/api.js";
import { announce, byId, h, messageOf, showError, timeText } from "../lib/dom.js";

const STATUS_TEXT: Record<AddedChannelToolView["status"], string> = {
  listed: "listed to agents",
  site_unverified: "not listed: site unverified",
  site_delisted: "not listed: site delisted",
  unpublished: "not listed: no longer published",
};

const sitePath = (host: string) => `/sites/${encodeURIComponent(host)}`;
const toolPath = (host: string, name: string) => `${sitePath(host)}/tools/${encodeURIComponent(name)}`;

/** Starts the section; `path` is /api/channels/:id, `token` the owner key ("" = the session cookie). */
export function addedTools(path: string, token: string): { load(): Promise<void> } {
  const list = byId("added-list");
  const summary = byId("added-summary");
  const error = byId("added-error");

  async function load(): Promise<void> {
    try {
      const body = await api<{ tools: AddedChannelToolView[] }>(`${path}/tools`, { token });
      showError(error);
      render(body.tools);
    } catch (e) {
      showError(error, `Could not read the added tools: ${messageOf(e)}`);
    }
  }

  function render(tools: AddedChannelToolView[]): void {
    const listed = tools.filter((t) => t.status === "listed").length;
    summary.textContent = tools.length
      ? `${plural(tools.length, "tool")} added, ${listed} listed to agents now.`
      : "No marketplace tools added yet.";
    const hosts = new Map<string, AddedChannelToolView[]>();
    for (const t of tools) hosts.set(t.host, [...(hosts.get(t.host) ?? []), t]);
    list.replaceChildren(...[...hosts].map(([host, rows]) => siteBlock(host, rows)));
  }

  function siteBlock(host: string, rows: AddedChannelToolView[]): HTMLElement {
    const headingId = `added-site-${host.replace(/[^a-z0-9]/gi, "-")}`;
    return h(
      "section",
      { class: "added-site", "aria-labelledby": headingId },
      h(
        "div",
        { class: "added-site-head" },
        h("h3", { id: headingId }, h("a", { href: sitePath(host) }, host)),
        h(
          "button",
          {
            type: "button",
            class: "btn small danger",
            onclick: () => void remove(host, null, rows.length),
            "aria-label": `Remove all tools of ${host}`,
          },
          "Remove all",
        ),
      ),
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "data stack added" },
          h("caption", { class: "sr-only" }, `Tools of ${host} added to this channel`),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              h("th", { scope: "col" }, "Tool"),
              h("th", { scope: "col" }, "Agents"),
              h("th", { scope: "col" }, "Opens"),
              h("th", { scope: "col" }, "Added"),
              h("th", { scope: "col" }, h("span", { class: "sr-only" }, "Actions")),
            ),
          ),
          h("tbody", {}, rows.map(toolRow)),
        ),
      ),
    );
  }

  function toolRow(t: AddedChannelToolView): HTMLTableRowElement {
    const readOnly = t.definition?.annotations?.readOnlyHint === true;
    return h(
      "tr",
      { dataset: { host: t.host, tool: t.name } },
      h(
        "th",
        { scope: "row", "data-label": "Tool" },
        h("a", { href: toolPath(t.host, t.name) }, h("code", {}, t.name)),
        t.definition
          ? h(
              "span",
              { class: `badge ${readOnly ? "ro" : "rw"}` },
              readOnly ? "read-only" : "changes data — asks for approval",
            )
          : "",
      ),
      h(
        "td",
        { "data-label": "Agents" },
        h("span", { class: `badge ${t.status === "listed" ? "verified" : "danger"}` }, STATUS_TEXT[t.status]),
        t.reason ? h("p", { class: "meta" }, t.reason) : "",
      ),
      h(
        "td",
        { "data-label": "Opens" },
        t.page ? h("a", { href: t.page, target: "_blank", rel: "noopener noreferrer" }, t.page) : "—",
      ),
      h("td", { "data-label": "Added" }, timeText(t.addedAt)),
      h(
        "td",
        { "data-label": "Actions" },
        h(
          "button",
          {
            type: "button",
            class: "btn small danger",
            onclick: () => void remove(t.host, t.name, 1),
            "aria-label": `Remove ${t.name} of ${t.host}`,
          },
          "Remove",
        ),
      ),
    );
  }

  async function remove(host: string, name: string | null, count: number): Promise<void> {
    const what = name ? `${name} of ${host}` : `${plural(count, "tool")} of ${host}`;
    if (
      !confirm(`Remove ${what} from this channel? Its agents no longer see ${count === 1 ? "it" : "them"}.`)
    )
      return;
    const target = `${path}/tools/${encodeURIComponent(host)}${name ? `/${encodeURIComponent(name)}` : ""}`;
    let failed: string | null = null;
    try {
      await api(target, { method: "DELETE", token });
      announce(`Removed ${what}.`);
    } catch (e) {
      failed = `Could not remove ${what}: ${messageOf(e)}`;
    }
    await load();
    if (failed) showError(error, failed);
  }

  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") void load();
  });
  // Linked to as /channels/:id#added-tools (after adding): the console was hidden when the browser looked for
  // the fragment, so scroll to it once it shows.
  void load().then(() => {
    if (location.hash === "#added-tools") byId("added-tools").scrollIntoView();
  });
  return { load };
}
