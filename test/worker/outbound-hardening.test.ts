// The registry's outbound fetches under a hostile or broken outside world: slow
// bodies, cut-off bodies, every failure mapped to a documented error, and the SSRF rules of a deployment.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/worker/app.js";
import { database } from "../../src/worker/db/client.js";
import { HubError } from "../../src/worker/http/errors.js";
import { fetchSiteText, type OutboundOptions } from "../../src/worker/registry/outbound.js";
import { refreshManifest } from "../../src/worker/registry/refresh.js";
import type { SiteRow } from "../../src/worker/registry/sites.js";
import { checkOwnershipProof } from "../../src/worker/registry/verify.js";
import type { FakeRoute } from "../support/fake-route.js";
import { api, expectError, fakeOrigin, register, verifiedSite, verify } from "./helpers.js";

const VERIFY_PATH = "/.well-known/webmcp-hub-verify";
const MANIFEST_PATH = "/.well-known/webmcp.json";

/** A body that would take 10 s to arrive, a byte every 100 ms. */
const DRIP: FakeRoute = { body: "x".repeat(100), dripMs: 100 };

async function failureOf(promise: Promise<unknown>): Promise<HubError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof HubError) return e;
    throw new Error(`expected a HubError, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
  throw new Error("expected the fetch to fail");
}

function fetchText(url: string, opts: Partial<OutboundOptions> = {}) {
  return fetchSiteText(url, { maxBytes: 1000, timeoutMs: 400, allowPrivate: true, ...opts });
}

/** An origin whose port no longer listens: connections to it are refused. */
async function closedOrigin(): Promise<string> {
  const o = await fakeOrigin();
  await fetch(`${env.FAKE_ORIGINS_URL}/origins/${o.port}`, { method: "DELETE" });
  return o.origin;
}

async function siteRow(host: string): Promise<SiteRow> {
  const row = await database(env.DB).query.sites.findFirst({ where: (s, { eq }) => eq(s.host, host) });
  if (!row) throw new Error(`no site ${host}`);
  return row;
}

async function versionCount(host: string): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM manifest_versions WHERE host = ?")
    .bind(host)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("a site that sends its headers at once and its body slowly", () => {
  it("is upstream_failed, saying the site was too slow, once the time budget is spent", async () => {
    const o = await fakeOrigin({ "/drip": DRIP });
    const err = await failureOf(fetchText(`${o.origin}/drip`, { timeoutMs: 300 }));
    expect(err.code).toBe("upstream_failed");
    expect(err.message).toContain("too slow");
    expect(err.message).toContain(`${o.origin}/drip`);
  });

  it("has one budget for headers and body together, not one for each", async () => {
    // Headers after 250 ms, then 5 bytes 60 ms apart: either phase alone fits in 400 ms, both do not.
    const o = await fakeOrigin({ "/late": { body: "12345", delayMs: 250, dripMs: 60 } });
    const err = await failureOf(fetchText(`${o.origin}/late`, { timeoutMs: 400 }));
    expect(err.code).toBe("upstream_failed");
    expect(err.message).toContain("too slow");
  });

  it("still reads a body that streams in pieces within the budget", async () => {
    const o = await fakeOrigin({ "/pieces": { body: "token-in-pieces", dripMs: 5, dripBytes: 4 } });
    expect((await fetchText(`${o.origin}/pieces`, { timeoutMs: 5000 })).text).toBe("token-in-pieces");
  });

  it("fails a manifest refresh with upstream_failed and stores nothing", async () => {
    const s = await verifiedSite();
    await s.origin_.setRoutes({ [MANIFEST_PATH]: DRIP });
    const err = await failureOf(
      refreshManifest(database(env.DB), await siteRow(s.host), true, Date.now(), { timeoutMs: 300 }),
    );
    expect({ code: err.code, status: err.status }).toEqual({ code: "upstream_failed", status: 502 });
    expect(err.message).toContain("too slow");
    expect(await versionCount(s.host)).toBe(0);
  });

  it("fails an ownership proof with upstream_failed (the site's server, not its file), saying it was too slow", async () => {
    const o = await fakeOrigin({ [VERIFY_PATH]: DRIP });
    const site = { origin: o.origin, host: o.host, hostname: "127.0.0.1" };
    const err = await failureOf(
      checkOwnershipProof(site, "http", "x".repeat(100), {
        allowPrivate: true,
        dohUrl: "http://127.0.0.1:9/dns-query",
        timeoutMs: 300,
      }),
    );
    expect(err.code).toBe("upstream_failed");
    expect(err.status).toBe(502);
    expect(err.message).toContain("too slow");
  });

  it("still fails the proof with verification_failed when the file arrives but is wrong", async () => {
    const o = await fakeOrigin({ [VERIFY_PATH]: { status: 404, body: "nope" } });
    const site = { origin: o.origin, host: o.host, hostname: "127.0.0.1" };
    const err = await failureOf(
      checkOwnershipProof(site, "http", "x".repeat(100), {
        allowPrivate: true,
        dohUrl: "http://127.0.0.1:9/dns-query",
        timeoutMs: 300,
      }),
    );
    expect(err.code).toBe("verification_failed");
    expect(err.message).toContain("404");
  });

  it("answers 502 upstream_failed through the refresh route with the real 5 s budget, not a 500", async () => {
    const s = await verifiedSite();
    await s.origin_.setRoutes({ [MANIFEST_PATH]: { body: "x".repeat(100), dripMs: 200 } });
    const res = await api(`/api/sites/${s.host}/manifest/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
    });
    const err = await expectError(res, 502, "upstream_failed");
    expect(err.message).toContain("too slow");
    expect(err.message).toContain("5 s");
    expect(await versionCount(s.host)).toBe(0);
  }, 15_000);

  it("is upstream_failed when the connection drops halfway through the body", async () => {
    const o = await fakeOrigin({ "/cut": { body: "y".repeat(200), hangUp: "mid-body" } });
    const err = await failureOf(fetchText(`${o.origin}/cut`, { timeoutMs: 2000 }));
    expect(err.code).toBe("upstream_failed");
    expect(err.message).toContain("closed the connection");
  });
});

