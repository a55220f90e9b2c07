// Runs the official webmcp web-platform-tests against /bridge.js and against Chromium's native WebMCP, and
// says per file how many subtests each passes. Not part of `npm test`: the WPT files are not in this repo.
//
//   node scripts/build.mjs && npm run wpt -- [WPT_DIR] [--mode=both|bridge|native] [--only=TEXT] [--json=FILE]
//
// WPT_DIR (default $WPT_DIR, else /tmp/wpt) holds a WPT checkout or a subset of one: resources/testharness.js,
// resources/testharnessreport.js, common/get-host-info.sub.js, common/blank.html and webmcp/**. Every *.html
// under webmcp/ outside resources/ directories is a test file.
//
// Serving (what wptserve does, on loopback): each of two ports answers on 127.0.0.1, 127.0.0.2 and ::1 (so
// localhost too), TLS and plain http alike (the first byte of a connection says which), with a throwaway
// self-signed certificate that Chromium is told to accept. `.https.` tests load from https://localhost:P;
// get-host-info.sub.js, substituted (scripts/lib/wpt-serve.mjs), makes HTTPS_REMOTE_ORIGIN
// https://127.0.0.1:P and HTTPS_OTHER_NOTSAMESITE_ORIGIN https://127.0.0.2:P: three origins, all secure.
//
// Modes, each in its own fresh Chromium (Debian's, or CHROMIUM_PATH), a fresh context per test file:
//   bridge — no WebMCP flag; web/assets/bridge.js (read at each request, so a rebuild is picked up) is
//            inserted as the first element of <head> in every HTML document served, iframe resources too.
//   native — --enable-blink-features=WebMCP, nothing inserted.
// Results come from testharness's own completion callback (hooked as testharness.js exposes
// add_completion_callback, top-level document only). Exit status 1 when the bridge passes fewer subtests
// than native on any file (or a mode could not run), else 0.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer as createNetServer } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, requireChromium } from "./lib/chromium.mjs";
import { WPT_HOSTS, compare, injectScript, isTestFile, statusName, substitute } from "./lib/wpt-serve.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BRIDGE = join(ROOT, "web/assets/bridge.js");
const BRIDGE_PATH = "/__wpt-runner/bridge.js";
// The shared launch flags, plus the runner's throwaway certificate.
const WPT_ARGS = [...CHROMIUM_ARGS, "--ignore-certificate-errors"];
const MODES = {
  bridge: { args: [], inject: true },
  native: { args: ["--enable-blink-features=WebMCP"], inject: false },
};
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".htm": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".json": "application/json",
  ".css": "text/css",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
};

function parseArgs(argv) {
  const options = {
    dir: process.env.WPT_DIR || "/tmp/wpt",
    modes: ["bridge", "native"],
    only: "",
    json: "",
    console: false,
  };
  for (const arg of argv) {
    const [key, value = ""] = arg.split(/=(.*)/s);
    if (key === "--mode") options.modes = value === "both" ? ["bridge", "native"] : [value];
    else if (key === "--only") options.only = value;
    else if (key === "--json") options.json = value;
    else if (key === "--console") options.console = true;
    else if (!arg.startsWith("--")) options.dir = arg;
    else throw new Error(`wpt: unknown option ${arg}`);
  }
  for (const mode of options.modes)
    if (!MODES[mode]) throw new Error(`wpt: no mode "${mode}" (bridge, native, both)`);
  options.dir = resolve(options.dir);
  for (const need of ["resources/testharness.js", "resources/testharnessreport.js", "webmcp"]) {
    if (!existsSync(join(options.dir, need)))
      throw new Error(`wpt: ${options.dir} has no ${need}; is it a WPT checkout?`);
  }
  return options;
}

const findChromium = () => requireChromium("npm run wpt");

function testFiles(dir) {
  const out = [];
  const walk = (d) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else {
        const rel = relative(dir, full).split(sep).join("/");
        if (isTestFile(rel)) out.push(rel);
      }
    }
  };
  walk(join(dir, "webmcp"));
  return out.sort();
}

