// Entry of /assets/add-to-channel.js: "Add to a channel" on a tool's page, a site's page and the confirm page
// of an agent's proposal (/sites/:host/add, web/pages/add.tsx). Fills the channel chooser with the user's
// channels (lib/my-channels.ts: the signed-in account's, then those only this browser keeps), adds the checked tools with POST /api/channels/:id/tools, and
// says what was added, or why not, in a live region with a link to the channel's console.
//
// Decisions:
// - A channel both kept here and owned by the signed-in account is used through the session: an owner key
//   kept here may have been revoked since, the account's ownership holds.
// - The names are always sent explicitly (what the page shows and the user left checked), never "all".
// - The last channel used is remembered (local storage "add-channel") and pre-selected next time, unless the
//   page names one (a proposal's `channel`) that is one of the user's.
import { ApiError, api } from "./lib/api.js";
import { whileBusy } from "./lib/busy.js";
import { $, byId, h, messageOf, type Child } from "./lib/dom.js";
import { myChannels, type OwnedChannel } from "./lib/my-channels.js";
import { store } from "./lib/store.js";

type Choice = OwnedChannel;

const REMEMBERED = "add-channel";

const root = $("add-to-channel");
if (root) void setup(root);

/** Plain words for what the API refused, with what to do. */
export function explain(e: unknown, channel: Choice): Child[] {
  if (!(e instanceof ApiError)) return [messageOf(e)];
  const consoleLink = h("a", { href: `/channels/${encodeURIComponent(channel.id)}` }, "its console");
  switch (e.code) {
    case "site_not_verified":
      return [e.message, " Its tools can be added again once the site is verified."];
    case "unknown_tool":
      return [e.message, " Reload this page to see what the site publishes now."];
    case "unauthorized":
      return channel.source === "account"
        ? ["Your session has ended. ", h("a", { href: signInHref() }, "Sign in again"), " and retry."]
        : [
            `This browser's owner key for “${channel.name}” no longer works: ${e.message} Open `,
            consoleLink,
            " to enter a current one.",
          ];
    default:
      // site_delisted, forbidden, site_not_found, network: the hub's message says it plainly.
      return [e.message];
  }
}

const signInHref = () => `/signin?return_to=${encodeURIComponent(location.pathname + location.search)}`;

async function setup(section: HTMLElement): Promise<void> {
  const host = section.dataset.host ?? "";
  const wanted = section.dataset.channel ?? "";
  const form = byId("add-form", HTMLFormElement);
  const select = byId("add-channel", HTMLSelectElement);
  const submit = byId("add-submit", HTMLButtonElement);
  const status = byId("add-status");

  const setStatus = (kind: "ok" | "error" | "info" | "", ...content: Child[]) => {
    status.className = `alert ${kind}`;
    status.replaceChildren();
    for (const c of content) if (c instanceof Node || typeof c === "string") status.append(c);
    status.hidden = kind === "";
  };

  const said = section.dataset.signedIn;
  const { channels, signedIn } = await myChannels(said === undefined ? undefined : said === "true");
  select.replaceChildren();
  if (channels.length === 0) {
    select.append(h("option", { value: "" }, "No channels yet"));
    byId("add-none").hidden = false;
    const signIn = $("add-signin");
    if (signIn) {
      signIn.hidden = signedIn;
      signIn.querySelector("a")?.setAttribute("href", signInHref());
    }
    return;
  }
  const remembered = store.get(REMEMBERED, "");
  const preselect = channels.some((c) => c.id === wanted) ? wanted : remembered;
  const group = (label: string, list: Choice[]) =>
    list.length
      ? h(
          "optgroup",
          { label },
          list.map((c) => h("option", { value: c.id, selected: c.id === preselect }, `${c.name} (${c.id})`)),
        )
      : null;
  const groups = [
    group(
      "Your account's channels",
      channels.filter((c) => c.source === "account"),
    ),
    group(
      "Kept in this browser",
      channels.filter((c) => c.source === "browser"),
    ),
  ];
  for (const g of groups) if (g) select.append(g);
  select.disabled = false;
  submit.disabled = false;

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void add();
  });

  async function add(): Promise<void> {
    const channel = channels.find((c) => c.id === select.value);
    if (!channel) {
      setStatus("error", "Choose a channel.");
      select.focus();
      return;
    }
    const names = [...form.querySelectorAll<HTMLInputElement>('input[name="tool"]')]
      .filter((i) => i.type === "hidden" || i.checked)
      .map((i) => i.value);
    if (names.length === 0) {
      setStatus("error", "Choose at least one tool to add.");
      form.querySelector<HTMLInputElement>('input[name="tool"]')?.focus();
      return;
    }
    await whileBusy([submit], async () => {
      setStatus("info", `Adding to “${channel.name}”…`);
      try {
        const body = await api<{ host: string; added: string[] }>(
          `/api/channels/${encodeURIComponent(channel.id)}/tools`,
          { method: "POST", json: { host, tools: names }, token: channel.token },
        );
        store.set(REMEMBERED, channel.id);
        const list = body.added.flatMap((n, i) => [i ? ", " : "", h("code", {}, n)]);
        setStatus(
          "ok",
          h(
            "p",
            {},
            h("strong", {}, "Added. "),
            body.added.length === 1 ? "The tool " : `${body.added.length} tools `,
            ...list,
            ` of ${body.host} ${body.added.length === 1 ? "is" : "are"} now in “${channel.name}”: its agents see ${body.added.length === 1 ? "it" : "them"} even with no tab open.`,
          ),
          h(
            "p",
            {},
            h(
              "a",
              { href: `/channels/${encodeURIComponent(channel.id)}#added-tools` },
              `Open the console of “${channel.name}”`,
            ),
          ),
        );
      } catch (e) {
        setStatus("error", h("p", {}, h("strong", {}, "Nothing was added. "), ...explain(e, channel)));
      }
    });
  }
}
