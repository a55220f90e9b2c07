// /extension/connect: the signed-in user picks one of their account's channels for the browser extension.
// The page makes a fresh pairing code (POST /api/channels/:id/pairing-codes, session auth) and hands it to the
// extension's content script by window.postMessage (extension/messages.ts); it also shows the code, so it works
// as a plain code display when the extension is not installed. /assets/extension-connect.js does the rest.
// A static page (static-pages.tsx): the Worker renders only the channel list.
import { Notice } from "./components.js";
import type { Child } from "hono/jsx";

export interface ExtensionConnectChannel {
  id: string;
  name: string;
}

/** The account's channels, each with its connect button (the part of the page that depends on the request). */
export function ExtensionConnectChannels(props: { channels: ExtensionConnectChannel[] }) {
  return props.channels.length === 0 ? (
    <p id="connect-no-channels" class="meta">
      Your account has no channels yet. <a href="/channels">Create a channel</a> while signed in, then come
      back here.
    </p>
  ) : (
    <ul id="connect-channel-list" class="plain-list">
      {props.channels.map((ch) => (
        <li data-channel-id={ch.id}>
          <strong>{ch.name}</strong> <code class="meta">{ch.id}</code>{" "}
          <button
            type="button"
            class="btn small primary"
            data-action="connect-extension"
            data-channel-id={ch.id}
            data-channel-name={ch.name}
            aria-label={`Connect the extension to the channel “${ch.name}”`}
            disabled
            data-needs-js
          >
            Connect the extension to this channel
          </button>
        </li>
      ))}
    </ul>
  );
}

/** The page's body, a static page (static-pages.tsx): `channels` is ExtensionConnectChannels' markup. */
export function ExtensionConnectBody(props: { channels: Child }) {
  return (
    <>
      <header class="page-head">
        <h1>Connect the browser extension</h1>
        <p class="lede">
          Pick the channel your agents use. The extension then shares the tabs you allow with that channel,
          and asks you in its own window before a tool changes anything.
        </p>
      </header>
      <noscript>
        <Notice kind="info" title="This page needs JavaScript.">
          It makes a pairing code and hands it to the extension. Without it, open a channel's console, make a
          pairing code there and type it into the extension's popup.
        </Notice>
      </noscript>
      <div id="extension-connect-root">
        <p id="extension-presence" class="meta" role="status" aria-live="polite">
          Looking for the extension… If it is not installed, you can still make a code here and type it into
          its popup later.
        </p>
        <section aria-labelledby="connect-channels-title" class="panel">
          <h2 id="connect-channels-title">Your channels</h2>
          {props.channels}
        </section>
        <section aria-labelledby="connect-status-title" class="panel" id="connect-result" hidden>
          <h2 id="connect-status-title">Pairing</h2>
          <p id="connect-status" role="status" aria-live="polite"></p>
          <div id="connect-error" class="alert error" role="alert" hidden></div>
          <p id="connect-code-row" hidden>
            If the extension does not pick it up, type this code into its popup:{" "}
            <code id="connect-code" class="pairing-code"></code>{" "}
            <span id="connect-code-expiry" class="meta"></span>
          </p>
        </section>
      </div>
    </>
  );
}
