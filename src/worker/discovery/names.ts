// Names the discovery formats give the hub's MCP servers: the official MCP Registry's server names
// (`server.json` `name`, `^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`), reverse-DNS of a domain the publisher verified, as
// the official registry names servers of a verified domain (`com.example/...`). A verified site is
// `<its host name, labels reversed>/webmcp`: `shop.example.com` → `com.example.shop/webmcp`. The hub's own
// registry server is `<the hub's host name reversed>/registry`.
//
// Decisions where the formats are silent:
// - A port (only local hubs and sites have one: deployed sites are https on 443) goes into the name's second
//   part: `127.0.0.1:8788` → `1.0.0.127/webmcp-8788`, `localhost:8787` (the hub) → `localhost/registry-8787`.
// - An IPv4 literal is reversed like a domain (octets as labels); an IPv6 literal `[2001:db8::1]` becomes
//   `ipv6.2001-db8--1` (colons are not allowed in a name; `ipv6.` marks it, and no domain label is `ipv6`
//   followed by hex groups joined by `-` that also parses as an IPv6 address).
// Every name maps back to one host (hostOfServerName), so the API needs no table of names.

/** The second part of a site's server name (before `-<port>`). */
export const SITE_SERVER_PART = "webmcp";
/** The second part of the hub's registry server name. */
export const REGISTRY_SERVER_PART = "registry";

/** The hub's key in the `_meta` objects of the discovery formats (the `webmcp-hub/` prefix all its `_meta` keys use). */
export const HUB_META_KEY = "webmcp-hub/server";

const IPV6_PREFIX = "ipv6.";

/** `host` (a registry key: host name, IPv4 or [IPv6], `:port` when not the default) → its server name. */
export function serverNameOf(host: string, part: string = SITE_SERVER_PART): string {
  const { hostname, port } = splitHost(host);
  const namespace = hostname.startsWith("[")
    ? IPV6_PREFIX + hostname.slice(1, -1).replaceAll(":", "-")
    : hostname.split(".").reverse().join(".");
  return `${namespace}/${part}${port ? `-${port}` : ""}`;
}

/**
 * The host a server name stands for and which server it is (`part`), or null for a name this hub never gives.
 * Case-insensitive, as host names are.
 */
export function hostOfServerName(name: string): { host: string; part: string } | null {
  const match = /^([a-z0-9.-]+)\/([a-z]+)(?:-(\d{1,5}))?$/.exec(name.toLowerCase());
  if (!match) return null;
  const [, namespace, part, port] = match as unknown as [string, string, string, string | undefined];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535 || String(Number(port)) !== port))
    return null;
  let hostname: string;
  if (namespace.startsWith(IPV6_PREFIX)) {
    const v6 = namespace.slice(IPV6_PREFIX.length).replaceAll("-", ":");
    if (!/^[0-9a-f:]+$/.test(v6) || !v6.includes(":")) return null;
    hostname = `[${v6}]`;
  } else {
    const labels = namespace.split(".");
    if (labels.some((l) => l === "")) return null;
    hostname = labels.reverse().join(".");
  }
  return { host: port ? `${hostname}:${port}` : hostname, part };
}

function splitHost(host: string): { hostname: string; port: string } {
  const h = host.toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    return { hostname: h.slice(0, end + 1), port: h.slice(end + 2) };
  }
  const colon = h.lastIndexOf(":");
  return colon < 0 ? { hostname: h, port: "" } : { hostname: h.slice(0, colon), port: h.slice(colon + 1) };
}
