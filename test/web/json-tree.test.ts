// The manifest editor's position-tracking JSON parser (web/client/lib/json-tree.ts): it accepts exactly what
// JSON.parse accepts, points at the first syntax error, and finds an API issue's path in the text.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  JsonSyntaxError,
  JsonTooDeepError,
  MAX_DEPTH,
  columnOf,
  lineOf,
  locate,
  parseTree,
} from "../../web/client/lib/json-tree.js";

/** The text `locate` selects for `path`. */
function selected(text: string, path: string, message = ""): string | null {
  const range = locate(text, path, message);
  return range ? text.slice(range[0], range[1]) : null;
}

function syntaxError(text: string): JsonSyntaxError {
  try {
    parseTree(text);
  } catch (e) {
    if (e instanceof JsonSyntaxError) return e;
    throw e;
  }
  throw new Error(`parsed: ${text}`);
}

describe("parseTree", () => {
  it("keeps where every value and key starts and ends", () => {
    const text = '{ "a": [1, "two", {"b": null}], "c": true }';
    const root = parseTree(text);
    expect([root.start, root.end]).toEqual([0, text.length]);
    const a = root.keys!.get("a")!;
    expect(text.slice(a.keyStart, a.keyEnd)).toBe('"a"');
    expect(text.slice(a.start, a.end)).toBe('[1, "two", {"b": null}]');
    expect(a.items!.map((n) => text.slice(n.start, n.end))).toEqual(["1", '"two"', '{"b": null}']);
    expect(text.slice(root.keys!.get("c")!.start, root.keys!.get("c")!.end)).toBe("true");
  });

  it("reads escaped keys as JSON does", () => {
    const root = parseTree('{"t\\u0061b\\n": 1}');
    expect([...root.keys!.keys()]).toEqual(["tab\n"]);
  });

  it("points at the first syntax error", () => {
    const cases: Array<[string, number, RegExp]> = [
      ["", 0, /expected a value but the text ended/],
      ['{"a": 1,}', 8, /expected a property name/],
      ['{"a" 1}', 5, /expected : but found "1"/],
      ["[1 2]", 3, /expected , or \] but found "2"/],
      ['{"a": tru}', 6, /expected a value/],
      ['"line\nbreak"', 5, /control character/],
      ['"open', 5, /not closed/],
      ["{} x", 3, /unexpected text after the end/],
      ["[01]", 2, /expected , or \]/],
    ];
    for (const [text, pos, message] of cases) {
      const e = syntaxError(text);
      expect(e.message, text).toMatch(message);
      expect(e.pos, text).toBe(pos);
    }
  });

  it("points at a bad escape in a string, where JSON.parse would only say the text is not JSON", () => {
    const text = '{\n  "name": "a\\xb"\n}';
    const e = syntaxError(text);
    expect(e.pos).toBe(text.indexOf("\\x"));
    expect(e.message).toMatch(/backslash/);
    expect([lineOf(text, e.pos), columnOf(text, e.pos)]).toEqual([2, 13]);
    expect(syntaxError('"\\u12"').message).toMatch(/four hex digits/);
  });

  it("gives up on nesting deeper than it follows with its own error, not a stack overflow", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    expect(() => parseTree(deep)).toThrow(JsonTooDeepError);
    const fits = "[".repeat(MAX_DEPTH) + "]".repeat(MAX_DEPTH);
    expect(parseTree(fits).end).toBe(fits.length);
    expect(locate(deep, "(root)")).toBeNull();
  });

  it("accepts exactly what JSON.parse accepts", () => {
    const accepts = (text: string) => {
      try {
        JSON.parse(text);
        return true;
      } catch {
        return false;
      }
    };
    const parses = (text: string) => {
      try {
        parseTree(text);
        return true;
      } catch (e) {
        if (e instanceof JsonSyntaxError) return false;
        throw e;
      }
    };
    const json = fc.jsonValue().map((v) => JSON.stringify(v, null, 2));
    fc.assert(fc.property(json, (text) => parses(text) === true));
    const mangled = fc
      .tuple(json, fc.nat(), fc.constantFrom("", ",", "}", "]", '"', "\\", "\n", "x", "0", "-", "\\u00"))
      .map(([text, at, insert]) => {
        const k = at % (text.length + 1);
        return text.slice(0, k) + insert + text.slice(k + 1);
      });
    fc.assert(fc.property(mangled, (text) => parses(text) === accepts(text)));
  });
});

describe("locate", () => {
  const manifest = JSON.stringify(
    { name: "shop", tools: [{ name: "a" }, { name: "b", inputSchema: { type: "objekt" } }] },
    null,
    2,
  );

  it("selects a plain value with its key", () => {
    expect(selected(manifest, "tools[1].inputSchema.type")).toBe('"type": "objekt"');
    expect(selected(manifest, "name")).toBe('"name": "shop"');
  });

  it("selects only the key of an object or array", () => {
    expect(selected(manifest, "tools[1].inputSchema")).toBe('"inputSchema"');
    expect(selected(manifest, "tools")).toBe('"tools"');
  });

  it("selects an array item, and the opening brace of the root", () => {
    expect(selected(manifest, "tools[0]")).toBe("{");
    expect(selected(manifest, "(root)")).toBe("{");
    expect(selected(manifest, "")).toBe("{");
  });

  it("selects the unknown key a message names", () => {
    const text = '{"name": "x", "tols": []}';
    expect(selected(text, "(root)", 'unknown key "tols"')).toBe('"tols"');
  });

  it("stops at the deepest part of the path the text has", () => {
    expect(selected(manifest, "tools[1].inputSchema.properties.q")).toBe('"inputSchema"');
    expect(selected(manifest, "tools[7].name")).toBe('"tools"');
  });

  it("finds nothing in text that does not parse", () => {
    expect(locate("{", "name")).toBeNull();
  });
});

describe("lineOf and columnOf", () => {
  it("count from 1", () => {
    const text = "ab\ncd";
    expect([lineOf(text, 0), columnOf(text, 0)]).toEqual([1, 1]);
    expect([lineOf(text, 1), columnOf(text, 1)]).toEqual([1, 2]);
    expect([lineOf(text, 3), columnOf(text, 3)]).toEqual([2, 1]);
    expect([lineOf(text, 4), columnOf(text, 4)]).toEqual([2, 2]);
  });
});
