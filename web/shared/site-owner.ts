// The owner's sections of a site's page: the cloud runs switch with the runner's daily counts, and the
// manifest source (the site's ai-catalog.json as last read). Only the signed-in owner sees them, so the Worker
// does not carry their markup: the page holds the owner's view as data (web/pages/site.tsx, #site-owner) and
// /assets/site-owner.js builds these trees in its place (web/client/lib/dom.ts `render`). Pure, like
// markup.ts: the tests render the same trees with the server's `Markup`.
import type { SiteCatalogView } from "../../src/protocol/views.js";
import { ago, el, plural, type MarkupElement } from "./markup.js";

/**
 * One day of the cloud runner's counts, as the page carries it: registry/cloud-stats.ts's type, which the
 * browser's type check cannot import (a Worker module); the site page route checks that one fits the other.
 */
export interface CloudDayStats {
  day: string;
  calls: number;
  ok: number;
  failures: Record<string, number>;
  browserMs: number;
}

/** What the site page tells its owner's script: the data of the two sections. */
export interface SiteOwnerData {
  host: string;
  /** The site's cloud switch. */
  cloudEnabled: boolean;
  /** Current tools whose manifest entry says `"cloud": true`. */
  flagged: string[];
  /** The runner's counts, newest day first; null when they cannot be read now. */
  stats: CloudDayStats[] | null;
  /** False when cloud runs are off for the whole hub. */
  runs: boolean;
  /** The site's ai-catalog.json as last read and the chosen manifest source. */
  catalog?: SiteCatalogView | undefined;
}

type Kid = MarkupElement | string | null | false;
const h = (tag: string, attrs: MarkupElement["attrs"], ...children: Kid[]): MarkupElement =>
  el(tag, attrs, ...children.filter((c): c is MarkupElement | string => c !== null && c !== false));
const code = (text: string) => h("code", {}, text);
const notice = (kind: "info" | "error", text: string) =>
  h("div", { class: `alert ${kind}`, role: kind === "error" ? "alert" : undefined }, text);
const time = (iso: string, now: number) =>
  h("time", { datetime: iso, title: iso.replace("T", " ").slice(0, 16) + " UTC" }, ago(Date.parse(iso), now));

export const cloudSwitchText = (on: boolean) => (on ? "Turn cloud runs off" : "Turn cloud runs on");

/** The owner's sections, in page order: cloud runs, then the manifest source when the view has one. */
export function siteOwnerSections(v: SiteOwnerData, now: number): MarkupElement[] {
  return v.catalog ? [cloudRuns(v), manifestSource(v.catalog, now)] : [cloudRuns(v)];
}

function cloudRuns(v: SiteOwnerData): MarkupElement {
  const on = v.cloudEnabled;
  const n = v.flagged.length;
  const stats = v.stats;
  return h(
    "section",
    { "aria-labelledby": "cloud-title", class: "panel", id: "cloud-runs" },
    h("h2", { id: "cloud-title" }, "Cloud runs"),
    h(
      "p",
      {},
      "Cloud runs for this site are ",
      h("strong", { id: "cloud-state" }, on ? "on" : "off"),
      ". ",
      n
        ? `${plural(n, "tool")} of the current manifest ${n === 1 ? "says" : "say"} "cloud": true: ${v.flagged.join(", ")}.`
        : 'No tool of the current manifest says "cloud": true.',
      " While on, the hub may run them with no tab open; off stops every cloud run of the site at once.",
    ),
    v.runs ? null : notice("info", "Cloud runs are off on this hub for now."),
    h(
      "p",
      {},
      h(
        "button",
        { type: "button", class: "btn", id: "cloud-switch", "data-host": v.host, "data-enabled": String(on) },
        cloudSwitchText(on),
      ),
    ),
    h("p", { id: "cloud-status", class: "meta", role: "status" }),
    h("h3", {}, "Cloud calls, last 7 days"),
    stats === null
      ? h("p", { class: "muted" }, "The counts of cloud calls are not available right now.")
      : stats.every((d) => d.calls === 0)
        ? h("p", { class: "muted" }, "No cloud calls in the last 7 days.")
        : h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { class: "data stack", id: "cloud-stats" },
              h("caption", { class: "sr-only" }, "Cloud calls per day, newest first"),
              h(
                "thead",
                {},
                h(
                  "tr",
                  {},
                  ...["Day", "Calls", "Succeeded", "Failures", "Browser time"].map((t) =>
                    h("th", { scope: "col" }, t),
                  ),
                ),
              ),
              h(
                "tbody",
                {},
                ...stats.map((d) =>
                  h(
                    "tr",
                    {},
                    h("th", { scope: "row", "data-label": "Day" }, d.day),
                    h("td", { "data-label": "Calls" }, String(d.calls)),
                    h("td", { "data-label": "Succeeded" }, String(d.ok)),
                    h(
                      "td",
                      { "data-label": "Failures" },
                      Object.entries(d.failures)
                        .filter(([, k]) => k > 0)
                        .map(([kind, k]) => `${kind} ${k}`)
                        .join(", ") || "none",
                    ),
                    h("td", { "data-label": "Browser time" }, `${(d.browserMs / 1000).toFixed(1)} s`),
                  ),
                ),
              ),
            ),
          ),
  );
}

