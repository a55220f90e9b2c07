// The approval window, opened by the service worker as approval.html#<approvalId> in a popup window of its
// own: an extension page, so no web page can script, frame or overlay it. It shows who asks (channel, agent,
// the client's self-declared name as secondary text), where (the tab's origin as the browser reported it, and
// for a tool of one of the tab's frames, that frame's origin, which the page's frames report),
// what (tool and arguments, as text only) and until when; the user approves, denies or always allows on this
// channel. The same window asks before the extension opens a page for an agent (kind "open", showOpen: the
// page, the tool, whether it asks again; "Don't open" / "Open page"). Deny has the focus, so Enter or Space
// pressed by habit never approves, and Approve only arms a moment after the window is shown or focused, so a
// click aimed at something else cannot land on it.
import { verificationText } from "../../src/protocol/verification-text.js";
import { byId, showError } from "../../web/client/lib/dom.js";
import type { ApprovalDecision, ApprovalState } from "../messages.js";
import { channelLabel, formatCountdown, prettyArguments } from "./format.js";
import { NOT_RESPONDING, isApprovalState } from "./responses.js";
import { act, ask, onStateChanged } from "./runtime.js";

/** How long Approve and "Always allow" stay disabled after the window is shown or focused again. */
const ARM_MS = 700;
/** How long "no longer waiting" stays up before the window closes itself. */
const CLOSE_AFTER_MS = 2_500;

const id = decodeURIComponent(location.hash.slice(1));
const deny = byId("deny", HTMLButtonElement);
const approve = byId("approve", HTMLButtonElement);
const always = byId("always", HTMLButtonElement);

let shown: ApprovalState | null = null;
let finished = false; // decided here, expired, or gone: the buttons stay off
let armTimer: ReturnType<typeof setTimeout> | undefined;
let tickTimer: ReturnType<typeof setInterval> | undefined;

/** Disables the approving buttons now and enables them ARM_MS later (unless the request is finished). */
function arm(): void {
  approve.disabled = always.disabled = true;
  clearTimeout(armTimer);
  armTimer = setTimeout(() => {
    if (!finished) approve.disabled = always.disabled = false;
  }, ARM_MS);
}

function show(approval: ApprovalState): void {
  shown = approval;
  byId("channel").textContent = channelLabel(approval);
  byId("agent").textContent = approval.agent;
  const client = byId("client");
  client.textContent = approval.client ? `(the client says it is “${approval.client}”)` : "";
  client.hidden = !approval.client;
  byId("site").textContent = approval.origin;
  byId("frame").textContent = approval.frameOrigin ?? "";
  byId("frame").hidden = byId("frame-term").hidden = !approval.frameOrigin;
  byId("tool-title").textContent = approval.title ?? "";
  byId("tool-name").textContent = approval.tool;
  // The hub's check against what the site published: verified, changed (what differs), or not published.
  const checked = byId("verification");
  checked.textContent = approval.verification ? verificationText(approval.verification, approval.origin) : "";
  checked.className = approval.verification ? `verification ${approval.verification.status}` : "";
  checked.hidden = byId("verification-term").hidden = !approval.verification;
  byId("arguments").textContent = prettyArguments(approval.arguments);
  document.title = `Approve ${approval.tool} on ${approval.origin}? — webmcp-hub`;
  if (approval.kind === "open") showOpen(approval);
  byId("loading").hidden = true;
  byId("request").hidden = false;
  tick();
  tickTimer = setInterval(tick, 250);
  arm();
  deny.focus();
}

/**
 * An agent asks to open a page for a tool no tab offers ("Open on demand"): the same window, with
 * the page to open and whether the tool asks again before it runs, and "Don't open" / "Open page" as the
 * buttons (no "always": each open is asked for; the user can share the site always from the popup).
 */
function showOpen(approval: ApprovalState): void {
  byId("request-heading").textContent = "Open a page for an agent?";
  byId("request-intro").textContent =
    "An agent on your channel wants to use a tool of a site that no open tab offers. To run it, the extension " +
    "would open the site's page in a new tab and share that tab with the channel while it stays on the site.";
  // The registry's host for the site, and its origin when the host alone does not say it (the scheme).
  const host = new URL(approval.origin).host;
  byId("site").textContent =
    approval.site && approval.site !== host ? `${approval.site} (${approval.origin})` : approval.origin;
  byId("page").textContent = approval.url ?? "";
  byId("page").hidden = byId("page-term").hidden = false;
  byId("asks-again").textContent = approval.readOnly
    ? "The tool is read-only: once the page is open, it runs without asking again."
    : "The tool can change things: you will be asked again before it runs.";
  byId("asks-again").hidden = byId("asks-again-term").hidden = false;
  byId("arguments-section").hidden = true;
  deny.textContent = "Don't open";
  approve.textContent = "Open page";
  always.hidden = true;
  document.title = `Open ${approval.url ?? approval.origin} for ${approval.agent}? — webmcp-hub`;
}

function tick(): void {
  if (!shown) return;
  const left = shown.deadline - Date.now();
  const countdown = byId("countdown");
  if (left > 0) {
    countdown.textContent = `The hub waits ${formatCountdown(left)} more for your answer.`;
    return;
  }
  countdown.textContent =
    shown.kind === "open"
      ? "Time is up: the hub no longer waits for this page."
      : "Time is up: the hub has given up on this call.";
  stop();
}

/** No more deciding here: buttons off, countdown stopped. */
function stop(): void {
  finished = true;
  clearInterval(tickTimer);
  clearTimeout(armTimer);
  deny.disabled = approve.disabled = always.disabled = true;
}

/** Replaces the request with a closing message; `closeSoon` closes the window a moment later. */
function gone(heading: string, text: string, closeSoon: boolean): void {
  stop();
  byId("loading").hidden = true;
  byId("request").hidden = true;
  byId("gone-heading").textContent = heading;
  byId("gone-text").textContent = text;
  byId("gone").hidden = false;
  byId("close", HTMLButtonElement).focus();
  if (closeSoon) setTimeout(() => window.close(), CLOSE_AFTER_MS);
}

const NO_LONGER = "This request is no longer waiting";

/** Asks the service worker for the approval; shows it, or says it is gone. */
async function load(): Promise<void> {
  const answer = id ? await ask({ type: "ui:approval-get", id }) : null;
  if (finished) return;
  if (isApprovalState(answer)) {
    if (!shown) show(answer);
    return;
  }
  if (answer === null)
    return gone(
      NO_LONGER,
      "It was already decided, cancelled by the agent, or it timed out.",
      shown !== null,
    );
  // No usable answer: on first load say so; once shown, a restarting service worker is not a reason to leave.
  if (!shown) gone("The extension's background is not responding", NOT_RESPONDING, false);
}

async function decide(decision: ApprovalDecision): Promise<void> {
  if (finished) return;
  deny.disabled = approve.disabled = always.disabled = true;
  const answer = await act({ type: "ui:approval", id, decision });
  if (answer.ok) {
    stop();
    window.close();
    return;
  }
  showError(byId("error"), answer.error);
  deny.disabled = false;
  arm();
  await load();
}

deny.addEventListener("click", () => void decide("deny"));
approve.addEventListener("click", () => void decide("approve"));
always.addEventListener("click", () => void decide("always"));
byId("close").addEventListener("click", () => window.close());
window.addEventListener("focus", () => {
  if (shown && !finished) arm();
});
onStateChanged(() => void load());
void load();
