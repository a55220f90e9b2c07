// Open on demand: when an agent calls a marketplace tool added to the channel and no tab offers
// it, the channel asks the user's paired browser extension, over its control socket (protocol/control-
// frames.ts), to open the tool's published page in a visible new tab, waits for that tab to register the
// tool, and then hands the call back to the ordinary path (which asks for approval where the tool needs it).
//
// Decisions:
// - One pending open per tool and channel: a second call for the same tool while its page is being opened
//   waits on that same open (and then runs on the same tab); it never opens a second tab. A waiter that is
//   cancelled leaves; when none is left, a prompt still waiting for the user is withdrawn (`open-cancel`).
// - The user's answer to the extension's prompt is awaited for the call's own timeout (default 60 s); once
//   the extension says the page is opening, the tab has LIMITS.openRegisterWaitMs (30 s; less if the call's
//   timeout is shorter) to register the tool. The call itself then has its whole timeout, approval included.
// - The newest control socket is asked (the browser the user connected last). Sockets past
//   LIMITS.controlSocketsPerChannel close the oldest.
// - Only a page on the site's own origin is ever asked for (the registry keeps no other; checked again here
//   and by the extension). A tool published without a page cannot be opened: the answer says which page to
//   open by hand.
// - Progress: a caller that asked for progress hears each step (asking the user, page opening, still
//   waiting every 5 s) with a rising count.
// - Control sockets are hibernatable like provider sockets (tagged "control" and by token, so revoking the
//   extension's token closes them); pending opens live in memory only: a call waiting on one keeps the
//   object awake, and an evicted object has no callers left to answer.
import {
  CLOSE_CODES,
  ControlFrameSchema,
  LIMITS,
  OpenFrameSchema,
  PONG_FRAME_TEXT,
  RELAY_SUBPROTOCOL,
  errorResult,
  type HubFrame,
  type OpenFailure,
  type OpenFrame,
  type ProviderAttachment,
} from "../../protocol/index.js";
import type { CallOutcome, CallRequest } from "./channel-port.js";
import { displayText } from "./display-text.js";
import type { ExposedTool } from "./naming.js";

const CONTROL_TAG = "control";
/** How often a caller waiting on an open hears that it still waits. */
const PROGRESS_EVERY_MS = 5_000;

/** What an open ended in: the tool is live now under `name`, or the call ends with `outcome`. */
export type OpenResult = { ready: true; name: string } | { ready: false; outcome: CallOutcome };

interface Waiter {
  req: CallRequest;
  step: number;
  finish(result: OpenResult): void;
}

interface PendingOpen {
  id: string;
  key: string;
  site: string;
  origin: string;
  tool: string;
  url: string;
  ws: WebSocket;
  state: "asking" | "opened";
  /** The first caller's timeout: bounds the user's answer, and the wait for the tool once the page opened. */
  timeoutMs: number;
  startedAt: number;
  waiters: Set<Waiter>;
  timer?: ReturnType<typeof setTimeout>;
  ticker?: ReturnType<typeof setInterval>;
}

export class PageOpener {
  private readonly byId = new Map<string, PendingOpen>();
  private readonly byKey = new Map<string, PendingOpen>();

  constructor(
    private readonly ctx: DurableObjectState,
    /** The name agents call a tool by when a live tab of `origin` offers `originalName` now. */
    private readonly liveName: (origin: string, originalName: string) => string | undefined,
    private readonly now: () => number = Date.now,
  ) {}

  /** Opens waiting for the user or for their page. */
  get size(): number {
    return this.byId.size;
  }

  /** Browsers whose extension is connected to open pages (its control sockets). */
  connected(): number {
    return this.ctx.getWebSockets(CONTROL_TAG).length;
  }

  isControl(ws: WebSocket): boolean {
    const attachment = ws.deserializeAttachment() as ProviderAttachment | null;
    return attachment?.role === "control";
  }

