// JSON Schema in words: a property's type ("integer or null", "array of string") and the rules a value must
// follow ("from 1 to 20", "default 8"). Pure: no DOM, no Worker APIs. The server's input and output tables
// (web/pages/schema.tsx) and the browser's Try it fields' hints (web/client/lib/arg-fields.ts) say the same.

export type Schema = Record<string, unknown>;

export const isObj = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);
export const lit = (v: unknown) => JSON.stringify(v);

/** "string", "integer or null", "array of string", "object", "one of: string | number", "$ref …". */
export function typeLabel(s: Schema): string {
  if (typeof s.$ref === "string") return `see ${s.$ref}`;
  const t = s.type;
  const types = Array.isArray(t)
    ? t.filter((x): x is string => typeof x === "string")
    : typeof t === "string"
      ? [t]
      : [];
  const label = (name: string): string => {
    if (name === "array" && isObj(s.items)) return `array of ${typeLabel(s.items)}`;
    return name;
  };
  if (types.length) return types.map(label).join(" or ");
  for (const key of ["anyOf", "oneOf"] as const) {
    const options = s[key];
    if (Array.isArray(options))
      return `one of: ${options.map((o) => (isObj(o) ? typeLabel(o) : "?")).join(" | ")}`;
  }
  if (Array.isArray(s.allOf)) return "all of several schemas";
  if (Array.isArray(s.enum)) return "one of the listed values";
  if (s.const !== undefined) return "fixed value";
  if (isObj(s.properties)) return "object";
  return "any";
}

/** Rules a value must follow, in words. */
export function rules(s: Schema): string[] {
  const out: string[] = [];
  if (Array.isArray(s.enum)) out.push(`one of ${s.enum.map(lit).join(", ")}`);
  if (s.const !== undefined) out.push(`always ${lit(s.const)}`);
  const num = (k: string) => (typeof s[k] === "number" ? (s[k] as number) : undefined);
  const min = num("minimum");
  const max = num("maximum");
  const xmin = num("exclusiveMinimum");
  const xmax = num("exclusiveMaximum");
  if (min !== undefined && max !== undefined) out.push(`from ${min} to ${max}`);
  else if (min !== undefined) out.push(`at least ${min}`);
  else if (max !== undefined) out.push(`at most ${max}`);
  if (xmin !== undefined) out.push(`greater than ${xmin}`);
  if (xmax !== undefined) out.push(`less than ${xmax}`);
  if (num("multipleOf") !== undefined) out.push(`a multiple of ${num("multipleOf")}`);
  const range = (lo: number | undefined, hi: number | undefined, unit: string) => {
    if (lo !== undefined && hi !== undefined)
      out.push(lo === hi ? `exactly ${lo} ${unit}` : `${lo}–${hi} ${unit}`);
    else if (lo !== undefined) out.push(`at least ${lo} ${unit}`);
    else if (hi !== undefined) out.push(`at most ${hi} ${unit}`);
  };
  range(num("minLength"), num("maxLength"), "characters");
  range(num("minItems"), num("maxItems"), "items");
  range(num("minProperties"), num("maxProperties"), "fields");
  if (s.uniqueItems === true) out.push("no duplicates");
  if (typeof s.format === "string") out.push(`format ${s.format}`);
  if (typeof s.pattern === "string") out.push(`matches /${s.pattern}/`);
  if (s.default !== undefined) out.push(`default ${lit(s.default)}`);
  if (Array.isArray(s.examples) && s.examples.length)
    out.push(`e.g. ${s.examples.slice(0, 3).map(lit).join(", ")}`);
  if (s.deprecated === true) out.push("deprecated");
  return out;
}
