// Exports a site's tools in each ecosystem's function-calling shape. Where a format forbids characters in
// names (OpenAI, Anthropic: [A-Za-z0-9_-]{1,64}; Gemini: starts with a letter or '_', [A-Za-z0-9_.:-]{1,64}),
// names are rewritten and `names` maps every rewritten name back to the original.
// Definition digests: the MCP shape carries each tool's as `_meta["webmcp-hub/digest"]` (MCP's Tool allows
// `_meta`); OpenAI, Anthropic and Gemini refuse members their tool shapes do not define, so there they are only
// in the envelope's `digests` (original tool name → digest), which every format has. A tool whose digest is not
// backfilled yet (null) is left out of both.
import { toStrictToolName, type ExportFormat, type JsonSchemaObject } from "../../protocol/index.js";
import type { SiteRow } from "./sites.js";
import type { RegistryToolView, ToolExportView } from "../../protocol/views.js";

/** The `_meta` key a tool's definition digest travels under (exports and /mcp/registry). */
export const DIGEST_META_KEY = "webmcp-hub/digest";

export function exportTools(
  format: ExportFormat,
  site: Pick<SiteRow, "host" | "origin">,
  tools: RegistryToolView[],
): ToolExportView {
  const names: Record<string, string> = {};
  const rename = uniqueRenamer(format, names);
  let out: unknown[];
  switch (format) {
    case "mcp":
      out = tools.map((t) => ({
        name: t.name,
        ...(t.title ? { title: t.title } : {}),
        description: t.description,
        inputSchema: t.inputSchema,
        ...(t.outputSchema ? { outputSchema: t.outputSchema } : {}),
        ...(Object.keys(t.annotations).length ? { annotations: t.annotations } : {}),
        ...(t.digest ? { _meta: { [DIGEST_META_KEY]: t.digest } } : {}),
      }));
      break;
    case "openai":
      // Responses API function tools (the Chat Completions form nests the same fields under `function`).
      out = tools.map((t) => ({
        type: "function",
        name: rename(t.name),
        description: t.description,
        parameters: t.inputSchema,
        strict: false,
      }));
      break;
    case "anthropic":
      out = tools.map((t) => ({
        name: rename(t.name),
        description: t.description,
        input_schema: t.inputSchema,
      }));
      break;
    case "gemini":
      out = [
        {
          functionDeclarations: tools.map((t) => ({
            name: rename(t.name),
            description: t.description,
            parameters: toGeminiSchema(t.inputSchema),
          })),
        },
      ];
      break;
  }
  const digests: Record<string, string> = {};
  for (const t of tools) if (t.digest) digests[t.name] = t.digest;
  return { format, site: site.host, origin: site.origin, tools: out, names, digests };
}

function uniqueRenamer(format: ExportFormat, names: Record<string, string>): (name: string) => string {
  const used = new Set<string>();
  return (name: string) => {
    let candidate = format === "gemini" ? geminiName(name) : toStrictToolName(name, 64);
    for (let n = 2; used.has(candidate); n++) candidate = `${candidate.slice(0, 60)}_${n}`;
    used.add(candidate);
    if (candidate !== name) names[candidate] = name;
    return candidate;
  };
}

function geminiName(name: string): string {
  let out = name.replace(/[^A-Za-z0-9_.:-]/g, "_");
  if (!/^[A-Za-z_]/.test(out)) out = `_${out}`;
  return out.length > 64 ? toStrictToolName(out, 64) : out;
}

// Gemini's `parameters` is an OpenAPI 3.0 Schema subset: keep what it understands, express type unions
// with `nullable`/`anyOf`, and drop the rest (for instance `$schema`, `additionalProperties`, `const`).
const GEMINI_KEYS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "maxItems",
  "minItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "items",
  "minimum",
  "maximum",
]);

export function toGeminiSchema(schema: JsonSchemaObject): JsonSchemaObject {
  const out: JsonSchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (!GEMINI_KEYS.has(key)) continue;
    if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(
        Object.entries(value as Record<string, unknown>).map(([k, v]) => [
          k,
          isObject(v) ? toGeminiSchema(v) : {},
        ]),
      );
    } else if (key === "items" && isObject(value)) {
      out.items = toGeminiSchema(value);
    } else if (key === "anyOf" && Array.isArray(value)) {
      out.anyOf = value.filter(isObject).map(toGeminiSchema);
    } else if (key === "type" && Array.isArray(value)) {
      const types = value.filter((t): t is string => typeof t === "string");
      const nonNull = types.filter((t) => t !== "null");
      if (types.includes("null")) out.nullable = true;
      if (nonNull.length === 1) out.type = nonNull[0];
      else if (nonNull.length > 1) out.anyOf = nonNull.map((t) => ({ type: t }));
    } else if (key === "enum" && Array.isArray(value)) {
      out.enum = value.map(String);
    } else {
      out[key] = value;
    }
  }
  if (schema.const !== undefined && out.enum === undefined) out.enum = [String(schema.const)];
  return out;
}

function isObject(v: unknown): v is JsonSchemaObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
