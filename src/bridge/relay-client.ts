// The tab's side of the relay: pairs with a channel, keeps the provider token (per hub origin, in
// localStorage; pairing.ts), holds the WebSocket to /relay/:channelId with backoff, publishes the registry's
// tools and runs the hub's calls (approval first when asked, an AbortSignal tied to cancel and timeout,
// results normalised). Frames are the ones of src/protocol/frames.ts; only their types are imported (no zod).
// Part of /bridge-relay.js (relay.ts), which /bridge.js imports from the hub when the page pairs or is paired
// (relay-loader.ts). window.webmcpHub is /bridge.js's stand-in (RelayHub); this client gets the live objects
// it needs from there (the registry, the approval dialog, storage, the stand-in to fire events on), so it
// imports no value from registry.ts, frames.ts or model-context.ts: the page keeps one registry.
import type { CallFrame, HelloFrame, ProviderFrame } from "../protocol/frames.js";
import type { CallToolResult } from "../protocol/results.js";
import { AlwaysAllowed, type ApprovalDecision, type ApprovalRequest } from "./approval.js";
import { readVerification } from "../protocol/verification-text.js";
import { widgetRoot, type BridgeUi } from "./ui-loader.js";
import { alwaysKey, forgetStored, pairingKey, parsePairing, readStored, type Pairing } from "./pairing.js";
import type { ToolRegistry } from "./registry.js";
import { CLOSE_CODES, RELAY_SUBPROTOCOL } from "../protocol/relay-socket.js";
import { backoffMs, frameText, toolsFrameText } from "./relay-frames.js";
import { errorResult, messageOf, runTool } from "./results.js";

/** "extension": the webmcp-hub browser extension relays this page (extension-mark.ts), so this client never
 *  connects: one relay per tab. */
export type HubStatus = "unpaired" | "connecting" | "connected" | "extension";

export const BRIDGE_VERSION = "bridge/0.1.0";

export interface RelayClientOptions {
  /** The hub's origin, from the bridge script's own src. */
  hubOrigin: string;
  /** The tools to relay: the registry, or in the top-level document RelayTools (frames.ts: frames' tools too).
   *  Its changes are announced by calling toolsChanged(). */
  registry: Pick<ToolRegistry, "list" | "get">;
  /** localStorage, or null where the page may not use it (the pairing then lasts for this page). */
  storage: Storage | null;
  /** In a subframe: true once the top-level document's bridge is known to relay the tab (frames.ts), so this
   *  one never connects. */
  relayedByTop?: () => boolean;
  /** /bridge.js's loader of /bridge-ui.js (ui-loader.ts), where the approval dialog is. */
  ui(): Promise<typeof BridgeUi>;
  /** window.webmcpHub (RelayHub): the state the page sees, kept there by this client, and where
   *  `statuschange` and `toolschange` are fired. */
  hub: HubState;
}

/** What the page reads on window.webmcpHub; written by the client, read by the widget and page scripts. */
export interface HubState extends EventTarget {
  status: HubStatus;
  /** The last problem worth telling the user (a refused token, a failed pairing), or "". */
  problem: string;
  /** How many tools the hub was last sent. */
  toolCount: number;
}

interface RunningCall {
  name: string;
  controller: AbortController;
}

/** The relay of one tab. The webmcp-hub extension's case (HubStatus "extension") is RelayHub's: the relay then
 *  never loads. */
