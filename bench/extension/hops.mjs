// Where a relayed call's time goes, for bench/extension: stamps taken on the provider's side of the hub's
// WebSocket — when a `call` frame is parsed and when its `result` frame is sent — by wrapping JSON.parse and
// WebSocket.prototype.send in the realm that holds the socket: the /bridge.js page's main world, or the
// extension's service worker (over CDP), where the tab's chrome.runtime Port is stamped too (call posted to
// the tab, result back from it). Installed only after the timed round trips, so those pay nothing.
// Stamps are performance.timeOrigin + performance.now(): within one realm exact; across processes (agent
// in Node, service worker, page) the same system clock, good to a fraction of a millisecond.

/** Runs in the realm: records {id, recv, sent} per call in globalThis.__benchHops. Self-contained. */
export function installHopStamps() {
  if (globalThis.__benchHops) return;
  const hops = (globalThis.__benchHops = []);
  const now = () => performance.timeOrigin + performance.now();
  const parse = JSON.parse;
  JSON.parse = function (text, reviver) {
    const at = now();
    const value = parse.call(JSON, text, reviver);
    if (value && value.type === "call" && typeof value.id === "string") hops.push({ id: value.id, recv: at });
    return value;
  };
  const send = WebSocket.prototype.send;
  WebSocket.prototype.send = function (data) {
    if (typeof data === "string" && data.startsWith('{"type":"result"')) {
      const id = /"id":"([^"]*)"/.exec(data)?.[1];
      const hop = hops.findLast((h) => h.id === id);
      if (hop) hop.sent = now();
    }
    return send.call(this, data);
  };
  // In the service worker, also the line to the tab: when a call is posted to the tab's Port and when its
  // result comes back on it (Ports connected from now on; the bench reloads the tab after installing).
  const runtime = globalThis.chrome?.runtime;
  if (runtime?.onConnect) {
    runtime.onConnect.addListener((port) => {
      const post = port.postMessage;
      port.postMessage = function (message) {
        if (message?.type === "call") {
          const hop = hops.findLast((h) => h.id === message.id);
          if (hop) hop.posted = now();
        }
        return post.call(this, message);
      };
      port.onMessage.addListener((message) => {
        if (message?.type !== "result") return;
        const hop = hops.findLast((h) => h.id === message.id);
        if (hop) hop.back = now();
      });
    });
  }
}

/** Runs in the realm: the stamps so far, emptied. */
export function takeHopStamps() {
  return JSON.stringify((globalThis.__benchHops ?? []).splice(0));
}

/** In a Playwright page (the bridge's realm). */
export const pageRealm = (page) => ({
  install: () => page.evaluate(installHopStamps),
  take: async () => JSON.parse(await page.evaluate(takeHopStamps)),
});

/** In the extension's service worker, through the CDP session of chromium.mjs. */
export const serviceWorkerRealm = (sw) => {
  const evaluate = async (fn) => {
    const { result, exceptionDetails } = await sw.send("Runtime.evaluate", {
      expression: `(${fn})()`,
      returnByValue: true,
    });
    if (exceptionDetails) throw new Error(`in the service worker: ${JSON.stringify(exceptionDetails)}`);
    return result.value;
  };
  return {
    install: () => evaluate(installHopStamps),
    take: async () => JSON.parse(await evaluate(takeHopStamps)),
  };
};

/**
 * Runs in the extension tab's MAIN world: stamps when the extension's MAIN-world script reads a `call`
 * that came over its MessagePort from the ISOLATED world (the `data` getter of MessageEvent, which that
 * script reads first thing; the ISOLATED world has prototypes of its own, so it is not stamped).
 */
export function installMainWorldStamps() {
  if (globalThis.__benchMain) return;
  const seen = (globalThis.__benchMain = []);
  const data = Object.getOwnPropertyDescriptor(MessageEvent.prototype, "data");
  Object.defineProperty(MessageEvent.prototype, "data", {
    configurable: true,
    get() {
      const at = performance.timeOrigin + performance.now();
      const value = data.get.call(this);
      if (this.target instanceof MessagePort && value?.type === "call") seen.push({ id: value.id, at });
      return value;
    },
  });
}

export function takeMainWorldStamps() {
  return JSON.stringify((globalThis.__benchMain ?? []).splice(0));
}

/**
 * Runs in the extension tab's ISOLATED world (evaluated there over CDP): stamps when the ISOLATED-world
 * script forwards a `call` to the MAIN world (MessagePort.prototype.postMessage of that world).
 */
export function installIsolatedWorldStamps() {
  if (globalThis.__benchIsolated) return;
  const seen = (globalThis.__benchIsolated = []);
  const post = MessagePort.prototype.postMessage;
  MessagePort.prototype.postMessage = function (message, ...rest) {
    if (message?.type === "call")
      seen.push({ id: message.id, at: performance.timeOrigin + performance.now() });
    return post.call(this, message, ...rest);
  };
}

export function takeIsolatedWorldStamps() {
  return JSON.stringify((globalThis.__benchIsolated ?? []).splice(0));
}

/** The extension's ISOLATED world in `page` (a Playwright page), over CDP: `evaluate(fn)` runs fn there. */
export async function isolatedWorld(context, page, extensionId) {
  const cdp = await context.newCDPSession(page);
  const contexts = [];
  cdp.on("Runtime.executionContextCreated", ({ context: c }) => contexts.push(c));
  await cdp.send("Runtime.enable");
  const world = contexts.find(
    (c) => c.origin === `chrome-extension://${extensionId}` || c.name === "webmcp-hub",
  );
  if (!world)
    throw new Error(`no ISOLATED world of the extension in ${page.url()}: ${JSON.stringify(contexts)}`);
  return {
    async evaluate(fn) {
      const { result, exceptionDetails } = await cdp.send("Runtime.evaluate", {
        expression: `(${fn})()`,
        contextId: world.id,
        returnByValue: true,
      });
      if (exceptionDetails) throw new Error(`in the ISOLATED world: ${JSON.stringify(exceptionDetails)}`);
      return result.value;
    },
    close: () => cdp.detach().catch(() => {}),
  };
}
