// A real local web site for the cloud runner's tests: pages that register WebMCP tools every way a site can
// (the seed-era navigator.modelContext, document.modelContext, a declarative form, the browser's native API)
// and pages that misbehave (never register, throw, hang, navigate away, redirect away, flood). Served on
// 127.0.0.1 (a secure context, as WebMCP needs); OTHER_HOST names another origin on the same port.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ADD_TOOL, SUM_SCHEMA } from "./tools.js";

const addExecute = `({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }], structuredContent: { sum: a + b } })`;
const define = (execute: string, extra: Record<string, unknown> = {}) =>
  `Object.assign(${JSON.stringify({ ...ADD_TOOL, ...extra })}, { execute: ${execute} })`;

const html = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>cloud test</title></head><body>${body}</body></html>`;
const script = (code: string) => html(`<h1>cloud test</h1><script>${code}</script>`);

/** A page whose tool counts its calls and, in each, registers itself again with `description`. */
const again = (description: string) =>
  script(`
    let calls = 0;
    let registration;
    const register = (tool) => {
      registration?.abort();
      registration = new AbortController();
      document.modelContext.registerTool(tool, { signal: registration.signal });
    };
    const tool = (extra) =>
      Object.assign(${JSON.stringify(ADD_TOOL)}, extra, {
        execute: () => {
          calls += 1;
          register(tool({ description: ${JSON.stringify(description)} }));
          return { calls };
        },
      });
    register(tool({}));`);

function pages(other: string): Record<string, string> {
  return {
    "/seed.html": script(`navigator.modelContext.registerTool(${define(addExecute)});`),
    "/provide.html": script(`navigator.modelContext.provideContext({ tools: [${define(addExecute)}] });`),
    "/document.html": script(`document.modelContext.registerTool(${define(addExecute)});`),
    // Which API the page got: the browser's own document.modelContext (the flag), or the capture's polyfill.
    "/native.html": script(`
      const getter = Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get;
      const native = typeof getter === "function" && /\\[native code\\]/.test(Function.prototype.toString.call(getter));
      document.modelContext.registerTool(${define(`() => ({ native, getTools: typeof document.modelContext.getTools })`)});`),
    "/form.html": html(`
      <form toolname="search-books" tooldescription="Searches the catalogue by title." toolautosubmit>
        <input name="q" required toolparamdescription="Words of the title">
        <button>Search</button>
      </form>
      <script>
        document.querySelector("form").addEventListener("submit", (event) => {
          event.preventDefault();
          const q = new FormData(event.target).get("q");
          if (event.agentInvoked) event.respondWith(Promise.resolve("Found 1 book for " + q + "."));
        });
      </script>`),
    // With an outputSchema, which native getTools() does not list (the capture notes it on registration).
    "/output.html": script(
      `document.modelContext.registerTool(${define(addExecute, { outputSchema: SUM_SCHEMA })});`,
    ),
    "/late.html": script(`setTimeout(() => document.modelContext.registerTool(${define(addExecute)}), 300);`),
    // Counts its calls: a warm page answers 2 on the second call.
    "/count.html": script(
      `let calls = 0; document.modelContext.registerTool(${define(`() => ({ calls: ++calls })`)});`,
    ),
    // Registers the tool again during each call (the call still answers): the same definition, or a changed one.
    "/again.html": again("Adds two numbers."),
    "/again-changed.html": again("Adds two numbers, and more."),
    "/never.html": script(`document.title = "no tools here";`),
    "/throws.html": script(
      `throw new Error("the page's script broke"); document.modelContext.registerTool(${define(addExecute)});`,
    ),
    "/tool-throws.html": script(
      `document.modelContext.registerTool(${define(`() => { throw new Error("out of stock"); }`)});`,
    ),
    "/hang-load.html": script(`for (;;) {}`),
    "/hang-call.html": script(
      `document.modelContext.registerTool(${define(`() => new Promise(() => {})`)});`,
    ),
    "/spin-call.html": script(`document.modelContext.registerTool(${define(`() => { for (;;) {} }`)});`),
    "/nav-away.html": script(
      `document.modelContext.registerTool(${define(addExecute)}); location.href = ${JSON.stringify(other + "/")};`,
    ),
    "/nav-in-call.html": script(
      `document.modelContext.registerTool(${define(`() => { location.href = ${JSON.stringify(other + "/")}; return new Promise(() => {}); }`)});`,
    ),
    "/flood.html": script(
      `document.modelContext.registerTool(${define(`() => "x".repeat(2 * 1024 * 1024)`)});`,
    ),
    "/changed.html": script(
      `document.modelContext.registerTool(${define(addExecute, { description: "Adds two numbers, and more." })});`,
    ),
    // Loads a script from another origin: refused, and the page's own tool still registers.
    "/cdn.html": html(
      `<script src="${other}/lib.js"></script><script>document.modelContext.registerTool(${define(addExecute)});</script>`,
    ),
  };
}

export interface CloudSite {
  origin: string;
  /** Another origin (same server, another host name): what the misbehaving pages go to. */
  other: string;
  close(): Promise<void>;
}

/**
 * Serves the pages. `setNativeWebMcp` (POST /__native?on=0|1) changes whether browsers launched from now on
 * have the native WebMCP flag, so the polyfill is tested on the same machine.
 */
export async function startCloudSite({
  setNativeWebMcp,
}: {
  setNativeWebMcp: (on: boolean) => void;
}): Promise<CloudSite> {
  const hits: string[] = [];
  let other = "";
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    // What the server got, as "host/path" lines (tests show a refused request never reached it).
    if (path === "/__hits") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify(hits));
    }
    if (path === "/__native" && req.method === "POST") {
      setNativeWebMcp(new URL(req.url ?? "/", "http://x").searchParams.get("on") === "1");
      res.writeHead(204);
      return res.end();
    }
    hits.push(`${req.headers.host}${path}`);
    if (path === "/redirect") {
      res.writeHead(302, { location: `${other}/seed.html` });
      return res.end();
    }
    const page = pages(other)[path];
    if (!page) {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  other = `http://localhost:${port}`;
  return {
    origin: `http://127.0.0.1:${port}`,
    other,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
