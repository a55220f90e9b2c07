// The manifest editor's JSON parser (/publish): strict JSON that keeps where every value (and its key) starts
// and ends in the text, so a syntax error and each of the API's field issues (`tools[2].inputSchema.type`)
// can select the exact place in the textarea. Pure: no DOM; unit-tested in test/web/json-tree.test.ts.

/** A value's place in the text: [start, end) of the value and, for an object member, of its key. */
export interface JsonNode {
  start: number;
  end: number;
  keyStart?: number;
  keyEnd?: number;
  /** An object's members, by key (a repeated key keeps the last, as JSON.parse does). */
  keys?: Map<string, JsonNode>;
  /** An array's items. */
  items?: JsonNode[];
}

/** Text that is not JSON; `pos` is where the problem is (a UTF-16 offset into the text). */
export class JsonSyntaxError extends Error {
  constructor(
    message: string,
    readonly pos: number,
  ) {
    super(message);
  }
}

/** Nesting deeper than the parser follows (valid JSON, perhaps; the API answers for it). */
export class JsonTooDeepError extends Error {}

/** How deep parseTree follows objects and arrays (the hub refuses schemas nesting past 64 levels anyway). */
export const MAX_DEPTH = 512;

const WHITESPACE = " \t\r\n";
const ESCAPES = '"\\/bfnrt';
const SCALAR = /(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/y;

/** Parses `text` as JSON into a tree of positions. Throws JsonSyntaxError (with `pos`) or JsonTooDeepError. */
export function parseTree(text: string): JsonNode {
  let i = 0;
  const fail = (message: string): never => {
    throw new JsonSyntaxError(message, Math.min(i, text.length));
  };
  const ws = () => {
    while (i < text.length && WHITESPACE.includes(text[i]!)) i++;
  };
  const found = () => (i >= text.length ? "the text ended" : `found ${JSON.stringify(text[i])}`);
  const expect = (ch: string) => {
    if (text[i] !== ch) fail(`expected ${ch} but ${found()}`);
    i++;
  };
  const str = (): string => {
    const s = i;
    expect('"');
    while (i < text.length && text[i] !== '"') {
      const c = text[i]!;
      if (c < " ") fail("a string may not contain a line break or control character");
      if (c !== "\\") {
        i++;
        continue;
      }
      const next = text[i + 1];
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6)))
          fail("\\u in a string must be followed by four hex digits");
        i += 6;
      } else if (next !== undefined && ESCAPES.includes(next)) i += 2;
      else fail(`a backslash in a string starts one of \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX`);
    }
    if (i >= text.length) fail("a string is not closed with a double quote");
    i++;
    return JSON.parse(text.slice(s, i)) as string;
  };
  function value(depth: number): JsonNode {
    ws();
    const node: JsonNode = { start: i, end: i };
    if (text[i] === "{" || text[i] === "[") {
      if (depth >= MAX_DEPTH) throw new JsonTooDeepError(`The JSON nests deeper than ${MAX_DEPTH} levels.`);
    }
    if (text[i] === "{") {
      i++;
      const keys = new Map<string, JsonNode>();
      node.keys = keys;
      ws();
      if (text[i] === "}") i++;
      else
        for (;;) {
          ws();
          if (text[i] !== '"') fail(`expected a property name in double quotes but ${found()}`);
          const keyStart = i;
          const key = str();
          const keyEnd = i;
          ws();
          expect(":");
          const child = value(depth + 1);
          child.keyStart = keyStart;
          child.keyEnd = keyEnd;
          keys.set(key, child);
          ws();
          if (text[i] === ",") {
            i++;
            continue;
          }
          if (text[i] !== "}") fail(`expected , or } but ${found()}`);
          i++;
          break;
        }
    } else if (text[i] === "[") {
      i++;
      const items: JsonNode[] = [];
      node.items = items;
      ws();
      if (text[i] === "]") i++;
      else
        for (;;) {
          items.push(value(depth + 1));
          ws();
          if (text[i] === ",") {
            i++;
            continue;
          }
          if (text[i] !== "]") fail(`expected , or ] but ${found()}`);
          i++;
          break;
        }
    } else if (text[i] === '"') str();
    else {
      SCALAR.lastIndex = i;
      const m = SCALAR.exec(text);
      if (!m) fail(`expected a value but ${found()}`);
      else i += m[0].length;
    }
    node.end = i;
    return node;
  }
  const root = value(0);
  ws();
  if (i < text.length) fail(`unexpected text after the end: ${found()}`);
  return root;
}

/**
 * Where `path` (like `tools[2].inputSchema.type`, or "(root)") is in `text`: [start, end) of what to select,
 * or null when the text does not parse. A path that goes further than the text stops at the deepest part
 * found. An object's member is selected from its key to the end of a plain value, or just its key when the
 * value is an object or array; a key the message names in double quotes (an unknown key) is selected itself.
 */
export function locate(text: string, path: string, message = ""): [number, number] | null {
  let node: JsonNode;
  try {
    node = parseTree(text);
  } catch {
    return null;
  }
  const segments: Array<string | number> = [];
  if (path && path !== "(root)") {
    for (const m of path.matchAll(/\[(\d+)\]|([^.[\]]+)/g))
      segments.push(m[1] !== undefined ? Number(m[1]) : m[2]!);
  }
  for (const seg of segments) {
    const next = typeof seg === "number" ? node.items?.[seg] : node.keys?.get(seg);
    if (!next) break;
    node = next;
  }
  // An unknown key is reported on its object: point at the key itself when the message names it.
  const named = /"([^"]+)"/.exec(message)?.[1];
  const namedNode = named === undefined ? undefined : node.keys?.get(named);
  if (namedNode) node = namedNode;
  const nested = Boolean(node.keys || node.items);
  if (node.keyStart !== undefined && node.keyEnd !== undefined)
    return nested ? [node.keyStart, node.keyEnd] : [node.keyStart, node.end];
  return nested ? [node.start, node.start + 1] : [node.start, node.end];
}

/** The 1-based line of `offset` in `text`. */
export function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split("\n").length;
}

/** The 1-based column of `offset` in `text`. */
export function columnOf(text: string, offset: number): number {
  return offset - (offset === 0 ? -1 : text.lastIndexOf("\n", offset - 1));
}
