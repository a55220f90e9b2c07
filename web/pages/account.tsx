// /account: the signed-in account (server-rendered from its session): passkeys, the channels and sites it
// owns with their keys (by label, revocable), claiming by key, sign out (here or everywhere), deleting it.
// /assets/account.js makes the buttons work. A static page (static-pages.tsx): the Worker renders only the
// account's name and its three lists (AccountLists).
import type { Child } from "hono/jsx";
import type { KeyView, PasskeyView } from "../../src/protocol/index.js";

export interface AccountPageData {
  account: { id: string; displayName: string };
  passkeys: PasskeyView[];
  channels: Array<{ id: string; name: string; createdAt: string; ownerKeys: KeyView[] }>;
  sites: Array<{ host: string; status: string; publisherKeys: KeyView[] }>;
}

const day = (iso: string) => iso.slice(0, 10);

function Keys(props: { keys: KeyView[]; action: string; data: Record<string, string>; what: string }) {
  if (props.keys.length === 0) return <p class="meta">No {props.what}s.</p>;
  return (
    <ul class="plain-list">
      {props.keys.map((k) => (
        <li>
          <span>{k.label}</span> <span class="meta">created {day(k.createdAt)}</span>{" "}
          {k.revokedAt ? (
            <span class="meta">revoked {day(k.revokedAt)}</span>
          ) : (
            <button
              type="button"
              class="btn small"
              data-action={props.action}
              data-id={k.id}
              {...Object.fromEntries(Object.entries(props.data).map(([n, v]) => [`data-${n}`, v]))}
              aria-label={`Revoke ${props.what} “${k.label}”`}
            >
              Revoke
            </button>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The parts of /account that depend on the account: its channels, sites and passkeys, each as markup. */
export function AccountLists(props: AccountPageData) {
  const only = props.passkeys.length === 1;
  return {
    channels:
      props.channels.length === 0 ? (
        <p class="meta">
          No channels yet. <a href="/channels">Create one</a> while signed in, or claim one below.
        </p>
      ) : (
        <ul class="plain-list" id="account-channels">
          {props.channels.map((ch) => (
            <li>
              <a href={`/channels/${encodeURIComponent(ch.id)}`}>{ch.name}</a>{" "}
              <span class="meta">created {day(ch.createdAt)}</span>
              <details>
                <summary>Owner keys of {ch.name}</summary>
                <Keys
                  keys={ch.ownerKeys}
                  action="revoke-owner-key"
                  data={{ channel: ch.id }}
                  what="owner key"
                />
              </details>
            </li>
          ))}
        </ul>
      ),
    sites:
      props.sites.length === 0 ? (
        <p class="meta">
          No sites yet. <a href="/publish">Publish one</a> while signed in, or claim one below.
        </p>
      ) : (
        <ul class="plain-list" id="account-sites">
          {props.sites.map((s) => (
            <li>
              <a href={`/sites/${encodeURIComponent(s.host)}`}>{s.host}</a>{" "}
              <span class="meta">{s.status}</span>
              <details>
                <summary>Publisher keys of {s.host}</summary>
                <Keys
                  keys={s.publisherKeys}
                  action="revoke-publisher-key"
                  data={{ host: s.host }}
                  what="publisher key"
                />
              </details>
            </li>
          ))}
        </ul>
      ),
    passkeys: (
      <>
        <ul class="plain-list" id="passkey-list">
          {props.passkeys.map((p) => (
            <li>
              <span class="passkey-label">{p.label}</span>{" "}
              <span class="meta">
                added {day(p.createdAt)}
                {p.lastUsedAt ? `, last used ${day(p.lastUsedAt)}` : ""}
              </span>{" "}
              <button
                type="button"
                class="btn small"
                data-action="remove-passkey"
                data-id={p.id}
                aria-label={`Remove passkey “${p.label}”`}
                aria-describedby={only ? "last-passkey-hint" : undefined}
              >
                Remove
              </button>
            </li>
          ))}
        </ul>
        {only ? (
          <p class="hint" id="last-passkey-hint">
            Your only passkey cannot be removed: add another one first.
          </p>
        ) : null}
      </>
    ),
  };
}

/** The body of /account, a static page (static-pages.tsx): the lists are AccountLists' markup. */
export function AccountBody(props: { name: string; channels: Child; sites: Child; passkeys: Child }) {
  return (
    <>
      <header class="page-head">
        <h1>{props.name}</h1>
        <p class="lede">Your channels, sites and passkeys, on any device where you sign in.</p>
      </header>
      <div id="account-root">
        <div id="account-error" class="alert error" role="alert" tabindex={-1} hidden></div>
        <section aria-labelledby="your-channels-title" class="panel">
          <h2 id="your-channels-title">Your channels</h2>
          {props.channels}
          <form id="claim-channel-form" novalidate>
            <div class="field">
              <label for="claim-owner-key">Claim a channel by its owner key</label>
              <input id="claim-owner-key" name="ownerKey" type="password" autocomplete="off" required />
            </div>
            <button type="submit" class="btn">
              Claim channel
            </button>
          </form>
        </section>
        <section aria-labelledby="your-sites-title" class="panel">
          <h2 id="your-sites-title">Your sites</h2>
          {props.sites}
          <form id="claim-site-form" novalidate>
            <div class="field">
              <label for="claim-publisher-key">Claim a site by its publisher key</label>
              <input
                id="claim-publisher-key"
                name="publisherKey"
                type="password"
                autocomplete="off"
                required
              />
            </div>
            <button type="submit" class="btn">
              Claim site
            </button>
          </form>
        </section>
        <section aria-labelledby="passkeys-title" class="panel">
          <h2 id="passkeys-title">Passkeys</h2>
          {props.passkeys}
          <div class="field">
            <label for="passkey-label">Name for a new passkey (optional)</label>
            <input id="passkey-label" name="label" type="text" maxlength={64} placeholder="e.g. Phone" />
          </div>
          <button type="button" class="btn primary" data-action="add-passkey">
            Add a passkey
          </button>
        </section>
        <section aria-labelledby="sessions-title" class="panel">
          <h2 id="sessions-title">Sign out</h2>
          <button type="button" class="btn" data-action="sign-out">
            Sign out
          </button>{" "}
          <button type="button" class="btn" data-action="sign-out-everywhere">
            Sign out everywhere
          </button>
          <h2>Delete the account</h2>
          <p class="meta">Its channels are closed for good; its sites stay listed, owned by nobody.</p>
          <button type="button" class="btn danger" data-action="delete-account">
            Delete account
          </button>
        </section>
      </div>
    </>
  );
}
