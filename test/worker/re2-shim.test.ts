// The Worker's stand-in for re2js (wrangler.toml [alias], src/worker/shims/re2js.ts) against re2js itself,
// on what src/protocol/linear-regex.ts gives it: `toRe2` of ECMA-262 patterns. Both must refuse the same
// patterns and answer every search alike; the shim's program size is RE2's, or a little more where RE2 factors
// an alternation (so the work budget is never looser). These tests import both (vitest does not apply
// wrangler's [alias]); test/worker/schema-redos.test.ts covers linear-regex.ts itself.
import { env } from "cloudflare:test";
import fc from "fast-check";
import { RE2JS as Real } from "re2js";
import { describe, expect, it } from "vitest";
import { LIMITS, toRe2 } from "../../src/protocol/index.js";
import { RE2JS as Shim } from "../../src/worker/shims/re2js.js";
import { fuzzRuns } from "../support/fuzz-arbitraries.js";

interface Program {
  test(input: string): boolean;
  programSize(): number;
}
type Compiled = { ok: true; re: Program } | { ok: false; why: string };
const compile = (engine: { compile(pattern: string): Program }, p: string): Compiled => {
  try {
    return { ok: true, re: engine.compile(p) };
  } catch (e) {
    return { ok: false, why: e instanceof Error ? e.message : String(e) };
  }
};

/** ECMA `u` pattern → RE2 text as linear-regex.ts makes it, or null where toRe2 itself refuses. */
function translate(pattern: string): string | null {
  try {
    new RegExp(pattern, "u");
    return toRe2(pattern);
  } catch {
    return null;
  }
}

/** Compares the two engines on `pattern` and `inputs`; returns the shim's program size over RE2's. */
function compare(pattern: string, inputs: string[]): number {
  const re2 = translate(pattern);
  if (re2 === null) return 1;
  const real = compile(Real, re2);
  const shim = compile(Shim, re2);
  expect(shim.ok, `${pattern} → ${re2}: ${real.ok ? "" : real.why} / ${shim.ok ? "" : shim.why}`).toBe(
    real.ok,
  );
  if (!real.ok || !shim.ok) return 1;
  for (const input of inputs)
    expect(shim.re.test(input), `${pattern} on ${JSON.stringify(input)}`).toBe(real.re.test(input));
  const ratio = shim.re.programSize() / real.re.programSize();
  expect(ratio, `program size of ${pattern}`).toBeGreaterThanOrEqual(1);
  return ratio;
}

const samples = [
  "",
  "a",
  "abc",
  "aaa!",
  "A1_ z",
  "héllo",
  "日本語",
  "αβγ",
  "😀x",
  "\ud83d",
  "\n",
  "\r\n",
  "a b\u2028c",
  "12-34",
  "foo bar",
  "x".repeat(40),
];

