// The two Chromiums of bench/extension, launched alike (Debian's chromium, --headless=new, a fresh profile
// each): one plain, for the /bridge.js page (the extension would take that page over), and one with the
// unpacked extension (dist/extension), as test/e2e/browser.ts launches it. Plus what the bench asks of the
// extension: its UI messages (through an extension page, as the popup sends them) and its service worker's
// JS heap over CDP.
import { mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { CHROMIUM_ARGS, requireChromium } from "../../scripts/lib/chromium.mjs";

// --headless=new: the old headless mode cannot load extensions.
const ARGS = ["--headless=new", ...CHROMIUM_ARGS.filter((a) => a !== "--headless")];

const chromiumPath = () => requireChromium("bench/extension");

async function launch(dataDir, name, extraArgs) {
  const userDataDir = await mkdtemp(join(dataDir, `${name}-`));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: chromiumPath(),
    headless: false, // --headless=new in ARGS: the old headless mode cannot load extensions
    args: [...ARGS, ...extraArgs],
  });
  let closed;
  return {
    context,
    /** Closes the browser and removes its profile (once, however often it is called). */
    close: () =>
      (closed ??= (async () => {
        await context.close().catch(() => {});
        await rm(userDataDir, { recursive: true, force: true });
      })()),
  };
}

/** Chromium without extensions. */
export const launchPlain = (dataDir) => launch(dataDir, "plain", []);

/**
 * Chromium with the unpacked extension at `extensionDir`, an extension page open (popup.html) to talk to
 * the service worker, and a CDP line to that service worker.
 */
export async function launchWithExtension(dataDir, extensionDir) {
  const browser = await launch(dataDir, "extension", [
    `--disable-extensions-except=${extensionDir}`,
    `--load-extension=${extensionDir}`,
  ]);
  const { context } = browser;
  const worker = context.serviceWorkers()[0] ?? (await context.waitForEvent("serviceworker"));
  const extensionId = new URL(worker.url()).host;
  const ext = await context.newPage();
  await ext.goto(`chrome-extension://${extensionId}/popup.html`);
  return {
    ...browser,
    extensionId,
    ext,
    /** A UiRequest (extension/messages.ts) answered by the service worker. */
    ui: (request) => ext.evaluate((r) => chrome.runtime.sendMessage(r), request),
    /** The tab ids the service worker has an open socket for, with their status. */
    connections: () =>
      ext.evaluate(async () => {
        const state = await chrome.runtime.sendMessage({ type: "ui:state" });
        return state.tabs.filter((t) => t.connection !== null).map((t) => t.connection);
      }),
    serviceWorker: () => serviceWorkerSession(context, ext, extensionId),
  };
}

/**
 * A CDP session on the extension's service worker: found with Target.getTargets from the extension page's
 * session and attached unflattened (Playwright's CDPSession does not route flattened child sessions), so
 * commands go through Target.sendMessageToTarget and answers come back as receivedMessageFromTarget.
 */
async function serviceWorkerSession(context, page, extensionId) {
  const cdp = await context.newCDPSession(page);
  const { targetInfos } = await cdp.send("Target.getTargets");
  const target = targetInfos.find(
    (t) => t.type === "service_worker" && t.url.startsWith(`chrome-extension://${extensionId}/`),
  );
  if (!target) throw new Error("the extension's service worker is not running");
  const { sessionId } = await cdp.send("Target.attachToTarget", {
    targetId: target.targetId,
    flatten: false,
  });
  let next = 0;
  const pending = new Map();
  cdp.on("Target.receivedMessageFromTarget", (event) => {
    if (event.sessionId !== sessionId) return;
    const message = JSON.parse(event.message);
    const settle = pending.get(message.id);
    if (!settle) return;
    pending.delete(message.id);
    if (message.error) settle.reject(new Error(`${message.error.message} (${message.error.code})`));
    else settle.resolve(message.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject });
      cdp
        .send("Target.sendMessageToTarget", { sessionId, message: JSON.stringify({ id, method, params }) })
        .catch(reject);
    });
  return {
    send,
    /** After a full GC: V8's used and allocated heap of the service worker's isolate, in bytes. */
    async heap() {
      await send("HeapProfiler.collectGarbage");
      const usage = await send("Runtime.getHeapUsage");
      return { used: usage.usedSize, total: usage.totalSize };
    },
    async close() {
      await cdp.send("Target.detachFromTarget", { sessionId }).catch(() => {});
      await cdp.detach().catch(() => {});
    },
  };
}
