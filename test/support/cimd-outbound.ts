// The OAuth test pool's outbound fetch hook (vitest.config.ts, miniflare `outboundService`): the library
// fetches Client ID Metadata Documents only from https URLs, so `https://<port>.cimd.test/<path>` is answered
// by the fake origin listening on 127.0.0.1:<port> (test/support/fake-origins.ts, a real local HTTP server).
// So is `https://<loopback>:<port>/…` (127.0.0.1, localhost or [::1], whatever spelling the client id used):
// the probe tests (test/worker/oauth-probe.test.ts) count the fake origin's hits to prove a loopback client
// id is never fetched. Every other request goes out unchanged. Redirects are passed back, never followed here.

export async function cimdOutbound(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const m = /^(\d+)\.cimd\.test$/.exec(url.hostname);
  const loopback = ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname) && url.port !== "";
  const port = m ? m[1] : loopback ? url.port : undefined;
  const target =
    port && url.protocol === "https:" ? `http://127.0.0.1:${port}${url.pathname}${url.search}` : url.href;
  const body =
    request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
  const headers = new Headers(request.headers);
  // The body is re-sent whole: fetch sets its own length (a forwarded one is refused by undici).
  for (const name of ["host", "content-length", "transfer-encoding", "connection"]) headers.delete(name);
  return fetch(target, { method: request.method, headers, body, redirect: "manual" });
}
