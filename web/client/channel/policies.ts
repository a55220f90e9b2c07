// Who may call what, in the channel console: the pause switch (a banner at the top while paused; POST
// …/pause and …/resume) and each agent's tool policy (its label in the agent tokens and connected apps
// lists, and an inline editor that PUTs …/agent-tokens/:id/policy or …/connected-apps/:grantId/policy).
// Pausing asks no confirmation: it is the switch an owner reaches for when something looks wrong, and
// Resume undoes it; its label says what it does. Types only from src/protocol (its runtime would bring zod).
import type { AgentPolicy, ToolPolicy } from "../../../src/protocol/agent-policy.js";
import type { ChannelSnapshot, ChannelToolView } from "../../../src/protocol/views.js";
import { plural } from "../../shared/markup.js";
import { api, ApiError } from "../lib/api.js";
import { whileBusy } from "../lib/busy.js";
import { announce, byId, h, messageOf, showError, timeText } from "../lib/dom.js";
import { toolName } from "../lib/text.js";

/** The snapshot's part this module reads: its tools, when the channel was paused, each agent's policy. */
export type PolicySnapshot = Pick<ChannelSnapshot, "tools" | "paused" | "policies">;

// -- Pause --

/**
 * The run state at the top of the console: while running, one line and "Pause all agents' calls"; while
 * paused, a warning banner that says so in words (and since when) with Resume. Built here, like the
 * connected apps section (the console's static markup stays as it is). `show` takes each snapshot's
 * `paused`; the buttons show the answer of their own request at once.
 */
export function pauseControl(path: string, token: string) {
  const title = h("h2", { id: "run-state-title", class: "run-state-title" }, "Running");
  const detail = h("p", { id: "run-state-detail", class: "run-state-detail" });
  const pause = h(
    "button",
    { type: "button", class: "btn small", id: "channel-pause" },
    "Pause all agents' calls",
  );
  const resume = h(
    "button",
    { type: "button", class: "btn primary", id: "channel-resume", hidden: true },
    "Resume",
  );
  const error = h("div", { id: "run-state-error", class: "alert error", role: "alert", hidden: true });
  // The heading and its sentence are one status region: a change of state is read out, not only coloured.
  const box = h(
    "section",
    { id: "run-state", class: "run-state", "aria-labelledby": "run-state-title", hidden: true },
    h("div", { class: "run-state-text", role: "status" }, title, detail),
    h("div", { class: "run-state-actions" }, pause, resume),
    error,
  );
  const fresh = document.getElementById("fresh");
  if (fresh) fresh.after(box);
  else byId("console").prepend(box);
  // When the last answer of Pause or Resume arrived: a snapshot asked for before it is older news.
  let actedAt = 0;

  function show(paused: string | null) {
    box.hidden = false;
    box.dataset.state = paused ? "paused" : "running";
    pause.hidden = Boolean(paused);
    resume.hidden = !paused;
    const heading = paused ? "Paused" : "Running";
    if (title.textContent !== heading) title.textContent = heading;
    // No "n min ago" here: the region is read out whenever its text changes.
    const text = paused
      ? `Agents' calls are refused at once, since ${timeText(paused)}. Tabs and the sidecar stay connected; nothing reaches them until you resume.`
      : "Agents may call the tools each one's policy allows. Pausing refuses every agent's call at once; tabs and the sidecar stay connected.";
    if (detail.textContent !== text) detail.textContent = text;
  }

  async function act(button: HTMLButtonElement, action: "pause" | "resume") {
    showError(error, "");
    try {
      const body = await whileBusy([pause, resume], () =>
        api<{ paused: string | null }>(`${path}/${action}`, { method: "POST", token }),
      );
      actedAt = Date.now();
      show(body.paused);
      (body.paused ? resume : pause).focus();
    } catch (e) {
      showError(error, `Could not ${action} the channel: ${messageOf(e)}`);
      button.focus();
    }
  }
  pause.addEventListener("click", () => void act(pause, "pause"));
  resume.addEventListener("click", () => void act(resume, "resume"));

  return {
    /** The pause state of a snapshot asked for at `askedAt` (ms; null: running). */
    show(paused: string | null | undefined, askedAt: number) {
      if (askedAt >= actedAt) show(paused ?? null);
    },
  };
}

