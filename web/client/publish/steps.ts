// What the publish page's steps share: the flow's state (the host being published), how each step calls
// another, and the helpers that mark, open and focus a step's section of /publish.
import { $, byId } from "../lib/dom.js";
import { store } from "../lib/store.js";

export const STEPS = ["register", "verify", "key", "manifest", "done"] as const;
export type Step = (typeof STEPS)[number];

/** How openManifest opens the manifest step. */
export interface OpenManifestOptions {
  /** The key step stays open (right after verifying) and the current manifest is not loaded. */
  keepKey?: boolean;
  /** Focus the step's title (false when a step after it takes the focus). */
  focus?: boolean;
}

/**
 * The page the steps share, passed to each step's entry function: the host the flow is at and what each step
 * offers the others. The entry (web/client/publish.ts) wires the functions to the step that owns them.
 */
export interface PublishPage {
  /** The host being registered, verified or published; null before the first registration. */
  host: string | null;
  /** Renders the sites this browser keeps (my-sites.ts). */
  renderMySites(): void;
  /** Opens the verification step for a host with a pending claim (verify.ts). */
  showChallenge(host: string, focus?: boolean): void;
  /** Shows a publisher key just issued (key.ts). */
  showKey(key: string): void;
  /** Opens the manifest step for a host with a publisher key (manifest.ts). */
  openManifest(host: string, options?: OpenManifestOptions): void;
}

/** Marks `current` as the active step and `done` as done in the step list. */
export function stepState(current: Step, done: readonly Step[] = []) {
  for (const s of STEPS) {
    const li = byId(`step-${s}`);
    li.classList.toggle("active", s === current);
    li.classList.toggle("done", done.includes(s));
  }
}

export function focusStep(name: Step) {
  const title = $(`${name}-title`);
  const still = matchMedia("(prefers-reduced-motion: reduce)").matches;
  title?.scrollIntoView({ block: "start", behavior: still ? "auto" : "smooth" });
  title?.focus({ preventScroll: true });
}

/** A done step's collapsed line, in place of its "appears here" hint. */
export function note(name: Step, text: string) {
  const waiting = $(`${name}-waiting`);
  if (waiting) waiting.textContent = text;
}

export function reveal(name: Step, on = true) {
  byId(`${name}-body`).hidden = !on;
  const waiting = $(`${name}-waiting`);
  if (waiting) waiting.hidden = on;
}

/** The button that submitted `form` (or its first `selector` match, for a submit without one). */
export function submitter(event: SubmitEvent, form: HTMLFormElement, selector: string): HTMLButtonElement {
  const button = event.submitter ?? form.querySelector(selector);
  if (!(button instanceof HTMLButtonElement)) throw new Error(`The form #${form.id} has no submit button.`);
  return button;
}

/** Sets the text of a copyable value (a challenge's value, a publisher key). */
export function setCopy(id: string, value: string) {
  byId(id).textContent = value;
}

/**
 * Where the flow resumes on load: a pending verification, the manifest of a site named by `?host=` whose key
 * this browser keeps, or the first step.
 */
export function resumeFlow(page: PublishPage) {
  page.renderMySites();
  const query = new URLSearchParams(location.search);
  const wanted = query.get("host") ?? store.get<string | null>("publish-current", null);
  const known = wanted ? store.sites()[wanted] : undefined;
  if (wanted && known?.claim && !known.publisherKey) {
    page.showChallenge(wanted, false);
  } else if (wanted && known?.publisherKey && query.has("host")) {
    page.openManifest(wanted);
  } else stepState("register");
}