  /** Accepts an extension's control socket (the Worker checked its token); the oldest past the limit close. */
  accept(attachment: ProviderAttachment, channelId: string): Response {
    const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
    const open = this.sockets();
    for (const old of open.slice(0, Math.max(0, open.length - LIMITS.controlSocketsPerChannel + 1))) {
      send(old, {
        type: "error",
        code: "replaced",
        message: `A channel keeps the ${LIMITS.controlSocketsPerChannel} newest extension connections; this one was the oldest.`,
      });
      old.close(CLOSE_CODES.replaced, "replaced by a newer connection");
      this.closed(old);
    }
    this.ctx.acceptWebSocket(server, [CONTROL_TAG, `token:${attachment.tokenId}`]);
    server.serializeAttachment(attachment);
    send(server, { type: "welcome", providerId: attachment.providerId, channelId });
    return new Response(null, {
      status: 101,
      webSocket: client,
      headers: { "sec-websocket-protocol": RELAY_SUBPROTOCOL },
    });
  }

  /** A frame on a control socket. */
  message(ws: WebSocket, message: string | ArrayBuffer): void {
    let json: unknown;
    try {
      json = typeof message === "string" && message.length <= 4096 ? JSON.parse(message) : undefined;
    } catch {
      json = undefined;
    }
    const parsed = ControlFrameSchema.safeParse(json);
    if (!parsed.success) {
      send(ws, { type: "error", code: "invalid_frame", message: "Frame refused: not a control frame." });
      return;
    }
    const frame = parsed.data;
    if (frame.type === "ping") {
      ws.send(PONG_FRAME_TEXT);
      return;
    }
    const open = this.byId.get(frame.id);
    if (!open || open.ws !== ws) return; // over already (cancelled, timed out), or not this socket's
    if (frame.type === "opened") {
      if (open.state !== "asking") return;
      open.state = "opened";
      const waitMs = Math.min(LIMITS.openRegisterWaitMs, open.timeoutMs);
      this.arm(open, waitMs, () => this.end(open, notRegistered(open, waitMs)));
      this.tell(open, `Opening ${open.url} in the user's browser; waiting for it to register ${open.tool}.`);
      // The page may have registered the tool before the extension's answer arrived.
      this.toolsChanged();
      return;
    }
    // The extension answered (and closed its prompt): nothing to withdraw.
    open.state = "opened";
    this.end(open, failed(open, frame.reason, frame.message));
  }

  /** A control socket closed: opens still waiting for its user's answer end now. */
  closed(ws: WebSocket): void {
    for (const open of [...this.byId.values()]) {
      if (open.ws !== ws || open.state !== "asking") continue;
      this.end(open, {
        status: "disconnected",
        result: errorResult(
          `The browser extension disconnected before the user answered the request to open ${open.url}; ${open.tool} did not run. Call it again once the browser is back.`,
        ),
      });
    }
  }

  /** The channel's tools changed: opens whose tool a tab now offers are done. */
  toolsChanged(): void {
    for (const open of [...this.byId.values()]) {
      const name = this.liveName(open.origin, open.tool);
      if (name !== undefined) this.end(open, { ready: true, name });
    }
  }

