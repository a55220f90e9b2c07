// JSON Schema, readable: a table of fields (type, required, description, rules such as enums, bounds,
// lengths, patterns, defaults), server-rendered for crawlers and readers without JavaScript. The "Try it"
// form's fields are built in the browser (web/client/lib/arg-fields.ts): they only work with JavaScript, and
// keeping them out of the Worker keeps its bundle within its size limit.
import type { JsonSchemaObject } from "../../src/protocol/index.js";
import { isObj, rules, typeLabel, type Schema } from "../shared/schema-words.js";

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
