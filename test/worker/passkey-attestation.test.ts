// Attestation statements the hub meets at sign-up, and the ASN.1 shim the Worker bundle uses instead of
// @simplewebauthn/server's certificate packages (wrangler.toml [alias], src/worker/shims/webauthn-asn1.ts).
// A statement carrying certificates is dropped to "none" (the hub asks for "none" and trusts no attestation
// root), so no certificate is ever parsed; self attestation is still verified. The shim's ECDSA signature
// parse gives what @peculiar/asn1-schema gives (these tests import the real packages: vitest does not apply
// wrangler's [alias]); test/e2e/accounts.test.ts signs in through the aliased bundle under `wrangler dev`.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { eq } from "drizzle-orm";
import { AsnParser as RealAsnParser } from "@peculiar/asn1-schema";
import { ECDSASigValue as RealECDSASigValue } from "@peculiar/asn1-ecc";
import { Certificate as RealCertificate } from "@peculiar/asn1-x509";
import { database } from "../../src/worker/db/client.js";
import { accounts, passkeys } from "../../src/worker/db/schema.js";
import * as shim from "../../src/worker/shims/webauthn-asn1.js";
import * as formats from "../../src/worker/shims/webauthn-attestation-formats.js";
import { api, BASE } from "./helpers.js";
import {
  es256Signature,
  SoftAuthenticator,
  type AttestationStatement,
  type CBORType,
} from "./account-authenticator.js";

const db = () => database(env.DB);
const same = { origin: BASE };

async function signUp(name: string, auth: SoftAuthenticator, attestation: AttestationStatement) {
  const opts = (await (
    await api("/api/account/sign-up/options", { method: "POST", headers: same, json: { displayName: name } })
  ).json()) as { challengeId: string; options: Parameters<SoftAuthenticator["create"]>[0] };
  const response = await auth.create(opts.options, { attestation });
  return api("/api/account/sign-up/verify", {
    method: "POST",
    headers: same,
    json: { challengeId: opts.challengeId, displayName: name, response },
  });
}

async function signIn(auth: SoftAuthenticator) {
  const opts = (await (
    await api("/api/account/sign-in/options", { method: "POST", headers: same })
  ).json()) as { challengeId: string; options: Parameters<SoftAuthenticator["get"]>[0] };
  const response = await auth.get(opts.options);
  return api("/api/account/sign-in/verify", {
    method: "POST",
    headers: same,
    json: { challengeId: opts.challengeId, response },
  });
}

async function accountNamed(name: string) {
  return db().query.accounts.findFirst({ where: eq(accounts.displayName, name) });
}

/** Bytes no certificate parser accepts: reaching one would fail the ceremony. */
const notACertificate = new TextEncoder().encode("not a certificate");

describe("attestation statements at sign-up", () => {
  const statement = (f: AttestationStatement) => f;
  it.each([
    [
      "packed with a certificate chain (x5c)",
      statement(async (signed, keys) => ({
        fmt: "packed",
        attStmt: new Map<string, CBORType>([
          ["alg", -7],
          ["sig", await es256Signature(keys.privateKey, signed)],
          ["x5c", [notACertificate]],
        ]),
      })),
    ],
    [
      "fido-u2f",
      statement(async (signed, keys) => ({
        fmt: "fido-u2f",
        attStmt: new Map<string, CBORType>([
          ["sig", await es256Signature(keys.privateKey, signed)],
          ["x5c", [notACertificate]],
        ]),
      })),
    ],
    [
      "tpm",
      statement(async () => ({
        fmt: "tpm",
        attStmt: new Map<string, CBORType>([
          ["ver", "2.0"],
          ["x5c", [notACertificate]],
        ]),
      })),
    ],
  ])(
    "%s: the statement is dropped to none; the account is created and its passkey signs in",
    async (kind, attestation) => {
      const name = `Att ${kind.slice(0, 20)}`;
      const auth = new SoftAuthenticator(BASE);
      const res = await signUp(name, auth, attestation);
      expect(res.status, await res.clone().text()).toBe(201);
      const account = await accountNamed(name);
      expect(account).toBeDefined();
      const stored = await db().query.passkeys.findMany({ where: eq(passkeys.accountId, account!.id) });
      expect(stored.map((p) => p.id)).toEqual([auth.credentials[0]!.id]);
      expect((await signIn(auth)).status).toBe(200);
    },
  );

  it("self attestation (packed, no x5c) is verified: a good signature creates the account, a bad one is refused", async () => {
    const good: AttestationStatement = async (signed, keys) => ({
      fmt: "packed",
      attStmt: new Map<string, CBORType>([
        ["alg", -7],
        ["sig", await es256Signature(keys.privateKey, signed)],
      ]),
    });
    const auth = new SoftAuthenticator(BASE);
    expect((await signUp("Self good", auth, good)).status).toBe(201);
    expect((await signIn(auth)).status).toBe(200);

    const other = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const forged: AttestationStatement = async (signed) => ({
      fmt: "packed",
      attStmt: new Map<string, CBORType>([
        ["alg", -7],
        ["sig", await es256Signature(other.privateKey, signed)],
      ]),
    });
    const res = await signUp("Self forged", new SoftAuthenticator(BASE), forged);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("verification_failed");
    expect(await accountNamed("Self forged")).toBeUndefined();
  });
});

