// The console's view of live tools checked against what their site published: a badge per tool (and per
// audit row), and the channel's verification policy control (PATCH /api/channels/:id). Self-contained text:
// importing src/protocol's runtime would bring zod into the page.
import type { ToolVerification } from "../../../src/protocol/verification.js";
import type { ChannelView } from "../../../src/protocol/views.js";
import { api } from "../lib/api.js";
import { byId, h, messageOf, showError } from "../lib/dom.js";

type Policy = ChannelView["verificationPolicy"];

/** A tool's badge: verified / changed (what differs) / unpublished; a sidecar's tool is not checked. */
export function verificationBadge(v: ToolVerification | null, origin: string | null): HTMLElement | string {
  if (!v) return origin ? h("span", { class: "badge muted" }, "not checked") : "—";
  switch (v.status) {
    case "verified":
      return h(
        "span",
        { class: "badge verified", title: `Same definition as ${v.site ?? "the site"}'s published manifest` },
        "verified",
      );
    case "changed":
      return h(
        "span",
        { class: "badge danger", title: `Differs from what ${v.site ?? "the site"} published` },
        `changed: ${(v.differs ?? []).join(", ") || "definition"}`,
      );
    default:
      return h(
        "span",
        { class: "badge untrusted", title: `${origin ?? "Its site"} has not published this tool` },
        "unpublished",
      );
  }
}

/** The verification an audit row recorded (null: a sidecar's tool, or not checked). */
export function auditVerificationBadge(status: string | null | undefined): HTMLElement | string {
  if (!status) return "";
  const cls = status === "verified" ? "verified" : status === "changed" ? "danger" : "untrusted";
  return h("span", { class: `badge ${cls}` }, status);
}

/** The policy radios: set from each snapshot until the owner changes them; saved with the form's button. */
export function policyControl(path: string, token: string | undefined) {
  const form = byId("policy-form", HTMLFormElement);
  const error = byId("policy-error");
  const status = byId("policy-status");
  let dirty = false;
  // The summary line of the policy's <details> says the policy in force.
  const showCurrent = (policy: Policy) => {
    const current = document.getElementById("policy-current");
    if (current && current.textContent !== POLICY_SHORT[policy]) current.textContent = POLICY_SHORT[policy];
  };
  form.addEventListener("change", () => {
    dirty = true;
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const chosen = new FormData(form).get("verificationPolicy");
    const button = form.querySelector("button");
    if (button) button.disabled = true;
    try {
      const body = await api<{ channel: ChannelView }>(path, {
        method: "PATCH",
        json: { verificationPolicy: chosen },
        token,
      });
      dirty = false;
      showError(error, "");
      status.textContent = `Saved: ${POLICY_TEXT[body.channel.verificationPolicy]}`;
      showCurrent(body.channel.verificationPolicy);
    } catch (e) {
      status.textContent = "";
      showError(error, `Could not save the policy: ${messageOf(e)}`);
    } finally {
      if (button) button.disabled = false;
    }
  });
  return {
    /** The channel's current policy, from a snapshot (ignored while the owner has unsaved changes). */
    show(policy: Policy | undefined) {
      if (!policy) return;
      showCurrent(policy);
      if (dirty) return;
      const radio = form.querySelector<HTMLInputElement>(`input[value="${policy}"]`);
      if (radio) radio.checked = true;
    },
  };
}

const POLICY_TEXT: Record<Policy, string> = {
  all: "agents may call every tool.",
  warn: "agents may call every tool; tools not verified carry a warning.",
  verified: "agents may call only verified tools (and sidecar tools).",
};

const POLICY_SHORT: Record<Policy, string> = {
  all: "every tool",
  warn: "every tool, with a warning on tools not verified",
  verified: "verified tools only",
};
