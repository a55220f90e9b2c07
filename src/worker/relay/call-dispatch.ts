// A channel's calls, from an agent's request to the provider's answer: checks before anything is sent (the
// tool exists, arguments within depth and frame size, valid against the tool's inputSchema), the call frame
// (the hub's own, built from checked parts, so not parsed again: only its size is checked),
// the calls in flight with their timeouts and cancellation, progress and logs routed back to their caller,
// a provider that disconnects settling its calls with isError at once, and the output checked against the
// tool's outputSchema. Every call ends in a CallOutcome; none throws for the tool's own failures.
import {
  LIMITS,
  errorResult,
  exceedsUtf8Bytes,
  jsonDepth,
  utf8ByteLength,
  type AuditStatus,
  type CallFrame,
  type LoggingLevel,
  type ProviderFrame,
  type ToolVerification,
} from "../../protocol/index.js";
import type { CallOutcome, CallRequest } from "./channel-port.js";
import { displayText } from "./display-text.js";
import type { ExposedTool, ProviderState } from "./naming.js";
import { sendFrame } from "./provider-frames.js";
import type { ProviderStore } from "./provider-store.js";
import type { ToolCatalog } from "./tool-catalog.js";

/** A call's arguments, measured once: the value, its JSON text (for the audit), and whether it nests too deep
 *  to relay (then the text is ""). */
export interface CallArguments {
  value: Record<string, unknown>;
  text: string;
  tooDeep: boolean;
}

/** Measures a call's arguments once, without recursion first: JSON.stringify and the validator recurse, and
 *  would overflow on arguments nested past LIMITS.jsonDepthMax. */
export function callArguments(args: Record<string, unknown> | undefined): CallArguments {
  const value = args ?? {};
  const tooDeep = jsonDepth(value, LIMITS.jsonDepthMax) === Number.POSITIVE_INFINITY;
  return { value, text: tooDeep ? "" : JSON.stringify(value), tooDeep };
}

/** A call as it ended, with what its audit row needs. */
export interface FinishedCall {
  req: CallRequest;
  outcome: CallOutcome;
  /** The tool it named, if the channel has one by that name. */
  exposed: ExposedTool | undefined;
  /** The provider the call went to (null: it was not sent). */
  providerId: string | null;
  /** The arguments as JSON text ("" when too deep to serialize). */
  argText: string;
  started: number;
  /** The tool's check against its tab's origin's published manifest (absent: not a tab's tool, or unchecked). */
  verification?: ToolVerification | undefined;
}

interface PendingCall {
  providerId: string;
  onProgress: CallRequest["onProgress"];
  /** The last progress value passed on: MCP requires each notification's progress to increase. */
  progress?: number;
  onLog: CallRequest["onLog"];
  finish: (outcome: CallOutcome) => void;
}

type Log = { level: LoggingLevel; logger?: string; data: unknown };

/** The longest agent label a call frame carries (frames.ts `approval.agent`). */
const APPROVAL_AGENT_MAX = 128;

export class CallDispatch {
  private readonly pending = new Map<string, PendingCall>();

  constructor(
    private readonly catalog: ToolCatalog,
    private readonly providers: ProviderStore,
  ) {}

  /** Calls in flight. */
  get size(): number {
    return this.pending.size;
  }

