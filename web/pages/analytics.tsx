// A site owner's usage analytics, /sites/<host>/analytics: the body is a static fragment (static-pages.tsx)
// with the host as a placeholder; web/client/analytics.ts reads GET /api/sites/<host>/analytics with the
// session (the API says who may: the owning account or the publisher key) and draws the charts and tables.
import { Notice } from "./components.js";

export function AnalyticsBody(props: { host: string }) {
  const site = `/sites/${props.host}`;
  const api = `/api/sites/${props.host}/analytics`;
  return (
    <>
      <nav aria-label="Breadcrumb" class="crumbs">
        <a href="/">Tools</a> <span aria-hidden="true">›</span> <a href={site}>{props.host}</a>{" "}
        <span aria-hidden="true">›</span> <span aria-current="page">Usage analytics</span>
      </nav>
      <header class="page-head">
        <h1>Usage analytics</h1>
        <p class="lede">
          How agents call the tools of <a href={site}>{props.host}</a>: calls a day, errors, latency, and
          calls where the tool a page offered differed from the one you published. Days are UTC; figures come
          from every channel and from cloud runs, counted without arguments or results.
        </p>
      </header>
      <noscript>
        <Notice kind="info" title="This page needs JavaScript.">
          Without it, read the figures from <a href={`${api}?format=csv`}>the CSV</a> or{" "}
          <code>GET {api}</code> with your publisher key.
        </Notice>
      </noscript>
      <form id="analytics-form" class="filters" data-host={props.host}>
        <div class="field inline">
          <label for="analytics-from">From</label>
          <input type="date" id="analytics-from" name="from" required />
        </div>
        <div class="field inline">
          <label for="analytics-to">To</label>
          <input type="date" id="analytics-to" name="to" required />
        </div>
        <div class="field inline">
          <label for="analytics-tool">Tool</label>
          <select id="analytics-tool" name="tool">
            <option value="">All tools</option>
          </select>
        </div>
        <button type="submit" class="btn" disabled data-needs-js>
          Show
        </button>
        <a class="btn clear" id="analytics-csv" href={`${api}?format=csv`} download>
          Download CSV
        </a>
      </form>
      <p id="analytics-status" class="meta" role="status" aria-live="polite"></p>
      <div id="analytics-root" aria-busy="true"></div>
    </>
  );
}
