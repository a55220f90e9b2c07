// ToolDescriptor: one tool as a page, a sidecar or a manifest describes it (MCP shape + WebMCP hints).
import * as z from "zod";
import { LIMITS } from "./limits.js";
import { TOOL_NAME_PATTERN } from "./names.js";

/** A hint given as a boolean, or as the strings "true" / "false" some WebMCP docs use; stored as a boolean. */
export const HintSchema = z
  .union([z.boolean(), z.enum(["true", "false"]).transform((v) => v === "true")])
  .describe('a boolean, or the string "true" or "false"');

export const ToolAnnotationsSchema = z
  .object({
    title: z.string().max(LIMITS.titleMax).optional(),
    readOnlyHint: HintSchema.optional(),
    destructiveHint: HintSchema.optional(),
    idempotentHint: HintSchema.optional(),
    openWorldHint: HintSchema.optional(),
    untrustedContentHint: HintSchema.optional(),
    consequentialHint: HintSchema.optional(),
  })
  .strict();
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;

/** A JSON Schema object as it travels; whether it is a valid 2020-12 object schema is checked separately. */
export const JsonSchemaObjectSchema = z.record(z.string(), z.unknown());
export type JsonSchemaObject = z.infer<typeof JsonSchemaObjectSchema>;

export const EMPTY_INPUT_SCHEMA: JsonSchemaObject = Object.freeze({ type: "object", properties: {} });

/** The `_meta` key under which a tool agents see names where it runs (a tab, the sidecar, the registry, the
 *  cloud) and, for a tab, its origin. */
export const META_PROVIDER = "webmcp-hub/provider";

export const ToolNameSchema = z
  .string()
  .min(1, "a tool name cannot be empty")
  .max(LIMITS.toolNameMax, `a tool name has at most ${LIMITS.toolNameMax} characters`)
  .regex(TOOL_NAME_PATTERN, "a tool name may use only letters, digits, '_', '-' and '.'");

export const ToolDescriptorSchema = z.object({
  name: ToolNameSchema,
  title: z.string().max(LIMITS.titleMax).optional(),
  description: z
    .string()
    .min(1, "describe what the tool does: agents choose tools by their description")
    .max(LIMITS.descriptionMax),
  inputSchema: JsonSchemaObjectSchema.default(() => ({ ...EMPTY_INPUT_SCHEMA })),
  outputSchema: JsonSchemaObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
});
export type ToolDescriptor = z.infer<typeof ToolDescriptorSchema>;
export type ToolDescriptorInput = z.input<typeof ToolDescriptorSchema>;
