// The client key of rate limits: IPv4 as is, IPv6 by its /64, IPv4-mapped IPv6 as IPv4, garbage refused.
import { describe, expect, it } from "vitest";
import { clientKeyOf, requestClientKey } from "../../src/worker/http/client-key.js";

describe("clientKeyOf", () => {
  it("keeps an IPv4 address as dotted decimal", () => {
    expect(clientKeyOf("203.0.113.7")).toBe("203.0.113.7");
    expect(clientKeyOf(" 0.0.0.0 ")).toBe("0.0.0.0");
    expect(clientKeyOf("255.255.255.255")).toBe("255.255.255.255");
  });

  it("reduces a full IPv6 address to its /64", () => {
    expect(clientKeyOf("2001:0db8:0001:0002:0003:0004:0005:0006")).toBe("2001:db8:1:2::/64");
    expect(clientKeyOf("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
  });

  it("gives every address of one /64 the same key, and another /64 another", () => {
    const a = clientKeyOf("2001:db8:aa:bb::1");
    expect(clientKeyOf("2001:db8:aa:bb:1234:5678:9abc:def0")).toBe(a);
    expect(clientKeyOf("2001:db8:aa:bb:0:0:0:1")).toBe(a);
    expect(clientKeyOf("2001:db8:aa:bc::1")).not.toBe(a);
  });

  it("expands compressed forms before taking the prefix", () => {
    expect(clientKeyOf("::1")).toBe("0:0:0:0::/64");
    expect(clientKeyOf("2001:db8::")).toBe("2001:db8:0:0::/64");
    expect(clientKeyOf("2001:db8::5:6:7:8")).toBe("2001:db8:0:0::/64");
    expect(clientKeyOf("fe80::1:2:3:4:5:6")).toBe("fe80:0:1:2::/64");
    expect(clientKeyOf("[2001:db8:1:2::9]")).toBe("2001:db8:1:2::/64");
  });

  it("keys an IPv4-mapped IPv6 address as its IPv4 address", () => {
    expect(clientKeyOf("::ffff:198.51.100.4")).toBe("198.51.100.4");
    expect(clientKeyOf("::ffff:c633:6404")).toBe("198.51.100.4");
    expect(clientKeyOf("0:0:0:0:0:ffff:198.51.100.4")).toBe("198.51.100.4");
  });

  it("refuses what is not an address", () => {
    for (const garbage of [
      "",
      "local",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "01.2.3.4",
      "2001:db8::1::2",
      "2001:db8:1:2:3:4:5:6:7",
      "2001:db8:1:2:3:4:5",
      "12345::1",
      "2001:db8::g",
      "1.2.3.4::1",
      "::ffff:300.1.1.1",
      "fe80::1%eth0",
      "2001:db8:1:2:3:4:5::6:7",
    ])
      expect(clientKeyOf(garbage), garbage).toBeNull();
  });
});

describe("requestClientKey", () => {
  it("reads CF-Connecting-IP; a missing header is no key, an unparseable one a shared key", () => {
    expect(requestClientKey(new Headers({ "cf-connecting-ip": "2001:db8:1:2::3" }))).toBe(
      "2001:db8:1:2::/64",
    );
    expect(requestClientKey(new Headers())).toBeNull();
    expect(requestClientKey(new Headers({ "cf-connecting-ip": "nonsense" }))).toBe("unparseable");
    expect(requestClientKey(new Headers({ "cf-connecting-ip": "also nonsense" }))).toBe("unparseable");
  });
});