  /**
   * Runs one call of `exposed` (the tool `req.name` names, undefined when none does) to its end; `args` is the
   * call's one argument text, `started` its start; `verification` goes to the tab with the approval request,
   * and to the audit.
   */
  async run(
    req: CallRequest,
    exposed: ExposedTool | undefined,
    args: CallArguments,
    started: number,
    verification?: ToolVerification,
  ): Promise<FinishedCall> {
    const finished = (outcome: CallOutcome, providerId: string | null = null): FinishedCall => ({
      req,
      outcome,
      exposed,
      providerId,
      argText: args.text,
      started,
      verification,
    });
    if (!exposed) {
      const names = [...this.catalog.exposed().keys()];
      return finished({
        unknownTool: true,
        status: "invalid",
        result: errorResult(
          `Unknown tool: ${req.name}. ${names.length ? `Tools in this channel: ${names.slice(0, 20).join(", ")}.` : "No tools are connected to this channel right now."}`,
        ),
      });
    }
    if (args.tooDeep) {
      return finished(
        invalid(
          `The arguments for ${req.name} nest objects and arrays deeper than ${LIMITS.jsonDepthMax} levels, the most the hub relays (LIMITS.jsonDepthMax); nothing was sent. Flatten them and call again.`,
        ),
      );
    }
    // The frame is the hub's own, built from checked parts (callFrame): only its size can be out of bounds.
    const frame = callFrame(req, exposed, args.value, verification);
    const text = JSON.stringify(frame);
    if (exceedsUtf8Bytes(text, LIMITS.frameBytes)) {
      return finished(
        invalid(
          `The call to ${req.name} would be a ${utf8ByteLength(text)}-byte relay frame; a frame may be at most ${LIMITS.frameBytes} bytes (LIMITS.frameBytes), so nothing was sent. Send smaller arguments.`,
        ),
      );
    }
    const problems = this.catalog.validate(exposed, "input", args.value);
    if (problems.length) {
      const detail = problems.map((p) => `${p.path}: ${p.message}`).join("; ");
      return finished(
        invalid(
          `Invalid arguments for ${req.name}: ${detail}. Fix them to match the tool's inputSchema and call again.`,
        ),
      );
    }
    const target = exposed.providerIds.map((id) => this.providers.get(id)).find((p) => p !== undefined);
    const socket = target ? this.providers.socketOf(target.id) : undefined;
    if (!target || !socket) {
      return finished({
        status: "disconnected",
        result: errorResult(`The provider of ${req.name} is not connected right now.`),
      });
    }
    const outcome = await this.send(req, exposed, target.id, socket, frame, text);
    return finished(outcome.status === "ok" ? this.checkOutput(exposed, outcome) : outcome, target.id);
  }

  /** A provider's answer to one of its calls; false if none is waiting (late, cancelled, or not its call). */
  settle(provider: ProviderState, frame: Extract<ProviderFrame, { type: "result" }>): boolean {
    const call = this.callOf(provider, frame.id);
    if (!call) return false;
    const status: AuditStatus = frame.denied ? "denied" : frame.result.isError ? "error" : "ok";
    call.finish({ result: frame.result, status });
    return true;
  }

  /**
   * Progress of a call, passed to its caller when it moved forward. MCP requires a call's progress to increase
   * with each notification; a frame that does not (a provider repeating itself, or one overtaken on its way
   * here, as a busy runtime can deliver a socket's frames) is not passed on: the caller already knows more.
   */
  progress(provider: ProviderState, frame: Extract<ProviderFrame, { type: "progress" }>): void {
    const call = this.callOf(provider, frame.id);
    if (!call || (call.progress !== undefined && frame.progress <= call.progress)) return;
    call.progress = frame.progress;
    call.onProgress?.({
      progress: frame.progress,
      ...(frame.total !== undefined ? { total: frame.total } : {}),
      ...(frame.message ? { message: frame.message } : {}),
    });
  }

  /** A log line for one of the provider's calls goes to its caller; false if it belongs to no such call. */
  log(provider: ProviderState, id: string | undefined, log: Log): boolean {
    const call = id ? this.callOf(provider, id) : undefined;
    if (!call) return false;
    call.onLog?.(log);
    return true;
  }

  /** A provider went away: its calls end now with isError, not at their timeout. */
  providerGone(provider: ProviderState): void {
    const who = provider.kind === "tab" ? `The tab (${provider.origin})` : `The sidecar "${provider.label}"`;
    for (const call of [...this.pending.values()]) {
      if (call.providerId === provider.id) {
        call.finish({
          status: "disconnected",
          result: errorResult(
            `${who} disconnected before answering; the call did not complete. Try again once it is back.`,
          ),
        });
      }
    }
  }

