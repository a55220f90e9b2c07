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
