// Differences between two manifest versions: which tools were added, removed or changed, and a unified
// line diff of the pretty-printed JSON (Myers' O(ND) algorithm after trimming the common prefix/suffix).
import type { Manifest } from "../../src/protocol/index.js";

export interface DiffLine {
  op: " " | "+" | "-";
  text: string;
  /** 1-based line numbers in the old and the new text. */
  a?: number;
  b?: number;
}

export interface Hunk {
  header: string;
  lines: DiffLine[];
}

/** Edit script from `a` to `b`, or null when it needs more than `maxEdits` inserted/deleted lines. */
export function diffLines(a: string[], b: string[], maxEdits = 2000): DiffLine[] | null {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const middle = myers(a.slice(start, endA), b.slice(start, endB), maxEdits);
  if (!middle) return null;
  const out: DiffLine[] = [];
  for (let i = 0; i < start; i++) out.push({ op: " ", text: a[i]!, a: i + 1, b: i + 1 });
  for (const m of middle) {
    out.push({
      op: m.op,
      text: m.text,
      ...(m.a !== undefined ? { a: m.a + start + 1 } : {}),
      ...(m.b !== undefined ? { b: m.b + start + 1 } : {}),
    });
  }
  for (let i = endA, j = endB; i < a.length; i++, j++) out.push({ op: " ", text: a[i]!, a: i + 1, b: j + 1 });
  return out;
}

interface Edit {
  op: " " | "+" | "-";
  text: string;
  a?: number;
  b?: number;
}

function myers(a: string[], b: string[], maxEdits: number): Edit[] | null {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = -1;
  for (let d = 0; d <= max && found < 0; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)) x = v[offset + k + 1]!;
      else x = v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
  }
  if (found < 0) return null;
  // Walk the trace backwards from (n, m) to (0, 0).
  const edits: Edit[] = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const vd = trace[d]!;
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1]! < vd[offset + k + 1]!) ? k + 1 : k - 1;
    const prevX = vd[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      edits.push({ op: " ", text: a[x]!, a: x, b: y });
    }
    if (x === prevX) {
      y--;
      edits.push({ op: "+", text: b[y]!, b: y });
    } else {
      x--;
      edits.push({ op: "-", text: a[x]!, a: x });
    }
  }
  while (x > 0 && y > 0) {
    x--;
    y--;
    edits.push({ op: " ", text: a[x]!, a: x, b: y });
  }
  return edits.reverse();
}

/** Groups a diff into hunks with `context` unchanged lines around each change. */
export function hunks(lines: DiffLine[], context = 3): Hunk[] {
  const out: Hunk[] = [];
  const changed = lines.map((l, i) => (l.op === " " ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return out;
  let from = Math.max(0, changed[0]! - context);
  let to = Math.min(lines.length, changed[0]! + context + 1);
  const flush = () => {
    const slice = lines.slice(from, to);
    const firstA = slice.find((l) => l.a !== undefined)?.a ?? 0;
    const firstB = slice.find((l) => l.b !== undefined)?.b ?? 0;
    const countA = slice.filter((l) => l.op !== "+").length;
    const countB = slice.filter((l) => l.op !== "-").length;
    out.push({ header: `@@ -${firstA},${countA} +${firstB},${countB} @@`, lines: slice });
  };
  for (const i of changed.slice(1)) {
    if (i - context <= to) to = Math.min(lines.length, i + context + 1);
    else {
      flush();
      from = Math.max(0, i - context);
      to = Math.min(lines.length, i + context + 1);
    }
  }
  flush();
  return out;
}

export interface ToolChanges {
  added: string[];
  removed: string[];
  changed: Array<{ name: string; fields: string[] }>;
  siteFields: string[];
}

/** Tool-level summary: what an agent would notice between two versions. */
export function toolChanges(from: Manifest, to: Manifest): ToolChanges {
  const before = new Map(from.tools.map((t) => [t.name, t]));
  const after = new Map(to.tools.map((t) => [t.name, t]));
  const changed: ToolChanges["changed"] = [];
  for (const [name, t] of after) {
    const old = before.get(name);
    if (!old) continue;
    const keys = new Set([...Object.keys(old), ...Object.keys(t)]);
    const fields = [...keys].filter(
      (k) =>
        JSON.stringify((old as Record<string, unknown>)[k]) !==
        JSON.stringify((t as Record<string, unknown>)[k]),
    );
    if (fields.length) changed.push({ name, fields });
  }
  return {
    added: [...after.keys()].filter((n) => !before.has(n)),
    removed: [...before.keys()].filter((n) => !after.has(n)),
    changed,
    siteFields: (["name", "description"] as const).filter((k) => from[k] !== to[k]),
  };
}
