// Declarative WebMCP (webmachinelearning/webmcp declarative-api-explainer.md, WPT webmcp/declarative): a
// <form toolname="…" tooldescription="…"> is a tool, kept in step with the DOM by a MutationObserver (a
// form that appears registers, one that goes unregisters, one whose tool attributes or controls change
// registers again). Its inputSchema comes from its controls: each control's `name` is a property,
// `toolparamdescription` (or a lone control's label) its description, `required` makes it required;
// number / range → number (with min / max), checkbox → boolean (several of one name → an array of their
// values), radio group and <select> → a string enum of the values, <select multiple> → an array of them,
// anything else → string (with minlength / maxlength). Disabled, hidden, file and button controls are not
// parameters: a hidden input is the page's state (a CSRF token, say), not the agent's to set.
//
// A call fills the controls (input and change fire where a value changes, as WPT checks), then
// toolactivated fires, then: with `toolautosubmit` the form is submitted with requestSubmit() after
// constraint validation (invalid fields fail the call, with their messages); without it the submit button
// gets focus and the call waits for the user to submit. That submit event (and only it) has `agentInvoked`
// true and accepts `respondWith(promise)` (only after preventDefault(), as the explainer says). Both are
// getters on SubmitEvent.prototype that look the event up, not properties set on it: page listeners on the
// form or document may run before any listener of ours (Chromium does not always reach window first). The
// call's result is what that promise gives, or null if the page did not respond (the form navigated, or the
// page handled it without responding). Resetting the form before it is submitted, or changing or removing
// it before the response, fails the call (no toolcancel: the site cancelled it, not the agent); a newer
// call to the same form fails the older one. Not done, as a polyfill cannot: the :tool-form-active /
// :tool-submit-active pseudo-classes (a stylesheet cannot name a pseudo-class the browser does not know,
// and matches() throws on it); instead the form carries data-tool-form-active and its submit button
// data-tool-submit-active while a call is running (from the fill until the call ends). Nor a navigated-to
// page's JSON-LD as the result (the call ends with the page).
import type { AddTool } from "./model-context.js";
import type { ToolClient } from "./registry.js";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type Input = Record<string, unknown>;

const NOT_PARAMETERS = /^(submit|reset|button|image|file|hidden)$/;
const OBSERVED = "toolname tooldescription toolparamdescription name type required disabled min max".split(
  " ",
);
OBSERVED.push("minlength", "maxlength", "multiple", "value", "form", "id");

/** The form's parameter controls, grouped by name (radio groups and checkbox groups share one). */
function controlsOf(form: HTMLFormElement): Map<string, Control[]> {
  const groups = new Map<string, Control[]>();
  for (const el of form.elements) {
    const isControl =
      (el instanceof HTMLInputElement && !NOT_PARAMETERS.test(el.type)) ||
      el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement;
    if (!isControl || !el.name || el.matches(":disabled")) continue;
    groups.set(el.name, [...(groups.get(el.name) ?? []), el]);
  }
  return groups;
}

function propertySchema(group: Control[]): Record<string, unknown> {
  const el = group[0]!;
  const values = { type: "string", enum: group.map((e) => e.value) };
  let schema: Record<string, unknown> = { type: "string" };
  if (el instanceof HTMLSelectElement) {
    const options = { type: "string", enum: [...el.options].map((o) => o.value) };
    schema = el.multiple ? { type: "array", items: options } : options;
  } else if (el.type === "radio") {
    schema = values;
  } else if (el.type === "checkbox") {
    schema = group.length > 1 ? { type: "array", items: values } : { type: "boolean" };
  } else if (el.type === "number" || el.type === "range") {
    schema = { type: "number" };
    const { min, max } = el as HTMLInputElement;
    if (min !== "" && isFinite(+min)) schema.minimum = +min;
    if (max !== "" && isFinite(+max)) schema.maximum = +max;
  } else {
    const { minLength, maxLength } = el as HTMLInputElement | HTMLTextAreaElement;
    if (minLength > 0) schema.minLength = minLength;
    if (maxLength >= 0) schema.maxLength = maxLength;
  }
  const description =
    group.map((e) => e.getAttribute("toolparamdescription")).find(Boolean) ??
    (group.length === 1 ? el.labels?.[0]?.textContent?.trim() : undefined);
  return description ? { ...schema, description } : schema;
}

