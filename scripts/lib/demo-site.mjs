// The demo site: web/demo served from its own origin (PORT+1 next to the hub), plus the two well-known
// files the hub reads from a site: its manifest and the ownership token the hub asked for. Its pages embed
// the hub's bridge with `<script src="{{HUB_URL}}/bridge.js">`; the server fills in the hub it is told
// about (`hubUrl`, or `setHubUrl` once the hub is up) and leaves the tag out until then.
import { createReadStream } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

export const DEMO_ROOT = fileURLToPath(new URL("../../web/demo/", import.meta.url));
export const VERIFY_PATH = "/.well-known/webmcp-hub-verify";
export const MANIFEST_PATH = "/.well-known/webmcp.json";
export const HUB_PLACEHOLDER = "{{HUB_URL}}";
const BRIDGE_TAG = /[ \t]*<script src="\{\{HUB_URL\}\}\/bridge\.js"><\/script>\n?/g;

/** A page with the hub's URL filled in, or without the bridge's script tag while no hub is known. */
export function renderPage(html, hubUrl) {
  return hubUrl ? html.replaceAll(HUB_PLACEHOLDER, hubUrl) : html.replace(BRIDGE_TAG, "");
}

function hubOriginOf(url) {
  if (url === null || url === undefined) return null;
  const parsed = new URL(url);
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    throw new Error(`The hub URL must be http(s), not ${url}.`);
  }
  return parsed.origin;
}

const CONTENT_TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".txt": "text/plain; charset=utf-8",
};

function send(res, status, body, type = "text/plain; charset=utf-8") {
  res.writeHead(status, { "content-type": type, "cache-control": "no-store" });
  res.end(body);
}

/** The file under `root` that `pathname` names, or undefined when it would leave `root`. */
function fileFor(root, pathname) {
  if (pathname === MANIFEST_PATH) return join(root, "webmcp.json");
  if (pathname.includes("\0")) return undefined;
  const file = resolve(root, "." + (pathname.endsWith("/") ? pathname + "index.html" : pathname));
  const rel = relative(root, file);
  if (rel.startsWith("..") || rel.startsWith(sep) || rel === "") return undefined;
  return file;
}

/**
 * Serves `root` on host:port (port 0 picks a free one). Resolves once listening; rejects with a clear
 * message when the port is taken. `setVerifyToken` sets what /.well-known/webmcp-hub-verify answers.
 */
export function startDemoSite({ host = "127.0.0.1", port = 0, root = DEMO_ROOT, hubUrl = null } = {}) {
  let verifyToken = null;
  let hub = hubOriginOf(hubUrl);
  const server = createServer(async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "Only GET and HEAD.\n");
    let pathname;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? "/", "http://demo").pathname);
    } catch {
      return send(res, 400, "Bad path.\n");
    }
    if (pathname === VERIFY_PATH) {
      return verifyToken === null
        ? send(res, 404, "No webmcp-hub verification is in progress.\n")
        : send(res, 200, verifyToken + "\n");
    }
    let file = fileFor(root, pathname);
    if (!file) return send(res, 404, "Not found.\n");
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = join(file, "index.html");
        info = await stat(file);
      }
      const headers = {
        "content-type": CONTENT_TYPES[extname(file)] ?? "application/octet-stream",
        "content-length": info.size,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      };
      if (extname(file) === ".html") {
        const page = Buffer.from(renderPage(await readFile(file, "utf8"), hub));
        res.writeHead(200, { ...headers, "content-length": page.byteLength });
        return res.end(req.method === "HEAD" ? undefined : page);
      }
      res.writeHead(200, headers);
      if (req.method === "HEAD") return res.end();
      createReadStream(file).pipe(res);
    } catch {
      send(res, 404, "Not found.\n");
    }
  });

  return new Promise((resolvePromise, reject) => {
    server.once("error", (err) => {
      reject(
        err.code === "EADDRINUSE"
          ? new Error(`Port ${port} on ${host} is already in use, so the demo site cannot start there.`)
          : err,
      );
    });
    server.listen({ host, port, exclusive: true }, () => {
      const address = server.address();
      const actualPort = typeof address === "object" && address ? address.port : port;
      const origin = `http://${host}:${actualPort}`;
      resolvePromise({
        origin,
        host: `${host}:${actualPort}`,
        port: actualPort,
        setVerifyToken(token) {
          verifyToken = token;
        },
        setHubUrl(url) {
          hub = hubOriginOf(url);
        },
        get hubUrl() {
          return hub;
        },
        async manifest() {
          return JSON.parse(await readFile(join(root, "webmcp.json"), "utf8"));
        },
        close() {
          return new Promise((done) => {
            server.close(() => done());
            server.closeAllConnections();
          });
        },
      });
    });
  });
}
