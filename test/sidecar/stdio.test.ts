// fs.search_by_time over stdio, end to end: the real CLI process (`node bin/webmcp-hub.mjs sidecar`) behind
// the MCP SDK's (v2) Client, on temp trees with controlled mtimes, checked against GNU find on the same tree.
// Every test runs twice: with a client speaking 2025-11-25 (`initialize`) and one pinned to 2026-07-28.
import { lstatSync, lutimesSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { Validator, type Schema } from "@cfworker/json-schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  ensureBuilt,
  ERAS,
  gnuFind,
  newestFirst,
  outputOf,
  removeDir,
  startSidecar,
  tempDir,
  textOf,
  touchDir,
  writeTree,
  type SidecarClient,
} from "./helpers.js";

const seed = JSON.parse(readFileSync(new URL("./seed-001-schemas.json", import.meta.url), "utf8")) as {
  inputSchema: Record<string, unknown>;
  outputSchema: Schema;
};
const outputValidator = new Validator(seed.outputSchema, "2020-12", false);

const FILES: Record<string, string> = {
  "notes/a.md": "2025-12-01T10:00:00Z",
  "notes/b.md": "2025-12-10T10:00:00Z",
  "notes/deep/c.md": "2025-12-15T00:00:00Z",
  "notes/deep/deeper/d.txt": "2025-12-05T00:00:00Z",
  "src/main.ts": "2025-11-20T00:00:00Z",
  "src/util.ts": "2025-12-01T00:00:00Z",
  ".hidden/e.md": "2025-12-03T00:00:00Z",
  "top.txt": "2025-12-12T12:00:00Z",
  "with space/ünïcode ✓.md": "2025-12-08T00:00:00Z",
  "same/t2.txt": "2025-12-07T00:00:00Z",
  "same/t0.txt": "2025-12-07T00:00:00Z",
  "same/t1.txt": "2025-12-07T00:00:00Z",
  "old/ancient.txt": "2020-01-01T00:00:00Z",
};
const DIRS = ["notes", "notes/deep", "notes/deep/deeper", "src", ".hidden", "with space", "same", "old"];
const LINK_TIME = "2025-12-09T06:00:00Z";

let base: string;
let root: string;
let evil: string;
let second: string;
let sidecar: SidecarClient;

/** Every value the tool returns that names a place: none may point outside the roots. */
function expectNoLeak(text: string): void {
  expect(text).not.toContain(evil);
  expect(text).not.toContain("data-evil");
  expect(text).not.toContain("secret");
}

beforeAll(async () => {
  ensureBuilt();
  base = tempDir();
  root = join(base, "data");
  evil = join(base, "data-evil");
  second = join(base, "second");
  writeTree(root, FILES);
  writeTree(evil, { "secret.txt": "2025-12-09T00:00:00Z", "inner/secret.md": "2025-12-09T00:00:00Z" });
  writeTree(second, { "only-here.md": "2025-12-02T00:00:00Z" });
  symlinkSync(join(evil, "secret.txt"), join(root, "link-to-outside"));
  symlinkSync(evil, join(root, "link-dir"));
  const t = Date.parse(LINK_TIME) / 1000;
  lutimesSync(join(root, "link-to-outside"), t, t);
  lutimesSync(join(root, "link-dir"), t, t);
  for (const dir of DIRS) touchDir(join(root, dir), "2025-12-02T00:00:00Z");
});

afterAll(async () => {
  if (base) removeDir(base);
});

