// What `npm start` prints once the stack is up: where everything is, the demo channel's one-click console link,
// and the commands to connect an agent, the sidecar and the extension. TypeScript so it shares the commands of
// web/shared/snippets.ts with the console and the docs (scripts/start.mjs bundles it with esbuild when it
// starts); test/e2e/snippets.test.ts runs the commands this prints.
import {
  INSPECTOR_NOTE,
  consoleLink,
  inspectorCommand,
  sidecarPairCommand,
} from "../../web/shared/snippets.js";

export interface StartBannerInput {
  /** The hub's origin, e.g. http://localhost:8787 (no trailing slash). */
  hub: string;
  /** The demo site's origin. */
  demoOrigin: string;
  site: {
    host: string;
    version: number;
    toolCount: number;
    unchanged: boolean;
    publisherKey: string;
  };
  channel: {
    channelId: string;
    name: string;
    ownerKey: string;
    agentToken: string;
    mcpUrl: string;
    mcpCapabilityUrl: string;
    pairingCode: string;
    pairingCodeExpiresAt: string;
    reused: boolean;
  };
  /** Where the demo channel is kept between starts, as the user would type it (relative to the checkout). */
  stateFile: string;
}

/** The demo pages and the tools each registers, in the order a newcomer tries them. */
export const DEMO_PAGES: ReadonlyArray<[path: string, tools: string]> = [
  ["/", "greet"],
  ["/stamps.html", "add-stamp"],
  ["/shop.html", "get-dresses, buyProduct"],
  ["/templates.html", "filter-templates, edit-design (while the editor is open)"],
  ["/reading.html", "list-books, add-book, mark-book-read (document.modelContext)"],
  ["/booking.html", "book-table (a declarative <form toolname>)"],
];

/** The commands the banner prints, by what they do (test/e2e/snippets.test.ts runs them). */
export function startCommands(input: StartBannerInput) {
  const { hub, channel } = input;
  return {
    console: consoleLink(hub, channel.channelId, channel.ownerKey, channel.agentToken),
    inspector: inspectorCommand(channel.mcpUrl, channel.agentToken),
    sidecar: sidecarPairCommand(hub, channel.pairingCode),
  };
}

/** The text `npm start` prints. */
export function startBanner(input: StartBannerInput): string {
  const { hub, channel, site } = input;
  const commands = startCommands(input);
  const until = new Date(channel.pairingCodeExpiresAt).toLocaleTimeString("en-GB", {
    hour: "2-digit",
    minute: "2-digit",
  });
  const pathWidth = Math.max(...DEMO_PAGES.map(([path]) => new URL(path, input.demoOrigin).href.length));
  const pages = DEMO_PAGES.map(
    ([path, tools]) => `    ${new URL(path, input.demoOrigin).href.padEnd(pathWidth)}  ${tools}`,
  );
  const status = site.unchanged ? "already current" : "published";
  return `
webmcp-hub is running at ${hub}

  Your demo channel "${channel.name}" (${channel.reused ? "the same as last time" : "new"})
    Open its console   ${commands.console}
                       (one click: this browser keeps the owner key; the part after # never leaves it)
    Pairing code       ${channel.pairingCode}  (one use, until ${until}: a demo page's widget, the extension or the sidecar)
    MCP URL            ${channel.mcpUrl}
    Agent token        ${channel.agentToken}  (send as Authorization: Bearer …)
    Capability URL     ${channel.mcpCapabilityUrl}  (for clients that take only a URL)
    Owner key          ${channel.ownerKey}

  Connect an agent
    With OAuth (Claude, ChatGPT, VS Code, Claude Code, mcp-remote): give it the MCP URL above; it opens
    ${hub}/authorize, where you sign in with a passkey and Allow. Only a channel your account
    owns can be allowed: sign in first (${hub}/signin), then press "Add to my account" in the
    demo channel's console (the link above).
    With the agent token: the console has snippets for Claude Code, Claude Desktop, Cursor, VS Code and the
    OpenAI API. The MCP Inspector lists the tools from a terminal (it ${INSPECTOR_NOTE}):
      ${commands.inspector}

  Demo pages (each embeds ${hub}/bridge.js; pair one with the code above, the others of the site follow)
${pages.join("\n")}

  Your files, for remote agents (the sidecar, served by this hub; needs only Node):
      ${commands.sidecar}
  Browser extension  ${hub}/downloads/webmcp-hub-extension.zip: unzip it; in chrome://extensions
                     turn on Developer mode, Load unpacked, choose the folder; pair it with a code or at
                     ${hub}/extension/connect.

  Dashboard          ${hub}/  (sign in at ${hub}/signin)
  Demo site on hub   ${hub}/sites/${encodeURIComponent(site.host)}  (verified over HTTP; manifest v${site.version}, ${site.toolCount} tools, ${status})
  Registry MCP URL   ${hub}/mcp/registry  (MCP Streamable HTTP, public, tools: search_tools, get_site, propose_tools)
  Publisher key      ${site.publisherKey}  (for ${site.host}; a new one is issued on every start)

  The demo channel is kept in ${input.stateFile} and reused on the next start, with a
  new pairing code; delete that file for a new channel.

Press Ctrl-C to stop. Requests are logged below.
`;
}
