// Parses the source of a JavaScript RegExp (no flags: not unicode, Annex B syntax) into a small syntax tree,
// so the glob matcher can run picomatch's own regexes on a linear-time engine (linear-regex.ts) with the
// exact meaning V8 gives them: UTF-16 code units, `.` without line terminators, legacy octal escapes.
// Back-references have no linear-time match and are refused; the caller checks the source with V8 first,
// so only valid patterns arrive here.

/** Sorted, merged, inclusive code-unit ranges, flat: [lo0, hi0, lo1, hi1, …]. */
export type Ranges = number[];

export type RegexNode =
  | { t: "empty" }
  | { t: "set"; ranges: Ranges }
  | { t: "seq"; items: RegexNode[] }
  | { t: "alt"; alts: RegexNode[] }
  | { t: "repeat"; node: RegexNode; min: number; max: number }
  | { t: "assert"; kind: "start" | "end" | "wordBoundary" | "notWordBoundary" }
  | { t: "look"; behind: boolean; negate: boolean; node: RegexNode; key: string };

/** A construct the linear-time engine cannot run (a back-reference); its message names it. */
export class UnsupportedRegexError extends Error {
  override readonly name = "UnsupportedRegexError";
}

const MAX_UNIT = 0xffff;

export function normalize(ranges: Ranges): Ranges {
  const pairs: Array<[number, number]> = [];
  for (let i = 0; i < ranges.length; i += 2) pairs.push([ranges[i]!, ranges[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  const out: Ranges = [];
  for (const [lo, hi] of pairs) {
    const last = out.length - 1;
    if (last > 0 && lo <= out[last]! + 1) out[last] = Math.max(out[last]!, hi);
    else out.push(lo, hi);
  }
  return out;
}

export function complement(ranges: Ranges): Ranges {
  const n = normalize(ranges);
  const out: Ranges = [];
  let next = 0;
  for (let i = 0; i < n.length; i += 2) {
    if (n[i]! > next) out.push(next, n[i]! - 1);
    next = n[i + 1]! + 1;
  }
  if (next <= MAX_UNIT) out.push(next, MAX_UNIT);
  return out;
}

export const DIGIT: Ranges = [0x30, 0x39];
export const WORD: Ranges = [0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a];
const SPACE: Ranges = normalize([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f,
  0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
]);
const LINE_TERMINATORS: Ranges = [0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029];
const DOT = complement(LINE_TERMINATORS);

const CLASS_ESCAPES: Record<string, Ranges> = {
  d: DIGIT,
  D: complement(DIGIT),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
const CONTROL_ESCAPES: Record<string, number> = { t: 9, n: 10, v: 11, f: 12, r: 13 };

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isOctal = (c: string | undefined) => c !== undefined && c >= "0" && c <= "7";
const isHex = (c: string | undefined) => c !== undefined && /^[0-9a-fA-F]$/.test(c);
const isLetter = (c: string | undefined) => c !== undefined && /^[a-zA-Z]$/.test(c);

/** Capturing groups in the pattern (a `\N` above this count is an octal or identity escape, not a back-reference). */
function countGroups(src: string): { groups: number; named: boolean } {
  let groups = 0;
  let named = false;
  let inClass = false;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") {
      if (src[i + 1] !== "?") groups++;
      else if (src[i + 2] === "<" && src[i + 3] !== "=" && src[i + 3] !== "!") {
        groups++;
        named = true;
      }
    }
  }
  return { groups, named };
}

class Parser {
  private pos = 0;
  private readonly groups: number;
  private readonly named: boolean;

  constructor(private readonly src: string) {
    ({ groups: this.groups, named: this.named } = countGroups(src));
  }

  parse(): RegexNode {
    const node = this.disjunction();
    if (this.pos !== this.src.length) throw new Error(`unexpected ${this.src[this.pos]} at ${this.pos}`);
    return node;
  }

  private peek(offset = 0): string | undefined {
    return this.src[this.pos + offset];
  }

  private disjunction(): RegexNode {
    const alts = [this.alternative()];
    while (this.peek() === "|") {
      this.pos++;
      alts.push(this.alternative());
    }
    return alts.length === 1 ? alts[0]! : { t: "alt", alts };
  }

  private alternative(): RegexNode {
    const items: RegexNode[] = [];
    while (this.pos < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      items.push(this.quantified(this.atom()));
    }
    return items.length === 0 ? { t: "empty" } : items.length === 1 ? items[0]! : { t: "seq", items };
  }

  /** A `{n}`, `{n,}` or `{n,m}` at pos, or null (Annex B: then `{` is a literal). */
  private braced(): { min: number; max: number; end: number } | null {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.pos));
    if (!m) return null;
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
    return { min, max, end: this.pos + m[0].length };
  }

  private quantified(node: RegexNode): RegexNode {
    let min: number;
    let max: number;
    const c = this.peek();
    if (c === "*" || c === "+" || c === "?") {
      this.pos++;
      [min, max] = c === "*" ? [0, Infinity] : c === "+" ? [1, Infinity] : [0, 1];
    } else {
      const b = c === "{" ? this.braced() : null;
      if (b === null) return node;
      this.pos = b.end;
      ({ min, max } = b);
    }
    if (this.peek() === "?") this.pos++; // lazy: the same strings match
    return { t: "repeat", node, min, max };
  }

  private atom(): RegexNode {
    const c = this.src[this.pos++]!;
    switch (c) {
      case "^":
        return { t: "assert", kind: "start" };
      case "$":
        return { t: "assert", kind: "end" };
      case ".":
        return { t: "set", ranges: DOT };
      case "[":
        return this.characterClass();
      case "(":
        return this.group();
      case "\\":
        return this.atomEscape();
      default:
        return { t: "set", ranges: [c.charCodeAt(0), c.charCodeAt(0)] };
    }
  }

  private group(): RegexNode {
    const start = this.pos - 1;
    let look: { behind: boolean; negate: boolean } | null = null;
    if (this.peek() === "?") {
      const rest = this.src.slice(this.pos, this.pos + 3);
      if (rest.startsWith("?:")) this.pos += 2;
      else if (rest.startsWith("?=") || rest.startsWith("?!")) {
        look = { behind: false, negate: rest[1] === "!" };
        this.pos += 2;
      } else if (rest === "?<=" || rest === "?<!") {
        look = { behind: true, negate: rest[2] === "!" };
        this.pos += 3;
      } else {
        const close = this.src.indexOf(">", this.pos);
        this.pos = close + 1; // (?<name>…): a capturing group
      }
    }
    const node = this.disjunction();
    if (this.src[this.pos++] !== ")") throw new Error(`unclosed group at ${start}`);
    return look === null ? node : { t: "look", ...look, node, key: this.src.slice(start, this.pos) };
  }

  /** Annex B LegacyOctalEscapeSequence, the first digit at pos. */
  private octal(): number {
    const d0 = this.src[this.pos++]!;
    let value = Number(d0);
    if (isOctal(this.peek())) {
      value = value * 8 + Number(this.src[this.pos++]);
      if (d0 <= "3" && isOctal(this.peek())) value = value * 8 + Number(this.src[this.pos++]);
    }
    return value;
  }

  private single(code: number): RegexNode {
    return { t: "set", ranges: [code, code] };
  }

  private atomEscape(): RegexNode {
    const c = this.peek();
    if (c === undefined) throw new Error("trailing backslash");
    if (c === "b" || c === "B") {
      this.pos++;
      return { t: "assert", kind: c === "b" ? "wordBoundary" : "notWordBoundary" };
    }
    if (isDigit(c) && c !== "0") {
      const m = /^\d+/.exec(this.src.slice(this.pos))!;
      if (Number(m[0]) <= this.groups) {
        throw new UnsupportedRegexError(`a back-reference (\\${m[0]})`);
      }
      if (c === "8" || c === "9") {
        this.pos++;
        return this.single(c.charCodeAt(0));
      }
      return this.single(this.octal());
    }
    if (c === "k" && this.named) throw new UnsupportedRegexError("a named back-reference (\\k<…>)");
    const ranges = this.characterEscape(false);
    return { t: "set", ranges };
  }

  /**
   * An escape after `\` (pos at the character after it) as ranges: class escapes, control escapes, `\0`,
   * legacy octal, `\cX`, `\xHH`, `\uHHHH`, identity escapes. Inside a class, `\b` is a backspace.
   */
  private characterEscape(inClass: boolean): Ranges {
    const c = this.src[this.pos]!;
    const cls = CLASS_ESCAPES[c];
    if (cls !== undefined) {
      this.pos++;
      return cls;
    }
    const one = (code: number): Ranges => [code, code];
    if (CONTROL_ESCAPES[c] !== undefined) {
      this.pos++;
      return one(CONTROL_ESCAPES[c]);
    }
    if (inClass && c === "b") {
      this.pos++;
      return one(8);
    }
    if (c === "0" && !isDigit(this.peek(1))) {
      this.pos++;
      return one(0);
    }
    if (isOctal(c)) return one(this.octal());
    if (c === "c") {
      const letter = this.peek(1);
      if (isLetter(letter) || (inClass && (isDigit(letter) || letter === "_"))) {
        this.pos += 2;
        return one(letter!.charCodeAt(0) % 32);
      }
      return one(0x5c); // Annex B: `\c` not before a control letter is a backslash; the `c` follows
    }
    if (c === "x" && isHex(this.peek(1)) && isHex(this.peek(2))) {
      this.pos += 3;
      return one(parseInt(this.src.slice(this.pos - 2, this.pos), 16));
    }
    if (c === "u" && [1, 2, 3, 4].every((i) => isHex(this.peek(i)))) {
      this.pos += 5;
      return one(parseInt(this.src.slice(this.pos - 4, this.pos), 16));
    }
    this.pos++;
    return one(c.charCodeAt(0)); // identity escape (also `\8`, `\9`, `\k` without named groups)
  }

  /** One class atom: a set (class escape) or a single code unit. */
  private classAtom(): { ranges: Ranges; unit: number | null } {
    const c = this.src[this.pos++]!;
    if (c !== "\\") return { ranges: [c.charCodeAt(0), c.charCodeAt(0)], unit: c.charCodeAt(0) };
    const escaped = this.src[this.pos]!;
    const ranges = this.characterEscape(true);
    const unit = CLASS_ESCAPES[escaped] !== undefined ? null : ranges[0]!;
    return { ranges, unit };
  }

  private characterClass(): RegexNode {
    const negate = this.peek() === "^";
    if (negate) this.pos++;
    const ranges: Ranges = [];
    while (this.peek() !== "]") {
      if (this.pos >= this.src.length) throw new Error("unclosed character class");
      const a = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        this.pos++;
        const b = this.classAtom();
        if (a.unit !== null && b.unit !== null) {
          ranges.push(a.unit, b.unit);
        } else {
          ranges.push(...a.ranges, 0x2d, 0x2d, ...b.ranges); // Annex B: `[\d-z]` is \d, `-` and z
        }
      } else {
        ranges.push(...a.ranges);
      }
    }
    this.pos++;
    const set = normalize(ranges);
    return { t: "set", ranges: negate ? complement(set) : set };
  }
}

/** Parses a valid flag-less JavaScript regex source; throws UnsupportedRegexError for back-references. */
export function parseJsRegex(source: string): RegexNode {
  return new Parser(source).parse();
}
