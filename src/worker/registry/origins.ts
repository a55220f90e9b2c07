// Parses a site's origin and decides whether it points somewhere verification may not fetch.
import { HubError } from "../http/errors.js";

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
  if (url.protocol !== "https:" && !(allowPrivate && url.protocol === "http:")) {
    throw new HubError(
      "invalid_origin",
      "The origin must use https:// (plain http is only allowed in local development).",
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
  const hostname = url.hostname.replace(/^\[|\]$/g, "");
  if (!allowPrivate && isPrivateHostname(hostname)) {
    throw new HubError(
      "private_origin",
      `${url.host} is a private, loopback or link-local address; only public sites can be registered.`,
    );
  }
  if (!allowPrivate && !hostname.includes(".") && !hostname.includes(":")) {
    throw new HubError("invalid_origin", `${hostname} is not a public domain name.`);
  }
  return { origin: url.origin, host: url.host, hostname };
}

/** Normalizes a `:host` path parameter the way parseSiteOrigin computes `host`. */
export function normalizeHost(host: string): string {
  return host.trim().toLowerCase();
}

/** Loopback, private (RFC 1918, ULA), link-local, CGNAT, unspecified, and names that mean "this machine". */
export function isPrivateHostname(hostname: string): boolean {
  const h = hostname.toLowerCase().replace(/\.$/, "");
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal"))
    return true;
  const v4 = parseIPv4(h);
  if (v4) return isPrivateIPv4(v4);
  if (h.includes(":")) return isPrivateIPv6(h);
  return false;
}

function parseIPv4(h: string): number[] | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(h);
  if (!m) return undefined;
  const parts = m.slice(1).map(Number);
  return parts.every((p) => p <= 255) ? parts : undefined;
}

function isPrivateIPv4([a, b]: number[]): boolean {
  if (a === undefined || b === undefined) return true;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function isPrivateIPv6(h: string): boolean {
  if (h === "::" || h === "::1") return true;
  // IPv4-mapped (::ffff:a.b.c.d, which URL parsing turns into ::ffff:xxxx:yyyy) and IPv4-compatible forms.
  const mapped = /^::(ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(h);
  if (mapped) {
    const hi = parseInt(mapped[2]!, 16);
    const lo = parseInt(mapped[3]!, 16);
    return isPrivateIPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  }
  const dotted = /^::(ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (dotted) return isPrivateIPv4(parseIPv4(dotted[2]!) ?? [0, 0]);
  const first = parseInt(h.split(":")[0] || "0", 16);
  return (first & 0xfe00) === 0xfc00 || (first & 0xffc0) === 0xfe80 || (first & 0xff00) === 0xff00;
}
