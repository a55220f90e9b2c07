// The publish flow on /publish, over the REST API: register → challenge (HTTP file or DNS TXT) → verify →
// publisher key (shown once; this browser keeps a copy) → manifest (pasted or uploaded; the API's field
// issues point at the exact place in the text) → the published version. Also rotates publisher keys.
import { $, announce, api, h, showError, store } from "/assets/common.js";

const steps = ["register", "verify", "key", "manifest", "done"];
let host = null;

function stepState(current, done = []) {
  for (const s of steps) {
    const li = $(`step-${s}`);
    li.classList.toggle("active", s === current);
    li.classList.toggle("done", done.includes(s));
  }
}

function focusStep(name) {
  const title = $(`${name}-title`);
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  title?.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  title?.focus({ preventScroll: true });
}

/** A done step's collapsed line, in place of its "appears here" hint. */
function note(name, text) {
  const waiting = $(`${name}-waiting`);
  if (waiting) waiting.textContent = text;
}

function reveal(name, on = true) {
  $(`${name}-body`).hidden = !on;
  const waiting = $(`${name}-waiting`);
  if (waiting) waiting.hidden = on;
}

// ---- Sites this browser keeps -------------------------------------------------------------------------

function renderMySites() {
  const sites = Object.entries(store.sites());
  $("my-sites").hidden = sites.length === 0;
  $("my-sites-list").replaceChildren(
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

$("register-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const input = $("origin");
  const error = $("origin-error");
  let origin = input.value.trim();
  if (!origin) {
    showError(error, "Enter your site's origin, like https://shop.example.", input);
    input.focus();
    return;
  }
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(origin)) origin = `https://${origin}`;
  showError(error, "", input);
  const button = event.submitter ?? event.target.querySelector("button");
  button.disabled = true;
  try {
    const body = await api("/api/sites", { method: "POST", json: { origin } });
    host = body.site.host;
    store.saveSite(host, {
      origin: body.site.origin,
      claim: { claimSecret: body.claimSecret, challenge: body.challenge },
    });
    store.set("publish-current", host);
    renderMySites();
    showChallenge(host);
  } catch (e) {
    showError(error, e.message, input);
    input.focus();
  } finally {
    button.disabled = false;
  }
});

// ---- 2. Verify ----------------------------------------------------------------------------------------

function setCopy(id, value) {
  const el = $(id);
  el.textContent = value;
}

function showChallenge(which, focus = true) {
  host = which;
  const site = store.sites()[host];
  const c = site?.claim?.challenge;
  if (!c) return;
  store.set("publish-current", host);
  $("origin").value = site.origin;
  $("v-origin").textContent = site.origin;
  $("v-expires").textContent = new Date(c.expiresAt).toLocaleString();
  setCopy("v-http-url", c.http.url);
  setCopy("v-http-body", c.http.body);
  setCopy("v-dns-name", c.dns.name);
  setCopy("v-dns-value", c.dns.value);
  showError($("verify-error"), "");
  reveal("verify");
  reveal("key", false);
  reveal("manifest", false);
  reveal("done", false);
  stepState("verify", ["register"]);
  if (focus) focusStep("verify");
}

const VERIFY_HELP = {
  verification_failed: "Check the value, then press Verify again.",
  challenge_expired: "Register the origin again for a new challenge.",
  rate_limited: "Register the origin again for a new challenge.",
  conflict: "Register the origin again for a new challenge.",
  forbidden: "Register the origin again for a new challenge.",
};