function describeForm(form: HTMLFormElement) {
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const [name, group] of controlsOf(form)) {
    properties[name] = propertySchema(group);
    if (group.some((e) => e.required)) required.push(name);
  }
  return {
    name: form.getAttribute("toolname") ?? "",
    description: form.getAttribute("tooldescription") ?? "",
    inputSchema: { type: "object", properties, ...(required.length > 0 && { required }) },
  };
}

/** Sets through the element's own prototype setter, so frameworks that track values (React) see it. */
function set(el: Control, property: "value" | "checked", value: unknown): void {
  const type = [HTMLInputElement, HTMLSelectElement, HTMLTextAreaElement].find((t) => el instanceof t)!;
  Object.getOwnPropertyDescriptor(type.prototype, property)?.set?.call(el, value);
}

/**
 * What a script offers for :tool-form-active / :tool-submit-active (a page's stylesheet cannot name a
 * pseudo-class the browser does not know): the form carries data-tool-form-active and its submit button
 * data-tool-submit-active from the moment the agent fills it until the call ends.
 */
function markActive(form: HTMLFormElement, on: boolean): void {
  const button = submitterOf(form);
  for (const [el, name] of [
    [form, "data-tool-form-active"],
    [button, "data-tool-submit-active"],
  ] as const) {
    if (on) el?.setAttribute(name, "");
    else el?.removeAttribute(name);
  }
}

function fill(form: HTMLFormElement, input: Input): void {
  markActive(form, true);
  for (const [name, group] of controlsOf(form)) {
    if (!(name in input)) continue;
    const value = input[name];
    const wanted = (Array.isArray(value) ? value : [value]).map(String);
    for (const el of group) {
      let changed = false;
      if (el instanceof HTMLSelectElement && el.multiple) {
        for (const option of el.options) {
          const on = wanted.includes(option.value);
          if (option.selected === on) continue;
          option.selected = on;
          changed = true;
        }
      } else if (el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio")) {
        const lone = el.type === "checkbox" && group.length === 1;
        const on = lone ? value === true || value === "true" : wanted.includes(el.value);
        if (el.checked !== on) {
          set(el, "checked", on);
          // A radio unchecked because another one got checked has no events, as when a user clicks.
          changed = on || el.type === "checkbox";
        }
      } else {
        const text = value === undefined || value === null ? "" : String(value);
        if (el.value !== text) {
          set(el, "value", text);
          changed = true;
        }
      }
      if (changed) {
        el.dispatchEvent(new Event("input", { bubbles: true, composed: true }));
        el.dispatchEvent(new Event("change", { bubbles: true }));
      }
    }
  }
}

const submitterOf = (form: HTMLFormElement) =>
  [...form.elements].find(
    (e): e is HTMLButtonElement | HTMLInputElement =>
      (e instanceof HTMLButtonElement || e instanceof HTMLInputElement) &&
      (e.type === "submit" || e.type === "image"),
  );

/** A call waiting for its form's submit event, then for the page's response. */
interface Pending {
  form: HTMLFormElement;
  /** The event, once seen: by our listener, or by a page listener reading agentInvoked / respondWith. */
  event?: Event;
  response: unknown;
  settle(event: Event): void;
  /** Ends the call because a newer call to the same form took it over. */
  supersede(): void;
}
/** The call each form is waiting on (one at a time: a newer call to the form fails the older one). */
const waiting = new WeakMap<HTMLFormElement, Pending>();
/** The agent's submit events, and the call each belongs to. */
const agentEvents = new WeakMap<Event, Pending>();

/**
 * The call a submit event belongs to, if an agent's call was waiting for that form to be submitted. Bound
 * on first sight (whichever listener sees the event first: the order of window, document and form listeners
 * is not ours to rely on), and the call then stops waiting for another submit.
 */
function pendingOf(event: Event): Pending | undefined {
  const known = agentEvents.get(event);
  if (known) return known;
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || event.type !== "submit") return undefined;
  const pending = waiting.get(form);
  if (!pending || pending.event) return undefined;
  pending.event = event;
  agentEvents.set(event, pending);
  pending.settle(event);
  return pending;
}

/**
 * SubmitEvent.agentInvoked and respondWith() (the explainer's additions), on the prototype: the submit
 * event is the browser's own, and page listeners may run before any listener of ours, so they are answered
 * from pendingOf() rather than set on the event.
 */
