// DOM helpers of the dashboard's browser scripts: find elements by id (typed), build elements without
// innerHTML, render the shared markup of web/shared/markup.ts, show errors, announce to screen readers.
import type { MarkupElement } from "../../shared/markup.js";

/** The element with this id, or null. */
export const $ = (id: string): HTMLElement | null => document.getElementById(id);

/**
 * The element with this id, of this type (HTMLElement unless given). The page renders every element a script
 * needs, so a missing one is a bug in the page: it throws, saying which.
 */
export function byId<T extends HTMLElement = HTMLElement>(
  id: string,
  type: { new (): T; prototype: T } = HTMLElement as unknown as { new (): T; prototype: T },
): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`The page has no ${type.name} #${id}.`);
  return found;
}

export type Child = Node | string | number | null | undefined | false | readonly Child[];
export type Attrs = Record<string, unknown>;

/**
 * `h("p", {class: "x"}, "text", child)`: builds DOM without innerHTML (text is always text). `on…` functions
 * become listeners, `dataset` an object of data attributes; null, undefined and false leave an attribute out.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs | null = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v as EventListener);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  append(el, children);
  return el;
}

function append(el: HTMLElement, children: readonly Child[]): void {
  for (const c of children) {
    if (c === undefined || c === null || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

/** Builds an element of web/shared/markup.ts (the server renders the same ones with hono/jsx). */
export function render(node: MarkupElement): HTMLElement {
  const el = document.createElement(node.tag);
  for (const [k, v] of Object.entries(node.attrs)) {
    if (v === undefined || v === false) continue;
    el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of node.children) el.append(typeof c === "string" ? c : render(c));
  return el;
}

/** Shows (or hides, with an empty message) an error box or field error next to where it happened. */
export function showError(box: HTMLElement | null, message?: string, field?: HTMLElement | null): void {
  if (!box) return;
  box.textContent = message ?? "";
  box.hidden = !message;
  if (field) {
    if (message) field.setAttribute("aria-invalid", "true");
    else field.removeAttribute("aria-invalid");
  }
}

const ANNOUNCER = "sr-announcer";

/** Announces a short message to screen readers (one live region per page, whichever script made it). */
export function announce(message: string): void {
  let live = $(ANNOUNCER);
  if (!live) {
    live = h("div", { id: ANNOUNCER, class: "sr-only", role: "status", "aria-live": "polite" });
    document.body.append(live);
  }
  const region = live;
  region.textContent = "";
  setTimeout(() => (region.textContent = message), 30);
}

/** A date and time in the reader's locale, like "Nov 23, 2026, 10:04:05 AM". */
export function timeText(iso: string): string {
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

/** A message for anything thrown: an Error's message, else the value as text. */
export function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Replaces `el`'s children with `children` (null, undefined and false are left out, not shown as text). */
export function fill(el: HTMLElement, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}
