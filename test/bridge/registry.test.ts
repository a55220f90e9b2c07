// The bridge's one tool registry (src/bridge/registry.ts) on its own, in Node (EventTarget, DOMException and
// queueMicrotask are globals there): names are unique across every source, clear() can take one source only,
// and the change event is batched to one per microtask, so a page registering many tools at once causes one
// tools frame on the relay, not one per tool.
import { describe, expect, it } from "vitest";
import {
  CHANGE_EVENT,
  registry,
  ToolRegistry,
  type RegisteredTool,
  type ToolSource,
} from "../../src/bridge/registry.js";

const tool = (name: string, source: ToolSource = "current"): RegisteredTool => ({
  name,
  description: `${name} does a thing`,
  inputSchema: { type: "object" },
  annotations: {},
  execute: () => name,
  source,
});

/** Counts the registry's change events. */
function changes(r: ToolRegistry) {
  const seen = { count: 0 };
  r.addEventListener(CHANGE_EVENT, () => seen.count++);
  return seen;
}

/** Lets every queued microtask run (a resolved promise's reaction is queued after the registry's). */
const microtasksRun = () => Promise.resolve();

describe("ToolRegistry", () => {
  it("adds, gets, lists in insertion order and removes tools", () => {
    const r = new ToolRegistry();
    const a = tool("a");
    r.add(a);
    r.add(tool("b", "seed"));
    expect(r.get("a")).toBe(a);
    expect(r.get("nope")).toBeUndefined();
    expect(r.list().map((t) => t.name)).toEqual(["a", "b"]);
    expect(r.remove("a")).toBe(true);
    expect(r.remove("a")).toBe(false);
    expect(r.list().map((t) => t.name)).toEqual(["b"]);
  });

  it("a taken name throws InvalidStateError whatever the source, and keeps the first tool", () => {
    const r = new ToolRegistry();
    const first = tool("dup", "current");
    r.add(first);
    for (const source of ["current", "seed", "declarative", "native"] as const) {
      let thrown: unknown;
      try {
        r.add(tool("dup", source));
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(DOMException);
      expect(thrown).toMatchObject({
        name: "InvalidStateError",
        message: 'A tool named "dup" is already registered.',
      });
    }
    expect(r.get("dup")).toBe(first);
    expect(r.list()).toHaveLength(1);
  });

  it("clear() removes every tool, or only the tools of one source", () => {
    const r = new ToolRegistry();
    r.add(tool("c1", "current"));
    r.add(tool("s1", "seed"));
    r.add(tool("s2", "seed"));
    r.add(tool("d1", "declarative"));
    r.add(tool("n1", "native"));
    r.clear("seed");
    expect(r.list().map((t) => t.name)).toEqual(["c1", "d1", "n1"]);
    r.clear("native");
    expect(r.list().map((t) => `${t.name} ${t.source}`)).toEqual(["c1 current", "d1 declarative"]);
    r.clear();
    expect(r.list()).toEqual([]);
  });

  it("changes in one microtask fire one change event, after that microtask, not during it", async () => {
    const r = new ToolRegistry();
    const seen = changes(r);
    r.add(tool("a"));
    r.add(tool("b"));
    r.remove("a");
    r.clear("seed");
    expect(seen.count).toBe(0);
    await microtasksRun();
    expect(seen.count).toBe(1);
    r.add(tool("c"));
    await microtasksRun();
    r.remove("c");
    await microtasksRun();
    expect(seen.count).toBe(3);
  });

  it("what changes nothing fires nothing: removing an unknown name, clearing an absent source, a refused duplicate", async () => {
    const r = new ToolRegistry();
    r.add(tool("a", "current"));
    await microtasksRun();
    const seen = changes(r);
    r.remove("nope");
    r.clear("declarative");
    expect(() => r.add(tool("a", "seed"))).toThrow(DOMException);
    await microtasksRun();
    expect(seen.count).toBe(0);
    new ToolRegistry().clear();
    r.clear();
    await microtasksRun();
    expect(seen.count).toBe(1);
  });

  it("a listener sees the registry as it is after the whole batch", async () => {
    const r = new ToolRegistry();
    const snapshots: string[][] = [];
    r.addEventListener(CHANGE_EVENT, () => snapshots.push(r.list().map((t) => t.name)));
    r.add(tool("a"));
    r.add(tool("b"));
    r.remove("a");
    await microtasksRun();
    expect(snapshots).toEqual([["b"]]);
  });

  it("the page's one registry is a ToolRegistry", () => {
    expect(registry).toBeInstanceOf(ToolRegistry);
    expect(registry).toBeInstanceOf(EventTarget);
    expect(CHANGE_EVENT).toBe("change");
  });
});