async function verify(method, button) {
  const site = store.sites()[host];
  if (!site?.claim) return;
  const box = $("verify-error");
  showError(box, "");
  button.disabled = true;
  const label = button.textContent;
  button.textContent = "Checking…";
  try {
    const body = await api(`/api/sites/${encodeURIComponent(host)}/verify`, {
      method: "POST",
      token: site.claim.claimSecret,
      json: { method },
    });
    store.saveSite(host, { publisherKey: body.publisherKey, claim: undefined, verifiedBy: method });
    renderMySites();
    showKey(body.publisherKey);
    openManifest(host, { keepKey: true, focus: false });
    note(
      "verify",
      `Verified: you control ${site.origin} (${method === "http" ? "HTTP file" : "DNS record"}).`,
    );
    focusStep("key");
  } catch (e) {
    box.replaceChildren(
      h("strong", {}, method === "http" ? "The file check failed. " : "The DNS check failed. "),
      e.message,
      " ",
      VERIFY_HELP[e.code] ?? "",
    );
    box.hidden = false;
    box.setAttribute("tabindex", "-1");
    box.focus();
  } finally {
    button.disabled = false;
    button.textContent = label;
  }
}

$("verify-http").addEventListener("click", (e) => verify("http", e.currentTarget));
$("verify-dns").addEventListener("click", (e) => verify("dns", e.currentTarget));
$("cancel-claim").addEventListener("click", () => {
  store.set("publish-current", null);
  reveal("verify", false);
  stepState("register");
  $("origin").value = "";
  $("origin").focus();
});

// ---- 3. Publisher key ---------------------------------------------------------------------------------

function showKey(key) {
  setCopy("publisher-key", key);
  reveal("key");
  stepState("manifest", ["register", "verify", "key"]);
}

$("forget-key").addEventListener("click", () => {
  if (!confirm("Remove the publisher key from this browser? Make sure you saved a copy.")) return;
  store.saveSite(host, { publisherKey: undefined });
  renderMySites();
  announce("The key was removed from this browser.");
});

// ---- 4. Manifest --------------------------------------------------------------------------------------

function openManifest(which, { keepKey = false, focus = true } = {}) {
  host = which;
  store.set("publish-current", host);
  $("m-host").textContent = host;
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
async function loadCurrent(which) {
  const area = $("manifest");
  if (area.value.trim()) return;
  try {
    const current = await api(`/api/sites/${encodeURIComponent(which)}/manifest`);
    if (host === which && !area.value.trim()) {
      area.value = JSON.stringify(current.manifest, null, 2);
      announce(`Loaded version ${current.version}, the current manifest of ${which}, to edit.`);
    }
  } catch {
    // Nothing published yet (or not verified): the box stays empty for a first manifest.
  }
}

function exampleManifest() {
  const origin = store.sites()[host]?.origin ?? "https://shop.example";
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
        },
      ],
    },
    null,
    2,
  );
}

$("manifest-example").addEventListener("click", () => {
  const area = $("manifest");
  if (area.value.trim() && !confirm("Replace the text in the box with an example?")) return;
  area.value = exampleManifest();
  area.focus();
});

$("manifest-file").addEventListener("change", async (event) => {
  const file = event.target.files?.[0];
  if (!file) return;
  if (file.size > 256 * 1024) {
    showIssues(`${file.name} is ${Math.ceil(file.size / 1024)} KiB; a manifest may be at most 256 KiB.`, []);
    return;
  }
  $("manifest").value = await file.text();
  clearIssues();
  announce(`Loaded ${file.name}. Press Publish to publish it.`);
});

function clearIssues() {
  $("manifest-issues").hidden = true;
  $("manifest").removeAttribute("aria-invalid");
}

/**
 * A strict JSON parser that keeps where every value (and its key) starts and ends in the text. Throws an
 * Error with `pos` at the first syntax error, so both kinds of problem can point into the text.
 */
