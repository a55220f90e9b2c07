// The frame tree: lets document.modelContext span every document of the tab, as the WebMCP draft says and
// Chromium does, with the bridge instances of a tab's documents talking through one namespaced, versioned
// postMessage key. Calls go by message for every frame (one path, each tool run in its own realm); listing
// reads same-origin documents directly and caches other origins' tools, so getTools() never waits. The
// messages, the permissions-policy rule and the decisions: docs/bridge-protocol.md, "The frame tree".
import type { ToolAnnotations } from "../protocol/tool.js";
import { CHANGE_EVENT, type RegisteredTool, type ToolRegistry } from "./registry.js";
import { isObject } from "./schema-check.js";

const KEY = "webmcp-hub/frames";
const VERSION = 1;
/** Where a document's frame layer is, for same-origin documents to read its tools directly. */
const SLOT = Symbol.for("webmcp-hub.frames");

/** A tool as another document sees it (data only: a RegisteredTool without window and origin). */
export interface FrameTool {
  name: string;
  title?: string | undefined;
  description: string;
  /** Absent when the tool was registered without one (getTools() then shows none either). */
  inputSchema?: Record<string, unknown> | undefined;
  annotations: ToolAnnotations;
}

export interface FrameCall {
  validate: boolean;
  /** The owner answers with its relay result (a CallToolResult) rather than executeTool's string. */
  raw: boolean;
  signal?: AbortSignal | undefined;
}

/** What the document's ModelContext gives the frame layer. */
export interface FrameHost {
  /** This document's tools exposed to `origin` (its own origin sees all of them). */
  exposed(origin: string): FrameTool[];
  /** Its own origin and every origin one of its tools is exposed to. */
  origins(): Iterable<string>;
  /** Runs a tool for a caller of `callerOrigin`; rejects with a DOMException. */
  run(
    name: string,
    input: Record<string, unknown>,
    callerOrigin: string,
    call: FrameCall & { signal: AbortSignal },
  ): Promise<unknown>;
  /** The tools visible here from other documents changed. */
  changed(): void;
}

export interface Peer {
  origin: string;
  json: string;
  tools: FrameTool[];
}

type Message = Record<string, unknown>;
interface Pending {
  win: Window;
  resolve(value: unknown): void;
  reject(e: unknown): void;
}

/** Every window of the tab, in tree order (depth first from window.top). */
export function frameTree(): Window[] {
  const out: Window[] = [];
  const walk = (w: Window) => {
    out.push(w);
    try {
      for (let i = 0; i < w.frames.length; i++) walk(w.frames[i] as Window);
    } catch {}
  };
  walk(window.top ?? window);
  return out;
}

