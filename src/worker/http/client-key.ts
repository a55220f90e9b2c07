// Who a request comes from, for rate limits: its CF-Connecting-IP, with an IPv6 address reduced to its /64
// (one subscriber usually holds a whole /64, so counting single IPv6 addresses counts nothing).

/**
 * The rate-limit key of a client address: an IPv4 address as dotted decimal, an IPv6 address as its /64
 * prefix (`2001:db8:1:2::/64`), an IPv4-mapped IPv6 address as the IPv4 address. Null for anything that is
 * not an IP address.
 */
export function clientKeyOf(address: string): string | null {
  const text = address.trim();
  const v4 = parseIpv4(text);
  if (v4) return v4.join(".");
  const v6 = parseIpv6(text.replace(/^\[(.*)\]$/, "$1"));
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

function parseIpv4(text: string): number[] | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  const bytes = parts.map((p) => (/^(0|[1-9]\d{0,2})$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b <= 255) ? bytes : null;
}

/** Eight 16-bit groups, or null. Accepts `::` compression and a trailing dotted IPv4 part; no zone ids. */
function parseIpv6(text: string): number[] | null {
  if (!/^[0-9a-fA-F:.]+$/.test(text)) return null;
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const groups = (part: string): number[] | null => {
    if (part === "") return [];
    const out: number[] = [];
    const pieces = part.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece);
        if (!v4) return null;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) out.push(parseInt(piece, 16));
      else return null;
    }
    return out;
  };
  // A dotted IPv4 part may only end the address.
  if (halves.length === 2 && halves[0]!.includes(".")) return null;
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  return missing >= 1 ? [...head, ...new Array<number>(missing).fill(0), ...tail] : null;
}
