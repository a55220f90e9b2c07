// Stands in, in the Worker bundle only (wrangler.toml [alias]), for re2js (about 45 KiB gzipped: a whole RE2
// port with a DFA, one-pass and backtracking engines, sets, prefilters and Unicode tables). The Worker uses one
// thing of it: src/protocol/linear-regex.ts compiles the RE2 text its `toRe2` writes and asks `programSize()`
// and `test(input)` (an unanchored search). This is that, in linear time the same way: the pattern compiles to
// an automaton (Thompson's construction, as RE2's compiler does), and `test` runs all its threads in lockstep
// over the input (a Pike VM without captures): time ∝ program size × (input length + 1), never backtracking.
//
// What it accepts is toRe2's output grammar: `(?:…)`, `|`, `^`, `$`, `\b`, `\B`, `*`, `+`, `?`, `{n}`,
// `{n,}`, `{n,m}` (each optionally lazy), `\x{…}` code points, the literal characters `[A-Za-z0-9_ ]`, and
// classes of `\x{…}`, `\x{…}-\x{…}`, `\p{…}`, `\P{…}`; anything else is refused as a syntax error (which
// linear-regex.ts reports as a pattern the hub cannot run). It refuses what RE2 refuses there: repeat counts
// over 1,000 and nested repeats whose product exceeds 1,000 (RE2's `repeatIsValid`), programs over RE2's size
// limit, and Unicode classes RE2 has no table for (the names below are re2js 2.10's: its General_Category
// values and scripts). Class membership for a Unicode property is asked of the platform's RegExp (`\p{gc=…}`
// or `\p{sc=…}`, sticky, one code point: constant time); re2js's tables and V8's agree on every code point.
// Program size counts instructions as RE2 does (its `Fail` and `Match`, one per code point or class, one per
// alternation, loop or empty assertion; repeats expanded), except that RE2 also factors common prefixes out of
// alternations: a pattern such as `abc|abd` counts a few more here, so the work budget is never looser.
// test/worker/re2-shim.test.ts compares it with re2js (vitest does not apply wrangler's [alias]).

/** The platform's RegExp, kept before linear-regex.ts can put its look-alike on `globalThis.RegExp`. */
const NativeRegExp = RegExp;

const MAX_RUNE = 0x10ffff;
/** RE2's limits: repeat counts, program size (Parser.MAX_SIZE), nesting (Parser.MAX_HEIGHT). */
const MAX_REPEAT = 1000;
const MAX_SIZE = 1398101;
const MAX_HEIGHT = 1000;

