// document.modelContext across a tab's frames, in a real Chromium with the built /bridge.js in every document:
// a top page on http://127.0.0.1:PORT with iframes of the same origin and of another
// (http://localhost:PORT; both loopback, both secure contexts), served by a Node server of this file.
// What native Chromium 156 does with WebMCP on (notes: probe-native) is the reference: getTools() lists this
// origin's tools from every document, fromOrigins adds other origins' tools exposed to this one, executeTool
// runs a tool in its own document, toolchange fires where the visible set changes, and a cross-origin iframe
// without allow="tools" takes no part. Plus what the bridge adds: DataError before execute, and the relay
// offering the frames' tools with their frame's origin.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Frame, Page } from "playwright-core";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { hubUrl, newPage, useBridgeSpec, type Doc, type SpecTool } from "./bridge-spec-helpers.js";
import { createChannel } from "./hub-api.js";

useBridgeSpec();

/** What every document of these tests has before the bridge: a log of the WebMCP events it saw. */
const HEAD = `<script>
  window.seen = [];
  window.outcome = async (p) => {
    try { return { ok: true, value: await p }; }
    catch (e) { return typeof e === "object" && e ? { ok: false, name: e.name, message: e.message } : { ok: false, reason: e }; }
  };
  window.nextEvent = (target, type) => new Promise((r) => target.addEventListener(type, r, { once: true }));
  for (const type of ["toolactivated", "toolcancel"]) addEventListener(type, (e) => seen.push("window " + type + " " + e.toolName));
</script>`;
const AFTER = `<script>
  for (const type of ["toolchange", "toolactivated", "toolcancel"])
    document.modelContext.addEventListener(type, (e) => seen.push(type + (e.toolName ? " " + e.toolName : "")));
</script>`;

interface FrameWin extends Window {
  seen: string[];
  outcome(
    p: unknown,
  ): Promise<{ ok: boolean; value?: unknown; name?: string; message?: string; reason?: unknown }>;
  nextEvent(target: EventTarget, type: string): Promise<Event>;
  runs?: number;
  aborted?: string;
}
type ToolView = { name: string; origin: string; window: Window; inputSchema?: unknown };

// The pages come from a real server (Chromium's local network access checks refuse a page fulfilled by the
// test a WebSocket to the hub); /bridge.js from the hub, so the top page relays to it.
let server: Server;
let SELF = "";
let OTHER = "";
beforeAll(async () => {
  server = createServer((req, res) => {
    const script = req.url?.includes("plain") ? "" : `<script src="${hubUrl}/bridge.js"></script>${AFTER}`;
    res.setHeader("content-type", "text/html");
    res.end(`<!doctype html><meta charset="utf-8"><title>frames</title>${HEAD}${script}<body></body>`);
  });
  await new Promise<void>((r) => server.listen(0, r)); // every interface: 127.0.0.1 and localhost
  const { port } = server.address() as AddressInfo;
  SELF = `http://127.0.0.1:${port}`;
  OTHER = `http://localhost:${port}`;
});
// The browser (closed after this) keeps connections alive: end them, or close() waits for their timeout.
afterAll(() => new Promise((r) => (server.close(r), server.closeAllConnections())));

const errors: string[] = [];
afterEach(() => {
  expect(errors.splice(0)).toEqual([]);
});

/** A tab on SELF/top.html; every page of the server loads /bridge.js unless its name says "plain". */
async function tab(): Promise<Page> {
  const page = await newPage();
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(`${SELF}/top.html`);
  return page;
}

/** Adds <iframe id=… src=… allow=…> to `parent` and returns its Frame once loaded. */
async function addFrame(parent: Page | Frame, id: string, src: string, allow = "tools *"): Promise<Frame> {
  await parent.evaluate(
    ([id, src, allow]) =>
      new Promise<void>((resolve) => {
        const f = document.createElement("iframe");
        Object.assign(f, { id, src });
        if (allow) f.allow = allow;
        f.onload = () => resolve();
        document.body.append(f);
      }),
    [id, src, allow] as const,
  );
  const frame = await (await parent.$(`#${id}`))!.contentFrame();
  return frame!;
}

