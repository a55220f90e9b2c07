// The extension's own check of the hub's request to open a page (extension/background/open-check.ts): it opens only an
// http(s) page on the site's own origin, never one with credentials, and refuses a site the user never
// shares without asking, saying how to change that.
import { describe, expect, it } from "vitest";
import { checkOpen, readOpenCancel, readOpenFrame } from "../../extension/background/open-check.js";
import { OpenCancelFrameSchema, OpenFrameSchema } from "../../src/protocol/control-frames.js";

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

describe("readOpenFrame / readOpenCancel (the service worker reads hub frames by hand, without zod)", () => {
  const good = {
    type: "open",
    id: "3f1c",
    url: `${origin}/cart`,
    origin,
    site: "shop.example",
    tool: "add_to_cart",
    title: "Add to cart",
    readOnly: false,
    agent: "Claude",
    client: "Claude Desktop",
    timeoutMs: 60_000,
  };
  const variants: Array<[string, Record<string, unknown>]> = [
    ["valid", good],
    ["no title or client", { ...good, title: undefined, client: undefined }],
    ["an extra member (stripped)", { ...good, extra: 1 }],
    ["wrong type", { ...good, type: "opened" }],
    ["empty id", { ...good, id: "" }],
    ["long id", { ...good, id: "x".repeat(65) }],
    ["ftp url", { ...good, url: "ftp://shop.example/" }],
    ["long url", { ...good, url: `${origin}/${"a".repeat(2048)}` }],
    ["origin with a path", { ...good, origin: `${origin}/` }],
    ["origin not http", { ...good, origin: "file://x" }],
    ["empty site", { ...good, site: "" }],
    ["long tool", { ...good, tool: "t".repeat(129) }],
    ["long title", { ...good, title: "t".repeat(257) }],
    ["readOnly not boolean", { ...good, readOnly: "no" }],
    ["empty agent", { ...good, agent: "" }],
    ["long client", { ...good, client: "c".repeat(65) }],
    ["zero timeout", { ...good, timeoutMs: 0 }],
    ["fractional timeout", { ...good, timeoutMs: 1.5 }],
    ["timeout over the max", { ...good, timeoutMs: 300_001 }],
    ["timeout as text", { ...good, timeoutMs: "60000" }],
  ];

  it("accepts exactly what OpenFrameSchema accepts, and gives what it gives", () => {
    for (const [what, frame] of variants) {
      const input = JSON.parse(JSON.stringify(frame)) as Record<string, unknown>;
      const parsed = OpenFrameSchema.safeParse(input);
      expect(readOpenFrame(input), what).toEqual(parsed.success ? parsed.data : null);
    }
  });

  it("reads open-cancel as OpenCancelFrameSchema does", () => {
    for (const frame of [
      { type: "open-cancel", id: "a", reason: "gone" },
      { type: "open-cancel", id: "", reason: "gone" },
      { type: "open-cancel", id: "a", reason: "r".repeat(513) },
      { type: "open-cancel", id: "a" },
      { type: "open", id: "a", reason: "gone" },
    ]) {
      const parsed = OpenCancelFrameSchema.safeParse(frame);
      const read = readOpenCancel(frame);
      expect(read, JSON.stringify(frame).slice(0, 80)).toEqual(
        parsed.success ? { id: parsed.data.id, reason: parsed.data.reason } : null,
      );
    }
  });
});