const CATEGORIES = new Set(
  "L LC Lu Ll Lt Lm Lo M Mn Mc Me N Nd Nl No P Pc Pd Ps Pe Pi Pf Po S Sm Sc Sk So Z Zs Zl Zp C Cc Cf Cs Co Cn".split(
    " ",
  ),
);
const SCRIPTS = new Set(
  "Adlam Ahom Anatolian_Hieroglyphs Arabic Armenian Avestan Balinese Bamum Bassa_Vah Batak Bengali Bhaiksuki Bopomofo Brahmi Braille Buginese Buhid Canadian_Aboriginal Carian Caucasian_Albanian Chakma Cham Cherokee Chorasmian Common Coptic Cuneiform Cypriot Cypro_Minoan Cyrillic Deseret Devanagari Dives_Akuru Dogra Duployan Egyptian_Hieroglyphs Elbasan Elymaic Ethiopic Garay Georgian Glagolitic Gothic Grantha Greek Gujarati Gunjala_Gondi Gurmukhi Gurung_Khema Han Hangul Hanifi_Rohingya Hanunoo Hatran Hebrew Hiragana Imperial_Aramaic Inherited Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Kannada Katakana Kawi Kayah_Li Kharoshthi Khitan_Small_Script Khmer Khojki Khudawadi Kirat_Rai Lao Latin Lepcha Limbu Linear_A Linear_B Lisu Lycian Lydian Mahajani Makasar Malayalam Mandaic Manichaean Marchen Masaram_Gondi Medefaidrin Meetei_Mayek Mende_Kikakui Meroitic_Cursive Meroitic_Hieroglyphs Miao Modi Mongolian Mro Multani Myanmar Nabataean Nag_Mundari Nandinagari New_Tai_Lue Newa Nko Nushu Nyiakeng_Puachue_Hmong Ogham Ol_Chiki Ol_Onal Old_Hungarian Old_Italic Old_North_Arabian Old_Permic Old_Persian Old_Sogdian Old_South_Arabian Old_Turkic Old_Uyghur Oriya Osage Osmanya Pahawh_Hmong Palmyrene Pau_Cin_Hau Phags_Pa Phoenician Psalter_Pahlavi Rejang Runic Samaritan Saurashtra Sharada Shavian Siddham SignWriting Sinhala Sogdian Sora_Sompeng Soyombo Sundanese Sunuwar Syloti_Nagri Syriac Tagalog Tagbanwa Tai_Le Tai_Tham Tai_Viet Takri Tamil Tangsa Tangut Telugu Thaana Thai Tibetan Tifinagh Tirhuta Todhri Toto Tulu_Tigalari Ugaritic Vai Vithkuqi Wancho Warang_Citi Yezidi Yi Zanabazar_Square".split(
    " ",
  ),
);

/** One alternative of a class: code point ranges (flat lo, hi pairs) and Unicode properties, maybe negated. */
interface ClassPart {
  ranges: number[];
  props: RegExp[];
  negated: boolean;
}
const enum K {
  Class,
  Cat,
  Alt,
  Star,
  Plus,
  Quest,
  Repeat,
  Assert,
  Empty,
}
type Node =
  | { k: K.Class; parts: ClassPart[] }
  | { k: K.Cat | K.Alt; subs: Node[] }
  | { k: K.Star | K.Plus | K.Quest; sub: Node; lazy: boolean }
  | { k: K.Repeat; sub: Node; min: number; max: number; lazy: boolean }
  | { k: K.Assert; what: "^" | "$" | "b" | "B" }
  | { k: K.Empty };

