// A hand-written check that a tool's inputSchema/outputSchema is a JSON Schema 2020-12 object schema, so
// that registerTool can refuse a bad schema at once instead of the hub refusing the tool later. It restates
// the structural rules of src/protocol/json-schema.ts (which needs @cfworker/json-schema, too big for
// /bridge.js) keyword by keyword; the hub still re-validates every tool it receives.
//
// Decisions where the spec is silent: a top level without "type" (seed example 4 passes `{}`) is taken as
// an object schema and gets `"type": "object"` added; any other top-level type is refused, as MCP tool
// arguments are an object. Keywords the tentative WPT subset test refuses ($ref, format, $defs,
// additionalProperties: true, ...) are accepted: real pages use them and the hub accepts them.

type Rule =
  "schema" | "schemas" | "map" | "string" | "number" | "count" | "boolean" | "names" | "list" | "type";

const RULES: Record<string, Rule> = {};
const rule = (kind: Rule, keywords: string) => keywords.split(" ").forEach((k) => (RULES[k] = kind));
rule("schema", "items contains additionalProperties propertyNames if then else not unevaluatedItems");
rule("schema", "unevaluatedProperties contentSchema");
rule("schemas", "prefixItems allOf anyOf oneOf");
rule("map", "properties patternProperties dependentSchemas $defs definitions");
rule("string", "$id $schema $ref $anchor $dynamicRef $dynamicAnchor $comment title description pattern");
rule("string", "format contentEncoding contentMediaType");
rule("number", "multipleOf maximum exclusiveMaximum minimum exclusiveMinimum");
rule("count", "maxLength minLength maxItems minItems maxContains minContains maxProperties minProperties");
rule("boolean", "uniqueItems deprecated readOnly writeOnly");
rule("names", "required");
rule("list", "enum examples");
rule("type", "type");

const TYPES = ["array", "boolean", "integer", "null", "number", "object", "string"];

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * Returns a deep copy of `schema` (its JSON form) as an object schema, or throws a TypeError naming the
 * first problem, e.g. `inputSchema/properties/age/minimum must be a number`.
 */
export function toObjectSchema(schema: unknown, what = "inputSchema"): Record<string, unknown> {
  // Serializing first is what the spec does (it also rejects cycles and toJSON() returning undefined).
  const json = JSON.stringify(schema);
  if (json === undefined) throw new TypeError(`${what} cannot be serialized to JSON`);
  const copy: unknown = JSON.parse(json);
  if (!isObject(copy)) throw new TypeError(`${what} must be a JSON Schema object`);
  if (copy.type === undefined) copy.type = "object";
  if (copy.type !== "object")
    throw new TypeError(`${what}/type must be "object": tool arguments are an object`);
  checkSchema(copy, what);
  return copy;
}

function checkSchema(node: unknown, path: string): void {
  if (typeof node === "boolean") return;
  if (!isObject(node)) fail(path, "must be a schema (an object or a boolean)");
  for (const [key, value] of Object.entries(node)) {
    const here = `${path}/${key}`;
    switch (RULES[key]) {
      case "schema":
        checkSchema(value, here);
        break;
      case "schemas":
        if (!Array.isArray(value) || value.length === 0) fail(here, "must be a non-empty array of schemas");
        value.forEach((s, i) => checkSchema(s, `${here}/${i}`));
        break;
      case "map":
        if (!isObject(value)) fail(here, "must be an object of schemas");
        for (const [k, s] of Object.entries(value)) {
          if (key === "patternProperties") checkPattern(k, `${here}/${k}`);
          checkSchema(s, `${here}/${k}`);
        }
        break;
      case "string":
        if (typeof value !== "string") fail(here, "must be a string");
        if (key === "pattern") checkPattern(value, here);
        break;
      case "number":
        if (typeof value !== "number" || (key === "multipleOf" && value <= 0))
          fail(here, key === "multipleOf" ? "must be a number above 0" : "must be a number");
        break;
      case "count":
        if (!Number.isInteger(value) || (value as number) < 0) fail(here, "must be a non-negative integer");
        break;
      case "boolean":
        if (typeof value !== "boolean") fail(here, "must be a boolean");
        break;
      case "names":
        if (
          !Array.isArray(value) ||
          value.some((n) => typeof n !== "string") ||
          new Set(value).size < value.length
        )
          fail(here, "must be an array of distinct property names");
        break;
      case "list":
        if (!Array.isArray(value)) fail(here, "must be an array");
        break;
      case "type": {
        const types = Array.isArray(value) ? value : [value];
        if (
          !types.length ||
          types.some((t) => !TYPES.includes(t as string)) ||
          new Set(types).size < types.length
        )
          fail(here, `must be one of ${TYPES.join(", ")} (or a list of them)`);
      }
    }
  }
}

function checkPattern(source: string, path: string): void {
  try {
    new RegExp(source, "u");
  } catch {
    fail(path, `"${source}" is not a valid regular expression`);
  }
}

function fail(path: string, message: string): never {
  throw new TypeError(`${path} ${message}`);
}
