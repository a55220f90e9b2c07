// Entry of /assets/publish.js: the publish flow on /publish, over the REST API: register → challenge (HTTP
// file or DNS TXT) → verify → publisher key (shown once; this browser keeps a copy) → manifest (pasted or
// uploaded; the API's field issues point at the exact place in the text, web/client/lib/json-tree.ts) → the
// published version. Also rotates publisher keys.
import type {
  ManifestVersionView,
  PublishResultView,
  PublisherKeyView,
  RegisteredSiteView,
} from "../../src/protocol/views.js";
import { plural } from "../shared/markup.js";
import { ApiError, api, type ApiIssue } from "./lib/api.js";
import { $, announce, byId, h, messageOf, showError } from "./lib/dom.js";
import { JsonSyntaxError, columnOf, lineOf, locate, parseTree } from "./lib/json-tree.js";
import { store } from "./lib/store.js";

const STEPS = ["register", "verify", "key", "manifest", "done"] as const;
type Step = (typeof STEPS)[number];
let host: string | null = null;

function stepState(current: Step, done: readonly Step[] = []) {
  for (const s of STEPS) {
    const li = byId(`step-${s}`);
    li.classList.toggle("active", s === current);
    li.classList.toggle("done", done.includes(s));
  }
}

function focusStep(name: Step) {
  const title = $(`${name}-title`);
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  title?.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  title?.focus({ preventScroll: true });
}

/** A done step's collapsed line, in place of its "appears here" hint. */
function note(name: Step, text: string) {
  const waiting = $(`${name}-waiting`);
  if (waiting) waiting.textContent = text;
}

function reveal(name: Step, on = true) {
  byId(`${name}-body`).hidden = !on;
  const waiting = $(`${name}-waiting`);
  if (waiting) waiting.hidden = on;
}

function submitter(event: SubmitEvent, form: HTMLFormElement, selector: string): HTMLButtonElement {
  const button = event.submitter ?? form.querySelector(selector);
  if (!(button instanceof HTMLButtonElement)) throw new Error(`The form #${form.id} has no submit button.`);
  return button;
}

// ---- Sites this browser keeps -------------------------------------------------------------------------

function renderMySites() {
  const sites = Object.entries(store.sites());
  byId("my-sites").hidden = sites.length === 0;
  byId("my-sites-list").replaceChildren(
    ...sites.map(([key, s]) =>
      h(
        "li",
        { class: "card" },
        h("strong", {}, key),
        " ",
        s.publisherKey
          ? h("span", { class: "badge ro" }, "publisher key kept here")
          : s.claim
            ? h("span", { class: "badge rw" }, "verification pending")
            : h("span", { class: "badge muted" }, "no key"),
        h(
          "div",
          { class: "actions" },
          s.publisherKey
            ? h(
                "button",
                { type: "button", class: "btn small", onclick: () => openManifest(key) },
                "Publish a new version",
              )
            : null,
          !s.publisherKey && s.claim
            ? h(
                "button",
                { type: "button", class: "btn small", onclick: () => showChallenge(key) },
                "Continue verification",
              )
            : null,
          s.publisherKey
            ? h("a", { class: "btn small", href: `/sites/${encodeURIComponent(key)}` }, "Site page")
            : null,
          h(
            "button",
            {
              type: "button",
              class: "btn small danger",
              "aria-label": `Forget ${key} in this browser`,
              onclick: () => {
                if (!confirm(`Forget ${key} and its key in this browser? The site stays published.`)) return;
                store.forgetSite(key);
                renderMySites();
              },
            },
            "Forget",
          ),
        ),
      ),
    ),
  );
}

// ---- 1. Register --------------------------------------------------------------------------------------