export function parseTree(text) {
  let i = 0;
  const fail = (message) => {
    const e = new Error(message);
    e.pos = Math.min(i, text.length);
    throw e;
  };
  const ws = () => {
    while (i < text.length && " \t\r\n".includes(text[i])) i++;
  };
  const found = () => (i >= text.length ? "the text ended" : `found ${JSON.stringify(text[i])}`);
  const expect = (ch) => {
    if (text[i] !== ch) fail(`expected ${ch} but ${found()}`);
    i++;
  };
  const str = () => {
    const s = i;
    expect('"');
    while (i < text.length && text[i] !== '"') {
      if (text[i] < " ") fail("a string may not contain a line break or control character");
      i += text[i] === "\\" ? 2 : 1;
    }
    if (i >= text.length) fail("a string is not closed with a double quote");
    i++;
    return JSON.parse(text.slice(s, i));
  };
  function value() {
    ws();
    const node = { start: i };
    if (text[i] === "{") {
      i++;
      node.keys = new Map();
      ws();
      if (text[i] === "}") i++;
      else
        for (;;) {
          ws();
          if (text[i] !== '"') fail(`expected a property name in double quotes but ${found()}`);
          const keyStart = i;
          const key = str();
          const keyEnd = i;
          ws();
          expect(":");
          const child = value();
          Object.assign(child, { keyStart, keyEnd });
          node.keys.set(key, child);
          ws();
          if (text[i] === ",") {
            i++;
            continue;
          }
          if (text[i] !== "}") fail(`expected , or } but ${found()}`);
          i++;
          break;
        }
    } else if (text[i] === "[") {
      i++;
      node.items = [];
      ws();
      if (text[i] === "]") i++;
      else
        for (;;) {
          node.items.push(value());
          ws();
          if (text[i] === ",") {
            i++;
            continue;
          }
          if (text[i] !== "]") fail(`expected , or ] but ${found()}`);
          i++;
          break;
        }
    } else if (text[i] === '"') str();
    else {
      const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(
        text.slice(i, i + 400),
      );
      if (!m) fail(`expected a value but ${found()}`);
      i += m[0].length;
    }
    node.end = i;
    return node;
  }
  const root = value();
  ws();
  if (i < text.length) fail(`unexpected text after the end: ${found()}`);
  return root;
}

/** Where `path` (like `tools[2].inputSchema.type`) is in valid JSON text: [start, end] of its key and value. */
export function locate(text, path, message = "") {
  let node;
  try {
    node = parseTree(text);
  } catch {
    return null;
  }
  const segments = [];
  if (path && path !== "(root)") {
    for (const m of path.matchAll(/\[(\d+)\]|([^.[\]]+)/g))
      segments.push(m[1] !== undefined ? Number(m[1]) : m[2]);
  }
  for (const seg of segments) {
    const next = typeof seg === "number" ? node.items?.[seg] : node.keys?.get(seg);
    if (!next) break;
    node = next;
  }
  // An unknown key is reported on its object: point at the key itself when the message names it.
  const named = /"([^"]+)"/.exec(message)?.[1];
  if (node.keys && named && node.keys.has(named)) node = node.keys.get(named);
  const nested = Boolean(node.keys || node.items);
  if (node.keyStart !== undefined) return nested ? [node.keyStart, node.keyEnd] : [node.keyStart, node.end];
  return nested ? [node.start, node.start + 1] : [node.start, node.end];
}

function lineOf(text, offset) {
  return text.slice(0, offset).split("\n").length;
}

function selectRange(start, end) {
  const area = $("manifest");
  area.focus();
  area.setSelectionRange(start, end);
  // Scroll the selection into view: browsers do not always do it for a programmatic selection.
  const line = lineOf(area.value, start);
  const lineHeight = parseFloat(getComputedStyle(area).lineHeight) || 18;
  area.scrollTop = Math.max(0, (line - 3) * lineHeight);
}