/** Registers a tool in `where`: execute answers "<name> ran in <origin>" (or waits for its signal). */
function register(
  where: Page | Frame,
  name: string,
  options: { exposedTo?: string[]; schema?: boolean; hang?: boolean; throws?: boolean } = {},
) {
  return where.evaluate(
    async ([name, o]) => {
      const w = window as unknown as FrameWin;
      const tool: SpecTool = {
        name,
        description: `${name}, a test tool`,
        ...(o.schema && {
          inputSchema: {
            type: "object",
            properties: { n: { type: "integer", minimum: 1 } },
            required: ["n"],
          },
        }),
        annotations: { readOnlyHint: true },
        execute: (input, client) => {
          w.runs = (w.runs ?? 0) + 1;
          if (o.throws) throw new Error(`${name} failed`);
          if (!o.hang) return `${name} ran in ${origin} with ${JSON.stringify(input)}`;
          return new Promise((_, reject) =>
            client.signal.addEventListener("abort", () => {
              w.aborted = `${(client.signal.reason as DOMException).name}`;
              reject(client.signal.reason);
            }),
          );
        },
      };
      const controller = new AbortController();
      (w as unknown as Record<string, AbortController>)[`unregister_${name}`] = controller;
      await (document as unknown as Doc).modelContext.registerTool(tool, {
        signal: controller.signal,
        ...(o.exposedTo && { exposedTo: o.exposedTo }),
      });
    },
    [name, options] as const,
  );
}

/** What getTools() gives in `where`: name, origin and whose window (self, parent, or #id of a child). */
function tools(where: Page | Frame, fromOrigins?: string[]) {
  return where.evaluate(async (fromOrigins) => {
    const list = (await (document as unknown as Doc).modelContext.getTools(
      fromOrigins ? { fromOrigins } : {},
    )) as unknown as ToolView[];
    return list.map((t) => {
      const child = Array.from(document.querySelectorAll("iframe")).find((f) => f.contentWindow === t.window);
      const whose =
        t.window === window ? "self" : t.window === parent ? "parent" : child ? `#${child.id}` : "other";
      return `${t.name} ${t.origin} ${whose}`;
    });
  }, fromOrigins);
}

/** Runs getTools() then executeTool() on the tool named `name`, in `where`; the outcome. */
function execute(where: Page | Frame, name: string, input: unknown, fromOrigins?: string[]) {
  return where.evaluate(
    async ([name, input, fromOrigins]) => {
      const { modelContext: mc } = document as unknown as Doc;
      const tool = (await mc.getTools(fromOrigins ? { fromOrigins } : {})).find((t) => t.name === name);
      return (window as unknown as FrameWin).outcome(mc.executeTool(tool!, input));
    },
    [name, input, fromOrigins] as const,
  );
}

const seen = (where: Page | Frame) => where.evaluate(() => (window as unknown as FrameWin).seen.splice(0));

/** Resolves at the next toolchange in `where` (call before what fires it, await after). */
async function nextToolchange(where: Page | Frame): Promise<() => Promise<unknown>> {
  await where.evaluate(() => {
    const w = window as unknown as FrameWin & { change?: Promise<Event> };
    w.change = w.nextEvent((document as unknown as Doc).modelContext, "toolchange");
  });
  return () =>
    where.evaluate(() => (window as unknown as { change: Promise<Event> }).change.then(() => true));
}

