// Runs the regular expressions of provider-supplied JSON Schemas (`pattern`, `patternProperties`) in linear
// time, so no schema can make checking an agent's arguments or a provider's structuredContent superlinear in
// the input (the ReDoS it prevents: `^(a+)+$` against 30 `a`s and a `!` kept a channel's object busy 29 s).
//
// How, and why this way:
// - The engine is re2js (RE2: an automaton, no backtracking; time ∝ program size × input length). It speaks
//   RE2 syntax, not ECMA-262, so `toRe2` translates a JSON Schema pattern (ECMA-262 with the `u` flag, an
//   unanchored search) token by token into RE2 with the same meaning: `.` excludes ECMA's four line
//   terminators, `\s` is ECMA's whitespace set, `[]` matches nothing, `[^]` anything, literals become
//   `\x{…}` code points (so RE2-only syntax such as `[[:alpha:]]` cannot sneak in). What RE2 cannot run —
//   lookaround, backreferences, inline modifiers, most binary Unicode properties — is refused, with a reason.
// - Patterns are checked when tools arrive (`checkPattern`, via json-schema.ts): a tool whose schema has one
//   that cannot run linearly is refused there with the JSON Pointer of the pattern, never at call time.
// - @cfworker/json-schema calls `new RegExp(pattern, "u").test(s)` for those keywords. Instead of forking or
//   patching the library, `withLinearRegExp` puts a RegExp look-alike on `globalThis.RegExp` for the
//   synchronous duration of one validate call and restores it in `finally`. That is safe because validation
//   is synchronous (no other code can run on the isolate meanwhile) and the library resolves `RegExp` as a
//   global at call time; its own format regexes are literals, which use the real engine. The look-alike's
//   constructor still checks the syntax with the real RegExp (compiling only, never matching: linear), so
//   `format: "regex"` keeps working.
// - Work is also bounded: each match costs program size × (input length + 1) units against a budget per
//   validation (LIMITS.schemaRegexWork), and a pattern is at most LIMITS.schemaPatternMax characters.
import { RE2JS } from "re2js";
import { LIMITS } from "./limits.js";

const MAX_CODE_POINT = 0x10ffff;
type Ranges = Array<[number, number]>;

/** ECMA-262 WhiteSpace and LineTerminator: what `\s` matches (RE2's `\s` is only ASCII). */
const ECMA_SPACE: Ranges = [
  [0x09, 0x0d],
  [0x20, 0x20],
  [0xa0, 0xa0],
  [0x1680, 0x1680],
  [0x2000, 0x200a],
  [0x2028, 0x2029],
  [0x202f, 0x202f],
  [0x205f, 0x205f],
  [0x3000, 0x3000],
  [0xfeff, 0xfeff],
];
/** What `.` does not match without the `s` flag. */
const LINE_TERMINATORS: Ranges = [
  [0x0a, 0x0a],
  [0x0d, 0x0d],
  [0x2028, 0x2029],
];
const ALL: Ranges = [[0, MAX_CODE_POINT]];
/** `\w` (ASCII, as in ECMA-262 without the `i` flag). */
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];

/** General_Category long names (ECMA-262 accepts them) → the short ones RE2 knows. */
const CATEGORY: Record<string, string> = {
  Letter: "L",
  Cased_Letter: "LC",
  Uppercase_Letter: "Lu",
  Lowercase_Letter: "Ll",
  Titlecase_Letter: "Lt",
  Modifier_Letter: "Lm",
  Other_Letter: "Lo",
  Mark: "M",
  Combining_Mark: "M",
  Nonspacing_Mark: "Mn",
  Spacing_Mark: "Mc",
  Enclosing_Mark: "Me",
  Number: "N",
  Decimal_Number: "Nd",
  digit: "Nd",
  Letter_Number: "Nl",
  Other_Number: "No",
  Punctuation: "P",
  punct: "P",
  Connector_Punctuation: "Pc",
  Dash_Punctuation: "Pd",
  Open_Punctuation: "Ps",
  Close_Punctuation: "Pe",
  Initial_Punctuation: "Pi",
  Final_Punctuation: "Pf",
  Other_Punctuation: "Po",
  Symbol: "S",
  Math_Symbol: "Sm",
  Currency_Symbol: "Sc",
  Modifier_Symbol: "Sk",
  Other_Symbol: "So",
  Separator: "Z",
  Space_Separator: "Zs",
  Line_Separator: "Zl",
  Paragraph_Separator: "Zp",
  Other: "C",
  Control: "Cc",
  cntrl: "Cc",
  Format: "Cf",
  Surrogate: "Cs",
  Private_Use: "Co",
  Unassigned: "Cn",
};
const SHORT_CATEGORIES = new Set(Object.values(CATEGORY));

