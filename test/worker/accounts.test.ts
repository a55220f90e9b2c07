// Passkey ceremonies through the Worker with a software authenticator: sign up, sign in, add, rename and remove
// passkeys, sign out everywhere; wrong challenges, origins and bodies are refused and store nothing.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { database } from "../../src/worker/db/client.js";
import { accounts, passkeys, sessions, webauthnChallenges } from "../../src/worker/db/schema.js";
import { api, BASE, expectError } from "./helpers.js";
import { SoftAuthenticator, type CeremonyOverrides } from "./account-authenticator.js";

const db = () => database(env.DB);
const same = { origin: BASE };

async function json<T = any>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

function cookieOf(res: Response): string {
  const set = res.headers.get("set-cookie") ?? "";
  const m = /^(hub_session=[A-Za-z0-9_-]{43});/.exec(set);
  if (!m) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  return m[1]!;
}

async function signUp(name = "Ada", auth = new SoftAuthenticator(BASE), o: CeremonyOverrides = {}) {
  const opts = await json(
    await api("/api/account/sign-up/options", { method: "POST", headers: same, json: { displayName: name } }),
  );
  const response = await auth.create(opts.options, o);
  const res = await api("/api/account/sign-up/verify", {
    method: "POST",
    headers: same,
    json: { challengeId: opts.challengeId, displayName: name, response },
  });
  return { res, auth, opts };
}

async function signIn(auth: SoftAuthenticator, o: CeremonyOverrides & { credentialId?: string } = {}) {
  const opts = await json(await api("/api/account/sign-in/options", { method: "POST", headers: same }));
  const response = await auth.get(opts.options, o);
  return api("/api/account/sign-in/verify", {
    method: "POST",
    headers: same,
    json: { challengeId: opts.challengeId, response },
  });
}

