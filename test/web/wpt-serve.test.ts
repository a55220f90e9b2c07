// The WPT runner's pure parts (scripts/lib/wpt-serve.mjs): wptserve's `.sub.` substitution as
// get-host-info.sub.js needs it (three distinct loopback origins), the bridge inserted first in <head>, which
// files are tests, and the per-file comparison that decides the runner's exit status.
import { describe, expect, it } from "vitest";
import { compare, injectScript, isTestFile, substitute, WPT_HOSTS } from "../../scripts/lib/wpt-serve.mjs";

describe("substitute", () => {
  const ports: [number, number] = [8443, 8444];

  it("fills get-host-info.sub.js's keys so this, the remote and the other-site origins are three loopback origins", () => {
    const template = [
      "var HTTP_PORT = '{{ports[http][0]}}';",
      "var HTTP_PORT2 = '{{ports[http][1]}}';",
      "var HTTPS_PORT = '{{ports[https][0]}}';",
      "var ORIGINAL_HOST = '{{host}}';",
      "var REMOTE_HOST = (ORIGINAL_HOST === 'localhost') ? '127.0.0.1' : ('www1.' + ORIGINAL_HOST);",
      "var OTHER_HOST = '{{domains[www2]}}';",
      "var NOTSAMESITE_HOST = (ORIGINAL_HOST === 'localhost') ? '127.0.0.1' : ('{{hosts[alt][]}}');",
      "var OTHER_NOTSAMESITE_HOST = '{{hosts[alt][www2]}}';",
      "var SAME = '{{ domains[] }}';",
    ].join("\n");
    const run = new Function(
      `${substitute(template, { ports })}
       return {
         self: 'https://' + ORIGINAL_HOST + ':' + HTTPS_PORT,
         remote: 'https://' + REMOTE_HOST + ':' + HTTPS_PORT,
         other: 'https://' + OTHER_NOTSAMESITE_HOST + ':' + HTTPS_PORT,
         OTHER_HOST, HTTP_PORT, HTTP_PORT2, SAME,
       };`,
    );
    expect(run()).toEqual({
      self: "https://localhost:8443",
      remote: "https://127.0.0.1:8443",
      other: "https://127.0.0.2:8443",
      OTHER_HOST: "127.0.0.1",
      HTTP_PORT: "8443",
      HTTP_PORT2: "8444",
      SAME: "localhost",
    });
  });

  it("takes other hosts when given, and names a key it does not know", () => {
    const hosts = { host: "a.test", remote: "b.test", alt: "c.test" };
    expect(substitute("{{host}} {{domains[www]}} {{hosts[alt][]}}", { hosts, ports })).toBe(
      "a.test b.test c.test",
    );
    expect(() => substitute("x {{GET[pipe]}}", { ports })).toThrow("wpt: no substitution for {{GET[pipe]}}");
    expect(substitute("no keys { here }", { ports })).toBe("no keys { here }");
    expect(WPT_HOSTS).toEqual({ host: "localhost", remote: "127.0.0.1", alt: "127.0.0.2" });
  });
});

describe("injectScript", () => {
  const tag = '<script src="/b.js"></script>';

  it("puts the script first in an explicit <head>, before the page's own scripts", () => {
    const html = '<!DOCTYPE html>\n<html>\n<HEAD lang="en">\n<title>t</title><script src="/x.js"></script>';
    expect(injectScript(html, "/b.js")).toBe(
      `<!DOCTYPE html>\n<html>\n<HEAD lang="en">${tag}\n<title>t</title><script src="/x.js"></script>`,
    );
  });

  it("puts it right after the doctype where the head is implied, and not inside a <header>", () => {
    expect(injectScript('<!DOCTYPE html>\n<meta charset="utf-8"><header></header>', "/b.js")).toBe(
      `<!DOCTYPE html>${tag}\n<meta charset="utf-8"><header></header>`,
    );
    expect(injectScript("<script>1</script>", "/b.js")).toBe(`${tag}<script>1</script>`);
  });
});

it("test files are the HTML files outside resources/support directories", () => {
  const files = [
    "webmcp/imperative/object-arguments.https.html",
    "webmcp/imperative/resources/iframe-register-tool.html",
    "webmcp/resources/helpers.js",
    "webmcp/declarative/form-ref.html",
    "webmcp/declarative/select-multiple-events.https.html",
  ];
  expect(files.filter(isTestFile)).toEqual([
    "webmcp/imperative/object-arguments.https.html",
    "webmcp/declarative/select-multiple-events.https.html",
  ]);
});

it("compare counts passes per mode, lists the bridge's failures, and flags files where the bridge is behind", () => {
  const rows = compare({
    bridge: {
      "a.html": {
        harness: 0,
        tests: [
          { name: "one", status: 0 },
          { name: "two", status: 1, message: "assert_true: nope" },
        ],
      },
      "b.html": {
        harness: 2,
        message: null,
        tests: [{ name: "slow", status: 2, message: "Test timed out" }],
      },
    },
    native: {
      "a.html": {
        harness: 0,
        tests: [
          { name: "one", status: 1 },
          { name: "two", status: 1 },
        ],
      },
      "b.html": { harness: 0, tests: [{ name: "slow", status: 0 }] },
    },
  });
  expect(rows).toEqual([
    {
      file: "a.html",
      behind: false,
      bridge: { passed: 1, total: 2 },
      native: { passed: 0, total: 2 },
      bridgeFailures: [{ name: "two", status: "FAIL", message: "assert_true: nope" }],
    },
    {
      file: "b.html",
      behind: true,
      bridge: { passed: 0, total: 1, harness: "TIMEOUT" },
      native: { passed: 1, total: 1 },
      bridgeFailures: [
        { name: "(harness)", status: "TIMEOUT", message: "" },
        { name: "slow", status: "TIMEOUT", message: "Test timed out" },
      ],
    },
  ]);
});
