// A live tool checked against what its tab's origin published (ARCHITECTURE.md "Live tools checked against
// the registry"): the `_meta["webmcp-hub/verification"]` value agents see, the field the approval request
// carries to the tab, and the channel setting that decides what agents may call.
import * as z from "zod";

export const META_VERIFICATION = "webmcp-hub/verification";

export const VERIFICATION_STATUSES = ["verified", "changed", "unpublished"] as const;
export type VerificationStatus = (typeof VERIFICATION_STATUSES)[number];

/** The members of a definition that can differ from the published one (what a digest covers, less the name). */
export const DIGESTED_MEMBERS = [
  "title",
  "description",
  "inputSchema",
  "outputSchema",
  "annotations",
] as const;
export type DigestedMember = (typeof DIGESTED_MEMBERS)[number];

export const ToolVerificationSchema = z.object({
  status: z.enum(VERIFICATION_STATUSES),
  /** The verified site (host) whose current manifest the tool was compared with; absent when none. */
  site: z.string().max(300).optional(),
  /** That manifest's version. */
  version: z.number().int().positive().optional(),
  /** `changed`: the members whose value differs from the published tool's. */
  differs: z.array(z.enum(DIGESTED_MEMBERS)).max(DIGESTED_MEMBERS.length).optional(),
});
export type ToolVerification = z.infer<typeof ToolVerificationSchema>;

/**
 * What a channel's agents may call: `all` (default; the verification is only in `_meta`), `warn` (a warning
 * prefixed to the description of every tool that is not verified), `verified` (others stay listed, with a
 * note, and calls to them are refused with an isError result).
 */
export const VERIFICATION_POLICIES = ["all", "warn", "verified"] as const;
export const VerificationPolicySchema = z.enum(VERIFICATION_POLICIES);
export type VerificationPolicy = z.infer<typeof VerificationPolicySchema>;

/** PATCH /api/channels/:id: the owner's channel settings (each optional; absent ones are left as they are). */
export const ChannelSettingsBodySchema = z
  .object({ verificationPolicy: VerificationPolicySchema.optional() })
  .strict();
