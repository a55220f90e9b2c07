// Stands in for @simplewebauthn/server's ASN.1 and X.509 dependencies (@peculiar/asn1-schema, -ecc, -x509,
// -rsa, -android, -x509-post-quantum, @peculiar/x509) in the Worker bundle, through wrangler.toml's [alias]:
// together with asn1js, tsyringe and reflect-metadata they were about a quarter of the gzipped bundle. The hub
// asks for "none" attestation and turns any other statement into "none" before verifying
// (src/worker/accounts/passkeys.ts), so attestation certificates are never parsed. What is left of ASN.1 is
// one structure: the DER `ECDSA-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER }` of an ES256/ES384/ES512
// signature, which @simplewebauthn/server unwraps (`AsnParser.parse(signature, ECDSASigValue)`) on every
// sign-in. That parse is real here (r and s as their INTEGER contents, as @peculiar/asn1-schema returns them:
// test/worker/passkey-attestation.test.ts compares the two; only DER's definite lengths, where the real parser
// also takes BER's indefinite one, which no WebAuthn signature uses); every other use throws.
// Only the Worker bundle uses this module: the Worker tests (vitest) and the Node code import the real packages.

function unsupported(what: string): never {
  throw new Error(
    `${what} is not available in the hub's Worker: it verifies no attestation certificates (attestation "none")`,
  );
}

/** A class whose construction throws: certificate structures are never built in the Worker. */
function certificateClass(name: string) {
  return class {
    constructor() {
      unsupported(name);
    }
  };
}

/** @peculiar/asn1-ecc's ECDSASigValue: the only schema `AsnParser.parse` accepts here. */
export class ECDSASigValue {
  r: ArrayBuffer = new ArrayBuffer(0);
  s: ArrayBuffer = new ArrayBuffer(0);
  constructor(params: Partial<{ r: ArrayBuffer; s: ArrayBuffer }> = {}) {
    Object.assign(this, params);
  }
}

/** One DER element (tag, definite length) at `at`: its content's bounds and the offset after it. */
function element(der: Uint8Array, at: number, tag: number): { start: number; end: number } {
  if (der[at] !== tag) throw new Error(`ASN.1: expected tag 0x${tag.toString(16)} at byte ${at}`);
  let length = der[at + 1];
  let start = at + 2;
  if (length === undefined) throw new Error("ASN.1: truncated length");
  if (length & 0x80) {
    const bytes = length & 0x7f;
    // Indefinite lengths (0x80) are not DER; more than two length bytes cannot occur in a signature.
    if (bytes === 0 || bytes > 2) throw new Error("ASN.1: unsupported length encoding");
    length = 0;
    for (let i = 0; i < bytes; i++) {
      const b = der[start + i];
      if (b === undefined) throw new Error("ASN.1: truncated length");
      length = length * 256 + b;
    }
    start += bytes;
  }
  const end = start + length;
  if (end > der.length) throw new Error("ASN.1: content runs past the end of the data");
  return { start, end };
}

function parseEcdsaSignature(der: Uint8Array): ECDSASigValue {
  // Bytes after the SEQUENCE are ignored, as @peculiar/asn1-schema ignores them.
  const seq = element(der, 0, 0x30);
  const r = element(der, seq.start, 0x02);
  const s = element(der, r.end, 0x02);
  if (s.end !== seq.end) throw new Error("ASN.1: data after s in the signature");
  if (r.start === r.end || s.start === s.end) throw new Error("ASN.1: empty INTEGER");
  return new ECDSASigValue({ r: copy(der, r), s: copy(der, s) });
}

function copy(der: Uint8Array, part: { start: number; end: number }): ArrayBuffer {
  const out = new ArrayBuffer(part.end - part.start);
  new Uint8Array(out).set(der.subarray(part.start, part.end));
  return out;
}

function bytesOf(data: unknown): Uint8Array {
  if (data instanceof Uint8Array) return data;
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  throw new TypeError("ASN.1: expected bytes");
}

/** @peculiar/asn1-schema's parser, for ECDSA signatures only. */
export const AsnParser = {
  parse(data: unknown, target: unknown): ECDSASigValue {
    if (target !== ECDSASigValue) unsupported("ASN.1 parsing of certificate structures");
    return parseEcdsaSignature(bytesOf(data));
  },
};

// @peculiar/asn1-schema
export const OctetString = certificateClass("ASN.1 OctetString");
// @peculiar/asn1-ecc
export const ECParameters = certificateClass("ASN.1 ECParameters");
// @peculiar/asn1-x509
export const Certificate = certificateClass("X.509 Certificate");
export const BasicConstraints = certificateClass("X.509 BasicConstraints");
export const ExtendedKeyUsage = certificateClass("X.509 ExtendedKeyUsage");
export const SubjectAlternativeName = certificateClass("X.509 SubjectAlternativeName");
// @peculiar/asn1-android
export const KeyDescription = certificateClass("Android KeyDescription");
// @peculiar/asn1-rsa
export const RSAPublicKey = certificateClass("ASN.1 RSAPublicKey");
// @peculiar/x509
export const X509Certificate = certificateClass("X509Certificate");
export const X509ChainBuilder = certificateClass("X509ChainBuilder");
export const X509Crl = certificateClass("X509Crl");
export const AuthorityKeyIdentifierExtension = certificateClass("AuthorityKeyIdentifierExtension");
export const CRLDistributionPointsExtension = certificateClass("CRLDistributionPointsExtension");
export const SubjectKeyIdentifierExtension = certificateClass("SubjectKeyIdentifierExtension");

// The object identifiers @simplewebauthn/server compares with, as the real packages define them.
export const id_ecPublicKey = "1.2.840.10045.2.1";
export const id_secp256r1 = "1.2.840.10045.3.1.7";
export const id_secp384r1 = "1.3.132.0.34";
export const id_ecdsaWithSHA256 = "1.2.840.10045.4.3.2";
export const id_ecdsaWithSHA384 = "1.2.840.10045.4.3.3";
export const id_ecdsaWithSHA512 = "1.2.840.10045.4.3.4";
export const id_rsaEncryption = "1.2.840.113549.1.1.1";
export const id_sha1WithRSAEncryption = "1.2.840.113549.1.1.5";
export const id_sha256WithRSAEncryption = "1.2.840.113549.1.1.11";
export const id_sha384WithRSAEncryption = "1.2.840.113549.1.1.12";
export const id_sha512WithRSAEncryption = "1.2.840.113549.1.1.13";
export const id_ce_basicConstraints = "2.5.29.19";
export const id_ce_subjectAltName = "2.5.29.17";
export const id_ce_extKeyUsage = "2.5.29.37";
export const id_ce_keyDescription = "1.3.6.1.4.1.11129.2.1.17";
export const id_ml_dsa_44 = "2.16.840.1.101.3.4.3.17";
export const id_ml_dsa_65 = "2.16.840.1.101.3.4.3.18";
export const id_ml_dsa_87 = "2.16.840.1.101.3.4.3.19";
