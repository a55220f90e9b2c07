// Who a request comes from, for rate limits: its CF-Connecting-IP, with an IPv6 address reduced to its /64
// (one subscriber usually holds a whole /64, so counting single IPv6 addresses counts nothing).
import { parseIPv4, parseIPv6 } from "../net/ip-literal.js";

/**
 * The rate-limit key of a client address: an IPv4 address as dotted decimal, an IPv6 address as its /64
 * prefix (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address as the IPv4 address. Null for anything that is
 * not an IP address.
 */
export function clientKeyOf(address: string): string | null {
  const text = address.trim();
  const v4 = parseIPv4(text);
  if (v4) return v4.join(".");
  const v6 = parseIPv6(text);
  if (!v6) return null;
  // ::ffff:a.b.c.d is an IPv4 client seen through a dual-stack socket.
  if (v6.slice(0, 5).every((h) => h === 0) && v6[5] === 0xffff)
    return [v6[6]! >> 8, v6[6]! & 0xff, v6[7]! >> 8, v6[7]! & 0xff].join(".");
  return `${v6
    .slice(0, 4)
    .map((h) => h.toString(16))
    .join(":")}::/64`;
}

/**
 * The rate-limit key of a request, from the CF-Connecting-IP header Cloudflare sets on every request from the
 * internet (overwriting any value the client sent; `wrangler dev` sets it from the socket). Null when absent:
 * the request did not come through the edge (the test pool's SELF, a service binding). A header that is not
 * an address cannot come from the edge either; it gets one shared key, so it is limited, not waved through.
 */
export function requestClientKey(headers: Headers): string | null {
  const ip = headers.get("cf-connecting-ip");
  if (ip === null) return null;
  return clientKeyOf(ip) ?? "unparseable";
}
