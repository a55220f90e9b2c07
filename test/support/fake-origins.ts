// A real local HTTP server standing in for the outside world the tests cannot reach: site origins (each on
// its own loopback port, so each is a distinct host) and a DNS-over-HTTPS resolver. Tests running inside
// workerd drive it over HTTP through its control endpoints.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { FakeRoute } from "./fake-route.js";

export type { FakeRoute };

export interface FakeOrigins {
  controlUrl: string;
  dohUrl: string;
  close(): Promise<void>;
}

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  return new Promise((resolve) => {
    const server = createServer(handler);
    server.listen(0, "127.0.0.1", () => resolve(server));
    server.unref();
  });
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body;
}

function send(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(body);
}

/** Headers at once, then the body in small pieces (`dripMs`, `dripBytes`), or half of it and a dropped connection. */
function serveSlowly(res: ServerResponse, route: FakeRoute): void {
  const body = Buffer.from(route.body ?? "");
  const step = route.dripBytes ?? 1;
  // A cut-off body announces its full length, so the client knows it is cut off.
  const length: Record<string, string> =
    route.hangUp === "mid-body" ? { "content-length": String(body.length) } : {};
  res.writeHead(route.status ?? 200, { "content-type": "text/plain", ...length, ...route.headers });
  res.flushHeaders();
  if (route.hangUp === "mid-body") {
    res.write(body.subarray(0, Math.floor(body.length / 2)), () => res.destroy());
    return;
  }
  let sent = 0;
  const timer = setInterval(() => {
    if (sent >= body.length) {
      clearInterval(timer);
      res.end();
      return;
    }
    res.write(body.subarray(sent, sent + step));
    sent += step;
  }, route.dripMs);
  // Stop dripping once the client gives up.
  res.on("close", () => clearInterval(timer));
}

export async function startFakeOrigins(): Promise<FakeOrigins> {
  const origins = new Map<number, { server: Server; routes: Map<string, FakeRoute>; hits: string[] }>();
  const txt = new Map<string, string[]>();

  const control = await listen(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://x");
      if (req.method === "POST" && url.pathname === "/origins") {
        const routes = new Map<string, FakeRoute>(
          Object.entries(JSON.parse((await readBody(req)) || "{}") as Record<string, FakeRoute>),
        );
        const entry = { routes, hits: [] as string[], server: undefined as unknown as Server };
        entry.server = await listen((oreq, ores) => {
          const path = new URL(oreq.url ?? "/", "http://x").pathname;
          entry.hits.push(`${oreq.method} ${path} ua=${oreq.headers["user-agent"] ?? ""}`);
          const route = entry.routes.get(path);
          const answer = () => {
            if (!route) return send(ores, 404, "not found", { "content-type": "text/plain" });
            if (route.hangUp === "before-headers") return void oreq.socket.destroy();
            if (route.dripMs !== undefined || route.hangUp === "mid-body") return serveSlowly(ores, route);
            send(ores, route.status ?? 200, route.body ?? "", {
              "content-type": "text/plain",
              ...route.headers,
            });
          };
          if (route?.delayMs) setTimeout(answer, route.delayMs);
          else answer();
        });
        const port = (entry.server.address() as AddressInfo).port;
        origins.set(port, entry);
        return send(res, 201, JSON.stringify({ origin: `http://127.0.0.1:${port}`, port }));
      }
      const closing = /^\/origins\/(\d+)$/.exec(url.pathname);
      if (req.method === "DELETE" && closing) {
        // Stop listening, so the port refuses connections from now on.
        const entry = origins.get(Number(closing[1]));
        if (!entry) return send(res, 404, "{}");
        origins.delete(Number(closing[1]));
        entry.server.closeAllConnections();
        await new Promise<void>((resolve) => entry.server.close(() => resolve()));
        return send(res, 200, "{}");
      }
      const m = /^\/origins\/(\d+)\/(routes|hits)$/.exec(url.pathname);
      if (m) {
        const entry = origins.get(Number(m[1]));
        if (!entry) return send(res, 404, "{}");
        if (m[2] === "hits") return send(res, 200, JSON.stringify(entry.hits));
        const routes = JSON.parse(await readBody(req)) as Record<string, FakeRoute>;
        for (const [path, route] of Object.entries(routes)) entry.routes.set(path, route);
        return send(res, 200, "{}");
      }
      if (req.method === "POST" && url.pathname === "/dns") {
        const { name, values } = JSON.parse(await readBody(req)) as { name: string; values: string[] };
        txt.set(name.toLowerCase(), values);
        return send(res, 200, "{}");
      }
      if (url.pathname === "/dns-query") {
        const name = (url.searchParams.get("name") ?? "").toLowerCase();
        const values = txt.get(name) ?? [];
        // Long TXT values are split into 255-byte character-strings, as real resolvers return them.
        const answer = values.map((v) => ({
          name,
          type: 16,
          TTL: 60,
          data: (v.match(/.{1,255}/g) ?? [""]).map((s) => `"${s}"`).join(" "),
        }));
        return send(
          res,
          200,
          JSON.stringify({ Status: values.length ? 0 : 3, Answer: answer.length ? answer : undefined }),
          {
            "content-type": "application/dns-json",
          },
        );
      }
      send(res, 404, "{}");
    } catch (e) {
      send(res, 500, JSON.stringify({ error: String(e) }));
    }
  });
  const port = (control.address() as AddressInfo).port;
  return {
    controlUrl: `http://127.0.0.1:${port}`,
    dohUrl: `http://127.0.0.1:${port}/dns-query`,
    async close() {
      for (const { server } of origins.values()) server.close();
      control.close();
    },
  };
}
