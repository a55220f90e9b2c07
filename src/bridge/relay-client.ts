// The tab's side of the relay: pairs with a channel, keeps the provider token (per hub origin, in
// localStorage), holds the WebSocket to /relay/:channelId with backoff, publishes the registry's tools and
// runs the hub's calls (approval first when asked, an AbortSignal tied to cancel and timeout, results
// normalised). Frames are the ones of src/protocol/frames.ts; only their types are imported (no zod here).
import type { CallFrame, HelloFrame, ProviderFrame } from "../protocol/frames.js";
import type { CallToolResult } from "../protocol/results.js";
import { AlwaysAllowed, type ApprovalDecision, type ApprovalRequest } from "./approval.js";
import { CHANGE_EVENT, type ToolRegistry } from "./registry.js";
import {
  CLOSE_ORIGIN_REFUSED,
  CLOSE_TOKEN_REFUSED,
  backoffMs,
  frameText,
  toolsFrameText,
} from "./relay-frames.js";
import { errorResult, messageOf, runTool } from "./results.js";

/** "extension": the webmcp-hub browser extension relays this page (extension-mark.ts), so this client never
 *  connects: one relay per tab. */
export type HubStatus = "unpaired" | "connecting" | "connected" | "extension";

export { RELAY_SUBPROTOCOL } from "./relay-frames.js";
import { RELAY_SUBPROTOCOL } from "./relay-frames.js";
export const BRIDGE_VERSION = "bridge/0.1.0";

interface Pairing {
  channelId: string;
  providerToken: string;
  relayUrl: string;
}

export interface RelayClientOptions {
  /** The hub's origin, from the bridge script's own src. */
  hubOrigin: string;
  /** The tools to relay: the registry, or in the top-level document RelayTools (frames.ts: frames' tools too). */
  registry: Pick<ToolRegistry, "list" | "get"> & EventTarget;
  /** localStorage, or null where the page may not use it (the pairing then lasts for this page). */
  storage: Storage | null;
  /** The webmcp-hub extension relays this page: never connect (see HubStatus "extension"). */
  viaExtension?: boolean;
  /** In a subframe: true once the top-level document's bridge is known to relay the tab (frames.ts), so this
   *  one never connects. */
  relayedByTop?: () => boolean;
  /** Shows the approval dialog. */
  approve(request: ApprovalRequest): Promise<ApprovalDecision>;
}

interface RunningCall {
  name: string;
  controller: AbortController;
}

export class RelayClient extends EventTarget {
  status: HubStatus = "unpaired";
  /** The last problem worth telling the user (a refused token, a failed pairing), or "". */
  problem = "";
  /** How many tools the hub was last sent. */
  toolCount = 0;
  private pairing: Pairing | null = null;
  private ws: WebSocket | null = null;
  private welcomed = false;
  private attempt = 0;
  private refusals = 0;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private toolsTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly calls = new Map<string, RunningCall>();
  private readonly key: string;

  constructor(private readonly o: RelayClientOptions) {
    super();
    this.key = `webmcp-hub:${o.hubOrigin}`;
    this.pairing = this.load(this.read());
    o.registry.addEventListener(CHANGE_EVENT, () => this.scheduleTools());
  }

  get hubOrigin(): string {
    return this.o.hubOrigin;
  }

  get channelId(): string | null {
    return this.pairing?.channelId ?? null;
  }

  /** Connects with the stored token, if there is one, unless the extension relays this page. */
  start(): void {
    if (this.o.viaExtension) this.setStatus("extension");
    else if (this.pairing) this.connect();
  }

