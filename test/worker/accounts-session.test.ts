// Browser sessions: the cookie names a hashed, expiring row; state-changing cookie requests need the hub's Origin.
import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { database } from "../../src/worker/db/client.js";
import { sessions } from "../../src/worker/db/schema.js";
import { SESSION_TTL_MS } from "../../src/worker/accounts/session.js";
import { safeReturnTo } from "../../src/worker/accounts/return-to.js";
import { sha256Hex } from "../../src/worker/secrets.js";
import { api, BASE, expectError } from "./helpers.js";
import { signedInAccount } from "./account-helpers.js";

const db = () => database(env.DB);

describe("sessions", () => {
  it("a session cookie names its account; D1 holds only the token's hash", async () => {
    const me = await signedInAccount("Ada");
    const res = await api("/api/account", { headers: { cookie: me.cookie } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ account: { id: me.accountId, displayName: "Ada" } });
    const rows = await db().select().from(sessions).where(eq(sessions.accountId, me.accountId));
    expect(rows.map((r) => r.idHash)).toEqual([await sha256Hex(me.token)]);
    expect(JSON.stringify(rows)).not.toContain(me.token);
  });

  it("no cookie, an unknown token, a malformed one or another cookie name: 401", async () => {
    const me = await signedInAccount();
    for (const cookie of [
      undefined,
      `hub_session=${"A".repeat(43)}`,
      "hub_session=short",
      `__Host-hub_session=${me.token}`,
      `other=${me.token}`,
    ]) {
      const res = await api("/api/account", { headers: cookie ? { cookie } : {} });
      await expectError(res, 401, "unauthorized");
    }
  });

  it("an expired session is refused", async () => {
    const me = await signedInAccount("Old", Date.now() - SESSION_TTL_MS - 1000);
    await expectError(await api("/api/account", { headers: { cookie: me.cookie } }), 401, "unauthorized");
  });

  it("a session used after a day is renewed for 30 days, with a fresh cookie", async () => {
    const twoDaysAgo = Date.now() - 2 * 24 * 3600 * 1000;
    const me = await signedInAccount("Returning", twoDaysAgo);
    const res = await api("/api/account", { headers: { cookie: me.cookie } });
    expect(res.status).toBe(200);
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toContain(`hub_session=${me.token}`);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).toContain(`Max-Age=${SESSION_TTL_MS / 1000}`);
    const [row] = await db().select().from(sessions).where(eq(sessions.accountId, me.accountId));
    expect(row!.expiresAt).toBeGreaterThan(twoDaysAgo + SESSION_TTL_MS + 24 * 3600 * 1000);
  });

  it("on https the cookie is __Host- prefixed and Secure; the plain name is not read there", async () => {
    const me = await signedInAccount();
    const https = "https://hub.test";
    const plain = await fetchHttps(`${https}/api/account`, { cookie: me.cookie });
    await expectError(plain, 401, "unauthorized");
    const res = await fetchHttps(`${https}/api/account`, { cookie: `__Host-hub_session=${me.token}` });
    expect(res.status).toBe(200);
    const out = await fetchHttps(
      `${https}/api/account/sign-out`,
      {
        cookie: `__Host-hub_session=${me.token}`,
        origin: https,
      },
      "POST",
    );
    expect(out.status).toBe(200);
    const cleared = out.headers.get("set-cookie") ?? "";
    expect(cleared).toMatch(/^__Host-hub_session=;/);
    expect(cleared).toMatch(/Secure/);
    expect(cleared).toContain("Max-Age=0");
  });

  it("signing out deletes the session row and clears the cookie", async () => {
    const me = await signedInAccount();
    const res = await api("/api/account/sign-out", { method: "POST", headers: me.headers });
    expect(res.status).toBe(200);
    expect(res.headers.get("set-cookie")).toMatch(/^hub_session=; .*Max-Age=0/);
    expect(await db().select().from(sessions).where(eq(sessions.accountId, me.accountId))).toEqual([]);
    await expectError(await api("/api/account", { headers: { cookie: me.cookie } }), 401, "unauthorized");
  });
});

describe("the Origin rule for cookie-authenticated writes", () => {
  it("a POST with the cookie from another origin, or with no Origin, is refused and changes nothing", async () => {
    const me = await signedInAccount();
    for (const origin of ["https://evil.example", "http://hub.test:8080", "null", undefined]) {
      const res = await api("/api/account/sign-out", {
        method: "POST",
        headers: { cookie: me.cookie, ...(origin ? { origin } : {}) },
      });
      const error = await expectError(res, 403, "forbidden");
      expect(error.message).toContain(BASE);
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    expect(await db().select().from(sessions).where(eq(sessions.accountId, me.accountId))).toHaveLength(1);
  });

  it("reads with the cookie need no Origin", async () => {
    const me = await signedInAccount();
    expect((await api("/api/account", { headers: { cookie: me.cookie } })).status).toBe(200);
  });
});

describe("the sign-in page", () => {
  it("renders for a visitor, with a same-origin return_to kept and others dropped", async () => {
    const page = await api("/signin?return_to=%2Foauth%2Fauthorize%3Fx%3D1");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('data-return-to="/oauth/authorize?x=1"');
    for (const bad of [
      "https://evil.example/",
      "//evil.example/x",
      "/\\evil.example",
      "javascript:alert(1)",
    ]) {
      const res = await api(`/signin?return_to=${encodeURIComponent(bad)}`);
      expect(await res.text()).toContain('data-return-to=""');
    }
  });

  it("sends a signed-in visitor on to return_to, or to the account page", async () => {
    const me = await signedInAccount();
    const on = await api("/signin?return_to=%2Fchannels", {
      headers: { cookie: me.cookie },
      redirect: "manual",
    });
    expect(on.status).toBe(303);
    expect(on.headers.get("location")).toBe("/channels");
    const bad = await api("/signin?return_to=https%3A%2F%2Fevil.example", {
      headers: { cookie: me.cookie },
      redirect: "manual",
    });
    expect(bad.headers.get("location")).toBe("/account");
  });

  it("safeReturnTo keeps only paths on the hub", () => {
    const hub = "https://hub.example";
    expect(safeReturnTo("/a/b?c=d#e", hub)).toBe("/a/b?c=d#e");
    expect(safeReturnTo("/%2F%2Fevil.example", hub)).toBe("/%2F%2Fevil.example");
    for (const bad of [
      undefined,
      "",
      "a",
      "//x.example",
      "/\\x.example",
      "/\tx",
      "https://hub.example/a",
      "/" + "a".repeat(2000),
    ])
      expect(safeReturnTo(bad, hub)).toBeUndefined();
  });
});

async function fetchHttps(url: string, headers: Record<string, string>, method = "GET"): Promise<Response> {
  return SELF.fetch(url, { method, headers });
}