describe("creating an account", () => {
  it("a new passkey creates the account and signs in; options ask for a discoverable, verified credential", async () => {
    const { res, opts } = await signUp("Ada");
    expect(opts.options.rp.id).toBe("hub.test");
    expect(opts.options.authenticatorSelection).toMatchObject({
      residentKey: "required",
      userVerification: "required",
    });
    expect(res.status).toBe(201);
    const { account } = await json(res);
    expect(account.displayName).toBe("Ada");
    const cookie = cookieOf(res);
    const me = await json(await api("/api/account", { headers: { cookie } }));
    expect(me.account.id).toBe(account.id);
    expect(me.passkeys).toHaveLength(1);
    expect(me.passkeys[0].label).toBe("Passkey 1");
    // The challenge was used up.
    expect(
      await db().select().from(webauthnChallenges).where(eq(webauthnChallenges.id, opts.challengeId)),
    ).toEqual([]);
  });

  it("an answer to another challenge, from another origin or for another RP ID is refused; no account is stored", async () => {
    const before = (await db().select().from(accounts)).length;
    for (const o of [
      { challenge: "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      { origin: "https://evil.example" },
      { rpId: "evil.example" },
    ]) {
      const { res } = await signUp("Mallory", new SoftAuthenticator(BASE), o);
      await expectError(res, 422, "verification_failed");
      expect(res.headers.get("set-cookie")).toBeNull();
    }
    expect((await db().select().from(accounts)).length).toBe(before);
  });

  it("a challenge is single-use: replaying the same answer is refused", async () => {
    const auth = new SoftAuthenticator(BASE);
    const opts = await json(
      await api("/api/account/sign-up/options", {
        method: "POST",
        headers: same,
        json: { displayName: "Once" },
      }),
    );
    const response = await auth.create(opts.options);
    const body = { challengeId: opts.challengeId, displayName: "Once", response };
    expect(
      (await api("/api/account/sign-up/verify", { method: "POST", headers: same, json: body })).status,
    ).toBe(201);
    await expectError(
      await api("/api/account/sign-up/verify", { method: "POST", headers: same, json: body }),
      410,
      "challenge_expired",
    );
  });

  it("a sign-in challenge cannot be used to create an account (purpose-bound)", async () => {
    const signInOpts = await json(
      await api("/api/account/sign-in/options", { method: "POST", headers: same }),
    );
    const auth = new SoftAuthenticator(BASE);
    const response = await auth.create({
      challenge: signInOpts.options.challenge,
      rp: { id: "hub.test" },
      user: { id: "dXNlcg" },
    });
    await expectError(
      await api("/api/account/sign-up/verify", {
        method: "POST",
        headers: same,
        json: { challengeId: signInOpts.challengeId, displayName: "X", response },
      }),
      410,
      "challenge_expired",
    );
  });

  it("bad bodies: 400 with the field, nothing stored", async () => {
    const before = (await db().select().from(webauthnChallenges)).length;
    for (const json of [{}, { displayName: "" }, { displayName: "x".repeat(65) }, { displayName: 5 }]) {
      const res = await api("/api/account/sign-up/options", { method: "POST", headers: same, json });
      const err = await expectError(res, 400, "validation_failed");
      expect(err.issues?.[0]?.path).toBe("displayName");
    }
    await expectError(
      await api("/api/account/sign-up/options", {
        method: "POST",
        headers: same,
        body: "{",
        json: undefined,
      }),
      415,
      "unsupported_media_type",
    );
    expect((await db().select().from(webauthnChallenges)).length).toBe(before);
    for (const json of [
      {},
      { challengeId: "nope", displayName: "A", response: {} },
      {
        challengeId: crypto.randomUUID(),
        displayName: "A",
        response: { id: "x", rawId: "x", type: "other" },
      },
    ]) {
      await expectError(
        await api("/api/account/sign-up/verify", { method: "POST", headers: same, json }),
        400,
        "validation_failed",
      );
    }
  });
});

describe("signing in", () => {
  it("the account's passkey signs in with a new session; the session presented before is rotated out", async () => {
    const { res, auth } = await signUp("Grace");
    const first = cookieOf(res);
    const opts = await json(await api("/api/account/sign-in/options", { method: "POST", headers: same }));
    expect(opts.options.allowCredentials ?? []).toEqual([]);
    const response = await auth.get(opts.options);
    const again = await api("/api/account/sign-in/verify", {
      method: "POST",
      headers: { ...same, cookie: first },
      json: { challengeId: opts.challengeId, response },
    });
    expect(again.status).toBe(200);
    const second = cookieOf(again);
    expect(second).not.toBe(first);
    expect((await api("/api/account", { headers: { cookie: first } })).status).toBe(401);
    expect((await json(await api("/api/account", { headers: { cookie: second } }))).account.displayName).toBe(
      "Grace",
    );
  });

  it("a wrong challenge, a foreign origin, a replayed answer or an unknown passkey is refused", async () => {
    const { auth } = await signUp("Linus");
    await expectError(await signIn(auth, { origin: "https://evil.example" }), 422, "verification_failed");
    await expectError(
      await signIn(auth, { challenge: "BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB" }),
      422,
      "verification_failed",
    );
    const stranger = new SoftAuthenticator(BASE);
    await stranger.create({ challenge: "x", rp: { id: "hub.test" }, user: { id: "eA" } });
    const res = await signIn(stranger);
    await expectError(res, 401, "unauthorized");
    expect(res.headers.get("set-cookie")).toBeNull();
    expect((await signIn(auth)).status).toBe(200);
  });
});

describe("passkeys of an account", () => {
  it("adds a second passkey, renames it, removes one, and never the last (409)", async () => {
    const { res, auth } = await signUp("Barbara");
    const cookie = cookieOf(res);
    const h = { ...same, cookie };
    const opts = await json(await api("/api/account/passkeys/options", { method: "POST", headers: h }));
    expect(opts.options.excludeCredentials).toHaveLength(1);
    const response = await auth.create(opts.options);
    const added = await api("/api/account/passkeys/verify", {
      method: "POST",
      headers: h,
      json: { challengeId: opts.challengeId, response, label: "Laptop" },
    });
    expect(added.status).toBe(201);
    const { passkey } = await json(added);
    expect(passkey.label).toBe("Laptop");
    // The new passkey signs in.
    expect((await signIn(auth, { credentialId: passkey.id })).status).toBe(200);

    const renamed = await api(`/api/account/passkeys/${passkey.id}`, {
      method: "PATCH",
      headers: h,
      json: { label: "Work laptop" },
    });
    expect((await json(renamed)).passkey.label).toBe("Work laptop");

    const list = (await json(await api("/api/account", { headers: { cookie } }))).passkeys;
    const firstId = list.find((p: { id: string }) => p.id !== passkey.id).id;
    expect((await api(`/api/account/passkeys/${firstId}`, { method: "DELETE", headers: h })).status).toBe(
      200,
    );
    const last = await api(`/api/account/passkeys/${passkey.id}`, { method: "DELETE", headers: h });
    const err = await expectError(last, 409, "conflict");
    expect(err.message).toMatch(/only passkey/);
    expect(await db().select().from(passkeys).where(eq(passkeys.id, passkey.id))).toHaveLength(1);
    await expectError(
      await api(`/api/account/passkeys/nope`, { method: "DELETE", headers: h }),
      404,
      "not_found",
    );
    // The removed passkey no longer signs in.
    await expectError(await signIn(auth, { credentialId: firstId }), 401, "unauthorized");
  });

  it("an add-passkey challenge belongs to the account that asked for it", async () => {
    const a = await signUp("A");
    const b = await signUp("B");
    const opts = await json(
      await api("/api/account/passkeys/options", {
        method: "POST",
        headers: { ...same, cookie: cookieOf(a.res) },
      }),
    );
    const response = await a.auth.create(opts.options);
    await expectError(
      await api("/api/account/passkeys/verify", {
        method: "POST",
        headers: { ...same, cookie: cookieOf(b.res) },
        json: { challengeId: opts.challengeId, response },
      }),
      410,
      "challenge_expired",
    );
  });

  it("sign out everywhere ends every session of the account", async () => {
    const { res, auth } = await signUp("Everywhere");
    const one = cookieOf(res);
    const two = cookieOf(await signIn(auth));
    const out = await api("/api/account/sign-out-everywhere", {
      method: "POST",
      headers: { ...same, cookie: two },
    });
    expect((await json(out)).endedSessions).toBe(2);
    for (const cookie of [one, two])
      expect((await api("/api/account", { headers: { cookie } })).status).toBe(401);
    const { account } = await json(await signIn(auth));
    expect(await db().select().from(sessions).where(eq(sessions.accountId, account.id))).toHaveLength(1);
  });
});