  /**
   * Has the tool's page opened (or joins the open already under way) and waits until a tab offers the tool;
   * or says why it could not be. `exposed` is an added marketplace tool no tab offers.
   */
  open(exposed: ExposedTool, req: CallRequest): Promise<OpenResult> {
    const origin = exposed.origin ?? "";
    const site = exposed.registry?.site ?? exposed.label;
    const key = `${origin}\n${exposed.originalName}`;
    const live = this.liveName(origin, exposed.originalName);
    if (live !== undefined) return Promise.resolve({ ready: true, name: live });
    let open = this.byKey.get(key);
    if (!open) {
      const page = samePage(exposed.registry?.page ?? null, origin);
      const ws = this.sockets().at(-1);
      if (!page || !ws) return Promise.resolve({ ready: false, outcome: cannotOpen(exposed, page, !ws) });
      const timeoutMs = Math.min(
        Math.max(1, Math.floor(req.timeoutMs ?? LIMITS.callTimeoutDefaultMs)),
        LIMITS.callTimeoutMaxMs,
      );
      open = {
        id: crypto.randomUUID(),
        key,
        site,
        origin,
        tool: exposed.originalName,
        url: page,
        ws,
        state: "asking",
        timeoutMs,
        startedAt: this.now(),
        waiters: new Set(),
      };
      const frame: OpenFrame = {
        type: "open",
        id: open.id,
        url: page,
        origin,
        site: site.slice(0, 253),
        tool: exposed.originalName,
        ...(exposed.descriptor.title && { title: exposed.descriptor.title.slice(0, LIMITS.titleMax) }),
        readOnly: exposed.readOnly,
        agent: displayText(req.agentLabel, 128) || "agent",
        ...(req.clientName && { client: displayText(req.clientName, LIMITS.clientNameMax) }),
        timeoutMs,
      };
      try {
        send(ws, OpenFrameSchema.parse(frame));
      } catch {
        return Promise.resolve({ ready: false, outcome: cannotOpen(exposed, page, true) });
      }
      this.byId.set(open.id, open);
      this.byKey.set(key, open);
      const asked = open;
      this.arm(open, timeoutMs, () => this.end(asked, notAnswered(asked, timeoutMs)));
      open.ticker = setInterval(() => this.tell(asked), PROGRESS_EVERY_MS);
    }
    return this.join(open, req);
  }

  private join(open: PendingOpen, req: CallRequest): Promise<OpenResult> {
    return new Promise<OpenResult>((resolve) => {
      const onAbort = () => {
        waiter.finish({
          ready: false,
          outcome: { status: "cancelled", result: errorResult("The call was cancelled.") },
        });
        open.waiters.delete(waiter);
        if (open.waiters.size === 0) this.end(open, null, "The agent cancelled the call.");
      };
      const waiter: Waiter = {
        req,
        step: 0,
        finish: (result) => {
          req.signal?.removeEventListener("abort", onAbort);
          resolve(result);
        },
      };
      if (req.signal?.aborted) return onAbort();
      open.waiters.add(waiter);
      req.signal?.addEventListener("abort", onAbort, { once: true });
      this.tellOne(
        open,
        waiter,
        open.state === "asking"
          ? `Asking the user's browser to open ${open.url} for ${open.tool}.`
          : `Opening ${open.url}; waiting for it to register ${open.tool}.`,
      );
    });
  }

  /** Ends an open for every waiter (`result` null: nobody waits any more; a prompt still shown is withdrawn). */
  private end(open: PendingOpen, result: OpenResult | CallOutcome | null, cancelReason?: string): void {
    if (this.byId.get(open.id) !== open) return;
    this.byId.delete(open.id);
    if (this.byKey.get(open.key) === open) this.byKey.delete(open.key);
    if (open.timer !== undefined) clearTimeout(open.timer);
    if (open.ticker !== undefined) clearInterval(open.ticker);
    const asking = open.state === "asking";
    const final: OpenResult | null =
      result === null ? null : "ready" in result ? result : { ready: false, outcome: result };
    if (asking && (final === null || !final.ready)) {
      try {
        send(open.ws, {
          type: "open-cancel",
          id: open.id,
          reason: cancelReason ?? "The hub stopped waiting for this page.",
        });
      } catch {
        // the socket closed; the prompt went with it
      }
    }
    const waiters = [...open.waiters];
    open.waiters.clear();
    if (final) for (const w of waiters) w.finish(final);
  }

  private arm(open: PendingOpen, ms: number, then: () => void): void {
    if (open.timer !== undefined) clearTimeout(open.timer);
    open.timer = setTimeout(then, ms);
  }

  private tell(open: PendingOpen, message?: string): void {
    const seconds = Math.round((this.now() - open.startedAt) / 1000);
    const text =
      message ??
      (open.state === "asking"
        ? `Still waiting for the user to allow opening ${open.url} (${seconds} s).`
        : `Still waiting for ${open.url} to register ${open.tool} (${seconds} s).`);
    for (const w of open.waiters) this.tellOne(open, w, text);
  }

