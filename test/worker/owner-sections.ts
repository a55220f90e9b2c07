// A site page as its owner's browser shows it: /assets/site-owner.js replaces the page's #site-owner element
// with the sections built from its data-view (web/shared/site-owner.ts); here the same trees are rendered with
// the server's `Markup`, so the Worker tests read the owner's sections as text. test/e2e/cloud-owner.test.ts
// runs the script itself in Chromium.
import { Markup } from "../../web/pages/components.js";
import { siteOwnerSections, type SiteOwnerData } from "../../web/shared/site-owner.js";

const ENTITIES: Record<string, string> = {
  "&amp;": "&",
  "&lt;": "<",
  "&gt;": ">",
  "&quot;": '"',
  "&#39;": "'",
};

/** The page's HTML with its owner holder replaced by the owner's sections (unchanged when it has none). */
export async function withOwnerSections(html: string, now = Date.now()): Promise<string> {
  const holder = /<div id="site-owner" data-view="([^"]*)">[\s\S]*?<\/noscript><\/div>/.exec(html);
  if (!holder) return html;
  const view = JSON.parse(
    holder[1]!.replace(/&(amp|lt|gt|quot|#39);/g, (e) => ENTITIES[e]!),
  ) as SiteOwnerData;
  const sections = await Promise.all(
    siteOwnerSections(view, now).map(async (node) => String(await Markup({ node }).toString())),
  );
  return html.replace(holder[0], () => sections.join(""));
}
