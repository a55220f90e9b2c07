// The extension's own check of the hub's request to open a page (extension/open-check.ts): it opens only an
// http(s) page on the site's own origin, never one with credentials, and refuses a site the user never
// shares without asking, saying how to change that.
import { describe, expect, it } from "vitest";
import { checkOpen } from "../../extension/open-check.js";

const origin = "https://shop.example";

describe("checkOpen", () => {
  it("accepts an http(s) page on the origin, for a site undecided or always shared", () => {
    expect(checkOpen({ url: `${origin}/cart?x=1#top`, origin }, {})).toEqual({
      ok: true,
      url: `${origin}/cart?x=1#top`,
      origin,
    });
    expect(checkOpen({ url: "http://127.0.0.1:8080/", origin: "http://127.0.0.1:8080" }, {})).toMatchObject({
      ok: true,
    });
    expect(checkOpen({ url: `${origin}/`, origin }, { [origin]: "always" })).toMatchObject({ ok: true });
  });

  it("refuses as invalid a page off the origin, not http(s), unparsable, or with credentials", () => {
    for (const url of [
      "https://evil.example/",
      "https://shop.example.evil.example/",
      "http://shop.example/", // another scheme is another origin
      "https://shop.example:8443/",
      "javascript:alert(1)",
      "file:///etc/passwd",
      "not a url",
      "https://user:pass@shop.example/",
    ]) {
      const checked = checkOpen({ url, origin }, {});
      expect(checked, url).toMatchObject({ ok: false, reason: "invalid" });
    }
  });

  it("refuses a site the user never shares as blocked, saying where to change it", () => {
    const checked = checkOpen({ url: `${origin}/`, origin }, { [origin]: "never" });
    expect(checked).toMatchObject({ ok: false, reason: "blocked" });
    expect(!checked.ok && checked.message).toMatch(/never shares https:\/\/shop\.example.*popup/);
    // Another site's decision does not count.
    expect(checkOpen({ url: `${origin}/`, origin }, { "https://other.example": "never" })).toMatchObject({
      ok: true,
    });
  });
});
