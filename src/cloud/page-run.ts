// One run on one page of the site: open it (the capture script injected before the page's scripts, every
// request off the site's origin refused), wait for the tool, check its live definition against the published
// digest, call it. Every step is bounded by its own limit (config.ts TIMES) and by the run's deadline; a step
// that fails throws a RunFailure and the caller closes the page.
//
// Requests: only the site's origin, plus data: and blob: (Chromium's own error page needs data:). Subresources
// from other origins (CDN scripts, analytics, a /bridge.js from a hub) are refused too, not only navigations:
// the hub's browser then fetches nothing the site's own origin does not serve, and the page cannot reach a
// third party with no user present. A refused main-frame navigation or redirect ends the run as `navigation`.
import type { BrowserContext, HTTPRequest, Page } from "@cloudflare/puppeteer";
import { definitionDigest } from "../protocol/digest.js";
import { LIMITS, ToolDescriptorSchema, type ToolDescriptor } from "../protocol/index.js";
import { TIMES } from "./config.js";
import { excerpt, RunFailure, seconds, within } from "./failure.js";
import {
  CAPTURE_KEY,
  type CaptureOutcome,
  type CapturedDefinition,
  type CapturedTool,
} from "./page/capture-api.js";
import { CAPTURE_SCRIPT } from "./page/capture.generated.js";

export interface PageGuard {
  /** The first off-origin URL the main frame tried to go to (refused). */
  offOrigin?: string;
  /** The page's uncaught errors (a few, shortened). */
  errors: string[];
}

export interface SitePage {
  page: Page;
  url: string;
  guard: PageGuard;
  /**
   * The registrations whose definition matched the published digest, by tool name: a warm page's next call
   * of the same registration runs in one step (callTool), with no new check.
   */
  checked: Map<string, { digest: string; token: number }>;
}

const allowedScheme = (url: string) => url.startsWith("data:") || url.startsWith("blob:");
const originOf = (url: string) => {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
};

/** Opens `url` in the site's context, guarded and captured, and waits for its load event. */
export async function openPage(
  context: BrowserContext,
  origin: string,
  url: string,
  deadline: number,
  onPage: (p: SitePage) => void,
): Promise<SitePage> {
  const page = await context.newPage();
  const p: SitePage = { page, url, guard: { errors: [] }, checked: new Map() };
  onPage(p); // from here on, the caller closes it on failure
  await page.setRequestInterception(true);
  page.on("request", (req: HTTPRequest) => {
    const target = req.url();
    if (allowedScheme(target) || originOf(target) === origin) return void req.continue().catch(() => {});
    if (req.isNavigationRequest() && req.frame() === page.mainFrame()) p.guard.offOrigin ??= target;
    void req.abort("blockedbyclient").catch(() => {});
  });
  page.on("framenavigated", (frame) => {
    // A navigation refused above lands the frame on chrome-error://chromewebdata/.
    if (frame === page.mainFrame() && originOf(frame.url()) !== origin) p.guard.offOrigin ??= frame.url();
  });
  page.on("pageerror", (e: unknown) => {
    if (p.guard.errors.length < 3)
      p.guard.errors.push(excerpt(e instanceof Error ? e.message : String(e), 160));
  });
  await page.evaluateOnNewDocument(CAPTURE_SCRIPT);

  const limit = Math.min(TIMES.pageLoadMs, deadline - Date.now());
  let status: number | undefined;
  try {
    const response = await within(
      page.goto(url, { waitUntil: "load", timeout: 0 }),
      limit,
      () => new RunFailure("load", `The page ${url} did not finish loading within ${seconds(limit)}.`),
    );
    status = response?.status();
  } catch (e) {
    if (p.guard.offOrigin) throw offOrigin(p);
    if (e instanceof RunFailure) throw e;
    throw new RunFailure(
      "load",
      `The page ${url} could not be loaded (${excerpt(String((e as Error)?.message ?? e))}).`,
    );
  }
  if (p.guard.offOrigin) throw offOrigin(p);
  if (status !== undefined && status >= 400)
    throw new RunFailure("load", `The page ${url} answered HTTP ${status}.`);
  return p;
}

function offOrigin(p: SitePage): RunFailure {
  const where = p.guard.offOrigin!.startsWith("chrome-error:")
    ? "another origin"
    : originOf(p.guard.offOrigin!) || "another origin";
  return new RunFailure(
    "navigation",
    `The page ${p.url} tried to go to ${where}, off the site's origin; the hub's browser stays on the site's origin, so the call was refused.`,
  );
}