function showIssues(summary, issues, text = "") {
  const box = $("manifest-issues");
  $("manifest-error-summary").textContent = summary;
  $("manifest-issue-list").replaceChildren(
    ...issues.map((issue) => {
      const range = "range" in issue ? issue.range : text ? locate(text, issue.path, issue.message) : null;
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
  $("manifest").setAttribute("aria-invalid", "true");
  box.focus();
}

$("manifest-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const site = store.sites()[host];
  const text = $("manifest").value;
  clearIssues();
  if (!text.trim()) {
    showIssues("The manifest is empty. Paste it, upload it, or start from the example.", []);
    return;
  }
  let manifest;
  try {
    parseTree(text);
    manifest = JSON.parse(text);
  } catch (e) {
    const pos = typeof e.pos === "number" ? e.pos : null;
    const column = pos === null ? 0 : pos - text.lastIndexOf("\n", pos - 1);
    showIssues(
      "This is not valid JSON.",
      [
        {
          path: pos === null ? "(text)" : `line ${lineOf(text, pos)}, column ${column}`,
          message: e.message,
          range: pos === null ? null : [pos, Math.min(pos + 1, text.length)],
        },
      ],
      text,
    );
    return;
  }
  if (!site?.publisherKey) {
    showIssues(
      `This browser has no publisher key for ${host}. Verify the origin again, or rotate with the key you saved.`,
      [],
    );
    return;
  }
  const button = event.submitter ?? event.target.querySelector("button[type=submit]");
  button.disabled = true;
  try {
    const body = await api(`/api/sites/${encodeURIComponent(host)}/manifest`, {
      method: "PUT",
      token: site.publisherKey,
      text,
    });
    showPublished(body, manifest);
  } catch (e) {
    const help =
      e.status === 401
        ? " The key may have been rotated elsewhere: verify the origin again to get a new one."
        : "";
    showIssues(`${e.issues.length ? "The manifest has problems." : e.message}${help}`, e.issues, text);
  } finally {
    button.disabled = false;
  }
});

function showPublished(result, manifest) {
  const base = `/sites/${encodeURIComponent(result.host)}`;
  $("done-body").replaceChildren(
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
        ` ${result.toolCount} tool${result.toolCount === 1 ? "" : "s"} · SHA-256 `,
        h("code", {}, result.sha256.slice(0, 12)),
      ),
    ),
    h("p", {}, h("a", { class: "btn primary", href: base }, `Open ${result.host}`)),
    h(
      "ul",
      { class: "plain-list" },
      ...manifest.tools.map((t) =>
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
  stepState("done", steps);
  focusStep("done");
}

// ---- Rotation -----------------------------------------------------------------------------------------

const rotateHost = $("rotate-host");
const fillRotateKey = () => {
  const key = store.sites()[rotateHost.value.trim()]?.publisherKey;
  if (key) $("rotate-key").value = key;
};
rotateHost.addEventListener("change", fillRotateKey);
rotateHost.addEventListener("input", fillRotateKey);

$("rotate-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const which = rotateHost.value.trim().toLowerCase();
  const key = $("rotate-key").value.trim();
  const box = $("rotate-error");
  showError(box, "");
  if (!which || !key) {
    showError(box, "Enter the site's host and its current publisher key.");
    (which ? $("rotate-key") : rotateHost).focus();
    return;
  }
  try {
    const body = await api(`/api/sites/${encodeURIComponent(which)}/keys`, { method: "POST", token: key });
    store.saveSite(which, { publisherKey: body.publisherKey });
    setCopy("rotated-key", body.publisherKey);
    $("rotate-result").hidden = false;
    $("rotate-key").value = "";
    if (which === host && !$("key-body").hidden) setCopy("publisher-key", body.publisherKey);
    renderMySites();
    announce("A new publisher key was issued; the previous one no longer works.");
    $("rotated-key").closest(".copy-value")?.querySelector("button")?.focus();
  } catch (e) {
    showError(box, e.message);
    box.setAttribute("tabindex", "-1");
    box.focus();
  }
});

// ---- Start --------------------------------------------------------------------------------------------

renderMySites();
const wanted = new URLSearchParams(location.search).get("host") ?? store.get("publish-current", null);
const known = wanted ? store.sites()[wanted] : null;
if (known?.claim && !known.publisherKey) {
  showChallenge(wanted, false);
} else if (known?.publisherKey && new URLSearchParams(location.search).has("host")) {
  openManifest(wanted);
} else stepState("register");
