// Checks that a tool's inputSchema/outputSchema is a usable JSON Schema 2020-12 object schema.
// @cfworker/json-schema (which runs on Workers) ships no meta-schemas, so the 2020-12 vocabularies'
// structural rules are restated here as one meta-schema; regex keywords must run on the hub's linear-time
// matcher (linear-regex.ts), and every validation of a value runs on it.
import { Validator, type Schema } from "@cfworker/json-schema";
import { LIMITS } from "./limits.js";
import { checkPattern, RegexWorkExceeded, withLinearRegExp } from "./linear-regex.js";
import { jsonShape } from "./measure.js";

const schemaRef = { $ref: "#/$defs/schema" };
const schemaArray = { type: "array", minItems: 1, items: schemaRef };
const schemaMap = { type: "object", additionalProperties: schemaRef };
const nonNegativeInteger = { type: "integer", minimum: 0 };
const simpleTypes = { enum: ["array", "boolean", "integer", "null", "number", "object", "string"] };
const stringArray = { type: "array", items: { type: "string" }, uniqueItems: true };

const META_SCHEMA: Schema = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  $ref: "#/$defs/schema",
  $defs: {
    schema: {
      type: ["object", "boolean"],
      properties: {
        // core
        $id: { type: "string" },
        $schema: { type: "string" },
        $ref: { type: "string" },
        $anchor: { type: "string", pattern: "^[A-Za-z_][-A-Za-z0-9._]*$" },
        $dynamicRef: { type: "string" },
        $dynamicAnchor: { type: "string", pattern: "^[A-Za-z_][-A-Za-z0-9._]*$" },
        $vocabulary: { type: "object", additionalProperties: { type: "boolean" } },
        $comment: { type: "string" },
        $defs: schemaMap,
        definitions: schemaMap,
        // applicator
        prefixItems: schemaArray,
        items: schemaRef,
        contains: schemaRef,
        additionalProperties: schemaRef,
        properties: schemaMap,
        patternProperties: schemaMap,
        dependentSchemas: schemaMap,
        propertyNames: schemaRef,
        if: schemaRef,
        then: schemaRef,
        else: schemaRef,
        allOf: schemaArray,
        anyOf: schemaArray,
        oneOf: schemaArray,
        not: schemaRef,
        // unevaluated
        unevaluatedItems: schemaRef,
        unevaluatedProperties: schemaRef,
        // validation
        type: {
          anyOf: [simpleTypes, { type: "array", items: simpleTypes, minItems: 1, uniqueItems: true }],
        },
        enum: { type: "array" },
        multipleOf: { type: "number", exclusiveMinimum: 0 },
        maximum: { type: "number" },
        exclusiveMaximum: { type: "number" },
        minimum: { type: "number" },
        exclusiveMinimum: { type: "number" },
        maxLength: nonNegativeInteger,
        minLength: nonNegativeInteger,
        pattern: { type: "string" },
        maxItems: nonNegativeInteger,
        minItems: nonNegativeInteger,
        uniqueItems: { type: "boolean" },
        maxContains: nonNegativeInteger,
        minContains: nonNegativeInteger,
        maxProperties: nonNegativeInteger,
        minProperties: nonNegativeInteger,
        required: stringArray,
        dependentRequired: { type: "object", additionalProperties: stringArray },
        // meta-data, format, content
        title: { type: "string" },
        description: { type: "string" },
        deprecated: { type: "boolean" },
        readOnly: { type: "boolean" },
        writeOnly: { type: "boolean" },
        examples: { type: "array" },
        format: { type: "string" },
        contentEncoding: { type: "string" },
        contentMediaType: { type: "string" },
        contentSchema: schemaRef,
      },
    },
  },
};

const metaValidator = new Validator(META_SCHEMA, "2020-12", false);

/** Why a schema or value with a key like "\uD800" (an unpaired UTF-16 surrogate) is refused. */
const UNPAIRED_SURROGATE_KEY =
  "a key holds an unpaired UTF-16 surrogate (a lone \\uD800-\\uDFFF); keys must be well-formed Unicode";

