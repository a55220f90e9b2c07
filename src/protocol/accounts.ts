// REST shapes of accounts: passkey ceremonies (the JSON @simplewebauthn/browser produces), passkeys, claiming
// channels and sites, and owner keys.
import * as z from "zod";

export const DisplayNameSchema = z.string().trim().min(1, "give a name").max(64);
export const KeyLabelSchema = z.string().trim().min(1, "give a label").max(64);

const Base64UrlSchema = z.string().regex(/^[A-Za-z0-9_-]*$/, "base64url text");
/** Transports a browser reports; unknown future ones are dropped rather than refused. */
const TRANSPORTS = ["ble", "cable", "hybrid", "internal", "nfc", "smart-card", "usb"] as const;
const TransportsSchema = z
  .array(z.string().max(32))
  .max(10)
  .transform((list) =>
    list.filter((t): t is (typeof TRANSPORTS)[number] => (TRANSPORTS as readonly string[]).includes(t)),
  );

const CredentialBase = {
  id: Base64UrlSchema.min(1).max(1400),
  rawId: Base64UrlSchema.min(1).max(1400),
  type: z.literal("public-key"),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(["platform", "cross-platform"]).optional(),
};

/** `navigator.credentials.create()` as JSON (RegistrationResponseJSON). */
export const RegistrationResponseSchema = z.object({
  ...CredentialBase,
  response: z.looseObject({
    clientDataJSON: Base64UrlSchema.min(1).max(4096),
    attestationObject: Base64UrlSchema.min(1).max(16384),
    transports: TransportsSchema.optional(),
  }),
});

/** `navigator.credentials.get()` as JSON (AuthenticationResponseJSON). */
export const AuthenticationResponseSchema = z.object({
  ...CredentialBase,
  response: z.looseObject({
    clientDataJSON: Base64UrlSchema.min(1).max(4096),
    authenticatorData: Base64UrlSchema.min(1).max(4096),
    signature: Base64UrlSchema.min(1).max(1024),
    userHandle: Base64UrlSchema.max(128).optional(),
  }),
});

const ChallengeIdSchema = z.uuid("the challengeId the options call returned");

export const SignUpOptionsBodySchema = z.object({ displayName: DisplayNameSchema });
export const SignUpVerifyBodySchema = z.object({
  challengeId: ChallengeIdSchema,
  displayName: DisplayNameSchema,
  response: RegistrationResponseSchema,
  passkeyLabel: KeyLabelSchema.optional(),
});
export const SignInVerifyBodySchema = z.object({
  challengeId: ChallengeIdSchema,
  response: AuthenticationResponseSchema,
});
export const AddPasskeyVerifyBodySchema = z.object({
  challengeId: ChallengeIdSchema,
  response: RegistrationResponseSchema,
  label: KeyLabelSchema.optional(),
});
export const RenamePasskeyBodySchema = z.object({ label: KeyLabelSchema });

export const ClaimChannelBodySchema = z.object({
  ownerKey: z.string().regex(/^who_[A-Za-z0-9_-]{43}$/, "an owner key looks like who_ and 43 characters"),
});
export const ClaimSiteBodySchema = z.object({
  publisherKey: z
    .string()
    .regex(/^whp_[A-Za-z0-9_-]{43}$/, "a publisher key looks like whp_ and 43 characters"),
});
export const CreateOwnerKeyBodySchema = z.object({ label: KeyLabelSchema.default("script") });
export const CreatePublisherKeyBodySchema = z.object({ label: KeyLabelSchema.default("script") });

export type RegistrationResponseBody = z.infer<typeof RegistrationResponseSchema>;
export type AuthenticationResponseBody = z.infer<typeof AuthenticationResponseSchema>;

/** A passkey as the account page lists it. */
export const PasskeyViewSchema = z.object({
  id: z.string(),
  label: z.string(),
  createdAt: z.string(),
  lastUsedAt: z.string().nullable(),
  backedUp: z.boolean(),
});
export type PasskeyView = z.infer<typeof PasskeyViewSchema>;

/** An owner or publisher key as listed: never the key itself, only its label and dates. */
export const KeyViewSchema = z.object({
  id: z.string(),
  label: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
});
export type KeyView = z.infer<typeof KeyViewSchema>;
