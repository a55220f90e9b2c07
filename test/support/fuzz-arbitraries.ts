// Shared fast-check pieces for the fuzz tests: run counts from FUZZ_RUNS, hostile JSON, arbitraries derived
// from the zod wire schemas (near-valid values that get past the first checks), and JSON text with raw parts.
import fc from "fast-check";
import type { z } from "zod";

/** Runs per property: FUZZ_RUNS when set (npm run fuzz), else the CI default of the file. */
export function fuzzRuns(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** A piece of JSON text spliced verbatim into a value by `jsonText` (deep nesting, huge numbers, dup keys). */
export class RawJson {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text.length > 80 ? `RawJson(${this.text.slice(0, 40)}…${this.text.length} chars)` : this.text;
  }
}

/** JSON text of a value that may hold RawJson parts (which JSON.stringify cannot splice). */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Strings attackers try first: empty, control and bidi characters, lone surrogates, injections, traversal. */
export const NASTY_STRINGS = [
  "",
  " ",
  "\u0000",
  "\uD800",
  "\uDFFF",
  "\u202E",
  "😀",
  "€",
  "../../etc/passwd",
  "%00",
  "%2e%2e%2f",
  "javascript:alert(1)",
  "<script>alert(1)</script>",
  "' OR 1=1 --",
  '"*',
  "NEAR(a b)",
  "a* OR b*",
  "^(a+)+$",
  "__proto__",
  "constructor",
  "toString",
  "null",
  "true",
  "-1",
  "1e309",
  "NaN",
  "https://example.com",
  "http://127.0.0.1",
  "whr_x",
  "wha_x",
  "who_x",
];

export const nastyString = fc.constantFrom(...NASTY_STRINGS);

export const unicodeString = fc.oneof(
  fc.string({ maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 24 }),
  fc.string({ unit: "binary", maxLength: 24 }), // lone surrogates included
  nastyString,
);

/** Strings past every length limit: 257 B to 300 KB, ASCII, multi-byte and astral. */
export const hugeString = fc
  .record({
    ch: fc.constantFrom("a", "€", "😀", " ", "\u0000", "ab"),
    n: fc.constantFrom(257, 1025, 4097, 65_537, 140_000),
  })
  .map(({ ch, n }) => ch.repeat(n));

/** Deeply nested arrays or objects, as raw text (building them as values would overflow the stack). */
export const deepNesting = fc
  .record({ depth: fc.constantFrom(64, 1_000, 10_000, 100_000), kind: fc.constantFrom("[", "{") })
  .map(({ depth, kind }) =>
    kind === "["
      ? new RawJson("[".repeat(depth) + "]".repeat(depth))
      : new RawJson('{"a":'.repeat(depth) + "1" + "}".repeat(depth)),
  );

/** Numbers JSON can carry but code may not expect: huge, tiny, negative zero, fractional, unsafe integers. */
export const weirdNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 0.5, 2 ** 31, 2 ** 53 + 2, 1e21, -1e308, Number.MAX_VALUE),
  fc.constantFrom(new RawJson("1e999"), new RawJson("-1e999"), new RawJson("123456789012345678901234567890")),
);

/** Any hostile JSON value: random JSON, nasty strings and numbers, huge strings, deep nesting, wrong types. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.jsonValue({ maxDepth: 3 }), weight: 4 },
  { arbitrary: unicodeString, weight: 3 },
  { arbitrary: weirdNumber, weight: 2 },
  { arbitrary: fc.constantFrom(null, true, false, [], {}), weight: 2 },
  { arbitrary: fc.oneof(hugeString, deepNesting), weight: 1 },
);

/** Whole request bodies that are not JSON objects at all, or not JSON. */
export const rawBodyText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 64 }),
  fc.string({ unit: "binary", maxLength: 64 }),
  fc.constantFrom("", " ", "{", "}", "[", "null", "{}{}", '{"a":1,"a":2}', "\uFEFF{}", '{"a":1}trailing'),
  hostileValue.map(jsonText),
);

type Overrides = Record<string, fc.Arbitrary<unknown>>;

interface ZodDef {
  type: string;
  [key: string]: unknown;
}
interface ZodCheckDef {
  check: string;
  minimum?: number;
  maximum?: number;
  value?: number;
  format?: string;
}

const defOf = (schema: unknown): ZodDef => (schema as { _zod: { def: ZodDef } })._zod.def;
const checksOf = (def: ZodDef): ZodCheckDef[] =>
  ((def.checks as Array<{ _zod: { def: ZodCheckDef } }> | undefined) ?? []).map((c) => c._zod.def);

