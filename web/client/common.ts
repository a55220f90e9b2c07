// Entry of /assets/common.js, loaded by every dashboard page (web/pages/layout.tsx): shows the copy buttons
// and makes them copy, turns tab sections into tabs, enables controls that need scripts, runs the theme switch.
//
// The dashboard's browser code is TypeScript under web/client: one entry per page script (web/client/<name>.ts,
// listed in scripts/lib/bundles.mjs DASHBOARD_SCRIPTS), bundled by esbuild (`npm run build`) into one
// self-contained module each at web/assets/assets/<name>.js (generated, not in git); helpers in web/client/lib,
// markup and texts shared with the server pages in web/shared, REST answer types in src/protocol/views.ts.
import { COPY_TEXT } from "../shared/markup.js";
import { $, announce, h } from "./lib/dom.js";
import { enhanceTabs } from "./lib/tabs.js";

async function copyText(text: string): Promise<boolean> {
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

const resetTimers = new WeakMap<HTMLElement, ReturnType<typeof setTimeout>>();

/** Copies the text of the element a `button[data-copy]` names (its data-value, value or text). */
async function onCopyClick(event: MouseEvent): Promise<void> {
  const button = event.target instanceof Element ? event.target.closest("button[data-copy]") : null;
  if (!(button instanceof HTMLButtonElement)) return;
  const target = $(button.dataset.copy ?? "");
  if (!target) return;
  const value =
    target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement ? target.value : null;
  const text = target.dataset.value ?? value ?? target.textContent ?? "";
  const ok = await copyText(text.trim());
  button.textContent = ok ? "Copied" : "Press Ctrl+C";
  if (ok) button.dataset.copied = "";
  announce(ok ? "Copied to the clipboard." : "Copying failed; select the text and copy it.");
  clearTimeout(resetTimers.get(button));
  resetTimers.set(
    button,
    setTimeout(() => {
      button.textContent = COPY_TEXT;
      delete button.dataset.copied;
    }, 2000),
  );
}

/** Shows the copy buttons and enables controls that need scripts. */
function enhance(root: ParentNode = document): void {
  for (const b of root.querySelectorAll<HTMLButtonElement>("button.copy[hidden]")) b.hidden = false;
  for (const b of root.querySelectorAll<HTMLButtonElement>("[data-needs-js][disabled]")) b.disabled = false;
  enhanceTabs(root);
}

const THEMES = ["system", "light", "dark"] as const;
type Theme = (typeof THEMES)[number];
const isTheme = (v: unknown): v is Theme => THEMES.includes(v as Theme);

/** The header's theme button: system → light → dark, remembered in this browser. */
function setupTheme(): void {
  const button = $("theme");
  if (!button) return;
  const apply = (theme: Theme) => {
    if (theme === "system") delete document.documentElement.dataset.theme;
    else document.documentElement.dataset.theme = theme;
    button.textContent = `Theme: ${theme}`;
    button.setAttribute("aria-label", `Color theme: ${theme}. Change`);
  };
  // Stored as a plain string (layout.tsx's boot script reads it before the first paint), not as JSON.
  let current: Theme = "system";
  try {
    const saved = localStorage.getItem("webmcp-hub:theme");
    if (isTheme(saved)) current = saved;
  } catch {
    // Storage is off: follow the system.
  }
  apply(current);
  button.hidden = false;
  button.addEventListener("click", () => {
    current = THEMES[(THEMES.indexOf(current) + 1) % THEMES.length]!;
    try {
      if (current === "system") localStorage.removeItem("webmcp-hub:theme");
      else localStorage.setItem("webmcp-hub:theme", current);
    } catch {
      // Storage is off: the choice lasts for this page.
    }
    apply(current);
  });
}

document.addEventListener("click", (event) => void onCopyClick(event));
enhance();
setupTheme();