/** The JSON Pointer of the first number that is not finite in `value` (depth already bounded), if any. */
function nonFinitePath(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, ""]];
  while (stack.length) {
    const [node, path] = stack.pop()!;
    if (typeof node === "number" && !Number.isFinite(node)) return path;
    if (typeof node !== "object" || node === null) continue;
    for (const [key, child] of Object.entries(node))
      stack.push([child, `${path}/${key.replace(/~/g, "~0").replace(/\//g, "~1")}`]);
  }
  return undefined;
}

/**
 * Returns the problems that make `schema` unusable as a tool's input or output schema, each as
 * `{path, message}` with `path` a JSON Pointer inside the schema; an empty list means it is fine.
 */
export function checkObjectSchema(schema: unknown): Array<{ path: string; message: string }> {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) {
    return [{ path: "", message: "must be a JSON Schema object" }];
  }
  // Checked first, without recursion: the meta-validation below recurses, and a value can nest no deeper.
  if (jsonShape(schema, LIMITS.jsonDepthMax).depth === Number.POSITIVE_INFINITY)
    return [{ path: "", message: `nests deeper than ${LIMITS.jsonDepthMax} levels (LIMITS.jsonDepthMax)` }];
  // A number literal too large for a double (1e999) parses as Infinity, which JSON cannot hold: stored, it
  // would come back as null, a different schema from the one published.
  const huge = nonFinitePath(schema);
  if (huge !== undefined)
    return [{ path: huge, message: "is a number too large to represent (JSON numbers must be finite)" }];
  const problems: Array<{ path: string; message: string }> = [];
  let result: ReturnType<Validator["validate"]>;
  try {
    result = metaValidator.validate(schema);
  } catch (e) {
    // @cfworker/json-schema builds JSON Pointers with encodeURI, which throws on an unpaired surrogate in a key.
    if (e instanceof URIError) return [{ path: "", message: UNPAIRED_SURROGATE_KEY }];
    throw e;
  }
  if (!result.valid) {
    // The deepest errors say what is wrong; the rest restate it for every enclosing $ref.
    const seen = new Set<string>();
    for (const e of result.errors) {
      const path = e.instanceLocation.replace(/^#/, "");
      if (e.keyword === "$ref" || e.keyword === "properties" || e.keyword === "additionalProperties")
        continue;
      const key = `${path}|${e.error}`;
      if (seen.has(key)) continue;
      seen.add(key);
      problems.push({ path, message: e.error });
    }
    if (problems.length === 0)
      problems.push({ path: "", message: "is not a valid JSON Schema 2020-12 schema" });
    return problems.slice(0, 10);
  }
  const declared = (schema as Record<string, unknown>).type;
  if (declared !== "object") {
    problems.push({
      path: "/type",
      message: 'the top level must be `"type": "object"` (tool arguments are an object)',
    });
  }
  collectPatternProblems(schema, "", problems);
  return problems;
}

function collectPatternProblems(
  node: unknown,
  path: string,
  out: Array<{ path: string; message: string }>,
): void {
  if (typeof node !== "object" || node === null) return;
  if (Array.isArray(node)) {
    node.forEach((child, i) => collectPatternProblems(child, `${path}/${i}`, out));
    return;
  }
  const record = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    const here = `${path}/${pointerToken(key)}`;
    if (key === "pattern" && typeof value === "string") tryRegex(value, here, out);
    if (key === "patternProperties" && value && typeof value === "object") {
      for (const p of Object.keys(value)) tryRegex(p, `${here}/${pointerToken(p)}`, out);
    }
    // enum/const/default/examples hold data, not schemas: do not descend into them.
    if (key === "enum" || key === "const" || key === "default" || key === "examples") continue;
    collectPatternProblems(value, here, out);
  }
}

