// Site registration and ownership proof, through the Worker's routes.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, expectError, fakeOrigin, register, setTxt, verify } from "./helpers.js";

describe("registering a site", () => {
  it("returns the site as pending with a challenge for both methods and a claim secret", async () => {
    const o = await fakeOrigin();
    const res = await api("/api/sites", { method: "POST", json: { origin: o.origin } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as any;
    expect(body.site).toMatchObject({ host: o.host, origin: o.origin, status: "pending" });
    expect(body.challenge.http.url).toBe(`${o.origin}/.well-known/webmcp-hub-verify`);
    expect(body.challenge.http.body).toBe(body.challenge.token);
    expect(body.challenge.dns).toEqual({
      name: "_webmcp-hub.127.0.0.1",
      type: "TXT",
      value: `webmcp-hub-verify=${body.challenge.token}`,
    });
    expect(body.claimSecret).toMatch(/^whc_[A-Za-z0-9_-]{43}$/);
    // Only the claim secret's hash is stored.
    const row = await env.DB.prepare("SELECT claim_secret_hash FROM challenges WHERE host = ?")
      .bind(o.host)
      .first<{ claim_secret_hash: string }>();
    expect(row?.claim_secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row?.claim_secret_hash).not.toContain(body.claimSecret);
  });

  it("keeps pending sites out of the public listing", async () => {
    const o = await fakeOrigin();
    await register(o.origin);
    await expectError(await api(`/api/sites/${o.host}`), 404, "site_not_found");
    const list = (await (await api("/api/sites?limit=100")).json()) as { sites: Array<{ host: string }> };
    expect(list.sites.map((s) => s.host)).not.toContain(o.host);
  });

  it.each([
    ["not a URL", "example", 400, "invalid_origin"],
    ["a path", "https://example.com/shop", 400, "invalid_origin"],
    ["a query", "https://example.com/?a=1", 400, "invalid_origin"],
    ["credentials", "https://user:pw@example.com", 400, "invalid_origin"],
    ["ftp", "ftp://example.com", 400, "invalid_origin"],
  ])("refuses an origin with %s", async (_what, origin, status, code) => {
    await expectError(await api("/api/sites", { method: "POST", json: { origin } }), status, code);
  });

  it("answers malformed JSON, a wrong type, a wrong media type and an oversized body clearly", async () => {
    await expectError(
      await api("/api/sites", {
        method: "POST",
        body: "{nope",
        headers: { "content-type": "application/json" },
      }),
      400,
      "invalid_json",
    );
    const wrong = await expectError(
      await api("/api/sites", { method: "POST", json: { origin: 42 } }),
      400,
      "validation_failed",
    );
    expect(wrong.issues?.[0]?.path).toBe("origin");
    await expectError(
      await api("/api/sites", {
        method: "POST",
        body: "origin=x",
        headers: { "content-type": "application/x-www-form-urlencoded" },
      }),
      415,
      "unsupported_media_type",
    );
    await expectError(
      await api("/api/sites", {
        method: "POST",
        json: { origin: "https://a.example", pad: "x".repeat(70_000) },
      }),
      413,
      "payload_too_large",
    );
  });
});

describe("verifying a site", () => {
  it("verifies over HTTP, returns a publisher key once and lists the site", async () => {
    const o = await fakeOrigin();
    const reg = await register(o.origin);
    await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: `${reg.challenge.token}\n` } });
    const res = await verify(o.host, reg.claimSecret, "http");
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.publisherKey).toMatch(/^whp_[A-Za-z0-9_-]{43}$/);
    expect(body.site).toMatchObject({ host: o.host, status: "verified", verificationMethod: "http" });
    const hits = await o.hits();
    expect(hits.some((h) => h.startsWith("GET /.well-known/webmcp-hub-verify ua=webmcp-hub-verifier/"))).toBe(
      true,
    );
    const listed = (await (await api(`/api/sites/${o.host}`)).json()) as any;
    expect(listed.site.status).toBe("verified");
    const keyRow = await env.DB.prepare("SELECT key_hash FROM publisher_keys WHERE host = ?")
      .bind(o.host)
      .first<{ key_hash: string }>();
    expect(keyRow?.key_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("verifies over DNS TXT read through DNS-over-HTTPS", async () => {
    // DNS is keyed by host name, so give this site a name of its own on a loopback address.
    const o = await fakeOrigin();
    const origin = o.origin.replace("127.0.0.1", "127.0.0.9");
    const reg = await register(origin);
    await setTxt(reg.challenge.dns.name, ["v=spf1 -all", reg.challenge.dns.value]);
    const res = await verify(reg.site.host, reg.claimSecret, "dns");
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).site.verificationMethod).toBe("dns");
  });

  it("says what is wrong when the file holds another token, is missing, or redirects", async () => {
    const o = await fakeOrigin();
    const reg = await register(o.origin);
    const missing = await expectError(await verify(o.host, reg.claimSecret), 422, "verification_failed");
    expect(missing.message).toContain("404");
    await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: "someone-elses-token" } });
    expect(
      (await expectError(await verify(o.host, reg.claimSecret), 422, "verification_failed")).message,
    ).toContain("not the expected token");
    await o.setRoutes({
      "/.well-known/webmcp-hub-verify": { status: 302, headers: { location: "https://elsewhere.example/" } },
    });
    expect(
      (await expectError(await verify(o.host, reg.claimSecret), 422, "verification_failed")).message,
    ).toContain("redirect");
    await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: "x".repeat(10_000) } });
    expect(
      (await expectError(await verify(o.host, reg.claimSecret), 422, "verification_failed")).message,
    ).toContain("larger than");
    // Nothing was verified and no key was issued.
    const keys = await env.DB.prepare("SELECT count(*) AS n FROM publisher_keys WHERE host = ?")
      .bind(o.host)
      .first<{ n: number }>();
    expect(keys?.n).toBe(0);
  });

  it("says so when the DNS record is absent or different", async () => {
    const o = await fakeOrigin();
    const reg = await register(o.origin.replace("127.0.0.1", "127.0.0.10"));
    expect(
      (await expectError(await verify(reg.site.host, reg.claimSecret, "dns"), 422, "verification_failed"))
        .message,
    ).toContain("No TXT record");
    await setTxt(reg.challenge.dns.name, ["webmcp-hub-verify=wrong"]);
    expect(
      (await expectError(await verify(reg.site.host, reg.claimSecret, "dns"), 422, "verification_failed"))
        .message,
    ).toContain("none is");
  });

  it("requires the claim secret of that site, and uses a claim once", async () => {
    const a = await fakeOrigin();
    const b = await fakeOrigin();
    const regA = await register(a.origin);
    const regB = await register(b.origin);
    await a.setRoutes({ "/.well-known/webmcp-hub-verify": { body: regA.challenge.token } });
    await expectError(
      await api(`/api/sites/${a.host}/verify`, { method: "POST", json: { method: "http" } }),
      401,
      "unauthorized",
    );
    await expectError(await verify(a.host, regB.claimSecret), 403, "forbidden");
    await expectError(await verify(a.host, "whc_" + "A".repeat(43)), 403, "forbidden");
    await expectError(
      await api(`/api/sites/${a.host}/verify`, {
        method: "POST",
        json: { method: "carrier-pigeon" },
        headers: { authorization: `Bearer ${regA.claimSecret}` },
      }),
      400,
      "validation_failed",
    );
    expect((await verify(a.host, regA.claimSecret)).status).toBe(200);
    await expectError(await verify(a.host, regA.claimSecret), 409, "conflict");
    await expectError(await verify("nobody.example", regA.claimSecret), 404, "site_not_found");
  });

  it("re-registering a verified origin opens a new claim; verifying it revokes the old key", async () => {
    const o = await fakeOrigin();
    const first = await register(o.origin);
    await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: first.challenge.token } });
    const oldKey = ((await (await verify(o.host, first.claimSecret)).json()) as any).publisherKey;
    const again = await api("/api/sites", { method: "POST", json: { origin: o.origin } });
    expect(again.status).toBe(200);
    const second = (await again.json()) as any;
    expect(second.site.status).toBe("verified");
    await o.setRoutes({ "/.well-known/webmcp-hub-verify": { body: second.challenge.token } });
    const newKey = ((await (await verify(o.host, second.claimSecret)).json()) as any).publisherKey;
    expect(newKey).not.toBe(oldKey);
    const manifest = { tools: [{ name: "t", description: "A tool.", inputSchema: { type: "object" } }] };
    await expectError(
      await api(`/api/sites/${o.host}/manifest`, {
        method: "PUT",
        json: manifest,
        headers: { authorization: `Bearer ${oldKey}` },
      }),
      401,
      "unauthorized",
    );
    expect(
      (
        await api(`/api/sites/${o.host}/manifest`, {
          method: "PUT",
          json: manifest,
          headers: { authorization: `Bearer ${newKey}` },
        })
      ).status,
    ).toBe(201);
  });
});