for (const era of ERAS) {
  describe(`over stdio, a client speaking MCP ${era}`, () => {
    beforeAll(async () => {
      sidecar = await startSidecar(["--root", `data=${root}`, "--root", second], {}, era);
    });

    afterAll(async () => {
      await sidecar?.close();
    });

    it(`speaks ${era} (${era === "2026-07-28" ? "server/discover, no initialize" : "initialize"})`, () => {
      expect(sidecar.client.getNegotiatedProtocolVersion()).toBe(era);
      expect(sidecar.client.getProtocolEra()).toBe(era === "2026-07-28" ? "modern" : "legacy");
    });

    describe("tools/list and capabilities", () => {
      it("publishes exactly one tool with seed 001's input and output schemas, verbatim", async () => {
        const { tools } = await sidecar.client.listTools();
        expect(tools).toHaveLength(1);
        const tool = tools[0]!;
        expect(tool.name).toBe("fs.search_by_time");
        expect(tool.inputSchema).toEqual(seed.inputSchema);
        expect(tool.outputSchema).toEqual(seed.outputSchema);
        expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
        expect(tool.description).toContain('"data" (the default)');
        expect(tool.description).toContain('"second"');
        expect(tool.description).not.toContain(root); // root names, never local paths
      });

      it("declares tools.listChanged false", () => {
        expect(sidecar.client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
      });
    });

    describe("results", () => {
      it("a modified-time range returns what GNU find returns, newest first, with structuredContent and two text blocks", async () => {
        const result = await sidecar.call({
          timeField: "modified",
          from: "2025-11-30T12:00:00Z",
          to: "2025-12-14T12:00:00Z",
        });
        const out = outputOf(result);
        const expected = newestFirst(
          gnuFind(root, [
            "-newermt",
            "2025-11-30T12:00:00Z",
            "!",
            "-newermt",
            "2025-12-14T12:00:00Z",
            "!",
            "-type",
            "d",
          ]),
        );
        expect(out.matches.map((m) => [m.path, Date.parse(m.modifiedAt)])).toEqual(
          expected.map((r) => [r.p, r.t]),
        );
        expect(out.matches.map((m) => m.path)).toContain("link-to-outside");
        expect(outputValidator.validate(out).valid).toBe(true);
        expect(out.range).toEqual({ from: "2025-11-30T12:00:00Z", to: "2025-12-14T12:00:00Z" });
        expect(out.nextCursor).toBeNull();
        expect(out.stats).toEqual({
          scannedFiles: gnuFind(root, ["!", "-type", "d"]).length,
          scannedDirectories: gnuFind(root, ["-type", "d"]).length + 1,
          returned: expected.length,
        });
        expect(result.isError).toBe(false);
        expect(result.content).toHaveLength(2);
        expect((result.content[0] as { text: string }).text).toBe(
          `Found ${expected.length} files (sorted by modified desc).`,
        );
        expect(JSON.parse((result.content[1] as { text: string }).text)).toEqual(out);
        expectNoLeak(JSON.stringify(result));
      });

      it("'from' is inclusive and 'to' is exclusive", async () => {
        const out = outputOf(
          await sidecar.call({
            timeField: "modified",
            from: "2025-12-01T00:00:00Z",
            to: "2025-12-15T00:00:00Z",
          }),
        );
        const paths = out.matches.map((m) => m.path);
        expect(paths).toContain("src/util.ts"); // exactly at 'from'
        expect(paths).not.toContain("notes/deep/c.md"); // exactly at 'to'
        const withOffset = outputOf(
          await sidecar.call({
            timeField: "modified",
            from: "2025-12-01T09:00:00+09:00",
            to: "2025-12-15T09:00:00+09:00",
          }),
        );
        expect(withOffset.matches.map((m) => m.path)).toEqual(paths);
      });

      it("omitted 'from' and 'to' mean no bound, and the range echoes null", async () => {
        const out = outputOf(await sidecar.call({ timeField: "modified" }));
        expect(out.range).toEqual({ from: null, to: null });
        expect(out.matches.map((m) => m.path).sort()).toEqual(
          gnuFind(root, ["!", "-type", "d"])
            .map((r) => r.p)
            .sort(),
        );
      });

      it("defaults: recursive, files only, newest first, 100 a page", async () => {
        const wide = join(base, "wide");
        const files: Record<string, string> = {};
        for (let i = 0; i < 130; i++) {
          files[`level${i % 3}/${i % 3 ? "sub/" : ""}f${String(i).padStart(3, "0")}.txt`] = new Date(
            Date.UTC(2025, 0, 1) + i * 60_000,
          ).toISOString();
        }
        writeTree(wide, files);
        const wideSidecar = await startSidecar(["--root", wide], {}, era);
        try {
          const out = outputOf(await wideSidecar.call({ timeField: "modified" }));
          expect(out.matches).toHaveLength(100);
          expect(out.matches.every((m) => !m.isDirectory)).toBe(true);
          expect(out.matches[0]!.path).toBe("level0/f129.txt");
          expect(out.matches.some((m) => m.path.includes("/sub/"))).toBe(true);
          expect(out.nextCursor).not.toBeNull();
          const times = out.matches.map((m) => Date.parse(m.modifiedAt));
          expect(times).toEqual([...times].sort((a, b) => b - a));
        } finally {
          await wideSidecar.close();
        }
      });

      it("time_asc and path_asc sort deterministically, equal times by path", async () => {
        const asc = outputOf(await sidecar.call({ timeField: "modified", path: "same", sort: "time_asc" }));
        expect(asc.matches.map((m) => m.path)).toEqual(["same/t0.txt", "same/t1.txt", "same/t2.txt"]);
        const desc = outputOf(await sidecar.call({ timeField: "modified", path: "same" }));
        expect(desc.matches.map((m) => m.path)).toEqual(["same/t0.txt", "same/t1.txt", "same/t2.txt"]);
        const byPath = outputOf(await sidecar.call({ timeField: "modified", sort: "path_asc" }));
        const paths = byPath.matches.map((m) => m.path);
        expect(paths).toEqual([...paths].sort());
        const all = outputOf(await sidecar.call({ timeField: "modified", sort: "time_asc" }));
        expect(all.matches[0]!.path).toBe("old/ancient.txt");
      });

      it("glob matches root-relative POSIX paths, dotfiles included", async () => {
        const md = outputOf(await sidecar.call({ timeField: "modified", glob: "**/*.md", sort: "path_asc" }));
        expect(md.matches.map((m) => m.path)).toEqual(
          gnuFind(root, ["-name", "*.md"])
            .map((r) => r.p)
            .sort(),
        );
        expect(md.matches.map((m) => m.path)).toContain(".hidden/e.md");
        const top = outputOf(await sidecar.call({ timeField: "modified", glob: "*.txt" }));
        expect(top.matches.map((m) => m.path)).toEqual(["top.txt"]);
        const under = outputOf(
          await sidecar.call({ timeField: "modified", path: "notes", glob: "notes/deep/**" }),
        );
        expect(under.matches.map((m) => m.path).sort()).toEqual([
          "notes/deep/c.md",
          "notes/deep/deeper/d.txt",
        ]);
        // The glob's literal prefix is where the walk starts: only notes/deep and notes/deep/deeper are listed.
        expect(under.stats.scannedDirectories).toBe(2);
        const shallow = outputOf(
          await sidecar.call({ timeField: "modified", glob: "notes/deep/**", maxDepth: 1 }),
        );
        expect(shallow.matches).toEqual([]); // notes/deep's entries are 3 levels down: beyond maxDepth 1
      });

      it("recursive false and maxDepth limit the depth below 'path', like find -maxdepth", async () => {
        for (const [args, depth] of [
          [{ recursive: false }, 1],
          [{ maxDepth: 0 }, 1],
          [{ maxDepth: 1 }, 2],
          [{ maxDepth: 2 }, 3],
          [{ recursive: false, maxDepth: 5 }, 1],
        ] as const) {
          const out = outputOf(
            await sidecar.call({
              timeField: "modified",
              path: "notes",
              includeDirectories: true,
              sort: "path_asc",
              ...args,
            }),
          );
          const expected = gnuFind(join(root, "notes"), ["-maxdepth", String(depth)])
            .map((r) => `notes/${r.p}`)
            .sort();
          expect(
            out.matches.map((m) => m.path),
            JSON.stringify(args),
          ).toEqual(expected);
        }
      });

      it("includeDirectories adds directories; includeFiles false lists only them", async () => {
        const both = outputOf(
          await sidecar.call({ timeField: "modified", includeDirectories: true, sort: "path_asc" }),
        );
        expect(both.matches.map((m) => m.path)).toEqual(
          gnuFind(root, [])
            .map((r) => r.p)
            .sort(),
        );
        const dirs = outputOf(
          await sidecar.call({
            timeField: "modified",
            includeFiles: false,
            includeDirectories: true,
            sort: "path_asc",
          }),
        );
        expect(dirs.matches.map((m) => m.path)).toEqual(
          gnuFind(root, ["-type", "d"])
            .map((r) => r.p)
            .sort(),
        );
        expect(dirs.matches.every((m) => m.isDirectory && m.sizeBytes === null)).toBe(true);
        expect(dirs.matches.find((m) => m.path === "notes")!.modifiedAt).toBe("2025-12-02T00:00:00.000Z");
      });

      it("sizes are those of regular files; directories and links have none", async () => {
        const out = outputOf(await sidecar.call({ timeField: "modified", sort: "path_asc" }));
        const byPath = Object.fromEntries(out.matches.map((m) => [m.path, m]));
        expect(byPath["top.txt"]!.sizeBytes).toBe(3);
        expect(byPath["link-to-outside"]).toMatchObject({
          isDirectory: false,
          sizeBytes: null,
          modifiedAt: "2025-12-09T06:00:00.000Z",
        });
        expect(byPath["link-dir"]).toMatchObject({ isDirectory: false, sizeBytes: null });
      });

      it("'path' searches below the root, and paths stay relative to the root", async () => {
        const out = outputOf(
          await sidecar.call({ timeField: "modified", path: "notes/deep/", sort: "path_asc" }),
        );
        expect(out.matches.map((m) => m.path)).toEqual(["notes/deep/c.md", "notes/deep/deeper/d.txt"]);
        const dotted = outputOf(
          await sidecar.call({ timeField: "modified", path: "./notes/../notes/deep", sort: "path_asc" }),
        );
        expect(dotted.matches).toEqual(out.matches);
      });

      it("'root' picks an allowed root by name or by its path; the first is the default", async () => {
        const byName = outputOf(await sidecar.call({ timeField: "modified", root: "second" }));
        expect(byName.matches.map((m) => m.path)).toEqual(["only-here.md"]);
        const byPath = outputOf(await sidecar.call({ timeField: "modified", root: second }));
        expect(byPath.matches).toEqual(byName.matches);
        const byDefault = outputOf(
          await sidecar.call({ timeField: "modified", root: "data", glob: "top.txt" }),
        );
        expect(byDefault.matches.map((m) => m.path)).toEqual(["top.txt"]);
      });

      it("created time: createdAt is the birth time, and a created range keeps exactly the entries born in it", async () => {
        const out = outputOf(await sidecar.call({ timeField: "created", sort: "path_asc", limit: 1000 }));
        for (const m of out.matches) {
          const birth = lstatSync(join(root, m.path)).birthtimeMs;
          expect(m.createdAt).toBe(new Date(birth).toISOString());
        }
        const births = out.matches.map((m) => Date.parse(m.createdAt!)).sort((a, b) => a - b);
        const mid = births[Math.floor(births.length / 2)]!;
        const from = new Date(mid - 0.5).toISOString();
        const ranged = outputOf(
          await sidecar.call({ timeField: "created", from, sort: "path_asc", limit: 1000 }),
        );
        // GNU find here has no -newerBt (it cannot read birth times on this system): lstat is the reference.
        const bornSince = gnuFind(root, ["!", "-type", "d"])
          .filter((r) => lstatSync(join(root, r.p)).birthtimeMs >= Date.parse(from))
          .map((r) => r.p)
          .sort();
        expect(ranged.matches.map((m) => m.path)).toEqual(bornSince);
        expect(bornSince.length).toBeGreaterThan(0);
      });

      it("paging with the cursor returns every match once, in order, and 'limit' may change between pages", async () => {
        const all = outputOf(
          await sidecar.call({ timeField: "modified", includeDirectories: true, limit: 1000 }),
        );
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const page: ReturnType<typeof outputOf> = outputOf(
            await sidecar.call({
              timeField: "modified",
              includeDirectories: true,
              limit: pages % 2 ? 3 : 4,
              ...(cursor ? { cursor } : {}),
            }),
          );
          seen.push(...page.matches.map((m) => m.path));
          expect(page.stats.returned).toBe(page.matches.length);
          cursor = page.nextCursor;
          pages++;
        } while (cursor !== null);
        expect(seen).toEqual(all.matches.map((m) => m.path));
        expect(pages).toBeGreaterThan(3);
      });
    });

    describe("pages after the first", () => {
      it("come from the previous scan's look-ahead while nothing changed, and from a new scan when an entry did", async () => {
        const dirName = "paging";
        const files: Record<string, string> = {};
        for (let i = 0; i < 8; i++)
          files[`${dirName}/p${i}.txt`] = new Date(Date.UTC(2025, 5, 1, i)).toISOString();
        writeTree(root, files);
        const args = { timeField: "modified", path: dirName, limit: 2 };
        const first = outputOf(await sidecar.call(args));
        expect(first.matches.map((m) => m.path)).toEqual(["paging/p7.txt", "paging/p6.txt"]);
        const secondResult = await sidecar.call({ ...args, cursor: first.nextCursor });
        const second = outputOf(secondResult);
        expect(second.matches.map((m) => m.path)).toEqual(["paging/p5.txt", "paging/p4.txt"]);
        expect(textOf(secondResult)).toMatch(
          /This page continues the scan made \d+ s ago for the previous page/,
        );
        expect(second.stats).toEqual({ ...first.stats, returned: 2 });

        // p3 is touched (now the newest, so before the cursor) and p2 removed: the look-ahead is stale.
        const t = Date.UTC(2025, 6, 1) / 1000;
        utimesSync(join(root, dirName, "p3.txt"), t, t);
        rmSync(join(root, dirName, "p2.txt"));
        const thirdResult = await sidecar.call({ ...args, cursor: second.nextCursor });
        expect(outputOf(thirdResult).matches.map((m) => m.path)).toEqual(["paging/p1.txt", "paging/p0.txt"]);
        expect(textOf(thirdResult)).not.toContain("continues the scan");
      });
    });

    describe("input errors are isError results an agent can act on", () => {
      const cases: Array<[string, Record<string, unknown>, RegExp | string]> = [
        [
          "from after to",
          { from: "2025-12-10T00:00:00Z", to: "2025-12-01T00:00:00Z" },
          "Invalid range: 'from' must be earlier than 'to'.",
        ],
        [
          "from equal to to",
          { from: "2025-12-10T00:00:00Z", to: "2025-12-10T00:00:00Z" },
          "Invalid range: 'from' must be earlier than 'to'.",
        ],
        [
          "a date without time",
          { from: "2025-12-10" },
          /^Invalid 'from': "2025-12-10" is not an ISO 8601 date-time\. Use a full date and time with a time zone/,
        ],
        ["a date-time without zone", { to: "2025-12-10T00:00:00" }, /^Invalid 'to'/],
        ["February 30", { from: "2025-02-30T00:00:00Z" }, /^Invalid 'from'/],
        ["hour 24", { from: "2025-02-03T24:00:00Z" }, /^Invalid 'from'/],
        ["prose", { from: "yesterday" }, /^Invalid 'from': "yesterday"/],
        [
          "an unknown timeField",
          { timeField: "accessed" },
          /^Invalid 'timeField' "accessed": use "modified"/,
        ],
        ["an unknown sort", { sort: "newest" }, /^Invalid 'sort' "newest"/],
        ["limit 0", { limit: 0 }, /^Invalid 'limit' 0: it must be between 1 and 1000/],
        ["limit 1001", { limit: 1001 }, /^Invalid 'limit' 1001/],
        ["maxDepth -1", { maxDepth: -1 }, /^Invalid 'maxDepth' -1/],
        ["nothing to include", { includeFiles: false, includeDirectories: false }, /^Nothing to search for/],
        [
          "a root that is not allowed",
          { root: "elsewhere" },
          /^'root' "elsewhere" is not an allowed root\. Allowed roots: "data", "second"/,
        ],
        ["a missing path", { path: "nope/never" }, /^'path' "nope\/never" does not exist under root "data"/],
        ["a path that is a file", { path: "top.txt" }, /^'path' "top.txt" is not a directory/],
      ];
      for (const [name, args, expected] of cases) {
        it(`${name}`, async () => {
          const result = await sidecar.call({ timeField: "modified", ...args });
          expect(result.isError).toBe(true);
          expect(result.structuredContent).toBeUndefined();
          expect(result.content).toHaveLength(1);
          const text = textOf(result);
          if (typeof expected === "string") expect(text).toBe(expected);
          else expect(text).toMatch(expected);
        });
      }

      it("the limit bounds themselves are accepted", async () => {
        expect(outputOf(await sidecar.call({ timeField: "modified", limit: 1 })).matches).toHaveLength(1);
        expect(outputOf(await sidecar.call({ timeField: "modified", limit: 1000 })).nextCursor).toBeNull();
        expect(
          outputOf(await sidecar.call({ timeField: "modified", maxDepth: 0 })).matches.map((m) => m.path),
        ).toEqual(expect.arrayContaining(["top.txt"]));
      });
    });

    describe("broken requests are JSON-RPC errors", () => {
      async function rpcError(promise: Promise<unknown>): Promise<{ code: number; message: string }> {
        try {
          await promise;
        } catch (e) {
          return e as { code: number; message: string };
        }
        throw new Error("expected a JSON-RPC error");
      }

      it("an unknown tool", async () => {
        const e = await rpcError(sidecar.client.callTool({ name: "fs.delete_everything", arguments: {} }));
        expect(e.code).toBe(-32602);
        expect(e.message).toContain(
          "Unknown tool: fs.delete_everything. This server has one tool: fs.search_by_time.",
        );
      });

      for (const [name, args, fragment] of [
        ["a missing timeField", {}, "'timeField' is required"],
        [
          "an unknown property",
          { timeField: "modified", since: "2025-01-01T00:00:00Z" },
          "unknown property 'since'",
        ],
        [
          "a string for limit",
          { timeField: "modified", limit: "10" },
          "'limit' must be an integer, got a string",
        ],
        [
          "a fraction for limit",
          { timeField: "modified", limit: 2.5 },
          "'limit' must be an integer, got a number",
        ],
        ["a number for timeField", { timeField: 1 }, "'timeField' must be a string"],
        [
          "a string for recursive",
          { timeField: "modified", recursive: "yes" },
          "'recursive' must be a boolean",
        ],
        ["null for path", { timeField: "modified", path: null }, "'path' must be a string, got null"],
      ] as const) {
        it(`arguments with ${name}`, async () => {
          const e = await rpcError(sidecar.client.callTool({ name: "fs.search_by_time", arguments: args }));
          expect(e.code).toBe(-32602);
          expect(e.message).toContain(fragment);
        });
      }
    });

    describe("attacks are refused without leaking anything outside the roots", () => {
      it("a sibling that shares the root's prefix (/data vs /data-evil) is not an allowed root", async () => {
        for (const rootArg of [evil, `${root}-evil`, join(evil, "inner")]) {
          const result = await sidecar.call({ timeField: "modified", root: rootArg });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/is not an allowed root/);
          expectNoLeak(textOf(result).replace(rootArg, "ROOT-ARG")); // only the caller's own words come back
        }
      });

      it("'..' that leaves the root is refused, before touching the disk", async () => {
        for (const path of ["..", "../data-evil", "notes/../../data-evil", "notes/../..", "../data"]) {
          const result = await sidecar.call({ timeField: "modified", path });
          expect(result.isError, path).toBe(true);
          expect(textOf(result)).toMatch(/leaves the root "data" through "\.\."/);
          expect(JSON.stringify(result)).not.toContain(evil);
        }
      });

      it("an absolute 'path' is refused", async () => {
        for (const path of [evil, root, "/etc", join(root, "notes")]) {
          const result = await sidecar.call({ timeField: "modified", path });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/^'path' must be relative to the root/);
        }
      });

      it("a symlinked file pointing out of the root is listed as the link itself, never its target", async () => {
        const out = outputOf(await sidecar.call({ timeField: "modified", sort: "path_asc", limit: 1000 }));
        const link = out.matches.find((m) => m.path === "link-to-outside")!;
        expect(link.sizeBytes).toBeNull();
        expect(link.createdAt).toBe(
          new Date(lstatSync(join(root, "link-to-outside")).birthtimeMs).toISOString(),
        );
        expect(link.modifiedAt).toBe("2025-12-09T06:00:00.000Z"); // the link's own time; its target's is 00:00
        expect(statSync(join(evil, "secret.txt")).mtime.toISOString()).toBe("2025-12-09T00:00:00.000Z");
        expect(out.matches.every((m) => !m.path.startsWith("/") && !m.path.includes(".."))).toBe(true);
        expect(JSON.stringify(out)).not.toContain(evil);
      });

      it("a symlinked directory pointing out of the root is never descended, nor accepted as 'path'", async () => {
        const out = outputOf(
          await sidecar.call({ timeField: "modified", includeDirectories: true, limit: 1000 }),
        );
        expect(out.matches.some((m) => m.path.startsWith("link-dir/"))).toBe(false);
        expect(out.matches.find((m) => m.path === "link-dir")).toMatchObject({ isDirectory: false });
        expectNoLeak(JSON.stringify(out.matches.filter((m) => m.path !== "link-to-outside")));
        for (const path of ["link-dir", "link-dir/inner"]) {
          const result = await sidecar.call({ timeField: "modified", path });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(
            /goes through a symbolic link \("link-dir"\); links are not followed/,
          );
          expectNoLeak(textOf(result));
        }
        const globbed = outputOf(await sidecar.call({ timeField: "modified", glob: "link-dir/**" }));
        expect(globbed.matches.map((m) => m.path)).toEqual(["link-dir"]); // the link itself, nothing below it
      });

      it("NUL bytes are refused in every string argument", async () => {
        for (const args of [
          { path: "notes\0/../.." },
          { root: "data\0" },
          { glob: "**/*.md\0" },
          { cursor: "abc\0def" },
          { from: "2025-12-01T00:00:00Z\0" },
        ]) {
          const result = await sidecar.call({ timeField: "modified", ...args });
          expect(result.isError, JSON.stringify(args)).toBe(true);
          expect(textOf(result)).toMatch(/contains a NUL byte/);
        }
      });

      it("a tampered cursor is refused", async () => {
        const first = outputOf(await sidecar.call({ timeField: "modified", limit: 2 }));
        const cursor = first.nextCursor!;
        const [payload, signature] = cursor.split(".") as [string, string];
        const decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<
          string,
          unknown
        >;
        const forged = (p: Record<string, unknown>) =>
          `${Buffer.from(JSON.stringify(p)).toString("base64url")}.${signature}`;
        for (const bad of [
          forged({ ...decoded, p: "../data-evil/secret.txt" }),
          forged({ ...decoded, t: 0 }),
          `${payload}.${signature.slice(0, -2)}AA`,
          `${payload}x.${signature}`,
          cursor.slice(0, cursor.length - 5),
          "not-a-cursor",
          `${payload}`,
        ]) {
          const result = await sidecar.call({ timeField: "modified", limit: 2, cursor: bad });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(
            /^Invalid 'cursor': it was changed, cut short, or comes from an earlier run/,
          );
          expectNoLeak(textOf(result));
        }
      });

      it("a cursor reused with different arguments is refused", async () => {
        const first = outputOf(await sidecar.call({ timeField: "modified", limit: 2, glob: "**/*.md" }));
        for (const changed of [
          { glob: "**/*.txt" },
          { glob: "**/*.md", timeField: "created" },
          { glob: "**/*.md", sort: "time_asc" },
          { glob: "**/*.md", from: "2025-01-01T00:00:00Z" },
          { glob: "**/*.md", path: "notes" },
          { glob: "**/*.md", root: "second" },
          { glob: "**/*.md", includeDirectories: true },
        ]) {
          const result = await sidecar.call({
            timeField: "modified",
            limit: 2,
            ...changed,
            cursor: first.nextCursor,
          });
          expect(result.isError, JSON.stringify(changed)).toBe(true);
          expect(textOf(result)).toMatch(/^This 'cursor' belongs to a different search/);
        }
      });

      it("a cursor from another run of the server is refused", async () => {
        const other = await startSidecar(["--root", `data=${root}`, "--root", second], {}, era);
        try {
          const first = outputOf(await other.call({ timeField: "modified", limit: 2 }));
          const result = await sidecar.call({ timeField: "modified", limit: 2, cursor: first.nextCursor });
          expect(result.isError).toBe(true);
          expect(textOf(result)).toMatch(/^Invalid 'cursor'/);
        } finally {
          await other.close();
        }
      });

      it("a root given through a symlink is realpath'd at start, and its results stay inside it", async () => {
        const viaLink = join(base, `data-link-${era}`);
        symlinkSync(root, viaLink);
        const linked = await startSidecar(["--root", viaLink], {}, era);
        try {
          const out = outputOf(await linked.call({ timeField: "modified", limit: 1000 }));
          expect(out.matches.map((m) => m.path).sort()).toEqual(
            gnuFind(root, ["!", "-type", "d"])
              .map((r) => r.p)
              .sort(),
          );
          expect(linked.stderr()).toContain(root);
        } finally {
          await linked.close();
          rmSync(viaLink);
        }
      });
    });

    describe("a file system without creation times", () => {
      const procRoot = "/proc/sys/kernel/random";
      const supported =
        process.platform === "linux" &&
        (() => {
          try {
            return lstatSync(procRoot).birthtimeMs <= 0;
          } catch {
            return false;
          }
        })();

      it.skipIf(!supported)(
        "a created search there is an isError that says what to do; includeUnknownTime lists the entries with createdAt null",
        async () => {
          const proc = await startSidecar(["--root", procRoot], {}, era);
          try {
            const refused = await proc.call({ timeField: "created" });
            expect(refused.isError).toBe(true);
            expect(textOf(refused)).toMatch(
              /does not record creation times.*Use timeField "modified", or set includeUnknownTime to true/,
            );
            const listed = outputOf(
              await proc.call({ timeField: "created", includeUnknownTime: true, sort: "path_asc" }),
            );
            expect(listed.matches.length).toBeGreaterThan(0);
            expect(listed.matches.every((m) => m.createdAt === null)).toBe(true);
            expect(listed.matches.map((m) => m.path)).toEqual(
              gnuFind(procRoot, ["!", "-type", "d"])
                .map((r) => r.p)
                .sort(),
            );
            const modified = outputOf(await proc.call({ timeField: "modified" }));
            expect(modified.matches.every((m) => m.createdAt === null)).toBe(true);
          } finally {
            await proc.close();
          }
        },
      );
    });
  });
}
