// Stands in, in the Worker bundle only (wrangler.toml [alias]), for the attestation verifiers of
// @simplewebauthn/server that need certificates: fido-u2f, android-safetynet, android-key, tpm and apple. Those
// statements always carry certificates, and src/worker/accounts/passkeys.ts drops every such statement to
// "none" before verifying (the hub asks for "none" and trusts no attestation root), so verifyRegistrationResponse
// never reaches them; if it ever did, the ceremony fails with this error instead of accepting anything.
// "none" and "packed" (self attestation) keep the library's own verification.

function unreachable(format: string): () => Promise<boolean> {
  return async () => {
    throw new Error(
      `"${format}" attestation is not verified by the hub's Worker: it accepts attestation "none" only`,
    );
  };
}

export const verifyAttestationFIDOU2F = unreachable("fido-u2f");
export const verifyAttestationAndroidSafetyNet = unreachable("android-safetynet");
export const verifyAttestationAndroidKey = unreachable("android-key");
export const verifyAttestationTPM = unreachable("tpm");
export const verifyAttestationApple = unreachable("apple");
