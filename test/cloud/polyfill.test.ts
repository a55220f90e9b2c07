// The same pages in a browser without native WebMCP (as Cloudflare's deployed browser may be): the capture's
// own registry (src/bridge's polyfill) is document.modelContext and serves every way of registering.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run, setNativeWebMcp } from "./helpers.js";
import { ADD_TOOL, SUM_SCHEMA } from "./tools.js";

// Its own site, so its browser is launched while the flag is off.
const SITE = "polyfill.test";
const SUM = { content: [{ type: "text", text: "5" }], structuredContent: { sum: 5 } };

describe("without native WebMCP, the runner calls a page's tool", () => {
  beforeAll(async () => {
    await setNativeWebMcp(false);
    // The first run launches the site's browser, with the flags of that moment.
    expect(await run(SITE, "/native.html", { arguments: {} })).toMatchObject({
      ok: true,
      result: { structuredContent: { native: false, getTools: "function" } },
    });
    await setNativeWebMcp(true);
  });
  afterAll(() => setNativeWebMcp(true));

  it("registered with the seed-era navigator.modelContext", async () => {
    expect(await run(SITE, "/seed.html")).toMatchObject({ ok: true, result: SUM });
    expect(await run(SITE, "/provide.html")).toMatchObject({ ok: true, result: SUM });
  });

  it("registered with document.modelContext", async () => {
    expect(await run(SITE, "/document.html")).toMatchObject({ ok: true, result: SUM });
    const published = { ...ADD_TOOL, outputSchema: SUM_SCHEMA };
    expect(await run(SITE, "/output.html", { definition: published })).toMatchObject({
      ok: true,
      result: SUM,
    });
  });

  it("that throws: the tool's own isError result, with the error's message", async () => {
    const res = await run(SITE, "/tool-throws.html", { arguments: {} });
    expect(res).toMatchObject({
      ok: true,
      result: { isError: true, content: [{ type: "text", text: "out of stock" }] },
    });
  });

  it("declared by a form", async () => {
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
});
