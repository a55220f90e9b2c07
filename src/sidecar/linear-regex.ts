// A linear-time matcher for the regexes picomatch builds from globs: a Thompson NFA run as a lazily built,
// bounded DFA over UTF-16 code units (the units V8 matches without the `u` flag). Anchors, word boundaries
// and lookarounds are predicates on a position: a lookahead of bounded length is evaluated where it is
// asked and remembered; any other lookaround is computed for every position of the input in one pass
// (backwards for a lookahead, forwards for a lookbehind). So a match costs O(input × pattern), never the
// exponential backtracking V8's own engine can fall into (`*?*?*?…Z`).
import { parseJsRegex, WORD, type Ranges, type RegexNode } from "./js-regex.js";

export { UnsupportedRegexError } from "./js-regex.js";

/** The pattern would need more NFA states than this: refused as too complex. */
export class RegexTooComplexError extends Error {
  override readonly name = "RegexTooComplexError";
}

const CHAR = 0;
const SPLIT = 1;
const ASSERT = 2;
const MATCH = 3;

const P_START = 0;
const P_END = 1;
const P_WORD = 2;
const P_NOT_WORD = 3;
const P_LOOK = 4;

/** Longest lookaround evaluated where it is asked (longer or unbounded ones get a whole-input pass). */
const BOUNDED_LOOK = 8;
/** DFA states a runner caches before starting over (memory stays bounded whatever the input). */
const DFA_CACHE = 2000;
/** Predicates a DFA state may depend on for its transitions to be cached. */
const CACHED_PREDICATES = 20;

class Nfa {
  readonly kind: number[] = [];
  readonly ranges: Array<Ranges | null> = [];
  readonly next: number[] = [];
  readonly outs: Array<number[] | null> = [];
  readonly pred: number[] = [];
  start = -1;

  add(kind: number, ranges: Ranges | null, next: number, outs: number[] | null, pred: number): number {
    this.kind.push(kind);
    this.ranges.push(ranges);
    this.next.push(next);
    this.outs.push(outs);
    this.pred.push(pred);
    return this.kind.length - 1;
  }
}

interface Look {
  behind: boolean;
  negate: boolean;
  /** Evaluated where asked (an anchored forward run), or by one pass over the whole input. */
  bounded: boolean;
  runner: Runner;
}

function maxLength(node: RegexNode): number {
  switch (node.t) {
    case "set":
      return 1;
    case "seq":
      return node.items.reduce((sum, item) => sum + maxLength(item), 0);
    case "alt":
      return Math.max(...node.alts.map(maxLength));
    case "repeat": {
      const one = maxLength(node.node);
      return one === 0 ? 0 : node.max * one;
    }
    default:
      return 0;
  }
}

function contains(ranges: Ranges, c: number): boolean {
  for (let i = 0; i < ranges.length; i += 2) {
    if (c < ranges[i]!) return false;
    if (c <= ranges[i + 1]!) return true;
  }
  return false;
}

const isWordUnit = (s: string, i: number) => i >= 0 && i < s.length && contains(WORD, s.charCodeAt(i));

/** The input being matched, with each lookaround's answers for its positions (0 unknown, 1 true, 2 false). */
class Input {
  readonly n: number;
  readonly answers: Array<Int8Array | null>;
  constructor(
    readonly s: string,
    looks: number,
  ) {
    this.n = s.length;
    this.answers = new Array<Int8Array | null>(looks).fill(null);
  }
}

class Compiler {
  readonly looks: Look[] = [];
  private readonly lookIndex = new Map<string, number>();
  private states = 0;

  constructor(
    private readonly maxStates: number,
    /** Lookaround sources (as written, e.g. `(?!x)`) known to hold at every position of every input. */
    private readonly alwaysTrue: ReadonlySet<string>,
  ) {}

  nfa(node: RegexNode, reverse: boolean): Nfa {
    const nfa = new Nfa();
    const match = nfa.add(MATCH, null, -1, null, -1);
    nfa.start = this.build(nfa, node, match, reverse);
    return nfa;
  }

  private count(nfa: Nfa): void {
    if (++this.states > this.maxStates) {
      throw new RegexTooComplexError(`more than ${this.maxStates} automaton states`);
    }
    void nfa;
  }

