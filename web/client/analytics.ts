// Entry of /assets/analytics.js: a site owner's usage analytics (web/pages/analytics.tsx). Reads
// GET /api/sites/<host>/analytics?from=&to=&tool= with the session cookie and draws, per day and tool: calls,
// error rate, latency p50/p95; then the calls where the live tool differed from the published one and the
// commonest error messages. Charts are inline SVG drawn here (a few bars and lines need no library): each is
// role="img" with a summary as its label and title, and the same numbers follow in a table. The filters live
// in the page's query string, so a view can be linked; the CSV link follows them.
import type { SiteAnalytics } from "../../src/protocol/usage.js";
import { USAGE_DAYS } from "../../src/protocol/usage.js";
import { ApiError, api } from "./lib/api.js";
import { byId, h } from "./lib/dom.js";

const SVG = "http://www.w3.org/2000/svg";
const DAY_MS = 86_400_000;
type Day = SiteAnalytics["days"][number];
type Series = { name: string; values: Array<number | null> };

const form = byId("analytics-form", HTMLFormElement);
const host = form.dataset.host ?? "";
const base = `/api/sites/${encodeURIComponent(host)}/analytics`;
const fromInput = byId("analytics-from", HTMLInputElement);
const toInput = byId("analytics-to", HTMLInputElement);
const toolSelect = byId("analytics-tool", HTMLSelectElement);
const csv = byId("analytics-csv", HTMLAnchorElement);
const status = byId("analytics-status");
const root = byId("analytics-root");

const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const dayMs = (day: string) => Date.parse(`${day}T00:00:00Z`);
const fmt = (n: number) => n.toLocaleString("en");
const pct = (r: number) => `${(r * 100).toFixed(r > 0 && r < 0.1 ? 1 : 0)}%`;
const ms = (v: number | null) => (v === null ? "—" : v < 1000 ? `≤ ${v} ms` : `≤ ${(v / 1000).toFixed(1)} s`);

function init(): void {
  const q = new URLSearchParams(location.search);
  const today = isoDay(Date.now());
  toInput.value = q.get("to") ?? today;
  fromInput.value = q.get("from") ?? isoDay(dayMs(toInput.value || today) - 29 * DAY_MS);
  fromInput.min = toInput.min = isoDay(Date.now() - (USAGE_DAYS - 1) * DAY_MS);
  fromInput.max = toInput.max = today;
  const tool = q.get("tool");
  if (tool) toolSelect.append(h("option", { value: tool, selected: true }, tool));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void load();
  });
  void load();
}

function query(): URLSearchParams {
  const q = new URLSearchParams({ from: fromInput.value, to: toInput.value });
  if (toolSelect.value) q.set("tool", toolSelect.value);
  return q;
}

async function load(): Promise<void> {
  const q = query();
  history.replaceState(null, "", `?${q}`);
  csv.href = `${base}?${q}&format=csv`;
  root.setAttribute("aria-busy", "true");
  status.textContent = "Loading…";
  try {
    const data = await api<SiteAnalytics>(`${base}?${q}`);
    fillTools(data);
    root.replaceChildren(...render(data));
    const calls = data.tools.reduce((a, t) => a + t.calls, 0);
    status.textContent = `${fmt(calls)} calls from ${data.from} to ${data.to}${data.tool ? ` of ${data.tool}` : ""}.`;
  } catch (e) {
    status.textContent = "";
    root.replaceChildren(failure(e));
  } finally {
    root.setAttribute("aria-busy", "false");
  }
}

/** The tool filter lists every tool seen in an unfiltered answer (and keeps the chosen one). */
function fillTools(data: SiteAnalytics): void {
  const known = new Set([...toolSelect.options].map((o) => o.value));
  for (const t of data.tools)
    if (!known.has(t.tool)) toolSelect.append(h("option", { value: t.tool }, t.tool));
}

function failure(e: unknown): HTMLElement {
  const here = location.pathname + location.search;
  if (e instanceof ApiError && e.status === 401)
    return notice(
      "info",
      "Sign in to see this site's analytics.",
      "Only the account that owns the site (or its publisher key, through the API) can read them. ",
      h("a", { href: `/signin?return_to=${encodeURIComponent(here)}` }, "Sign in"),
    );
  if (e instanceof ApiError && e.status === 403)
    return notice(
      "warn",
      "These analytics are not yours.",
      `The account you are signed in with does not own ${host}. Sign in with the account that published it, or use its publisher key with the API.`,
    );
  if (e instanceof ApiError && e.status === 404)
    return notice("warn", "No such site.", `${host} is not a site on this hub.`);
  const message = e instanceof Error ? e.message : String(e);
  return notice("error", "The analytics could not be read.", message);
}

function notice(kind: string, title: string, ...body: Array<string | Node>): HTMLElement {
  return h(
    "div",
    { class: `alert ${kind}`, role: kind === "error" ? "alert" : null, id: "analytics-notice" },
    h("strong", {}, title, " "),
    ...body,
  );
}

