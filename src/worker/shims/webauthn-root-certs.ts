// Stands in, in the Worker bundle only (wrangler.toml [alias]), for @simplewebauthn/server's default attestation
// root certificates (Google, Apple, GlobalSign: about 9 KiB gzipped of base64). Only the verifiers of
// certificate-carrying attestation formats read them, and the Worker never runs those
// (see webauthn-attestation-formats.ts): so each is an empty string, which the library stores without parsing.
export const GlobalSign_Root_CA = "";
export const Google_Hardware_Attestation_Root_1 = "";
export const Google_Hardware_Attestation_Root_2 = "";
export const Google_Hardware_Attestation_Root_3 = "";
export const Google_Hardware_Attestation_Root_4 = "";
export const Apple_WebAuthn_Root_CA = "";
export const GlobalSign_Root_CA_R3 = "";
export const GlobalSign_Root_R46 = "";
