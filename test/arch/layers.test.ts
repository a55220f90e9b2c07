// The channel's MCP layer and its relay depend one way: src/worker/mcp/ sees the relay only through its port
// (relay/channel-port.ts, types alone), and nothing in src/worker/relay/ imports the MCP layer. The Durable
// Object that composes the two (src/worker/channel-relay.ts) sits above both. Read from the sources' import
// statements, so a new file that crosses the line fails here.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const WORKER = fileURLToPath(new URL("../../src/worker/", import.meta.url));

/** Every module specifier a file imports or re-exports, with whether the statement is type-only. */
function importsOf(file: string): Array<{ from: string; typeOnly: boolean }> {
  const text = readFileSync(file, "utf8");
  const found: Array<{ from: string; typeOnly: boolean }> = [];
  for (const m of text.matchAll(/^\s*(import|export)\s+(type\s+)?[^;]*?\sfrom\s+"([^"]+)"/gms)) {
    found.push({ from: m[3]!, typeOnly: Boolean(m[2]) });
  }
  for (const m of text.matchAll(/import\(\s*"([^"]+)"\s*\)/g)) found.push({ from: m[1]!, typeOnly: false });
  return found;
}

function tsFiles(dir: string): string[] {
  return readdirSync(join(WORKER, dir))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(WORKER, dir, f));
}

describe("layers", () => {
  it("src/worker/mcp/ reaches into relay/ only for the port's types", () => {
    const crossings = tsFiles("mcp").flatMap((file) =>
      importsOf(file)
        .filter((i) => i.from.includes("/relay/") || i.from.startsWith("../relay"))
        .filter((i) => !(i.from === "../relay/channel-port.js" && i.typeOnly))
        .map((i) => `${file.slice(WORKER.length)} imports ${i.from}`),
    );
    expect(crossings).toEqual([]);
  });

  it("nothing in src/worker/relay/ imports the MCP layer or the object that composes them", () => {
    const crossings = tsFiles("relay").flatMap((file) =>
      importsOf(file)
        .filter((i) => /(^|\/)mcp\//.test(i.from) || i.from.endsWith("/channel-relay.js"))
        .map((i) => `${file.slice(WORKER.length)} imports ${i.from}`),
    );
    expect(crossings).toEqual([]);
  });

  it("the check sees imports (it would catch a crossing)", () => {
    const own = importsOf(fileURLToPath(import.meta.url)).map((i) => i.from);
    expect(own).toContain("node:fs");
    expect(importsOf(join(WORKER, "channel-relay.ts")).map((i) => i.from)).toEqual(
      expect.arrayContaining(["./mcp/channel-endpoint.js", "./relay/channel-port.js"]),
    );
  });
});
