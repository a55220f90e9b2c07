// The console's "MCP client" tabs: how to connect each common client to the channel, with its URL and token
// filled in (or a placeholder when this browser has no agent token).
import { codeBlock } from "../../shared/markup.js";
import { byId, h, render } from "../lib/dom.js";
import type { KeptChannel } from "../lib/store.js";
import { enhanceTabs } from "../lib/tabs.js";

/** [client, where the configuration goes, the configuration] for the channel's MCP URL and agent token. */
export function clientSnippets(
  ch: Pick<KeptChannel, "id" | "mcpUrl">,
  token: string | null,
  hubOrigin: string,
): Array<[string, string, string]> {
  const url = ch.mcpUrl;
  const auth = `Bearer ${token ?? "wha_…"}`;
  const cap = token ? `${url}/k/${token}` : `${url}/k/wha_…`;
  const j = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    [
      "Claude Code",
      "Run in a terminal:",
      `claude mcp add --transport http webmcp-hub ${url} --header "Authorization: ${auth}"`,
    ],
    [
      "Claude Desktop",
      "In claude_desktop_config.json (through mcp-remote):",
      j({ mcpServers: { "webmcp-hub": { command: "npx", args: ["-y", "mcp-remote", cap] } } }),
    ],
    [
      "Cursor",
      "In ~/.cursor/mcp.json:",
      j({ mcpServers: { "webmcp-hub": { url, headers: { Authorization: auth } } } }),
    ],
    [
      "VS Code",
      "In .vscode/mcp.json:",
      j({ servers: { "webmcp-hub": { type: "http", url, headers: { Authorization: auth } } } }),
    ],
    [
      "OpenAI API",
      "A Responses API tool (the hub must be reachable from the internet):",
      j({
        type: "mcp",
        server_label: "webmcp-hub",
        server_url: url,
        headers: { Authorization: auth },
        require_approval: "never",
      }),
    ],
    [
      "MCP Inspector",
      "List the tools from a terminal:",
      `npx @modelcontextprotocol/inspector --cli ${cap} --method tools/list`,
    ],
    [
      "Plain HTTP",
      "For agents without MCP: one call per request.",
      `curl -X POST ${hubOrigin}/api/channels/${ch.id}/calls \\\n  -H 'authorization: ${auth}' -H 'content-type: application/json' \\\n  -d '{"name":"TOOL","arguments":{}}'`,
    ],
  ];
}

/** Fills the `#snippets` tabs. */
export function renderSnippets(ch: KeptChannel, token: string | null): void {
  const box = byId("snippets");
  box.classList.remove("enhanced");
  box.replaceChildren(
    ...clientSnippets(ch, token, location.origin).map(([name, how, code], i) =>
      h(
        "section",
        { "data-tab": name },
        h("h3", {}, name),
        h("p", { class: "meta" }, how),
        render(codeBlock({ id: `snippet-${i}`, label: `${name} configuration`, code })),
      ),
    ),
  );
  if (box.parentElement) enhanceTabs(box.parentElement);
}
