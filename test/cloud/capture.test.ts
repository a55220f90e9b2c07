// The runner captures what a page registers, every way a site can register a tool, and calls it: a real
// Chromium (the system's, through miniflare's local Browser Rendering) on a real local site.
import { describe, expect, it } from "vitest";
import { inspect, run } from "./helpers.js";
import { ADD_TOOL, SUM_SCHEMA } from "./tools.js";

const SITE = "capture.test";
const SUM = { content: [{ type: "text", text: "5" }], structuredContent: { sum: 5 } };

describe("the runner calls a page's tool", () => {
  it("registered with the seed-era navigator.modelContext.registerTool", async () => {
    const res = await run(SITE, "/seed.html");
    expect(res).toMatchObject({ ok: true, result: SUM, warm: false });
    expect(res.browserMs).toBeGreaterThan(0);
  });

  it("registered with the seed-era navigator.modelContext.provideContext", async () => {
    expect(await run(SITE, "/provide.html")).toMatchObject({ ok: true, result: SUM });
  });

  it("registered with document.modelContext.registerTool", async () => {
    expect(await run(SITE, "/document.html")).toMatchObject({ ok: true, result: SUM });
  });

  it("registered with an outputSchema (which native getTools() leaves out): checked against the published one", async () => {
    const published = { ...ADD_TOOL, outputSchema: SUM_SCHEMA };
    expect(await run(SITE, "/output.html", { definition: published })).toMatchObject({
      ok: true,
      result: SUM,
    });
    expect(await run(SITE, "/output.html", { definition: ADD_TOOL })).toMatchObject({
      ok: false,
      failure: "changed",
    });
  });

  it("registered a moment after the page loaded", async () => {
    expect(await run(SITE, "/late.html")).toMatchObject({ ok: true, result: SUM });
  });

  it("on the browser's native document.modelContext (--enable-blink-features=WebMCP), which the capture wraps", async () => {
    const res = await run(SITE, "/native.html", { arguments: {} });
    expect(res).toMatchObject({
      ok: true,
      result: { structuredContent: { native: true, getTools: "function" } },
    });
  });

  it("declared by a form (toolname, toolautosubmit, respondWith)", async () => {
    const res = await run(SITE, "/form.html", {
      definition: {
        name: "search-books",
        description: "Searches the catalogue by title.",
        inputSchema: {
          type: "object",
          properties: { q: { type: "string", description: "Words of the title" } },
          required: ["q"],
        },
      },
      arguments: { q: "dune" },
    });
    expect(res).toMatchObject({
      ok: true,
      result: { content: [{ type: "text", text: "Found 1 book for dune." }] },
    });
  });

  it("that throws: the tool's own isError result (native WebMCP does not pass the error's message on)", async () => {
    const res = await run(SITE, "/tool-throws.html", { arguments: {} });
    expect(res).toMatchObject({ ok: true, result: { isError: true, content: [{ type: "text" }] } });
    expect(JSON.stringify(res)).toMatch(/the invocation failed/);
  });

  it("on a warm page the next time: the same page serves the next call of that page URL", async () => {
    const first = await run("warm.test", "/count.html", { arguments: {} });
    const second = await run("warm.test", "/count.html", { arguments: {} });
    expect(first).toMatchObject({ ok: true, warm: false, result: { structuredContent: { calls: 1 } } });
    expect(second).toMatchObject({ ok: true, warm: true, result: { structuredContent: { calls: 2 } } });
    expect(await inspect("warm.test")).toMatchObject({ pages: 1, warm: 1, busy: 0, running: 0, queued: 0 });
  });

  it("on a warm page that registered the tool again since: checked again, then called", async () => {
    const first = await run("again.test", "/again.html", { arguments: {} });
    const second = await run("again.test", "/again.html", { arguments: {} });
    expect(first).toMatchObject({ ok: true, warm: false, result: { structuredContent: { calls: 1 } } });
    expect(second).toMatchObject({ ok: true, warm: true, result: { structuredContent: { calls: 2 } } });
  });

  it("on a warm page that registered the tool again with another definition: changed, not called", async () => {
    const first = await run("again-changed.test", "/again-changed.html", { arguments: {} });
    const second = await run("again-changed.test", "/again-changed.html", { arguments: {} });
    expect(first).toMatchObject({ ok: true, warm: false, result: { structuredContent: { calls: 1 } } });
    expect(second).toMatchObject({ ok: false, failure: "changed" });
    // The page that changed was closed; the next run opens a new one, whose first call is checked and runs.
    expect(await inspect("again-changed.test")).toMatchObject({ pages: 0, busy: 0 });
    const third = await run("again-changed.test", "/again-changed.html", { arguments: {} });
    expect(third).toMatchObject({ ok: true, warm: false, result: { structuredContent: { calls: 1 } } });
  });
});
