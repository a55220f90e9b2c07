// A software passkey authenticator (ES256 on WebCrypto) for Worker tests: the outside world the hub's WebAuthn
// verification meets. It answers the options the hub sends, as a browser would, with "none" attestation (or a
// statement a test supplies).
import { isoCBOR } from "@simplewebauthn/server/helpers";
import { base64Url, fromBase64Url } from "../../src/worker/secrets.js";

/** A value CBOR encodes (the library's encoder's argument type). */
export type CBORType = Parameters<typeof isoCBOR.encode>[0];

interface Credential {
  id: string;
  keys: CryptoKeyPair;
  userHandle: string;
  counter: number;
}

export interface CeremonyOverrides {
  /** The page origin the "browser" reports in clientDataJSON. */
  origin?: string;
  /** A challenge other than the one the hub sent. */
  challenge?: string;
  /** The relying party ID whose hash goes into authenticatorData. */
  rpId?: string;
}

/**
 * An attestation statement other than "none" for `create`: its format and statement, given the bytes an
 * attestation signature covers (authenticatorData || SHA-256(clientDataJSON)) and the credential's key pair.
 */
export type AttestationStatement = (
  signed: Uint8Array,
  keys: CryptoKeyPair,
) => Promise<{ fmt: string; attStmt: Map<string, CBORType> }>;

/** An ES256 attestation signature (DER), as "packed" and "fido-u2f" statements carry it. */
export async function es256Signature(key: CryptoKey, data: Uint8Array): Promise<Uint8Array> {
  return derSignature(
    new Uint8Array(await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, key, data)),
  );
}

const sha256 = async (data: Uint8Array) => new Uint8Array(await crypto.subtle.digest("SHA-256", data));
const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const u32 = (n: number) => new Uint8Array([(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** WebCrypto's raw r||s signature as the DER the WebAuthn ES256 format uses. */
function derSignature(raw: Uint8Array): Uint8Array {
  const int = (b: Uint8Array) => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.slice(i);
    if (v[0]! & 0x80) v = concat(new Uint8Array([0]), v);
    return concat(new Uint8Array([2, v.length]), v);
  };
  const body = concat(int(raw.slice(0, 32)), int(raw.slice(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

interface CreationOptions {
  challenge: string;
  rp: { id?: string };
  user: { id: string };
}
interface RequestOptions {
  challenge: string;
  rpId?: string;
}

export class SoftAuthenticator {
  readonly credentials: Credential[] = [];

  constructor(private readonly origin: string) {}

  /** navigator.credentials.create(): a new ES256 credential, answered as RegistrationResponseJSON. */
  async create(options: CreationOptions, o: CeremonyOverrides & { attestation?: AttestationStatement } = {}) {
    const keys = (await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", keys.publicKey)) as JsonWebKey;
    const idBytes = crypto.getRandomValues(new Uint8Array(16));
    const id = base64Url(idBytes);
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, fromBase64Url(jwk.x!)],
        [-3, fromBase64Url(jwk.y!)],
      ]),
    );
    const rpId = o.rpId ?? options.rp.id ?? new URL(this.origin).hostname;
    const authData = concat(
      await sha256(new TextEncoder().encode(rpId)),
      new Uint8Array([0x45]), // user present, user verified, attested credential data
      u32(0),
      new Uint8Array(16), // AAGUID
      new Uint8Array([0, idBytes.length]),
      idBytes,
      cose,
    );
    const clientData = new TextEncoder().encode(
      JSON.stringify({
        type: "webauthn.create",
        challenge: o.challenge ?? options.challenge,
        origin: o.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const statement = o.attestation
      ? await o.attestation(concat(authData, await sha256(clientData)), keys)
      : { fmt: "none", attStmt: new Map<string, CBORType>() };
    const attestationObject = isoCBOR.encode(
      new Map<string, CBORType>([
        ["fmt", statement.fmt],
        ["attStmt", statement.attStmt],
        ["authData", authData],
      ]),
    );
    this.credentials.push({ id, keys, userHandle: options.user.id, counter: 0 });
    return {
      id,
      rawId: id,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: {
        clientDataJSON: base64Url(clientData),
        attestationObject: base64Url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** navigator.credentials.get() with a discoverable credential (the newest, or `credentialId`). */
  async get(options: RequestOptions, o: CeremonyOverrides & { credentialId?: string } = {}) {
    const cred = o.credentialId
      ? this.credentials.find((c) => c.id === o.credentialId)
      : this.credentials[this.credentials.length - 1];
    if (!cred) throw new Error("the soft authenticator holds no such credential");
    cred.counter++;
    const rpId = o.rpId ?? options.rpId ?? new URL(this.origin).hostname;
    const authData = concat(
      await sha256(new TextEncoder().encode(rpId)),
      new Uint8Array([0x05]),
      u32(cred.counter),
    );
    const clientData = new TextEncoder().encode(
      JSON.stringify({
        type: "webauthn.get",
        challenge: o.challenge ?? options.challenge,
        origin: o.origin ?? this.origin,
        crossOrigin: false,
      }),
    );
    const signed = concat(authData, await sha256(clientData));
    const raw = new Uint8Array(
      await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, cred.keys.privateKey, signed),
    );
    return {
      id: cred.id,
      rawId: cred.id,
      type: "public-key" as const,
      clientExtensionResults: {},
      authenticatorAttachment: "platform" as const,
      response: {
        clientDataJSON: base64Url(clientData),
        authenticatorData: base64Url(authData),
        signature: base64Url(derSignature(raw)),
        userHandle: cred.userHandle,
      },
    };
  }
}
