// Entry of /assets/tool.js: "Try it" on a tool's page. First builds the form's fields from the tool's
// inputSchema (lib/arg-fields.ts; without JavaScript the form has none, only a note). A tool that runs in
// the cloud (the section's data-cloud) runs in the hub's own browser for anyone, signed in or not, with no
// channel, tab or install (POST /api/sites/:host/tools/:name/try). Any other tool: picks one of the user's
// channels (the signed-in account's and those this browser keeps, as "Add to a channel" lists them:
// lib/my-channels.ts), finds the tool among the tools the channel's tabs offer (same origin, same original
// name), and calls it with POST /api/channels/:id/calls and an agent token of the channel, exactly as an
// agent would; then shows the result. An account's channel that this browser keeps no agent token of gets
// one on the first run, created through the session and labelled "Try it in this browser" (kept under
// "try-tokens"; made anew once if it was revoked), so the owner sees in the audit log that the call came
// from here.
import type { ChannelSnapshot, CreatedAgentToken, PlainCallResult } from "../../src/protocol/views.js";
import type { JsonSchemaObject } from "../../src/protocol/index.js";
import type { ContentBlock } from "../../src/protocol/results.js";
import { ApiError, api } from "./lib/api.js";
import { argFields } from "./lib/arg-fields.js";
import { whileBusy } from "./lib/busy.js";
import { $, announce, byId, fill, h, messageOf, showError, type Child } from "./lib/dom.js";
import { myChannels, type OwnedChannel } from "./lib/my-channels.js";
import { store } from "./lib/store.js";

const TRY_TOKEN_LABEL = "Try it in this browser";
const TRY_TOKENS = "try-tokens";

const section = $("try");
if (section) {
  buildFields();
  void setup(section);
}

/**
 * Fills the form's fieldset with the inputSchema's fields (the server sends none: they need this script). The
 * schema is the page's raw input schema block, the same JSON the "What it takes" table was made from.
 */
function buildFields() {
  const schema = JSON.parse(byId("input-schema").textContent ?? "{}") as JsonSchemaObject;
  const fieldset = byId("try-fields");
  fieldset.querySelector("noscript")?.remove();
  fieldset.append(...argFields(schema));
}

/** An agent token of `ch` this browser holds: the channel's kept one, or the one Try it made. */
function heldToken(ch: OwnedChannel): string | null {
  const kept = store.channel(ch.id);
  const own = kept?.agentToken ?? kept?.tokens?.find((t) => !t.revoked)?.token;
  if (own) return own;
  return store.get<Record<string, string>>(TRY_TOKENS, {})[ch.id] ?? null;
}

/** Makes (with the owner's credentials) and keeps an agent token for Try it's calls on `ch`. */
async function makeTryToken(ch: OwnedChannel): Promise<string> {
  const body = await api<CreatedAgentToken>(`/api/channels/${encodeURIComponent(ch.id)}/agent-tokens`, {
    method: "POST",
    json: { label: TRY_TOKEN_LABEL },
    token: ch.token,
  });
  store.set(TRY_TOKENS, { ...store.get<Record<string, string>>(TRY_TOKENS, {}), [ch.id]: body.agentToken });
  return body.agentToken;
}

const STATUS_HELP: Record<string, string> = {
  denied: "You (or someone at the tab) declined the call.",
  disconnected: "The tab closed or lost its connection during the call. Reopen it and try again.",
  timeout: "No answer in time. Was an approval dialog left open in the tab?",
  invalid: "The arguments did not match the tool's input schema.",
  cancelled: "The call was cancelled.",
  error: "The tool reported a failure.",
};

function pagesOf(raw: string | undefined): string[] {
  try {
    const pages: unknown = JSON.parse(raw || "[]");
    return Array.isArray(pages) ? pages.filter((p): p is string => typeof p === "string") : [];
  } catch {
    return [];
  }
}