/** DER of an INTEGER with these content bytes. */
function derInteger(content: Uint8Array): number[] {
  return [0x02, ...derLength(content.length), ...content];
}
function derLength(n: number): number[] {
  return n < 0x80 ? [n] : n < 0x100 ? [0x81, n] : [0x82, n >> 8, n & 0xff];
}
/** The minimal DER INTEGER contents of an unsigned big-endian number. */
function integerContent(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const v = bytes.slice(i);
  return v[0]! & 0x80 ? Uint8Array.from([0, ...v]) : v;
}
function derSignature(r: Uint8Array, s: Uint8Array): Uint8Array {
  const body = [...derInteger(integerContent(r)), ...derInteger(integerContent(s))];
  return Uint8Array.from([0x30, ...derLength(body.length), ...body]);
}
const hex = (b: ArrayBuffer) => [...new Uint8Array(b)].map((x) => x.toString(16).padStart(2, "0")).join("");

describe("the Worker's ASN.1 shim (src/worker/shims/webauthn-asn1.ts)", () => {
  it("these tests compare it with the real packages, not with itself", () => {
    expect(shim.AsnParser).not.toBe(RealAsnParser);
    expect(shim.ECDSASigValue).not.toBe(RealECDSASigValue);
  });

  it("parses ECDSA signatures (P-256, P-384, P-521 sizes) exactly as @peculiar/asn1-schema does", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(32, 48, 66),
        fc.uint8Array({ minLength: 66, maxLength: 66 }),
        fc.uint8Array({ minLength: 66, maxLength: 66 }),
        fc.nat(40),
        (size, rBytes, sBytes, zeros) => {
          // Leading zero bytes make short INTEGERs, a high first bit makes a 0x00-prefixed one.
          const r = rBytes.slice(0, size).fill(0, 0, Math.min(zeros, size - 1));
          const s = sBytes.slice(0, size);
          const der = derSignature(r, s);
          const real = RealAsnParser.parse(der, RealECDSASigValue);
          const ours = shim.AsnParser.parse(der, shim.ECDSASigValue);
          expect(hex(ours.r)).toBe(hex(real.r));
          expect(hex(ours.s)).toBe(hex(real.s));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("accepts an ArrayBuffer or a view into a larger buffer", () => {
    const der = derSignature(Uint8Array.from([0x80, 1]), Uint8Array.from([5]));
    const framed = new Uint8Array(der.length + 4);
    framed.set(der, 2);
    for (const input of [der.slice().buffer, framed.subarray(2, 2 + der.length)]) {
      const v = shim.AsnParser.parse(input, shim.ECDSASigValue);
      expect([hex(v.r), hex(v.s)]).toEqual(["008001", "05"]);
    }
  });

  it("refuses what is not one DER ECDSA-Sig-Value, as the real parser does; ignores bytes after it, as it does", () => {
    const good = derSignature(Uint8Array.from([1]), Uint8Array.from([2]));
    const bad = [
      new Uint8Array(0),
      Uint8Array.from([0x31, ...good.slice(1)]), // a SET, not a SEQUENCE
      good.slice(0, good.length - 1), // truncated
      Uint8Array.from([0x30, 3, 0x02, 1, 1]), // s missing
      Uint8Array.from([0x30, 6, 0x04, 1, 1, 0x02, 1, 2]), // r an OCTET STRING
    ];
    for (const der of bad) {
      expect(() => shim.AsnParser.parse(der, shim.ECDSASigValue)).toThrow();
      expect(() => RealAsnParser.parse(der, RealECDSASigValue)).toThrow();
    }
    const trailing = Uint8Array.from([...good, 0, 7]);
    const ours = shim.AsnParser.parse(trailing, shim.ECDSASigValue);
    const real = RealAsnParser.parse(trailing, RealECDSASigValue);
    expect([hex(ours.r), hex(ours.s)]).toEqual([hex(real.r), hex(real.s)]);
    // BER's indefinite length: the real parser takes it, the shim only DER (no WebAuthn signature uses it).
    const indefinite = Uint8Array.from([0x30, 0x80, ...good.slice(2), 0, 0]);
    expect(() => shim.AsnParser.parse(indefinite, shim.ECDSASigValue)).toThrow(/unsupported length/);
  });

  it("parses nothing else and builds no certificate: each throws, naming why", () => {
    expect(() => shim.AsnParser.parse(new Uint8Array([0x30, 0]), shim.Certificate)).toThrow(
      /attestation "none"/,
    );
    expect(() => new shim.X509Certificate()).toThrow(/no attestation certificates/);
    expect(() => new shim.Certificate()).toThrow(/no attestation certificates/);
    // The real package parses certificates: the shim stands in only where none are needed.
    expect(() => RealAsnParser.parse(notACertificate, RealCertificate)).toThrow();
  });
});

describe("the Worker's stand-ins for certificate-carrying attestation verifiers", () => {
  it("each refuses, naming its format: reaching one fails the ceremony rather than accepting it", async () => {
    const cases = [
      [formats.verifyAttestationFIDOU2F, "fido-u2f"],
      [formats.verifyAttestationAndroidSafetyNet, "android-safetynet"],
      [formats.verifyAttestationAndroidKey, "android-key"],
      [formats.verifyAttestationTPM, "tpm"],
      [formats.verifyAttestationApple, "apple"],
    ] as const;
    for (const [verify, format] of cases) await expect(verify()).rejects.toThrow(`"${format}" attestation`);
  });
});
