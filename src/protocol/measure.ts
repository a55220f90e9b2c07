// The measures the relay's limits are stated in, shared by the Worker, the bridge and the sidecar (no
// imports, so the bridge can bundle it): a frame's size in UTF-8 bytes (what the socket carries, not
// JavaScript's UTF-16 `length`), and the shape of a JSON value (nesting depth, node count, longest array),
// found without recursion so that a value nested a million levels deep is measured, not a stack overflow.

/** The length of `text` encoded as UTF-8, in bytes (a lone surrogate counts as U+FFFD: 3 bytes). */
export function utf8ByteLength(text: string): number {
  let bytes = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 2; // the pair's two units become four bytes
        i++;
      } else bytes += 2;
    } else bytes += 2;
  }
  return bytes;
}

/** True when `text` is longer than `max` bytes of UTF-8, without counting past what decides it. */
export function exceedsUtf8Bytes(text: string, max: number): boolean {
  if (text.length > max) return true; // every UTF-16 unit is at least one byte
  if (text.length * 3 <= max) return false; // and at most three
  return utf8ByteLength(text) > max;
}

/**
 * The nesting depth of a JSON value (a scalar is 0, `{}` and `[]` are 1, `{"a":[1]}` is 2), or `Infinity`
 * as soon as it is known to exceed `max`. Iterative: the work is bounded by the number of nodes visited.
 */
export function jsonDepth(value: unknown, max: number = Number.POSITIVE_INFINITY): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    if (typeof node !== "object" || node === null) continue;
    const here = depth + 1;
    if (here > max) return Number.POSITIVE_INFINITY;
    if (here > deepest) deepest = here;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) if (typeof child === "object" && child !== null) stack.push([child, here]);
  }
  return deepest;
}

/** A JSON value's shape: nesting depth (as `jsonDepth`), nodes (every value, scalars too), longest array. */
export interface JsonShape {
  depth: number;
  nodes: number;
  longestArray: number;
}

/** The shape of a JSON value; `depth` is `Infinity` (and the rest partial) once it exceeds `maxDepth`. */
export function jsonShape(value: unknown, maxDepth: number = Number.POSITIVE_INFINITY): JsonShape {
  const shape: JsonShape = { depth: 0, nodes: 0, longestArray: 0 };
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    shape.nodes++;
    if (typeof node !== "object" || node === null) continue;
    const here = depth + 1;
    if (here > maxDepth) {
      shape.depth = Number.POSITIVE_INFINITY;
      return shape;
    }
    if (here > shape.depth) shape.depth = here;
    const children: unknown[] = Array.isArray(node) ? node : Object.values(node);
    if (Array.isArray(node) && node.length > shape.longestArray) shape.longestArray = node.length;
    for (const child of children) stack.push([child, here]);
  }
  return shape;
}