const pointerToken = (key: string) => key.replace(/~/g, "~0").replace(/\//g, "~1");

function tryRegex(source: string, path: string, out: Array<{ path: string; message: string }>): void {
  const problem = checkPattern(source);
  if (problem) out.push({ path, message: `${JSON.stringify(source.slice(0, 80))} ${problem}` });
}

/** Thrown while validating when the subschema applications exceed their budget. */
class ValidationWorkExceeded extends Error {}

// Subschema applications are counted through a getter: @cfworker/json-schema's `validate` reads every
// keyword of the subschema it applies, `$recursiveAnchor` among them, once per application. (That keyword
// belongs to draft 2019-09; its value, if a schema has one, is still returned.)
const STEP_KEY = "$recursiveAnchor";
let stepsLeft = 0;
let counting = false;

function countStep(): void {
  if (counting && --stepsLeft < 0) throw new ValidationWorkExceeded();
}

/** A provider's schema compiled to validate many values against, its work counted. */
export interface CompiledSchema {
  readonly validator: Validator;
  /** True when some subschema says `uniqueItems: true` (quadratic in the array's length). */
  readonly uniqueItems: boolean;
}

/** Compiles a copy of `schema` (a JSON value: it came in a frame) whose subschema applications are counted. */
export function compileSchema(schema: Schema): CompiledSchema {
  const copy = JSON.parse(JSON.stringify(schema)) as Schema;
  let uniqueItems = false;
  const stack: unknown[] = [copy];
  while (stack.length) {
    const node = stack.pop();
    if (typeof node !== "object" || node === null) continue;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    if (!Array.isArray(node)) {
      const record = node as Record<string, unknown>;
      if (record.uniqueItems === true) uniqueItems = true;
      const own = Object.getOwnPropertyDescriptor(record, STEP_KEY);
      const original: unknown = own?.value;
      Object.defineProperty(record, STEP_KEY, {
        enumerable: own?.enumerable ?? false,
        configurable: true,
        get() {
          countStep();
          return original;
        },
      });
    }
    stack.push(...children);
  }
  return { validator: new Validator(copy, "2020-12", false), uniqueItems };
}

const couldNot = (message: string) => [{ path: "/", message: `could not be checked: ${message}` }];

/**
 * Validates a value against a schema (or a compiled one), once, returning readable problems; an empty list
 * means it is valid. No schema can make this superlinear in the value: patterns run on the linear-time
 * matcher within LIMITS.schemaRegexWork, subschema applications are bounded by the value's size
 * (LIMITS.schemaSteps*), `uniqueItems` by LIMITS.uniqueItemsMax, and depth by LIMITS.jsonDepthMax.
 */
export function validateAgainst(
  schema: Schema | CompiledSchema,
  value: unknown,
): Array<{ path: string; message: string }> {
  const compiled = isCompiled(schema) ? schema : compileSchema(schema);
  const shape = jsonShape(value, 2 * LIMITS.jsonDepthMax);
  if (shape.depth === Number.POSITIVE_INFINITY)
    return couldNot(`the value nests deeper than ${2 * LIMITS.jsonDepthMax} levels`);
  if (compiled.uniqueItems && shape.longestArray > LIMITS.uniqueItemsMax)
    return couldNot(
      `an array has ${shape.longestArray} items, and the schema's uniqueItems is checked on at most ${LIMITS.uniqueItemsMax} (LIMITS.uniqueItemsMax)`,
    );
  let result: ReturnType<Validator["validate"]>;
  stepsLeft = Math.min(
    LIMITS.schemaStepsBase + LIMITS.schemaStepsPerNode * shape.nodes,
    LIMITS.schemaStepsMax,
  );
  counting = true;
  try {
    result = withLinearRegExp(() => compiled.validator.validate(value));
  } catch (e) {
    if (e instanceof RegexWorkExceeded)
      return couldNot(
        `the schema's patterns would need more than ${LIMITS.schemaRegexWork} units of matching work on a value this large (LIMITS.schemaRegexWork; shorten the strings)`,
      );
    if (e instanceof ValidationWorkExceeded)
      return couldNot(
        `the schema would need more subschema applications than allowed for a value this size (LIMITS.schemaStepsMax and schemaStepsPerNode; simplify the schema or the value)`,
      );
    if (e instanceof RangeError) return couldNot("the value is nested too deeply");
    if (e instanceof URIError) return couldNot(UNPAIRED_SURROGATE_KEY);
    throw e;
  } finally {
    counting = false;
  }
  if (result.valid) return [];
  const leaf = result.errors.filter(
    (e) => e.keyword !== "properties" && e.keyword !== "$ref" && e.keyword !== "allOf",
  );
  return (leaf.length ? leaf : result.errors).slice(0, 10).map((e) => ({
    path: e.instanceLocation.replace(/^#/, "") || "/",
    message: e.error,
  }));
}

function isCompiled(schema: Schema | CompiledSchema): schema is CompiledSchema {
  return (
    typeof schema === "object" && schema !== null && (schema as CompiledSchema).validator instanceof Validator
  );
}
