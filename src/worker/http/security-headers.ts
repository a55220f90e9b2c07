// Security headers for every response, chosen by what the response is for: the dashboard's pages and files
// (strict CSP, never framed), the API and MCP endpoints (nothing to render), and /bridge.js (any site's script)
// with /bridge-ui.js and /bridge-relay.js (its UI and its relay, which it imports).
import type { Context, MiddlewareHandler } from "hono";
import { NONCE, secureHeaders } from "hono/secure-headers";
import { consentFormAction } from "../oauth/consent-csp.js";

/**
 * - `page`: server-rendered pages and the dashboard's static files. Scripts run only with this response's
 *   nonce (`'strict-dynamic'` lets them import their modules; `'self'` is the fallback of browsers without
 *   CSP 3); no inline handlers or styles; never framed (`frame-ancestors 'none'`, and `X-Frame-Options: DENY`
 *   for older browsers); `Cross-Origin-Resource-Policy: same-origin`.
 * - `api`: JSON, MCP and the manifest schema. `default-src 'none'` (a response opened as a page runs nothing)
 *   and `frame-ancestors 'none'`; `Cross-Origin-Resource-Policy: cross-origin`, because other origins' pages
 *   use these endpoints (CORS `*`, and the bridge probes /healthz with a no-cors fetch).
 * - `embeddable`: /bridge.js, which any site loads with a plain `<script src>`: `Cross-Origin-Resource-Policy:
 *   cross-origin` (also satisfies sites with `Cross-Origin-Embedder-Policy: require-corp`) and
 *   `Access-Control-Allow-Origin: *` (for `<script crossorigin>` and integrity checks); no CSP or frame rules.
 *   Also /bridge-ui.js (the widget's face and the approval dialog) and /bridge-relay.js (the relay: pairing,
 *   the WebSocket, calls), which /bridge.js imports with import() from the hub into any site's page: a module
 *   script is fetched with CORS, so `*` is required there.
 * - `upgrade`: provider WebSocket upgrades (/relay/…): a 101 renders nothing, and is passed through untouched.
 * All but `upgrade` send `X-Content-Type-Options: nosniff` and `Referrer-Policy: strict-origin-when-cross-origin`.
 * HSTS is left to the zone's setting: the same Worker answers plain http under `npm start`.
 */
export type ResponseKind = "page" | "api" | "embeddable" | "upgrade";

export function responseKind(path: string): ResponseKind {
  if (path === "/bridge.js" || path === "/bridge-ui.js" || path === "/bridge-relay.js") return "embeddable";
  if (path.startsWith("/relay/")) return "upgrade";
  if (
    path.startsWith("/api/") ||
    path.startsWith("/mcp/") ||
    path.startsWith("/schema/") ||
    path === "/healthz" ||
    // Discovery documents (discovery/): the MCP Registry API, the hub's server.json, the AI catalogs.
    path.startsWith("/v0/") ||
    path.startsWith("/v0.1/") ||
    path === "/server.json" ||
    path.endsWith("/ai-catalog.json") ||
    path.startsWith("/ai-catalog/")
  )
    return "api";
  return "page";
}

const REFERRER = "strict-origin-when-cross-origin";

/** Headers hono adds by default that only matter for documents. */
const DOCUMENT_ONLY = {
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
} as const;

/**
 * The `api` kind's headers: what hono's secureHeaders sent for it (CSP `default-src 'none'; frame-ancestors
 * 'none'`, X-Frame-Options DENY, the referrer policy, CORP cross-origin, nosniff), set directly. These
 * responses are the MCP endpoint's and the API's, on every relayed call, so they are set in place (a
 * response's headers are copied only when immutable, as a Durable Object's are) rather than through
 * secureHeaders, which copied every response twice.
 */
const API_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
  ["x-frame-options", "DENY"],
  ["referrer-policy", REFERRER],
  ["cross-origin-resource-policy", "cross-origin"],
  ["x-content-type-options", "nosniff"],
];

/** Sets headers on the context's response, copying it first only if its headers are immutable. */
function setHeaders(c: Context, headers: ReadonlyArray<readonly [string, string]>): void {
  let res = c.res;
  try {
    for (const [name, value] of headers) res.headers.set(name, value);
    return;
  } catch {
    // Immutable headers (a response fetched from a binding).
  }
  res = new Response(res.body, res);
  for (const [name, value] of headers) res.headers.set(name, value);
  // Cleared first, or hono's setter would copy the response (and merge the old headers) once more.
  c.res = undefined;
  c.res = res;
}

/** Middleware factory: sets the security headers of each response's kind (see {@link ResponseKind}). */
export function securityHeaders(): MiddlewareHandler {
  const byKind: Record<Exclude<ResponseKind, "upgrade" | "api">, MiddlewareHandler> = {
    page: secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'", NONCE, "'strict-dynamic'"],
        scriptSrcAttr: ["'none'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", "data:"],
        connectSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        // The OAuth consent form ends in a redirect to the client (src/worker/oauth/consent-csp.ts).
        formAction: ["'self'", consentFormAction],
        frameAncestors: ["'none'"],
      },
      xFrameOptions: "DENY",
      referrerPolicy: REFERRER,
      crossOriginResourcePolicy: "same-origin",
      strictTransportSecurity: false,
    }),
    embeddable: secureHeaders({
      xFrameOptions: false,
      referrerPolicy: REFERRER,
      crossOriginResourcePolicy: "cross-origin",
      strictTransportSecurity: false,
      ...DOCUMENT_ONLY,
    }),
  };

  return async function securityHeadersMiddleware(c: Context, next: () => Promise<void>): Promise<void> {
    const kind = responseKind(c.req.path);
    if (kind === "upgrade") return next();
    if (kind === "api") {
      await next();
      setHeaders(c, API_HEADERS);
      return;
    }
    await byKind[kind](c, async () => {
      await next();
      // A response fetched from a binding (static files from ASSETS, a Durable Object) has immutable
      // headers: replace it with a copy the headers can be added to.
      c.res = new Response(c.res.body, c.res);
      if (kind === "embeddable") c.res.headers.set("access-control-allow-origin", "*");
    });
  };
}