/** Why a pattern cannot be run in linear time (or is not a pattern at all). */
export class UnsafePatternError extends Error {}

/** Thrown inside `withLinearRegExp` when the matches of one validation exceed their work budget. */
export class RegexWorkExceeded extends Error {}

function complement(ranges: Ranges, max = MAX_CODE_POINT): Ranges {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  let next = 0;
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1]);
    next = Math.max(next, hi + 1);
  }
  if (next <= max) out.push([next, max]);
  return out;
}

const hex = (cp: number) => `\\x{${cp.toString(16)}}`;
const body = (ranges: Ranges) =>
  ranges.map(([lo, hi]) => (lo === hi ? hex(lo) : `${hex(lo)}-${hex(hi)}`)).join("");
/** A whole RE2 class for `ranges`; an empty set is a class nothing matches. */
const classOf = (ranges: Ranges) => (ranges.length ? `[${body(ranges)}]` : `[^${body(ALL)}]`);

/** One escape or class member as RE2 class-body text, and the single code point it stands for, if any. */
interface Piece {
  text: string;
  single: number | null;
  /** What it matches, when that is a set of characters (not a Unicode property). */
  ranges?: Ranges;
}

/**
 * For `toRe2` reading a pattern written without the `u` flag (Annex B syntax, matching UTF-16 code units), for
 * an input the caller re-encodes code unit by code unit (so a surrogate pair is two characters, as V8 sees it).
 * Word boundaries and legacy octal escapes are refused; `(?=.)` is the one lookaround it accepts.
 */
export interface CodeUnitAlphabet {
  /** The RE2 class-body text for the code units lo..hi, as the re-encoded input carries them. */
  rangeText(lo: number, hi: number): string;
  /** What `$` becomes. */
  end: string;
  /** What `(?=.)` becomes. */
  oneChar: string;
}

/**
 * Translates a JSON Schema `pattern` (ECMA-262, `u` flag) into RE2 syntax with the same meaning. The source
 * must already be a valid ECMA-262 `u` pattern (checked with the real RegExp first); throws
 * UnsafePatternError for what RE2 cannot express. With `units`, the source is a valid pattern without the `u`
 * flag instead (the sidecar's globs, from picomatch), read as CodeUnitAlphabet says.
 */
