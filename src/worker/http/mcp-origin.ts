// Origin and Host validation for the channel MCP endpoint (MCP transport security; DNS rebinding), the same
// for both protocol eras: a foreign Origin gets 403 before anything reaches the channel.
// Deployed: a browser Origin must be the hub's own origin or listed in ALLOWED_ORIGINS. In local mode
// (ALLOW_PRIVATE_ORIGINS), the server is a localhost server: the Host must be loopback, and so must Origin.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "./context.js";
import { HubError } from "./errors.js";

export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/^\[|\]$/g, "");
  return h === "localhost" || h.endsWith(".localhost") || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export function originAllowed(
  origin: string,
  /** The hub's origin (c.var.hub). */
  hub: string,
  localMode: boolean,
  extra: readonly string[],
): boolean {
  if (extra.includes(origin)) return true;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  if (localMode) return isLoopbackHost(parsed.hostname);
  return parsed.origin === hub;
}

export function mcpOriginGuard(): MiddlewareHandler<AppEnv> {
  return async function mcpOriginGuardMiddleware(c, next) {
    const local = c.var.settings.ALLOW_PRIVATE_ORIGINS;
    const extra = c.var.settings.ALLOWED_ORIGINS;
    const host = (c.req.header("host") ?? new URL(c.var.hub).host).replace(/:\d+$/, "");
    if (local && !isLoopbackHost(host)) {
      throw new HubError(
        "forbidden",
        `Host ${host} is not allowed: this local server answers only loopback hosts (DNS rebinding protection).`,
      );
    }
    const origin = c.req.header("origin");
    if (origin && !originAllowed(origin, c.var.hub, local, extra)) {
      throw new HubError("forbidden", `Origin ${origin} is not allowed to use this MCP endpoint.`);
    }
    const cors: Record<string, string> = origin
      ? {
          "access-control-allow-origin": origin,
          "access-control-expose-headers": "mcp-session-id, mcp-protocol-version, www-authenticate",
          vary: "origin",
        }
      : {};
    if (c.req.method === "OPTIONS") {
      return c.body(null, 204, {
        ...cors,
        "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
        "access-control-allow-headers":
          "authorization, content-type, mcp-protocol-version, mcp-session-id, mcp-method, mcp-name, last-event-id",
        "access-control-max-age": "600",
      });
    }
    await next();
    for (const [name, value] of Object.entries(cors)) c.res.headers.set(name, value);
  };
}
