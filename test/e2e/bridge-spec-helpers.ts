// Shared by the bridge-spec-*.test.ts files: the WebMCP surface of /bridge.js in a real Chromium, on pages of
// the hub's origin (http://127.0.0.1 is a secure context). Pages are served by routing /__bridge-spec/ on the
// hub; the built /bridge.js comes from wrangler dev. Where a test must look inside the registry, the page
// loads a probe build instead: installWebMcp() plus the registry on window.__registry. A test file calls
// useBridgeSpec() once at its top level for the browser, the probe build and closing its pages.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import type { Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, expect, inject } from "vitest";
import { launchBrowser, type E2EBrowser } from "./browser.js";

export const hubUrl = inject("hubUrl");
export const SPEC = `${hubUrl}/__bridge-spec/`;
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

// ---- What the page sees (types only: page.evaluate functions run in the browser) ------------------------

export interface Client {
  signal: AbortSignal;
  requestUserInteraction<T>(callback: () => T | Promise<T>): Promise<T>;
}
export interface SpecTool {
  name: string;
  title?: string;
  description: string;
  inputSchema?: unknown;
  outputSchema?: unknown;
  annotations?: Record<string, unknown>;
  execute: (input: Record<string, unknown>, client: Client) => unknown;
}
export interface RegisteredToolView {
  name: string;
  title: string;
  description: string;
  /** JSON text, as WPT compares it. */
  inputSchema?: string;
  window: Window;
  origin: string;
  annotations?: Record<string, boolean>;
}
export interface ToolEvent extends Event {
  toolName: string;
}
export interface SpecModelContext extends EventTarget {
  registerTool(tool: SpecTool, options?: { signal?: AbortSignal; exposedTo?: string[] }): Promise<undefined>;
  getTools(options?: { fromOrigins?: string[] }): Promise<RegisteredToolView[]>;
  executeTool(tool: object, input?: unknown, options?: { signal?: AbortSignal }): Promise<string | null>;
  ontoolchange: ((event: Event) => void) | null;
}
export interface SeedModelContext {
  provideContext(options?: { tools: SpecTool[] }): void;
  clearContext(): void;
  registerTool(tool: SpecTool): void;
  unregisterTool(name: string): void;
}
export type Outcome =
  { ok: true; value: unknown } | { ok: false; name?: string; message?: string; reason?: unknown };
export interface ProbeTool {
  name: string;
  title?: string;
  source: string;
  annotations: Record<string, unknown>;
  inputSchema: Record<string, unknown>;
  execute(input: Record<string, unknown>, client: Client): Promise<unknown>;
}
export type Doc = { modelContext: SpecModelContext };
export type Nav = { modelContext: SeedModelContext };
export type Win = Window & {
  outcome(promise: unknown): Promise<Outcome>;
  /** A task later (setTimeout): only where nothing may happen in that window, said so at each use. */
  nextTask(ms?: number): Promise<void>;
  /** The next `type` event at `target`: listen before doing what fires it. */
  nextEvent(target: EventTarget, type: string): Promise<Event>;
  ToolActivatedEvent: new (type: string, init?: EventInit & { toolName?: string }) => ToolEvent;
  ToolCancelEvent: new (type: string, init?: EventInit & { toolName?: string }) => ToolEvent;
  submits: Array<Record<string, unknown>>;
  /** The probe build's registry: an EventTarget that fires "change" (batched) when its tools change. */
  __registry: EventTarget & { list(): ProbeTool[]; get(name: string): ProbeTool | undefined };
};

/** Runs in every page before the bridge: how a test reads a promise's outcome, and waits. */
const HELPERS = `<script>
  window.outcome = async (p) => {
    try { return { ok: true, value: await p }; }
    catch (e) { return typeof e === "object" && e ? { ok: false, name: e.name, message: e.message } : { ok: false, reason: e }; }
  };
  window.nextTask = (ms = 0) => new Promise((r) => setTimeout(r, ms));
  window.nextEvent = (target, type) => new Promise((r) => target.addEventListener(type, r, { once: true }));
</script>`;

const PROBE = `
  import { installWebMcp } from "./src/bridge/install.ts";
  import { registry } from "./src/bridge/registry.ts";
  installWebMcp();
  window.__registry = registry;
`;

let browser: E2EBrowser;
let probe: string;
let bridge: string;
const pages: Page[] = [];

/** Registers the hooks every bridge-spec file needs: one browser, the probe build, pages closed after each test. */
export function useBridgeSpec(): void {
  beforeAll(async () => {
    browser = await launchBrowser();
    const built = await esbuild.build({
      stdin: { contents: PROBE, resolveDir: ROOT, loader: "ts" },
      bundle: true,
      write: false,
      format: "iife",
      target: "es2022",
    });
    probe = built.outputFiles[0]!.text;
    bridge = await readFile(new URL("../../web/assets/bridge.js", import.meta.url), "utf8");
    // The hub serves it (and its first request, which can be slow, is out of the way before the tests).
    const served = await fetch(`${hubUrl}/bridge.js`);
    expect(served.headers.get("content-type")).toMatch(/javascript/);
    await served.arrayBuffer();
  });
  afterAll(async () => {
    await browser?.close();
  });
  afterEach(async () => {
    await Promise.all(pages.splice(0).map((p) => p.close()));
  });
}

/** A blank tab, closed after the test (for a test that routes its page itself). */
export async function newPage(): Promise<Page> {
  const page = await browser.newPage();
  pages.push(page);
  return page;
}

interface PageOptions {
  /** Runs before the bridge loads (a "native" modelContext, say). */
  head?: string;
  body?: string;
  /** The real /bridge.js, or the probe build. */
  script?: "bridge" | "probe";
  /** The page's origin: the hub's, unless a test needs another (served by the route alone). */
  origin?: string;
}

/** A new tab on ORIGIN/__bridge-spec/page.html; `served` counts the scripts the page fetched. */
export async function open({ head = "", body = "", script = "bridge", origin = hubUrl }: PageOptions = {}) {
  const page = await newPage();
  const served = { bridge: 0, probe: 0 };
  const src = script === "probe" ? "/__bridge-spec/probe.js" : "/bridge.js";
  const html = `<!doctype html><meta charset="utf-8"><title>bridge spec</title>${HELPERS}${head}<script src="${src}"></script><body>${body}</body>`;
  await page.route(
    (u) => u.pathname.startsWith("/__bridge-spec/") || u.pathname === "/bridge.js",
    (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === "/__bridge-spec/probe.js") {
        served.probe++;
        return route.fulfill({ contentType: "text/javascript", body: probe });
      }
      if (path === "/bridge.js") {
        served.bridge++;
        // From wrangler dev on the hub; another origin gets the same built file.
        return origin === hubUrl
          ? route.continue()
          : route.fulfill({ contentType: "text/javascript", body: bridge });
      }
      return route.fulfill({ contentType: "text/html", body: html });
    },
  );
  await page.goto(`${origin}/__bridge-spec/page.html`);
  return Object.assign(page, { served });
}