describe("document.modelContext spans the tab's frames", () => {
  it("a same-origin frame and its parent see and run each other's tools, events firing in the tool's own document", async () => {
    const page = await tab();
    await register(page, "top_tool");
    const child = await addFrame(page, "same", `${SELF}/child.html`, "");
    await expect.poll(() => tools(child)).toEqual([`top_tool ${SELF} parent`]);

    const changed = await nextToolchange(page);
    await register(child, "child_tool");
    await changed();
    expect(await tools(page)).toEqual([`child_tool ${SELF} #same`, `top_tool ${SELF} self`]);
    await seen(page);
    await seen(child);

    expect(await execute(page, "child_tool", { a: 1 })).toEqual({
      ok: true,
      value: `child_tool ran in ${SELF} with {"a":1}`,
    });
    expect(await execute(child, "top_tool", {})).toEqual({
      ok: true,
      value: `top_tool ran in ${SELF} with {}`,
    });
    // Each tool's events fired at its own document's ModelContext (then its window), never at the caller's.
    expect(await seen(child)).toEqual(["toolactivated child_tool", "window toolactivated child_tool"]);
    expect(await seen(page)).toEqual(["toolactivated top_tool", "window toolactivated top_tool"]);

    // A tool that throws in the frame rejects the caller with UnknownError.
    await register(child, "child_throws", { throws: true });
    await expect.poll(() => tools(page)).toContain(`child_throws ${SELF} #same`);
    expect(await execute(page, "child_throws", {})).toMatchObject({
      ok: false,
      name: "UnknownError",
      message: "child_throws failed",
    });
  });

  it("across origins a tool is seen only where exposedTo allows it and fromOrigins asks for it, and runs both ways", async () => {
    const page = await tab();
    await register(page, "top_shared", { exposedTo: [OTHER] });
    await register(page, "top_private");
    const child = await addFrame(page, "cross", `${OTHER}/child.html`);
    await expect.poll(() => tools(child, [SELF])).toEqual([`top_shared ${SELF} parent`]);
    expect(await tools(child)).toEqual([]);

    const changed = await nextToolchange(page);
    await register(child, "child_shared", { exposedTo: [SELF] });
    await changed();
    await register(child, "child_private");
    expect(await tools(page)).toEqual([`top_private ${SELF} self`, `top_shared ${SELF} self`]);
    await expect
      .poll(() => tools(page, [OTHER]))
      .toEqual([`child_shared ${OTHER} #cross`, `top_private ${SELF} self`, `top_shared ${SELF} self`]);
    expect(await tools(child)).toEqual([`child_private ${OTHER} self`, `child_shared ${OTHER} self`]);
    await seen(child);

    expect(await execute(page, "child_shared", { q: "x" }, [OTHER])).toEqual({
      ok: true,
      value: `child_shared ran in ${OTHER} with {"q":"x"}`,
    });
    expect(await seen(child)).toEqual(["toolactivated child_shared", "window toolactivated child_shared"]);
    expect(await execute(child, "top_shared", {}, [SELF])).toEqual({
      ok: true,
      value: `top_shared ran in ${SELF} with {}`,
    });

    // Unregistering in the frame reaches the parent as a toolchange, and the tool is gone.
    const gone = await nextToolchange(page);
    await child.evaluate(() =>
      (window as unknown as Record<string, AbortController>).unregister_child_shared!.abort(),
    );
    await gone();
    expect(await tools(page, [OTHER])).toEqual([`top_private ${SELF} self`, `top_shared ${SELF} self`]);
  });

  it("a tool not exposed to a document stays invisible there and fires no toolchange there", async () => {
    const page = await tab();
    const child = await addFrame(page, "cross", `${OTHER}/child.html`);
    await seen(child);
    await seen(page);

    // Each side registers a tool exposed to a third origin, then one exposed to the other side: messages
    // between two windows arrive in order, so when the second toolchange has arrived, the first would have.
    const childChange = await nextToolchange(child);
    await register(page, "top_elsewhere", { exposedTo: ["https://example.com"] });
    await register(page, "top_exposed", { exposedTo: [OTHER] });
    await childChange();
    expect(await seen(child)).toEqual(["toolchange"]);
    expect(await tools(child, [SELF])).toEqual([`top_exposed ${SELF} parent`]);

    await seen(page);
    const topChange = await nextToolchange(page);
    await register(child, "child_elsewhere", { exposedTo: ["https://example.com"] });
    await register(child, "child_exposed", { exposedTo: [SELF] });
    await topChange();
    expect(await seen(page)).toEqual(["toolchange"]);
    expect(await tools(page, [OTHER, "https://example.com"])).toEqual([
      `child_exposed ${OTHER} #cross`,
      `top_elsewhere ${SELF} self`,
      `top_exposed ${SELF} self`,
    ]);
    // The owner checks exposure again: a tool dictionary naming a hidden tool does not run it.
    const forged = await page.evaluate(async (other) => {
      const { modelContext: mc } = document as unknown as Doc;
      const win = (document.querySelector("#cross") as HTMLIFrameElement).contentWindow!;
      const tool = { name: "child_elsewhere", description: "d", window: win, origin: other };
      return (window as unknown as FrameWin).outcome(mc.executeTool(tool, {}));
    }, OTHER);
    expect(forged).toMatchObject({ ok: false, name: "UnknownError" });
    expect(await child.evaluate(() => (window as unknown as FrameWin).runs)).toBeUndefined();
  });

  it('a cross-origin iframe without allow="tools" takes no part, as in native Chromium: NotAllowedError, no toolchange', async () => {
    const page = await tab();
    const child = await addFrame(page, "noallow", `${OTHER}/child.html`, "");
    await expect
      .poll(() =>
        child.evaluate(() =>
          (window as unknown as FrameWin).outcome((document as unknown as Doc).modelContext.getTools()),
        ),
      )
      .toMatchObject({ ok: false, name: "NotAllowedError" });
    await seen(child);
    await register(page, "top_exposed", { exposedTo: [OTHER] });
    // A marker posted after the registration (whose announcement is queued first): when it has arrived, a
    // toolchange would have too.
    await child.evaluate(() => {
      const w = window as unknown as { marker: Promise<void> };
      w.marker = new Promise((r) => addEventListener("message", (e) => e.data === "marker" && r()));
    });
    await page.evaluate(() =>
      (document.querySelector("#noallow") as HTMLIFrameElement).contentWindow!.postMessage("marker", "*"),
    );
    await child.evaluate(() => (window as unknown as { marker: Promise<void> }).marker);
    expect(await seen(child)).toEqual([]);
    expect(await tools(page, [OTHER])).toEqual([`top_exposed ${SELF} self`]);
  });

  it("executeTool checks the input against the schema before execute, here and in a frame (DataError); a schemaless tool is not checked", async () => {
    const page = await tab();
    const child = await addFrame(page, "cross", `${OTHER}/child.html`);
    await register(page, "top_counted", { schema: true });
    await register(child, "child_counted", { schema: true, exposedTo: [SELF] });
    await register(child, "child_free", { exposedTo: [SELF] });
    await expect.poll(() => tools(page, [OTHER])).toHaveLength(3);

    await seen(child);
    const local = await execute(page, "top_counted", { n: 0 });
    expect(local).toMatchObject({ ok: false, name: "DataError" });
    expect(JSON.parse(local.message!)).toMatchObject({
      path: "/n",
      reason: "minimum",
      schemaPath: "/minimum",
    });
    const remote = await execute(page, "child_counted", {}, [OTHER]);
    expect(remote).toMatchObject({ ok: false, name: "DataError" });
    expect(JSON.parse(remote.message!)).toMatchObject({
      path: "/n",
      reason: "required",
      schemaPath: "/required",
    });
    const runs = (where: Page | Frame) => where.evaluate(() => (window as unknown as FrameWin).runs ?? 0);
    expect([await runs(page), await runs(child)]).toEqual([0, 0]);
    expect(await seen(child)).toEqual([]); // no toolactivated: execute never started

    expect(await execute(page, "child_counted", { n: 2 }, [OTHER])).toMatchObject({ ok: true });
    expect(await execute(page, "child_free", { anything: [1] }, [OTHER])).toMatchObject({ ok: true });
    expect(await runs(child)).toBe(2);
  });

  it("aborting executeTool on a frame's tool rejects with the reason, then aborts the tool's signal there and fires toolcancel there", async () => {
    const page = await tab();
    const child = await addFrame(page, "cross", `${OTHER}/child.html`);
    await register(child, "child_slow", { hang: true, exposedTo: [SELF] });
    await expect.poll(() => tools(page, [OTHER])).toEqual([`child_slow ${OTHER} #cross`]);
    await seen(child);
    await seen(page);
    await page.evaluate(async (other) => {
      const { modelContext: mc } = document as unknown as Doc;
      const [tool] = await mc.getTools({ fromOrigins: [other] });
      const controller = new AbortController();
      const w = window as unknown as { call: Promise<unknown>; stop: AbortController };
      w.stop = controller;
      w.call = (window as unknown as FrameWin).outcome(
        mc.executeTool(tool!, {}, { signal: controller.signal }),
      );
    }, OTHER);
    await expect.poll(() => child.evaluate(() => (window as unknown as FrameWin).runs)).toBe(1);
    const cancelled = await child.evaluate(() => {
      const w = window as unknown as FrameWin & { cancel: Promise<Event> };
      w.cancel = w.nextEvent((document as unknown as Doc).modelContext, "toolcancel");
    });
    expect(cancelled).toBeUndefined();
    const outcome = await page.evaluate(() => {
      const w = window as unknown as { call: Promise<unknown>; stop: AbortController };
      w.stop.abort("changed my mind");
      return w.call;
    });
    expect(outcome).toEqual({ ok: false, reason: "changed my mind" });
    await child.evaluate(() => (window as unknown as { cancel: Promise<Event> }).cancel);
    expect(await child.evaluate(() => (window as unknown as FrameWin).aborted)).toBe("AbortError");
    expect(await seen(child)).toEqual([
      "toolactivated child_slow",
      "window toolactivated child_slow",
      "toolcancel child_slow",
      "window toolcancel child_slow",
    ]);
    expect(await seen(page)).toEqual([]);
  });

  it("a removed iframe's tools disappear, with a toolchange; a frame without the bridge has none", async () => {
    const page = await tab();
    await addFrame(page, "plain", `${OTHER}/plain.html`);
    const child = await addFrame(page, "same", `${SELF}/child.html`);
    const changed = await nextToolchange(page);
    await register(child, "child_tool");
    await changed();
    expect(await tools(page, [OTHER])).toEqual([`child_tool ${SELF} #same`]);
    const gone = await nextToolchange(page);
    await page.evaluate(() => document.querySelector("#same")!.remove());
    await gone();
    expect(await tools(page, [OTHER])).toEqual([]);
  });

  it("a cross-origin frame that navigates takes its old document's tools with it, to a page with or without the bridge", async () => {
    const page = await tab();
    const cross = await addFrame(page, "cross", `${OTHER}/child.html`);
    const changed = await nextToolchange(page);
    await register(cross, "old_tool", { exposedTo: [SELF] });
    await changed();
    expect(await tools(page, [OTHER])).toEqual([`old_tool ${OTHER} #cross`]);
    // To a page with the bridge: its hello says a new document is there; the old tool goes.
    const navigated = (src: string) =>
      page.evaluate(
        (src) =>
          new Promise<void>((resolve) => {
            const f = document.querySelector<HTMLIFrameElement>("#cross")!;
            f.onload = () => resolve();
            f.src = src;
          }),
        src,
      );
    await navigated(`${OTHER}/child2.html`);
    expect(await tools(page, [OTHER])).toEqual([]);
    const frame = (await (await page.$("#cross"))!.contentFrame())!;
    const again = await nextToolchange(page);
    await register(frame, "new_tool", { exposedTo: [SELF] });
    await again();
    expect(await tools(page, [OTHER])).toEqual([`new_tool ${OTHER} #cross`]);
    // To a page without the bridge: nothing says hello before the iframe's load, so its tools go.
    await navigated(`${OTHER}/plain2.html`);
    expect(await tools(page, [OTHER])).toEqual([]);
  });

  it("seed-era navigator.modelContext tools in a frame are that document's tools like any other", async () => {
    const page = await tab();
    const child = await addFrame(page, "same", `${SELF}/child.html`);
    const changed = await nextToolchange(page);
    await child.evaluate(() =>
      (
        navigator as unknown as { modelContext: { registerTool(t: SpecTool): void } }
      ).modelContext.registerTool({
        name: "seed_tool",
        description: "seed",
        execute: () => "seed ran",
      }),
    );
    await changed();
    expect(await tools(page)).toEqual([`seed_tool ${SELF} #same`]);
    expect(await execute(page, "seed_tool", {})).toEqual({ ok: true, value: "seed ran" });
  });
});