// -- Per-agent policy --

/** One agent as the lists show it: its id in `policies`, what it is called, and its policy's URL. */
export interface PolicyAgent {
  /** An agent token's id, or `oauth:<grantId>` for a connected app. */
  id: string;
  /** How the owner knows it: "token “claude-code”", "the app “Claude”". */
  name: string;
  /** `${path}/agent-tokens/<id>/policy` or `${path}/connected-apps/<grantId>/policy`. */
  url: string;
}

/** "All tools", "Read-only tools", "No tools", "Chosen tools (N)". */
export function policyLabel(policy: ToolPolicy): string {
  if (policy === "all") return "All tools";
  if (policy === "read-only") return "Read-only tools";
  if (policy === "none") return "No tools";
  return `Chosen tools (${policy.allow.length})`;
}

const SAVED_TEXT: Record<"all" | "read-only" | "none", string> = {
  all: "may call every tool",
  "read-only": "may call read-only tools only",
  none: "may call no tools",
};

type Choice = "all" | "read-only" | "none" | "chosen";

let editorCount = 0;

/** An open editor: its table row, and how to give it the channel's current tools. */
interface Editor {
  row: HTMLTableRowElement;
  setTools(tools: readonly ChannelToolView[]): void;
}

/**
 * Each agent's policy for the agent tokens and connected apps lists: `update` takes each snapshot; `cell`
 * is an agent's "Tools" cell (its policy and Edit); `editorRow` the open editor's row, to put back after the
 * agent's row when a list renders again (the same element: what the owner chose so far stays). `onChange`
 * hears when a policy or the tools changed, so the lists render again.
 */
