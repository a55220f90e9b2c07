// The extension pages' pure parts (extension/ui/): the approval countdown, arguments as text, the hub URL
// setting, which site decisions the popup offers, what it says about the active tab, and how it narrows the
// service worker's answers so that a missing or malformed one shows one plain message, never a broken page.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApprovalState, ExtensionState, TabState } from "../../extension/messages.js";
import {
  channelLabel,
  formatCountdown,
  isWebUrl,
  parseHubUrl,
  prettyArguments,
  sharingText,
} from "../../extension/ui/format.js";
import {
  NOT_RESPONDING,
  asUiResponse,
  isApprovalState,
  isExtensionState,
  isStateChanged,
} from "../../extension/ui/responses.js";
import { currentSite, siteActions } from "../../extension/ui/site.js";

const tab = (over: Partial<TabState> = {}): TabState => ({
  tabId: 7,
  origin: "https://shop.example",
  title: "Shop",
  toolCount: 2,
  tools: ["search", "buy"],
  sharing: "ask",
  decision: null,
  connection: null,
  incognito: false,
  ...over,
});

const approval = (over: Partial<ApprovalState> = {}): ApprovalState => ({
  id: "a1",
  channelId: "ch_1",
  channelName: "Home",
  agent: "laptop agent",
  client: "claude-code",
  tabId: 7,
  origin: "https://shop.example",
  tool: "buy",
  title: "Buy a product",
  arguments: { product_id: "42" },
  deadline: 1_000_000,
  ...over,
});

const state = (over: Partial<ExtensionState> = {}): ExtensionState => ({
  hubUrl: "http://localhost:8787",
  defaultHubUrl: "http://localhost:8787",
  pairing: null,
  problem: "",
  incognito: false,
  sites: [],
  tabs: [],
  current: null,
  approvals: [],
  ...over,
});

describe("formatCountdown", () => {
  it("shows minutes and seconds left, rounding up, and 0:00 once the deadline has passed", () => {
    expect(formatCountdown(65_000)).toBe("1:05");
    expect(formatCountdown(999)).toBe("0:01");
    expect(formatCountdown(0)).toBe("0:00");
    expect(formatCountdown(-5_000)).toBe("0:00");
    expect(formatCountdown(Number.NaN)).toBe("0:00");
    expect(formatCountdown(3_723_000)).toBe("1:02:03");
  });

  it("always reads back as the whole seconds left", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 100 * 3600 * 1000 }), (ms) => {
        const parts = formatCountdown(ms).split(":").map(Number);
        const seconds = parts.reduce((total, part) => total * 60 + part, 0);
        expect(seconds).toBe(Math.ceil(ms / 1000));
      }),
    );
  });
});

describe("prettyArguments", () => {
  it("is indented JSON that reads back as the same arguments", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (args) => {
        const text = prettyArguments(args, Number.POSITIVE_INFINITY);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(args)));
      }),
    );
    expect(prettyArguments({ a: { b: [1] } })).toBe('{\n  "a": {\n    "b": [\n      1\n    ]\n  }\n}');
  });

  it("cuts huge arguments, saying how much it left out", () => {
    const text = prettyArguments({ blob: "x".repeat(200) }, 50);
    expect(text.startsWith('{\n  "blob": "xxx')).toBe(true);
    expect(text).toMatch(/\n… \(\d+ more characters not shown\)$/);
    const shown = text.split("\n…")[0]!;
    expect(shown).toHaveLength(50);
  });

  it("never throws, even for values JSON cannot hold", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(prettyArguments(cyclic)).toBe("[object Object]");
    expect(prettyArguments({ n: 1n })).toBe("[object Object]");
  });
});

describe("parseHubUrl", () => {
  it("keeps the origin of an http(s) URL", () => {
    expect(parseHubUrl("https://hub.example/channels?x=1")).toEqual({
      ok: true,
      origin: "https://hub.example",
    });
    expect(parseHubUrl("  http://127.0.0.1:8787/ ")).toEqual({ ok: true, origin: "http://127.0.0.1:8787" });
  });

  it("says what is wrong with anything else", () => {
    expect(parseHubUrl("")).toMatchObject({
      ok: false,
      error: expect.stringContaining("Type the hub's URL"),
    });
    expect(parseHubUrl("hub.example")).toMatchObject({
      ok: false,
      error: expect.stringContaining("not a URL"),
    });
    for (const url of ["ftp://hub.example", "javascript:alert(1)", "chrome://extensions"])
      expect(parseHubUrl(url)).toMatchObject({ ok: false, error: expect.stringContaining("https://") });
  });
});