function selfSignedCertificate() {
  const dir = mkdtempSync(join(tmpdir(), "webmcp-wpt-tls-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "2",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:127.0.0.2,IP:::1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "pipe" },
    );
    return { key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The file server: WPT_DIR's files, .sub. substitution, and the bridge inserted while `state.inject`. */
function handler(dir, state) {
  return (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const send = (status, type, body) => {
      res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
      res.end(body);
    };
    if (url.pathname === BRIDGE_PATH) return send(200, TYPES[".js"], readFileSync(BRIDGE));
    const file = resolve(dir, "." + decodeURIComponent(url.pathname));
    if (!file.startsWith(dir + sep) || !existsSync(file) || statSync(file).isDirectory()) {
      return send(404, "text/plain", "not found");
    }
    const type = TYPES[extname(file)] ?? "application/octet-stream";
    let body = readFileSync(file);
    try {
      if (/\.sub\./.test(file)) body = Buffer.from(substitute(body.toString("utf8"), { ports: state.ports }));
      if (state.inject && type.startsWith("text/html"))
        body = Buffer.from(injectScript(body.toString("utf8"), BRIDGE_PATH));
    } catch (e) {
      return send(500, "text/plain", String(e instanceof Error ? e.message : e));
    }
    send(200, type, body);
  };
}

/** Listens on `port` (0: any) at every loopback address; both http and https on the one port. */
async function listenEverywhere(port, dispatch) {
  const servers = [];
  const listen = (host, p) =>
    new Promise((resolveListen, reject) => {
      const server = createNetServer(dispatch);
      server.once("error", reject);
      server.listen({ host, port: p, exclusive: true }, () => {
        servers.push(server);
        resolveListen(server.address().port);
      });
    });
  const chosen = await listen(WPT_HOSTS.remote, port);
  await listen(WPT_HOSTS.alt, chosen);
  await listen("::1", chosen).catch(() => {}); // No IPv6 loopback here: localhost resolves to 127.0.0.1.
  return { port: chosen, close: () => Promise.all(servers.map((s) => new Promise((r) => s.close(r)))) };
}

async function startServer(dir, state) {
  const handle = handler(dir, state);
  const http = createHttpServer(handle);
  const https = createHttpsServer(selfSignedCertificate(), handle);
  // A TLS connection opens with a handshake record (0x16); anything else is plain http.
  const dispatch = (socket) =>
    socket.once("data", (chunk) => {
      socket.pause();
      socket.unshift(chunk);
      (chunk[0] === 0x16 ? https : http).emit("connection", socket);
      process.nextTick(() => socket.resume());
    });
  for (let attempt = 0; ; attempt++) {
    const first = await listenEverywhere(0, dispatch).catch((e) => (attempt < 5 ? null : Promise.reject(e)));
    if (!first) continue;
    const second = await listenEverywhere(0, dispatch).catch((e) => (attempt < 5 ? null : Promise.reject(e)));
    if (!second) {
      await first.close();
      continue;
    }
    state.ports = [first.port, second.port];
    return { close: async () => (await first.close(), await second.close()) };
  }
}

// Runs in every document before its scripts; records testharness's results in the top-level one.
function hookCompletion() {
  if (window !== window.top) return;
  let value;
  Object.defineProperty(window, "add_completion_callback", {
    configurable: true,
    enumerable: true,
    get: () => value,
    set(f) {
      value = f;
      if (typeof f !== "function") return;
      // testharness.js exposes the function before it creates its Tests object: register a microtask later.
      queueMicrotask(() =>
        f((tests, status) => {
          window.__wptRunnerResult = {
            harness: status.status,
            message: status.message,
            tests: tests.map((t) => ({ name: t.name, status: t.status, message: t.message })),
          };
        }),
      );
    },
  });
}

async function runMode(mode, files, state, executablePath, showConsole) {
  state.inject = MODES[mode].inject;
  const browser = await chromium.launch({ executablePath, args: [...WPT_ARGS, ...MODES[mode].args] });
  const results = {};
  try {
    for (const file of files) {
      const context = await browser.newContext({ ignoreHTTPSErrors: true });
      await context.addInitScript(hookCompletion);
      const page = await context.newPage();
      if (showConsole) {
        const say = (text) => console.error(`    [${mode} ${file}] ${text}`);
        page.on("console", (m) => say(`${m.type()}: ${m.text()}`));
        page.on("pageerror", (e) => say(`pageerror: ${e.message}`));
      }
      const scheme = /\.https\./.test(file) ? "https" : "http";
      const url = `${scheme}://${WPT_HOSTS.host}:${state.ports[0]}/${file}`;
      try {
        await page.goto(url);
        // testharness ends a file itself at its harness timeout (10 s, or 60 s with <meta name=timeout
        // content=long>); this wait is only a backstop for a page that never reaches the harness.
        const handle = await page.waitForFunction(() => window.__wptRunnerResult, null, {
          timeout: 120_000,
          polling: 100,
        });
        results[file] = await handle.jsonValue();
      } catch (e) {
        results[file] = {
          harness: 1,
          message: `runner: ${e instanceof Error ? e.message.split("\n")[0] : e}`,
          tests: [],
        };
      } finally {
        await context.close();
      }
      const r = results[file];
      const passed = r.tests.filter((t) => t.status === 0).length;
      console.error(
        `  ${mode.padEnd(6)} ${file}: ${passed}/${r.tests.length}${r.harness ? ` (harness ${statusName(r.harness, true)})` : ""}`,
      );
    }
  } finally {
    await browser.close();
  }
  return results;
}

function report(rows, modes) {
  const cell = (c) => (c ? `${c.passed}/${c.total}${c.harness ? ` [${c.harness.split(":")[0]}]` : ""}` : "-");
  const width = Math.max(...rows.map((r) => r.file.length), 4);
  const lines = [`${"file".padEnd(width)}  ${modes.map((m) => m.padStart(9)).join("  ")}`];
  for (const row of rows) {
    const mark = row.behind ? "  <- bridge behind native" : "";
    lines.push(`${row.file.padEnd(width)}  ${modes.map((m) => cell(row[m]).padStart(9)).join("  ")}${mark}`);
  }
  const total = (m) => rows.reduce((n, r) => n + (r[m]?.passed ?? 0), 0);
  const all = (m) => rows.reduce((n, r) => n + (r[m]?.total ?? 0), 0);
  lines.push(`${"total".padEnd(width)}  ${modes.map((m) => `${total(m)}/${all(m)}`.padStart(9)).join("  ")}`);
  if (modes.includes("bridge")) {
    lines.push("", "Subtests the bridge fails:");
    for (const row of rows) {
      for (const f of row.bridgeFailures) {
        lines.push(
          `  ${row.file} | ${f.name} | ${f.status}${f.message ? `: ${f.message.replace(/\s+/g, " ")}` : ""}`,
        );
      }
    }
  }
  return lines.join("\n");
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.modes.includes("bridge") && !existsSync(BRIDGE)) {
    throw new Error("wpt: web/assets/bridge.js is missing; run `node scripts/build.mjs` first");
  }
  const files = testFiles(options.dir).filter((f) => f.includes(options.only));
  if (files.length === 0)
    throw new Error(
      `wpt: no test files under ${options.dir}/webmcp${options.only ? ` matching ${options.only}` : ""}`,
    );
  const executablePath = findChromium();
  const state = { inject: false, ports: [0, 0] };
  const server = await startServer(options.dir, state);
  const results = {};
  try {
    for (const mode of options.modes)
      results[mode] = await runMode(mode, files, state, executablePath, options.console);
  } finally {
    await server.close();
  }
  const rows = compare(results);
  console.log(report(rows, options.modes));
  if (options.json) writeFileSync(options.json, JSON.stringify({ results, rows }, null, 2));
  const behind = rows.filter((r) => r.behind);
  if (behind.length > 0) {
    console.log(`\nThe bridge passes fewer subtests than native on: ${behind.map((r) => r.file).join(", ")}`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