export function toRe2(source: string, units?: CodeUnitAlphabet): string {
  let i = 0;
  const cpAt = (at: number) => (units ? source.charCodeAt(at) : source.codePointAt(at)!);
  const width = (cp: number) => (cp > 0xffff ? 2 : 1);
  const max = units ? 0xffff : MAX_CODE_POINT;
  const text = (ranges: Ranges) =>
    units ? ranges.map(([lo, hi]) => units.rangeText(lo, hi)).join("") : body(ranges);
  const setClass = (ranges: Ranges) => (ranges.length ? `[${text(ranges)}]` : classOf([]));

  const hexDigits = (from: number, count: number) => parseInt(source.slice(from, from + count), 16);

  /** `\u…` at `at` (pointing at the `u`): the code point and where it ends; joins an escaped surrogate pair. */
  const unicodeEscape = (at: number): [number, number] => {
    if (source[at + 1] === "{") {
      const end = source.indexOf("}", at);
      return [parseInt(source.slice(at + 2, end), 16), end + 1];
    }
    const first = hexDigits(at + 1, 4);
    if (first >= 0xd800 && first <= 0xdbff && source.startsWith("\\u", at + 5)) {
      const second = hexDigits(at + 7, 4);
      if (second >= 0xdc00 && second <= 0xdfff)
        return [(first - 0xd800) * 0x400 + (second - 0xdc00) + 0x10000, at + 11];
    }
    return [first, at + 5];
  };

  /** `\p{…}` / `\P{…}` at `at` (pointing at the backslash) as class-body text. */
  const property = (at: number): [Piece, number] => {
    const negated = source[at + 1] === "P";
    const end = source.indexOf("}", at);
    const spec = source.slice(at + 3, end);
    const [name, value] = spec.includes("=") ? spec.split("=", 2) : [null, spec];
    const p = negated ? "P" : "p";
    let text: string;
    if (name === null && (value === "Any" || value === "ASCII")) {
      const ranges: Ranges = value === "Any" ? ALL : [[0, 0x7f]];
      text = body(negated ? complement(ranges) : ranges);
    } else if (name === null || name === "General_Category" || name === "gc") {
      const short = CATEGORY[value!] ?? (SHORT_CATEGORIES.has(value!) ? value! : null);
      if (short) text = `\\${p}{${short}}`;
      else if (name === null)
        throw new UnsafePatternError(
          `the Unicode property \\${p}{${spec}} is not supported by the hub's linear-time matcher (use a General_Category such as \\p{L} or a Script such as \\p{Script=Greek})`,
        );
      else throw new UnsafePatternError(`unknown General_Category \\${p}{${spec}}`);
    } else if (name === "Script" || name === "sc") {
      text = `\\${p}{${value}}`;
    } else {
      throw new UnsafePatternError(
        `the Unicode property \\${p}{${spec}} is not supported by the hub's linear-time matcher`,
      );
    }
    return [{ text, single: null }, end + 1];
  };

  /** The escape at `at` (a backslash) as class-body text; `inClass` changes what `\b` means. */
  const escape = (at: number, inClass: boolean): [Piece, number] => {
    const c = source[at + 1]!;
    const single = (cp: number, next: number): [Piece, number] => [
      { text: units ? units.rangeText(cp, cp) : hex(cp), single: cp, ranges: [[cp, cp]] },
      next,
    ];
    const set = (ranges: Ranges): [Piece, number] => [{ text: text(ranges), single: null, ranges }, at + 2];
    if (units) {
      // Annex B: what these escapes mean without the `u` flag.
      const after = source[at + 2] ?? "";
      if (c === "c" && !/[A-Za-z]/.test(after) && !(inClass && /[0-9_]/.test(after)))
        return single(0x5c, at + 1);
      if (c === "p" || c === "P" || c === "k") return single(c.charCodeAt(0), at + 2);
      if (c === "u" && !/^[0-9A-Fa-f]{4}$/.test(source.slice(at + 2, at + 6))) return single(0x75, at + 2);
      if (c === "x" && !/^[0-9A-Fa-f]{2}$/.test(source.slice(at + 2, at + 4))) return single(0x78, at + 2);
      if (c === "0" && /[0-9]/.test(after))
        throw new UnsafePatternError("legacy octal escapes (\\0…) are not supported by the hub's matcher");
      if (c === "c") return single(after.charCodeAt(0) % 32, at + 3);
    }
    switch (c) {
      case "d":
        return set([[0x30, 0x39]]);
      case "D":
        return set(complement([[0x30, 0x39]], max));
      case "w":
        return set(WORD);
      case "W":
        return set(complement(WORD, max));
      case "s":
        return set(ECMA_SPACE);
      case "S":
        return set(complement(ECMA_SPACE, max));
      case "p":
      case "P":
        return property(at);
      case "f":
        return single(0x0c, at + 2);
      case "n":
        return single(0x0a, at + 2);
      case "r":
        return single(0x0d, at + 2);
      case "t":
        return single(0x09, at + 2);
      case "v":
        return single(0x0b, at + 2);
      case "0":
        return single(0, at + 2);
      case "b":
        if (inClass) return single(0x08, at + 2);
        break;
      case "c":
        return single(source.charCodeAt(at + 2) % 32, at + 3);
      case "x":
        return single(hexDigits(at + 2, 2), at + 4);
      case "u": {
        if (units) return single(hexDigits(at + 2, 4), at + 6);
        const [cp, next] = unicodeEscape(at + 1);
        return single(cp, next);
      }
      case "k":
        throw new UnsafePatternError(
          "backreferences (\\k<name>) need backtracking, which the hub does not run",
        );
    }
    if (c >= "1" && c <= "9")
      throw new UnsafePatternError(`backreferences (\\${c}) need backtracking, which the hub does not run`);
    // An identity escape of a syntax character (or `/`, or `-` in a class): the character itself.
    const cp = cpAt(at + 1);
    return single(cp, at + 1 + width(cp));
  };

  const charClass = (): string => {
    // `i` is at "[".
    i++;
    const negated = source[i] === "^";
    if (negated) i++;
    let text = "";
    const ranges: Ranges = [];
    const member = (): Piece => {
      if (source[i] === "\\") {
        const [piece, next] = escape(i, true);
        i = next;
        return piece;
      }
      const cp = cpAt(i);
      i += width(cp);
      return { text: hex(cp), single: cp, ranges: [[cp, cp]] };
    };
    while (source[i] !== "]") {
      const first = member();
      if (first.single !== null && source[i] === "-" && source[i + 1] !== "]") {
        i++;
        const last = member();
        // Annex B reads `[a-\d]` as a, "-" and the digits.
        if (units && last.single === null)
          ranges.push([first.single, first.single], [0x2d, 0x2d], ...last.ranges!);
        else if (units) ranges.push([first.single, last.single!]);
        text += `${hex(first.single)}-${hex(last.single ?? first.single)}`;
      } else {
        if (units) ranges.push(...first.ranges!);
        text += first.text;
      }
    }
    i++;
    if (units) return setClass(negated ? complement(ranges, max) : ranges);
    if (text === "") return classOf(negated ? ALL : []);
    return `[${negated ? "^" : ""}${text}]`;
  };

  let out = "";
  while (i < source.length) {
    const c = source[i]!;
    if (c === "\\") {
      const next = source[i + 1];
      if (next === "b" || next === "B") {
        if (units)
          throw new UnsafePatternError("word boundaries (\\b, \\B) are not supported by the hub's matcher");
        out += `\\${next}`;
        i += 2;
        continue;
      }
      const [piece, after] = escape(i, false);
      i = after;
      out += piece.single !== null ? piece.text : piece.text ? `[${piece.text}]` : classOf([]);
    } else if (c === "[") {
      out += charClass();
    } else if (c === ".") {
      out += units ? setClass(complement(LINE_TERMINATORS, max)) : classOf(complement(LINE_TERMINATORS));
      i++;
    } else if (units && source.startsWith("(?=.)", i)) {
      out += units.oneChar;
      i += 5;
    } else if (units && c === "{" && !/^\{\d+(?:,\d*)?\}/.test(source.slice(i, i + 24))) {
      out += units.rangeText(0x7b, 0x7b);
      i++;
    } else if (units && c === "$") {
      out += units.end;
      i++;
    } else if (c === "(") {
      if (source.startsWith("(?=", i) || source.startsWith("(?!", i))
        throw new UnsafePatternError("lookahead ((?= or (?!) needs backtracking, which the hub does not run");
      if (source.startsWith("(?<=", i) || source.startsWith("(?<!", i))
        throw new UnsafePatternError(
          "lookbehind ((?<= or (?<!) needs backtracking, which the hub does not run",
        );
      if (source.startsWith("(?:", i)) i += 3;
      else if (source.startsWith("(?<", i)) i = source.indexOf(">", i) + 1;
      else if (source[i + 1] === "?")
        throw new UnsafePatternError(
          "inline modifiers such as (?i:…) are not supported by the hub's matcher",
        );
      else i++;
      out += "(?:"; // captures are never read: every group is a plain group
    } else if (c === "{") {
      // In `u` mode a brace is always a quantifier ({n}, {n,}, {n,m}); copied as is.
      const end = source.indexOf("}", i);
      out += source.slice(i, end + 1);
      i = end + 1;
    } else if ("|)^$*+?".includes(c)) {
      out += c;
      i++;
    } else {
      const cp = cpAt(i);
      out += units ? units.rangeText(cp, cp) : /[A-Za-z0-9_ ]/.test(c) ? c : hex(cp);
      i += width(cp);
    }
  }
  return out;
}

