// Tabs from plain sections: a `[data-tabs="Label"]` container of `<section data-tab="Tab name">` children
// (web/pages/components.tsx `Tabs`) becomes a keyboard-operable tab list; without scripts every section shows.
import { h } from "./dom.js";

const KEYS: Record<string, (i: number, count: number) => number> = {
  ArrowRight: (i) => i + 1,
  ArrowLeft: (i) => i - 1,
  Home: () => 0,
  End: (_, count) => count - 1,
};

/** Turns every not yet enhanced `[data-tabs]` container under `root` into tabs. */
export function enhanceTabs(root: ParentNode = document): void {
  for (const box of root.querySelectorAll<HTMLElement>("[data-tabs]:not(.enhanced)")) {
    const panels = [...box.children].filter(
      (c): c is HTMLElement => c instanceof HTMLElement && Boolean(c.dataset.tab),
    );
    if (panels.length < 2) continue;
    const name = box.dataset.tabs ?? "";
    const list = h("div", { role: "tablist", "aria-label": name });
    const tabs = panels.map((panel, i) => {
      panel.id ||= `${name.replace(/\W+/g, "-")}-panel-${i}`;
      const tab = h(
        "button",
        { type: "button", role: "tab", id: `${panel.id}-tab`, "aria-controls": panel.id },
        panel.dataset.tab,
      );
      panel.setAttribute("role", "tabpanel");
      panel.setAttribute("aria-labelledby", tab.id);
      return tab;
    });
    const select = (i: number, focus: boolean) => {
      tabs.forEach((t, j) => {
        t.setAttribute("aria-selected", String(i === j));
        t.tabIndex = i === j ? 0 : -1;
        panels[j]!.hidden = i !== j;
      });
      if (focus) tabs[i]?.focus();
    };
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => select(i, false));
      tab.addEventListener("keydown", (e) => {
        const next = KEYS[e.key]?.(i, tabs.length);
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
