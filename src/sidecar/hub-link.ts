// `webmcp-hub pair`: redeems a pairing code for a provider token, then keeps a WebSocket to the channel's
// relay (ARCHITECTURE.md "Relay frames"): hello + tools on every welcome, fs.search_by_time calls served by
// the same core as stdio (cancel frames and the call's timeout abort it; progress frames while it scans),
// and reconnection with exponential backoff and full jitter, so a hub restart costs a few seconds, not a pairing.
import WebSocket from "ws";
import {
  CLOSE_CODES,
  HubFrameSchema,
  LIMITS,
  RELAY_SUBPROTOCOL,
  type CallFrame,
  type CallToolResult,
  type HubFrame,
  type ProviderFrame,
  utf8ByteLength,
} from "../protocol/index.js";
import { InvalidArgumentsError } from "./errors.js";
import type { SearchRoot } from "./roots.js";
import type { ScanPool } from "./scan-pool.js";
import type { SearchLimits, SearchResult } from "./search.js";
import { TOOL_NAME, toolDescriptor } from "./tool.js";
import { callSearchTool, successResult, toolErrorResult } from "./tool-call.js";

export interface PairResponse {
  channelId: string;
  providerToken: string;
  relayUrl: string;
  label: string;
}

export class HubLinkError extends Error {
  override readonly name = "HubLinkError";
}

