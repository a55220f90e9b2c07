// REST request shapes of the registry API (bodies and query strings).
import * as z from "zod";
import { LIMITS } from "./limits.js";

export const RegisterSiteBodySchema = z.object({
  origin: z.string().min(1, "give the site's origin, like https://example.com").max(2048),
});
export type RegisterSiteBody = z.infer<typeof RegisterSiteBodySchema>;

export const VerifySiteBodySchema = z.object({
  method: z.enum(["http", "dns"], { message: 'method must be "http" or "dns"' }),
  /** The claim secret may also travel as `Authorization: Bearer whc_…`. */
  claimSecret: z.string().optional(),
});
export type VerifySiteBody = z.infer<typeof VerifySiteBodySchema>;

/** PUT /api/sites/:host/cloud: the owner's switch for cloud runs of the whole site. */
export const SiteCloudBodySchema = z
  .object({ enabled: z.boolean({ message: "enabled must be true or false" }) })
  .strict();
export type SiteCloudBody = z.infer<typeof SiteCloudBodySchema>;

/** PUT /api/sites/:host/manifest-source: a WebMCP manifest the site's ai-catalog.json lists, or null. */
export const SiteManifestSourceBodySchema = z
  .object({ url: z.string({ message: "url must be a URL or null" }).max(2048).nullable() })
  .strict();

const Limit = z.coerce
  .number({ message: "limit must be a number" })
  .int("limit must be a whole number")
  .min(1, "limit must be at least 1")
  .max(LIMITS.pageMax, `limit must be at most ${LIMITS.pageMax}`)
  .default(LIMITS.pageDefault);

const BoolParam = z
  .enum(["true", "false"], { message: 'must be "true" or "false"' })
  .transform((v) => v === "true");

export const ToolSearchParamsSchema = z.object({
  q: z.string().max(200, "q must be at most 200 characters").optional(),
  site: z.string().max(300).optional(),
  readOnly: BoolParam.optional(),
  cursor: z.string().max(1024).optional(),
  limit: Limit,
  /** The feed for mirrors (src/worker/registry/feeds.ts): RFC 3339 date-time; checked there, 400 if bad. */
  updated_since: z.string().max(64).optional(),
});
export type ToolSearchParams = z.infer<typeof ToolSearchParamsSchema>;

export const SiteListParamsSchema = z.object({
  sort: z.enum(["host", "recent"]).default("host"),
  cursor: z.string().max(1024).optional(),
  limit: Limit,
  /** The feed for mirrors (src/worker/registry/feeds.ts): RFC 3339 date-time; checked there, 400 if bad. */
  updated_since: z.string().max(64).optional(),
});

export const ManifestVersionParamsSchema = z.object({
  version: z.coerce
    .number({ message: "version must be a number" })
    .int()
    .min(1, "versions start at 1")
    .optional(),
});

export const EXPORT_FORMATS = ["mcp", "openai", "anthropic", "gemini"] as const;
export const ExportFormatSchema = z.enum(EXPORT_FORMATS, {
  message: `format must be one of ${EXPORT_FORMATS.join(", ")}`,
});
export type ExportFormat = z.infer<typeof ExportFormatSchema>;
export const ExportParamsSchema = z.object({ format: ExportFormatSchema.default("mcp") });