const originOf = (url: string): string | undefined => {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * Whether an <iframe allow="…"> attribute grants `tools` to a child of `origin`: undefined when it does not
 * name the feature (the default allowlist 'self' then decides). Parsed as Permissions Policy's iframe
 * attribute: `tools` alone means 'src'; `*`, 'self', 'src', 'none' and origins are understood.
 */
export function allowGrants(allow: string, origin: string, src: string, self: string): boolean | undefined {
  for (const directive of allow.split(";")) {
    const [feature, ...list] = directive.trim().split(/\s+/);
    if (feature !== "tools") continue;
    return (list.length ? list : ["'src'"]).some(
      (item) =>
        item === "*" ||
        (item === "'src'" && originOf(src) === origin) ||
        (item === "'self'" && origin === self) ||
        originOf(item) === origin,
    );
  }
  return undefined;
}

export class Frames extends EventTarget {
  /** Other documents' tools exposed to this one, by their window. */
  readonly peers = new Map<Window, Peer>();
  /** True once window.top's bridge said hello or hi (a subframe's relay stands aside). */
  topHasBridge = window.top === window;
  /** This frame's parent says its permissions policy does not allow `tools` here. */
  denied = false;
  private readonly announced = new Set<string>();
  private readonly deniedChildren = new WeakSet<Window>();
  /** Windows whose document said hello since their iframe last loaded (it has a bridge). */
  private readonly greeted = new WeakSet<Window>();
  private readonly pending = new Map<number, Pending>();
  private readonly running = new Map<MessageEventSource, Map<number, AbortController>>();
  private nextId = 1;
  private timer = false;

  constructor(private readonly host: FrameHost) {
    super();
    if (!Object.hasOwn(window, SLOT)) Object.defineProperty(window, SLOT, { value: this }); // first one wins
    addEventListener("message", (e) => this.onMessage(e));
    addEventListener("pagehide", () => this.broadcast({ t: "bye" }));
    // An iframe of this document that loaded a new document without saying hello has no bridge any more:
    // what its previous document offered goes (a navigated frame's window outlives its document).
    document.addEventListener(
      "load",
      (e) => {
        const w = e.target instanceof HTMLIFrameElement ? e.target.contentWindow : null;
        if (!w) return;
        if (!this.greeted.has(w)) this.prune(w);
        this.greeted.delete(w);
      },
      true,
    );
    this.broadcast({ t: "hello" });
  }

  /** This document's tools changed: tell every window (joined per task). */
  announce(): void {
    if (this.timer || this.denied) return;
    this.timer = true;
    queueMicrotask(() => {
      this.timer = false;
      const wins = frameTree().filter((w) => w !== window && !this.deniedChildren.has(w));
      for (const origin of this.host.origins()) this.announced.add(origin);
      for (const origin of this.announced) {
        const msg = this.msg({ t: "tools", tools: this.host.exposed(origin) });
        for (const w of wins) this.post(w, msg, origin);
      }
    });
  }

  /** What this document offers a same-origin one that reads it directly. */
  direct(): Peer | undefined {
    if (this.denied) return undefined;
    const tools = this.host.exposed(origin);
    return tools.length ? { origin, json: "", tools } : undefined;
  }

  /**
   * The tools `w` exposes to this document: read directly from a same-origin document's bridge (current, even
   * before its message arrives: a parent may register in its child and call getTools() at once, as WPT does),
   * else from the cache of its messages.
   */
  peer(w: Window): Peer | undefined {
    let other: unknown;
    try {
      other = (w as unknown as Record<symbol, unknown>)[SLOT];
    } catch {} // cross-origin: the cache
    if (isObject(other) && typeof other.direct === "function" && !this.denied)
      return (other as unknown as Frames).direct();
    return this.peers.get(w);
  }

  /** Other documents' tools exposed to this one, in tree order; closed windows dropped. */
  list(): Array<[Window, Peer]> {
    this.prune();
    return frameTree().flatMap((w) => {
      const peer = w === window ? undefined : this.peer(w);
      return peer ? [[w, peer] as [Window, Peer]] : [];
    });
  }

  /** Runs `name` in the document of `win` (of origin `origin`); rejects with the owner's DOMException. */
  call(win: Window, origin: string, name: string, input: unknown, call: FrameCall): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const id = this.nextId++;
      this.pending.set(id, { win, resolve, reject });
      const { signal, validate, raw } = call;
      signal?.addEventListener(
        "abort",
        () => {
          // The caller answers its own abort; the owner's tool gets an AbortError on its signal.
          this.pending.delete(id);
          this.post(win, this.msg({ t: "abort", id }), origin);
          reject(signal.reason);
        },
        { once: true },
      );
      this.post(win, this.msg({ t: "call", id, name, input, validate, raw }), origin);
    });
  }

  /** Other documents' tools changed: toolchange here, and CHANGE_EVENT for the relay. */
  private changed(): void {
    this.host.changed();
    this.dispatchEvent(new Event(CHANGE_EVENT));
  }

  private msg(body: Message): Message {
    return { [KEY]: VERSION, ...body };
  }

  private post(w: Window, msg: Message, origin: string): void {
    try {
      w.postMessage(msg, origin);
    } catch {} // a closed window, or a value structuredClone refuses (answered below where it matters)
  }

  private broadcast(body: Message): void {
    const msg = this.msg(body);
    for (const w of frameTree()) if (w !== window) this.post(w, msg, "*");
  }

  /** Drops closed windows (removed iframes) and `gone`; fails their calls; toolchange if tools went. */
  private prune(gone?: Window): void {
    let changed = false;
    for (const w of this.peers.keys()) if (w === gone || w.closed) changed = this.peers.delete(w) || changed;
    for (const [id, p] of this.pending)
      if (p.win === gone || p.win.closed) {
        this.pending.delete(id);
        p.reject(new DOMException("The tool's document went away.", "UnknownError"));
      }
    if (changed) this.changed();
  }

  private onMessage(e: MessageEvent): void {
    const d: unknown = e.data;
    if (!isObject(d) || d[KEY] !== VERSION) return;
    e.stopImmediatePropagation(); // the protocol is the bridge's business, not the page's listeners'
    const src = e.source as Window | null;
    if (!src || src === window) return;
    if (src === window.top && (d.t === "hello" || (d.t === "hi" && d.top === true))) this.topHasBridge = true;
    if (d.t === "hello") {
      // A hello is a new document in that window: whatever its previous document offered is gone.
      this.prune(src);
      this.greeted.add(src);
      const denied = this.denied || this.deniesChild(src, e.origin);
      if (denied) this.deniedChildren.add(src);
      this.post(src, this.msg({ t: "hi", top: window.top === window, denied }), "*");
      if (!denied) this.sendTools(src);
      this.dispatchEvent(new Event("hi"));
      return;
    }
    if (d.t === "hi") {
      if (d.denied === true && src === window.parent && !this.denied) {
        this.denied = true;
        const had = this.peers.size > 0;
        this.peers.clear();
        if (had) this.changed();
      }
      this.dispatchEvent(new Event("hi"));
      return;
    }
    if (this.denied || this.deniedChildren.has(src)) return;
    switch (d.t) {
      case "tools":
        return this.onTools(src, e.origin, d.tools);
      case "bye":
        return this.prune(src);
      case "call":
        return void this.onCall(src, e.origin, d);
      case "abort":
        this.running
          .get(src)
          ?.get(Number(d.id))
          ?.abort(new DOMException("The caller aborted the call.", "AbortError"));
        return;
      case "result": {
        const p = this.pending.get(Number(d.id));
        if (!p || p.win !== src) return;
        this.pending.delete(Number(d.id));
        if (d.ok === true) p.resolve(d.value);
        else p.reject(new DOMException(String(d.message ?? ""), String(d.name ?? "UnknownError")));
      }
    }
  }

  private sendTools(w: Window): void {
    for (const origin of this.host.origins()) this.announced.add(origin);
    for (const origin of this.announced)
      this.post(w, this.msg({ t: "tools", tools: this.host.exposed(origin) }), origin);
  }

  /** A direct child whose <iframe allow> does not grant `tools` to its origin (default allowlist 'self'). */
  private deniesChild(src: Window, origin: string): boolean {
    if (src.parent !== window) return false;
    for (const el of document.querySelectorAll<HTMLIFrameElement>("iframe,frame"))
      if (el.contentWindow === src)
        return !(
          allowGrants(el.getAttribute("allow") ?? "", origin, el.src, location.origin) ??
          origin === location.origin
        );
    return false;
  }

  private onTools(src: Window, origin: string, tools: unknown): void {
    if (!Array.isArray(tools)) return;
    const json = JSON.stringify(tools);
    const before = this.peers.get(src);
    if (before?.json === json && before.origin === origin) return;
    if (tools.length) this.peers.set(src, { origin, json, tools: tools as FrameTool[] });
    else this.peers.delete(src);
    if (before || tools.length) this.changed();
  }

  private async onCall(src: Window, origin: string, d: Message): Promise<void> {
    const id = Number(d.id);
    const controller = new AbortController();
    let calls = this.running.get(src);
    if (!calls) this.running.set(src, (calls = new Map()));
    calls.set(id, controller);
    let answer: Message;
    try {
      const input = isObject(d.input) || Array.isArray(d.input) ? (d.input as Record<string, unknown>) : {};
      const value = await this.host.run(String(d.name), input, origin, {
        validate: d.validate !== false,
        raw: d.raw === true,
        signal: controller.signal,
      });
      answer = { t: "result", id, ok: true, value };
    } catch (e) {
      const ex = e instanceof DOMException ? e : new DOMException(String(e), "UnknownError");
      answer = { t: "result", id, ok: false, name: ex.name, message: ex.message };
    } finally {
      calls.delete(id);
      if (!calls.size) this.running.delete(src);
    }
    try {
      src.postMessage(this.msg(answer), origin);
    } catch {
      this.post(src, this.msg({ t: "result", id, ok: false, name: "DataCloneError", message: "" }), origin);
    }
  }
}