/**
 * Near-valid values of a zod schema: a value of the right shape (fields near their bounds: lengths at the limit
 * and one past it, numbers at and around min/max, unknown keys now and then) with up to two mutations at
 * random places (a hostile value instead, a key removed or added, a value wrapped in an array). `overrides`
 * (by dotted path, `*` for array items and record values) give valid values where the type alone cannot
 * (a pairing code, a tool name, a JSON Schema).
 */
export function fromZod(schema: z.ZodType, overrides: Overrides = {}): fc.Arbitrary<unknown> {
  return nearValid(typedFor(schema, overrides, ""));
}

/** A valid value with 0 (half the time), 1 or 2 mutations at random places in its tree. */
export function nearValid(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const mutation = fc.tuple(fc.nat(), fc.constantFrom("replace", "delete", "add", "wrap"), hostileValue);
  return fc
    .tuple(
      valid,
      fc.oneof(
        { arbitrary: fc.constant([] as Array<[number, string, unknown]>), weight: 2 },
        fc.array(mutation, { minLength: 1, maxLength: 2 }),
      ),
    )
    .map(([value, mutations]) =>
      mutations.reduce((v, [at, how, hostile]) => mutate(v, at, how, hostile), value),
    );
}

/** Applies one mutation at the `at`-th place (mod the number of places) of a copy of `value`. */
function mutate(value: unknown, at: number, how: string, hostile: unknown): unknown {
  const places: Array<[Record<string, unknown> | unknown[], string | number]> = [];
  const walk = (v: unknown) => {
    if (v instanceof RawJson || v === null || typeof v !== "object") return;
    const container = v as Record<string, unknown> | unknown[];
    for (const [k, child] of Object.entries(container)) {
      places.push([container, Array.isArray(container) ? Number(k) : k]);
      walk(child);
    }
  };
  const copy = copyOf(value);
  walk(copy);
  if (places.length === 0) return how === "wrap" ? [copy] : hostile;
  const [parent, key] = places[at % places.length]!;
  const target = parent as Record<string | number, unknown>;
  if (how === "replace") target[key] = hostile;
  else if (how === "wrap") target[key] = [target[key]];
  else if (how === "delete") {
    if (Array.isArray(parent)) parent.splice(key as number, 1);
    else delete target[key];
  } else if (Array.isArray(parent)) parent.push(hostile);
  else target[`${String(key)}_x`] = hostile;
  return copy;
}

function copyOf(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copyOf);
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, copyOf(v)]));
}