// Compiled patterns by source: a validation asks for the same pattern once per string it checks.
const compiled = new Map<string, { re: RE2JS; size: number }>();
const COMPILED_MAX = 512;
const NativeRegExp = RegExp;

/** The RE2 program for a JSON Schema pattern, and its size; throws UnsafePatternError when there is none. */
export function compileLinear(source: string): { re: RE2JS; size: number } {
  const hit = compiled.get(source);
  if (hit) return hit;
  if (source.length > LIMITS.schemaPatternMax)
    throw new UnsafePatternError(`a pattern may be at most ${LIMITS.schemaPatternMax} characters`);
  try {
    new NativeRegExp(source, "u");
  } catch {
    throw new UnsafePatternError("is not a valid regular expression (ECMA-262, with the u flag)");
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(toRe2(source));
  } catch (e) {
    if (e instanceof UnsafePatternError) throw e;
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : String(e);
    throw new UnsafePatternError(`cannot be run by the hub's linear-time matcher (${why})`);
  }
  if (compiled.size >= COMPILED_MAX) compiled.delete(compiled.keys().next().value!);
  const entry = { re, size: re.programSize() };
  compiled.set(source, entry);
  return entry;
}

/** Why `source` cannot be a schema pattern on the hub, or null when it can. */
export function checkPattern(source: string): string | null {
  try {
    compileLinear(source);
    return null;
  } catch (e) {
    return e instanceof UnsafePatternError ? e.message : String(e);
  }
}