export class RelayClient {
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
    this.key = pairingKey(o.hubOrigin);
    this.pairing = this.read();
    // The page's lifecycle, for as long as the page lives (before this client loaded, RelayHub watched
    // `storage` alone: nothing else matters without a client).
    addEventListener("pagehide", () => this.pageHidden());
    addEventListener("pageshow", (e) => e.persisted && this.start());
    addEventListener("focus", () => this.pageActive());
    addEventListener("storage", (e) => this.storageChanged(e.key));
    document.addEventListener(
      "visibilitychange",
      () => document.visibilityState === "visible" && this.pageActive(),
    );
  }

  get channelId(): string | null {
    return this.pairing?.channelId ?? null;
  }

  /** Connects with the stored token, if there is one and no socket is open (at start, and when the page is
   *  shown again from the back/forward cache). */
  start(): void {
    if (this.pairing && !this.ws) this.connect();
  }

  /** Redeems a pairing code for this page's origin, keeps the token and connects. (RelayHub has refused it
   *  already where the extension or the top-level document relays the tab.) */
  async pair(code: string): Promise<{ channelId: string }> {
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
    const paired = res.ok ? parsePairing(JSON.stringify(body)) : null;
    if (!paired) {
      const error = (body as { error?: { message?: unknown } } | null)?.error?.message;
      throw this.fail(typeof error === "string" ? error : `Pairing failed (HTTP ${res.status}).`);
    }
    this.stop();
    this.pairing = paired;
    this.write(JSON.stringify(paired));
    this.attempt = this.refusals = 0;
    this.o.hub.problem = "";
    this.connect();
    return { channelId: paired.channelId };
  }

  /** The top-level document's bridge relays this frame: close the socket, and connect no more. */
  standAside(): void {
    if (this.o.hub.status !== "connecting" && this.o.hub.status !== "connected") return;
    this.stop();
    this.setStatus("unpaired");
  }

  /** Disconnects this tab (and the other tabs of this origin) and forgets the token. */
  disconnect(): void {
    this.forget("");
  }

  // ------------------------------------------------------------------------------------------------------
  // Page lifecycle (the constructor's listeners).

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

  /** The page became visible or focused: tell the hub this tab is the most recently active one. */
  pageActive(): void {
    if (this.welcomed) this.hello();
  }

  /** Another tab of this origin paired or disconnected (the `storage` event). */
  storageChanged(key: string | null): void {
    if (key !== null && key !== this.key) return;
    const next = this.read();
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
    if (code === CLOSE_CODES.unauthorized)
      return this.forget("This tab's access to the channel was revoked. Pair again.");
    if (code === CLOSE_CODES.forbidden)
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
    ws?.close(CLOSE_CODES.normal, "bye");
  }

  private forget(problem: string): void {
    this.stop();
    forgetStored(this.o.storage, this.key);
    this.pairing = null;
    this.o.hub.problem = problem;
    this.setStatus("unpaired", true);
  }

  private fail(problem: string): Error {
    this.o.hub.problem = problem;
    this.setStatus(this.o.hub.status, true);
    return new Error(problem);
  }

  private setStatus(status: HubStatus, force = false): void {
    if (status === this.o.hub.status && !force) return;
    this.o.hub.status = status;
    this.o.hub.dispatchEvent(new CustomEvent("statuschange", { detail: { status } }));
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
        this.o.hub.problem = "";
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

  /** The registry's tools changed (RelayHub listens to the registry). */
  toolsChanged(): void {
    clearTimeout(this.toolsTimer);
    // The registry batches per microtask; this also joins changes spread over a few tasks.
    this.toolsTimer = setTimeout(() => this.sendTools(), 10);
  }

  private sendTools(): void {
    clearTimeout(this.toolsTimer);
    if (!this.welcomed) return;
    const { text, sent, warnings } = toolsFrameText(this.o.registry.list());
    for (const warning of warnings) console.warn(`webmcp-hub: ${warning}`);
    this.o.hub.toolCount = sent;
    if (this.ws?.readyState === 1) this.ws.send(text);
    this.o.hub.dispatchEvent(new Event("toolschange"));
  }

  // ------------------------------------------------------------------------------------------------------
  // Calls.

  private allowed(pairing: Pairing): AlwaysAllowed {
    return new AlwaysAllowed(this.o.storage, alwaysKey(this.key, pairing.channelId));
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
          const decision = await this.approve({
            // Capped here too (frames.ts: 128 and LIMITS.clientNameMax): the dialog must stay readable.
            agent: String(call.approval.agent).slice(0, 128),
            client: typeof call.approval.client === "string" ? call.approval.client.slice(0, 64) : undefined,
            verification: readVerification(call.approval.verification),
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

  /** Shows the approval dialog (in the page's first widget; one is added if there is none). No dialog, no
   *  approval: the call is not run, and the agent is told why. */
  private approve(request: ApprovalRequest): Promise<ApprovalDecision> {
    return this.o.ui().then(
      (m) => m.askApproval(widgetRoot(), request),
      (e: unknown) => {
        throw new Error(
          `The approval dialog could not load, so ${request.tool} was not run: ${messageOf(e)}.`,
        );
      },
    );
  }

  private abortCalls(reason: string): void {
    for (const call of this.calls.values()) call.controller.abort(new DOMException(reason, "AbortError"));
    this.calls.clear();
  }

  // ------------------------------------------------------------------------------------------------------
  // Storage.

  private read(): Pairing | null {
    return parsePairing(readStored(this.o.storage, this.key));
  }

  private write(value: string): void {
    try {
      this.o.storage?.setItem(this.key, value);
    } catch {
      // Storage blocked or full: the pairing lasts for this page only.
    }
  }
}
