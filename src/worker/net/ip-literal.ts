// IP address literals parsed to numbers, strictly (dotted decimal without leading zeros; IPv6 with `::`
// compression and a trailing dotted IPv4 part; brackets allowed, no zone ids): the one parser behind both the
// registry's address classifier (registry/addresses.ts) and the rate limiter's client key (http/client-key.ts).

/** Four octets of a dotted-decimal IPv4 address (each 0–255, no leading zeros), or undefined. */
export function parseIPv4(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const octets: number[] = [];
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p)) return undefined;
    const n = Number(p);
    if (n > 255) return undefined;
    octets.push(n);
  }
  return octets;
}

/** Eight 16-bit words of an IPv6 address (`::` compression and a trailing dotted IPv4 allowed), or undefined. */
export function parseIPv6(text: string): number[] | undefined {
  let s = text.toLowerCase();
  if (s.startsWith("[") && s.endsWith("]")) s = s.slice(1, -1);
  if (!/^[0-9a-f:.]+$/.test(s)) return undefined;
  let tail: number[] = [];
  const lastColon = s.lastIndexOf(":");
  if (s.includes(".")) {
    const v4 = parseIPv4(s.slice(lastColon + 1));
    if (!v4 || lastColon < 0) return undefined;
    tail = [(v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!];
    // "::1.2.3.4" keeps its "::"; "::ffff:1.2.3.4" and "1:2:3:4:5:6:1.2.3.4" drop the separating colon.
    s = s.slice(0, lastColon + 1);
    if (!s.endsWith("::")) s = s.slice(0, -1);
  }
  const halves = s.split("::");
  if (halves.length > 2) return undefined;
  const words = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    for (const w of half.split(":")) {
      if (!/^[0-9a-f]{1,4}$/.test(w)) return undefined;
      out.push(parseInt(w, 16));
    }
    return out;
  };
  const head = words(halves[0]!);
  const rest = halves.length === 2 ? words(halves[1]!) : [];
  if (!head || !rest) return undefined;
  const given = head.length + rest.length + tail.length;
  if (halves.length === 2) {
    if (given > 7) return undefined;
    return [...head, ...new Array<number>(8 - given).fill(0), ...rest, ...tail];
  }
  return given === 8 ? [...head, ...tail] : undefined;
}