async function setup(section: HTMLElement) {
  if (section.dataset.cloud === "true") return setupCloud(section);
  const origin = section.dataset.origin ?? "";
  const toolName = section.dataset.tool ?? "";
  const readOnly = section.dataset.readonly === "true";
  const pages = pagesOf(section.dataset.pages);
  const form = byId("try-form", HTMLFormElement);
  const select = byId("try-channel", HTMLSelectElement);
  const run = byId("try-run", HTMLButtonElement);
  const status = byId("try-status");
  const result = byId("try-result");
  const preview = byId("try-args");
  const said = $("add-to-channel")?.dataset.signedIn;
  const { channels } = await myChannels(said === undefined ? undefined : said === "true");

  const setStatus = (kind: string, ...content: Child[]) => {
    status.className = `alert ${kind}`;
    // Only nodes and text: a null (a part left out) must not show as the text "null".
    status.replaceChildren(
      ...content.flatMap((c) => (c instanceof Node || typeof c === "string" ? [c] : [])),
    );
    status.hidden = content.length === 0;
  };

  function pageLink() {
    const path = pages[0] ?? "/";
    return h("a", { href: origin + path, target: "_blank", rel: "noopener" }, origin + path);
  }

  select.replaceChildren();
  if (channels.length === 0) {
    select.append(h("option", { value: "" }, "No channels yet"));
    setStatus(
      "info",
      h(
        "p",
        {},
        h("strong", {}, "You need a channel first. "),
        "A channel connects this page to your own tabs.",
      ),
      h(
        "ol",
        {},
        h("li", {}, h("a", { href: "/channels" }, "Create a channel"), " (one click)."),
        h("li", {}, "Open ", pageLink(), " and connect it with the channel's pairing code."),
        h("li", {}, "Come back here and run the tool."),
      ),
    );
    return;
  }
  const remembered = store.get("try-channel", "");
  const group = (label: string, list: OwnedChannel[]) =>
    list.length
      ? h(
          "optgroup",
          { label },
          list.map((c) => h("option", { value: c.id, selected: c.id === remembered }, `${c.name} (${c.id})`)),
        )
      : null;
  for (const g of [
    group(
      "Your account's channels",
      channels.filter((c) => c.source === "account"),
    ),
    group(
      "Kept in this browser",
      channels.filter((c) => c.source === "browser"),
    ),
  ])
    if (g) select.append(g);
  select.disabled = false;
  run.disabled = false;

  const channel = () => channels.find((c) => c.id === select.value);
  let exposedName: string | null = null;

  /** Looks for this tool among the channel's live tools; explains what to do when it is not there. */
  /** Numbers each check: only the latest one may write the status (an earlier one can answer last). */
  let checks = 0;
  async function check(): Promise<boolean> {
    const ch = channel();
    const mine = ++checks;
    exposedName = null;
    if (!ch) return false;
    setStatus("info", h("p", {}, "Checking which tabs are connected to ", h("strong", {}, ch.name), "…"));
    let snapshot: ChannelSnapshot;
    try {
      snapshot = await api<ChannelSnapshot>(`/api/channels/${encodeURIComponent(ch.id)}`, {
        token: ch.token,
      });
    } catch (e) {
      if (mine !== checks) return false;
      const gone = e instanceof ApiError && (e.status === 401 || e.status === 404);
      setStatus(
        "error",
        h("p", {}, "Could not read the channel: ", messageOf(e)),
        gone
          ? h(
              "p",
              {},
              ch.source === "account"
                ? "Your session has ended or the channel is gone: sign in again. "
                : "This browser's key for the channel no longer works. ",
              h("a", { href: "/channels" }, "Create a new channel"),
              ".",
            )
          : null,
      );
      return false;
    }
    // A newer check (another channel was chosen meanwhile) has the last word.
    if (mine !== checks) return false;
    const match = snapshot.tools.find((t) => t.origin === origin && (t.originalName ?? t.name) === toolName);
    if (match) {
      exposedName = match.name;
      setStatus(
        "ok",
        h(
          "p",
          {},
          h("strong", {}, "Ready. "),
          `A tab of ${origin} is connected to “${ch.name}” and offers this tool`,
          match.name !== toolName ? [" as ", h("code", {}, match.name)] : "",
          ".",
          readOnly ? "" : " The tab will ask you to approve the call.",
        ),
      );
      return true;
    }
    const sameOrigin = snapshot.providers.filter((p) => p.origin === origin);
    setStatus(
      "warn",
      h(
        "p",
        {},
        h(
          "strong",
          {},
          sameOrigin.length ? "This tool is not offered right now. " : `No tab of ${origin} is connected. `,
        ),
        sameOrigin.length
          ? `A tab of ${origin} is connected to “${ch.name}”, but the page it shows does not register ${toolName}.`
          : `The tool runs inside a page of ${origin}, in your browser, and “${ch.name}” has no such tab connected right now.`,
      ),
      h(
        "ol",
        {},
        h("li", {}, "Open ", pageLink(), " in a tab."),
        h(
          "li",
          {},
          "Press the webmcp-hub button on that page and type a pairing code from ",
          h("a", { href: `/channels/${encodeURIComponent(ch.id)}#pair` }, "the channel console"),
          ".",
        ),
        h("li", {}, "Press Run again: this checks once more."),
      ),
    );
    return false;
  }

  select.addEventListener("change", () => {
    store.set("try-channel", select.value);
    result.replaceChildren();
    void check();
  });
  void check();

  const collect = argsCollector(form, preview);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const args = collect(true);
    if (!args) return;
    const ch = channel();
    if (!ch) return;
    await whileBusy([run], async () => {
      try {
        if (!(await check())) {
          status.focus();
          announce("The tool is not connected. See the steps above.");
          return;
        }
        let token = heldToken(ch) ?? (await makeTryToken(ch));
        result.replaceChildren(
          h(
            "p",
            { class: "alert info" },
            readOnly ? "Running…" : "Waiting for you to approve the call in the tab… (up to 60 seconds)",
          ),
        );
        const started = performance.now();
        const call = (agentToken: string) =>
          api<{ results: PlainCallResult[] }>(`/api/channels/${encodeURIComponent(ch.id)}/calls`, {
            method: "POST",
            token: agentToken,
            json: { name: exposedName, arguments: args },
          });
        let body: { results: PlainCallResult[] };
        try {
          body = await call(token);
        } catch (e) {
          // The token Try it made here was revoked in the console: make another, once.
          const mine = store.get<Record<string, string>>(TRY_TOKENS, {})[ch.id] === token;
          if (!(e instanceof ApiError && e.status === 401 && mine)) throw e;
          token = await makeTryToken(ch);
          body = await call(token);
        }
        const first = body.results[0];
        if (first) renderResult(result, first, performance.now() - started, STATUS_HELP);
      } catch (e) {
        result.replaceChildren(
          h(
            "div",
            { class: "alert error", role: "alert" },
            h("strong", {}, "The call failed. "),
            messageOf(e),
          ),
        );
      }
    });
  });
}

