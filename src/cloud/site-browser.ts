// A site's browser: one Browser Rendering session (its id kept in the object's storage, so a restarted object
// connects to it again; launched when there is none or it is gone), one browser context of its own (no
// cookies or storage shared with another site, none from a user), and the warm pages of that context, kept
// by page URL for the next run of the same page. Whatever this object cannot use any more it closes: pages
// and contexts left by an earlier connection, a page that misbehaved, everything after TIMES.idleMs idle.
import puppeteer, { type Browser, type BrowserContext } from "@cloudflare/puppeteer";
import { TIMES } from "./config.js";
import { RunFailure, within } from "./failure.js";
import type { SitePage } from "./page-run.js";

const SESSION_KEY = "sessionId";

export class SiteBrowser {
  private browser: Browser | undefined;
  private context: BrowserContext | undefined;
  private opening: Promise<BrowserContext> | undefined;
  private readonly idle = new Map<string, SitePage[]>();
  /** Pages handed out and not yet given back or closed. */
  private readonly busy = new Set<SitePage>();

  constructor(
    private readonly binding: Fetcher,
    private readonly storage: DurableObjectStorage,
    private readonly maxIdlePages: number,
  ) {}

  /** The site's context, opening the browser and the context when needed (once for concurrent runs). */
  async openContext(): Promise<BrowserContext> {
    if (this.context && this.browser?.connected) return this.context;
    this.opening ??= this.open().finally(() => (this.opening = undefined));
    return this.opening;
  }

  private async open(): Promise<BrowserContext> {
    const browser = this.browser?.connected ? this.browser : await this.connect();
    const context = await browser.createBrowserContext();
    this.context = context;
    return context;
  }

  private async connect(): Promise<Browser> {
    this.forget();
    const known = await this.storage.get<string>(SESSION_KEY);
    let browser: Browser | undefined;
    if (known) {
      try {
        browser = await puppeteer.connect(this.binding, known);
        // Contexts an earlier connection of this object left behind (it was evicted mid-run).
        await Promise.allSettled(
          browser
            .browserContexts()
            .filter((c) => c !== browser!.defaultBrowserContext())
            .map((c) => c.close()),
        );
      } catch {
        browser = undefined;
      }
    }
    if (!browser) {
      try {
        browser = await puppeteer.launch(this.binding, { keep_alive: TIMES.keepAliveMs });
      } catch (e) {
        const text = e instanceof Error ? e.message : String(e);
        throw /429|rate limit|too many/i.test(text)
          ? new RunFailure("busy", "The hub's cloud browsers are all in use; try again in a minute.")
          : new RunFailure(
              "crashed",
              `The hub could not start a browser for this site (${text.slice(0, 200)}).`,
            );
      }
      await this.storage.put(SESSION_KEY, browser.sessionId());
    }
    browser.once("disconnected", () => {
      if (this.browser === browser) this.forget();
    });
    this.browser = browser;
    return browser;
  }

  /** Drops every handle (the browser went away). */
  private forget(): void {
    this.browser = undefined;
    this.context = undefined;
    this.idle.clear();
    this.busy.clear();
  }

  /** A warm page of `url` that is still on it, or undefined. */
  takeWarm(url: string): SitePage | undefined {
    const pages = this.idle.get(url) ?? [];
    while (pages.length) {
      const p = pages.pop()!;
      if (!p.page.isClosed() && !p.guard.offOrigin && p.page.url() === p.url) {
        this.busy.add(p);
        return p;
      }
      void this.close(p);
    }
    return undefined;
  }

  /** A page just opened for a run. */
  adopt(p: SitePage): void {
    this.busy.add(p);
  }

  /** A page whose run went well: kept warm for its URL, unless enough pages are warm already. */
  giveBack(p: SitePage): void {
    this.busy.delete(p);
    const warm = [...this.idle.values()].reduce((n, list) => n + list.length, 0);
    if (warm >= this.maxIdlePages || p.page.isClosed() || p.guard.offOrigin) return void this.close(p);
    const list = this.idle.get(p.url) ?? [];
    list.push(p);
    this.idle.set(p.url, list);
  }

  /** Closes a page; one that does not close in time takes the site's context with it. */
  async close(p: SitePage): Promise<void> {
    this.busy.delete(p);
    for (const [url, list] of this.idle) {
      const at = list.indexOf(p);
      if (at >= 0) list.splice(at, 1);
      if (!list.length) this.idle.delete(url);
    }
    try {
      await within(p.page.close(), TIMES.closeMs, () => new Error("page close timed out"));
    } catch {
      await this.closeContext();
    }
  }

  /** Closes the context (and so all its pages); a context that does not close in time closes the browser. */
  async closeContext(): Promise<void> {
    const context = this.context;
    this.context = undefined;
    this.idle.clear();
    this.busy.clear();
    if (!context) return;
    try {
      await within(context.close(), TIMES.closeMs, () => new Error("context close timed out"));
    } catch {
      const browser = this.browser;
      this.forget();
      await browser?.close().catch(() => {});
      await this.storage.delete(SESSION_KEY);
    }
  }

  /** After TIMES.idleMs without runs: pages and the context closed, the session kept for the next run. */
  async rest(): Promise<void> {
    if (this.busy.size) return;
    await this.closeContext();
    const browser = this.browser;
    this.browser = undefined;
    // Disconnecting keeps the session alive (keep_alive) for a quick connect on the next run.
    if (browser?.connected) await browser.disconnect().catch(() => {});
  }

  /** What is open, for the tests and the benchmark: this site's pages (its context's), warm and busy ones. */
  async counts(): Promise<{
    connected: boolean;
    contexts: number;
    pages: number;
    warm: number;
    busy: number;
  }> {
    const warm = [...this.idle.values()].reduce((n, list) => n + list.length, 0);
    const browser = this.browser?.connected ? this.browser : undefined;
    return {
      connected: Boolean(browser),
      contexts: browser ? browser.browserContexts().length - 1 : 0,
      pages: this.context && browser ? (await this.context.pages()).length : 0,
      warm,
      busy: this.busy.size,
    };
  }
}
