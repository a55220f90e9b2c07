// The bridge's schema check (src/bridge/schema-check.ts) on its own, in Node: registerTool refuses a bad
// inputSchema at once with a TypeError naming the keyword's path, and what it accepts or refuses agrees with
// the hub's own checker (src/protocol/json-schema.ts), which it restates by hand to keep /bridge.js small.
import { describe, expect, it } from "vitest";
import { isObject, toObjectSchema } from "../../src/bridge/schema-check.js";
import { checkObjectSchema } from "../../src/protocol/json-schema.js";

/** The TypeError's message, or "ok". */
function verdict(schema: unknown, what?: string): string {
  try {
    toObjectSchema(schema, what);
    return "ok";
  } catch (e) {
    expect(e).toBeInstanceOf(TypeError);
    return (e as Error).message;
  }
}

/** Schemas the bridge refuses, each with the message it gives. */
const REFUSED: Array<[unknown, string]> = [
  [{ type: "string" }, 'inputSchema/type must be "object": tool arguments are an object'],
  [{ type: ["object", "null"] }, 'inputSchema/type must be "object": tool arguments are an object'],
  [{ type: "object", items: 3 }, "inputSchema/items must be a schema (an object or a boolean)"],
  [{ type: "object", not: [] }, "inputSchema/not must be a schema (an object or a boolean)"],
  [{ type: "object", anyOf: [] }, "inputSchema/anyOf must be a non-empty array of schemas"],
  [{ type: "object", allOf: { type: "string" } }, "inputSchema/allOf must be a non-empty array of schemas"],
  [{ type: "object", allOf: [{}, { type: "strng" }] }, "inputSchema/allOf/1/type must be one of"],
  [{ type: "object", properties: 5 }, "inputSchema/properties must be an object of schemas"],
  [
    { type: "object", properties: { q: 1 } },
    "inputSchema/properties/q must be a schema (an object or a boolean)",
  ],
  [
    { type: "object", patternProperties: { "[": {} } },
    'inputSchema/patternProperties/[ "[" is not a valid regular expression',
  ],
  [{ type: "object", $defs: { n: { minimum: "0" } } }, "inputSchema/$defs/n/minimum must be a number"],
  [{ type: "object", $ref: 1 }, "inputSchema/$ref must be a string"],
  [
    { type: "object", properties: { q: { pattern: "(" } } },
    'inputSchema/properties/q/pattern "(" is not a valid regular expression',
  ],
  [
    { type: "object", properties: { q: { multipleOf: 0 } } },
    "inputSchema/properties/q/multipleOf must be a number above 0",
  ],
  [
    { type: "object", properties: { q: { maxLength: -1 } } },
    "inputSchema/properties/q/maxLength must be a non-negative integer",
  ],
  [
    { type: "object", properties: { q: { minItems: 1.5 } } },
    "inputSchema/properties/q/minItems must be a non-negative integer",
  ],
  [
    { type: "object", properties: { q: { uniqueItems: "yes" } } },
    "inputSchema/properties/q/uniqueItems must be a boolean",
  ],
  [{ type: "object", required: "q" }, "inputSchema/required must be an array of distinct property names"],
  [
    { type: "object", required: ["q", "q"] },
    "inputSchema/required must be an array of distinct property names",
  ],
  [{ type: "object", required: [1] }, "inputSchema/required must be an array of distinct property names"],
  [{ type: "object", enum: "a" }, "inputSchema/enum must be an array"],
  [{ type: "object", properties: { q: { type: [] } } }, "inputSchema/properties/q/type must be one of"],
  [
    { type: "object", properties: { q: { type: ["string", "string"] } } },
    "inputSchema/properties/q/type must be one of",
  ],
];