describe("the Worker's re2js stand-in", () => {
  it("refuses what re2js refuses, and matches as it does, on hand-picked patterns", () => {
    const patterns = [
      "^[a-z]+$",
      "^\\d{3}-\\d{4}$",
      "\\w+@\\w+\\.com",
      "^\\s*$",
      "^\\S+$",
      "^.$",
      "^[^]$",
      "^[]$",
      "a|b|cd",
      "^(?:ab|cd){2,3}$",
      "^x{2}$",
      "^x{2,}$",
      "x{0}",
      "x{0,0}y",
      "x{1,1}",
      "x{0,}",
      "x{1,}",
      "(?:x*)*",
      "(?:x*?)*",
      "(?:a|)*",
      "(?:)*",
      "(?:a?)+",
      "a||b",
      "^[\\u0041-\\u005A]+$",
      "^\\u{1F600}$",
      "^[😀-😂]$",
      "^\\p{L}+$",
      "^\\p{Lu}",
      "^\\p{Script=Greek}+$",
      "\\p{sc=Latn}",
      "\\p{Script=Latin}",
      "^\\P{L}+$",
      "[\\p{N}\\s]",
      "[^\\p{L}\\d]",
      "\\p{LC}",
      "\\p{Cn}",
      "\\p{Cs}",
      "\\p{Any}",
      "\\P{ASCII}",
      "\\bfoo\\b",
      "\\Bfoo",
      "\\B",
      "^$",
      "$^",
      "a^b",
      "^\\$\\.\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\/\\\\$",
      "(?<year>\\d{4})-(\\d{2})",
      "^a*?b+?c??$",
      "^(a+)+$",
      "a{1000}",
      "a{1001}",
      "a{2,1000}",
      "(?:a{10}){100}",
      "(?:a{10}){101}",
      "(?:(?:a{2}){2}){250}",
      "(?:(?:a{2}){2}){251}",
      "(?:a*){1000}",
      "(?:a{0}){1001}",
      "[a-z]{1,999}[0-9]",
      "\\ud800",
      "[\\ud800-\\udbff]",
      "^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\\.[a-zA-Z]{2,}$",
      "(?:abc|abd)x",
      "\\p{L}\\bABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz\\P{Lu}",
      "a{2}{3}",
      "a**",
    ];
    for (const p of patterns) compare(p, samples);
  });

  it("agrees with re2js on generated patterns and strings", () => {
    const atom = fc.constantFrom(
      "a",
      "b",
      "é",
      "😀",
      ".",
      "\\d",
      "\\w",
      "\\s",
      "\\S",
      "[a-c]",
      "[^b]",
      "[\\p{L}1]",
      "\\p{Lu}",
      "\\p{Script=Greek}",
      "\\b",
      "\\B",
      "^",
      "$",
      "[]",
      "[^]",
      "\\n",
      "\\u{1F600}",
    );
    const pattern: fc.Arbitrary<string> = fc.letrec<{ re: string }>((tie) => ({
      re: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        atom,
        fc.tuple(tie("re"), tie("re")).map(([a, b]) => a + b),
        fc.tuple(tie("re"), tie("re")).map(([a, b]) => `${a}|${b}`),
        fc
          .tuple(tie("re"), fc.constantFrom("*", "+", "?", "*?", "{2}", "{0,3}", "{2,}", "{1,2}?"))
          .map(([a, q]) => `(?:${a})${q}`),
        tie("re").map((a) => `(${a})`),
      ),
    })).re;
    const text = fc.string({
      unit: fc.constantFrom("a", "b", "c", "é", "😀", "1", " ", "\n", "A", "α", "_", "\ud800"),
      maxLength: 12,
    });
    fc.assert(
      fc.property(pattern, fc.array(text, { maxLength: 8 }), (p, inputs) => {
        compare(p, inputs);
      }),
      { numRuns: fuzzRuns(env.FUZZ_RUNS, 400) },
    );
  });

  it("counts program size as RE2 does where RE2 factors nothing", () => {
    for (const p of [
      "^[a-z]+$",
      "a|b|cd",
      "^x{2,5}$",
      "(?:a*)*b",
      "\\bx\\B",
      "(?:a?)*",
      "[a-z]{1,999}[0-9]",
      "(?:)",
    ])
      expect(compare(p, ["ab"]), p).toBe(1);
  });

  it("answers alike where its DFA runs out of room and it goes on without one", () => {
    // [ab]*a[ab]{14} has 2^15 DFA states: random text builds a new one at most steps.
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const text = Array.from({ length: 60_000 }, () => (random() < 0.5 ? "a" : "b")).join("");
    for (const p of ["[ab]*a[ab]{14}$", "[ab]*a[ab]{14}c", "\\p{L}a[\\p{L}b]{14}\\d"])
      compare(p, [text, `${text}c`, `${text.slice(0, 30_000)}1${text.slice(30_000)}`, `${text}é1`]);
  });

  it("runs the ReDoS pattern over a long input and a pattern at the size limit", () => {
    const re = Shim.compile(toRe2("^(a+)+$"));
    expect(re.test(`${"a".repeat(100_000)}!`)).toBe(false);
    expect(re.test("a".repeat(100_000))).toBe(true);
    const big = toRe2(`(?:${"[a-z]".repeat(Math.floor(LIMITS.schemaPatternMax / 5) - 2)}){1000}`);
    expect(Shim.compile(big).programSize()).toBe(Real.compile(big).programSize());
  });
});
