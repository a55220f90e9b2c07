// Text the console shows in tight places: a tool name that wraps only between its words, and a long
// description shortened to its first sentence or so, with a "more" control that shows the rest.
import { h } from "./dom.js";

/**
 * A tool name as <code> with a line-break opportunity after each `.`, `_` and `-` (and nowhere else), so a
 * narrow column wraps `fs.search_by_time` as `fs.search_by_` / `time`, never letter by letter.
 */
export function toolName(name: string): HTMLElement {
  const parts = name.split(/(?<=[._-])/);
  return h(
    "code",
    { class: "tool-name" },
    parts.flatMap((p, i) => (i ? [h("wbr", {}), p] : [p])),
  );
}

/** Descriptions longer than this many characters are shortened. */
export const SHORT_TEXT = 120;

/** Where to cut `text` near `max`: after its first sentence if that fits, else at a word boundary. */
export function shortPart(text: string, max = SHORT_TEXT): string {
  const t = text.trim();
  if (t.length <= max) return t;
  const sentence = /^.{20,}?[.!?](?=\s)/s.exec(t.slice(0, max + 1));
  if (sentence) return sentence[0];
  const cut = t.lastIndexOf(" ", max);
  return `${t.slice(0, cut > max / 2 ? cut : max).trimEnd()}…`;
}

/**
 * `text` as is when short; otherwise its short part and a <details> whose "more" shows the whole text
 * (keyboard-operable, no script state; the full text stays in the page for search and screen readers).
 */
export function shortened(text: string, max = SHORT_TEXT): HTMLElement | string {
  const short = shortPart(text, max);
  if (short === text.trim()) return text;
  return h(
    "details",
    { class: "more" },
    h(
      "summary",
      {},
      h("span", { class: "short" }, short),
      " ",
      h("span", { class: "more-label" }, "more"),
      h("span", { class: "less-label" }, "less"),
    ),
    h("p", {}, text),
  );
}