  /** Builds `node` so that it continues to `next`; returns its entry state. */
  private build(nfa: Nfa, node: RegexNode, next: number, reverse: boolean): number {
    switch (node.t) {
      case "empty":
        return next;
      case "set":
        this.count(nfa);
        return nfa.add(CHAR, node.ranges, next, null, -1);
      case "seq": {
        let at = next;
        const items = reverse ? node.items : [...node.items].reverse();
        for (const item of items) at = this.build(nfa, item, at, reverse);
        return at;
      }
      case "alt": {
        this.count(nfa);
        const outs = node.alts.map((alt) => this.build(nfa, alt, next, reverse));
        return nfa.add(SPLIT, null, -1, outs, -1);
      }
      case "repeat": {
        let at: number;
        if (node.max === Infinity) {
          this.count(nfa);
          at = nfa.add(SPLIT, null, -1, [], -1);
          const body = this.build(nfa, node.node, at, reverse);
          nfa.outs[at]!.push(body, next);
        } else {
          at = next;
          for (let i = node.min; i < node.max; i++) {
            this.count(nfa);
            const body = this.build(nfa, node.node, at, reverse);
            at = nfa.add(SPLIT, null, -1, [body, next], -1);
          }
        }
        for (let i = 0; i < node.min; i++) at = this.build(nfa, node.node, at, reverse);
        return at;
      }
      case "assert": {
        this.count(nfa);
        const pred =
          node.kind === "start"
            ? P_START
            : node.kind === "end"
              ? P_END
              : node.kind === "wordBoundary"
                ? P_WORD
                : P_NOT_WORD;
        return nfa.add(ASSERT, null, next, null, pred);
      }
      case "look": {
        if (this.alwaysTrue.has(node.key)) return next;
        this.count(nfa);
        return nfa.add(ASSERT, null, next, null, P_LOOK + this.look(node));
      }
    }
  }

  /** Registers a lookaround once per distinct source (inner ones first, so they are answered first). */
  private look(node: Extract<RegexNode, { t: "look" }>): number {
    const key = `${node.behind ? "<" : ">"}${node.key}`;
    const known = this.lookIndex.get(key);
    if (known !== undefined) return known;
    const bounded = !node.behind && maxLength(node.node) <= BOUNDED_LOOK;
    // Bounded lookaheads run forwards from their position; others run over the whole input: lookaheads
    // backwards (reversed), lookbehinds forwards.
    const nfa = this.nfa(node.node, !node.behind && !bounded);
    const index = this.looks.length;
    this.looks.push({
      behind: node.behind,
      negate: node.negate,
      bounded,
      runner: new Runner(nfa, this.looks),
    });
    this.lookIndex.set(key, index);
    return index;
  }
}

interface DfaState {
  /** NFA states reached (before their closure), sorted. */
  kernel: number[];
  inject: boolean;
  /** Predicates that the closure of this state may consult (null: too many to cache on). */
  preds: number[] | null;
  steps: Map<number, Step>;
}

interface Step {
  accept: boolean;
  next: DfaState | null;
}

/** Runs one NFA over an Input, in either direction, with a bounded DFA cache. */
class Runner {
  private readonly mark: Int32Array;
  private stamp = 0;
  private dfa = new Map<string, DfaState>();

  constructor(
    private readonly nfa: Nfa,
    private readonly looks: Look[],
  ) {
    this.mark = new Int32Array(nfa.kind.length);
  }

  private state(kernel: number[], inject: boolean): DfaState {
    const key = `${inject ? "+" : ""}${kernel.join(",")}`;
    let d = this.dfa.get(key);
    if (d === undefined) {
      if (this.dfa.size >= DFA_CACHE) this.dfa = new Map();
      d = { kernel, inject, preds: this.reachablePredicates(kernel, inject), steps: new Map() };
      this.dfa.set(key, d);
    }
    return d;
  }

