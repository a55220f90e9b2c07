// No schema a provider sends can make the channel's object validate superlinearly. The
// ReDoS inputs answer with the right validation result (through the relay, in workerd), patterns RE2 cannot
// run are refused when the tools arrive, and the linear-time matcher agrees with V8 on ordinary patterns.
import type { Schema } from "@cfworker/json-schema";
import { describe, expect, it } from "vitest";
import {
  checkObjectSchema,
  checkPattern,
  LIMITS,
  validateAgainst,
  withLinearRegExp,
} from "../../src/protocol/index.js";
import { connectAgent, connectProvider, createChannel, echoTool } from "./relay-helpers.js";

const text = (r: unknown) => ((r as { content: Array<{ text?: string }> }).content[0]?.text ?? "") as string;
const attack = (n: number) => `${"a".repeat(n)}!`;

describe("the schema ReDoS", () => {
  it("answers `^(a+)+$` against 31 a's and a ! as invalid arguments, and valid ones still reach the provider", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      tools: [
        echoTool("match", {
          inputSchema: {
            type: "object",
            properties: { text: { type: "string", pattern: "^(a+)+$" } },
            required: ["text"],
          },
        }),
      ],
    });
    provider.serve((call) => ({ content: [{ type: "text", text: `got ${String(call.arguments.text)}` }] }));
    const agent = await connectAgent(ch);
    for (const n of [27, 31]) {
      const res = await agent.callTool({ name: "match", arguments: { text: attack(n) } });
      expect(res.isError).toBe(true);
      expect(text(res)).toMatch(/Invalid arguments for match: \/text: String does not match pattern/);
    }
    expect(text(await agent.callTool({ name: "match", arguments: { text: "a".repeat(31) } }))).toBe(
      `got ${"a".repeat(31)}`,
    );
    expect(provider.frames.filter((f) => f.type === "call")).toHaveLength(1);
  });

  it("checks a provider's structuredContent against its outputSchema's pattern in linear time too", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, {
      tools: [
        echoTool("typed", {
          outputSchema: {
            type: "object",
            properties: { s: { type: "string", pattern: "^(a+)+$" } },
            patternProperties: { "^(x+x+)+y$": { type: "string" } },
          },
        }),
      ],
    });
    provider.serve(() => ({
      content: [{ type: "text", text: "{}" }],
      structuredContent: { s: attack(31), [`${"x".repeat(40)}`]: 1 },
    }));
    const agent = await connectAgent(ch);
    const res = await agent.callTool({ name: "typed", arguments: { text: "x" } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("does not match its outputSchema (/s: String does not match pattern");
  });

  it("refuses, when the tools arrive, a tool whose pattern needs backtracking, naming the tool and the pointer", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool()] });
    provider.send({
      type: "tools",
      tools: [
        echoTool("fine", { inputSchema: { type: "object", properties: { a: { pattern: "^[a-z]+$" } } } }),
        echoTool("ahead", {
          inputSchema: { type: "object", properties: { a: { type: "string", pattern: "^(?=a)a+$" } } },
        }),
        echoTool("backref", {
          inputSchema: { type: "object", patternProperties: { "^(a)\\1$": { type: "string" } } },
        }),
        echoTool("huge", {
          inputSchema: {
            type: "object",
            properties: { a: { pattern: "a".repeat(LIMITS.schemaPatternMax + 1) } },
          },
        }),
      ],
    });
    const error = await provider.next("error");
    expect(error.code).toBe("invalid_tools");
    expect(error.message).toContain("ahead: /properties/a/pattern");
    expect(error.message).toContain("lookahead");
    expect(error.message).toContain("backref: /patternProperties/^(a)\\1$");
    expect(error.message).toContain("backreferences");
    expect(error.message).toContain(`huge: /properties/a/pattern`);
    const agent = await connectAgent(ch);
    expect((await agent.listTools()).tools.map((t) => t.name)).toEqual(["fine"]);
  });
});