/** Schemas the bridge accepts, with what it keeps. */
const ACCEPTED: Array<[unknown, Record<string, unknown>]> = [
  [{}, { type: "object" }],
  [{ properties: { q: { type: "string" } } }, { type: "object", properties: { q: { type: "string" } } }],
  [
    { type: "object", properties: { a: true, b: false } },
    { type: "object", properties: { a: true, b: false } },
  ],
  [
    {
      type: "object",
      properties: { email: { type: "string", format: "email" }, n: { $ref: "#/$defs/n" } },
      $defs: { n: { type: ["integer", "null"], minimum: 0, multipleOf: 2 } },
      patternProperties: { "^x-": { type: "string", pattern: "^\\p{L}+$" } },
      required: ["email"],
      additionalProperties: true,
      "x-vendor": { anything: "goes" },
    },
    {
      type: "object",
      properties: { email: { type: "string", format: "email" }, n: { $ref: "#/$defs/n" } },
      $defs: { n: { type: ["integer", "null"], minimum: 0, multipleOf: 2 } },
      patternProperties: { "^x-": { type: "string", pattern: "^\\p{L}+$" } },
      required: ["email"],
      additionalProperties: true,
      "x-vendor": { anything: "goes" },
    },
  ],
];

describe("toObjectSchema", () => {
  it("a top level without a type is an object schema, and what comes back is a deep copy", () => {
    const schema = { properties: { q: { type: "string" } } };
    const checked = toObjectSchema(schema);
    expect(checked).toEqual({ type: "object", properties: { q: { type: "string" } } });
    schema.properties.q.type = "number";
    expect(checked.properties).toEqual({ q: { type: "string" } });
    expect(schema).not.toHaveProperty("type");
    for (const [schema, kept] of ACCEPTED) expect(toObjectSchema(schema)).toEqual(kept);
  });

  it("takes the schema's JSON form: toJSON is used, and what JSON cannot hold is refused", () => {
    expect(toObjectSchema({ toJSON: () => ({ type: "object", required: ["a"] }) })).toEqual({
      type: "object",
      required: ["a"],
    });
    expect(toObjectSchema({ type: "object", skipped: undefined, f: () => 1 })).toEqual({ type: "object" });
    expect(verdict({ toJSON: () => undefined })).toBe("inputSchema cannot be serialized to JSON");
    expect(verdict(undefined)).toBe("inputSchema cannot be serialized to JSON");
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.self = cyclic;
    expect(verdict(cyclic)).toMatch(/circular/i);
    for (const notAnObject of ["an object schema", 5, null, [], [{ type: "object" }]])
      expect(verdict(notAnObject)).toBe("inputSchema must be a JSON Schema object");
  });

  it("names the first bad keyword by its path inside the schema", () => {
    for (const [schema, message] of REFUSED) expect(verdict(schema)).toContain(message);
    expect(verdict({ type: "object", properties: { q: { type: "strng" } } })).toBe(
      "inputSchema/properties/q/type must be one of array, boolean, integer, null, number, object, string (or a list of them)",
    );
  });

  it("says which schema it checked (outputSchema as well as inputSchema)", () => {
    expect(verdict({ type: "object", properties: { n: { minimum: "1" } } }, "outputSchema")).toBe(
      "outputSchema/properties/n/minimum must be a number",
    );
    expect(verdict("x", "outputSchema")).toBe("outputSchema must be a JSON Schema object");
  });

  it("accepts and refuses what the hub's checker accepts and refuses", () => {
    const hubRefuses = (schema: unknown) =>
      checkObjectSchema(
        isObject(schema) && schema.type === undefined ? { ...schema, type: "object" } : schema,
      ).length > 0;
    for (const [schema] of REFUSED)
      expect({ schema, hubRefuses: hubRefuses(schema) }).toEqual({ schema, hubRefuses: true });
    for (const [schema, kept] of ACCEPTED) {
      expect({ schema, hubRefuses: hubRefuses(schema) }).toEqual({ schema, hubRefuses: false });
      expect(checkObjectSchema(kept)).toEqual([]);
    }
  });
});

describe("isObject", () => {
  it("is true for plain objects only: not arrays, not null, not primitives", () => {
    expect([{}, { a: 1 }, new Map()].map(isObject)).toEqual([true, true, true]);
    expect([[], null, undefined, "o", 1, true].map(isObject)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