/** A pattern re2js would refuse, with its message ("error parsing regexp: <why>: `<where>`"). */
export class RE2JSSyntaxException extends Error {
  constructor(why: string, where?: string) {
    super(`error parsing regexp: ${why}${where ? `: \`${where}\`` : ""}`);
  }
}

function parse(src: string): Node {
  let i = 0;
  const fail = (why: string, where = src.slice(i)): never => {
    throw new RE2JSSyntaxException(why, where);
  };

  /** `\x{…}` at `i`: its code point. */
  const codePoint = (): number => {
    const m = /^\\x\{([0-9a-f]{1,6})\}/.exec(src.slice(i, i + 11));
    const cp = m ? parseInt(m[1]!, 16) : MAX_RUNE + 1;
    if (cp > MAX_RUNE) fail("invalid escape sequence");
    i += m![0].length;
    return cp;
  };

  /** `\p{…}` / `\P{…}` at `i`, as a sticky matcher of one code point. */
  const property = (): RegExp => {
    const m = /^\\([pP])\{(\w+)\}/.exec(src.slice(i, i + 40));
    const name = m?.[2] ?? "";
    const kind = CATEGORIES.has(name) ? "gc" : SCRIPTS.has(name) ? "sc" : null;
    if (!kind) fail("invalid character class range", m?.[0]);
    i += m![0].length;
    return new NativeRegExp(`\\${m![1]}{${kind}=${name}}`, "uy");
  };

  const charClass = (): Node => {
    i++; // "["
    const part: ClassPart = { ranges: [], props: [], negated: src[i] === "^" };
    if (part.negated) i++;
    while (src[i] !== "]") {
      if (i >= src.length) fail("missing closing ]");
      if (src[i] === "\\" && (src[i + 1] === "p" || src[i + 1] === "P")) {
        part.props.push(property());
        continue;
      }
      const lo = src[i] === "\\" ? codePoint() : fail("invalid character class range");
      let hi = lo;
      if (src[i] === "-" && src[i + 1] !== "]") {
        i++;
        hi = codePoint();
        if (hi < lo) fail("invalid character class range");
      }
      part.ranges.push(lo, hi);
    }
    i++;
    return { k: K.Class, parts: [part] };
  };

  /** `{n}`, `{n,}`, `{n,m}` at `i`: [min, max (-1: no upper bound)]. */
  const braces = (): [number, number] => {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i));
    if (!m) return fail("missing argument to repetition operator");
    const min = Number(m[1]);
    const max = m[2] === undefined ? min : m[3] === "" ? -1 : Number(m[3]);
    if (min > MAX_REPEAT || max > MAX_REPEAT || (max >= 0 && min > max)) fail("invalid repeat count", m[0]);
    i += m[0].length;
    return [min, max];
  };

  /** RE2's check that nested counted repeats multiply to at most 1,000. */
  const repeatIsValid = (re: Node, n: number): boolean => {
    if (re.k === K.Repeat) {
      let m = re.max;
      if (m === 0) return true;
      if (m < 0) m = re.min;
      if (m > n) return false;
      if (m > 0) n = Math.trunc(n / m);
    }
    if (re.k === K.Cat || re.k === K.Alt) return re.subs.every((s) => repeatIsValid(s, n));
    return "sub" in re ? repeatIsValid(re.sub, n) : true;
  };

  const atom = (depth: number): Node | null => {
    if (i >= src.length) return null;
    const c = src[i]!;
    if (c === "(") {
      if (!src.startsWith("(?:", i)) fail("invalid or unsupported Perl syntax");
      i += 3;
      const inner = alternation(depth + 1);
      if (src[i] !== ")") fail("missing closing )", src);
      i++;
      return inner;
    }
    if (c === "[") return charClass();
    if (c === "^" || c === "$") {
      i++;
      return { k: K.Assert, what: c };
    }
    if (c === "\\") {
      const next = src[i + 1];
      if (next === "b" || next === "B") {
        i += 2;
        return { k: K.Assert, what: next };
      }
      const cp = codePoint();
      return { k: K.Class, parts: [{ ranges: [cp, cp], props: [], negated: false }] };
    }
    if (/[A-Za-z0-9_ ]/.test(c)) {
      i++;
      const cp = c.charCodeAt(0);
      return { k: K.Class, parts: [{ ranges: [cp, cp], props: [], negated: false }] };
    }
    return null;
  };

  const concatenation = (depth: number): Node => {
    const subs: Node[] = [];
    for (;;) {
      const start = i;
      let node = atom(depth);
      if (!node) {
        if (i < src.length && "*+?{".includes(src[i]!)) fail("missing argument to repetition operator");
        break;
      }
      for (let repeats = 0; i < src.length && "*+?{".includes(src[i]!); repeats++) {
        if (repeats > 0) fail("invalid nested repetition operator", src.slice(start, i + 1));
        const op = src[i]!;
        if (op === "{") {
          const [min, max] = braces();
          node = { k: K.Repeat, sub: node, min, max, lazy: false };
          if ((min >= 2 || max >= 2) && !repeatIsValid(node, MAX_REPEAT))
            fail("invalid repeat count", src.slice(start, i));
        } else {
          i++;
          node = { k: op === "*" ? K.Star : op === "+" ? K.Plus : K.Quest, sub: node, lazy: false };
        }
        if (src[i] === "?") {
          node.lazy = true;
          i++;
        }
      }
      subs.push(node);
    }
    return subs.length === 1 ? subs[0]! : subs.length ? { k: K.Cat, subs } : { k: K.Empty };
  };

  const alternation = (depth: number): Node => {
    if (depth > MAX_HEIGHT) fail("expression nests too deeply", "");
    const subs = [concatenation(depth)];
    while (src[i] === "|") {
      i++;
      subs.push(concatenation(depth));
    }
    // As RE2's parser does: runs of single-character alternatives become one class.
    const merged: Node[] = [];
    for (const sub of subs) {
      const last = merged[merged.length - 1];
      if (sub.k === K.Class && last?.k === K.Class)
        merged[merged.length - 1] = { k: K.Class, parts: [...last.parts, ...sub.parts] };
      else merged.push(sub);
    }
    return merged.length === 1 ? merged[0]! : { k: K.Alt, subs: merged };
  };

  const re = alternation(0);
  if (i < src.length) fail(src[i] === ")" ? "unexpected )" : "invalid or unsupported Perl syntax", src);
  return re;
}

/** RE2's simplification of counted repeats into `*`, `+`, `?` and copies (x{2,4} → xx(x(x)?)?). */
function simplify(re: Node): Node {
  switch (re.k) {
    case K.Cat:
    case K.Alt:
      return { k: re.k, subs: re.subs.map(simplify) };
    case K.Star:
    case K.Plus:
    case K.Quest:
      return simple(re.k, simplify(re.sub), re.lazy);
    case K.Repeat: {
      const sub = simplify(re.sub);
      const { min, max, lazy } = re;
      if (min === 0 && max === 0) return { k: K.Empty };
      if (max === -1) {
        if (min === 0) return simple(K.Star, sub, lazy);
        if (min === 1) return simple(K.Plus, sub, lazy);
        return { k: K.Cat, subs: [...Array<Node>(min - 1).fill(sub), simple(K.Plus, sub, lazy)] };
      }
      if (min === 1 && max === 1) return sub;
      const subs = Array<Node>(min).fill(sub);
      if (max > min) {
        let suffix = simple(K.Quest, sub, lazy);
        for (let n = min + 1; n < max; n++) suffix = simple(K.Quest, { k: K.Cat, subs: [sub, suffix] }, lazy);
        subs.push(suffix);
      }
      return subs.length === 1 ? subs[0]! : { k: K.Cat, subs };
    }
    default:
      return re;
  }
}

/** `x**` is `x*` (and so on), and a repeated empty match is an empty match, as RE2's simplify1. */
function simple(k: K.Star | K.Plus | K.Quest, sub: Node, lazy: boolean): Node {
  if (sub.k === K.Empty) return sub;
  if (sub.k === k && sub.lazy === lazy) return sub;
  return { k, sub, lazy };
}

/** RE2's size estimate before compiling (Parser.calcSize), to refuse a program too large to build. */
function estimate(re: Node): number {
  let size: number;
  switch (re.k) {
    case K.Star:
      size = 2 + estimate(re.sub);
      break;
    case K.Plus:
    case K.Quest:
      size = 1 + estimate(re.sub);
      break;
    case K.Cat:
    case K.Alt:
      size = re.subs.reduce((n, s) => n + estimate(s), re.k === K.Alt ? re.subs.length - 1 : 0);
      break;
    case K.Repeat: {
      const sub = estimate(re.sub);
      size = re.max === -1 ? (re.min === 0 ? 2 + sub : 1 + re.min * sub) : re.max * sub + (re.max - re.min);
      break;
    }
    default:
      size = 1;
  }
  return Math.max(1, size);
}

const nullable = (re: Node): boolean =>
  re.k === K.Class
    ? false
    : re.k === K.Cat
      ? re.subs.every(nullable)
      : re.k === K.Alt
        ? re.subs.some(nullable)
        : re.k === K.Plus
          ? nullable(re.sub)
          : true;

// Instructions: RUNE (arg: class), ALT (out, arg), ASSERT (arg: ^ $ \b \B), NOP (out), MATCH.
const RUNE = 0;
const ALT = 1;
const ASSERT = 2;
const NOP = 3;
const MATCH = 4;
const ASSERTS = { "^": 0, $: 1, b: 2, B: 3 } as const;

const isWord = (c: number) =>
  (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || (c >= 0x61 && c <= 0x7a);

/** A set of threads (the class instructions they wait at) and where each next code point takes them. */
interface State {
  pcs: number[];
  next: Map<number, State | null>;
}
/** Cached threads and transitions of one search before the cache is dropped (RE2 also bounds its DFA's). */
const DFA_CACHE_MAX = 1 << 20;

function inClass(parts: ClassPart[], cp: number, input: string, at: number): boolean {
  for (const part of parts) {
    let hit = false;
    for (let r = 0; r < part.ranges.length && !hit; r += 2)
      hit = cp >= part.ranges[r]! && cp <= part.ranges[r + 1]!;
    for (let p = 0; p < part.props.length && !hit; p++) {
      const prop = part.props[p]!;
      prop.lastIndex = at;
      hit = prop.test(input);
    }
    if (hit !== part.negated) return true;
  }
  return false;
}

/** The part of re2js's RE2JS class the Worker uses: compile, programSize, test. */
export class RE2JS {
  private readonly op: number[] = [];
  private readonly out: number[] = [];
  private readonly arg: number[] = [];
  private readonly classes: ClassPart[][] = [];
  private readonly classIds = new Map<ClassPart[], number>();
  private readonly start: number;
  private readonly asserts: boolean;

  private constructor(re: Node) {
    this.emit(MATCH, -1, 0);
    this.start = this.compile(re, 0);
    this.asserts = this.op.includes(ASSERT);
  }

  static compile(pattern: string): RE2JS {
    const parsed = parse(pattern);
    if (estimate(parsed) > MAX_SIZE) throw new RE2JSSyntaxException("expression too large");
    return new RE2JS(simplify(parsed));
  }

  /** Instructions, counted as RE2 counts them (its program also holds one `Fail`). */
  programSize(): number {
    return this.op.length + 1;
  }

  private emit(op: number, out: number, arg: number): number {
    this.op.push(op);
    this.out.push(out);
    this.arg.push(arg);
    return this.op.length - 1;
  }

  /** Compiles `re` to continue at `next`; returns its entry. */
  private compile(re: Node, next: number): number {
    switch (re.k) {
      case K.Class:
        // A repeat's copies share their class (one `parts`), so a search tests it once per code point.
        let id = this.classIds.get(re.parts);
        if (id === undefined) this.classIds.set(re.parts, (id = this.classes.push(re.parts) - 1));
        return this.emit(RUNE, next, id);
      case K.Cat:
        for (let s = re.subs.length - 1; s >= 0; s--) next = this.compile(re.subs[s]!, next);
        return next;
      case K.Alt: {
        let entry = this.compile(re.subs[re.subs.length - 1]!, next);
        for (let s = re.subs.length - 2; s >= 0; s--)
          entry = this.emit(ALT, this.compile(re.subs[s]!, next), entry);
        return entry;
      }
      case K.Star: {
        // RE2 compiles a star of something that can match empty as (x+)?.
        if (nullable(re.sub)) return this.emit(ALT, this.compile({ ...re, k: K.Plus }, next), next);
        const loop = this.emit(ALT, -1, next);
        this.out[loop] = this.compile(re.sub, loop);
        return loop;
      }
      case K.Plus: {
        const loop = this.emit(ALT, -1, next);
        const entry = this.compile(re.sub, loop);
        this.out[loop] = entry;
        return entry;
      }
      case K.Quest:
        return this.emit(ALT, this.compile(re.sub, next), next);
      case K.Assert:
        return this.emit(ASSERT, next, ASSERTS[re.what]);
      case K.Empty:
        return this.emit(NOP, next, 0);
      case K.Repeat:
        throw new Error("unreachable: repeats are simplified before compiling");
    }
  }

  /**
   * Whether the pattern matches somewhere in `input` (by code point; a lone surrogate is its own). The threads
   * run in lockstep; each set of them is a state of a DFA built as the input asks (as RE2's DFA is), cached for
   * this call only and dropped when it outgrows DFA_CACHE_MAX, so a step costs a lookup where the text repeats
   * and at most one pass over the program where it does not.
   */
  test(input: string): boolean {
    const { op, out, arg, classes, start } = this;
    const bySignature =
      classes.length <= 31 && classes.some((parts) => parts.some((part) => part.props.length));
    const end = input.length;
    const seen = new Int32Array(op.length).fill(-1);
    const stack: number[] = [];
    let generation = 0;
    let states = new Map<string, State>();
    let cached = 0;
    // DFA while its states pay off; lockstep threads alone once most steps build a new one (as RE2 bails
    // out of its DFA), since then interning a state costs more than it saves.
    let dfa = true;
    let built = 0;
    const none = new Map<number, State | null>();

    /** The state of the threads at `seeds` and what they reach without reading, in context `flags`. */
    const state = (seeds: number[], flags: number): State | null => {
      generation++;
      const pcs: number[] = [];
      stack.push(...seeds);
      while (stack.length) {
        const p = stack.pop()!;
        if (seen[p] === generation) continue;
        seen[p] = generation;
        switch (op[p]) {
          case RUNE:
            pcs.push(p);
            break;
          case MATCH:
            stack.length = 0;
            return null;
          case ALT:
            stack.push(arg[p]!, out[p]!);
            break;
          case NOP:
            stack.push(out[p]!);
            break;
          case ASSERT: {
            const a = arg[p]!;
            if (a < 2 ? flags & (1 << a) : (!(flags & 4) !== !(flags & 8)) === (a === 2)) stack.push(out[p]!);
          }
        }
      }
      if (!dfa) return { pcs, next: none };
      const key = pcs.sort((x, y) => x - y).join();
      let found = states.get(key);
      if (!found) {
        if (cached > DFA_CACHE_MAX) {
          states = new Map();
          cached = 0;
        }
        found = { pcs, next: new Map() };
        states.set(key, found);
        cached += pcs.length + 1;
      }
      return found;
    };
    /** Start, end and word-boundary context at `at` (0 for a program without assertions). */
    const context = (at: number) =>
      this.asserts
        ? (at === 0 ? 1 : 0) |
          (at === end ? 2 : 0) |
          (at > 0 && isWord(input.charCodeAt(at - 1)) ? 4 : 0) |
          (at < end && isWord(input.charCodeAt(at)) ? 8 : 0)
        : 0;

    let current = state([start], context(0));
    for (let at = 0; current && at < end;) {
      const cp = input.codePointAt(at)!;
      const after = at + (cp > 0xffff ? 2 : 1);
      const flags = context(after);
      // With Unicode properties (a test of the platform's RegExp each), transitions go by which classes the
      // code point is in, tested once a step; otherwise by code point, classes tested only for a new one.
      let sig = cp;
      if (bySignature) {
        sig = 0;
        for (let c = 0; c < classes.length; c++) if (inClass(classes[c]!, cp, input, at)) sig |= 1 << c;
      }
      const key = sig * 16 + flags;
      let next = current.next.get(key);
      if (next === undefined) {
        const seeds = [start];
        for (const pc of current.pcs)
          if (bySignature ? sig & (1 << arg[pc]!) : inClass(classes[arg[pc]!]!, cp, input, at))
            seeds.push(out[pc]!);
        if (dfa && ++built > 1000 && built * 4 > at) dfa = false;
        next = state(seeds, flags);
        if (dfa) current.next.set(key, next);
        cached++;
      }
      current = next;
      at = after;
    }
    return current === null;
  }
}
