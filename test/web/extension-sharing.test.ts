// The extension's pure parts: which tabs are shared (sharing.ts) and what the service worker keeps of each tab
// (tab-tools.ts: only the top frame's current document speaks, withdrawn on close, navigation or a closed port).
import { describe, expect, test } from "vitest";
import { decisionOf, sharingOf, type SharingRules } from "../../extension/background/sharing.js";
import { TabToolStore, type TabChange } from "../../extension/background/tab-tools.js";

const A = "https://a.example";
const B = "https://b.example";
const rules = (r: Partial<SharingRules> = {}): SharingRules => ({
  sites: {},
  once: new Map(),
  incognito: false,
  ...r,
});

describe("sharing", () => {
  test("nothing is shared until the user allows the site", () => {
    expect(sharingOf(rules(), A, 1, false)).toBe("ask");
    expect(decisionOf(rules(), A, 1)).toBeNull();
  });

  test("always shares every tab of the site, never shares none", () => {
    const r = rules({ sites: { [A]: "always", [B]: "never" } });
    expect(sharingOf(r, A, 1, false)).toBe("shared");
    expect(sharingOf(r, A, 2, false)).toBe("shared");
    expect(sharingOf(r, B, 3, false)).toBe("never");
    expect(decisionOf(r, B, 3)).toBe("never");
  });

  test("once shares that tab while it shows that site, and no other tab", () => {
    const r = rules({ once: new Map([[1, A]]) });
    expect(sharingOf(r, A, 1, false)).toBe("shared");
    expect(decisionOf(r, A, 1)).toBe("once");
    expect(sharingOf(r, A, 2, false)).toBe("ask");
    expect(sharingOf(r, B, 1, false)).toBe("ask"); // the tab moved to another site
  });

  test("never wins over once", () => {
    expect(sharingOf(rules({ sites: { [A]: "never" }, once: new Map([[1, A]]) }), A, 1, false)).toBe("never");
  });

  test("incognito tabs are off unless the user turns them on, whatever the site's decision", () => {
    const always = { sites: { [A]: "always" as const } };
    expect(sharingOf(rules(always), A, 1, true)).toBe("incognito");
    expect(sharingOf(rules({ ...always, incognito: true }), A, 1, true)).toBe("shared");
    expect(sharingOf(rules({ incognito: true }), A, 1, true)).toBe("ask");
  });
});

const tools = (...names: string[]) => ({
  type: "tools",
  tools: names.map((name) => ({ name, description: name, inputSchema: { type: "object" } })),
});
const top = (tabId: number, origin = A, documentId?: string) => ({
  tab: { id: tabId },
  frameId: 0,
  origin,
  url: `${origin}/page`,
  ...(documentId ? { documentId } : {}),
});

describe("the tab store", () => {
  test("a top frame's list is kept under the origin the browser reported; frames and tabless senders are not", () => {
    const changes: TabChange[] = [];
    const store = new TabToolStore((c) => changes.push(c));
    expect(store.receive(tools("x"), top(1))).toBe(true);
    expect(store.receive(tools("y"), { ...top(2), frameId: 3 })).toBe(false);
    expect(store.receive(tools("z"), { frameId: 0, origin: A })).toBe(false);
    expect(store.receive(tools("w"), { tab: { id: 4 }, frameId: 0, origin: "null" })).toBe(false);
    expect(store.list()).toEqual([
      {
        tabId: 1,
        origin: A,
        tools: [expect.objectContaining({ name: "x" })],
        revision: 1,
        url: `${A}/page`,
        incognito: false,
      },
    ]);
    expect(changes.map((c) => c.tabId)).toEqual([1]);
  });

  test("malformed tools are dropped, the rest kept", () => {
    const store = new TabToolStore();
    store.receive(
      { type: "tools", tools: [{ name: 1 }, { name: "ok", description: "d", inputSchema: {} }, null] },
      top(1),
    );
    expect(store.get(1)?.tools.map((t) => t.name)).toEqual(["ok"]);
  });

  test("a frame tool keeps its frameOrigin when it is an http(s) origin; anything else is dropped, the tool kept", () => {
    const store = new TabToolStore();
    const tool = (name: string, frameOrigin: unknown) => ({
      name,
      description: "d",
      inputSchema: {},
      frameOrigin,
    });
    store.receive(
      {
        type: "tools",
        tools: [
          tool("framed", "http://localhost:8080"),
          tool("path", "http://localhost:8080/x"),
          tool("scheme", "javascript:alert(1)"),
          tool("number", 3),
        ],
      },
      top(1),
    );
    expect(store.get(1)?.tools.map((t) => [t.name, t.frameOrigin])).toEqual([
      ["framed", "http://localhost:8080"],
      ["path", undefined],
      ["scheme", undefined],
      ["number", undefined],
    ]);
    expect(store.get(1)?.origin).toBe(A); // the tab's label stays the origin the browser reported
  });

  test("a closed port withdraws the tab only if it is still the tab's line", () => {
    const store = new TabToolStore();
    const first = { postMessage() {} };
    const second = { postMessage() {} };
    store.receive(tools("x"), top(1), first);
    store.receive(tools("x"), top(1), second); // the page reloaded: a new port
    store.lineClosed(1, first);
    expect(store.get(1)).toBeDefined();
    store.lineClosed(1, second);
    expect(store.get(1)).toBeUndefined();
  });

  test("after a navigation only the newly committed document speaks for the tab", () => {
    const store = new TabToolStore();
    store.receive(tools("old"), top(1, A, "doc-1"));
    store.navigated(1, "doc-2");
    expect(store.get(1)).toBeUndefined();
    expect(store.receive(tools("late"), top(1, A, "doc-1"))).toBe(false);
    expect(store.receive(tools("new"), top(1, B, "doc-2"))).toBe(true);
    expect(store.get(1)).toMatchObject({ origin: B, revision: 1 });
  });

  test("closing a tab withdraws it and forgets its document", () => {
    const changes: TabChange[] = [];
    const store = new TabToolStore((c) => changes.push(c));
    store.receive(tools("x"), top(1, A, "doc-1"));
    store.removeTab(1);
    expect(changes.at(-1)).toEqual({ tabId: 1, tab: undefined });
    expect(store.receive(tools("x"), top(1, A, "doc-9"))).toBe(true);
  });
});