function render(data: SiteAnalytics): HTMLElement[] {
  if (!data.tools.some((t) => t.calls > 0))
    return [
      notice(
        "info",
        "No calls yet in this range.",
        "Figures appear here once agents call your tools through a channel or the cloud (rollups reach the hub within a few minutes). Try a wider range.",
      ),
    ];
  const days: string[] = [];
  for (let t = dayMs(data.from); t <= dayMs(data.to); t += DAY_MS) days.push(isoDay(t));
  const tools = data.tools.filter((t) => t.calls > 0).map((t) => t.tool);
  const cell = new Map(data.days.map((d) => [`${d.tool}\n${d.day}`, d]));
  const per = (f: (d: Day) => number | null) =>
    tools.map((tool) => ({ name: tool, values: days.map((day) => pick(cell.get(`${tool}\n${day}`), f)) }));
  const byDay = (f: (ds: Day[]) => number | null) =>
    days.map((day) => f(tools.flatMap((tool) => cell.get(`${tool}\n${day}`) ?? [])));
  const sum = (ds: Day[], k: keyof Day) => ds.reduce((a, d) => a + Number(d[k] ?? 0), 0);
  const errorRate = byDay((ds) => {
    const calls = sum(ds, "calls");
    return calls ? (calls - sum(ds, "ok")) / calls : null;
  });
  const callsSeries = per((d) => d.calls);
  const disagree = data.days.filter((d) => d.changed + d.unpublished > 0);
  return [
    section("Tools", summaryTable(data)),
    section(
      "Calls per day",
      chart("bar", days, callsSeries, fmt, `Calls per day by tool, ${data.from} to ${data.to}`),
      dayTable("Calls per day by tool", days, callsSeries, fmt),
    ),
    section(
      "Error rate",
      h(
        "p",
        { class: "hint" },
        "Calls that did not succeed (errors, denials, timeouts, invalid input, disconnections).",
      ),
      chart(
        "line",
        days,
        [{ name: "error rate", values: errorRate }],
        pct,
        "Error rate per day, all tools shown",
      ),
      dayTable("Error rate per day", days, [{ name: "Error rate", values: errorRate }], pct),
    ),
    section(
      "Latency",
      h("p", { class: "hint" }, "Per tool and day, to within a factor of √2 (upper bound of the bucket)."),
      ...tools.map((tool) => {
        const s = [
          { name: "p50", values: days.map((day) => cell.get(`${tool}\n${day}`)?.p50Ms ?? null) },
          { name: "p95", values: days.map((day) => cell.get(`${tool}\n${day}`)?.p95Ms ?? null) },
        ];
        return h(
          "div",
          { class: "chart-group" },
          h("h3", {}, tool),
          chart("line", days, s, ms, `Latency of ${tool} per day, p50 and p95`),
          dayTable(`Latency of ${tool} per day`, days, s, ms),
        );
      }),
    ),
    section(
      "Your page and your manifest disagree",
      disagree.length
        ? h(
            "p",
            {},
            "On these days agents called a tool whose live definition on your page differed from the one you published (changed) or that your manifest does not list (unpublished). Publish the manifest your pages register, or fix the pages.",
          )
        : h(
            "p",
            { class: "meta" },
            "No call in this range found your page's tool different from your manifest.",
          ),
      disagree.length
        ? table(
            "Calls where the live tool differed from the published one",
            ["Day", "Tool", "Changed", "Unpublished", "Of calls"],
            disagree.map((d) => [d.day, d.tool, fmt(d.changed), fmt(d.unpublished), fmt(d.calls)]),
          )
        : null,
    ),
    section(
      "Commonest errors",
      data.errors.length
        ? table(
            "The commonest error messages (truncated; arguments are never kept)",
            ["Tool", "Message", "Count"],
            data.errors.map((e) => [e.tool, e.message, fmt(e.count)]),
          )
        : h("p", { class: "meta" }, "No error messages in this range."),
    ),
  ];
}

const pick = (d: Day | undefined, f: (d: Day) => number | null) => (d ? f(d) : 0);

function summaryTable(data: SiteAnalytics): HTMLElement {
  return table(
    `Each tool from ${data.from} to ${data.to}`,
    ["Tool", "Calls", "Error rate", "p50", "p95", "Differed", "Channels"],
    data.tools.map((t) => [
      t.tool,
      fmt(t.calls),
      pct(t.errorRate),
      ms(t.p50Ms),
      ms(t.p95Ms),
      fmt(t.changed),
      fmt(t.channels),
    ]),
    "analytics-tools",
  );
}

function section(title: string, ...children: Array<Node | null>): HTMLElement {
  const id = `a-${title.toLowerCase().replace(/[^a-z0-9]+/g, "-")}`;
  return h("section", { "aria-labelledby": id, class: "analytics" }, h("h2", { id }, title), ...children);
}

