// The calls in flight between the hub and the tabs: a call that needs approval waits for the user in the
// approval window (approvals.ts) before it reaches the page, unless the user always allows that tool of that
// site on this channel; then it runs in the tab, and its result goes back on the socket it came from. Each
// call is answered once: a cancel, the socket closing or the tab leaving the site end it on both sides.
import { errorResult } from "../../src/bridge/results.js";
import type { CallFrame } from "../../src/protocol/frames.js";
import type { CallToolResult } from "../../src/protocol/results.js";
import { readVerification } from "../../src/protocol/verification-text.js";
import type { RunMessage } from "../content/page-channel.js";
import type { Approvals } from "./approvals.js";
import type { Settings } from "./settings.js";
import type { TabSocket } from "./tab-socket.js";
import type { TabToolStore } from "./tab-tools.js";

/** A call in flight: the tab it runs in, the socket to answer on, and its approval request while waiting. */
interface Call {
  tabId: number;
  socket: TabSocket;
  approvalId?: string;
}

const callKey = (tabId: number, id: string) => `${tabId}:${id}`;

export class Calls {
  /** By callKey: the hub's call ids are unique per socket, so per tab. */
  readonly #calls = new Map<string, Call>();

  constructor(
    private readonly store: TabToolStore,
    private readonly socketOf: (tabId: number) => TabSocket | undefined,
    private readonly settings: Settings,
    private readonly approvals: Approvals,
  ) {}

  /** A call from the hub on `socket`, the tab's socket: asks for approval where needed, then runs it. */
  async run(tabId: number, socket: TabSocket, frame: CallFrame): Promise<void> {
    const key = callKey(tabId, frame.id);
    const tab = this.store.get(tabId);
    if (!tab || this.socketOf(tabId) !== socket) {
      socket.result(frame.id, errorResult("The tab closed before the call could run."));
      return;
    }
    const entry: Call = { tabId, socket };
    this.#calls.set(key, entry);
    const pairing = this.settings.pairing;
    const channelId = pairing?.channelId ?? "";
    if (frame.approval && !this.settings.alwaysAllowed(channelId, tab.origin, frame.name)) {
      const approvalId = crypto.randomUUID();
      entry.approvalId = approvalId;
      const tool = tab.tools.find((t) => t.name === frame.name);
      const verification = readVerification(frame.approval.verification);
      const decision = await this.approvals.ask({
        id: approvalId,
        channelId,
        channelName: pairing?.channelName ?? null,
        agent: String(frame.approval.agent).slice(0, 128),
        client: typeof frame.approval.client === "string" ? frame.approval.client.slice(0, 64) : null,
        tabId,
        origin: tab.origin,
        ...(tool?.frameOrigin !== undefined && { frameOrigin: tool.frameOrigin }),
        tool: frame.name,
        title: tool?.title ?? null,
        arguments: frame.arguments,
        ...(verification && { verification }),
        deadline: Date.now() + frame.timeoutMs,
      });
      if (this.#calls.get(key) !== entry || decision === "withdrawn") return;
      delete entry.approvalId;
      if (decision === "deny") {
        this.#calls.delete(key);
        socket.result(frame.id, errorResult(`The user declined to run ${frame.name}.`), true);
        return;
      }
      if (decision === "always") await this.settings.allowAlways(channelId, tab.origin, frame.name);
    }
    const line = this.store.line(tabId);
    if (!line || this.store.get(tabId)?.origin !== tab.origin) {
      this.#calls.delete(key);
      socket.result(frame.id, errorResult(`The tab left ${tab.origin} before ${frame.name} could run.`));
      return;
    }
    line.postMessage({
      type: "call",
      id: frame.id,
      name: frame.name,
      arguments: frame.arguments,
    } satisfies RunMessage);
  }

  /** The hub cancelled the call: withdraw its approval request, or stop it in the page. */
  cancel(tabId: number, id: string, reason: string): void {
    const entry = this.#calls.get(callKey(tabId, id));
    if (!entry) return;
    this.#calls.delete(callKey(tabId, id));
    if (entry.approvalId) this.approvals.withdraw(entry.approvalId);
    else this.store.line(tabId)?.postMessage({ type: "cancel", id, reason } satisfies RunMessage);
  }

  /** A tab's socket closed: the hub has answered its calls' agents; stop what still runs in the page. */
  socketClosed(tabId: number, socket: TabSocket): void {
    for (const [key, entry] of [...this.#calls]) {
      if (entry.tabId !== tabId || entry.socket !== socket) continue;
      this.cancel(tabId, key.slice(key.indexOf(":") + 1), "The connection to the hub closed.");
    }
  }

  /** The page's result of a call: back to the hub, unless the call is not ours or already over. */
  result(tabId: number, id: string, result: CallToolResult): void {
    const entry = this.#calls.get(callKey(tabId, id));
    if (!entry || entry.approvalId) return;
    this.#calls.delete(callKey(tabId, id));
    entry.socket.result(id, result);
  }
}