describe("the popup's site section", () => {
  it("offers once / always / never before a decision, and a way back after one", () => {
    const labels = (t: TabState) => siteActions(t).map((a) => `${a.label}→${a.decision}`);
    expect(labels(tab())).toEqual(["Allow once→once", "Always allow→always", "Never→never"]);
    expect(labels(tab({ sharing: "shared", decision: "once" }))).toEqual([
      "Always allow→always",
      "Stop sharing→ask",
    ]);
    expect(labels(tab({ sharing: "shared", decision: "always" }))).toEqual([
      "Stop sharing→ask",
      "Never→never",
    ]);
    expect(labels(tab({ sharing: "never", decision: "never" }))).toEqual([
      "Ask again→ask",
      "Always allow→always",
    ]);
    expect(labels(tab({ sharing: "incognito", incognito: true }))).toEqual([]);
  });

  it("uses the service worker's view of the active tab when it has one", () => {
    const known = tab({ sharing: "shared", decision: "always", connection: "connected" });
    const active = { id: 7, url: "https://shop.example/cart", incognito: false };
    expect(currentSite(active, state({ current: known }))).toEqual({ kind: "web", tab: known });
  });

  it("describes a tab that registered nothing from chrome.tabs and the site list", () => {
    const active = { id: 9, url: "https://news.example/a?b", title: "News", incognito: false };
    const site = currentSite(
      active,
      state({ sites: [{ origin: "https://news.example", decision: "never" }] }),
    );
    expect(site).toEqual({
      kind: "web",
      tab: {
        tabId: 9,
        origin: "https://news.example",
        title: "News",
        toolCount: 0,
        tools: [],
        sharing: "never",
        decision: "never",
        connection: null,
        incognito: false,
      },
    });
    const other = currentSite({ ...active, incognito: true }, state({ current: tab({ tabId: 3 }) }));
    expect(other).toMatchObject({ kind: "web", tab: { tabId: 9, sharing: "incognito", decision: null } });
  });

  it("says the extension works only on web pages for any other tab", () => {
    for (const url of [
      "chrome://extensions/",
      "chrome-extension://abc/popup.html",
      "file:///x",
      "about:blank",
    ])
      expect(currentSite({ id: 1, url, incognito: false }, state())).toEqual({ kind: "not-web", url });
    expect(currentSite({ id: 1, incognito: false }, state())).toEqual({ kind: "not-web", url: "" });
    expect(currentSite(null, state())).toEqual({ kind: "none" });
    expect(isWebUrl("http://127.0.0.1:1/")).toBe(true);
  });

  it("does not claim a shared tab reaches the channel while the browser is not paired", () => {
    const shared = tab({ sharing: "shared", decision: "always", connection: null });
    expect(sharingText(shared, false)).toMatch(/not relayed: this browser is not paired/);
    expect(sharingText({ ...shared, connection: "connected" }, true)).toBe(
      "Shared with the channel (connected).",
    );
  });

  it("names a channel by its name, else its id", () => {
    expect(channelLabel({ channelId: "ch_1", channelName: "Home" })).toBe("Home");
    expect(channelLabel({ channelId: "ch_1", channelName: null })).toBe("ch_1");
    expect(channelLabel({ channelId: "ch_1", channelName: "  " })).toBe("ch_1");
  });
});

describe("the service worker's answers", () => {
  it("accepts a whole ExtensionState and nothing less", () => {
    const full = state({
      pairing: { hubOrigin: "http://localhost:8787", channelId: "ch_1", channelName: null, pairedAt: 1 },
      sites: [{ origin: "https://shop.example", decision: "always" }],
      tabs: [tab({ sharing: "shared" })],
      current: tab(),
      approvals: [approval()],
    });
    expect(isExtensionState(full)).toBe(true);
    expect(isExtensionState(state())).toBe(true);
    expect(isExtensionState(undefined)).toBe(false);
    expect(isExtensionState({ ok: false, error: "nope" })).toBe(false);
    const { approvals: _, ...noApprovals } = full;
    expect(isExtensionState(noApprovals)).toBe(false);
    expect(isExtensionState({ ...full, tabs: [{ tabId: "7" }] })).toBe(false);
    expect(isExtensionState({ ...full, approvals: [{ ...approval(), deadline: "soon" }] })).toBe(false);
  });

  it("tells an approval from anything else", () => {
    expect(isApprovalState(approval())).toBe(true);
    expect(isApprovalState(approval({ client: null, title: null }))).toBe(true);
    expect(isApprovalState(null)).toBe(false);
    expect(isApprovalState({ ...approval(), arguments: [] })).toBe(false);
  });

  it("turns no answer or a malformed one into one message saying the background is not responding", () => {
    expect(asUiResponse(undefined)).toEqual({ ok: false, error: NOT_RESPONDING });
    expect(asUiResponse({ ok: "yes" })).toEqual({ ok: false, error: NOT_RESPONDING });
    expect(asUiResponse({ ok: false, error: "That code has expired." })).toEqual({
      ok: false,
      error: "That code has expired.",
    });
    expect(asUiResponse({ ok: false })).toEqual({ ok: false, error: "That did not work." });
    expect(asUiResponse({ ok: true, channelId: "ch_1" })).toEqual({ ok: true, channelId: "ch_1" });
    expect(asUiResponse({ ok: true, channelId: 5 })).toEqual({ ok: true });
  });

  it("recognises only the STATE_CHANGED broadcast", () => {
    expect(isStateChanged({ type: "ui:changed" })).toBe(true);
    expect(isStateChanged({ type: "tools", tools: [] })).toBe(false);
    expect(isStateChanged("ui:changed")).toBe(false);
  });
});