function extendSubmitEvent(): void {
  if ("agentInvoked" in SubmitEvent.prototype) return;
  Object.defineProperties(SubmitEvent.prototype, {
    agentInvoked: {
      get(this: Event) {
        return pendingOf(this) !== undefined;
      },
      configurable: true,
      enumerable: true,
    },
    respondWith: {
      value(this: Event, promise: unknown) {
        const pending = pendingOf(this);
        if (!pending)
          throw new DOMException(
            "Only a submit that an agent started can respondWith().",
            "InvalidStateError",
          );
        if (!this.defaultPrevented)
          throw new DOMException("Call preventDefault() before respondWith().", "InvalidStateError");
        pending.response = promise;
      },
      configurable: true,
      writable: true,
    },
  });
}

// Sees every submit, so a call learns its form was submitted even when no page listener asks.
const onAnySubmit = (event: Event) => void pendingOf(event);

/** Submits (or waits for the user to submit) and resolves with the page's respondWith() value or null. */
function submit(
  form: HTMLFormElement,
  name: string,
  registration: AbortSignal,
  client: ToolClient,
): Promise<unknown> {
  const gone = () =>
    new Error(`The form of the tool "${name}" was reset, changed or removed during the call.`);
  return new Promise((resolve, reject) => {
    const signals = [registration, client.signal];
    const pending: Pending = {
      form,
      response: null,
      supersede: () => {},
      settle() {
        form.removeEventListener("reset", stop); // Pages often reset a form once it is sent.
        // A task later every submit listener has run (and said respondWith(), or not).
        setTimeout(async () => {
          let result: unknown;
          try {
            result = await pending.response;
          } catch (e) {
            return finish(() => reject(e));
          }
          if (registration.aborted || client.signal.aborted) return stop();
          finish(() => resolve(result));
        });
      },
    };
    const finish = (settle: () => void) => {
      if (waiting.get(form) === pending) {
        waiting.delete(form);
        markActive(form, false);
      }
      form.removeEventListener("reset", stop);
      for (const s of signals) s.removeEventListener("abort", stop);
      settle();
    };
    const stop = () => finish(() => reject(client.signal.aborted ? client.signal.reason : gone()));
    pending.supersede = () =>
      finish(() => reject(new Error(`A newer call to the tool "${name}" took over its form.`)));
    const older = waiting.get(form);
    waiting.set(form, pending);
    older?.supersede(); // After the set: the form stays marked active for this call.
    form.addEventListener("reset", stop);
    for (const s of signals) s.addEventListener("abort", stop);
    if (signals.some((s) => s.aborted)) return stop();
    if (!form.hasAttribute("toolautosubmit")) return submitterOf(form)?.focus();
    if (!form.noValidate && !form.checkValidity()) {
      const problems = new Map<string, string>();
      for (const e of form.elements) {
        const c = e as Control;
        if (c.willValidate && !c.validity.valid) problems.set(c.name || c.id || c.type, c.validationMessage);
      }
      const text = [...problems].map(([field, message]) => `${field}: ${message}`).join(" ");
      return finish(() => reject(new Error(`The form was not submitted. ${text}`)));
    }
    form.requestSubmit(submitterOf(form));
  });
}

/** Registers the document's tool forms now and keeps them in step with the DOM. */
export function watchDeclarativeTools(add: AddTool): void {
  extendSubmitEvent();
  addEventListener("submit", onAnySubmit, true);
  document.addEventListener("submit", onAnySubmit, true);
  const forms = new Map<HTMLFormElement, { key: string; controller: AbortController }>();
  const warned = new WeakMap<HTMLFormElement, string>();
  const scan = () => {
    const present = new Set(document.querySelectorAll<HTMLFormElement>("form[toolname]"));
    for (const [form, { controller }] of forms) {
      if (present.has(form)) continue;
      controller.abort();
      forms.delete(form);
    }
    for (const form of present) {
      const tool = describeForm(form);
      const key = JSON.stringify(tool);
      if (forms.get(form)?.key === key) continue;
      forms.get(form)?.controller.abort();
      forms.delete(form);
      const controller = new AbortController();
      const execute = (_input: Input, client: ToolClient) =>
        submit(form, tool.name, controller.signal, client);
      try {
        add({ ...tool, execute }, controller.signal, "declarative", (input) => fill(form, input));
        forms.set(form, { key, controller });
      } catch (e) {
        // Tried again on the next change (a duplicate name may be freed); said once per problem.
        const message = `webmcp-hub: <form toolname="${tool.name}"> is not a tool: ${e instanceof Error ? e.message : e}`;
        if (warned.get(form) !== message) console.warn(message);
        warned.set(form, message);
      }
    }
  };
  scan();
  new MutationObserver(scan).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: OBSERVED,
  });
}