/** Work left in the validation under way (units: program size × input length). */
let workLeft = 0;
let installed = 0;

/** What @cfworker/json-schema gets for `new RegExp(pattern, "u")` while `withLinearRegExp` runs. */
class LinearRegExp {
  readonly source: string;
  readonly flags: string;
  constructor(source: unknown, flags?: unknown) {
    const native = new NativeRegExp(source as string, flags as string | undefined); // syntax only
    this.source = String(source);
    this.flags = native.flags;
  }

  test(input: unknown): boolean {
    if (this.flags !== "u")
      throw new UnsafePatternError(`unexpected regular expression flags "${this.flags}"`);
    const text = String(input);
    const { re, size } = compileLinear(this.source);
    workLeft -= size * (text.length + 1);
    if (workLeft < 0)
      throw new RegexWorkExceeded("the schema's patterns need more matching work than allowed");
    return re.test(text);
  }
}

/**
 * Runs `fn` (synchronous) with `RegExp` meaning the linear-time matcher, within `work` units of matching.
 * Throws RegexWorkExceeded when the budget runs out; the real RegExp is back when this returns or throws.
 */
export function withLinearRegExp<T>(fn: () => T, work: number = LIMITS.schemaRegexWork): T {
  const scope = globalThis as { RegExp: unknown };
  if (installed > 0) return fn();
  const saved = scope.RegExp;
  scope.RegExp = LinearRegExp;
  installed++;
  workLeft = work;
  try {
    return fn();
  } finally {
    installed--;
    scope.RegExp = saved;
  }
}
