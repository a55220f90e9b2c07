// Classifies IP address literals against the IANA special-purpose registries, so the registry fetches only
// addresses that are globally reachable unicast: the one place that knows which ranges are not.
//
// IPv4: every block of the IANA IPv4 Special-Purpose Address Registry, plus multicast and the reserved
// 240/4 (broadcast included). IPv6: only global unicast (2000::/3) can pass at all, so loopback, the
// unspecified address, IPv4-mapped/-compatible/-translated forms, NAT64 (64:ff9b::/96, 64:ff9b:1::/48),
// discard-only, unique-local, link-local, site-local and multicast are refused by that rule; inside 2000::/3
// the special-purpose blocks (IETF protocol assignments incl. Teredo and ORCHID, documentation, 6to4, AS112)
// are refused by name. Addresses that embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are refused
// whatever they embed: no public site is registered by such a literal, and decoding them would only
// reopen the doors they are used to sneak through.

import { parseIPv4, parseIPv6 } from "../net/ip-literal.js";

export interface SpecialRange {
  /** The block in CIDR notation, e.g. `64:ff9b::/96`. */
  cidr: string;
  /** What the block is, for messages: "NAT64 (IPv4/IPv6 translation)". */
  name: string;
}

interface Block extends SpecialRange {
  words: number[];
  bits: number;
}

function block(cidr: string, name: string, parse: (t: string) => number[] | undefined, width: number): Block {
  const [addr, len] = cidr.split("/");
  const parsed = parse(addr!);
  if (!parsed) throw new Error(`bad range ${cidr}`);
  // IPv4 octets become two 16-bit words so both families match the same way.
  const words = width === 8 ? [(parsed[0]! << 8) | parsed[1]!, (parsed[2]! << 8) | parsed[3]!] : parsed;
  return { cidr, name, words, bits: Number(len) };
}

const v4 = (cidr: string, name: string) => block(cidr, name, parseIPv4, 8);
const v6 = (cidr: string, name: string) => block(cidr, name, parseIPv6, 16);

/** IANA IPv4 Special-Purpose Address Registry, multicast and reserved space; most specific first. */
const IPV4_BLOCKS: Block[] = [
  v4("0.0.0.0/8", '"this network"'),
  v4("10.0.0.0/8", "private-use"),
  v4("100.64.0.0/10", "shared address space (carrier-grade NAT)"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"),
  v4("172.16.0.0/12", "private-use"),
  v4("192.0.0.0/24", "IETF protocol assignment"),
  v4("192.0.2.0/24", "documentation (TEST-NET-1)"),
  v4("192.31.196.0/24", "AS112 DNS"),
  v4("192.52.193.0/24", "AMT"),
  v4("192.88.99.0/24", "6to4 relay anycast"),
  v4("192.168.0.0/16", "private-use"),
  v4("192.175.48.0/24", "AS112 DNS"),
  v4("198.18.0.0/15", "benchmarking"),
  v4("198.51.100.0/24", "documentation (TEST-NET-2)"),
  v4("203.0.113.0/24", "documentation (TEST-NET-3)"),
  v4("224.0.0.0/4", "multicast"),
  v4("255.255.255.255/32", "limited broadcast"),
  v4("240.0.0.0/4", "reserved"),
];

/** IANA IPv6 Special-Purpose Address Registry and the IPv6 address space outside global unicast. */
const IPV6_BLOCKS: Block[] = [
  v6("::/128", "unspecified"),
  v6("::1/128", "loopback"),
  v6("::ffff:0:0/96", "IPv4-mapped"),
  v6("::ffff:0:0:0/96", "IPv4-translated"),
  v6("::/96", "IPv4-compatible (deprecated)"),
  v6("64:ff9b::/96", "NAT64 (IPv4/IPv6 translation)"),
  v6("64:ff9b:1::/48", "local-use NAT64 (IPv4/IPv6 translation)"),
  v6("100::/64", "discard-only"),
  v6("100:0:0:1::/64", "dummy prefix"),
  v6("5f00::/16", "segment routing (SRv6) SIDs"),
  v6("fc00::/7", "unique-local"),
  v6("fe80::/10", "link-local"),
  v6("fec0::/10", "site-local (deprecated)"),
  v6("ff00::/8", "multicast"),
  v6("2001::/32", "Teredo"),
  v6("2001:2::/48", "benchmarking"),
  v6("2001:10::/28", "ORCHID (deprecated)"),
  v6("2001:20::/28", "ORCHIDv2"),
  v6("2001::/23", "IETF protocol assignment"),
  v6("2001:db8::/32", "documentation"),
  v6("2002::/16", "6to4"),
  v6("2620:4f:8000::/48", "AS112 DNS"),
  v6("3fff::/20", "documentation"),
];

const GLOBAL_UNICAST = v6("2000::/3", "global unicast");
const OUTSIDE_GLOBAL_UNICAST: SpecialRange = {
  cidr: "outside 2000::/3",
  name: "reserved (not global unicast)",
};

function within(words: number[], b: Block): boolean {
  let left = b.bits;
  for (let i = 0; left > 0; i++, left -= 16) {
    const take = Math.min(16, left);
    const mask = (0xffff << (16 - take)) & 0xffff;
    if ((words[i]! & mask) !== (b.words[i]! & mask)) return false;
  }
  return true;
}

/**
 * The special-purpose range an address literal is in, or undefined for a globally reachable unicast
 * address. `text` is dotted-decimal IPv4 or IPv6 (brackets allowed); anything else is not an address and
 * answers undefined — callers canonicalize other IPv4 spellings (`0x7f.1`, `2130706433`) first.
 */
export function specialRangeOf(text: string): SpecialRange | undefined {
  const four = parseIPv4(text);
  if (four) {
    const words = [(four[0]! << 8) | four[1]!, (four[2]! << 8) | four[3]!];
    return IPV4_BLOCKS.find((b) => within(words, b));
  }
  const six = parseIPv6(text);
  if (!six) return undefined;
  const named = IPV6_BLOCKS.find((b) => within(six, b));
  if (named) return named;
  return within(six, GLOBAL_UNICAST) ? undefined : OUTSIDE_GLOBAL_UNICAST;
}