/** `POST {hub}/api/pair {code, kind: "sidecar", label}`; a refusal becomes one readable error. */
export async function redeemPairingCode(hub: string, code: string, label: string): Promise<PairResponse> {
  let res: Response;
  try {
    res = await fetch(new URL("/api/pair", hub), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ code, kind: "sidecar", label }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (e) {
    throw new HubLinkError(`The hub at ${hub} did not answer (${e instanceof Error ? e.message : e}).`);
  }
  const body = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (!res.ok) {
    const error = body?.error as { code?: string; message?: string } | undefined;
    throw new HubLinkError(
      `The hub refused the pairing code (HTTP ${res.status}${error?.code ? ` ${error.code}` : ""}): ${error?.message ?? "no details"}`,
    );
  }
  const { channelId, providerToken, relayUrl } = (body ?? {}) as Record<string, unknown>;
  if (typeof channelId !== "string" || typeof providerToken !== "string" || typeof relayUrl !== "string") {
    throw new HubLinkError(`The hub at ${hub} answered the pairing without a channel, token or relay URL.`);
  }
  const stored = typeof body?.label === "string" ? body.label : label;
  return { channelId, providerToken, relayUrl, label: stored };
}

export interface HubLinkOptions {
  relayUrl: string;
  providerToken: string;
  label: string;
  version: string;
  roots: readonly SearchRoot[];
  pool: ScanPool | null;
  limits?: Partial<SearchLimits>;
  /** Status lines for the user (stderr in the CLI). */
  log?: (line: string) => void;
  /** Backoff between reconnections: first delay and cap, in ms. */
  backoff?: { initialMs: number; maxMs: number };
  /** Ping interval; a connection that misses a pong for a whole interval is dropped and redialled. */
  pingEveryMs?: number;
  random?: () => number;
}

export type LinkState = "connecting" | "connected" | "waiting" | "stopped";

/** Frames larger than this (the relay's limit, less room for the envelope) are cut before they are sent. */
const FRAME_BUDGET = LIMITS.frameBytes - 4096;
/** Room left when choosing where to cut: the cut page's cursor and note differ a little from the full page's. */
const CUT_MARGIN = 16 * 1024;

/** Upgrade refusals that retrying cannot fix (a bad, revoked or foreign token; no such channel). */
const FATAL_HTTP = new Set([400, 401, 403, 404, 410]);
/** Close codes that mean the same: the owner revoked this provider token. */
const FATAL_CLOSE = new Set<number>([CLOSE_CODES.unauthorized]);

export class HubLink {
  private socket: WebSocket | null = null;
  private readonly inFlight = new Map<string, AbortController>();
  private attempt = 0;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private pingTimer: NodeJS.Timeout | null = null;
  private fatal: ((error: Error) => void) | null = null;
  private resolveStopped: (() => void) | null = null;
  private _state: LinkState = "connecting";
  /** Counts welcomes: 1 after the first connection, more after each reconnection. */
  welcomes = 0;
  providerId: string | null = null;

  constructor(private readonly options: HubLinkOptions) {}

  get state(): LinkState {
    return this._state;
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  /** Connects and keeps connecting; resolves when stop() is called, rejects when the hub refuses the token. */
  run(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.fatal = (error) => {
        this.shutdown();
        reject(error);
      };
      this.resolveStopped = resolve;
      this.connect();
    });
  }

  stop(): void {
    if (this.stopped) return;
    this.shutdown();
    this.resolveStopped?.();
  }

  private shutdown(): void {
    this.stopped = true;
    this._state = "stopped";
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.abortAll("The sidecar is shutting down.");
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState === WebSocket.OPEN) socket.close(1000, "sidecar stopping");
    else socket?.terminate();
  }

  private connect(): void {
    if (this.stopped) return;
    this._state = "connecting";
    const { relayUrl, providerToken } = this.options;
    const socket = new WebSocket(relayUrl, [RELAY_SUBPROTOCOL, providerToken], {
      perMessageDeflate: false,
      handshakeTimeout: 15_000,
      maxPayload: LIMITS.frameBytes,
    });
    this.socket = socket;
    let alive = true;
    socket.on("unexpected-response", (_req, res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk.slice(0, 2000)));
      res.on("end", () => {
        const status = res.statusCode ?? 0;
        let detail = body.slice(0, 300);
        try {
          detail = (JSON.parse(body) as { error: { message: string } }).error.message;
        } catch {
          // not the hub's JSON error body
        }
        if (FATAL_HTTP.has(status)) {
          this.fatal?.(
            new HubLinkError(
              `The hub refused this sidecar's provider token (HTTP ${status}: ${detail}). Pair again: webmcp-hub pair CODE --hub URL --root DIR.`,
            ),
          );
        } else {
          this.log(`The hub answered HTTP ${status} instead of a WebSocket (${detail}).`);
          socket.terminate();
        }
      });
    });
    socket.on("open", () => {
      if (socket.protocol !== RELAY_SUBPROTOCOL) {
        this.log(`The relay chose the subprotocol "${socket.protocol}", not ${RELAY_SUBPROTOCOL}.`);
      }
      alive = true;
      if (this.pingTimer) clearInterval(this.pingTimer);
      this.pingTimer = setInterval(() => {
        if (!alive) {
          this.log("The hub stopped answering pings; reconnecting.");
          socket.terminate();
          return;
        }
        alive = false;
        socket.ping();
      }, this.options.pingEveryMs ?? 25_000);
      this.pingTimer.unref();
    });
    socket.on("pong", () => (alive = true));
    socket.on("message", (data, isBinary) => {
      alive = true;
      if (isBinary) return;
      this.onFrame(socket, String(data));
    });
    socket.on("error", (error) => {
      if (!this.stopped) this.log(`Relay connection error: ${error.message}`);
    });
    socket.on("close", (code, reason) => {
      if (this.socket !== socket) return;
      this.socket = null;
      if (this.pingTimer) clearInterval(this.pingTimer);
      this.abortAll("The relay connection closed.");
      if (this.stopped) return;
      if (FATAL_CLOSE.has(code)) {
        this.fatal?.(
          new HubLinkError(
            `The hub closed the relay for good (${code} ${String(reason)}). Pair again: webmcp-hub pair CODE --hub URL --root DIR.`,
          ),
        );
        return;
      }
      this.scheduleReconnect(code, String(reason));
    });
  }

  private scheduleReconnect(code: number, reason: string): void {
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 500, maxMs: 30_000 };
    const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(this.attempt, 30));
    const random = this.options.random ?? Math.random;
    const delay = Math.round(ceiling / 2 + (random() * ceiling) / 2); // "equal jitter": never 0, never a herd
    this.attempt++;
    this._state = "waiting";
    this.log(
      `Disconnected from the hub${code ? ` (${code}${reason ? ` ${reason}` : ""})` : ""}; reconnecting in ${(delay / 1000).toFixed(1)} s.`,
    );
    this.retryTimer = setTimeout(() => this.connect(), delay);
  }

  private send(socket: WebSocket, frame: ProviderFrame): void {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  }

  private onFrame(socket: WebSocket, text: string): void {
    let frame: HubFrame;
    try {
      const parsed = HubFrameSchema.safeParse(JSON.parse(text));
      if (!parsed.success) {
        this.log(`Ignored a frame the relay protocol does not define: ${text.slice(0, 200)}`);
        return;
      }
      frame = parsed.data;
    } catch {
      this.log(`Ignored a frame that is not JSON: ${text.slice(0, 200)}`);
      return;
    }
    switch (frame.type) {
      case "welcome":
        this.attempt = 0;
        this.welcomes++;
        this.providerId = frame.providerId;
        this._state = "connected";
        this.send(socket, {
          type: "hello",
          kind: "sidecar",
          label: this.options.label,
          version: this.options.version,
        });
        this.send(socket, { type: "tools", tools: [toolDescriptor(this.options.roots)] });
        this.log(
          `Connected to channel ${frame.channelId} as provider ${frame.providerId}; serving ${TOOL_NAME}.`,
        );
        return;
      case "call":
        void this.serve(socket, frame);
        return;
      case "cancel":
        this.inFlight.get(frame.id)?.abort(new Error(frame.reason || "Cancelled by the hub."));
        return;
      case "error":
        this.log(`The hub refused a frame: ${frame.code}: ${frame.message}`);
        return;
    }
  }

  private abortAll(reason: string): void {
    for (const controller of this.inFlight.values()) controller.abort(new Error(reason));
    this.inFlight.clear();
  }

  private async serve(socket: WebSocket, call: CallFrame): Promise<void> {
    const controller = new AbortController();
    this.inFlight.set(call.id, controller);
    const timer = setTimeout(
      () => controller.abort(new Error(`Timed out after ${call.timeoutMs} ms.`)),
      call.timeoutMs,
    );
    let result: CallToolResult | null;
    try {
      if (call.name !== TOOL_NAME) {
        result = toolErrorResult(`This sidecar has no tool named ${call.name}; it offers ${TOOL_NAME}.`);
      } else {
        result = await callSearchTool(
          this.options.roots,
          call.arguments,
          {
            signal: controller.signal,
            onProgress: (p) =>
              this.send(socket, { type: "progress", id: call.id, progress: p.progress, message: p.message }),
            limits: this.options.limits,
            pool: this.options.pool,
          },
          (r) => fitFrame(call.id, r),
        );
      }
    } catch (e) {
      if (controller.signal.aborted)
        result = null; // cancelled or timed out: the hub has answered already
      else if (e instanceof InvalidArgumentsError) result = toolErrorResult(e.message);
      else
        result = toolErrorResult(
          `${TOOL_NAME} failed inside the sidecar: ${e instanceof Error ? e.message : e}`,
        );
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(call.id);
    }
    if (result !== null && !controller.signal.aborted)
      this.send(socket, { type: "result", id: call.id, result });
  }
}