function typedFor(schema: unknown, overrides: Overrides, path: string): fc.Arbitrary<unknown> {
  const override = overrides[path];
  if (override) return override;
  const def = defOf(schema);
  const at = (key: string) => (path ? `${path}.${key}` : key);
  switch (def.type) {
    case "object": {
      const shape = def.shape as Record<string, z.ZodType>;
      const fields = Object.fromEntries(
        Object.entries(shape).map(([k, v]) => [k, typedFor(v, overrides, at(k))]),
      );
      const allKeys = Object.keys(shape);
      return fc
        .tuple(
          fc.record(fields, { requiredKeys: [] }),
          // Mostly every key present; sometimes a random subset (missing required fields).
          fc.oneof({ arbitrary: fc.constant(true), weight: 6 }, { arbitrary: fc.constant(false), weight: 1 }),
          fc.option(fc.tuple(fc.oneof(nastyString, fc.string({ maxLength: 8 })), hostileValue), {
            freq: 12,
          }),
        )
        .chain(([partial, complete, extra]) => {
          const base = complete
            ? fc.record(fields).map((full) => ({ ...full }))
            : fc.constant(partial as Record<string, unknown>);
          return base.map((obj) => {
            const out: Record<string, unknown> = { ...obj };
            if (extra && !allKeys.includes(extra[0])) out[extra[0]] = extra[1];
            return out;
          });
        });
    }
    case "optional":
    case "nullable":
    case "default":
    case "prefault":
    case "readonly":
    case "catch":
    case "nonoptional":
      return typedFor(def.innerType, overrides, path);
    case "pipe":
      return typedFor(def.in, overrides, path);
    case "string": {
      let min = 0;
      let max = 64;
      for (const c of checksOf(def)) {
        if (c.check === "min_length" && c.minimum !== undefined) min = c.minimum;
        if (c.check === "max_length" && c.maximum !== undefined) max = c.maximum;
      }
      const cap = Math.min(max, 200);
      return fc.oneof(
        { arbitrary: fc.string({ minLength: Math.min(min, cap), maxLength: cap }), weight: 8 },
        {
          arbitrary: fc.string({
            unit: "grapheme",
            minLength: Math.min(min, cap),
            maxLength: Math.min(cap, 12),
          }),
          weight: 2,
        },
        { arbitrary: unicodeString, weight: 1 },
        {
          // At the limit and one past it, counted in UTF-16 units and in code points.
          arbitrary: fc
            .tuple(fc.constantFrom("a", "é", "😀"), fc.constantFrom(max, max + 1, Math.max(0, min - 1)))
            .map(([ch, n]) => ch.repeat(Math.min(n, 300_000))),
          weight: 1,
        },
      );
    }
    case "number": {
      let min = -1e6;
      let max = 1e6;
      let int = false;
      for (const c of checksOf(def)) {
        if (c.check === "greater_than" && c.value !== undefined) min = c.value;
        if (c.check === "less_than" && c.value !== undefined) max = c.value;
        if (c.check === "number_format" && (c.format === "safeint" || c.format === "int32")) int = true;
      }
      const near = fc.constantFrom(min - 1, min, max, max + 1, min + 0.5);
      return fc.oneof(
        {
          arbitrary: int
            ? fc.integer({
                min: Math.max(Math.ceil(min), -(2 ** 31)),
                max: Math.min(Math.floor(max), 2 ** 31),
              })
            : fc.double({ min, max, noNaN: true }),
          weight: 6,
        },
        near,
        weirdNumber,
      );
    }
    case "boolean":
      return fc.oneof({ arbitrary: fc.boolean(), weight: 8 }, fc.constantFrom("true", "false", 0, 1));
    case "enum": {
      const values = Object.values(def.entries as Record<string, string | number>);
      return fc.oneof(
        { arbitrary: fc.constantFrom(...values), weight: 8 },
        fc.constantFrom(...values).map((v) => String(v).toUpperCase() + " "),
      );
    }
    case "literal":
      return fc.constantFrom(...(def.values as unknown[]));
    case "array": {
      let max = 4;
      for (const c of checksOf(def)) if (c.check === "max_length" && c.maximum !== undefined) max = c.maximum;
      return fc.array(typedFor(def.element, overrides, at("*")), {
        maxLength: Math.min(max + 1, 5),
      });
    }
    case "union": {
      const options = def.options as z.ZodType[];
      return fc.oneof(...options.map((o) => typedFor(o, overrides, path)));
    }
    case "record":
      return fc.dictionary(
        fc.oneof(fc.string({ maxLength: 12 }), nastyString),
        typedFor(def.valueType, overrides, at("*")),
        { maxKeys: 5 },
      );
    default:
      return fc.jsonValue({ maxDepth: 3 });
  }
}

/** Near-valid JSON Schemas: real 2020-12 keywords with right and wrong values, refs, regexes, nesting. */
function schemaArb(depth: number): fc.Arbitrary<Record<string, unknown>> {
  const sub: fc.Arbitrary<unknown> =
    depth > 0 ? schemaArb(depth - 1) : fc.constantFrom({}, { type: "string" }, true, false, { $ref: "#" });
  // Each keyword: mostly a value the meta-schema accepts, sometimes one it refuses.
  const kw = (good: fc.Arbitrary<unknown>, bad: fc.Arbitrary<unknown>) =>
    fc.oneof({ arbitrary: good, weight: 6 }, { arbitrary: bad, weight: 1 });
  const keywords: Record<string, fc.Arbitrary<unknown>> = {
    type: kw(
      fc.constantFrom("object", "string", "number", "integer", "array", "boolean", "null", [
        "string",
        "null",
      ]),
      fc.constantFrom("objekt", 7, [], ["string", "string"]),
    ),
    properties: kw(
      fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), nastyString), sub, { maxKeys: 3 }),
      fc.constantFrom([], "x", { a: 1 }),
    ),
    required: kw(fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 3 }), fc.constantFrom("text", [1])),
    additionalProperties: kw(fc.oneof(fc.boolean(), sub), fc.constantFrom("no", 0)),
    items: kw(sub, fc.constantFrom([{}], "x")),
    pattern: kw(
      fc.constantFrom("^[a-z]+$", "^(a|b)*c$", "(?<n>x)\\k<n>", "\\p{L}+", "^.{0,3}$", "a{1,1000}", "^\\w+@"),
      fc.oneof(fc.constantFrom("[", "(", "\\", "a{2,1}", "(?<", "*"), fc.string({ maxLength: 12 })),
    ),
    patternProperties: kw(
      fc.dictionary(fc.constantFrom("^x", ".*", "\\d+", "^[a-z]"), sub, { maxKeys: 2 }),
      fc.dictionary(fc.constantFrom("[", "(?<"), sub, { minKeys: 1, maxKeys: 1 }),
    ),
    minLength: kw(fc.nat(10), fc.constantFrom(-1, 1.5, "3")),
    maxLength: kw(fc.nat(1000), fc.constantFrom(-1, 1e21)),
    minimum: kw(fc.integer(), weirdNumber),
    maximum: kw(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom("5", null)),
    multipleOf: kw(fc.constantFrom(0.1, 1e-300, 3, 0.01), fc.constantFrom(0, -1)),
    enum: kw(fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 3 }), fc.constantFrom("a", {})),
    const: fc.jsonValue({ maxDepth: 1 }),
    format: fc.constantFrom("email", "uri", "date-time", "regex", "ipv6", "nonsense"),
    $ref: fc.constantFrom(
      "#",
      "#/$defs/a",
      "#/properties/x",
      "https://example.com/s.json",
      "#/nope",
      "a b",
      5,
    ),
    $defs: kw(fc.dictionary(fc.constantFrom("a", "b"), sub, { maxKeys: 1 }), fc.constant([])),
    allOf: kw(fc.array(sub, { minLength: 1, maxLength: 2 }), fc.constantFrom([], {})),
    anyOf: kw(fc.array(sub, { minLength: 1, maxLength: 2 }), fc.constantFrom([], {})),
    oneOf: kw(fc.array(sub, { minLength: 1, maxLength: 2 }), fc.constantFrom([], {})),
    not: sub,
    if: sub,
    then: sub,
    uniqueItems: kw(fc.boolean(), fc.constant("yes")),
    $schema: fc.constantFrom(
      "https://json-schema.org/draft/2020-12/schema",
      "http://json-schema.org/draft-07/schema#",
    ),
  };
  // A few keywords per schema (every keyword at every level would grow exponentially with depth).
  return fc
    .uniqueArray(fc.constantFrom(...Object.keys(keywords)), { maxLength: 4 })
    .chain((keys) => fc.record(Object.fromEntries(keys.map((k) => [k, keywords[k]!]))))
    .map((s) => s as Record<string, unknown>);
}

