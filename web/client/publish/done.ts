// The last step of /publish: the version just published, the definition checks' warnings, links to the site
// and each tool.
import type { PublishResultView } from "../../../src/protocol/views.js";
import { plural } from "../../shared/markup.js";
import { byId, h } from "../lib/dom.js";
import { STEPS, focusStep, reveal, stepState } from "./steps.js";

/** The tools of the manifest just published, as far as the done step names them. */
export interface PublishedManifest {
  tools?: Array<{ name: string; title?: string }>;
}

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

/** Opens the done step with what the publish returned. */
export function showPublished(result: PublishResultView, manifest: PublishedManifest) {
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
