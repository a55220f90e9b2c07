// The page shell shared by every dashboard page: head, header navigation, main, footer.
import type { Child } from "hono/jsx";

export function Layout(props: { title: string; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · webmcp-hub</title>
        <link rel="stylesheet" href="/assets/app.css" />
      </head>
      <body>
        <header class="top">
          <a class="brand" href="/">
            webmcp-hub
          </a>
          <nav aria-label="Main">
            <a href="/">Tools</a>
            <a href="/schema/manifest.json">Manifest schema</a>
          </nav>
        </header>
        <main id="main">{props.children}</main>
        <footer class="foot">WebMCP tools, registered by their sites, callable by your agents.</footer>
      </body>
    </html>
  );
}