/** What each status means when the hub ran the tool in its own browser. */
const CLOUD_STATUS_HELP: Record<string, string> = {
  denied: "The hub did not run it in the cloud; the message says why.",
  timeout: "The page did not answer in time.",
  invalid: "The arguments did not match the tool's input schema.",
  error: "The tool or its page reported a failure.",
};

/** Try it for a cloud tool: runs in the hub's browser, for anyone, with no channel. */
function setupCloud(section: HTMLElement) {
  const host = section.dataset.host ?? "";
  const toolName = section.dataset.tool ?? "";
  const form = byId("try-form", HTMLFormElement);
  const run = byId("try-run", HTMLButtonElement);
  const result = byId("try-result");
  const collect = argsCollector(form, byId("try-args"));
  run.disabled = false;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const args = collect(true);
    if (!args) return;
    await whileBusy([run], async () => {
      result.replaceChildren(h("p", { class: "alert info" }, "Running in the hub's browser…"));
      const started = performance.now();
      try {
        const call = await api<PlainCallResult>(
          `/api/sites/${encodeURIComponent(host)}/tools/${encodeURIComponent(toolName)}/try`,
          { method: "POST", json: { arguments: args } },
        );
        renderResult(result, call, performance.now() - started, CLOUD_STATUS_HELP);
      } catch (e) {
        result.replaceChildren(
          h(
            "div",
            { class: "alert error", role: "alert" },
            h("strong", {}, "The call failed. "),
            messageOf(e),
          ),
        );
      }
    });
  });
}

