// Stands in, in the Worker bundle only (wrangler.toml [alias]), for what @simplewebauthn/server's "packed"
// verifier needs for a full attestation (a statement with an x5c certificate chain): certificate parsing,
// chain and revocation checks, the FIDO Metadata Service. src/worker/accounts/passkeys.ts drops every statement
// that carries certificates to "none" before verifying (the hub asks for "none" and trusts no attestation
// root), so "packed" only ever sees self attestation (no x5c) and never reaches these; if it ever did, the
// ceremony fails with this error instead of accepting anything. (verifySignature's certificate branch, which
// converts an x5c certificate's key, is reached only from that path too.)

function unreachable(what: string): never {
  throw new Error(`${what} is not available in the hub's Worker: it accepts attestation "none" only`);
}

export const validateCertificatePath = async (): Promise<boolean> => unreachable("certificate paths");
export const getCertificateInfo = (): never => unreachable("certificate parsing");
export const validateExtFIDOGenCEAAGUID = async (): Promise<boolean> => unreachable("certificate extensions");
export const verifyAttestationWithMetadata = async (): Promise<boolean> =>
  unreachable("the Metadata Service");
export const isCertRevoked = async (): Promise<boolean> => unreachable("certificate revocation");
export const convertX509PublicKeyToCOSE = (): never => unreachable("certificate public keys");
export const MetadataService = {
  getStatement: async (): Promise<undefined> => unreachable("the Metadata Service"),
};