const registerForm = byId("register-form", HTMLFormElement);
registerForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = byId("origin", HTMLInputElement);
  const error = byId("origin-error");
  let origin = input.value.trim();
  if (!origin) {
    showError(error, "Enter your site's origin, like https://shop.example.", input);
    input.focus();
    return;
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(origin)) origin = `https://${origin}`;
  showError(error, "", input);
  const button = submitter(event, registerForm, "button");
  button.disabled = true;
  try {
    const body = await api<RegisteredSiteView>("/api/sites", { method: "POST", json: { origin } });
    host = body.site.host;
    store.saveSite(host, {
      origin: body.site.origin,
      claim: { claimSecret: body.claimSecret, challenge: body.challenge },
    });
    store.set("publish-current", host);
    renderMySites();
    showChallenge(host);
  } catch (e) {
    showError(error, messageOf(e), input);
    input.focus();
  } finally {
    button.disabled = false;
  }
});

// ---- 2. Verify ----------------------------------------------------------------------------------------

function setCopy(id: string, value: string) {
  byId(id).textContent = value;
}

function showChallenge(which: string, focus = true) {
  host = which;
  const site = store.sites()[host];
  const c = site?.claim?.challenge;
  if (!site || !c) return;
  store.set("publish-current", host);
  byId("origin", HTMLInputElement).value = site.origin ?? "";
  byId("v-origin").textContent = site.origin ?? host;
  byId("v-expires").textContent = new Date(c.expiresAt).toLocaleString();
  setCopy("v-http-url", c.http.url);
  setCopy("v-http-body", c.http.body);
  setCopy("v-dns-name", c.dns.name);
  setCopy("v-dns-value", c.dns.value);
  showError(byId("verify-error"), "");
  reveal("verify");
  reveal("key", false);
  reveal("manifest", false);
  reveal("done", false);
  stepState("verify", ["register"]);
  if (focus) focusStep("verify");
}

const VERIFY_HELP: Record<string, string> = {
  verification_failed: "Check the value, then press Verify again.",
  challenge_expired: "Register the origin again for a new challenge.",
  rate_limited: "Register the origin again for a new challenge.",
  conflict: "Register the origin again for a new challenge.",
  forbidden: "Register the origin again for a new challenge.",
};

async function verify(method: "http" | "dns", button: HTMLButtonElement) {
  if (!host) return;
  const which = host;
  const site = store.sites()[which];
  if (!site?.claim) return;
  const box = byId("verify-error");
  showError(box, "");
  button.disabled = true;
  const label = button.textContent;
  button.textContent = "Checking…";
  try {
    const body = await api<PublisherKeyView>(`/api/sites/${encodeURIComponent(which)}/verify`, {
      method: "POST",
      token: site.claim.claimSecret,
      json: { method },
    });
    store.saveSite(which, { publisherKey: body.publisherKey, claim: undefined, verifiedBy: method });
    renderMySites();
    showKey(body.publisherKey);
    openManifest(which, { keepKey: true, focus: false });
    note(
      "verify",
      `Verified: you control ${site.origin} (${method === "http" ? "HTTP file" : "DNS record"}).`,
    );
    focusStep("key");
  } catch (e) {
    box.replaceChildren(
      h("strong", {}, method === "http" ? "The file check failed. " : "The DNS check failed. "),
      messageOf(e),
      " ",
      (e instanceof ApiError ? VERIFY_HELP[e.code] : undefined) ?? "",
    );
    box.hidden = false;
    box.setAttribute("tabindex", "-1");
    box.focus();
  } finally {
    button.disabled = false;
    button.textContent = label;
  }
}

const verifyHttp = byId("verify-http", HTMLButtonElement);
const verifyDns = byId("verify-dns", HTMLButtonElement);
verifyHttp.addEventListener("click", () => void verify("http", verifyHttp));
verifyDns.addEventListener("click", () => void verify("dns", verifyDns));
byId("cancel-claim").addEventListener("click", () => {
  store.set("publish-current", null);
  reveal("verify", false);
  stepState("register");
  const origin = byId("origin", HTMLInputElement);
  origin.value = "";
  origin.focus();
});

// ---- 3. Publisher key ---------------------------------------------------------------------------------

