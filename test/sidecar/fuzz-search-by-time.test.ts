// Property-based fuzzing of fs.search_by_time's arguments through the real sidecar process (fast-check):
// whatever the arguments — right and wrong types, unknown properties, odd dates and bounds, globs made of
// picomatch syntax, attack patterns, overlong or NUL-bearing strings — the process never crashes, never
// answers a JSON-RPC internal error, and each answer is either a result that follows seed 001's output
// schema or an isError domain error (a broken shape is the protocol's -32602, seed 001 §3.1), within the
// server's time limit. Cases per run: FUZZ_RUNS (default 50; `npm run fuzz` raises it).
import { Validator, type Schema } from "@cfworker/json-schema";
import { ProtocolError, ProtocolErrorCode, type CallToolResult } from "@modelcontextprotocol/client";
import fc from "fast-check";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureBuilt, removeDir, startSidecar, tempDir, writeTree, type SidecarClient } from "./helpers.js";

const RUNS = Number(process.env.FUZZ_RUNS) || 50;
const LIMIT_S = 2;
const SLACK_MS = 3000;

const seed = JSON.parse(readFileSync(new URL("./seed-001-schemas.json", import.meta.url), "utf8")) as {
  outputSchema: Schema;
};
const outputValidator = new Validator(seed.outputSchema, "2020-12", false);

let root: string;
let sidecar: SidecarClient;

beforeAll(async () => {
  ensureBuilt();
  root = tempDir();
  writeTree(root, {
    "a.md": "2025-12-01T00:00:00Z",
    "notes/b.md": "2025-12-02T00:00:00Z",
    "notes/deep/c.txt": "2025-12-03T00:00:00Z",
    ".hidden/d.md": "2025-12-04T00:00:00Z",
    "src/x.ts": "2025-12-05T00:00:00Z",
    [`long/${"n".repeat(46)}Z`]: "2025-12-06T00:00:00Z",
    "sp ace/é😀.txt": "2025-12-07T00:00:00Z",
  });
  mkdirSync(join(root, "empty"));
  writeFileSync(join(root, "notes", "[a].md"), "");
  symlinkSync(join(root, "notes"), join(root, "link"));
  sidecar = await startSidecar(["--root", `files=${root}`, "--max-seconds", String(LIMIT_S)]);
}, 60_000);

afterAll(async () => {
  await sidecar?.close();
  if (root) removeDir(root);
});

const GLOB_TOKENS = [
  "**/",
  "**",
  "*",
  "?",
  "*?",
  "[a-z]",
  "[!a]",
  "[^.]",
  "[[:alpha:]]",
  "{a,b}",
  "{1..3}",
  "@(a|b)",
  "!(x)",
  "+(a)",
  "*(b)",
  "?(c)",
  "!",
  "\\",
  "\\*",
  "(",
  ")",
  "|",
  "[",
  "]",
  "{",
  "}",
  ",",
  ".",
  "..",
  "/",
  "./",
  "a",
  "md",
  "notes",
  "Z",
  "é",
  "😀",
  " ",
  "$",
  "^",
  "(?=a)",
  "\\1",
  "\\b",
  "\n",
];
const globArb = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.array(fc.constantFrom(...GLOB_TOKENS), { maxLength: 12 }).map((t) => t.join("")),
  },
  { weight: 2, arbitrary: fc.integer({ min: 1, max: 24 }).map((pairs) => `**/${"*?".repeat(pairs)}Z`) },
  { weight: 1, arbitrary: fc.integer({ min: 1000, max: 70_000 }).map((n) => "a".repeat(n)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constant("**/*.md\0") },
);
/** Mostly absent (an undefined property is left out of the JSON). */
const rarely = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: arb });
/** Usually a usable value, sometimes one of the wrong ones. */
const mostly = <T>(good: fc.Arbitrary<T>, bad: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 6, arbitrary: good }, { weight: 1, arbitrary: bad });
const dateArb = mostly(
  fc
    .date({ min: new Date("1969-01-01"), max: new Date("2100-01-01"), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc.oneof(
    fc.constantFrom(
      "2025-12-15T00:00:00+09:00",
      "2025-02-30T00:00:00Z",
      "2025-12-15",
      "yesterday",
      "",
      "2016-12-31T23:59:60Z",
    ),
    fc.string({ maxLength: 30 }),
  ),
);
/** Anything JSON can carry, for the wrong-type cases. */
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 10 }),
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 4 }), fc.integer(), { maxKeys: 2 }),
);
const right = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ weight: 12, arbitrary: arb }, { weight: 1, arbitrary: junk });

