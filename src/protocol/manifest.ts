// The site manifest: what a site publishes about the WebMCP tools its pages register.
import * as z from "zod";
import { LIMITS } from "./limits.js";
import { ToolDescriptorSchema } from "./tool.js";
import { checkObjectSchema } from "./json-schema.js";

export const MANIFEST_SCHEMA_URL = "/schema/manifest.json";

const CLOUD_NOT_READ_ONLY =
  "cloud runs are for read-only tools: set annotations.readOnlyHint to true, or remove cloud";
const CLOUD_NO_PAGE =
  'cloud needs a page in pages that registers the tool (a path on your site, like "/"), or remove cloud';

/** A tool in a manifest: a ToolDescriptor, strict (a misspelt key is an error, not silently dropped). */
export const ManifestToolSchema = ToolDescriptorSchema.extend({
  pages: z
    .array(z.string().startsWith("/", "a page is a path on the site, starting with '/'").max(2048))
    .max(100)
    .optional()
    .describe("Paths of the pages that register this tool"),
  cloud: z
    .boolean()
    .optional()
    .describe(
      "true: the hub may run this tool on its first page in `pages` in its own browser, with no one signed in, so agents can call it with no tab open (HUB/mcp/sites/<host>). Needs annotations.readOnlyHint true and a page in `pages`.",
    ),
})
  .strict()
  .superRefine((tool, ctx) => {
    if (tool.cloud === true) {
      // Hints are booleans here (HintSchema turned "true"/"false" into them).
      if (tool.annotations?.readOnlyHint !== true)
        ctx.addIssue({ code: "custom", path: ["cloud"], message: CLOUD_NOT_READ_ONLY });
      if (!tool.pages?.length) ctx.addIssue({ code: "custom", path: ["cloud"], message: CLOUD_NO_PAGE });
    }
    for (const key of ["inputSchema", "outputSchema"] as const) {
      const schema = tool[key];
      if (schema === undefined) continue;
      for (const problem of checkObjectSchema(schema)) {
        ctx.addIssue({
          code: "custom",
          path: [key, ...problem.path.split("/").filter(Boolean)],
          message: problem.message,
        });
      }
    }
  });
export type ManifestTool = z.infer<typeof ManifestToolSchema>;

export const ManifestSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1).max(LIMITS.titleMax).optional().describe("The site's display name"),
    description: z.string().max(LIMITS.descriptionMax).optional(),
    tools: z
      .array(ManifestToolSchema)
      .min(1, "a manifest lists at least one tool")
      .max(LIMITS.toolsPerProvider, `a manifest lists at most ${LIMITS.toolsPerProvider} tools`),
  })
  .strict()
  .superRefine((manifest, ctx) => {
    const seen = new Map<string, number>();
    manifest.tools.forEach((tool, i) => {
      const first = seen.get(tool.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["tools", i, "name"],
          message: `duplicate tool name "${tool.name}" (also tools[${first}]); tool names must be unique`,
          params: { duplicate: true },
        });
      } else seen.set(tool.name, i);
    });
  });
export type Manifest = z.infer<typeof ManifestSchema>;
export type ManifestInput = z.input<typeof ManifestSchema>;

/** The manifest's JSON Schema, generated from the zod schema (served at /schema/manifest.json). */
export function manifestJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ManifestSchema, { io: "input", unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return { ...schema, $id: MANIFEST_SCHEMA_URL, title: "webmcp-hub site manifest" };
}
