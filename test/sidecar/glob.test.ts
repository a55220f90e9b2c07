// The glob matcher (glob.ts: picomatch's regex translated to RE2, run on re2js) answers exactly like the
// matcher it replaced, picomatch(glob, { dot: true }), on many generated globs and paths, or refuses the glob
// with a sentence; the translation answers like V8 on the regex features picomatch's output can contain; the
// attack globs match in linear time; and the bounds refuse with sentences that name the bound and its value.
import fc from "fast-check";
import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { LIMITS } from "../../src/protocol/limits.js";
import { compileGlob, compileGlobRegex, countWildcards, GlobError } from "../../src/sidecar/glob.js";

const oldMatcher = (glob: string) => picomatch(glob, { dot: true });

/** Pieces of globs: picomatch's syntax (stars, classes, braces, extglobs, escapes, negation) and plain text. */
const GLOB_TOKENS = [
  "a",
  "b",
  "c",
  "Z",
  ".",
  "/",
  "/",
  "*",
  "*",
  "**",
  "**/",
  "?",
  "[",
  "]",
  "!",
  "^",
  "-",
  "{",
  "}",
  ",",
  "..",
  "(",
  ")",
  "|",
  "@(",
  "*(",
  "+(",
  "?(",
  "!(",
  "\\",
  "\\*",
  "\\?",
  "\\[",
  "[:alpha:]",
  "[[:digit:]]",
  "[a-c]",
  "[!a]",
  "[^b]",
  "{a,b}",
  "{1..3}",
  "é",
  "😀",
  "\n",
  " ",
  "$",
  "#",
  "~",
  "=",
  "1",
  "2",
  "./",
  "\\d",
  "\\w",
  "\\b",
  "\\1",
  "(?=a)",
  "(?<=a)",
  "(?!b)",
  "+",
  "@",
];
/** Characters of path segments (a segment is never "", "." or ".."), including regex-special ones. */
const PATH_CHARS = [
  "a",
  "b",
  "c",
  "Z",
  ".",
  ".",
  "-",
  "1",
  "2",
  "é",
  "😀",
  "\n",
  "*",
  "[",
  "]",
  "(",
  ")",
  "!",
  "{",
  "}",
  ",",
  " ",
  "\\",
  "$",
  "_",
  "#",
];

const globArb = fc
  .array(fc.constantFrom(...GLOB_TOKENS), { minLength: 1, maxLength: 7 })
  .map((parts) => parts.join(""));
const segmentArb = fc
  .array(fc.constantFrom(...PATH_CHARS), { minLength: 1, maxLength: 4 })
  .map((cs) => cs.join(""))
  .filter((s) => s !== "." && s !== "..");
const pathArb = fc.array(segmentArb, { minLength: 1, maxLength: 4 }).map((segs) => segs.join("/"));

/** A path a scan can produce: root-relative, "/"-separated, no empty, "." or ".." segment. */
const scanPath = (p: string) => p.split("/").every((seg) => seg !== "" && seg !== "." && seg !== "..");

/** Paths built from a glob's own literal pieces, so matches are common, not only misses. */
function pathsLike(glob: string): string[] {
  const literal = glob.replace(/[*?[\]{}()!@+|\\^$]/g, "");
  const parts = literal.split("/").filter((s) => s !== "" && s !== "." && s !== "..");
  return [parts.join("/"), parts.join("/a/"), `a/${parts.join("/")}`, `${parts.join("")}Z`, glob].filter(
    scanPath,
  );
}