  private callOf(provider: ProviderState, id: string): PendingCall | undefined {
    const call = this.pending.get(id);
    return call && call.providerId === provider.id ? call : undefined;
  }

  /** Sends the frame and waits for the answer, the timeout, the agent's cancellation or a disconnect. */
  private send(
    req: CallRequest,
    exposed: ExposedTool,
    providerId: string,
    socket: WebSocket,
    frame: CallFrame,
    text: string,
  ): Promise<CallOutcome> {
    const { id, timeoutMs } = frame;
    return new Promise<CallOutcome>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        sendCancel(socket, id, "The agent cancelled the call.");
        finish({ status: "cancelled", result: errorResult("The call was cancelled.") });
      };
      const finish = (outcome: CallOutcome) => {
        if (!this.pending.delete(id)) return;
        if (timer !== undefined) clearTimeout(timer);
        req.signal?.removeEventListener("abort", onAbort);
        resolve(outcome);
      };
      this.pending.set(id, { providerId, onProgress: req.onProgress, onLog: req.onLog, finish });
      timer = setTimeout(() => {
        sendCancel(socket, id, `Timed out after ${timeoutMs} ms.`);
        finish({
          status: "timeout",
          result: errorResult(
            `${req.name} did not answer within ${Math.round(timeoutMs / 100) / 10} s${exposed.readOnly ? "" : " (it may be waiting for the user's approval)"}.`,
          ),
        });
      }, timeoutMs);
      if (req.signal?.aborted) return onAbort();
      req.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        socket.send(text);
      } catch {
        finish({
          status: "disconnected",
          result: errorResult(`The provider of ${req.name} disconnected before the call could be sent.`),
        });
      }
    });
  }

  /** A tool that declares an outputSchema must return matching structuredContent (MCP requires it). */
  // (The result itself was parsed with CallToolResultSchema from src/protocol when its frame arrived.)
  private checkOutput(exposed: ExposedTool, outcome: CallOutcome): CallOutcome {
    if (!exposed.descriptor.outputSchema || outcome.result.isError) return outcome;
    if (outcome.result.structuredContent === undefined) {
      return {
        status: "error",
        result: errorResult(`${exposed.name} declares an outputSchema but returned no structuredContent.`),
      };
    }
    const problems = this.catalog.validate(exposed, "output", outcome.result.structuredContent);
    if (problems.length) {
      return {
        status: "error",
        result: errorResult(
          `${exposed.name} returned structuredContent that does not match its outputSchema (${problems[0]!.path}: ${problems[0]!.message}).`,
        ),
      };
    }
    return outcome;
  }
}

/** The call frame for `req`; what an agent or client names itself is capped before it goes in. */
function callFrame(
  req: CallRequest,
  exposed: ExposedTool,
  args: Record<string, unknown>,
  verification: ToolVerification | undefined,
): CallFrame {
  const timeoutMs = Math.min(
    Math.max(1, Math.floor(req.timeoutMs ?? LIMITS.callTimeoutDefaultMs)),
    LIMITS.callTimeoutMaxMs,
  );
  const client = req.clientName ? displayText(req.clientName, LIMITS.clientNameMax) : "";
  return {
    type: "call",
    id: crypto.randomUUID(),
    name: exposed.originalName,
    arguments: args,
    timeoutMs,
    ...(exposed.readOnly
      ? {}
      : {
          approval: {
            agent: displayText(req.agentLabel, APPROVAL_AGENT_MAX) || "agent",
            ...(client ? { client } : {}),
            ...(verification ? { verification } : {}),
          },
        }),
  };
}

function sendCancel(socket: WebSocket, id: string, reason: string): void {
  try {
    sendFrame(socket, { type: "cancel", id, reason });
  } catch {
    // the provider is gone; its close handler settles the rest
  }
}

function invalid(text: string): CallOutcome {
  return { status: "invalid", result: errorResult(text) };
}
