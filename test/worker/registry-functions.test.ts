// The registry's plain functions, called directly: origin rules, schema checks, search text, fetch guards.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { checkObjectSchema } from "../../src/protocol/index.js";
import { createApp } from "../../src/worker/app.js";
import { HubError } from "../../src/worker/http/errors.js";
import { nameWords } from "../../src/worker/registry/terms.js";
import { isPrivateHostname, parseSiteOrigin, privateHostReason } from "../../src/worker/registry/origins.js";
import { parseIPv4, parseIPv6 } from "../../src/worker/net/ip-literal.js";
import { specialRangeOf } from "../../src/worker/registry/addresses.js";
import { fetchSiteText } from "../../src/worker/registry/outbound.js";
import { ftsQuery } from "../../src/worker/registry/search.js";
import { txtValue } from "../../src/worker/registry/verify.js";
import { fakeOrigin } from "./helpers.js";

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof HubError ? e.code : "other";
  }
  return undefined;
}

describe("site origins", () => {
  it("normalizes a public https origin to its host key", () => {
    expect(parseSiteOrigin("https://Shop.Example.com/", false)).toEqual({
      origin: "https://shop.example.com",
      host: "shop.example.com",
      hostname: "shop.example.com",
    });
    expect(parseSiteOrigin("https://shop.example.com:443", false).host).toBe("shop.example.com");
    expect(parseSiteOrigin("https://shop.example.com.", false).host).toBe("shop.example.com");
    // Other ports only where private origins are allowed (local development).
    expect(codeOf(() => parseSiteOrigin("https://shop.example.com:8443", false))).toBe("invalid_origin");
    expect(parseSiteOrigin("https://shop.example.com:8443", true).host).toBe("shop.example.com:8443");
  });

  it.each([
    "https://127.0.0.1",
    "https://2130706433",
    "https://0x7f.1",
    "https://10.1.2.3",
    "https://172.20.0.1",
    "https://192.168.1.1",
    "https://169.254.169.254",
    "https://100.64.0.1",
    "https://0.0.0.0",
    "https://[::1]",
    "https://[::ffff:127.0.0.1]",
    "https://[fd00::1]",
    "https://[fe80::1]",
    "https://localhost",
    "https://printer.local",
    "https://db.internal",
    "https://app.localhost",
    "https://printer.home.arpa",
    "https://ｌｏｃａｌｈｏｓｔ",
    // Every IPv4 spelling the URL parser accepts ends up as the address fetch would connect to.
    "https://0177.0.0.1",
    "https://017700000001",
    "https://0x7f000001",
    "https://127.1",
    "https://0",
    "https://１２７.０.０.１",
    "https://0.0.0.0x7f",
    // IPv6 forms that embed or translate to IPv4, and other non-global IPv6.
    "https://[64:ff9b::7f00:1]",
    "https://[64:ff9b::127.0.0.1]",
    "https://[64:ff9b:1::a9fe:a9fe]",
    "https://[2002:7f00:1::]",
    "https://[2001::1]",
    "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]",
    "https://[::7f00:1]",
    "https://[::ffff:0:7f00:1]",
    "https://[0:0:0:0:0:ffff:7f00:1]",
    "https://[100::1]",
    "https://[2001:10::1]",
    "https://[2001:20::1]",
    "https://[2001:2::1]",
    "https://[2001:db8::1]",
    "https://[3fff::1]",
    "https://[fec0::1]",
    "https://[ff02::1]",
    "https://[4000::1]",
    "https://[::]",
    // Special-purpose IPv4.
    "https://198.18.0.1",
    "https://192.0.2.1",
    "https://192.0.0.9",
    "https://224.0.0.1",
    "https://240.0.0.1",
    "https://255.255.255.255",
  ])("refuses %s unless private origins are allowed", (origin) => {
    expect(codeOf(() => parseSiteOrigin(origin, false))).toBe("private_origin");
    expect(codeOf(() => parseSiteOrigin(origin, true))).toBeUndefined();
  });

  it("refuses plain http unless private origins are allowed, and single-label names", () => {
    expect(codeOf(() => parseSiteOrigin("http://example.com", false))).toBe("invalid_origin");
    expect(codeOf(() => parseSiteOrigin("http://127.0.0.1:8788", true))).toBeUndefined();
    expect(codeOf(() => parseSiteOrigin("https://intranet", false))).toBe("invalid_origin");
  });

  it("does not mistake public addresses for private ones", () => {
    for (const h of [
      "8.8.8.8",
      "172.32.0.1",
      "example.com",
      "2606:4700::1111",
      "[2606:4700:4700::1111]",
      "2001:4860:4860::8888",
      "localhost.example.com",
      "local.example.com",
    ]) {
      expect(isPrivateHostname(h)).toBe(false);
    }
  });

  it("classifies raw host spellings the way fetch would read them", () => {
    for (const h of [
      "0x7f.1",
      "2130706433",
      "0177.0.0.1",
      "127.1",
      "::ffff:127.0.0.1",
      "[::1]",
      "LOCALHOST.",
    ]) {
      expect(isPrivateHostname(h)).toBe(true);
    }
    expect(privateHostReason("64:ff9b::7f00:1")).toContain("NAT64");
    expect(privateHostReason("2002:7f00:1::")).toContain("6to4");
    expect(privateHostReason("2001::1")).toContain("Teredo");
  });

  it("refuses private origins at the route when the deployment does not allow them", async () => {
    const app = createApp();
    const res = await app.fetch(
      new Request("http://hub.test/api/sites", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ origin: "https://169.254.169.254" }),
      }),
      { ...env, ALLOW_PRIVATE_ORIGINS: "false" },
    );
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe("private_origin");
    const count = await env.DB.prepare(
      "SELECT count(*) AS n FROM sites WHERE host = '169.254.169.254'",
    ).first<{ n: number }>();
    expect(count?.n).toBe(0);
  });
});

