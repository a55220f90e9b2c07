// The approval dialog: before a tool that is not read-only runs for a remote agent, the user sees who asks
// (the agent as its owner knows it: an OAuth app's registered name, or the label of its agent token, the
// first one reading "your agent (token created with the channel)"), where (this page's origin), what (the tool)
// and with which arguments, and approves, denies, or always allows that tool on this channel. What the
// agent's software calls itself is shown only as secondary text marked self-declared: any client can claim
// any name. It is a modal <dialog> in the widget's shadow root; one at a time, in the order the calls
// arrived. Untrusted text (labels, the client's name, arguments) is only ever textContent.
// The dialog (askApproval) is part of /bridge-ui.js (ui.ts), loaded when a call first needs approval; the
// rest (the request's shape, AlwaysAllowed) is in /bridge.js with the relay client. Nothing here runs when
// the module loads, so the bundler leaves the dialog out of /bridge.js.
// The hub's check of the tool against what this origin published (verified / changed / unpublished) is one
// line under the heading, when the hub sent it.
import { verificationText } from "../protocol/verification-text.js";
import type { ToolVerification } from "../protocol/verification.js";

export type ApprovalDecision = "approve" | "deny" | "always";

export interface ApprovalRequest {
  /** The agent's name: the OAuth app's name, or the agent token's label set by the channel's owner. */
  agent: string;
  /** What the MCP client calls itself (self-declared, unverified), if it said. */
  client?: string | undefined;
  origin: string;
  tool: string;
  title?: string | undefined;
  args: Record<string, unknown>;
  /** The hub's check of the tool against the origin's published manifest (absent: not sent). */
  verification?: ToolVerification | undefined;
  /** Aborted when the call is cancelled or times out: the dialog closes and the promise rejects. */
  signal: AbortSignal;
}

/** The last dialog's answer: the next one waits for it (none yet: undefined). */
let queue: Promise<unknown> | undefined;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

/** Shows the dialog in `root` once the dialogs before it are answered; resolves with the user's choice. */
export function askApproval(root: ShadowRoot, req: ApprovalRequest): Promise<ApprovalDecision> {
  const answer = (queue ?? Promise.resolve()).then(() => show(root, req));
  queue = answer.catch(() => {});
  return answer;
}

function show(root: ShadowRoot, req: ApprovalRequest): Promise<ApprovalDecision> {
  return new Promise((resolve, reject) => {
    if (req.signal.aborted) return reject(req.signal.reason);
    const id = `ap${Math.random().toString(36).slice(2)}`;
    const dialog = el("dialog", undefined, {
      class: "approval",
      "aria-labelledby": `${id}t`,
      "aria-describedby": `${id}d`,
    });
    const heading = el("h2", undefined, { id: `${id}t` });
    heading.append("Allow ", el("b", req.agent), " to run ", el("b", req.title ?? req.tool), "?");
    const claimed = req.client
      ? el("p", `Its software calls itself “${req.client}” (self-declared, not verified).`, {
          class: "self-declared",
        })
      : null;
    const checked = req.verification
      ? el("p", verificationText(req.verification, req.origin), {
          class: `verification ${req.verification.status}`,
        })
      : null;
    const detail = el("p", undefined, { id: `${id}d` });
    detail.append(
      "Your agent wants to run the tool ",
      el("code", req.tool),
      " on ",
      el("b", req.origin),
      ". It may change something here. Arguments:",
    );
    let args: string;
    try {
      args = JSON.stringify(req.args, null, 2);
    } catch {
      args = String(req.args);
    }
    const actions = el("div", undefined, { class: "actions" });
    const button = (action: ApprovalDecision, label: string) =>
      el("button", label, { type: "button", "data-action": action });
    const deny = button("deny", "Deny");
    deny.autofocus = true;
    actions.append(deny, button("always", `Always allow ${req.tool}`), button("approve", "Approve"));
    dialog.append(
      heading,
      ...(claimed ? [claimed] : []),
      ...(checked ? [checked] : []),
      detail,
      el("pre", args),
      actions,
    );

    const finish = (decision?: ApprovalDecision) => {
      req.signal.removeEventListener("abort", onAbort);
      dialog.close();
      dialog.remove();
      if (decision) resolve(decision);
      else reject(req.signal.reason);
    };
    const onAbort = () => finish();
    req.signal.addEventListener("abort", onAbort);
    actions.addEventListener("click", (e) => {
      const action = (e.target as Element).closest("[data-action]")?.getAttribute("data-action");
      if (action) finish(action as ApprovalDecision);
    });
    // Escape cancels a modal dialog: that is a refusal.
    dialog.addEventListener("cancel", (e) => {
      e.preventDefault();
      finish("deny");
    });
    root.append(dialog);
    dialog.showModal();
  });
}

/** Tools the user always allows on one channel, kept in localStorage under `key`. */
export class AlwaysAllowed {
  constructor(
    private readonly storage: Storage | null,
    private readonly key: string,
  ) {}

  private read(): string[] {
    try {
      const list: unknown = JSON.parse(this.storage?.getItem(this.key) ?? "[]");
      return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string") : [];
    } catch {
      return [];
    }
  }

  has(tool: string): boolean {
    return this.read().includes(tool);
  }

  add(tool: string): void {
    const list = this.read();
    if (!list.includes(tool)) list.push(tool);
    try {
      this.storage?.setItem(this.key, JSON.stringify(list));
    } catch {
      // Storage full or blocked: the choice lasts for this call only.
    }
  }

  clear(): void {
    try {
      this.storage?.removeItem(this.key);
    } catch {
      // blocked storage: nothing was kept
    }
  }
}