describe("the linear-time matcher", () => {
  // Ordinary patterns, and strings around them, compared with V8's RegExp (the `u` flag, unanchored search).
  const corpus: Array<[string, string[]]> = [
    ["^[a-z]+$", ["abc", "", "aBc", "abc\n", "\nabc"]],
    ["^\\d{3}-\\d{4}$", ["555-1234", "5555-1234", "555-123", "٣٣٣-١٢٣٤"]],
    ["\\w+@\\w+\\.com", ["me@example.com", "x me@ex.com y", "é@e.com", "@.com"]],
    ["^\\s*$", ["", "   ", "\t\n", "\u00a0\u2028\ufeff", "\u200b", "\u000b"]],
    ["^\\S+$", ["abc", "a b", "a\u00a0b", "a\u3000b"]],
    ["^.$", ["a", "\n", "\r", "\u2028", "\u2029", "😀", "\u0085"]],
    ["^[^]$", ["\n", "a", "😀"]],
    ["^[]$", ["", "a"]],
    ["a|b|cd", ["a", "xbx", "c", "cd"]],
    ["^(?:ab|cd){2,3}$", ["abcd", "ab", "abcdabcd", "abababab"]],
    ["^x{2}$", ["xx", "x", "xxx"]],
    ["^x{2,}$", ["xx", "x", "xxxxx"]],
    ["^[\\u0041-\\u005A]+$", ["ABC", "abc"]],
    ["^\\u{1F600}$", ["😀", "😁"]],
    ["^\\uD83D\\uDE00$", ["😀", "\ud83d"]],
    ["^[😀-😂]$", ["😁", "😃"]],
    ["^\\p{L}+$", ["héllo", "日本語", "abc1"]],
    ["^\\p{Lu}", ["Abc", "abc"]],
    ["^\\p{Script=Greek}+$", ["αβγ", "abc"]],
    ["^\\P{L}+$", ["123", "a1"]],
    ["[\\p{N}\\s]", ["a", "1", " "]],
    ["^[\\d\\-]+$", ["12-34", "12_34"]],
    ["^[a\\-z]$", ["-", "b", "a"]],
    ["^[-a]$", ["-", "a", "b"]],
    ["^[\\b]$", ["\b", "b"]],
    ["\\bfoo\\b", ["a foo b", "afoob", "foo"]],
    ["\\Bfoo", ["afoo", "foo"]],
    ["^\\$\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/\\\\$", ["$.*+?()[]{}|/\\", "x"]],
    ["^[.*+?()|{}$^]+$", ["$^", "a"]],
    ["^[[:alph]+$", ["[:a", "alpha", "b", "[:alpha:]"]],
    ["^\\cJ$", ["\n", "J"]],
    ["^\\x41\\0$", ["A\0", "A"]],
    ["^\\t\\v\\f\\r\\n$", ["\t\u000b\f\r\n"]],
    ["(?<year>\\d{4})-(\\d{2})", ["2024-05", "24-05"]],
    ["^a*?b+?c??$", ["bc", "aab", "b"]],
    ["^\\p{ASCII}+$", ["abc", "é"]],
    ["[^\\P{Any}]", ["a"]],
    ["^[^\\s\\d]+$", ["abc", "a1", "a b"]],
    ["^[\\W]+$", ["!!", "a"]],
    ["^(a+)+$", ["aaaa", "aaa!", "!"]], // (V8 itself would take 30 s on 31 a's and a !)
    ["^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$", ["a.b+c@d-e.fg", "a@b.c", "a@@b.cd"]],
  ];

  it("agrees with V8's RegExp on a corpus of ordinary patterns", () => {
    for (const [pattern, inputs] of corpus) {
      expect(checkPattern(pattern), pattern).toBeNull();
      const v8 = new RegExp(pattern, "u");
      for (const input of inputs) {
        const expected = v8.test(input);
        const got = withLinearRegExp(() => new RegExp(pattern, "u").test(input));
        expect(got, `${pattern} on ${JSON.stringify(input)}`).toBe(expected);
      }
    }
  });

  it("refuses what RE2 cannot run, with a reason, and leaves the real RegExp in place", () => {
    expect(checkPattern("(?=a)")).toContain("lookahead");
    expect(checkPattern("(?<!a)b")).toContain("lookbehind");
    expect(checkPattern("(a)\\1")).toContain("backreferences");
    expect(checkPattern("(?<n>a)\\k<n>")).toContain("backreferences");
    expect(checkPattern("\\p{Emoji}")).toContain("not supported");
    expect(checkPattern("a{1001}")).toContain("linear-time matcher");
    expect(checkPattern("(")).toContain("not a valid regular expression");
    expect(checkPattern("x".repeat(LIMITS.schemaPatternMax + 1))).toContain(`${LIMITS.schemaPatternMax}`);
    expect(withLinearRegExp(() => new RegExp("^(a+)+$", "u").test(attack(100_000)))).toBe(false);
    expect(() =>
      withLinearRegExp(() => {
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(/(?=a)a/.test("a")).toBe(true);
    expect(new RegExp("(?=a)a").test("a")).toBe(true);
  });

  it("keeps `format: regex` working and refuses a schema whose pattern is unsafe", () => {
    const schema: Schema = { type: "object", properties: { r: { type: "string", format: "regex" } } };
    expect(validateAgainst(schema, { r: "^(?=a)" })).toEqual([]);
    expect(validateAgainst(schema, { r: "(" })).toHaveLength(1);
    expect(checkObjectSchema({ type: "object", properties: { r: { pattern: "(?!x)" } } })).toEqual([
      { path: "/properties/r/pattern", message: expect.stringContaining("lookahead") },
    ]);
  });

  it("bounds the matching work of one validation", () => {
    const schema: Schema = {
      type: "object",
      properties: { s: { type: "string", pattern: "[a-z]{1,999}[0-9]" } },
    };
    const problems = validateAgainst(schema, { s: "a".repeat(200_000) });
    expect(problems).toEqual([{ path: "/", message: expect.stringContaining("could not be checked") }]);
  });
});

// Not only patterns: two more keywords made validation superlinear in the value before (measured in Node with
// @cfworker/json-schema: 20 levels of this anyOf took 15 s, doubling with each level; uniqueItems on 30,000
// items took 3.3 s, quadrupling with each doubling).
const branching: Schema = {
  type: "object",
  properties: { v: { $ref: "#/$defs/n" } },
  $defs: {
    n: {
      anyOf: [
        { type: "array", items: { $ref: "#/$defs/n" }, minItems: 2 },
        { type: "array", items: { $ref: "#/$defs/n" } },
      ],
    },
  },
};
const nest = (levels: number) => {
  let v: unknown = [];
  for (let i = 1; i < levels; i++) v = [v];
  return v;
};

describe("other keywords cannot make validation superlinear", () => {
  it("bounds subschema applications by the value's size (nested anyOf through $ref)", () => {
    expect(validateAgainst(branching, { v: nest(5) })).toEqual([]);
    expect(validateAgainst(branching, { v: 5 })).not.toEqual([]);
    expect(validateAgainst(branching, { v: nest(60) })).toEqual([
      { path: "/", message: expect.stringContaining("more subschema applications than allowed") },
    ]);
  });

  it("refuses a schema nested deeper than LIMITS.jsonDepthMax without overflowing the stack", () => {
    let deep: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 200_000; i++) deep = { items: deep };
    expect(checkObjectSchema({ type: "object", properties: { a: deep } })).toEqual([
      { path: "", message: expect.stringContaining(`deeper than ${LIMITS.jsonDepthMax} levels`) },
    ]);
  });

  it("checks uniqueItems on at most LIMITS.uniqueItemsMax items", () => {
    const schema: Schema = { type: "object", properties: { a: { type: "array", uniqueItems: true } } };
    const many = Array.from({ length: LIMITS.uniqueItemsMax + 1 }, (_, i) => i);
    expect(validateAgainst(schema, { a: many })).toEqual([
      { path: "/", message: expect.stringContaining(`at most ${LIMITS.uniqueItemsMax}`) },
    ]);
    expect(validateAgainst(schema, { a: many.slice(0, LIMITS.uniqueItemsMax) })).toEqual([]);
    expect(validateAgainst(schema, { a: [1, 2, 1] })).toEqual([
      { path: "/a", message: expect.stringContaining("Duplicate items") },
    ]);
  });

  it("answers an agent's deeply nested argument to a branching schema with isError, through the relay", async () => {
    const ch = await createChannel();
    const provider = await connectProvider(ch, { tools: [echoTool("tree", { inputSchema: branching })] });
    provider.serve(() => ({ content: [{ type: "text", text: "ran" }] }));
    const agent = await connectAgent(ch);
    const res = await agent.callTool({ name: "tree", arguments: { v: nest(60) } });
    expect(res.isError).toBe(true);
    expect(text(res)).toContain("could not be checked");
    expect(text(await agent.callTool({ name: "tree", arguments: { v: nest(3) } }))).toBe("ran");
  });
});
