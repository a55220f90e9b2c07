// MCP CallToolResult as providers return it (tabs and the sidecar), validated before it reaches an agent.
import * as z from "zod";

const Annotations = z
  .object({
    audience: z.array(z.enum(["user", "assistant"])).optional(),
    priority: z.number().min(0).max(1).optional(),
    lastModified: z.string().optional(),
  })
  .loose();
const Meta = z.record(z.string(), z.unknown());

export const TextContentSchema = z.object({
  type: z.literal("text"),
  text: z.string(),
  annotations: Annotations.optional(),
  _meta: Meta.optional(),
});
export const ImageContentSchema = z.object({
  type: z.literal("image"),
  data: z.base64(),
  mimeType: z.string(),
  annotations: Annotations.optional(),
  _meta: Meta.optional(),
});
export const AudioContentSchema = z.object({
  type: z.literal("audio"),
  data: z.base64(),
  mimeType: z.string(),
  annotations: Annotations.optional(),
  _meta: Meta.optional(),
});
const ResourceContents = z.union([
  z.object({ uri: z.string(), mimeType: z.string().optional(), text: z.string(), _meta: Meta.optional() }),
  z.object({ uri: z.string(), mimeType: z.string().optional(), blob: z.base64(), _meta: Meta.optional() }),
]);
export const EmbeddedResourceSchema = z.object({
  type: z.literal("resource"),
  resource: ResourceContents,
  annotations: Annotations.optional(),
  _meta: Meta.optional(),
});
export const ResourceLinkSchema = z.object({
  type: z.literal("resource_link"),
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  annotations: Annotations.optional(),
  _meta: Meta.optional(),
});

export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  EmbeddedResourceSchema,
  ResourceLinkSchema,
]);
export type ContentBlock = z.infer<typeof ContentBlockSchema>;

export const CallToolResultSchema = z.object({
  content: z.array(ContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: Meta.optional(),
});
export type CallToolResult = z.infer<typeof CallToolResultSchema>;

/** A failed call as an agent sees it: `isError` with one sentence it can act on. */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: "text", text }] };
}

export const LOGGING_LEVELS = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
] as const;
export const LoggingLevelSchema = z.enum(LOGGING_LEVELS);
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
