// Validation before execute (src/bridge/validate.ts) in Node: the DataError's JSON message names the
// offending value's path, the failing keyword and the keyword's pointer, as the tentative web-platform-test
// webmcp/imperative/executeTool-input-validation reads them; valid input passes.
import { describe, expect, it } from "vitest";
import { checkInput } from "../../src/bridge/validate.js";

function failure(schema: Record<string, unknown>, input: unknown) {
  try {
    checkInput(schema, input);
  } catch (e) {
    expect(e).toBeInstanceOf(DOMException);
    expect((e as DOMException).name).toBe("DataError");
    return JSON.parse((e as DOMException).message) as Record<string, string>;
  }
  return "valid";
}

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  ...extra,
});

describe("checkInput", () => {
  it("a missing required property: its path, reason required, schemaPath /required", () => {
    expect(failure(object({ field: { type: "string" } }, { required: ["field"] }), {})).toMatchObject({
      path: "/field",
      reason: "required",
      schemaPath: "/required",
    });
  });

  it("a nested missing property and names needing escapes in the path", () => {
    const schema = object({ a: object({ "x/y": { type: "string" } }, { required: ["x/y"] }) });
    expect(failure(schema, { a: {} })).toMatchObject({ path: "/a/x~1y", reason: "required" });
  });

  it("enum, pattern and type failures point at the value", () => {
    const color = object({ color: { type: "string", enum: ["red", "green"] } });
    expect(failure(color, { color: "blue" })).toMatchObject({
      path: "/color",
      reason: "enum",
      schemaPath: "/enum",
    });
    const code = object({ code: { type: "string", pattern: "^[a-z]+$" } });
    expect(failure(code, { code: "ABC1" })).toMatchObject({ path: "/code", reason: "pattern" });
    const age = object({ age: { type: "integer", minimum: 0 } });
    expect(failure(age, { age: "old" })).toMatchObject({ path: "/age", reason: "type" });
    expect(failure(age, { age: -1 })).toMatchObject({ path: "/age", reason: "minimum" });
  });

  it("additionalProperties: false is reported by that keyword, at the extra property", () => {
    const closed = object({ a: { type: "string" } }, { additionalProperties: false });
    expect(failure(closed, { a: "x", zz: 1 })).toMatchObject({ path: "/zz", reason: "additionalProperties" });
  });

  it("valid input passes, including prefixItems and $ref", () => {
    const schema = object(
      {
        count: { type: "integer", minimum: 1, maximum: 10 },
        tags: { type: "array", prefixItems: [{ type: "string" }], items: { type: "string" } },
        who: { $ref: "#/$defs/name" },
      },
      { required: ["count"], additionalProperties: false, $defs: { name: { type: "string", minLength: 1 } } },
    );
    expect(failure(schema, { count: 5, tags: ["x", "y"], who: "ann" })).toBe("valid");
    expect(failure(schema, { count: 5, who: "" })).toMatchObject({ path: "/who", reason: "minLength" });
  });

  it("a message a person can read comes with it", () => {
    const result = failure(object({ n: { type: "number" } }), { n: "x" });
    expect(result).not.toBe("valid");
    expect((result as Record<string, string>).message).toMatch(/number/);
  });
});
