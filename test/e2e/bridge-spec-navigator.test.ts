// The seed-era navigator.modelContext of /bridge.js in a real Chromium (provideContext, clearContext,
// registerTool, unregisterTool), on the same registry as document.modelContext. Setup: bridge-spec-helpers.ts.
import { describe, expect, it } from "vitest";
import { useBridgeSpec, open, type Doc, type Nav, type Win, type SpecTool } from "./bridge-spec-helpers.js";

useBridgeSpec();

describe("navigator.modelContext, the seed-era API, on the same registry", () => {
  it("registerTool throws at once on a taken name or an invalid inputSchema; its tools show in getTools, fire toolchange and unregister by name", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const w = window as unknown as Win;
      let changes = 0;
      mc.addEventListener("toolchange", () => changes++);
      const thrown = (f: () => void) => {
        try {
          f();
          return "no error";
        } catch (e) {
          return `${(e as Error).name}: ${(e as Error).message}`;
        }
      };
      const tool = (name: string, extra: Partial<SpecTool> = {}): SpecTool => ({
        name,
        description: "Add a new stamp to the collection",
        inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        execute: ({ name }) => `Stamp "${String(name)}" added!`,
        ...extra,
      });
      const sameObject = (navigator as unknown as Nav).modelContext === seed;
      const first = thrown(() => seed.registerTool(tool("add-stamp")));
      await mc.registerTool(tool("current-one"));
      const results = {
        sameObject,
        first,
        taken: thrown(() => seed.registerTool(tool("add-stamp"))),
        takenByTheOtherGeneration: thrown(() => seed.registerTool(tool("current-one"))),
        badSchema: thrown(() =>
          seed.registerTool(tool("bad", { inputSchema: { type: "object", required: [1] } })),
        ),
        badName: thrown(() => seed.registerTool(tool("add stamp"))),
        listed: (await mc.getTools()).map((t) => t.name),
        changes,
      };
      const [stamp] = (await mc.getTools()).filter((t) => t.name === "add-stamp");
      const called = await mc.executeTool(stamp!, { name: "Penny Black" });
      const unregistered = w.nextEvent(mc, "toolchange");
      seed.unregisterTool("add-stamp");
      seed.unregisterTool("current-one"); // Not this API's tool: left alone.
      seed.unregisterTool("never-registered");
      await unregistered;
      return {
        ...results,
        called,
        afterUnregister: (await mc.getTools()).map((t) => t.name),
        changesAfter: changes,
      };
    });
    expect(seen).toEqual({
      sameObject: true,
      first: "no error",
      taken: 'InvalidStateError: A tool named "add-stamp" is already registered.',
      takenByTheOtherGeneration: 'InvalidStateError: A tool named "current-one" is already registered.',
      badSchema: "TypeError: inputSchema/required must be an array of distinct property names",
      badName:
        'InvalidStateError: "add stamp" is not a tool name: use 1 to 128 letters, digits, "_", "-" or ".".',
      listed: ["add-stamp", "current-one"],
      changes: 1, // Both registrations came in one microtask: the registry batches its change events.
      called: 'Stamp "Penny Black" added!',
      afterUnregister: ["current-one"],
      changesAfter: 2,
    });
  });

  it("provideContext replaces the tools it gave before and clearContext removes them, leaving document.modelContext's tools alone", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const names = async () => (await mc.getTools()).map((t) => t.name);
      const tool = (name: string, description = "d"): SpecTool => ({
        name,
        description,
        execute: () => name,
      });
      await mc.registerTool(tool("current-one"));
      seed.registerTool(tool("edit-design"));
      seed.provideContext({ tools: [tool("filter-templates"), tool("greet")] });
      const afterProvide = await names();
      seed.provideContext({ tools: [tool("greet", "first"), tool("greet", "last one wins")] });
      const afterSecond = await mc.getTools();
      seed.clearContext();
      const afterClear = await names();
      seed.provideContext({ tools: [tool("a")] });
      seed.provideContext();
      return {
        afterProvide,
        afterSecond: afterSecond.map((t) => `${t.name}: ${t.description}`),
        afterClear,
        afterEmptyProvide: await names(),
      };
    });
    expect(seen).toEqual({
      afterProvide: ["current-one", "filter-templates", "greet"],
      afterSecond: ["current-one: d", "greet: last one wins"],
      afterClear: ["current-one"],
      afterEmptyProvide: ["current-one"],
    });
  });

  it("provideContext with one bad tool throws and keeps the previous context as it was", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const tool = (name: string, inputSchema?: unknown): SpecTool => ({
        name,
        description: "d",
        inputSchema,
        execute: () => name,
      });
      seed.provideContext({ tools: [tool("old-1"), tool("old-2")] });
      let error = "";
      try {
        seed.provideContext({ tools: [tool("new-1"), tool("new-2", { type: "string" })] });
      } catch (e) {
        error = (e as Error).name;
      }
      const [old1] = await mc.getTools();
      return {
        error,
        names: (await mc.getTools()).map((t) => t.name),
        stillRuns: await mc.executeTool(old1!),
      };
    });
    expect(seen).toEqual({ error: "TypeError", names: ["old-1", "old-2"], stillRuns: "old-1" });
  });

  it("a seed-era execute gets one client: requestUserInteraction shows the page's own UI, signal tells of a cancel", async () => {
    const page = await open();
    const seen = await page.evaluate(async () => {
      const seed = (navigator as unknown as Nav).modelContext;
      const { modelContext: mc } = document as unknown as Doc;
      const purchases: string[] = [];
      seed.registerTool({
        name: "buyProduct",
        description: "Use this tool to purchase a product given its unique product_id.",
        inputSchema: {
          type: "object",
          properties: { product_id: { type: "string" } },
          required: ["product_id"],
        },
        async execute({ product_id }, agent) {
          const confirmed = await agent.requestUserInteraction(async () => !agent.signal.aborted);
          if (!confirmed) throw new Error("Purchase cancelled by user.");
          purchases.push(String(product_id));
          return `Product ${String(product_id)} purchased.`;
        },
      });
      const [tool] = await mc.getTools();
      return { result: await mc.executeTool(tool!, { product_id: "p-42" }), purchases };
    });
    expect(seen).toEqual({ result: "Product p-42 purchased.", purchases: ["p-42"] });
  });
});
