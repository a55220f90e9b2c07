// Parses a site's origin and decides whether the registry may fetch from it (the SSRF policy, in one place).
//
// With ALLOW_PRIVATE_ORIGINS off (every deployment), an origin must be https on the default port, and its
// host must be a public domain name or a globally reachable IP literal (see addresses.ts for the ranges).
// Only port 443 is allowed so the hub cannot be used to probe other services of a host.
//
// A domain name can still resolve to a private address (`127.0.0.1.nip.io`, DNS rebinding). On Cloudflare a
// Worker's fetch() to a name is resolved by Cloudflare and connected from Cloudflare's edge, from which
// private, loopback and link-local addresses of anyone's network are not reachable (reaching a private
// network takes an explicit Tunnel/VPC binding, which this Worker does not have). Resolving the name over
// DNS-over-HTTPS first and checking the answers would not add safety: fetch() resolves again on its own
// (a rebinding name answers differently the second time) and cannot be pinned to the checked address, so
// it would cost a round trip and a dependency for a check that an attacker controls. Under a plain
// `wrangler dev` with the setting off, fetch() runs from the developer's machine, where such a name does
// reach loopback; that server is the developer's own, and `npm start` turns private origins on anyway.
import { HubError } from "../http/errors.js";
import { specialRangeOf } from "./addresses.js";

export interface SiteOrigin {
  /** `https://example.com` or, where private origins are allowed, `http://127.0.0.1:8788`. */
  origin: string;
  /** The registry key: the URL host, port included when not the default. */
  host: string;
  /** The host name without port or IPv6 brackets (used for DNS). */
  hostname: string;
}

export function parseSiteOrigin(input: string, allowPrivate: boolean): SiteOrigin {
  let url: URL;
  try {
    url = new URL(input.trim());
  } catch {
    throw new HubError(
      "invalid_origin",
      `"${input}" is not a URL. Give the site's origin, like https://example.com.`,
    );
  }
  if (url.username || url.password) {
    throw new HubError("invalid_origin", "The origin must not contain a user name or password.");
  }
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
    throw new HubError(
      "invalid_origin",
      `Give only the origin (scheme, host and port), like ${url.origin}, without a path, query or fragment.`,
    );
  }
  // `example.com.` is `example.com`; one listing per site.
  if (url.hostname.endsWith(".") && url.hostname.length > 1) url.hostname = url.hostname.slice(0, -1);
  assertFetchable(url, allowPrivate);
  const hostname = bareHostname(url);
  if (!allowPrivate && !hostname.includes(".") && !hostname.includes(":")) {
    throw new HubError("invalid_origin", `${hostname} is not a public domain name.`);
  }
  return { origin: url.origin, host: url.host, hostname };
}

/**
 * Throws unless the registry may fetch `url`: where private origins are not allowed, https on the default
 * port to a public host; otherwise any http(s) URL. Checked at registration and again before every fetch.
 */
export function assertFetchable(url: URL, allowPrivate: boolean): void {
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new HubError(
      "invalid_origin",
      "The origin must use https:// (plain http is only allowed in local development).",
    );
  }
  if (allowPrivate) return;
  if (url.port !== "") {
    throw new HubError(
      "invalid_origin",
      `${url.host} names port ${url.port}; sites are fetched on the default https port (443) only. Give the origin without a port, like https://${bareHostname(url)}.`,
    );
  }
  const reason = privateHostReason(bareHostname(url));
  if (reason) {
    throw new HubError(
      "private_origin",
      `${url.host} is ${reason}; only public sites (a public domain name or a globally reachable address) can be registered and fetched.`,
    );
  }
}

/** Normalizes a `:host` path parameter the way parseSiteOrigin computes `host`. */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase();
}

/** True for names that mean "this machine" or a private network, and for non-public IP addresses. */
export function isPrivateHostname(hostname: string): boolean {
  return privateHostReason(hostname) !== undefined;
}

/** Why `hostname` is not a public host ("in the loopback address range (127.0.0.0/8)"), or undefined. */
export function privateHostReason(hostname: string): string | undefined {
  const h = canonicalHostname(hostname);
  if (h === undefined) return "not a valid host name";
  const name = h.replace(/\.$/, "");
  if (
    name === "localhost" ||
    [".localhost", ".local", ".internal", ".home.arpa"].some((suffix) => name.endsWith(suffix)) ||
    name === "home.arpa"
  )
    return "a name for this machine or a private network";
  const range = specialRangeOf(name);
  return range ? `in the ${range.name} address range (${range.cidr})` : undefined;
}

/**
 * The host as the URL parser (and so fetch) understands it, without IPv6 brackets: every IPv4 spelling
 * (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, full-width digits) becomes dotted decimal and IPv6 becomes
 * its compressed form, so the range check sees what fetch would connect to. Undefined when unparseable.
 */
function canonicalHostname(hostname: string): string | undefined {
  const raw = hostname.trim();
  const bracketed = raw.includes(":") && !raw.startsWith("[") ? `[${raw}]` : raw;
  try {
    return bareHostname(new URL(`http://${bracketed}/`));
  } catch {
    return undefined;
  }
}

function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}
