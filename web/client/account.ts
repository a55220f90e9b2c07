// Entry of /assets/account.js, for /signin and /account: the passkey ceremonies (@simplewebauthn/browser) and
// the account page's buttons (sign out, passkeys, claiming, revoking keys, deleting the account).
import { startAuthentication, startRegistration } from "@simplewebauthn/browser";
import { api, ApiError } from "./lib/api.js";

interface Ceremony<O> {
  challengeId: string;
  options: O;
}
type CreationOptions = Parameters<typeof startRegistration>[0]["optionsJSON"];
type RequestOptions = Parameters<typeof startAuthentication>[0]["optionsJSON"];

function show(id: string, message: string | null): void {
  const el = document.getElementById(id);
  if (!el) return;
  el.textContent = message ?? "";
  el.hidden = message === null;
  if (message) el.focus?.();
}

function messageOf(e: unknown): string {
  if (e instanceof ApiError) return e.message;
  if (e instanceof Error && e.name === "NotAllowedError")
    return "The passkey request was cancelled or timed out.";
  return e instanceof Error ? e.message : String(e);
}

function go(returnTo: string | undefined): void {
  location.assign(returnTo && returnTo.startsWith("/") && !returnTo.startsWith("//") ? returnTo : "/account");
}

async function signIn(returnTo: string): Promise<void> {
  const c = await api<Ceremony<RequestOptions>>("/api/account/sign-in/options", { method: "POST" });
  const response = await startAuthentication({ optionsJSON: c.options });
  await api("/api/account/sign-in/verify", {
    method: "POST",
    json: { challengeId: c.challengeId, response },
  });
  go(returnTo);
}

async function signUp(displayName: string, returnTo: string): Promise<void> {
  const c = await api<Ceremony<CreationOptions>>("/api/account/sign-up/options", {
    method: "POST",
    json: { displayName },
  });
  const response = await startRegistration({ optionsJSON: c.options });
  await api("/api/account/sign-up/verify", {
    method: "POST",
    json: { challengeId: c.challengeId, displayName, response },
  });
  go(returnTo);
}

function enableSignIn(root: HTMLElement): void {
  const returnTo = root.dataset.returnTo ?? "";
  const signinForm = document.getElementById("signin-form");
  signinForm?.addEventListener("submit", (event) => {
    event.preventDefault();
    show("signin-error", null);
    signIn(returnTo).catch((e: unknown) => show("signin-error", messageOf(e)));
  });
  const signupForm = document.getElementById("signup-form");
  signupForm?.addEventListener("submit", (event) => {
    event.preventDefault();
    show("signup-error", null);
    const input = document.getElementById("display-name") as HTMLInputElement | null;
    const name = input?.value.trim() ?? "";
    if (!name) {
      show("display-name-error", "Give a name, for example your first name.");
      input?.focus();
      return;
    }
    show("display-name-error", null);
    signUp(name, returnTo).catch((e: unknown) => show("signup-error", messageOf(e)));
  });
}

/** The account page: each button says what it does in data-action, and what it acts on in data-*. */
async function onAction(button: HTMLButtonElement): Promise<void> {
  const d = button.dataset;
  switch (d.action) {
    case "sign-out":
      await api("/api/account/sign-out", { method: "POST" });
      location.assign("/signin");
      return;
    case "sign-out-everywhere":
      await api("/api/account/sign-out-everywhere", { method: "POST" });
      location.assign("/signin");
      return;
    case "delete-account":
      if (
        !confirm(
          "Delete your account? Its channels are closed for good; its sites stay listed, owned by nobody.",
        )
      )
        return;
      await api("/api/account", { method: "DELETE" });
      location.assign("/");
      return;
    case "add-passkey": {
      const c = await api<Ceremony<CreationOptions>>("/api/account/passkeys/options", { method: "POST" });
      const response = await startRegistration({ optionsJSON: c.options });
      const label = (document.getElementById("passkey-label") as HTMLInputElement | null)?.value.trim();
      await api("/api/account/passkeys/verify", {
        method: "POST",
        json: { challengeId: c.challengeId, response, ...(label ? { label } : {}) },
      });
      location.reload();
      return;
    }
    case "remove-passkey":
      await api(`/api/account/passkeys/${encodeURIComponent(d.id ?? "")}`, { method: "DELETE" });
      location.reload();
      return;
    case "revoke-owner-key":
      await api(
        `/api/channels/${encodeURIComponent(d.channel ?? "")}/owner-keys/${encodeURIComponent(d.id ?? "")}`,
        {
          method: "DELETE",
        },
      );
      location.reload();
      return;
    case "revoke-publisher-key":
      await api(
        `/api/account/sites/${encodeURIComponent(d.host ?? "")}/publisher-keys/${encodeURIComponent(d.id ?? "")}`,
        { method: "DELETE" },
      );
      location.reload();
      return;
  }
}

function enableAccount(root: HTMLElement): void {
  root.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("button[data-action]") : null;
    if (!(button instanceof HTMLButtonElement)) return;
    show("account-error", null);
    onAction(button).catch((e: unknown) => show("account-error", messageOf(e)));
  });
  for (const [formId, path, field] of [
    ["claim-channel-form", "/api/account/channels/claim", "ownerKey"],
    ["claim-site-form", "/api/account/sites/claim", "publisherKey"],
  ] as const) {
    document.getElementById(formId)?.addEventListener("submit", (event) => {
      event.preventDefault();
      const form = event.currentTarget as HTMLFormElement;
      const value = (new FormData(form).get(field) ?? "").toString().trim();
      show("account-error", null);
      api(path, { method: "POST", json: { [field]: value } })
        .then(() => location.reload())
        .catch((e: unknown) => show("account-error", messageOf(e)));
    });
  }
}

const signin = document.getElementById("signin-root");
if (signin) enableSignIn(signin);
const account = document.getElementById("account-root");
if (account) enableAccount(account);
