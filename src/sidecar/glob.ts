// fs.search_by_time's `glob`: picomatch's dialect (`dot: true`, as the README documents) with picomatch's own
// regex for each pattern, translated to RE2 by the project's one regex front end (protocol/linear-regex.ts)
// and run on re2js, so no pattern can make a match take longer than O(path × pattern). Before compiling, a
// glob's length and wildcard count are bounded (LIMITS); every refusal is a sentence for the agent.
//
// picomatch's regexes use lookarounds RE2 has none of. The ones that guard against `.` and `..` segments
// always hold on the paths a scan produces (root-relative, "/"-separated, no empty, `.` or `..` segment)
// where picomatch puts them, so they are left out. `(?=.)` ("a character that is not a line break follows")
// becomes `\B` over a re-encoded path in which only the line breaks and an end marker are word characters
// (ENCODING). A leading `!` negates the whole glob, applied outside the regex. A negated extglob `!(…)`, and
// any lookaround or back-reference written into a glob, is refused: RE2 cannot run it, and there is no
// post-filter that means the same inside a path.
import picomatch from "picomatch";
import { RE2JS } from "re2js";
import { LIMITS } from "../protocol/limits.js";
import { toRe2, UnsafePatternError, type CodeUnitAlphabet } from "../protocol/linear-regex.js";

/** A glob the server will not match; the message says why and what to send instead. */
export class GlobError extends Error {
  override readonly name = "GlobError";
}

const WILDCARDS = new Set(["*", "?", "[", "{", "("]);

/** Unescaped `*`, `?`, `[`, `{` and `(` in the pattern, each counted once (`**` is two). */
export function countWildcards(glob: string): number {
  let n = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "\\") i++;
    else if (WILDCARDS.has(c)) n++;
  }
  return n;
}

const fmt = (n: number) => n.toLocaleString("en-US");

/** Throws GlobError when the glob passes a bound: its length, then its wildcards. */
export function checkGlobBounds(glob: string): void {
  if (glob.length > LIMITS.sidecarGlobMaxChars) {
    throw new GlobError(
      `'glob' is ${fmt(glob.length)} characters long; the server accepts at most ${fmt(LIMITS.sidecarGlobMaxChars)}. Use a shorter pattern, or narrow the search with 'path'.`,
    );
  }
  const wildcards = countWildcards(glob);
  if (wildcards > LIMITS.sidecarGlobMaxWildcards) {
    throw new GlobError(
      `'glob' has ${fmt(wildcards)} wildcards (each *, ?, [, { and ( counts); the server accepts at most ${fmt(LIMITS.sidecarGlobMaxWildcards)}. Use fewer wildcards, or narrow the search with 'path'.`,
    );
  }
}

/** picomatch's `utils.toPosixSlashes`, which its matcher applies on Windows. */
const toPosixSlashes = (s: string) => s.replace(/\\(?![*+?^${}(|)[\]])/g, "/");

/**
 * How a path is handed to RE2: each UTF-16 code unit becomes one character (V8 matches picomatch's regex,
 * which has no `u` flag, on code units), and an end marker follows. Only the line breaks (what `.` does not
 * match, as a–d) and the end marker (`z`) are RE2 word characters: so at the places picomatch writes `(?=.)`
 * (the start, or after `/` or `.`), `\B` holds exactly when a character that is not a line break follows.
 * ASCII word characters move to U+E000 + u; surrogates, and the units that were at U+E000–E07F, to
 * U+100000 + u; every other unit stays itself, so an ordinary path stays as long as it was.
 */
const LINE_BREAKS = [0x0a, 0x0d, 0x2028, 0x2029];
const END = "z";
const ASCII_WORD = /[0-9A-Za-z_]/;
const isWord = (u: number) => u < 0x80 && ASCII_WORD.test(String.fromCharCode(u));

function encodeUnit(u: number): number {
  const lb = LINE_BREAKS.indexOf(u);
  if (lb >= 0) return 0x61 + lb;
  if (isWord(u)) return 0xe000 + u;
  if ((u >= 0xd800 && u <= 0xdfff) || (u >= 0xe000 && u <= 0xe07f)) return 0x100000 + u;
  return u;
}

/** Where encodeUnit changes from one affine piece to the next (each piece maps to a contiguous range). */
const BREAKS = new Set<number>([0x80, 0xd800, 0xe000, 0xe080, 0x10000]);
for (let u = 0; u < 0x80; u++) if (isWord(u) !== isWord(u + 1) || isWord(u)) BREAKS.add(u + 1);
for (const lb of LINE_BREAKS) BREAKS.add(lb).add(lb + 1);
const SORTED_BREAKS = [...BREAKS].sort((a, b) => a - b);
const hexCp = (n: number) => `\\x{${n.toString(16)}}`;

const ENCODING: CodeUnitAlphabet = {
  rangeText(lo, hi) {
    let text = "";
    let from = lo;
    for (const next of [...SORTED_BREAKS.filter((b) => b > lo && b <= hi), hi + 1]) {
      const [a, b] = [encodeUnit(from), encodeUnit(next - 1)];
      text += a === b ? hexCp(a) : `${hexCp(a)}-${hexCp(b)}`;
      from = next;
    }
    return text;
  },
  end: `(?:${END}?$)`,
  oneChar: "\\B",
};

const TABLE = new Uint32Array(0x10000).map((_, u) => encodeUnit(u));
let buffer = new Uint16Array(512);