function table(caption: string, head: string[], rows: string[][], id?: string): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { class: "data stack", id },
      h("caption", { class: "sr-only" }, caption),
      h("thead", {}, h("tr", {}, ...head.map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        ...rows.map((r) =>
          h(
            "tr",
            {},
            ...r.map((c, i) =>
              i === 0 ? h("th", { scope: "row" }, c) : h("td", { "data-label": head[i] }, c),
            ),
          ),
        ),
      ),
    ),
  );
}

/** The chart's numbers as a table (days as rows, series as columns), folded under the chart. */
function dayTable(caption: string, days: string[], series: Series[], f: (v: number) => string): HTMLElement {
  const rows = days.map((day, i) => [
    day,
    ...series.map((s) => (s.values[i] === null ? "—" : f(s.values[i]!))),
  ]);
  return h(
    "details",
    { class: "chart-table" },
    h("summary", {}, "The numbers as a table"),
    table(caption, ["Day", ...series.map((s) => s.name)], rows),
  );
}

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...kids: Array<Node | string>
) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...kids);
  return el;
}

/** A chart over the days: stacked bars (counts) or lines (rates, latencies), with its summary as its label. */
function chart(
  kind: "bar" | "line",
  days: string[],
  series: Series[],
  f: (v: number) => string,
  title: string,
): HTMLElement {
  // As wide as the page allows (up to 640): the axis text stays at its real size on a phone.
  const W = Math.round(Math.min(640, Math.max(300, root.clientWidth)));
  const H = 200;
  const L = 56;
  const B = 22;
  const plotW = W - L - 8;
  const plotH = H - B - 8;
  const totals = days.map((_, i) => series.reduce((a, s) => a + (s.values[i] ?? 0), 0));
  const values = series.flatMap((s) => s.values.filter((v): v is number => v !== null));
  const max = Math.max(kind === "bar" ? Math.max(...totals) : Math.max(0, ...values), Number.MIN_VALUE);
  const y = (v: number) => 8 + plotH - (v / max) * plotH;
  const step = plotW / days.length;
  const x = (i: number) => L + step * i + step / 2;
  const summary = `${title}. ${series
    .map((s) => {
      const vs = s.values.filter((v): v is number => v !== null);
      if (!vs.length) return `${s.name}: no data`;
      const peak = Math.max(...vs);
      const at = days[s.values.indexOf(peak)];
      return kind === "bar"
        ? `${s.name}: ${f(vs.reduce((a, b) => a + b, 0))} in total, most on ${at} (${f(peak)})`
        : `${s.name}: highest ${f(peak)} on ${at}`;
    })
    .join("; ")}.`;
  const g = svg(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": summary, class: "chart" },
    svg("title", {}, summary),
  );
  for (const v of [0, max / 2, max])
    g.append(
      svg("line", { x1: L, x2: W - 8, y1: y(v), y2: y(v), class: "grid" }),
      svg(
        "text",
        { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "axis" },
        max === Number.MIN_VALUE ? "0" : f(v),
      ),
    );
  const every = Math.ceil(days.length / Math.floor(W / 100));
  days.forEach((d, i) => {
    if (i % every === 0)
      g.append(svg("text", { x: x(i), y: H - 6, "text-anchor": "middle", class: "axis" }, d.slice(5)));
  });
  series.forEach((s, si) => {
    const cls = `s${si % 6}`;
    if (kind === "bar") {
      s.values.forEach((v, i) => {
        if (!v) return;
        const below = series.slice(0, si).reduce((a, o) => a + (o.values[i] ?? 0), 0);
        g.append(
          svg(
            "rect",
            {
              x: x(i) - step * 0.4,
              width: step * 0.8,
              y: y(below + v),
              height: y(below) - y(below + v),
              class: cls,
            },
            svg("title", {}, `${days[i]} ${s.name}: ${f(v)}`),
          ),
        );
      });
    } else {
      let d = "";
      const dots: SVGElement[] = [];
      s.values.forEach((v, i) => {
        if (v === null) return;
        d += `${d && s.values[i - 1] !== null ? "L" : "M"}${x(i).toFixed(1)},${y(v).toFixed(1)}`;
        dots.push(
          svg(
            "circle",
            { cx: x(i), cy: y(v), r: 2.5, class: cls },
            svg("title", {}, `${days[i]} ${s.name}: ${f(v)}`),
          ),
        );
      });
      g.append(svg("path", { d, class: `line ${cls}` }), ...dots);
    }
  });
  const legend =
    series.length > 1
      ? h(
          "ul",
          { class: "legend", "aria-hidden": "true" },
          ...series.map((s, si) => h("li", { class: `s${si % 6}` }, s.name)),
        )
      : null;
  return h("figure", { class: "chart-figure" }, g, legend);
}

init();
