// Shared by every dashboard page (an ES module, no framework): copy buttons, tabs, the theme switch, and
// helpers the page modules import — the REST API client, this browser's store of keys, DOM building.

/** An error answered by the hub's REST API: `{error: {code, message, issues?}}`, or a network failure. */
export class ApiError extends Error {
  constructor(status, code, message, issues) {
    super(message);
    this.status = status;
    this.code = code;
    this.issues = issues ?? [];
  }
}

/** Calls the hub's REST API. `json` is sent as the body; `token` as `Authorization: Bearer`. */
export async function api(path, { method = "GET", json, text, token } = {}) {
  const headers = { accept: "application/json" };
  if (json !== undefined || text !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  let res;
  try {
    res = await fetch(path, {
      method,
      headers,
      body: text ?? (json === undefined ? undefined : JSON.stringify(json)),
    });
  } catch {
    throw new ApiError(0, "network", "Could not reach the hub. Check your connection and try again.");
  }
  const body = await res.json().catch(() => null);
  if (!res.ok) {
    const e = body?.error;
    throw new ApiError(
      res.status,
      e?.code ?? "http_" + res.status,
      e?.message ?? `The hub answered ${res.status}.`,
      e?.issues,
    );
  }
  return body;
}

const PREFIX = "webmcp-hub:";

/** This browser's copy of what the hub shows once: channels and their keys, publisher keys, claims. */
export const store = {
  get(name, fallback) {
    try {
      const raw = localStorage.getItem(PREFIX + name);
      return raw === null ? fallback : JSON.parse(raw);
    } catch {
      return fallback;
    }
  },
  set(name, value) {
    try {
      localStorage.setItem(PREFIX + name, JSON.stringify(value));
      return true;
    } catch {
      return false;
    }
  },
  channels() {
    return store.get("channels", []);
  },
  channel(id) {
    return store.channels().find((c) => c.id === id);
  },
  saveChannel(channel) {
    const all = store.channels().filter((c) => c.id !== channel.id);
    all.unshift(channel);
    store.set("channels", all);
  },
  forgetChannel(id) {
    store.set(
      "channels",
      store.channels().filter((c) => c.id !== id),
    );
  },
  sites() {
    return store.get("sites", {});
  },
  saveSite(host, patch) {
    const all = store.sites();
    all[host] = { ...all[host], ...patch, updatedAt: new Date().toISOString() };
    for (const [k, v] of Object.entries(all[host])) if (v === undefined) delete all[host][k];
    store.set("sites", all);
  },
  forgetSite(host) {
    const all = store.sites();
    delete all[host];
    store.set("sites", all);
  },
};

/** `h("p", {class: "x"}, "text", child)`: builds DOM without innerHTML (text is always text). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

export const $ = (id) => document.getElementById(id);

/** Shows (or hides, with an empty message) an error box or field error next to where it happened. */
export function showError(box, message, field) {
  if (!box) return;
  box.textContent = message ?? "";
  box.hidden = !message;
  if (field) {
    if (message) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  }
}

let live;
/** Announces a short message to screen readers. */
export function announce(message) {
  if (!live) {
    live = h("div", { class: "sr-only", role: "status", "aria-live": "polite" });
    document.body.append(live);
  }
  live.textContent = "";
  setTimeout(() => (live.textContent = message), 30);
}

export function setValue(id, value) {
  const el = $(id);
  if (el) el.textContent = value ?? "";
}

export function ago(iso) {
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 172800) return `${Math.round(s / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

export function timeText(iso) {
  const d = new Date(iso);
  return d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = h("textarea", { class: "sr-only", "aria-hidden": "true" });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

document.addEventListener("click", async (event) => {
  const button = event.target.closest?.("button[data-copy]");
  if (!button) return;
  const target = $(button.dataset.copy);
  if (!target) return;
  const text = target.dataset.value ?? target.value ?? target.textContent ?? "";
  const ok = await copyText(text.trim());
  button.textContent = ok ? "Copied" : "Press Ctrl+C";
  if (ok) button.dataset.copied = "";
  announce(ok ? "Copied to the clipboard." : "Copying failed; select the text and copy it.");
  clearTimeout(button._timer);
  button._timer = setTimeout(() => {
    button.textContent = "Copy";
    delete button.dataset.copied;
  }, 2000);
});

/** Turns `[data-tabs]` containers of `<section data-tab="Label">` into keyboard-operable tabs. */
export function enhanceTabs(root = document) {
  for (const box of root.querySelectorAll("[data-tabs]:not(.enhanced)")) {
    const panels = [...box.children].filter((c) => c.dataset.tab);
    if (panels.length < 2) continue;
    const list = h("div", { role: "tablist", "aria-label": box.dataset.tabs });
    const tabs = panels.map((panel, i) => {
      panel.id ||= `${box.dataset.tabs.replace(/\W+/g, "-")}-panel-${i}`;
      const tab = h(
        "button",
        { type: "button", role: "tab", id: `${panel.id}-tab`, "aria-controls": panel.id },
        panel.dataset.tab,
      );
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      return tab;
    });
    const select = (i, focus) => {
      tabs.forEach((t, j) => {
        t.setAttribute("aria-selected", String(i === j));
        t.tabIndex = i === j ? 0 : -1;
        panels[j].hidden = i !== j;
      });
      if (focus) tabs[i].focus();
    };
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => select(i, false));
      tab.addEventListener("keydown", (e) => {
        const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
        if (next === undefined) return;
        e.preventDefault();
        select((next + tabs.length) % tabs.length, true);
      });
    });
    list.append(...tabs);
    box.prepend(list);
    box.classList.add("enhanced");
    select(0, false);
  }
}

/** Shows the copy buttons and enables controls that need scripts. */
export function enhance(root = document) {
  for (const b of root.querySelectorAll("button.copy[hidden]")) b.hidden = false;
  for (const b of root.querySelectorAll("[data-needs-js][disabled]")) b.disabled = false;
  enhanceTabs(root);
}

const THEMES = ["system", "light", "dark"];
function setupTheme() {
  const button = $("theme");
  if (!button) return;
  const apply = (theme) => {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    button.textContent = `Theme: ${theme}`;
    button.setAttribute("aria-label", `Color theme: ${theme}. Change`);
  };
  let current = "system";
  try {
    current = localStorage.getItem(PREFIX + "theme") ?? "system";
  } catch {}
  if (!THEMES.includes(current)) current = "system";
  apply(current);
  button.hidden = false;
  button.addEventListener("click", () => {
    current = THEMES[(THEMES.indexOf(current) + 1) % THEMES.length];
    try {
      if (current === "system") localStorage.removeItem(PREFIX + "theme");
      else localStorage.setItem(PREFIX + "theme", current);
    } catch {}
    apply(current);
  });
}

enhance();
setupTheme();