/** `path` as ENCODING says. */
function encode(path: string): string {
  if (buffer.length < path.length * 2 + 1) buffer = new Uint16Array(path.length * 4 + 1);
  let n = 0;
  for (let i = 0; i < path.length; i++) {
    const e = TABLE[path.charCodeAt(i)]!;
    if (e < 0x10000) buffer[n++] = e;
    else {
      buffer[n++] = 0xd800 + ((e - 0x10000) >> 10);
      buffer[n++] = 0xdc00 + ((e - 0x10000) & 0x3ff);
    }
  }
  buffer[n++] = END.charCodeAt(0);
  return String.fromCharCode.apply(null, buffer.subarray(0, n) as unknown as number[]);
}

const HAS_LINE_BREAK = /[\n\r\u2028\u2029]/;

/**
 * The RE2 program for one picomatch regex source, on ENCODING. The `.`/`..` guards are removed first: NO_DOTS
 * holds anywhere on a scan's path, NO_DOTS_SLASH at the start of a segment (the only place picomatch writes
 * it), and NO_DOT_SLASH after a `.` that starts a segment (checked by the caller).
 */
function compileSource(
  source: string,
  chars = picomatch.constants.globChars(process.platform === "win32"),
): RE2JS {
  const stripped = source
    .replaceAll(chars.NO_DOTS, "")
    .replaceAll(chars.NO_DOTS_SLASH, "")
    .replaceAll(chars.NO_DOT_SLASH, "");
  const re = RE2JS.compile(toRe2(stripped, ENCODING));
  if (re.programSize() > LIMITS.sidecarGlobMaxStates) {
    throw new GlobError(
      `'glob' is too complex to match (it needs more than ${fmt(LIMITS.sidecarGlobMaxStates)} automaton states); use a simpler pattern, or narrow the search with 'path'.`,
    );
  }
  return re;
}

/**
 * A regex source of picomatch's kind (no flags) as a matcher on a scan's paths; throws UnsafePatternError
 * (or GlobError) when RE2 cannot run it. The glob tests compare it with V8.
 */
export function compileGlobRegex(source: string): (path: string) => boolean {
  const re = compileSource(source);
  return (path) => re.test(encode(path));
}

interface Token {
  type: string;
  output?: string;
}

/** Why picomatch's regex for this glob cannot run on RE2 (beyond what toRe2 refuses), or null. */
function unsupported(
  glob: string,
  source: string,
  tokens: Token[] | undefined,
  noDotSlash: string,
): string | null {
  if (/(^|[^\\])!\(/.test(glob) && /\(\?!/.test(source)) {
    return "'glob' uses a negated extglob !(…), which this server refuses: it needs a lookahead, which linear-time matching cannot run. Name what to match instead, like *.@(ts|md), or exclude a whole pattern with a leading !, like !**/*.js.";
  }
  // NO_DOT_SLASH follows a `.`; inside braces or an extglob that `.` may be in the middle of a segment.
  for (const [k, token] of (tokens ?? []).entries()) {
    if (token.type === "dot" && token.output?.includes(noDotSlash)) {
      const before = tokens![k - 1]?.type;
      if (before !== "bos" && before !== "slash") {
        return "'glob' has a '.' followed by '*' inside braces or parentheses, which this server cannot match in linear time; write the alternatives as separate searches, or put the '.' outside the braces.";
      }
    }
  }
  return null;
}

/**
 * A matcher with exactly the answers of `picomatch(glob, { dot: true })` on the paths a scan produces
 * (root-relative, "/"-separated, no empty, `.` or `..` segment): its regex (picomatch.makeRe with the same
 * options), its literal-equality shortcut, its Windows slash conversion and its empty-input rule.
 * Throws GlobError for a glob out of bounds, one picomatch cannot read, or one whose regex RE2 cannot run
 * (a negated extglob, a lookaround or back-reference written into the glob).
 */
export function compileGlob(glob: string): (path: string) => boolean {
  checkGlobBounds(glob);
  const windows = process.platform === "win32";
  const options = { dot: true, windows };
  let regex: RegExp & { state?: { negated?: boolean; output?: string; tokens?: Token[] } };
  try {
    regex = picomatch.makeRe(glob, options, false, true);
  } catch (e) {
    throw new GlobError(`'glob' could not be read: ${e instanceof Error ? e.message : String(e)}.`);
  }
  const chars = picomatch.constants.globChars(windows);
  const why = unsupported(glob, regex.source, regex.state?.tokens, chars.NO_DOT_SLASH);
  if (why) throw new GlobError(why);
  // A leading `!` is `^(?!inner).*$`: no line break, and not the inner pattern.
  const negated = regex.state?.negated === true && regex.source !== "$^";
  const source = negated ? `^(?:${regex.state!.output})$` : regex.source;
  let re: RE2JS;
  try {
    if (regex.flags !== "") throw new UnsafePatternError(`flags "${regex.flags}"`);
    re = compileSource(source, chars);
  } catch (e) {
    if (e instanceof GlobError) throw e;
    const what = e instanceof Error ? e.message.replace(/^error parsing regexp: /, "") : String(e);
    throw new GlobError(`'glob' cannot be matched in linear time: ${what}. Rewrite the pattern without it.`);
  }
  const test = negated
    ? (p: string) => !HAS_LINE_BREAK.test(p) && !re.test(encode(p))
    : (p: string) => re.test(encode(p));
  return (input: string): boolean => {
    if (input === "") return false;
    if (input === glob) return true;
    const output = windows ? toPosixSlashes(input) : input;
    return output === glob || test(output);
  };
}
