// The one line a person reads about a live tool's verification (the console's titles, the bridge's and the
// extension's approval dialogs). No zod here: /bridge-ui.js and the extension import it alone.
import type { ToolVerification } from "./verification.js";

/** `origin`: the tab's origin (who did not publish an unpublished tool). */
export function verificationText(v: ToolVerification | undefined, origin: string | null): string {
  if (!v) return "Not checked against the registry.";
  switch (v.status) {
    case "verified":
      return `Verified against ${v.site ?? "the site"}'s published manifest.`;
    case "changed":
      return `Changed since published by ${v.site ?? "the site"}: ${(v.differs ?? []).join(", ") || "its definition"}.`;
    default:
      return `Not published by ${origin ?? v.site ?? "its site"}.`;
  }
}

const STATUSES = new Set(["verified", "changed", "unpublished"]);
const MEMBERS = new Set(["title", "description", "inputSchema", "outputSchema", "annotations"]);

/**
 * A verification as a page or the extension received it (a frame they did not parse with zod): kept only
 * when its status is one of the three, with a short site, a version and the known member names.
 */
export function readVerification(v: unknown): ToolVerification | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const { status, site, version, differs } = v as Record<string, unknown>;
  if (typeof status !== "string" || !STATUSES.has(status)) return undefined;
  const known = Array.isArray(differs)
    ? differs.filter((m): m is NonNullable<ToolVerification["differs"]>[number] => MEMBERS.has(String(m)))
    : [];
  return {
    status: status as ToolVerification["status"],
    ...(typeof site === "string" && site.length <= 300 ? { site } : {}),
    ...(typeof version === "number" && Number.isInteger(version) ? { version } : {}),
    ...(known.length ? { differs: known } : {}),
  };
}