describe("special-purpose address ranges", () => {
  // Each block: its first and last address (refused, with this name) and its public neighbours (allowed).
  const blocks: Array<[name: string, inside: string[], outside: string[]]> = [
    ['"this network"', ["0.0.0.0", "0.255.255.255"], ["1.0.0.0"]],
    ["private-use", ["10.0.0.0", "10.255.255.255"], ["9.255.255.255", "11.0.0.0"]],
    ["carrier-grade NAT", ["100.64.0.0", "100.127.255.255"], ["100.63.255.255", "100.128.0.0"]],
    ["loopback", ["127.0.0.0", "127.255.255.255"], ["126.255.255.255", "128.0.0.0"]],
    ["link-local", ["169.254.0.0", "169.254.255.255"], ["169.253.255.255", "169.255.0.0"]],
    ["private-use", ["172.16.0.0", "172.31.255.255"], ["172.15.255.255", "172.32.0.0"]],
    ["IETF protocol assignment", ["192.0.0.0", "192.0.0.255"], ["191.255.255.255", "192.0.1.0"]],
    ["TEST-NET-1", ["192.0.2.0", "192.0.2.255"], ["192.0.3.0"]],
    ["AS112", ["192.31.196.0", "192.31.196.255"], ["192.31.195.255", "192.31.197.0"]],
    ["AMT", ["192.52.193.0", "192.52.193.255"], ["192.52.192.255", "192.52.194.0"]],
    ["6to4 relay", ["192.88.99.0", "192.88.99.255"], ["192.88.98.255", "192.88.100.0"]],
    ["private-use", ["192.168.0.0", "192.168.255.255"], ["192.167.255.255", "192.169.0.0"]],
    ["AS112", ["192.175.48.0", "192.175.48.255"], ["192.175.47.255", "192.175.49.0"]],
    ["benchmarking", ["198.18.0.0", "198.19.255.255"], ["198.17.255.255", "198.20.0.0"]],
    ["TEST-NET-2", ["198.51.100.0", "198.51.100.255"], ["198.51.99.255", "198.51.101.0"]],
    ["TEST-NET-3", ["203.0.113.0", "203.0.113.255"], ["203.0.112.255", "203.0.114.0"]],
    ["multicast", ["224.0.0.0", "239.255.255.255"], ["223.255.255.255"]],
    ["reserved", ["240.0.0.0", "255.255.255.254"], []],
    ["broadcast", ["255.255.255.255"], []],
    ["unspecified", ["::"], []],
    ["loopback", ["::1"], []],
    ["IPv4-mapped", ["::ffff:0.0.0.0", "::ffff:255.255.255.255", "::ffff:8.8.8.8"], []],
    ["IPv4-translated", ["::ffff:0:0.0.0.0", "::ffff:0:ffff:ffff"], []],
    ["IPv4-compatible", ["::2", "::8.8.8.8", "::ffff"], []],
    ["NAT64", ["64:ff9b::", "64:ff9b::8.8.8.8", "64:ff9b::ffff:ffff"], []],
    ["local-use NAT64", ["64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff"], []],
    ["discard-only", ["100::", "100::ffff:ffff:ffff:ffff"], []],
    ["dummy", ["100:0:0:1::", "100::1:ffff:ffff:ffff:ffff"], []],
    ["Teredo", ["2001::", "2001:0:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    ["benchmarking", ["2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff"], []],
    ["ORCHID", ["2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    ["ORCHIDv2", ["2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    ["IETF protocol assignment", ["2001:1::1", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff"], ["2001:200::"]],
    [
      "documentation",
      ["2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff"],
      ["2001:db7:ffff::", "2001:db9::"],
    ],
    ["6to4", ["2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], ["2001:ffff::1", "2003::"]],
    [
      "AS112",
      ["2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff"],
      ["2620:4f:7fff::", "2620:4f:8001::"],
    ],
    ["documentation", ["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff"], ["3ffe:ffff::", "3fff:1000::"]],
    ["segment routing", ["5f00::", "5f00:ffff::"], []],
    ["unique-local", ["fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    ["link-local", ["fe80::", "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    ["site-local", ["fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    ["multicast", ["ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff"], []],
    [
      "not global unicast",
      ["1fff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", "4000::", "8000::"],
      ["2000::", "3ffe::1"],
    ],
  ];

  it.each(blocks)(
    "%s: refuses its first and last address, allows its neighbours",
    (name, inside, outside) => {
      for (const a of inside) expect(specialRangeOf(a)?.name, a).toContain(name);
      for (const a of outside) expect(specialRangeOf(a), a).toBeUndefined();
    },
  );

  it("reads every IPv6 spelling of one address alike, and rejects malformed ones", () => {
    const loop = [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1];
    for (const t of ["::ffff:127.0.0.1", "::FFFF:7F00:1", "0:0:0:0:0:ffff:7f00:0001", "[::ffff:7f00:1]"]) {
      expect(parseIPv6(t), t).toEqual(loop);
    }
    expect(parseIPv6("1:2:3:4:5:6:1.2.3.4")).toEqual([1, 2, 3, 4, 5, 6, 0x102, 0x304]);
    expect(parseIPv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIPv6("1::")).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    for (const bad of [
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8:9",
      "1::2::3",
      ":1::",
      "1:::2",
      "12345::",
      "::g",
      "::1.2.3",
      "::1.2.3.256",
      "1:2:3:4:5:6:7:1.2.3.4",
      "1:2:3:4:5:6:7:8::",
      "fe80::1%eth0",
      "",
    ]) {
      expect(parseIPv6(bad), bad).toBeUndefined();
    }
    expect(parseIPv4("1.2.3.4")).toEqual([1, 2, 3, 4]);
    for (const bad of ["1.2.3", "01.2.3.4", "1.2.3.256", "0x1.2.3.4", "1.2.3.4.5", "1..3.4"]) {
      expect(parseIPv4(bad), bad).toBeUndefined();
    }
  });
});

describe("outbound fetches", () => {
  it("never contacts a private address when private origins are not allowed", async () => {
    const calls: string[] = [];
    const fetcher = (async (url: string) => {
      calls.push(url);
      return new Response("x");
    }) as unknown as typeof fetch;
    for (const [url, code] of [
      ["https://127.0.0.1/.well-known/webmcp-hub-verify", "private_origin"],
      ["http://example.com/x", "invalid_origin"],
      ["https://[::1]/x", "private_origin"],
      ["https://example.com:8080/x", "invalid_origin"],
    ]) {
      await expect(
        fetchSiteText(url!, { maxBytes: 100, timeoutMs: 1000, allowPrivate: false, fetcher }),
      ).rejects.toMatchObject({ code });
    }
    expect(calls).toEqual([]);
  });

  it("gives up on a slow site after the timeout", async () => {
    const o = await fakeOrigin({ "/slow": { body: "late", delayMs: 2000 } });
    await expect(
      fetchSiteText(`${o.origin}/slow`, { maxBytes: 100, timeoutMs: 200, allowPrivate: true }),
    ).rejects.toMatchObject({
      code: "upstream_failed",
      message: expect.stringContaining("did not answer"),
    });
  });

  it("stops reading a body past the cap even without a content-length", async () => {
    const o = await fakeOrigin({ "/big": { body: "x".repeat(5000) } });
    await expect(
      fetchSiteText(`${o.origin}/big`, { maxBytes: 1000, timeoutMs: 2000, allowPrivate: true }),
    ).rejects.toMatchObject({ code: "upstream_failed" });
  });
});

describe("tool schemas", () => {
  it("accepts ordinary object schemas, including nested and boolean subschemas", () => {
    expect(
      checkObjectSchema({
        type: "object",
        properties: { a: { type: "array", items: { type: "string", enum: ["x"] } }, b: true },
        required: ["a"],
      }),
    ).toEqual([]);
  });

  it("names the exact place of each problem", () => {
    expect(checkObjectSchema({ type: "object", properties: { n: { minimum: "3" } } })[0]?.path).toBe(
      "/properties/n/minimum",
    );
    expect(checkObjectSchema({ type: "array" })).toEqual([expect.objectContaining({ path: "/type" })]);
    expect(checkObjectSchema([])).toEqual([expect.objectContaining({ path: "" })]);
    expect(checkObjectSchema({ type: "object", patternProperties: { "(": {} } })[0]?.path).toBe(
      "/patternProperties/(",
    );
  });
});

describe("search text", () => {
  it("splits names into words", () => {
    expect(nameWords("buyProduct")).toBe("buy product");
    expect(nameWords("fs.search_by_time")).toBe("fs search by time");
    expect(nameWords("getHTMLPage")).toBe("get html page");
  });

  it("quotes every word as a prefix term, so FTS syntax is inert", () => {
    expect(ftsQuery('add stamp" OR x*')).toBe('"add"* "stamp"* "or"* "x"*');
    expect(ftsQuery("  ** ")).toBeUndefined();
    expect(ftsQuery("Größe")).toBe('"größe"*');
  });

  it("joins a TXT record's character-strings", () => {
    expect(txtValue('"webmcp-hub-verify=abc" "def"')).toBe("webmcp-hub-verify=abcdef");
    expect(txtValue('"a\\"b"')).toBe('a"b');
  });
});
