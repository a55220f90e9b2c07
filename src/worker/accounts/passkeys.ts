// Passkey ceremonies (@simplewebauthn/server): options and verification for creating an account, signing in
// and adding a passkey; rpID is the hub's hostname and the expected origin the hub's origin.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from "@simplewebauthn/server";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import { and, asc, eq } from "drizzle-orm";
import type {
  AuthenticationResponseBody,
  PasskeyView,
  RegistrationResponseBody,
} from "../../protocol/index.js";
import type { Db } from "../db/client.js";
import { accounts, passkeys } from "../db/schema.js";
import { HubError } from "../http/errors.js";
import { base64Url, fromBase64Url } from "../secrets.js";
import { consumeChallenge, issueChallenge } from "./challenges.js";

/** Who the ceremony is for: the hub's origin; its hostname is the relying party ID. */
export interface RelyingParty {
  origin: string;
}
const rpId = (rp: RelyingParty) => new URL(rp.origin).hostname;
const RP_NAME = "webmcp-hub";
export const MAX_PASSKEYS = 20;

type PasskeyRow = typeof passkeys.$inferSelect;

export function passkeyView(row: PasskeyRow): PasskeyView {
  return {
    id: row.id,
    label: row.label,
    createdAt: new Date(row.createdAt).toISOString(),
    lastUsedAt: row.lastUsedAt === null ? null : new Date(row.lastUsedAt).toISOString(),
    backedUp: row.backedUp,
  };
}

export async function listPasskeys(db: Db, accountId: string): Promise<PasskeyRow[]> {
  return db
    .select()
    .from(passkeys)
    .where(eq(passkeys.accountId, accountId))
    .orderBy(asc(passkeys.createdAt), asc(passkeys.id));
}

async function registrationOptions(
  rp: RelyingParty,
  account: { id: string; displayName: string },
  challenge: string,
  exclude: PasskeyRow[],
) {
  return generateRegistrationOptions({
    rpName: RP_NAME,
    rpID: rpId(rp),
    userName: account.displayName,
    userDisplayName: account.displayName,
    userID: bytes(new TextEncoder().encode(account.id)),
    challenge: bytes(fromBase64Url(challenge)),
    attestationType: "none",
    excludeCredentials: exclude.map((p) => ({ id: p.id, transports: transportsOf(p) })),
    authenticatorSelection: { residentKey: "required", userVerification: "required" },
  });
}

/** Options for a new account's first passkey; the account id is fixed now (it is the passkey's user handle). */
export async function signUpOptions(db: Db, rp: RelyingParty, displayName: string, now: number) {
  const accountId = crypto.randomUUID();
  const issued = await issueChallenge(db, "register", accountId, now);
  return {
    challengeId: issued.id,
    options: await registrationOptions(rp, { id: accountId, displayName }, issued.challenge, []),
  };
}

/** Options for adding a passkey to a signed-in account (its existing passkeys excluded). */
export async function addPasskeyOptions(
  db: Db,
  rp: RelyingParty,
  account: { id: string; displayName: string },
  now: number,
) {
  const existing = await listPasskeys(db, account.id);
  if (existing.length >= MAX_PASSKEYS)
    throw new HubError("conflict", `An account keeps at most ${MAX_PASSKEYS} passkeys; remove one first.`);
  const issued = await issueChallenge(db, "add-passkey", account.id, now);
  return {
    challengeId: issued.id,
    options: await registrationOptions(rp, account, issued.challenge, existing),
  };
}

