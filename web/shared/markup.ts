// What the server pages (web/pages, hono/jsx in the Worker) and the browser scripts (web/client) both show,
// written once: relative times, counted nouns, copy buttons and code blocks. Pure: no DOM, no Worker APIs,
// no imports. Markup is a small element tree that each side renders its own way (components.tsx `Markup`,
// web/client/lib/dom.ts `render`).

export type MarkupAttrs = Record<string, string | number | boolean | undefined>;

/** An element: rendered by hono/jsx on the server and by `document.createElement` in the browser. */
export interface MarkupElement {
  tag: string;
  attrs: MarkupAttrs;
  children: Array<MarkupElement | string>;
}

/** An element of this tree. */
export const el = (
  tag: string,
  attrs: MarkupAttrs,
  ...children: Array<MarkupElement | string>
): MarkupElement => ({
  tag,
  attrs,
  children,
});

/** A copy button's own text; the browser script shows "Copied" for a moment, then this again. */
export const COPY_TEXT = "Copy";

/**
 * A button that copies the text of the element with id `target` (web/client/common.ts handles the clicks).
 * The server renders it `hidden`: without scripts it could not copy, and common.ts shows it.
 */
export function copyButton(target: string, label: string, options: { hidden?: boolean } = {}): MarkupElement {
  return el(
    "button",
    {
      type: "button",
      class: "btn small copy",
      "data-copy": target,
      "aria-label": `Copy ${label}`,
      hidden: options.hidden,
    },
    COPY_TEXT,
  );
}

/**
 * A block of code, focusable so it can be scrolled by keyboard, with a copy button. A focusable element with a
 * name needs a role to carry it: `region` (a named, scrollable area), as axe and screen readers expect.
 */
export function codeBlock(props: {
  id: string;
  label: string;
  code: string;
  lang?: string | undefined;
  hidden?: boolean;
}): MarkupElement {
  return el(
    "div",
    { class: "code-block" },
    el(
      "pre",
      { id: props.id, tabindex: 0, role: "region", "aria-label": props.label, "data-lang": props.lang },
      props.code,
    ),
    copyButton(props.id, props.label, { hidden: props.hidden }),
  );
}

/** "just now", "12 s ago", "5 min ago", "3 h ago", "4 days ago", then the date (YYYY-MM-DD, UTC). */
export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 10) return "just now";
  if (s < 60) return `${s} s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 48) return `${h} h ago`;
  const d = Math.round(h / 24);
  if (d < 60) return `${d} days ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

/** "1 tool", "3 tools", "1,204 tools". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}
