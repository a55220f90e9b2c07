// Validation before execute: executeTool() checks its input against the tool's inputSchema (JSON Schema
// 2020-12, with @cfworker/json-schema, the checker the hub uses) and rejects with a DataError before the
// tool's execute runs, as the tentative web-platform-test webmcp/imperative/executeTool-input-validation
// expects. The DataError's message is JSON: {path, reason, schemaPath, message}, where `path` points at the
// offending value (for a missing required property, at where it should be), `reason` is the failing
// keyword and `schemaPath` that keyword as a pointer within the subschema that failed (`/required`, `/enum`).
//
// Only executeTool() validates here: a call that came through the relay was validated by the hub already,
// with its linear-time regex matcher, so an agent's input never runs a page's `pattern` on the browser's
// backtracking RegExp engine. `format` is an annotation, as 2020-12 says by default (the format module is
// left out of /bridge.js to keep it under 15 KiB gzipped; scripts/lib/bundles.mjs).
import { dereference, validate, type OutputUnit, type Schema } from "@cfworker/json-schema";

const lookups = new WeakMap<object, ReturnType<typeof dereference>>();

/** Resolves a JSON pointer written as a URI fragment ("#/a/b") inside `root`. */
function at(root: unknown, pointer: string): unknown {
  let node = root;
  for (const part of pointer.replace(/^#\/?/, "").split("/").filter(Boolean)) {
    const key = decodeURIComponent(part).replace(/~1/g, "/").replace(/~0/g, "~");
    node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  }
  return node;
}

/** The one error to report: the deepest, with a missing required property's name in its path. */
function describe(errors: OutputUnit[], schema: object, input: unknown) {
  let unit = errors[errors.length - 1]!;
  const parent = errors[errors.length - 2];
  // A `false` subschema (additionalProperties: false, say) is reported by the keyword that applied it.
  if (unit.keyword === "false" && parent) unit = { ...unit, keyword: parent.keyword };
  let path = unit.instanceLocation.replace(/^#/, "");
  if (unit.keyword === "required") {
    const names = at(schema, unit.keywordLocation);
    const value = at(input, unit.instanceLocation);
    const missing = Array.isArray(names)
      ? names.find((n) => typeof value === "object" && value !== null && !(String(n) in value))
      : undefined;
    if (missing !== undefined) path += `/${String(missing).replace(/~/g, "~0").replace(/\//g, "~1")}`;
  }
  return { path, reason: unit.keyword, schemaPath: `/${unit.keyword}`, message: unit.error };
}

/** Throws a DataError (message: JSON, see above) unless `input` is valid against `schema`. */
export function checkInput(schema: Record<string, unknown>, input: unknown): void {
  let lookup = lookups.get(schema);
  if (!lookup) lookups.set(schema, (lookup = dereference(schema as Schema)));
  const { valid, errors } = validate(input, schema as Schema, "2020-12", lookup, true);
  if (!valid) throw new DOMException(JSON.stringify(describe(errors, schema, input)), "DataError");
}