async function verifiedCredential(rp: RelyingParty, challenge: string, response: RegistrationResponseBody) {
  let result;
  try {
    result = await verifyRegistrationResponse({
      response: withoutAttestationCertificates(response),
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rpId(rp),
      requireUserVerification: true,
    });
  } catch (e) {
    throw refused(e);
  }
  if (!result.verified) throw refused(new Error("the attestation did not verify"));
  const info = result.registrationInfo;
  return {
    id: info.credential.id,
    publicKey: base64Url(info.credential.publicKey),
    counter: info.credential.counter,
    transports: JSON.stringify(response.response.transports ?? info.credential.transports ?? []),
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
}

/**
 * The response with an attestation statement that carries certificates replaced by "none", as the WebAuthn
 * client itself should have done for the "none" conveyance the hub asks for (WebAuthn §5.1.3 step 22:
 * fmt "none", an empty attStmt, authenticatorData untouched). The hub trusts no attestation roots, so such a
 * statement proves nothing to it, and the Worker bundle carries no certificate parser (wrangler.toml [alias],
 * src/worker/shims/webauthn-asn1.ts). "none" and self attestation ("packed" without x5c: a signature by the
 * credential's own key) are verified as they come. An attestation object that does not decode is passed on
 * unchanged for the library to refuse.
 */
function withoutAttestationCertificates(response: RegistrationResponseBody): RegistrationResponseBody {
  let decoded: unknown;
  try {
    decoded = isoCBOR.decodeFirst(isoBase64URL.toBuffer(response.response.attestationObject));
  } catch {
    return response;
  }
  if (!(decoded instanceof Map)) return response;
  const fmt: unknown = decoded.get("fmt");
  const attStmt: unknown = decoded.get("attStmt");
  const authData: unknown = decoded.get("authData");
  if (fmt === "none" || (fmt === "packed" && attStmt instanceof Map && !attStmt.has("x5c"))) return response;
  if (!(authData instanceof Uint8Array)) return response;
  const anonymized = new Map<string, string | Uint8Array | Map<string, string>>();
  anonymized.set("fmt", "none");
  anonymized.set("attStmt", new Map());
  anonymized.set("authData", authData);
  return {
    ...response,
    response: {
      ...response.response,
      attestationObject: isoBase64URL.fromBuffer(isoCBOR.encode(anonymized)),
    },
  };
}

function refused(e: unknown): HubError {
  const detail = e instanceof Error ? e.message : String(e);
  return new HubError("verification_failed", `The passkey's answer was refused: ${detail}`);
}

/** Verifies a new account's first passkey and creates the account with it. */
export async function completeSignUp(
  db: Db,
  rp: RelyingParty,
  body: {
    challengeId: string;
    displayName: string;
    response: RegistrationResponseBody;
    passkeyLabel?: string;
  },
  now: number,
): Promise<{ id: string; displayName: string }> {
  const challenge = await consumeChallenge(db, body.challengeId, "register", now);
  const accountId = challenge.accountId!;
  const credential = await verifiedCredential(rp, challenge.challenge, body.response);
  await assertNewCredential(db, credential.id);
  await db.batch([
    db.insert(accounts).values({ id: accountId, displayName: body.displayName, createdAt: now }),
    db.insert(passkeys).values({
      ...credential,
      accountId,
      label: body.passkeyLabel ?? defaultLabel(body.response, 1),
      createdAt: now,
      lastUsedAt: now,
    }),
  ]);
  return { id: accountId, displayName: body.displayName };
}

/** Verifies a passkey created for a signed-in account and adds it. */
export async function completeAddPasskey(
  db: Db,
  rp: RelyingParty,
  accountId: string,
  body: { challengeId: string; response: RegistrationResponseBody; label?: string },
  now: number,
): Promise<PasskeyView> {
  const challenge = await consumeChallenge(db, body.challengeId, "add-passkey", now, accountId);
  const credential = await verifiedCredential(rp, challenge.challenge, body.response);
  await assertNewCredential(db, credential.id);
  const count = (await listPasskeys(db, accountId)).length;
  const [row] = await db
    .insert(passkeys)
    .values({
      ...credential,
      accountId,
      label: body.label ?? defaultLabel(body.response, count + 1),
      createdAt: now,
    })
    .returning();
  return passkeyView(row!);
}

async function assertNewCredential(db: Db, id: string): Promise<void> {
  const existing = await db.query.passkeys.findFirst({ where: eq(passkeys.id, id) });
  if (existing) throw new HubError("conflict", "This passkey is already registered with an account.");
}

function defaultLabel(response: RegistrationResponseBody, n: number): string {
  const kind = response.authenticatorAttachment === "cross-platform" ? "Security key" : "Passkey";
  return `${kind} ${n}`;
}

/** A copy on a plain ArrayBuffer (the library's types refuse a possibly shared one). */
function bytes(view: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(new ArrayBuffer(view.byteLength));
  out.set(view);
  return out;
}

function transportsOf(row: PasskeyRow) {
  try {
    const parsed: unknown = JSON.parse(row.transports ?? "[]");
    return Array.isArray(parsed) ? parsed.filter((t): t is string => typeof t === "string") : [];
  } catch {
    return [];
  }
}

/** Options for signing in with any passkey of this hub (discoverable credentials; passkey autofill). */
export async function signInOptions(db: Db, rp: RelyingParty, now: number) {
  const issued = await issueChallenge(db, "authenticate", null, now);
  return {
    challengeId: issued.id,
    options: await generateAuthenticationOptions({
      rpID: rpId(rp),
      challenge: bytes(fromBase64Url(issued.challenge)),
      userVerification: "required",
    }),
  };
}

/** Verifies a sign-in assertion; returns the account whose passkey signed it. */
export async function completeSignIn(
  db: Db,
  rp: RelyingParty,
  body: { challengeId: string; response: AuthenticationResponseBody },
  now: number,
): Promise<{ id: string; displayName: string }> {
  const challenge = await consumeChallenge(db, body.challengeId, "authenticate", now);
  const [found] = await db
    .select({ passkey: passkeys, account: accounts })
    .from(passkeys)
    .innerJoin(accounts, eq(accounts.id, passkeys.accountId))
    .where(eq(passkeys.id, body.response.id))
    .limit(1);
  if (!found)
    throw new HubError(
      "unauthorized",
      "This passkey is not registered here (it may have been removed from its account). Create an account or use another passkey.",
    );
  const handle = body.response.response.userHandle;
  if (handle && new TextDecoder().decode(fromBase64Url(handle)) !== found.account.id)
    throw refused(new Error("the passkey's user handle names another account"));
  let result;
  try {
    result = await verifyAuthenticationResponse({
      response: body.response,
      expectedChallenge: challenge.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rpId(rp),
      requireUserVerification: true,
      credential: {
        id: found.passkey.id,
        publicKey: bytes(fromBase64Url(found.passkey.publicKey)),
        counter: found.passkey.counter,
      },
    });
  } catch (e) {
    throw refused(e);
  }
  if (!result.verified) throw refused(new Error("the signature did not verify"));
  await db
    .update(passkeys)
    .set({ counter: result.authenticationInfo.newCounter, lastUsedAt: now })
    .where(eq(passkeys.id, found.passkey.id));
  return { id: found.account.id, displayName: found.account.displayName };
}

export async function renamePasskey(
  db: Db,
  accountId: string,
  id: string,
  label: string,
): Promise<PasskeyView> {
  const [row] = await db
    .update(passkeys)
    .set({ label })
    .where(and(eq(passkeys.id, id), eq(passkeys.accountId, accountId)))
    .returning();
  if (!row) throw new HubError("not_found", "Your account has no such passkey.");
  return passkeyView(row);
}

/** Removes a passkey of the account; never its last one (409). */
export async function removePasskey(db: Db, accountId: string, id: string): Promise<void> {
  // One statement: the count and the delete cannot be split by a concurrent removal.
  const gone = await db.$client
    .prepare(
      `DELETE FROM passkeys WHERE id = ?1 AND account_id = ?2
        AND (SELECT count(*) FROM passkeys WHERE account_id = ?2) > 1 RETURNING id`,
    )
    .bind(id, accountId)
    .all();
  if (gone.results.length > 0) return;
  const exists = await db.query.passkeys.findFirst({
    where: and(eq(passkeys.id, id), eq(passkeys.accountId, accountId)),
  });
  if (!exists) throw new HubError("not_found", "Your account has no such passkey.");
  throw new HubError(
    "conflict",
    "This is your account's only passkey: add another one first, or delete the account.",
  );
}