function showKey(key: string) {
  setCopy("publisher-key", key);
  reveal("key");
  stepState("manifest", ["register", "verify", "key"]);
}

byId("forget-key").addEventListener("click", () => {
  if (!host) return;
  if (!confirm("Remove the publisher key from this browser? Make sure you saved a copy.")) return;
  store.saveSite(host, { publisherKey: undefined });
  renderMySites();
  announce("The key was removed from this browser.");
});

// ---- 4. Manifest --------------------------------------------------------------------------------------

const area = byId("manifest", HTMLTextAreaElement);

function openManifest(which: string, { keepKey = false, focus = true } = {}) {
  host = which;
  store.set("publish-current", host);
  byId("m-host").textContent = host;
  note("verify", `${host} is verified.`);
  if (!keepKey) {
    reveal("key", false);
    note("key", `This browser keeps the publisher key of ${host}.`);
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
    if (host === which && !area.value.trim()) {
      area.value = JSON.stringify(current.manifest, null, 2);
      announce(`Loaded version ${current.version}, the current manifest of ${which}, to edit.`);
    }
  } catch {
    // Nothing published yet (or not verified): the box stays empty for a first manifest.
  }
}

function exampleManifest(): string {
  const origin = (host ? store.sites()[host]?.origin : undefined) ?? "https://shop.example";
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

byId("manifest-example").addEventListener("click", () => {
  if (area.value.trim() && !confirm("Replace the text in the box with an example?")) return;
  area.value = exampleManifest();
  area.focus();
});

const fileInput = byId("manifest-file", HTMLInputElement);
fileInput.addEventListener("change", async () => {
  const file = fileInput.files?.[0];
  if (!file) return;
  if (file.size > 256 * 1024) {
    showIssues(`${file.name} is ${Math.ceil(file.size / 1024)} KiB; a manifest may be at most 256 KiB.`, []);
    return;
  }
  area.value = await file.text();
  clearIssues();
  announce(`Loaded ${file.name}. Press Publish to publish it.`);
});

function clearIssues() {
  byId("manifest-issues").hidden = true;
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

/** An issue to list; `range` (when known) is what "Go to" selects in the text. */
interface ShownIssue extends ApiIssue {
  range?: [number, number] | null;
}

function showIssues(summary: string, issues: ShownIssue[], text = "") {
  const box = byId("manifest-issues");
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
  box.hidden = false;
  area.setAttribute("aria-invalid", "true");
  box.focus();
}

const manifestForm = byId("manifest-form", HTMLFormElement);
manifestForm.addEventListener("submit", async (event) => {
  event.preventDefault();
  if (!host) return;
  const which = host;
  const site = store.sites()[which];
  const text = area.value;
  clearIssues();
  if (!text.trim()) {
    showIssues("The manifest is empty. Paste it, upload it, or start from the example.", []);
    return;
  }
  let manifest: { tools?: Array<{ name: string; title?: string }> };
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
    manifest = JSON.parse(text) as typeof manifest;
  } catch (e) {
    showIssues("This is not valid JSON.", [{ path: "(text)", message: messageOf(e), range: null }], text);
    return;
  }
  if (!site?.publisherKey) {
    showIssues(
      `This browser has no publisher key for ${which}. Verify the origin again, or rotate with the key you saved.`,
      [],
    );
    return;
  }
  const button = submitter(event, manifestForm, "button[type=submit]");
  button.disabled = true;
  try {
    const body = await api<PublishResultView>(`/api/sites/${encodeURIComponent(which)}/manifest`, {
      method: "PUT",
      token: site.publisherKey,
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
  } finally {
    button.disabled = false;
  }
});

/** The definition checks' warnings as a list under a heading (published anyway; worth fixing). */
function warningsList(warnings: PublishResultView["warnings"]): HTMLElement[] {
  if (!warnings?.length) return [];
  return [
    h(
      "section",
      { class: "alert warn findings", id: "publish-warnings", "aria-labelledby": "publish-warnings-title" },
      h("h3", { id: "publish-warnings-title" }, `${plural(warnings.length, "warning")} about your tools`),
      h(
        "p",
        {},
        "Published anyway. Agents and people choose tools by these fields, so fix them and publish again (",
        h("a", { href: "/docs#definition-checks" }, "what each check means"),
        ").",
      ),
      h(
        "ul",
        {},
        ...warnings.map((w) => h("li", { "data-code": w.code }, h("code", {}, w.path), `: ${w.message}`)),
      ),
    ),
  ];
}

function showPublished(
  result: PublishResultView,
  manifest: { tools?: Array<{ name: string; title?: string }> },
) {
  const base = `/sites/${encodeURIComponent(result.host)}`;
  byId("done-body").replaceChildren(
    h(
      "div",
      { class: "alert ok" },
      h(
        "p",
        {},
        h(
          "strong",
          {},
          result.unchanged
            ? `Nothing new: this is version ${result.version} already.`
            : `Version ${result.version} is published.`,
        ),
        ` ${plural(result.toolCount, "tool")} · SHA-256 `,
        h("code", {}, result.sha256.slice(0, 12)),
      ),
    ),
    ...warningsList(result.warnings),
    h("p", {}, h("a", { class: "btn primary", href: base }, `Open ${result.host}`)),
    h(
      "ul",
      { class: "plain-list" },
      ...(manifest.tools ?? []).map((t) =>
        h(
          "li",
          {},
          h("a", { href: `${base}/tools/${encodeURIComponent(t.name)}` }, t.title ?? t.name),
          " ",
          h("code", {}, t.name),
        ),
      ),
    ),
    h(
      "p",
      { class: "meta" },
      "Change your tools later? Edit the manifest above and publish again: each publish is a new version.",
    ),
  );
  reveal("done");
  stepState("done", STEPS);
  focusStep("done");
}

// ---- Rotation -----------------------------------------------------------------------------------------

const rotateHost = byId("rotate-host", HTMLInputElement);
const rotateKey = byId("rotate-key", HTMLInputElement);
const fillRotateKey = () => {
  const key = store.sites()[rotateHost.value.trim()]?.publisherKey;
  if (key) rotateKey.value = key;
};
rotateHost.addEventListener("change", fillRotateKey);
rotateHost.addEventListener("input", fillRotateKey);

byId("rotate-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const which = rotateHost.value.trim().toLowerCase();
  const key = rotateKey.value.trim();
  const box = byId("rotate-error");
  showError(box, "");
  if (!which || !key) {
    showError(box, "Enter the site's host and its current publisher key.");
    (which ? rotateKey : rotateHost).focus();
    return;
  }
  try {
    const body = await api<PublisherKeyView>(`/api/sites/${encodeURIComponent(which)}/keys`, {
      method: "POST",
      token: key,
    });
    store.saveSite(which, { publisherKey: body.publisherKey });
    setCopy("rotated-key", body.publisherKey);
    byId("rotate-result").hidden = false;
    rotateKey.value = "";
    if (which === host && !byId("key-body").hidden) setCopy("publisher-key", body.publisherKey);
    renderMySites();
    announce("A new publisher key was issued; the previous one no longer works.");
    byId("rotated-key").closest(".copy-value")?.querySelector("button")?.focus();
  } catch (e) {
    showError(box, messageOf(e));
    box.setAttribute("tabindex", "-1");
    box.focus();
  }
});

// ---- Start --------------------------------------------------------------------------------------------

renderMySites();
const query = new URLSearchParams(location.search);
const wanted = query.get("host") ?? store.get<string | null>("publish-current", null);
const known = wanted ? store.sites()[wanted] : undefined;
if (wanted && known?.claim && !known.publisherKey) {
  showChallenge(wanted, false);
} else if (wanted && known?.publisherKey && query.has("host")) {
  openManifest(wanted);
} else stepState("register");
