// "Try it" on a tool's page: picks one of the channels this browser keeps, finds the tool among the tools
// the channel's tabs offer (same origin, same original name), and calls it with POST /api/channels/:id/calls
// and the channel's agent token, exactly as an agent would; then shows the result.
import { $, ApiError, announce, api, h, showError, store } from "/assets/common.js";

const section = $("try");
if (section) setup();

function setup() {
  const origin = section.dataset.origin;
  const toolName = section.dataset.tool;
  const readOnly = section.dataset.readonly === "true";
  const pages = JSON.parse(section.dataset.pages || "[]");
  const form = $("try-form");
  const select = $("try-channel");
  const run = $("try-run");
  const status = $("try-status");
  const result = $("try-result");
  const preview = $("try-args");
  const fields = [...form.querySelectorAll("[data-arg]")];
  const channels = store.channels();

  const setStatus = (kind, ...content) => {
    status.className = `alert ${kind}`;
    status.replaceChildren(...content);
    status.hidden = content.length === 0;
  };

  select.replaceChildren();
  if (channels.length === 0) {
    select.append(h("option", { value: "" }, "No channels in this browser"));
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
  for (const c of channels) {
    select.append(h("option", { value: c.id, selected: c.id === remembered }, `${c.name} (${c.id})`));
  }
  select.disabled = false;
  run.disabled = false;

  function pageLink() {
    const path = pages[0] ?? "/";
    return h("a", { href: origin + path, target: "_blank", rel: "noopener" }, origin + path);
  }

  const channel = () => store.channel(select.value);
  let exposedName = null;

  /** Looks for this tool among the channel's live tools; explains what to do when it is not there. */
  async function check() {
    const ch = channel();
    exposedName = null;
    if (!ch) return false;
    setStatus("info", h("p", {}, "Checking which tabs are connected to ", h("strong", {}, ch.name), "…"));
    let snapshot;
    try {
      snapshot = await api(`/api/channels/${encodeURIComponent(ch.id)}`, { token: ch.ownerKey });
    } catch (e) {
      setStatus(
        "error",
        h("p", {}, "Could not read the channel: ", e.message),
        e.status === 401 || e.status === 404
          ? h(
              "p",
              {},
              "This browser's key for the channel no longer works. ",
              h("a", { href: "/channels" }, "Create a new channel"),
              ".",
            )
          : null,
      );
      return false;
    }
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

  /** The arguments object from the form, or null after marking the fields that are wrong. */
  function collect(mark) {
    const args = {};
    let firstBad = null;
    for (const field of fields) {
      const name = field.dataset.arg;
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
          problem = `Not valid JSON: ${e.message}`;
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

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const args = collect(true);
    if (!args) return;
    const ch = channel();
    if (!ch) return;
    run.disabled = true;
    try {
      if (!(await check())) {
        status.focus?.();
        announce("The tool is not connected. See the steps above.");
        return;
      }
      const token = ch.agentToken ?? ch.tokens?.find((t) => !t.revoked)?.token;
      if (!token) {
        result.replaceChildren(
          h(
            "div",
            { class: "alert error", role: "alert" },
            "This browser has no agent token for this channel. Create one in ",
            h("a", { href: `/channels/${encodeURIComponent(ch.id)}#tokens` }, "the channel console"),
            ".",
          ),
        );
        return;
      }
      result.replaceChildren(
        h(
          "p",
          { class: "alert info" },
          readOnly ? "Running…" : "Waiting for you to approve the call in the tab… (up to 60 seconds)",
        ),
      );
      const started = performance.now();
      const body = await api(`/api/channels/${encodeURIComponent(ch.id)}/calls`, {
        method: "POST",
        token,
        json: { name: exposedName, arguments: args },
      });
      renderResult(body.results[0], performance.now() - started);
    } catch (e) {
      const message = e instanceof ApiError ? e.message : String(e);
      result.replaceChildren(
        h("div", { class: "alert error", role: "alert" }, h("strong", {}, "The call failed. "), message),
      );
    } finally {
      run.disabled = false;
    }
  });

  const STATUS_HELP = {
    denied: "You (or someone at the tab) declined the call.",
    disconnected: "The tab closed or lost its connection during the call. Reopen it and try again.",
    timeout: "No answer in time. Was an approval dialog left open in the tab?",
    invalid: "The arguments did not match the tool's input schema.",
    cancelled: "The call was cancelled.",
    error: "The tool reported a failure.",
  };

  function renderResult(call, ms) {
    const r = call.result ?? {};
    const ok = call.status === "ok" && !r.isError;
    const blocks = (r.content ?? []).map((c) => {
      if (c.type === "text") return h("pre", { class: "result-text", tabindex: 0 }, c.text);
      if (c.type === "image")
        return h("img", { src: `data:${c.mimeType};base64,${c.data}`, alt: "Image returned by the tool" });
      if (c.type === "resource")
        return h("pre", { tabindex: 0 }, c.resource?.text ?? JSON.stringify(c.resource, null, 2));
      return h("pre", { tabindex: 0 }, JSON.stringify(c, null, 2));
    });
    result.replaceChildren(
      h(
        "div",
        { class: `alert ${ok ? "ok" : "error"}`, role: ok ? "status" : "alert" },
        h("strong", {}, ok ? "Done" : `Status: ${call.status}`),
        ` · ${Math.round(ms)} ms`,
        ok ? "" : h("p", {}, STATUS_HELP[call.status] ?? ""),
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
}
