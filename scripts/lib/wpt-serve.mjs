// The pure parts of the WPT runner (scripts/wpt.mjs): what wptserve would do to the files it serves, done
// for loopback origins. `.sub.` files get wptserve's template substitution for the keys the webmcp tests
// reach (get-host-info.sub.js: {{host}}, {{domains[…]}}, {{hosts[…][…]}}, {{ports[http|https][0|1]}});
// an HTML document can get a script inserted first in its <head> (the bridge, before any page script).
//
// Hosts, where the spec of wptserve has names we cannot resolve without DNS: {{host}} is "localhost", so
// get-host-info.sub.js's own rule makes REMOTE_HOST (and NOTSAMESITE_HOST) 127.0.0.1; the www* subdomains
// ({{domains[www]}} …, same-site elsewhere) are 127.0.0.1 too; the "alt" hosts ({{hosts[alt][…]}}, a
// different site) are 127.0.0.2. All three are loopback, so potentially trustworthy even over http.

/** The three loopback hosts the runner serves on: this origin's, the remote one, and another site. */
export const WPT_HOSTS = { host: "localhost", remote: "127.0.0.1", alt: "127.0.0.2" };

/**
 * wptserve's `{{…}}` substitution for the keys above. `ports` is [first, second] (the same for http and
 * https: the runner answers both protocols on each port). A key it does not know throws, naming it.
 */
export function substitute(text, { hosts = WPT_HOSTS, ports }) {
  const domain = (sub) => (sub === "" ? hosts.host : hosts.remote);
  return text.replace(/\{\{([^}]*)\}\}/g, (whole, key) => {
    const k = key.trim();
    if (k === "host") return hosts.host;
    let m = /^domains\[([^\]]*)\]$/.exec(k);
    if (m) return domain(m[1]);
    m = /^hosts\[([^\]]*)\]\[([^\]]*)\]$/.exec(k);
    if (m) return m[1] === "alt" ? hosts.alt : domain(m[2]);
    m = /^ports\[(http|https|ws|wss)\]\[([01])\]$/.exec(k);
    if (m) return String(ports[Number(m[2])]);
    throw new Error(`wpt: no substitution for ${whole}`);
  });
}

/**
 * The document with `<script src="…">` as the first element of its head: right after a <head> tag, or, where
 * the head is implied, before the first thing after the doctype (the parser puts it in the implied head).
 */
export function injectScript(html, src) {
  const tag = `<script src="${src}"></script>`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (head) {
    const at = head.index + head[0].length;
    return html.slice(0, at) + tag + html.slice(at);
  }
  const doctype = /^(\uFEFF?\s*<!doctype[^>]*>)/i.exec(html);
  const at = doctype ? doctype[0].length : 0;
  return html.slice(0, at) + tag + html.slice(at);
}

/** Is this path (relative to the checkout, "/"-separated) a test file? Not resources or support files. */
export function isTestFile(path) {
  return (
    /\.html?$/.test(path) &&
    !/(^|\/)(resources|support|tools)\//.test(path) &&
    !/-ref\.html?$|-manual\.|\.sub\.html?$/.test(path)
  );
}

const STATUS = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
const HARNESS = ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"];

/** testharness's numeric statuses as names. */
export function statusName(status, harness = false) {
  return (harness ? HARNESS : STATUS)[status] ?? String(status);
}

/**
 * Per file: subtests passed in each mode, the bridge's failures, and whether the bridge is behind native
 * (passes fewer). `results` is { [mode]: { [file]: { harness, message, tests: [{name, status, message}] } } }.
 */
export function compare(results) {
  const files = [...new Set(Object.values(results).flatMap((r) => Object.keys(r)))].sort();
  return files.map((file) => {
    const row = { file, behind: false, bridgeFailures: [] };
    for (const [mode, byFile] of Object.entries(results)) {
      const r = byFile[file];
      if (!r) continue;
      row[mode] = { passed: r.tests.filter((t) => t.status === 0).length, total: r.tests.length };
      if (r.harness !== 0)
        row[mode].harness = `${statusName(r.harness, true)}${r.message ? `: ${r.message}` : ""}`;
    }
    const bridge = results.bridge?.[file];
    if (bridge) {
      row.bridgeFailures = bridge.tests
        .filter((t) => t.status !== 0)
        .map((t) => ({ name: t.name, status: statusName(t.status), message: t.message ?? "" }));
      if (bridge.harness !== 0) {
        row.bridgeFailures.unshift({
          name: "(harness)",
          status: statusName(bridge.harness, true),
          message: bridge.message ?? "",
        });
      }
    }
    if (row.bridge && row.native) row.behind = row.bridge.passed < row.native.passed;
    return row;
  });
}