export const jsonSchemaArb: fc.Arbitrary<Record<string, unknown>> = schemaArb(3);

/** Object schemas, mostly: what a tool's inputSchema looks like, near-valid. */
export const objectSchemaArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: jsonSchemaArb.map((s) => ({ ...s, type: "object" })), weight: 10 },
  { arbitrary: jsonSchemaArb, weight: 2 },
  { arbitrary: hostileValue, weight: 1 },
);

/** Valid tool names, mostly, and names that break MCP's rule by one character or one length unit. */
export const toolNameArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9_.-]{1,20}$/), weight: 20 },
  fc.constantFrom("a".repeat(128), "a".repeat(129), "with space", "dots.are.ok", "ünïcode", ""),
  hostileValue,
);

/** Values that JSON Schema validation of a call's arguments should handle: matching shapes and not. */
export const argumentsArb: fc.Arbitrary<unknown> = fc.oneof(
  { arbitrary: fc.record({ text: fc.oneof(fc.string(), unicodeString, hugeString) }), weight: 3 },
  {
    arbitrary: fc.dictionary(fc.oneof(fc.string({ maxLength: 6 }), nastyString), hostileValue, {
      maxKeys: 4,
    }),
    weight: 3,
  },
  hostileValue,
);

/** Valid manifests (mostly): a few tools with valid names, descriptions, schemas and annotations. */
export const validManifestArb: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      name: fc.string({ unit: "grapheme", minLength: 1, maxLength: 40 }),
      description: fc.string({ unit: "grapheme", maxLength: 200 }),
      tools: fc.uniqueArray(
        fc.record(
          {
            name: fc.stringMatching(/^[A-Za-z0-9_.-]{1,40}$/),
            title: fc.string({ unit: "grapheme", maxLength: 40 }),
            description: fc.oneof(
              fc.string({ unit: "grapheme", minLength: 1, maxLength: 300 }),
              fc.lorem({ maxCount: 30 }),
            ),
            inputSchema: fc.oneof(
              fc.constant({ type: "object", properties: { text: { type: "string" } } }),
              jsonSchemaArb.map((s) => ({ ...s, type: "object" })),
            ),
            annotations: fc.record(
              {
                readOnlyHint: fc.boolean(),
                destructiveHint: fc.constantFrom("true", "false"),
                title: fc.string(),
              },
              { requiredKeys: [] },
            ),
            pages: fc.array(
              fc.webPath().map((p) => `/${p.replace(/^\/+/, "")}`),
              { maxLength: 3 },
            ),
          },
          { requiredKeys: ["name", "description"] },
        ),
        { minLength: 1, maxLength: 4, selector: (t) => t.name },
      ),
    },
    { requiredKeys: ["tools"] },
  )
  .map((m) => m as Record<string, unknown>);