const argsArb = fc.oneof(
  {
    weight: 20,
    arbitrary: fc.record(
      {
        root: right(mostly(fc.constant("files"), fc.constantFrom("other", "", "../x"))),
        path: right(
          mostly(
            fc.constantFrom("", "notes", "notes/deep", "src", "long"),
            fc.constantFrom("../", "/etc", "link", "a.md", "nope", "x\0y"),
          ),
        ),
        timeField: right(mostly(fc.constantFrom("modified", "created"), fc.constantFrom("accessed", ""))),
        from: right(dateArb),
        to: right(dateArb),
        glob: right(globArb),
        recursive: right(fc.boolean()),
        maxDepth: right(mostly(fc.integer({ min: 0, max: 300 }), fc.integer({ min: -3, max: -1 }))),
        includeFiles: right(mostly(fc.constant(true), fc.constant(false))),
        includeDirectories: right(fc.boolean()),
        sort: right(mostly(fc.constantFrom("time_desc", "time_asc", "path_asc"), fc.constant("size"))),
        limit: right(mostly(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: -5, max: 1500 }))),
        cursor: rarely(right(fc.oneof(fc.string({ maxLength: 20 }), fc.base64String({ maxLength: 80 })))),
        includeUnknownTime: right(fc.boolean()),
        unknownProperty: rarely(junk),
      },
      { requiredKeys: ["timeField"] },
    ),
  },
  { weight: 1, arbitrary: junk },
);

type Verdict = "result" | "isError" | "invalid-params";

/** One call's answer, judged; throws (failing the property) for anything the contract does not allow. */
async function judge(args: unknown): Promise<Verdict> {
  let result: CallToolResult;
  try {
    result = (await sidecar.client.callTool(
      { name: "fs.search_by_time", arguments: args as Record<string, unknown> },
      { timeout: LIMIT_S * 1000 + SLACK_MS },
    )) as CallToolResult;
  } catch (e) {
    if (e instanceof ProtocolError && e.code === ProtocolErrorCode.InvalidParams) {
      expect(e.message).toMatch(/Invalid (arguments for fs\.search_by_time|tools\/call request)/);
      return "invalid-params";
    }
    throw new Error(`args ${JSON.stringify(args)?.slice(0, 300)} → ${String(e)}`);
  }
  const first = result.content[0];
  expect(first?.type).toBe("text");
  expect((first as { text: string }).text.length).toBeGreaterThan(0);
  if (result.isError) {
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toHaveLength(1);
    return "isError";
  }
  const check = outputValidator.validate(result.structuredContent);
  if (!check.valid) throw new Error(`output breaks the schema: ${JSON.stringify(check.errors.slice(0, 3))}`);
  expect((result.content[1] as { text: string }).text).toBe(JSON.stringify(result.structuredContent));
  return "result";
}

describe("fuzzing fs.search_by_time's arguments", () => {
  it(
    `answers ${RUNS} generated calls with a schema-valid result, an isError or -32602, within the time limit`,
    { timeout: 30_000 + RUNS * 2_000 },
    async () => {
      const seen = new Set<Verdict>();
      await fc.assert(
        fc.asyncProperty(argsArb, async (args) => {
          seen.add(await judge(args));
        }),
        {
          numRuns: RUNS,
          // Each kind of answer at least once, and the attack glob, whatever the random cases are.
          examples: [
            [{ timeField: "modified", glob: `**/${"*?".repeat(9)}Z` }],
            [{ timeField: "modified", glob: "a".repeat(65_536) }],
            [{ timeField: 5 }],
          ],
        },
      );
      // The process is still the same, still answering.
      const { tools } = await sidecar.client.listTools();
      expect(tools.map((t) => t.name)).toEqual(["fs.search_by_time"]);
      expect(await judge({ timeField: "modified", glob: "**/*.md" })).toBe("result");
      expect(sidecar.transport.pid).not.toBeNull();
      expect(sidecar.stderr()).not.toMatch(/failed inside|exited|Error:/);
      if (RUNS >= 50) expect([...seen].sort()).toEqual(["invalid-params", "isError", "result"]);
    },
  );
});