/** The choice of manifest source among /.well-known/webmcp.json and the catalog's WebMCP entries. */
function manifestSource(view: SiteCatalogView, now: number): MarkupElement {
  const { manifestSource: chosen, catalog, host } = view;
  const sources = catalog.entries.filter((e) => e.kind === "webmcp");
  const servers = catalog.entries.filter((e) => e.kind === "mcp");
  const path = (url: string) => new URL(url).pathname;
  const button = (id: string | undefined, type: string, text: string) =>
    h("button", { type, class: "btn small", id }, text);
  return h(
    "section",
    { "aria-labelledby": "source-title", class: "panel", id: "manifest-source" },
    h("h2", { id: "source-title" }, "Manifest source"),
    h(
      "p",
      {},
      "Where the hub pulls your manifest from when you refresh it: ",
      code("/.well-known/webmcp.json"),
      ", or a WebMCP manifest your ",
      h("a", { href: catalog.url }, "/.well-known/ai-catalog.json"),
      " lists. The catalog was ",
      catalog.checkedAt ? "read " : "not read yet",
      catalog.checkedAt ? time(catalog.checkedAt, now) : null,
      catalog.checkedAt && !catalog.error && !catalog.entries.length && !catalog.ignored.length
        ? ": it lists no WebMCP manifest."
        : ".",
    ),
    catalog.error ? notice("error", `Your ai-catalog.json could not be used: ${catalog.error}`) : null,
    chosen && !sources.some((e) => e.url === chosen)
      ? notice(
          "info",
          `Your chosen source ${chosen} is no longer in your catalog; refreshes pull from it until you choose another.`,
        )
      : null,
    h(
      "form",
      { id: "source-form", class: "stack", "data-host": host },
      h(
        "fieldset",
        {},
        h("legend", {}, "Pull the manifest from"),
        h(
          "div",
          { class: "field check" },
          h("input", { type: "radio", id: "source-default", name: "source", value: "", checked: !chosen }),
          h("label", { for: "source-default" }, code("/.well-known/webmcp.json"), " (default)"),
        ),
        ...sources.map((e, i) =>
          h(
            "div",
            { class: "field check" },
            h("input", {
              type: "radio",
              id: `source-${i}`,
              name: "source",
              value: e.url,
              checked: chosen === e.url,
            }),
            h(
              "label",
              { for: `source-${i}` },
              code(path(e.url)),
              e.displayName ? ` ${e.displayName}` : "",
              e.version ? ` (version ${e.version})` : "",
            ),
          ),
        ),
      ),
      h(
        "p",
        { class: "actions" },
        button(undefined, "submit", "Use this source"),
        " ",
        button("manifest-pull", "button", "Pull the manifest now"),
        " ",
        button("catalog-read", "button", "Read my ai-catalog.json now"),
      ),
      h("p", { id: "source-status", class: "meta", role: "status" }),
    ),
    servers.length ? h("h3", {}, "MCP servers in your catalog") : null,
    servers.length
      ? h(
          "ul",
          {},
          ...servers.map((e) =>
            h(
              "li",
              {},
              code(path(e.url)),
              ` ${e.displayName ?? e.identifier} (${e.type}): not a manifest source. It describes a remote MCP server, not the WebMCP tools of your pages.`,
            ),
          ),
        )
      : null,
    catalog.ignored.length
      ? h(
          "details",
          {},
          h("summary", {}, `${plural(catalog.ignored.length, "catalog entry", "catalog entries")} not used`),
          h("ul", {}, ...catalog.ignored.map((e) => h("li", {}, code(e.identifier), `: ${e.reason}`))),
        )
      : null,
  );
}