/**
 * Reads the form's argument fields into an arguments object (null after marking the fields that are wrong,
 * when `mark`), and keeps `preview` showing the JSON as the user types.
 */
function argsCollector(form: HTMLFormElement, preview: HTMLElement) {
  const fields = [
    ...form.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>("[data-arg]"),
  ];
  function collect(mark: boolean): Record<string, unknown> | null {
    const args: Record<string, unknown> = {};
    let firstBad: HTMLElement | null = null;
    for (const field of fields) {
      const name = field.dataset.arg ?? "";
      const kind = field.dataset.kind;
      const raw = field.value.trim();
      const error = $(`${field.id}-error`);
      let problem = "";
      if (raw === "") {
        if (field.required) problem = "Required.";
      } else if (kind === "number" || kind === "integer") {
        const n = Number(raw);
        if (!Number.isFinite(n)) problem = "Enter a number.";
        else if (kind === "integer" && !Number.isInteger(n)) problem = "Enter a whole number.";
        else args[name] = n;
      } else if (kind === "boolean") {
        args[name] = raw === "true";
      } else if (kind === "enum" || kind === "json") {
        try {
          args[name] = JSON.parse(raw);
        } catch (e) {
          problem = `Not valid JSON: ${messageOf(e)}`;
        }
      } else {
        args[name] = field.value;
      }
      if (mark) showError(error, problem, field);
      if (problem && !firstBad) firstBad = field;
    }
    if (firstBad) {
      if (mark) firstBad.focus();
      return null;
    }
    return args;
  }
  const updatePreview = () => {
    const args = collect(false);
    preview.textContent = args ? JSON.stringify(args, null, 2) : "(some fields are not valid yet)";
  };
  form.addEventListener("input", updatePreview);
  updatePreview();
  return collect;
}

function block(c: ContentBlock): HTMLElement {
  if (c.type === "text") return h("pre", { class: "result-text", tabindex: 0 }, c.text);
  if (c.type === "image")
    return h("img", { src: `data:${c.mimeType};base64,${c.data}`, alt: "Image returned by the tool" });
  if (c.type === "resource") {
    const text = "text" in c.resource && typeof c.resource.text === "string" ? c.resource.text : null;
    return h("pre", { tabindex: 0 }, text ?? JSON.stringify(c.resource, null, 2));
  }
  return h("pre", { tabindex: 0 }, JSON.stringify(c, null, 2));
}

/** Shows a call's result in `into`: its status (with `help` for a failure), its content and structured result. */
function renderResult(into: HTMLElement, call: PlainCallResult, ms: number, help: Record<string, string>) {
  const r = call.result;
  const ok = call.status === "ok" && !r.isError;
  const blocks = (r.content ?? []).map(block);
  // `fill`, not replaceChildren: the parts left out (null) must not show as the text "null".
  fill(
    into,
    h(
      "div",
      { class: `alert ${ok ? "ok" : "error"}`, role: ok ? "status" : "alert" },
      h("strong", {}, ok ? "Done" : `Status: ${call.status}`),
      ` · ${Math.round(ms)} ms`,
      ok ? "" : h("p", {}, help[call.status] ?? ""),
    ),
    blocks.length ? h("h3", {}, "Result") : null,
    ...blocks,
    r.structuredContent !== undefined
      ? h(
          "details",
          { open: true },
          h("summary", {}, "Structured result (JSON)"),
          h("pre", { tabindex: 0 }, JSON.stringify(r.structuredContent, null, 2)),
        )
      : null,
  );
  announce(ok ? "The tool answered." : `The call ended with status ${call.status}.`);
}