describe("the glob matcher", () => {
  it("answers like picomatch(glob, { dot: true }) on generated globs and paths", () => {
    let compared = 0;
    let refused = 0;
    fc.assert(
      fc.property(globArb, fc.array(pathArb, { minLength: 10, maxLength: 20 }), (glob, paths) => {
        let ours: (p: string) => boolean;
        try {
          ours = compileGlob(glob);
        } catch (e) {
          // What RE2 cannot run: a negated extglob or a lookaround, back-reference, octal escape or word
          // boundary written into the glob, or a `.*` inside braces or parentheses.
          expect(e).toBeInstanceOf(GlobError);
          const why = (e as Error).message;
          const source = picomatch.makeRe(glob, { dot: true }).source;
          if (/negated extglob/.test(why)) expect(glob).toContain("!(");
          else if (/lookahead|lookbehind/.test(why)) expect(source).toMatch(/\(\?<?[=!]/);
          else if (/backreferences|octal/.test(why)) expect(source).toMatch(/\\[0-9]/);
          else if (/word boundaries/.test(why)) expect(source).toMatch(/\\[bB]/);
          else expect(why).toMatch(/'\.' followed by '\*' inside braces or parentheses/);
          refused++;
          return;
        }
        const old = oldMatcher(glob);
        for (const p of [...paths, ...pathsLike(glob)]) {
          compared++;
          if (ours(p) !== old(p)) {
            throw new Error(
              `glob ${JSON.stringify(glob)} on ${JSON.stringify(p)}: picomatch ${old(p)}, ours ${ours(p)}`,
            );
          }
        }
      }),
      { numRuns: 4000, seed: Number(process.env.GLOB_SEED ?? 11) },
    );
    expect(compared).toBeGreaterThan(50_000);
    // The tokens are rich in `!(`, `(?=a)`, `\b` and `\1`: about a fifth of the globs are refused.
    expect(refused).toBeLessThan(1200);
  });

  it("answers like picomatch on the README's globs and on hand-picked edge cases", () => {
    const globs = [
      "**/*.md",
      "src/**/*.ts",
      "*.txt",
      "notes/deep/**",
      "long/**",
      "d00[0-4]?/f1?.txt",
      "*",
      "**",
      "a/**",
      "**/x",
      "a/**/b",
      "x/**/**/y",
      "[[:alpha:]]*",
      "{a,b}/*.{js,ts}",
      "{1..3}",
      "@(a|b)",
      "*(a|b)",
      "+(a|b)",
      "?(a|b)",
      "!a",
      "!*.md",
      "a{,b}",
      "./a",
      "a/",
      ".*",
      "*.",
      "[]a]",
      "[a",
      "{a",
      "(a",
      "\\",
      "[\\d]",
      "[\\w-]",
      "#a",
    ];
    const paths = [
      "a",
      "b",
      "ab",
      "a/b",
      "a/b/c",
      "x/y",
      "x/a/y",
      "x/a/b/y",
      "a.md",
      "b/c.md",
      "src/a.ts",
      "src/x/y.ts",
      "notes/deep/x.md",
      "long/a/b",
      "d0003/f12.txt",
      "1",
      "2",
      "4",
      ".a",
      "a/.b",
      "c.js",
      "c.jsx",
      "a\nb",
      "😀",
      "a😀Z",
      "[a",
      "(a",
      "a]",
      "#a",
      "a-b",
      "y",
      "a/c",
      "a/x/c",
      "ba",
    ];
    for (const glob of globs) {
      const ours = compileGlob(glob);
      const old = oldMatcher(glob);
      for (const p of paths) expect([glob, p, ours(p)]).toEqual([glob, p, old(p)]);
    }
  });

  it("matches the issue's attack globs in linear time, with picomatch's answers on short names", () => {
    for (const pairs of [9, 11, 16]) {
      const glob = `${"*?".repeat(pairs)}Z`;
      const match = compileGlob(glob);
      const name = `${"x".repeat(46)}y`; // 47 characters, no Z: V8 backtracks through every split
      expect(match(name)).toBe(false);
      expect(match(`${"x".repeat(46)}Z`)).toBe(true);
      expect(match("x".repeat(pairs - 1) + "Z")).toBe(false); // each ? takes one character
      expect(match("x".repeat(pairs) + "Z")).toBe(true);
      const short = `${"*?".repeat(3)}Z`;
      for (const p of ["abcdefZ", "abcdeZ", "a/bcdefgZ", "aZ"]) {
        expect(compileGlob(short)(p)).toBe(oldMatcher(short)(p));
      }
    }
  });
});

describe("the RE2 translation of picomatch's regexes", () => {
  it("answers like V8 on the regex features a glob's regex can contain (no u flag: UTF-16 code units)", () => {
    const sources = [
      "^(?:a|b)*c$",
      "^a{2,3}$",
      "^a{2,}b",
      "^(?=.)[^/]*?\\.md$",
      "^(?:a|b\\/(?=.)[^/]*?)$",
      "^(?:x\\.(?=.)[^/]*?)$",
      "[\\d-z]+",
      "[a-\\d]",
      "[\\b]",
      "\\0",
      "\\x41\\u0042",
      "\\cJ",
      "\\c1",
      "[\\c1]",
      "\\p{L}",
      "\\u{2}",
      "\\k",
      "a{",
      "a{1,",
      "x{2}y",
      "[^]",
      "[]",
      "^$",
      "$^",
      ".",
      "[a-c\\s]",
      "[^a\\W]",
      "(?<n>a)b",
      "[😀]",
      "^.{2}$",
      "^[^/]$",
      "^😀$",
      "^\\ud83d",
    ];
    const inputs = [
      "a",
      "b",
      "c",
      "ab",
      "abc",
      "aab",
      "aaa",
      "aaab",
      "x.md",
      ".md",
      "\n.md",
      "x.",
      "x.y",
      "b/",
      "b/c",
      "b/\nc",
      "1-z",
      "z",
      "\b",
      "\0",
      "A",
      "AB",
      "\n",
      "\u2028",
      "\x01",
      "\n",
      "\\c1",
      "p{L}",
      "uu",
      "k",
      "-",
      "u",
      "a{",
      "a{1,",
      "xxy",
      "😀",
      "\ud83d",
      "\ude00",
      "ba",
      "x",
      "b\n",
      "aa\u2028",
      "\ue041",
      "\ue000a",
      "é.md",
    ];
    for (const source of sources) {
      const ours = compileGlobRegex(source);
      const v8 = new RegExp(source);
      for (const s of inputs) expect([source, s, ours(s)]).toEqual([source, s, v8.test(s)]);
    }
  });

  it("refuses what RE2 cannot run, saying what it is", () => {
    expect(() => compileGlob("(a)\\1")).toThrow(
      "'glob' cannot be matched in linear time: backreferences (\\1) need backtracking, which the hub does not run. Rewrite the pattern without it.",
    );
    expect(() => compileGlob("a(?=b)")).toThrow(
      "'glob' cannot be matched in linear time: lookahead ((?= or (?!) needs backtracking, which the hub does not run. Rewrite the pattern without it.",
    );
    expect(() => compileGlob("(?<!x)a")).toThrow(/lookbehind/);
    expect(() => compileGlob("a\\b")).toThrow(/word boundaries/);
    expect(() => compileGlob("{.*,b}")).toThrow(
      "'glob' has a '.' followed by '*' inside braces or parentheses, which this server cannot match in linear time; write the alternatives as separate searches, or put the '.' outside the braces.",
    );
  });

  it("refuses a negated extglob, and says how to write the search instead", () => {
    for (const glob of ["!(a|b)", "a/!(b)/c", "!(*.js)", "*.!(js)"]) {
      expect(() => compileGlob(glob)).toThrow(
        "'glob' uses a negated extglob !(…), which this server refuses: it needs a lookahead, which linear-time matching cannot run. Name what to match instead, like *.@(ts|md), or exclude a whole pattern with a leading !, like !**/*.js.",
      );
    }
    // The suggested forms answer like picomatch.
    for (const glob of ["*.@(ts|md)", "!**/*.js"]) {
      for (const p of ["a.ts", "a.md", "a.js", "d/a.js", "d/a.ts", "a\nb"]) {
        expect([glob, p, compileGlob(glob)(p)]).toEqual([glob, p, oldMatcher(glob)(p)]);
      }
    }
  });
});

describe("the glob's bounds", () => {
  it("refuses a glob longer than the limit, saying how long it is and what the limit is", () => {
    expect(() => compileGlob("a".repeat(65_536))).toThrow(
      `'glob' is 65,536 characters long; the server accepts at most ${LIMITS.sidecarGlobMaxChars.toLocaleString("en-US")}. Use a shorter pattern, or narrow the search with 'path'.`,
    );
    expect(() => compileGlob("a".repeat(LIMITS.sidecarGlobMaxChars))).not.toThrow();
  });

  it("refuses a glob with more wildcards than the limit, counting each unescaped *, ?, [, { and (", () => {
    expect(countWildcards("**/*.{ts,js}")).toBe(4);
    expect(countWildcards("\\*\\?a[b]")).toBe(1);
    const glob = "*?".repeat(LIMITS.sidecarGlobMaxWildcards / 2 + 1) + "Z";
    expect(() => compileGlob(glob)).toThrow(
      `'glob' has ${LIMITS.sidecarGlobMaxWildcards + 2} wildcards (each *, ?, [, { and ( counts); the server accepts at most ${LIMITS.sidecarGlobMaxWildcards}. Use fewer wildcards, or narrow the search with 'path'.`,
    );
    expect(() => compileGlob("*?".repeat(LIMITS.sidecarGlobMaxWildcards / 2) + "Z")).not.toThrow();
  });

  it("caps the automaton a regex may need (globs cannot write regex quantifiers: picomatch escapes braces)", () => {
    expect(picomatch.makeRe("(a){5000}", { dot: true }).source).toBe("^(?:(a)\\{5000\\})$");
    expect(() => compileGlobRegex(`^(?:${"a{1,99}".repeat(60)})$`)).toThrow(
      `'glob' is too complex to match (it needs more than ${LIMITS.sidecarGlobMaxStates.toLocaleString("en-US")} automaton states); use a simpler pattern, or narrow the search with 'path'.`,
    );
    // The longest glob of the most expensive pieces stays far below the cap.
    expect(() => compileGlob(`${"**/".repeat(8)}${"[[:alpha:]]".repeat(8)}`.padEnd(1024, "x"))).not.toThrow();
  });
});