/** Evaluates an expression on the page's hidden capture API, bounded by `ms`. */
async function capture<T>(
  p: SitePage,
  expression: string,
  ms: number,
  onTimeout: () => RunFailure,
): Promise<T> {
  const key = JSON.stringify(CAPTURE_KEY);
  const source = `(() => { const api = window[Symbol.for(${key})]; if (!api) throw new Error("no-capture"); return ${expression}; })()`;
  try {
    return await within(p.page.evaluate(source) as Promise<T>, ms, onTimeout);
  } catch (e) {
    if (p.guard.offOrigin) throw offOrigin(p);
    if (e instanceof RunFailure) throw e;
    const text = String((e as Error)?.message ?? e);
    if (text.includes("no-capture"))
      throw new RunFailure(
        "load",
        `The page ${p.url} is not a secure context (https), so WebMCP cannot run on it.`,
      );
    throw new RunFailure("crashed", `The page ${p.url} went away during the call (${excerpt(text)}).`);
  }
}

/** Waits until the page has registered `tool`; throws `unregistered` (naming what it did register) if not. */
export async function awaitTool(p: SitePage, tool: string, deadline: number): Promise<void> {
  const limit = Math.max(0, Math.min(TIMES.registerMs, deadline - Date.now()));
  const notRegistered = async () => {
    const names = await capture<CapturedTool[]>(
      p,
      "api.tools()",
      1000,
      () => new RunFailure("timeout", ""),
    ).then(
      (tools) => tools.map((t) => t.name),
      () => [] as string[],
    );
    const errors = p.guard.errors.length ? ` The page threw: ${p.guard.errors.join("; ")}.` : "";
    const has = names.length
      ? ` It registered ${names.slice(0, 10).join(", ")}.`
      : " It registered no tools.";
    return new RunFailure(
      "unregistered",
      `The page ${p.url} did not register the tool ${tool} within ${seconds(limit)}.${has}${errors}`,
    );
  };
  const found = await capture<boolean>(
    p,
    `api.wait(${JSON.stringify(tool)}, ${limit})`,
    limit + 1000,
    () =>
      new RunFailure(
        "unregistered",
        `The page ${p.url} stopped responding while it was expected to register ${tool}.`,
      ),
  );
  if (!found) throw await notRegistered();
}

/**
 * The digests a live definition may match: its own, and, when it has them, without the WebMCP hints a native
 * document.modelContext fills in as false (Chromium 156 lists untrustedContentHint and consequentialHint false
 * for a tool that gave neither). Absent and false mean the same for these two hints.
 */
async function liveDigests(tool: ToolDescriptor): Promise<string[]> {
  const digests = [await definitionDigest(tool)];
  const annotations = { ...tool.annotations };
  let dropped = false;
  for (const hint of ["untrustedContentHint", "consequentialHint"] as const)
    if (annotations[hint] === false) {
      delete annotations[hint];
      dropped = true;
    }
  if (dropped) digests.push(await definitionDigest({ ...tool, annotations }));
  return digests;
}

/**
 * Throws `changed` unless the live tool's definition digest is the published one; notes the registration it
 * checked in `p.checked` (callTool runs only that registration).
 */
export async function checkDefinition(
  p: SitePage,
  tool: string,
  digest: string,
  deadline: number,
): Promise<void> {
  p.checked.delete(tool);
  const live = await capture<CapturedDefinition | null>(
    p,
    `api.definition(${JSON.stringify(tool)})`,
    Math.max(0, deadline - Date.now()),
    () => new RunFailure("timeout", `The page ${p.url} did not answer in time.`),
  );
  if (!live) throw new RunFailure("unregistered", `The page ${p.url} no longer registers the tool ${tool}.`);
  const parsed = ToolDescriptorSchema.safeParse(live.tool);
  if (!parsed.success || !(await liveDigests(parsed.data)).includes(digest))
    throw new RunFailure(
      "changed",
      `The tool ${tool} on ${p.url} differs from the definition the site published, so the hub did not call it. The site can publish its current definition.`,
    );
  p.checked.set(tool, { digest, token: live.token });
}

/**
 * Calls the registration of `tool` that checkDefinition checked against `digest`; returns its CallToolResult,
 * or undefined without calling it when there is none (never checked, or checked against another digest) or
 * the page registered the tool again or removed it since (then the caller checks again).
 */
export async function callTool(
  p: SitePage,
  tool: string,
  digest: string,
  args: Record<string, unknown>,
  deadline: number,
): Promise<Record<string, unknown> | undefined> {
  const checked = p.checked.get(tool);
  if (!checked || checked.digest !== digest) return undefined;
  const limit = Math.max(0, deadline - Date.now());
  const outcome = await capture<CaptureOutcome | { stale: true }>(
    p,
    `api.call(${JSON.stringify(tool)}, ${checked.token}, ${JSON.stringify(args)}, ${LIMITS.frameBytes})`,
    limit,
    () => new RunFailure("timeout", `The tool ${tool} did not answer within ${seconds(limit)}.`),
  );
  if ("stale" in outcome) {
    p.checked.delete(tool);
    return undefined;
  }
  if ("tooLarge" in outcome)
    throw new RunFailure(
      "too_large",
      `The tool ${tool} returned ${outcome.tooLarge} bytes, more than the ${LIMITS.frameBytes} a result may have.`,
    );
  return outcome.result;
}
