// fs.search_by_time's `glob`: picomatch's dialect (`dot: true`, as the README documents) with picomatch's
// own regex for each pattern, but matched by the linear-time engine (linear-regex.ts) instead of V8's
// backtracking one, so no pattern can make a match take longer than O(path × pattern). Before compiling,
// a glob's length and wildcard count are bounded (LIMITS); every refusal is a sentence for the agent.
import picomatch from "picomatch";
import { LIMITS } from "../protocol/limits.js";
import { compileLinearRegex, RegexTooComplexError, UnsupportedRegexError } from "./linear-regex.js";

/** A glob the server will not match; the message says why and what to send instead. */
export class GlobError extends Error {
  override readonly name = "GlobError";
}

const WILDCARDS = new Set(["*", "?", "[", "{", "("]);

/**
 * picomatch's guard against `.` and `..` segments inside `**` (dot: true): "not at the start or after a
 * slash, a segment of one or two dots". The paths a scan matches never have such a segment (nor an empty
 * one), so it holds everywhere and is left out of the automaton.
 */
const NO_DOT_SEGMENT = new Set(["(?!(?:^|\\/)\\.{1,2}(?:\\/|$))"]);

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
 * A matcher with exactly the answers of `picomatch(glob, { dot: true })` on the paths a scan produces
 * (root-relative, "/"-separated, no empty, `.` or `..` segment): its regex (picomatch.makeRe with
 * the same options), its literal-equality shortcut, its Windows slash conversion and its empty-input rule.
 * Throws GlobError for a glob out of bounds, one picomatch cannot read, or one its regex makes
 * unmatchable in linear time (a back-reference written inside parentheses, or a runaway repetition).
 */
export function compileGlob(glob: string): (path: string) => boolean {
  checkGlobBounds(glob);
  const windows = process.platform === "win32";
  let regex: RegExp;
  try {
    regex = picomatch.makeRe(glob, { dot: true, windows });
  } catch (e) {
    throw new GlobError(`'glob' could not be read: ${e instanceof Error ? e.message : String(e)}.`);
  }
  let engine: { test(input: string): boolean };
  try {
    if (regex.flags !== "") throw new UnsupportedRegexError(`flags "${regex.flags}"`);
    engine = compileLinearRegex(regex.source, LIMITS.sidecarGlobMaxStates, NO_DOT_SEGMENT);
  } catch (e) {
    if (e instanceof UnsupportedRegexError) {
      throw new GlobError(
        `'glob' uses ${e.message}, which this server cannot match in linear time; rewrite the pattern without it.`,
      );
    }
    if (e instanceof RegexTooComplexError) {
      throw new GlobError(
        `'glob' is too complex to match (it needs ${e.message}); use a simpler pattern, or narrow the search with 'path'.`,
      );
    }
    throw e;
  }
  return (input: string): boolean => {
    if (input === "") return false;
    if (input === glob) return true;
    const output = windows ? toPosixSlashes(input) : input;
    return output === glob || engine.test(output);
  };
}