/**
 * What the top-level document's relay offers: the registry's tools first, then the frames' tools exposed to
 * this document, in tree order, each with its frame's origin (frameOrigin, relayed in `_meta`) and run there
 * through the protocol without the input check (the hub validated the call). A frame tool whose name is taken
 * already is left out with a warning (once per name and frame origin).
 */
export class RelayTools extends EventTarget {
  private readonly warned = new Set<string>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly frames: Frames,
  ) {
    super();
    const changed = () => this.dispatchEvent(new Event(CHANGE_EVENT));
    registry.addEventListener(CHANGE_EVENT, changed);
    frames.addEventListener(CHANGE_EVENT, changed);
  }

  list(): RegisteredTool[] {
    const tools = this.registry.list();
    const names = new Set(tools.map((t) => t.name));
    for (const [win, { origin, tools: theirs }] of this.frames.list())
      for (const t of theirs) {
        if (names.has(t.name)) {
          const key = `${t.name} ${origin}`;
          if (!this.warned.has(key))
            console.warn(
              `webmcp-hub: the tool "${t.name}" of a frame (${origin}) is not relayed: its name is taken.`,
            );
          this.warned.add(key);
          continue;
        }
        names.add(t.name);
        tools.push({
          name: t.name,
          ...(t.title ? { title: t.title } : {}),
          description: t.description,
          inputSchema: t.inputSchema ?? { type: "object", properties: {} },
          annotations: t.annotations,
          source: "current",
          frameOrigin: origin,
          execute: (input, client) =>
            this.frames.call(win, origin, t.name, input, {
              validate: false,
              raw: true,
              signal: client.signal,
            }),
        });
      }
    return tools;
  }

  get(name: string): RegisteredTool | undefined {
    return this.list().find((t) => t.name === name);
  }
}
