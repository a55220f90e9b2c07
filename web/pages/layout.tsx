// The page shell shared by every dashboard page: head, skip link, header navigation, main, footer.
// Pages render complete without JavaScript; `scripts` names the small modules under /assets/ that add
// the live parts (built from web/client/<name>.ts; every page gets common.js: copy buttons, tabs, the theme
// switch). Every script carries the
// response's CSP nonce (src/worker/http/security-headers.ts), provided by the route through `CspNonce`.
import { raw } from "hono/html";
import type { Child } from "hono/jsx";
import { createContext, useContext } from "./jsx-context.js";
import { pageIndexing } from "./crawl.js";

export type Section = "tools" | "publish" | "channels" | "docs" | "account";

const NAV: Array<[Section, string, string]> = [
  ["tools", "/", "Tools"],
  ["publish", "/publish", "Publish"],
  ["channels", "/channels", "Channels"],
  ["docs", "/docs", "Docs"],
  ["account", "/account", "Account"],
];

// Applies a theme chosen earlier before the first paint (no flash); the default follows the system.
const THEME_BOOT =
  'try{var t=localStorage.getItem("webmcp-hub:theme");if(t==="light"||t==="dark")document.documentElement.dataset.theme=t}catch(e){}';

/** The nonce of this response's Content-Security-Policy; scripts without it do not run. */
export const CspNonce = createContext<string | undefined>(undefined);

/** The URL the page answers; sets its canonical link, or `noindex` when it is private (see crawl.ts). */
export const PageUrl = createContext<string | undefined>(undefined);

const ICON =
  "data:image/svg+xml," +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M8 1l7 7-7 7-7-7z" fill="#0550ae"/></svg>',
  );

export function Layout(props: {
  title: string;
  description?: string;
  section?: Section;
  scripts?: string[];
  wide?: boolean;
  children: Child;
}) {
  const scripts = ["common", ...(props.scripts ?? [])];
  const nonce = useContext(CspNonce);
  const indexing = pageIndexing(useContext(PageUrl));
  return (
    <>
      {raw("<!doctype html>")}
      <html lang="en">
        <head>
          <meta charset="utf-8" />
          <meta name="viewport" content="width=device-width, initial-scale=1" />
          <title>{`${props.title} · webmcp-hub`}</title>
          {props.description ? <meta name="description" content={props.description} /> : null}
          <meta name="color-scheme" content="light dark" />
          {"canonical" in indexing ? (
            <link rel="canonical" href={indexing.canonical} />
          ) : (
            <meta name="robots" content="noindex" />
          )}
          <link rel="icon" href={ICON} />
          <link rel="stylesheet" href="/assets/app.css" />
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: THEME_BOOT }} />
          {scripts.map((s) => (
            <script type="module" nonce={nonce} src={`/assets/${s}.js`} />
          ))}
        </head>
        <body>
          <a class="skip" href="#main">
            Skip to content
          </a>
          <header class="top">
            <div class="bar">
              <a class="brand" href="/">
                <span aria-hidden="true" class="logo">
                  ◆
                </span>{" "}
                webmcp-hub
              </a>
              <nav aria-label="Main">
                <ul>
                  {NAV.map(([key, href, label]) => (
                    <li>
                      <a href={href} aria-current={props.section === key ? "page" : undefined}>
                        {label}
                      </a>
                    </li>
                  ))}
                </ul>
              </nav>
              <button
                type="button"
                class="btn small theme"
                id="theme"
                hidden
                aria-label="Color theme: system"
              >
                Theme: system
              </button>
            </div>
          </header>
          <main id="main" tabindex={-1} class={props.wide ? "wide" : undefined}>
            {props.children}
          </main>
          <footer class="foot">
            <p>
              WebMCP tools, published by the sites that run them, called by your agents in your own tabs.{" "}
              <a href="/docs">How it works</a> · <a href="/schema/manifest.json">Manifest schema</a>
            </p>
          </footer>
        </body>
      </html>
    </>
  );
}