describe("every failure of an outbound fetch is a documented error", () => {
  const cases: Array<[string, FakeRoute, Partial<OutboundOptions>, string]> = [
    ["a 404", { status: 404, body: "no" }, {}, "answered 404"],
    ["a 500", { status: 500, body: "oops" }, {}, "answered 500"],
    ["a 204 without the file", { status: 204 }, {}, "answered 204"],
    ["a 302", { status: 302, headers: { location: "http://127.0.0.1:1/" } }, {}, "redirect"],
    ["a 308", { status: 308, headers: { location: "/elsewhere" } }, {}, "redirect"],
    ["a declared size over the cap", { body: "z".repeat(2000) }, {}, "larger than 1000 bytes"],
    [
      "a streamed body over the cap",
      { body: "z".repeat(5000), dripMs: 1, dripBytes: 700 },
      {},
      "larger than 1000 bytes",
    ],
    [
      "an HTML page where a text file belongs",
      { body: "<html></html>", headers: { "content-type": "text/html; charset=utf-8" } },
      { mediaTypes: ["text/plain", ""] },
      "served as text/html; serve it as text/plain",
    ],
    ["headers that never come", { body: "late", delayMs: 3000 }, {}, "could not be reached"],
    ["a connection closed before the headers", { hangUp: "before-headers" }, {}, "could not be reached"],
    ["a body that drips", DRIP, {}, "too slow"],
    ["a body cut off", { body: "c".repeat(100), hangUp: "mid-body" }, {}, "closed the connection"],
  ];

  it.each(cases)("%s is upstream_failed, saying so", async (_name, route, opts, says) => {
    const o = await fakeOrigin({ "/f": route });
    const err = await failureOf(fetchText(`${o.origin}/f`, opts));
    expect(err.code).toBe("upstream_failed");
    expect(err.message).toContain(says);
  });

  it("a refused connection is upstream_failed", async () => {
    const err = await failureOf(fetchText(`${await closedOrigin()}/f`));
    expect(err.code).toBe("upstream_failed");
  });

  it("accepts the media types servers send for extension-less and JSON files", async () => {
    for (const type of [
      "text/plain; charset=utf-8",
      "application/octet-stream",
      "application/manifest+json",
    ]) {
      const o = await fakeOrigin({ "/f": { body: "ok", headers: { "content-type": type } } });
      const got = await fetchText(`${o.origin}/f`, {
        mediaTypes: ["application/json", "text/plain", "application/octet-stream", ""],
      });
      expect(got.text).toBe("ok");
    }
  });

  it("a proof file served as HTML fails verification through the route, with a 422 saying how to serve it", async () => {
    const o = await fakeOrigin();
    const reg = await register(o.origin);
    await o.setRoutes({
      [VERIFY_PATH]: { body: reg.challenge.token, headers: { "content-type": "text/html" } },
    });
    const err = await expectError(await verify(o.host, reg.claimSecret), 422, "verification_failed");
    expect(err.message).toContain("served as text/html");
  });

  it("a manifest served as HTML is a 502 upstream_failed through the refresh route", async () => {
    const s = await verifiedSite();
    await s.origin_.setRoutes({
      [MANIFEST_PATH]: { body: "<!doctype html>", headers: { "content-type": "text/html" } },
    });
    const res = await api(`/api/sites/${s.host}/manifest/refresh`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}` },
    });
    expect((await expectError(res, 502, "upstream_failed")).message).toContain("served as text/html");
  });

  describe("a DNS-over-HTTPS resolver that fails", () => {
    const site = { origin: "https://shop.example", host: "shop.example", hostname: "shop.example" };
    const proof = (dohUrl: string) =>
      failureOf(checkOwnershipProof(site, "dns", "tok", { allowPrivate: true, dohUrl, timeoutMs: 400 }));

    it.each<[string, FakeRoute]>([
      ["answers slowly", DRIP],
      ["never answers", { body: "{}", delayMs: 3000 }],
      ["hangs up", { hangUp: "before-headers" }],
      ["answers 500", { status: 500, body: "{}" }],
      ["answers too much", { body: JSON.stringify({ Status: 0, pad: "p".repeat(70_000) }) }],
    ])("is upstream_failed when it %s", async (_name, route) => {
      const o = await fakeOrigin({ "/dns-query": route });
      const err = await proof(`${o.origin}/dns-query`);
      expect(err.code).toBe("upstream_failed");
      expect(err.message).toContain("DNS-over-HTTPS resolver");
    });

    it("is upstream_failed when it cannot be reached", async () => {
      const err = await proof(`${await closedOrigin()}/dns-query`);
      expect(err.code).toBe("upstream_failed");
    });

    it("is upstream_failed when its answer is not DNS JSON", async () => {
      const o = await fakeOrigin({ "/dns-query": { body: "<html>resolver</html>" } });
      expect((await proof(`${o.origin}/dns-query`)).message).toContain("unreadable");
    });

    it("fails verification naming the response code when the lookup itself fails", async () => {
      const o = await fakeOrigin({ "/dns-query": { body: JSON.stringify({ Status: 2 }) } });
      const err = await proof(`${o.origin}/dns-query`);
      expect(err.code).toBe("verification_failed");
      expect(err.message).toContain("SERVFAIL");
    });
  });
});

describe("outbound fetches give no port-probe signal", () => {
  it("words a refused connection, a hang-up and a timeout alike", async () => {
    const refused = `${await closedOrigin()}/.well-known/webmcp-hub-verify`;
    const hangUp = await fakeOrigin({ [VERIFY_PATH]: { hangUp: "before-headers" } });
    const silent = await fakeOrigin({ [VERIFY_PATH]: { body: "late", delayMs: 3000 } });
    const messages = [];
    for (const url of [refused, hangUp.origin + VERIFY_PATH, silent.origin + VERIFY_PATH]) {
      const err = await failureOf(fetchText(url, { timeoutMs: 400 }));
      expect(err.code).toBe("upstream_failed");
      messages.push(err.message.replace(url, "URL"));
    }
    expect(new Set(messages).size).toBe(1);
    expect(messages[0]).not.toMatch(/connect|refused|timed out|reset/i);
  });
});

describe("the SSRF rules of a deployment (private origins off)", () => {
  const deployed = { ...env, ALLOW_PRIVATE_ORIGINS: "false" } as typeof env;

  async function registerDeployed(origin: string): Promise<Response> {
    return createApp().fetch(
      new Request("http://hub.test/api/sites", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ origin }),
      }),
      deployed,
    );
  }

  it.each([
    ["https://[64:ff9b::7f00:1]", "private_origin", "NAT64"],
    ["https://[64:ff9b:1::a00:1]", "private_origin", "NAT64"],
    ["https://[2002:7f00:1::]", "private_origin", "6to4"],
    ["https://[2001:0:4136:e378:8000:63bf:80ff:fffe]", "private_origin", "Teredo"],
    ["https://[::ffff:127.0.0.1]", "private_origin", "IPv4-mapped"],
    ["https://[::127.0.0.1]", "private_origin", "IPv4-compatible"],
    ["https://198.18.0.1", "private_origin", "benchmarking"],
    ["https://0177.0.0.1", "private_origin", "loopback"],
    ["https://example.com:22", "invalid_origin", "port 22"],
    ["https://example.com:8443", "invalid_origin", "port 8443"],
    ["http://example.com", "invalid_origin", "https"],
  ])("refuses to register %s, and stores nothing", async (origin, code, says) => {
    const err = await expectError(await registerDeployed(origin), 400, code);
    expect(err.message).toContain(says);
    const host = new URL(origin).host;
    const row = await env.DB.prepare("SELECT count(*) AS n FROM sites WHERE host = ?")
      .bind(host)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("sends nothing to a refused address or port, even for a site already in the registry", async () => {
    const calls: string[] = [];
    const fetcher = (async (url: string) => {
      calls.push(url);
      return new Response("x");
    }) as unknown as typeof fetch;
    for (const url of [
      "https://[64:ff9b::a9fe:a9fe]/.well-known/webmcp.json",
      "https://[2002:a9fe:a9fe::]/x",
      "https://[2001::1]/x",
      "https://example.com:6379/x",
      "https://[fc00::1]/x",
    ]) {
      const err = await failureOf(fetchText(url, { allowPrivate: false, fetcher }));
      expect(["private_origin", "invalid_origin"]).toContain(err.code);
    }
    // A row registered before the port rule existed is refused at fetch time too.
    const legacy = { origin: "https://example.com:8443", host: "example.com:8443" } as SiteRow;
    const err = await failureOf(
      refreshManifest(database(env.DB), legacy, false, Date.now(), { fetcher, timeoutMs: 400 }),
    );
    expect(err.code).toBe("invalid_origin");
    expect(calls).toEqual([]);
  });

  it("still lets local development fetch plain http on any loopback port", async () => {
    const o = await fakeOrigin({ "/f": { body: "local" } });
    expect(o.origin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetchText(`${o.origin}/f`, { allowPrivate: true })).text).toBe("local");
  });
});
