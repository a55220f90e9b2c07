// A local origin whose owner an e2e test plays: it serves the hub's ownership token once told to (the
// `http` verification method), and nothing else.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface TestOrigin {
  origin: string;
  host: string;
  setToken(t: string | null): void;
  close(): Promise<void>;
}

export async function startOrigin(): Promise<TestOrigin> {
  let token: string | null = null;
  const server: Server = createServer((req, res) => {
    if (req.url === "/.well-known/webmcp-hub-verify" && token) {
      res.writeHead(200, { "content-type": "text/plain" }).end(token);
    } else res.writeHead(404, { "content-type": "text/plain" }).end("not here");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    setToken: (t) => (token = t),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