  private reachablePredicates(kernel: number[], inject: boolean): number[] | null {
    const { nfa } = this;
    const seen = new Set<number>();
    const preds = new Set<number>();
    const stack = inject ? [...kernel, nfa.start] : [...kernel];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      const kind = nfa.kind[s];
      if (kind === SPLIT) stack.push(...nfa.outs[s]!);
      else if (kind === ASSERT) {
        preds.add(nfa.pred[s]!);
        stack.push(nfa.next[s]!);
      }
    }
    return preds.size > CACHED_PREDICATES ? null : [...preds].sort((a, b) => a - b);
  }

  /** The predicate's value at position p of the input. */
  private holds(pred: number, input: Input, p: number): boolean {
    switch (pred) {
      case P_START:
        return p === 0;
      case P_END:
        return p === input.n;
      case P_WORD:
        return isWordUnit(input.s, p - 1) !== isWordUnit(input.s, p);
      case P_NOT_WORD:
        return isWordUnit(input.s, p - 1) === isWordUnit(input.s, p);
    }
    const k = pred - P_LOOK;
    const look = this.looks[k]!;
    let answers = input.answers[k];
    if (!answers) answers = input.answers[k] = new Int8Array(input.n + 1);
    if (answers[p] === 0) {
      if (look.bounded) {
        answers[p] = look.runner.matchesFrom(input, p) ? 1 : 2;
      } else {
        answers.fill(2);
        look.runner.sweep(input, !look.behind, (at) => {
          answers![at] = 1;
        });
      }
    }
    return (answers[p] === 1) !== look.negate;
  }

  /** One step: the closure of `d` at position p (accepting?), then the states after code unit c (c < 0: none). */
  private step(d: DfaState, input: Input, p: number, c: number): Step {
    let key = -1;
    if (d.preds !== null) {
      let ctx = 0;
      for (let i = 0; i < d.preds.length; i++) if (this.holds(d.preds[i]!, input, p)) ctx |= 1 << i;
      key = ctx * 65537 + (c + 1);
      const cached = d.steps.get(key);
      if (cached !== undefined) return cached;
    }
    const { nfa } = this;
    const stamp = ++this.stamp;
    const mark = this.mark;
    const stack = d.inject ? [...d.kernel, nfa.start] : [...d.kernel];
    const next: number[] = [];
    let accept = false;
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (mark[s] === stamp) continue;
      mark[s] = stamp;
      switch (nfa.kind[s]) {
        case CHAR:
          if (c >= 0 && contains(nfa.ranges[s]!, c)) next.push(nfa.next[s]!);
          break;
        case SPLIT: {
          const outs = nfa.outs[s]!;
          for (let i = outs.length - 1; i >= 0; i--) stack.push(outs[i]!);
          break;
        }
        case ASSERT:
          if (this.holds(nfa.pred[s]!, input, p)) stack.push(nfa.next[s]!);
          break;
        case MATCH:
          accept = true;
          break;
      }
    }
    let nextState: DfaState | null = null;
    if (c >= 0 && (next.length > 0 || d.inject)) {
      const kernel = [...new Set(next)].sort((a, b) => a - b);
      nextState = this.state(kernel, d.inject);
    }
    const result: Step = { accept, next: nextState };
    if (key >= 0) d.steps.set(key, result);
    return result;
  }

  /** True when the NFA matches input[p…j] for some j ≥ p (an anchored forward run). */
  matchesFrom(input: Input, p: number): boolean {
    let d: DfaState | null = this.state([this.nfa.start], false);
    for (let i = p; d !== null; i++) {
      const step = this.step(d, input, i, i < input.n ? input.s.charCodeAt(i) : -1);
      if (step.accept) return true;
      if (i >= input.n) return false;
      d = step.next;
    }
    return false;
  }

  /**
   * Runs with a new start at every position, forwards (input[k…i] matched: reports i) or backwards over a
   * reversed NFA (input[i…k] matched: reports i). Stops early when `onMatch` returns true.
   */
  sweep(input: Input, backwards: boolean, onMatch: (at: number) => boolean | void): void {
    let d: DfaState = this.state([], true);
    const { n, s } = input;
    for (let k = 0; k <= n; k++) {
      const p = backwards ? n - k : k;
      const c = k < n ? s.charCodeAt(backwards ? p - 1 : p) : -1;
      const step = this.step(d, input, p, c);
      if (step.accept && onMatch(p) === true) return;
      if (step.next === null) return;
      d = step.next;
    }
  }
}

export interface LinearRegex {
  /** Like RegExp#test on a flag-less regex of the same source: a match anywhere in `input`. */
  test(input: string): boolean;
}

/**
 * Compiles a flag-less JavaScript regex source for linear-time matching. Throws UnsupportedRegexError for
 * back-references, RegexTooComplexError past `maxStates`, and SyntaxError for what V8 would not compile.
 */
export function compileLinearRegex(
  source: string,
  maxStates = 50_000,
  alwaysTrue: ReadonlySet<string> = new Set(),
): LinearRegex {
  new RegExp(source); // V8's syntax check: only valid patterns reach the parser
  const compiler = new Compiler(maxStates, alwaysTrue);
  const tree = parseJsRegex(source);
  const nfa = compiler.nfa(tree, false);
  const looks = compiler.looks;
  const main = new Runner(nfa, looks);
  // picomatch's regexes begin with `^`: a match can only start at 0, so one anchored run answers.
  const anchored = startsAnchored(tree);
  return {
    test(s: string): boolean {
      const input = new Input(s, looks.length);
      if (anchored) return main.matchesFrom(input, 0);
      let found = false;
      main.sweep(input, false, () => (found = true));
      return found;
    },
  };
}

/** True when every match must begin with `^` (so only at position 0, without the `m` flag). */
function startsAnchored(node: RegexNode): boolean {
  switch (node.t) {
    case "assert":
      return node.kind === "start";
    case "seq":
      return node.items.length > 0 && startsAnchored(node.items[0]!);
    case "alt":
      return node.alts.every(startsAnchored);
    default:
      return false;
  }
}