  /** Redeems a pairing code for this page's origin, keeps the token and connects. */
  async pair(code: string): Promise<{ channelId: string }> {
    if (this.o.viaExtension)
      throw this.fail(
        "The webmcp-hub browser extension relays this page: pair the extension and allow this site in its popup.",
      );
    if (this.o.relayedByTop?.())
      throw this.fail("The page this frame is in relays its tools: pair that page instead.");
    let res: Response;
    try {
      res = await fetch(`${this.o.hubOrigin}/api/pair`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ code: String(code), kind: "tab" }),
      });
    } catch {
      throw this.fail(`Could not reach the hub at ${this.o.hubOrigin}. Check your connection and try again.`);
    }
    const body: unknown = await res.json().catch(() => null);
    const paired = res.ok ? this.load(JSON.stringify(body)) : null;
    if (!paired) {
      const error = (body as { error?: { message?: unknown } } | null)?.error?.message;
      throw this.fail(typeof error === "string" ? error : `Pairing failed (HTTP ${res.status}).`);
    }
    this.stop();
    this.pairing = paired;
    this.write(JSON.stringify(paired));
    this.attempt = this.refusals = 0;
    this.problem = "";
    this.connect();
    return { channelId: paired.channelId };
  }

  /** The top-level document's bridge relays this frame: close the socket, and connect no more. */
  standAside(): void {
    if (this.status !== "connecting" && this.status !== "connected") return;
    this.stop();
    this.setStatus("unpaired");
  }

  /** Disconnects this tab (and the other tabs of this origin) and forgets the token. */
  disconnect(): void {
    this.forget("");
  }

  // ------------------------------------------------------------------------------------------------------
  // Page lifecycle, called by index.ts.

  /** The page is being hidden or unloaded: its running calls fail now, then the socket closes. */
  pageHidden(): void {
    for (const [id, call] of this.calls) {
      this.send({
        type: "result",
        id,
        result: errorResult(
          `The page navigated away before ${call.name} finished; the call did not complete.`,
        ),
      });
      call.controller.abort(new DOMException("The page navigated away.", "AbortError"));
    }
    this.calls.clear();
    this.stop();
  }

  /** The page is shown again (back/forward cache): reconnect. */
  pageShown(): void {
    if (this.pairing && !this.ws && !this.o.viaExtension) this.connect();
  }

  /** The page became visible or focused: tell the hub this tab is the most recently active one. */
  pageActive(): void {
    if (this.welcomed) this.hello();
  }

  /** Another tab of this origin paired or disconnected (the `storage` event). */
  storageChanged(key: string | null): void {
    if (this.o.viaExtension || (key !== null && key !== this.key)) return;
    const next = this.load(this.read());
    if (JSON.stringify(next) === JSON.stringify(this.pairing)) return;
    this.stop();
    this.pairing = next;
    this.attempt = this.refusals = 0;
    if (next) this.connect();
    else this.setStatus("unpaired");
  }

  // ------------------------------------------------------------------------------------------------------
  // Connection.

  private connect(): void {
    clearTimeout(this.retryTimer);
    const pairing = this.pairing;
    if (!pairing || this.o.relayedByTop?.()) return;
    this.setStatus("connecting");
    let ws: WebSocket;
    try {
      ws = new WebSocket(pairing.relayUrl, [RELAY_SUBPROTOCOL, pairing.providerToken]);
    } catch {
      this.forget("The stored pairing is not usable. Pair this tab again.");
      return;
    }
    this.ws = ws;
    this.welcomed = false;
    let opened = false;
    ws.onopen = () => (opened = true);
    ws.onmessage = (e) => this.onFrame(e.data);
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.welcomed = false;
      this.abortCalls("The connection to the hub closed.");
      void this.closed(e.code, opened);
    };
  }

  private async closed(code: number, opened: boolean): Promise<void> {
    const pairing = this.pairing;
    if (code === CLOSE_TOKEN_REFUSED)
      return this.forget("This tab's access to the channel was revoked. Pair again.");
    if (code === CLOSE_ORIGIN_REFUSED)
      return this.forget(
        "The hub does not accept this pairing from this page's origin. Pair this tab again.",
      );
    if (opened) this.refusals = 0;
    else if (await this.hubAnswers()) {
      if (this.pairing !== pairing || this.ws) return; // paired again or reconnected meanwhile
      // The hub is up but refused the upgrade over HTTP. This hub tells a page why in band (close 4001 or
      // 4003); for a hub that does not, two refusals in a row while it answers mean the token is refused.
      if (++this.refusals >= 2)
        return this.forget("The hub no longer accepts this tab's pairing (revoked or expired). Pair again.");
    }
    if (!this.pairing || this.pairing !== pairing || this.ws) return;
    const delay = backoffMs(this.attempt++);
    this.setStatus("connecting");
    clearTimeout(this.retryTimer);
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  /** True when the hub answers HTTP at all (an opaque no-cors response is enough). */
  private async hubAnswers(): Promise<boolean> {
    try {
      await fetch(`${this.o.hubOrigin}/healthz`, { mode: "no-cors", cache: "no-store" });
      return true;
    } catch {
      return false;
    }
  }

  private stop(): void {
    clearTimeout(this.retryTimer);
    this.abortCalls("The tab disconnected from the hub.");
    const ws = this.ws;
    this.ws = null;
    this.welcomed = false;
    ws?.close(1000, "bye");
  }

  private forget(problem: string): void {
    this.stop();
    if (this.pairing) this.allowed(this.pairing).clear();
    this.pairing = null;
    this.problem = problem;
    try {
      this.o.storage?.removeItem(this.key);
    } catch {
      // blocked storage: nothing was kept
    }
    this.setStatus("unpaired", true);
  }

  private fail(problem: string): Error {
    this.problem = problem;
    this.setStatus(this.status, true);
    return new Error(problem);
  }

  private setStatus(status: HubStatus, force = false): void {
    if (status === this.status && !force) return;
    this.status = status;
    this.dispatchEvent(new CustomEvent("statuschange", { detail: { status } }));
  }

  /** Sends a frame; one over the hub's limit (UTF-8 bytes) would close the socket, so it is never sent. */
  private send(frame: ProviderFrame): void {
    if (this.ws?.readyState !== 1) return;
    const text = frameText(frame);
    if (text === null) console.warn(`webmcp-hub: a ${frame.type} frame is over the hub's limit; not sent.`);
    else this.ws.send(text);
  }

  // ------------------------------------------------------------------------------------------------------
  // Frames.

  private onFrame(data: unknown): void {
    let frame: { type?: unknown; id?: unknown; reason?: unknown; message?: unknown };
    try {
      frame = JSON.parse(String(data)) as typeof frame;
    } catch {
      return;
    }
    switch (frame.type) {
      case "welcome":
        this.welcomed = true;
        this.attempt = this.refusals = 0;
        this.problem = "";
        this.hello();
        this.sendTools();
        this.setStatus("connected", true);
        return;
      case "call":
        void this.run(frame as CallFrame);
        return;
      case "cancel":
        this.calls
          .get(String(frame.id))
          ?.controller.abort(new DOMException(String(frame.reason ?? "Cancelled."), "AbortError"));
        return;
      case "error":
        console.warn(`webmcp-hub: ${String(frame.message)}`);
        return;
    }
  }

  private hello(): void {
    const frame: HelloFrame = {
      type: "hello",
      kind: "tab",
      label: location.host.slice(0, 64),
      page: { url: location.href.slice(0, 2048), title: document.title.slice(0, 256) },
      version: BRIDGE_VERSION,
    };
    this.send(frame);
  }

  private scheduleTools(): void {
    clearTimeout(this.toolsTimer);
    // The registry batches per microtask; this also joins changes spread over a few tasks.
    this.toolsTimer = setTimeout(() => this.sendTools(), 10);
  }

  private sendTools(): void {
    clearTimeout(this.toolsTimer);
    if (!this.welcomed) return;
    const { text, sent, warnings } = toolsFrameText(this.o.registry.list());
    for (const warning of warnings) console.warn(`webmcp-hub: ${warning}`);
    this.toolCount = sent;
    if (this.ws?.readyState === 1) this.ws.send(text);
    this.dispatchEvent(new Event("toolschange"));
  }

  // ------------------------------------------------------------------------------------------------------
  // Calls.

  private allowed(pairing: Pairing): AlwaysAllowed {
    return new AlwaysAllowed(this.o.storage, `${this.key}:always:${pairing.channelId}`);
  }

  private async run(call: CallFrame): Promise<void> {
    const controller = new AbortController();
    const { signal } = controller;
    const running: RunningCall = { name: call.name, controller };
    this.calls.set(call.id, running);
    const timer = setTimeout(
      () => controller.abort(new DOMException(`Timed out after ${call.timeoutMs} ms.`, "TimeoutError")),
      call.timeoutMs,
    );
    let result: CallToolResult;
    let denied = false;
    try {
      const tool = this.o.registry.get(call.name);
      const pairing = this.pairing;
      if (!tool || !pairing) {
        result = errorResult(`This page (${location.host}) no longer offers the tool ${call.name}.`);
      } else {
        const allowed = this.allowed(pairing);
        if (call.approval && !allowed.has(call.name)) {
          const decision = await this.o.approve({
            // Capped here too (frames.ts: 128 and LIMITS.clientNameMax): the dialog must stay readable.
            agent: String(call.approval.agent).slice(0, 128),
            client: typeof call.approval.client === "string" ? call.approval.client.slice(0, 64) : undefined,
            origin: location.origin,
            tool: call.name,
            title: tool.title,
            args: call.arguments,
            signal,
          });
          if (decision === "always") allowed.add(call.name);
          denied = decision === "deny";
        }
        result = denied
          ? errorResult(`The user declined to run ${call.name}.`)
          : await runTool(tool, call.arguments, signal);
      }
    } catch (e) {
      result = errorResult(messageOf(e));
    } finally {
      clearTimeout(timer);
    }
    // Gone from the map: the page navigated away (already answered) or the socket closed (the hub
    // answered the agent). Aborted: cancelled or timed out, and the hub has answered the agent.
    if (this.calls.get(call.id) !== running || signal.aborted) return;
    this.calls.delete(call.id);
    this.send({ type: "result", id: call.id, result, ...(denied ? { denied: true } : {}) });
  }

  private abortCalls(reason: string): void {
    for (const call of this.calls.values()) call.controller.abort(new DOMException(reason, "AbortError"));
    this.calls.clear();
  }

  // ------------------------------------------------------------------------------------------------------
  // Storage.

  private read(): string | null {
    try {
      return this.o.storage?.getItem(this.key) ?? null;
    } catch {
      return null;
    }
  }

  private write(value: string): void {
    try {
      this.o.storage?.setItem(this.key, value);
    } catch {
      // Storage blocked or full: the pairing lasts for this page only.
    }
  }

  /** A stored or received pairing, if it has the three fields and nothing odd in them. */
  private load(text: string | null): Pairing | null {
    try {
      const p = JSON.parse(text ?? "null") as Partial<Pairing> | null;
      if (
        typeof p?.channelId === "string" &&
        typeof p.providerToken === "string" &&
        p.providerToken.startsWith("whr_") &&
        typeof p.relayUrl === "string" &&
        /^wss?:\/\//.test(p.relayUrl)
      ) {
        return { channelId: p.channelId, providerToken: p.providerToken, relayUrl: p.relayUrl };
      }
    } catch {
      // not JSON: treat as unpaired
    }
    return null;
  }
}