function frameBytes(id: string, result: CallToolResult): number {
  return utf8ByteLength(JSON.stringify({ type: "result", id, result }));
}

/**
 * The success result, cut to the most matches that fit one relay frame (≤ 1 MiB). A cut page keeps a
 * cursor that continues right after its last match, and its text says why it is short. The cut is found
 * on the full output's JSON (the cursor's length barely changes), and the page is made once.
 */
export function fitFrame(id: string, search: SearchResult): CallToolResult {
  const full = successResult(search);
  if (frameBytes(id, full) <= FRAME_BUDGET) return full;
  const { output } = search;
  const sizeOf = (n: number) =>
    frameBytes(id, {
      content: [
        { type: "text", text: search.summary },
        { type: "text", text: JSON.stringify({ ...output, matches: output.matches.slice(0, n) }) },
      ],
      structuredContent: { ...output, matches: output.matches.slice(0, n) },
      isError: false,
    });
  let lo = 1;
  let hi = output.matches.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (sizeOf(mid) <= FRAME_BUDGET - CUT_MARGIN) lo = mid;
    else hi = mid - 1;
  }
  let cut = search.truncated(lo);
  while (cut.output.matches.length > 1 && frameBytes(id, successResult(cut)) > FRAME_BUDGET - 512) {
    cut = search.truncated(cut.output.matches.length - 1);
  }
  const result = successResult(cut);
  const first = result.content[0];
  if (first?.type === "text") {
    first.text += ` This page was cut to ${cut.output.matches.length} matches to fit the relay's 1 MiB frame limit; continue with nextCursor, or pass a smaller 'limit'.`;
  }
  return result;
}