describe("the relay offers the frames' tools", () => {
  it("an agent lists the page's own, its same-origin frame's and its cross-origin frame's tools (frameOrigin in _meta) and calls the cross-origin one", async () => {
    const page = await tab();
    const same = await addFrame(page, "same", `${SELF}/child.html`);
    const cross = await addFrame(page, "cross", `${OTHER}/child.html`);
    await register(page, "page_tool");
    await register(same, "same_tool");
    await register(cross, "cross_tool", { schema: true, exposedTo: [SELF] });
    await register(cross, "cross_hidden");
    // A name the tab has already: the page's own tool wins, the frame's is left out with a warning.
    const warned = page.waitForEvent("console", (m) => m.text().includes('"page_tool" of a frame'));
    await register(same, "page_tool_dup");
    await same.evaluate(() =>
      (document as unknown as Doc).modelContext.registerTool({
        name: "page_tool",
        description: "dup",
        execute: () => "dup",
      } as SpecTool),
    );

    const ch = await createChannel("frames e2e");
    await page.evaluate(
      (code) =>
        (window as unknown as { webmcpHub: { pair(c: string): Promise<unknown> } }).webmcpHub.pair(code),
      ch.pairingCode,
    );
    const client = new Client({ name: "frames-agent", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(ch.mcpUrl), {
        requestInit: { headers: { authorization: `Bearer ${ch.agentToken}` } },
      }),
    );
    try {
      const want = ["cross_tool", "page_tool", "page_tool_dup", "same_tool"];
      let listed: Awaited<ReturnType<Client["listTools"]>>["tools"] = [];
      await expect
        .poll(async () => (listed = (await client.listTools()).tools).map((t) => t.name).sort(), {
          timeout: 10_000,
        })
        .toEqual(want);
      const meta = (name: string) =>
        listed.find((t) => t.name === name)!._meta?.["webmcp-hub/provider"] as {
          frameOrigin?: string;
          origin?: string;
        };
      await warned;
      expect(meta("page_tool")).toMatchObject({ origin: SELF });
      expect(meta("page_tool").frameOrigin).toBeUndefined();
      expect(meta("same_tool")).toMatchObject({ origin: SELF, frameOrigin: SELF });
      expect(meta("cross_tool")).toMatchObject({ origin: SELF, frameOrigin: OTHER });

      const result = await client.callTool({ name: "cross_tool", arguments: { n: 3 } });
      expect(result).toEqual({
        content: [{ type: "text", text: `cross_tool ran in ${OTHER} with {"n":3}` }],
      });
      expect(await cross.evaluate(() => (window as unknown as FrameWin).runs)).toBe(1);
      // Only the top-level document relays: the frames' bridges never paired or connected.
      for (const f of [same, cross])
        expect(
          await f.evaluate(() => (window as unknown as { webmcpHub: { status: string } }).webmcpHub.status),
        ).toBe("unpaired");
    } finally {
      await client.close();
    }
  });
});