export function agentPolicies(token: string) {
  let tools: readonly ChannelToolView[] = [];
  let policies: Record<string, ToolPolicy> = {};
  let lastSnapshot = "";
  const editors = new Map<string, Editor>();
  const listeners: Array<() => void> = [];
  const changed = () => {
    for (const listener of listeners) listener();
  };
  const policyOf = (id: string): ToolPolicy => policies[id] ?? "all";

  function close(agent: PolicyAgent) {
    editors.get(agent.id)?.row.remove();
    editors.delete(agent.id);
    const edit = document.querySelector<HTMLButtonElement>(
      `button[data-policy-edit="${CSS.escape(agent.id)}"]`,
    );
    edit?.setAttribute("aria-expanded", "false");
    edit?.focus();
  }

  function open(agent: PolicyAgent, button: HTMLButtonElement, colspan: number) {
    if (editors.has(agent.id)) {
      editors.get(agent.id)?.row.querySelector<HTMLInputElement>("input:checked")?.focus();
      return;
    }
    const editor = policyEditor(agent, policyOf(agent.id), tools, colspan, {
      cancel: () => close(agent),
      save: async (policy) => {
        const body = await api<AgentPolicy>(agent.url, { method: "PUT", json: { tools: policy }, token });
        if (body.tools === "all") delete policies[agent.id];
        else policies = { ...policies, [agent.id]: body.tools };
        const saved =
          typeof body.tools === "string"
            ? SAVED_TEXT[body.tools]
            : `may call ${plural(body.tools.allow.length, "chosen tool")}`;
        close(agent);
        changed();
        announce(`Saved: ${agent.name} ${saved}.`);
      },
    });
    editors.set(agent.id, editor);
    button.setAttribute("aria-expanded", "true");
    button.closest("tr")?.after(editor.row);
    editor.row.querySelector<HTMLInputElement>("input:checked")?.focus();
  }

  return {
    /** The channel's tools and its agents' policies, from a snapshot. */
    update(s: PolicySnapshot) {
      const next = JSON.stringify([s.tools.map((t) => [t.name, t.readOnly]), s.policies ?? {}]);
      if (next === lastSnapshot) return;
      lastSnapshot = next;
      tools = s.tools;
      policies = { ...(s.policies ?? {}) };
      for (const editor of editors.values()) editor.setTools(tools);
      changed();
    },
    /** Text that changes when anything `cell` shows changes (the lists render again only then). */
    key: () => JSON.stringify(policies),
    onChange(listener: () => void) {
      listeners.push(listener);
    },
    policyOf,
    /** An agent's policy and its Edit button (`colspan`: the list's columns, for the editor's row). */
    cell(agent: PolicyAgent, colspan: number): Array<HTMLElement | string> {
      const policy = policyOf(agent.id);
      const edit: HTMLButtonElement = h(
        "button",
        {
          type: "button",
          class: "btn small",
          "data-policy-edit": agent.id,
          "aria-expanded": editors.has(agent.id) ? "true" : "false",
          "aria-label": `Edit the tools ${agent.name} may call`,
          onclick: () => open(agent, edit, colspan),
        },
        "Edit",
      );
      return [
        h(
          "span",
          {
            class: `policy-label${policy === "all" ? "" : " limited"}`,
            title: typeof policy === "object" ? policy.allow.join(", ") : null,
          },
          policyLabel(policy),
        ),
        " ",
        edit,
      ];
    },
    /** The open editor's row of this agent, or null. */
    editorRow: (id: string): HTMLTableRowElement | null => editors.get(id)?.row ?? null,
    /** Drops the editors of a list's agents that it no longer lists (a revoked token, a disconnected app). */
    keepOnly(listed: ReadonlySet<string>, ofThisList: (id: string) => boolean) {
      for (const [id, editor] of editors)
        if (ofThisList(id) && !listed.has(id)) {
          editor.row.remove();
          editors.delete(id);
        }
    },
  };
}

export type AgentPolicies = ReturnType<typeof agentPolicies>;

/**
 * The inline editor: a radio group all / read-only / none / chosen and, for chosen, a checkbox per tool of
 * the channel (by the name agents call; read-only ones marked). A name the saved list has but the channel
 * no longer offers stays listed, checked and marked, so saving never drops it silently (the hub refuses it
 * with a 422, shown here, until the owner unchecks it or its tab comes back).
 */