  private tellOne(_open: PendingOpen, waiter: Waiter, message: string): void {
    waiter.step += 1;
    try {
      waiter.req.onProgress?.({ progress: waiter.step, message });
    } catch {
      // the caller's stream is gone; its call ends by its own signal
    }
  }

  /** Open control sockets, oldest first. */
  private sockets(): WebSocket[] {
    const at = (ws: WebSocket) => (ws.deserializeAttachment() as ProviderAttachment | null)?.connectedAt ?? 0;
    return this.ctx.getWebSockets(CONTROL_TAG).sort((a, b) => at(a) - at(b));
  }
}

function send(
  ws: WebSocket,
  frame: HubFrame | OpenFrame | { type: "open-cancel"; id: string; reason: string },
) {
  ws.send(JSON.stringify(frame));
}

/** The page if it is an http(s) URL on `origin` (the only pages ever opened), else null. */
function samePage(page: string | null, origin: string): string | null {
  if (!page) return null;
  try {
    const url = new URL(page);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === origin ? url.href : null;
  } catch {
    return null;
  }
}

/** Why an added tool could not be opened on demand: no page published, or no extension connected. */
function cannotOpen(exposed: ExposedTool, page: string | null, noExtension: boolean): CallOutcome {
  const site = exposed.registry?.site ?? exposed.label;
  const head = `${exposed.name} was not called: it is ${site}'s published tool, added to this channel from the marketplace, and no open tab offers it right now.`;
  const text = !page
    ? `${head} ${site} publishes no page on ${exposed.origin ?? site} for it, so the hub cannot open one: ask the user to open a page of ${exposed.origin ?? site} that registers ${exposed.originalName}, in a browser with the webmcp-hub extension paired to this channel, then call ${exposed.name} again.`
    : noExtension
      ? `${head} No browser with the webmcp-hub extension paired to this channel is connected, so the hub cannot open ${page} for you: ask the user to install and pair the extension (the channel's page shows how), or to open ${page} in a browser that is, then call ${exposed.name} again.`
      : `${head} The hub could not reach the user's browser extension to open ${page}; call ${exposed.name} again in a moment.`;
  return { status: "disconnected", result: errorResult(text) };
}

function failed(open: PendingOpen, reason: OpenFailure, message: string | undefined): CallOutcome {
  const said = message ? ` (The extension said: ${displayText(message, 300)})` : "";
  switch (reason) {
    case "declined":
      return {
        status: "denied",
        result: errorResult(
          `The user declined to open ${open.url}, so ${open.tool} did not run. Do not ask again unless the user wants it.`,
        ),
      };
    case "blocked":
      return {
        status: "denied",
        result: errorResult(
          `The user never shares ${open.origin} in the webmcp-hub extension, so ${open.url} was not opened and ${open.tool} did not run. The user can change that in the extension's popup.`,
        ),
      };
    case "invalid":
      return {
        status: "error",
        result: errorResult(
          `The browser extension refused to open ${open.url}; ${open.tool} did not run.${said}`,
        ),
      };
    case "failed":
      return {
        status: "error",
        result: errorResult(
          `The browser could not open ${open.url}; ${open.tool} did not run. Try again, or ask the user to open it.${said}`,
        ),
      };
  }
}

function notAnswered(open: PendingOpen, timeoutMs: number): CallOutcome {
  return {
    status: "timeout",
    result: errorResult(
      `The user did not answer the request to open ${open.url} within ${Math.round(timeoutMs / 1000)} s, so ${open.tool} did not run.`,
    ),
  };
}

function notRegistered(open: PendingOpen, waitMs: number): CallOutcome {
  return {
    status: "timeout",
    result: errorResult(
      `${open.url} opened in the user's browser but did not register ${open.tool} within ${Math.round(waitMs / 100) / 10} s, so it did not run. The tab stays open: if the page needs the user (to sign in, say), ask them, then call again; if it never registers the tool, the site's published page may be out of date.`,
    ),
  };
}
