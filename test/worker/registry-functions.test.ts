// The registry's plain functions, called directly: origin rules, schema checks, search text, fetch guards.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { checkObjectSchema } from "../../src/protocol/index.js";
import { createApp } from "../../src/worker/app.js";
import { HubError } from "../../src/worker/http/errors.js";
import { nameWords } from "../../src/worker/registry/terms.js";
import { isPrivateHostname, parseSiteOrigin } from "../../src/worker/registry/origins.js";
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
    expect(parseSiteOrigin("https://shop.example.com:8443", false).host).toBe("shop.example.com:8443");
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
    for (const h of ["8.8.8.8", "172.32.0.1", "example.com", "2606:4700::1111", "localhost.example.com"]) {
      expect(isPrivateHostname(h)).toBe(false);
    }
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

describe("outbound fetches", () => {
  it("never contacts a private address when private origins are not allowed", async () => {
    const calls: string[] = [];
    const fetcher = (async (url: string) => {
      calls.push(url);
      return new Response("x");
    }) as unknown as typeof fetch;
    for (const url of [
      "https://127.0.0.1/.well-known/webmcp-hub-verify",
      "http://example.com/x",
      "https://[::1]/x",
    ]) {
      await expect(
        fetchSiteText(url, { maxBytes: 100, timeoutMs: 1000, allowPrivate: false, fetcher }),
      ).rejects.toMatchObject({ code: "private_origin" });
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
