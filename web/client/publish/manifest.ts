// Step 4 of /publish: the manifest, pasted, uploaded or started from the example or the current version, and
// published (PUT /api/sites/:host/manifest with the publisher key). The API's field issues are listed with a
// "Go to" that selects the exact place in the text (web/client/lib/json-tree.ts).
import { LIMITS } from "../../../src/protocol/limits.js";
import type { ManifestVersionView, PublishResultView } from "../../../src/protocol/views.js";
import { ApiError, api, type ApiIssue } from "../lib/api.js";
import { whileBusy } from "../lib/busy.js";
import { announce, byId, h, messageOf } from "../lib/dom.js";
import { JsonSyntaxError, columnOf, lineOf, locate, parseTree } from "../lib/json-tree.js";
import { store } from "../lib/store.js";
import { showPublished, type PublishedManifest } from "./done.js";
import {
  focusStep,
  note,
  reveal,
  stepState,
  submitter,
  type OpenManifestOptions,
  type PublishPage,
} from "./steps.js";

/** An issue to list; `range` (when known) is what "Go to" selects in the text. */
interface ShownIssue extends ApiIssue {
  range?: [number, number] | null;
}

/** Sets up the step; returns openManifest (PublishPage.openManifest). */
export function setupManifest(page: PublishPage): PublishPage["openManifest"] {
  const area = byId("manifest", HTMLTextAreaElement);
  const form = byId("manifest-form", HTMLFormElement);
  const fileInput = byId("manifest-file", HTMLInputElement);
  const issuesBox = byId("manifest-issues");

  function openManifest(which: string, { keepKey = false, focus = true }: OpenManifestOptions = {}) {
    page.host = which;
    store.set("publish-current", which);
    byId("m-host").textContent = which;
    note("verify", `${which} is verified.`);
    if (!keepKey) {
      reveal("key", false);
      note("key", `This browser keeps the publisher key of ${which}.`);
    }
    reveal("verify", false);
    reveal("manifest");
    reveal("done", false);
    stepState("manifest", ["register", "verify", "key"]);
    clearIssues();
    if (focus) focusStep("manifest");
    if (!keepKey) void loadCurrent(which);
  }

  /** Starts a new version from the current one, when the site has published before. */
  async function loadCurrent(which: string) {
    if (area.value.trim()) return;
    try {
      const current = await api<ManifestVersionView>(`/api/sites/${encodeURIComponent(which)}/manifest`);
      if (page.host === which && !area.value.trim()) {
        area.value = JSON.stringify(current.manifest, null, 2);
        announce(`Loaded version ${current.version}, the current manifest of ${which}, to edit.`);
      }
    } catch {
      // Nothing published yet (or not verified): the box stays empty for a first manifest.
    }
  }

  function exampleManifest(): string {
    const origin = (page.host ? store.sites()[page.host]?.origin : undefined) ?? "https://shop.example";
    return JSON.stringify(
      {
        name: new URL(origin).hostname,
        description: "What your site is and what its tools let an agent do.",
        tools: [
          {
            name: "search-products",
            title: "Search products",
            description: "Finds products whose name or description contains the given words.",
            inputSchema: {
              type: "object",
              properties: { query: { type: "string", description: "Words to look for" } },
              required: ["query"],
            },
            annotations: { readOnlyHint: true },
            pages: ["/"],
            // Read-only with a page: the hub may run it with no tab open (docs#cloud).
            cloud: true,
          },
        ],
      },
      null,
      2,
    );
  }

  function clearIssues() {
    issuesBox.hidden = true;
    area.removeAttribute("aria-invalid");
  }

  function selectRange(start: number, end: number) {
    area.focus();
    area.setSelectionRange(start, end);
    // Scroll the selection into view: browsers do not always do it for a programmatic selection.
    const line = lineOf(area.value, start);
    const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (line - 3) * lineHeight);
  }

  function showIssues(summary: string, issues: ShownIssue[], text = "") {
    byId("manifest-error-summary").textContent = summary;
    byId("manifest-issue-list").replaceChildren(
      ...issues.map((issue) => {
        const range =
          issue.range !== undefined ? issue.range : text ? locate(text, issue.path, issue.message) : null;
        return h(
          "li",
          {},
          range
            ? h(
                "button",
                {
                  type: "button",
                  class: "linklike",
                  "aria-label": `Go to ${issue.path} in the manifest (line ${lineOf(text, range[0])})`,
                  onclick: () => selectRange(range[0], range[1]),
                },
                h("code", {}, issue.path),
              )
            : h("code", {}, issue.path),
          `: ${issue.message}`,
          range ? h("span", { class: "meta" }, ` (line ${lineOf(text, range[0])})`) : "",
        );
      }),
    );
    issuesBox.hidden = false;
    area.setAttribute("aria-invalid", "true");
    issuesBox.focus();
  }

  byId("manifest-example").addEventListener("click", () => {
    if (area.value.trim() && !confirm("Replace the text in the box with an example?")) return;
    area.value = exampleManifest();
    area.focus();
  });

  fileInput.addEventListener("change", async () => {
    const file = fileInput.files?.[0];
    if (!file) return;
    if (file.size > LIMITS.manifestBytes) {
      const most = LIMITS.manifestBytes / 1024;
      showIssues(
        `${file.name} is ${Math.ceil(file.size / 1024)} KiB; a manifest may be at most ${most} KiB.`,
        [],
      );
      return;
    }
    area.value = await file.text();
    clearIssues();
    announce(`Loaded ${file.name}. Press Publish to publish it.`);
  });

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!page.host) return;
    const which = page.host;
    const site = store.sites()[which];
    const text = area.value;
    clearIssues();
    if (!text.trim()) {
      showIssues("The manifest is empty. Paste it, upload it, or start from the example.", []);
      return;
    }
    let manifest: PublishedManifest;
    try {
      parseTree(text);
    } catch (e) {
      // Nesting deeper than the parser follows is the API's to judge (JSON.parse below still checks the text).
      if (e instanceof JsonSyntaxError) {
        showIssues(
          "This is not valid JSON.",
          [
            {
              path: `line ${lineOf(text, e.pos)}, column ${columnOf(text, e.pos)}`,
              message: e.message,
              range: [e.pos, Math.min(e.pos + 1, text.length)],
            },
          ],
          text,
        );
        return;
      }
    }
    try {
      manifest = JSON.parse(text) as PublishedManifest;
    } catch (e) {
      showIssues("This is not valid JSON.", [{ path: "(text)", message: messageOf(e), range: null }], text);
      return;
    }
    const publisherKey = site?.publisherKey;
    if (!publisherKey) {
      showIssues(
        `This browser has no publisher key for ${which}. Verify the origin again, or rotate with the key you saved.`,
        [],
      );
      return;
    }
    await whileBusy([submitter(event, form, "button[type=submit]")], async () => {
      try {
        const body = await api<PublishResultView>(`/api/sites/${encodeURIComponent(which)}/manifest`, {
          method: "PUT",
          token: publisherKey,
          text,
        });
        showPublished(body, manifest);
      } catch (e) {
        const status = e instanceof ApiError ? e.status : 0;
        const issues = e instanceof ApiError ? e.issues : [];
        const help =
          status === 401
            ? " The key may have been rotated elsewhere: verify the origin again to get a new one."
            : "";
        showIssues(`${issues.length ? "The manifest has problems." : messageOf(e)}${help}`, issues, text);
      }
    });
  });

  return openManifest;
}
