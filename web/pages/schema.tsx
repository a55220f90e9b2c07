// JSON Schema, readable: a table of fields (type, required, description, rules such as enums, bounds,
// lengths, patterns, defaults), and the "Try it" form fields generated from a tool's inputSchema.
import type { JsonSchemaObject } from "../../src/protocol/index.js";

type Schema = Record<string, unknown>;

const isObj = (v: unknown): v is Schema => typeof v === "object" && v !== null && !Array.isArray(v);
const lit = (v: unknown) => JSON.stringify(v);

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

interface Row {
  path: string;
  depth: number;
  required: boolean;
  type: string;
  description: string;
  rules: string[];
}

const MAX_ROWS = 200;
const MAX_DEPTH = 5;

function flatten(s: Schema, prefix: string, depth: number, rows: Row[]): void {
  const props = isObj(s.properties) ? s.properties : {};
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r) => typeof r === "string") : []);
  for (const [name, raw] of Object.entries(props)) {
    if (rows.length >= MAX_ROWS) return;
    const child = isObj(raw) ? raw : {};
    const path = prefix ? `${prefix}.${name}` : name;
    rows.push({
      path,
      depth,
      required: required.has(name),
      type: typeLabel(child),
      description:
        typeof child.description === "string"
          ? child.description
          : typeof child.title === "string"
            ? child.title
            : "",
      rules: rules(child),
    });
    if (depth >= MAX_DEPTH) continue;
    if (isObj(child.properties)) flatten(child, path, depth + 1, rows);
    else if (isObj(child.items) && isObj(child.items.properties))
      flatten(child.items, `${path}[]`, depth + 1, rows);
  }
}

export function schemaRows(schema: JsonSchemaObject): Row[] {
  const rows: Row[] = [];
  flatten(schema, "", 0, rows);
  return rows;
}

/** The fields of an object schema as a table; stacks into cards on a phone. */
export function SchemaTable(props: { schema: JsonSchemaObject; caption: string; empty: string }) {
  const rows = schemaRows(props.schema);
  const closed = props.schema.additionalProperties === false;
  if (rows.length === 0) return <p class="empty-inline">{props.empty}</p>;
  return (
    <>
      <div class="table-wrap">
        <table class="schema stack">
          <caption class="sr-only">{props.caption}</caption>
          <thead>
            <tr>
              <th scope="col">Field</th>
              <th scope="col">Type</th>
              <th scope="col">Description</th>
              <th scope="col">Rules</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr>
                <th
                  scope="row"
                  data-label="Field"
                  data-depth={r.depth ? String(Math.min(r.depth, MAX_DEPTH)) : undefined}
                >
                  <code>{r.path}</code>{" "}
                  {r.required ? <span class="req">required</span> : <span class="opt">optional</span>}
                </th>
                <td data-label="Type">{r.type}</td>
                <td data-label="Description">{r.description || <span class="muted">—</span>}</td>
                <td data-label="Rules">
                  {r.rules.length ? (
                    <ul class="rules">
                      {r.rules.map((x) => (
                        <li>{x}</li>
                      ))}
                    </ul>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {closed ? <p class="note">No other fields are accepted.</p> : null}
    </>
  );
}

/** The kind of form control for one argument; the client script turns each back into a JSON value. */
export type ArgKind = "string" | "number" | "integer" | "boolean" | "enum" | "json";

export function argKind(s: Schema): ArgKind {
  if (Array.isArray(s.enum) && s.enum.length > 0 && s.enum.length <= 50) return "enum";
  const t = Array.isArray(s.type) ? s.type.filter((x) => x !== "null") : [s.type];
  if (t.length === 1) {
    if (t[0] === "string" || t[0] === "number" || t[0] === "integer" || t[0] === "boolean") return t[0];
  }
  return "json";
}

const INPUT_TYPE_FOR_FORMAT: Record<string, string> = {
  date: "date",
  email: "email",
  uri: "url",
  url: "url",
  time: "time",
};

/** One labelled control per top-level argument, named `arg:<name>`, with its kind in data-kind. */
export function ArgFields(props: { schema: JsonSchemaObject }) {
  const props_ = isObj(props.schema.properties) ? props.schema.properties : {};
  const required = new Set(Array.isArray(props.schema.required) ? props.schema.required : []);
  const entries = Object.entries(props_).slice(0, 100);
  if (entries.length === 0) return <p class="empty-inline">This tool takes no arguments.</p>;
  return (
    <>
      {entries.map(([name, raw], i) => {
        const s = isObj(raw) ? raw : {};
        const kind = argKind(s);
        const id = `arg-${i}`;
        const req = required.has(name);
        const hint = [typeof s.description === "string" ? s.description : "", typeLabel(s), ...rules(s)]
          .filter(Boolean)
          .join(" · ");
        const common = {
          id,
          name: `arg:${name}`,
          "data-arg": name,
          "data-kind": kind,
          "aria-describedby": `${id}-hint`,
          ...(req ? { required: true, "aria-required": "true" } : {}),
        };
        const def = s.default;
        let control;
        if (kind === "enum") {
          const values = s.enum as unknown[];
          control = (
            <select {...common}>
              {req ? null : <option value="">— not set —</option>}
              {values.map((v) => (
                <option value={lit(v)} selected={def !== undefined && lit(def) === lit(v)}>
                  {typeof v === "string" ? v : lit(v)}
                </option>
              ))}
            </select>
          );
        } else if (kind === "boolean") {
          control = (
            <select {...common}>
              {req ? null : <option value="">— not set —</option>}
              <option value="true" selected={def === true}>
                true
              </option>
              <option value="false" selected={def === false}>
                false
              </option>
            </select>
          );
        } else if (kind === "number" || kind === "integer") {
          control = (
            <input
              {...common}
              type="number"
              inputmode={kind === "integer" ? "numeric" : "decimal"}
              step={kind === "integer" ? "1" : "any"}
              min={typeof s.minimum === "number" ? String(s.minimum) : undefined}
              max={typeof s.maximum === "number" ? String(s.maximum) : undefined}
              value={typeof def === "number" ? String(def) : undefined}
            />
          );
        } else if (kind === "string") {
          const format = typeof s.format === "string" ? INPUT_TYPE_FOR_FORMAT[s.format] : undefined;
          control = (
            <input
              {...common}
              type={format ?? "text"}
              minlength={typeof s.minLength === "number" ? s.minLength : undefined}
              maxlength={typeof s.maxLength === "number" ? s.maxLength : undefined}
              value={typeof def === "string" ? def : undefined}
              autocomplete="off"
            />
          );
        } else {
          control = (
            <textarea
              {...common}
              rows={3}
              spellcheck={false}
              placeholder={isObj(s.items) || s.type === "array" ? "[ ]" : "JSON value"}
            >
              {def !== undefined ? lit(def) : ""}
            </textarea>
          );
        }
        return (
          <div class="field">
            <label for={id}>
              <code>{name}</code>{" "}
              {req ? <span class="req">required</span> : <span class="opt">optional</span>}
            </label>
            {control}
            <p class="hint" id={`${id}-hint`}>
              {hint}
              {kind === "json" ? " · enter JSON" : ""}
            </p>
            <p class="field-error" id={`${id}-error`} hidden></p>
          </div>
        );
      })}
    </>
  );
}
