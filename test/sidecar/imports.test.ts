// The sidecar's module graph, read from the sources: no import cycle inside src/sidecar (type-only imports
// count too: a cycle of types is still a knot to untie when a file moves), and nothing in the sidecar's
// code, tests or benches reaches for the 1.x SDK (@modelcontextprotocol/sdk) any more.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { removeDir, REPO, tempDir } from "./helpers.js";

const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function filesUnder(dir: string, ext: RegExp): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, ext);
    return ext.test(entry.name) ? [full] : [];
  });
}

function specifiers(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(IMPORT)].map((m) => (m[1] ?? m[2])!);
}

/** Every cycle's path (a → … → a) among the .ts files of `dir`, by local relative imports. */
function importCycles(dir: string): string[][] {
  const files = filesUnder(dir, /\.ts$/);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const targets = specifiers(file)
      .filter((s) => s.startsWith("."))
      .map((s) => resolve(dirname(file), s.replace(/\.js$/, ".ts")))
      .filter((target) => files.includes(target));
    edges.set(file, targets);
  }
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (state.get(next) === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, "done");
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles.map((cycle) => cycle.map((f) => relative(dir, f)));
}

describe("the sidecar's imports", () => {
  it("form no cycle in src/sidecar", () => {
    expect(importCycles(join(REPO, "src/sidecar"))).toEqual([]);
  });

  it("are read well enough to see the old cycle (roots → arguments → tool → roots) when it is there", () => {
    const dir = tempDir("webmcp-imports-");
    try {
      writeFileSync(join(dir, "roots.ts"), 'import { SearchError } from "./arguments.js";\n');
      writeFileSync(join(dir, "arguments.ts"), 'import { INPUT_SCHEMA } from "./tool.js";\n');
      writeFileSync(join(dir, "tool.ts"), 'import type { SearchRoot } from "./roots.js";\n');
      writeFileSync(join(dir, "errors.ts"), "export class SearchError extends Error {}\n");
      expect(importCycles(dir)).toEqual([["arguments.ts", "tool.ts", "roots.ts", "arguments.ts"]]);
    } finally {
      removeDir(dir);
    }
  });

  it("never import the 1.x SDK (@modelcontextprotocol/sdk) in src/sidecar, test/sidecar or bench/sidecar", () => {
    const offenders = ["src/sidecar", "test/sidecar", "bench/sidecar"]
      .flatMap((dir) => filesUnder(join(REPO, dir), /\.(ts|mts|mjs|js)$/))
      .filter((file) => specifiers(file).some((s) => s.startsWith("@modelcontextprotocol/sdk")))
      .map((file) => relative(REPO, file));
    expect(offenders).toEqual([]);
  });
});