function policyEditor(
  agent: PolicyAgent,
  policy: ToolPolicy,
  tools: readonly ChannelToolView[],
  colspan: number,
  on: { save(policy: ToolPolicy): Promise<void>; cancel(): void },
): Editor {
  const n = ++editorCount;
  const idOf = (part: string) => `policy-${n}-${part}`;
  const initial: Choice = typeof policy === "object" ? "chosen" : policy;
  const checked = new Set(typeof policy === "object" ? policy.allow : []);
  const radio = (value: Choice, label: string, hint: string) =>
    h(
      "div",
      { class: "field check" },
      h("input", {
        type: "radio",
        id: idOf(value),
        name: idOf("choice"),
        value,
        checked: value === initial,
        "aria-describedby": idOf(`${value}-hint`),
      }),
      h("label", { for: idOf(value) }, label),
      h("p", { class: "hint", id: idOf(`${value}-hint`) }, hint),
    );
  const list = h("ul", { class: "policy-tools plain-list", id: idOf("tools") });
  const chosen = h(
    "fieldset",
    { class: "policy-chosen", hidden: initial !== "chosen" },
    h("legend", {}, "Chosen tools"),
    list,
  );
  const error = h("div", { class: "alert error", role: "alert", hidden: true });
  const save = h("button", { type: "submit", class: "btn small primary" }, "Save");
  const cancel = h("button", { type: "button", class: "btn small", onclick: () => on.cancel() }, "Cancel");
  const form = h(
    "form",
    { class: "policy-editor", novalidate: true, "aria-label": `Tools ${agent.name} may call` },
    h(
      "fieldset",
      {},
      h("legend", {}, `Which tools ${agent.name} may see and call`),
      radio("all", "All tools", "Every tool the channel offers, now and later."),
      radio(
        "read-only",
        "Read-only tools",
        "Only tools marked read-only; it never sees tools that change data.",
      ),
      radio("none", "No tools", "It sees an empty list and every call it makes is refused."),
      radio("chosen", "Chosen tools", "Only the tools checked below."),
    ),
    chosen,
    error,
    h("div", { class: "actions" }, save, cancel),
  );

  function setTools(current: readonly ChannelToolView[]) {
    // Keep what the owner checked so far across a new tool list.
    for (const box of list.querySelectorAll<HTMLInputElement>("input[type=checkbox]")) {
      if (box.checked) checked.add(box.value);
      else checked.delete(box.value);
    }
    const offered = new Set(current.map((t) => t.name));
    const gone = [...checked].filter((name) => !offered.has(name)).sort();
    const item = (name: string, badge: HTMLElement | null) => {
      const id = idOf(`tool-${list.childElementCount}-${name.replace(/[^A-Za-z0-9_-]/g, "_")}`);
      return h(
        "li",
        { class: "field check" },
        h("input", { type: "checkbox", id, value: name, checked: checked.has(name) }),
        h("label", { for: id }, toolName(name), badge ? " " : "", badge),
      );
    };
    list.replaceChildren();
    for (const t of current)
      list.append(item(t.name, t.readOnly ? h("span", { class: "badge ro" }, "read-only") : null));
    for (const name of gone) list.append(item(name, h("span", { class: "badge danger" }, "not offered now")));
    if (!list.childElementCount)
      list.append(
        h(
          "li",
          { class: "empty-inline" },
          "The channel offers no tools now: connect a tab or the sidecar to choose among its tools.",
        ),
      );
  }
  setTools(tools);

  form.addEventListener("change", (event) => {
    if (event.target instanceof HTMLInputElement && event.target.type === "radio")
      chosen.hidden = event.target.value !== "chosen";
  });
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const choice = new FormData(form).get(idOf("choice")) as Choice | null;
    const boxes = [...list.querySelectorAll<HTMLInputElement>("input[type=checkbox]")];
    for (const box of boxes) box.removeAttribute("aria-invalid");
    let next: ToolPolicy;
    if (choice === "chosen") {
      const allow = boxes.filter((b) => b.checked).map((b) => b.value);
      if (allow.length === 0) {
        showError(error, "Check at least one tool, or choose “No tools”.");
        boxes[0]?.focus();
        return;
      }
      next = { allow };
    } else next = choice ?? "all";
    showError(error, "");
    void whileBusy([save, cancel], () => on.save(next)).catch((e: unknown) => {
      showError(error, `Not saved: ${failure(e)}`);
      // A 422 names each unknown tool by its index in `allow`: mark its checkbox.
      if (e instanceof ApiError && typeof next === "object")
        for (const issue of e.issues) {
          const index = /^tools\.allow\.(\d+)$/.exec(issue.path)?.[1];
          const name = index === undefined ? undefined : next.allow[Number(index)];
          const box = boxes.find((b) => b.value === name);
          box?.setAttribute("aria-invalid", "true");
        }
      error.focus();
    });
  });
  error.tabIndex = -1;

  const row = h("tr", { class: "policy-row" }, h("td", { colspan, class: "policy-cell" }, form));
  return { row, setTools };
}

/** An API error's message, with its issues' messages when they add to it. */
function failure(e: unknown): string {
  if (!(e instanceof ApiError)) return messageOf(e);
  const extra = e.issues.map((i) => i.message).filter((m) => !e.message.includes(m));
  return [e.message, ...extra].join(" ");
}
