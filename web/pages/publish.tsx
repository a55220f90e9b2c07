// Publish: register an origin → prove control (HTTP file or DNS TXT) → keep the publisher key → publish
// a manifest → see the version. The page is the skeleton; publish.js drives the REST API in place. Without
// JavaScript the same steps are given as API calls.
import { CodeBlock, CopyValue, Notice } from "./components.js";

export function PublishBody(props: { hub: string }) {
  const hub = props.hub;
  return (
    <>
      <header class="page-head">
        <h1>Publish your site's tools</h1>
        <p class="lede">
          List the WebMCP tools your pages register, so people and agents can find them. You prove you control
          the origin once, then publish a manifest whenever your tools change. Each publish is a new,
          immutable version.
        </p>
      </header>

      <noscript>
        <Notice kind="info" title="This page needs JavaScript.">
          You can do the same with the API:
        </Notice>
        <CodeBlock
          id="publish-curl"
          label="publish with curl"
          code={[
            `curl -X POST ${hub}/api/sites -H 'content-type: application/json' -d '{"origin":"https://shop.example"}'`,
            "# serve the challenge token at https://shop.example/.well-known/webmcp-hub-verify, then:",
            `curl -X POST ${hub}/api/sites/shop.example/verify -H 'authorization: Bearer whc_…' -H 'content-type: application/json' -d '{"method":"http"}'`,
            `curl -X PUT ${hub}/api/sites/shop.example/manifest -H 'authorization: Bearer whp_…' -H 'content-type: application/json' --data @webmcp.json`,
          ].join("\n")}
        />
      </noscript>

      <section id="my-sites" class="panel" aria-labelledby="my-sites-title" hidden>
        <h2 id="my-sites-title">Sites this browser can publish</h2>
        <p class="meta">
          Publisher keys and pending claims you created here are kept in this browser's local storage, nowhere
          else. Anyone using this browser profile can use them.
        </p>
        <ul id="my-sites-list" class="plain-list"></ul>
      </section>

      <ol class="steps">
        <li class="step" id="step-register">
          <h2 id="register-title" tabindex={-1}>
            <span class="num" aria-hidden="true">
              1
            </span>{" "}
            Register your origin
          </h2>
          <form id="register-form" novalidate>
            <div class="field">
              <label for="origin">Your site's origin</label>
              <input
                id="origin"
                name="origin"
                type="url"
                inputmode="url"
                placeholder="https://shop.example"
                required
                autocomplete="url"
                aria-describedby="origin-hint origin-error"
              />
              <p class="hint" id="origin-hint">
                Scheme and host, with the port if it is not the default; no path. Example:{" "}
                <code>https://shop.example</code>.
              </p>
              <p class="field-error" id="origin-error" hidden></p>
            </div>
            <button type="submit" class="btn primary" disabled data-needs-js>
              Register
            </button>
          </form>
        </li>

        <li class="step" id="step-verify">
          <h2 id="verify-title" tabindex={-1}>
            <span class="num" aria-hidden="true">
              2
            </span>{" "}
            Prove you control it
          </h2>
          <p class="muted" id="verify-waiting">
            After you register, the challenge appears here.
          </p>
          <div id="verify-body" hidden>
            <p>
              Put the token on <strong id="v-origin"></strong> in one of two ways, then press its Verify
              button. The challenge is valid until <span id="v-expires"></span>.
            </p>
            <div class="methods">
              <section class="method" aria-labelledby="m-http-title">
                <h3 id="m-http-title">A file on your site</h3>
                <p class="meta">Serve this text, as text/plain, at this URL (no redirects).</p>
                <CopyValue id="v-http-url" label="File URL" value="" />
                <CopyValue id="v-http-body" label="File content" value="" />
                <p class="meta">
                  Content-Type: <code>text/plain</code>
                </p>
                <button type="button" class="btn primary" id="verify-http">
                  Verify with the file
                </button>
              </section>
              <section class="method" aria-labelledby="m-dns-title">
                <h3 id="m-dns-title">A DNS TXT record</h3>
                <p class="meta">Add this record at your DNS provider; it may take a few minutes to appear.</p>
                <CopyValue id="v-dns-name" label="Record name" value="" />
                <p class="meta">
                  Type: <code>TXT</code>
                </p>
                <CopyValue id="v-dns-value" label="Record value" value="" />
                <button type="button" class="btn primary" id="verify-dns">
                  Verify with DNS
                </button>
              </section>
            </div>
            <div id="verify-error" class="alert error" role="alert" hidden></div>
            <p class="meta">
              <button type="button" class="linklike" id="cancel-claim">
                Start over with another origin
              </button>
            </p>
          </div>
        </li>

        <li class="step" id="step-key">
          <h2 id="key-title" tabindex={-1}>
            <span class="num" aria-hidden="true">
              3
            </span>{" "}
            Keep your publisher key
          </h2>
          <p class="muted" id="key-waiting">
            Once the origin is verified, its publisher key appears here.
          </p>
          <div id="key-body" hidden>
            <Notice kind="warn" title="Shown once.">
              Copy this key somewhere safe: the hub stores only its hash. This browser also keeps a copy (in
              local storage) so you can publish from here.
            </Notice>
            <CopyValue id="publisher-key" label="Publisher key" value="" secret />
            <p class="meta">
              <button type="button" class="linklike" id="forget-key">
                Remove the key from this browser
              </button>
            </p>
          </div>
        </li>

        <li class="step" id="step-manifest">
          <h2 id="manifest-title" tabindex={-1}>
            <span class="num" aria-hidden="true">
              4
            </span>{" "}
            Publish your manifest
          </h2>
          <p class="muted" id="manifest-waiting">
            With a publisher key you can publish the list of your tools.
          </p>
          <div id="manifest-body" hidden>
            <p>
              Publishing to <strong id="m-host"></strong>. The manifest lists the tools your pages register (
              <a href="/schema/manifest.json">schema</a>, <a href="/docs#manifest">how to write one</a>).
            </p>
            <p class="meta">
              Mark a read-only tool <code>"cloud": true</code> to let the hub run it on its page in its own
              browser, so any agent can call it with no tab open (<a href="/docs#cloud">how it works</a>). It
              needs <code>annotations.readOnlyHint: true</code> and a page in <code>pages</code>.
            </p>
            <form id="manifest-form" novalidate>
              <div class="field">
                <label for="manifest">Manifest JSON</label>
                <textarea
                  id="manifest"
                  name="manifest"
                  rows={16}
                  spellcheck={false}
                  autocomplete="off"
                  aria-describedby="manifest-hint"
                ></textarea>
                <p class="hint" id="manifest-hint">
                  Paste it, upload it, or{" "}
                  <button type="button" class="linklike" id="manifest-example">
                    start from an example
                  </button>
                  .
                </p>
              </div>
              <div class="field">
                <label for="manifest-file">Upload webmcp.json</label>
                <input id="manifest-file" type="file" accept=".json,application/json" />
              </div>
              <div id="manifest-issues" class="alert error" role="alert" tabindex={-1} hidden>
                <p id="manifest-error-summary"></p>
                <ul id="manifest-issue-list"></ul>
              </div>
              <button type="submit" class="btn primary">
                Publish
              </button>
            </form>
          </div>
        </li>

        <li class="step" id="step-done">
          <h2 id="done-title" tabindex={-1}>
            <span class="num" aria-hidden="true">
              5
            </span>{" "}
            Published
          </h2>
          <p class="muted" id="done-waiting">
            The published version appears here.
          </p>
          <div id="done-body" hidden></div>
        </li>
      </ol>

      <section id="rotate" class="panel" aria-labelledby="rotate-title">
        <h2 id="rotate-title">Rotate a publisher key</h2>
        <p>
          Rotating issues a new key, shown once; the old key stops working at once. Lost the key? Register and
          verify the origin again: that replaces every earlier key.
        </p>
        <form id="rotate-form" novalidate>
          <div class="field">
            <label for="rotate-host">Site (host)</label>
            <input
              id="rotate-host"
              name="host"
              type="text"
              required
              autocomplete="off"
              placeholder="shop.example"
            />
          </div>
          <div class="field">
            <label for="rotate-key">Current publisher key</label>
            <input
              id="rotate-key"
              name="key"
              type="password"
              required
              autocomplete="off"
              aria-describedby="rotate-key-hint"
            />
            <p class="hint" id="rotate-key-hint">
              Filled in for sites whose key this browser keeps.
            </p>
          </div>
          <div id="rotate-error" class="alert error" role="alert" hidden></div>
          <button type="submit" class="btn" disabled data-needs-js>
            Rotate the key
          </button>
        </form>
        <div id="rotate-result" hidden>
          <Notice kind="warn" title="New key, shown once.">
            The previous key no longer works. This browser keeps a copy.
          </Notice>
          <CopyValue id="rotated-key" label="New publisher key" value="" secret />
        </div>
      </section>
    </>
  );
}
