// The commands and client configurations the hub prints (the console's client tabs and pairing line, the docs
// page, `npm start`'s output), written once, so that test/e2e/snippets.test.ts runs exactly what is printed.
// Pure: no DOM, no Worker or Node APIs, no imports.

/**
 * The MCP Inspector the hub tells people to run. Its CLI picks the transport from the URL's ending (`/mcp` or
 * `/sse`), and a channel's URL ends in its id, so the command names the transport; since 2.x the bearer token
 * goes in `--header`. 2.12 (the current release) declares `engines: node >=22.19.0`; on an older Node, npx
 * resolves 0.15, which handles none of this.
 */
export const INSPECTOR = {
  package: "@modelcontextprotocol/inspector@latest",
  /** The oldest Node the current Inspector runs on (its package.json `engines`). */
  minNode: "22.19",
} as const;

/** `npx … inspector --cli`: lists the channel's tools from a terminal. */
export function inspectorCommand(mcpUrl: string, token: string): string {
  return `npx -y ${INSPECTOR.package} --cli ${mcpUrl} --transport http --method tools/list --header "Authorization: Bearer ${token}"`;
}

/** What to say beside the Inspector command. */
export const INSPECTOR_NOTE = `needs Node ${INSPECTOR.minNode} or newer`;

/**
 * The sidecar as the hub serves it (`GET /downloads/webmcp-hub-sidecar.tgz`): an npm package stamped with the
 * hub's origin, so `npx -y <that URL> …` works in any folder on a machine with only Node, and `--hub` can be
 * left out.
 */
export const sidecarPackageUrl = (hub: string) => `${hub}/downloads/webmcp-hub-sidecar.tgz`;

/** The folder the printed sidecar commands share, in a shell (where `~` expands). */
export const SIDECAR_ROOT = "~/Documents";
/** The folder in a Claude Desktop configuration: absolute, since Claude Desktop starts servers in `/`. */
export const SIDECAR_DESKTOP_ROOT = "/Users/me/Documents";

/** Pairs the sidecar with a channel (`code` is a pairing code, or `CODE` where none is at hand). */
export function sidecarPairCommand(hub: string, code: string, root: string = SIDECAR_ROOT): string {
  return `npx -y ${sidecarPackageUrl(hub)} pair ${code} --root ${root}`;
}

/** Reconnects the sidecar with the pairing it saved. */
export function sidecarReconnectCommand(hub: string): string {
  return `npx -y ${sidecarPackageUrl(hub)} pair`;
}

/** Runs the sidecar as a stdio MCP server, for a local agent. */
export function sidecarStdioCommand(hub: string, root: string = SIDECAR_ROOT): string {
  return `npx -y ${sidecarPackageUrl(hub)} sidecar --root ${root}`;
}

/** Claude Desktop's claude_desktop_config.json running the sidecar over stdio. */
export function sidecarDesktopConfig(hub: string, root: string = SIDECAR_DESKTOP_ROOT): string {
  const server = { command: "npx", args: ["-y", sidecarPackageUrl(hub), "sidecar", "--root", root] };
  return JSON.stringify({ mcpServers: { "webmcp-hub-files": server } }, null, 2);
}

/** Publishes a site's manifest from a script or CI. */
export function publishCommand(hub: string): string {
  return `npx -y ${sidecarPackageUrl(hub)} publish webmcp.json --hub ${hub} --site HOST --key whp_…`;
}

/**
 * The channel console with the owner key and agent token in the URL's fragment, which browsers never send:
 * the console keeps them in this browser and removes them from the address bar.
 */
export function consoleLink(hub: string, channelId: string, ownerKey: string, agentToken: string): string {
  const q = encodeURIComponent;
  return `${hub}/channels/${q(channelId)}#ownerKey=${q(ownerKey)}&agentToken=${q(agentToken)}`;
}

/** Claude Code's command adding the channel as an HTTP MCP server. */
export function claudeCodeCommand(mcpUrl: string, token: string): string {
  return `claude mcp add --transport http webmcp-hub ${mcpUrl} --header "Authorization: Bearer ${token}"`;
}

/** The MCP URL that carries the agent token in its path, for clients that take only a URL. */
export const capabilityUrl = (mcpUrl: string, token: string) => `${mcpUrl}/k/${token}`;

/** A client's snippet: its name, where the configuration goes, the configuration. */
export type ClientSnippet = [client: string, where: string, code: string];

/** Where an agent token goes when this browser has none. */
export const TOKEN_PLACEHOLDER = "wha_…";

/**
 * How to connect each common client to the channel, with its MCP URL and agent token filled in (or
 * TOKEN_PLACEHOLDER). The console shows them as tabs.
 */
export function clientSnippets(
  ch: { id: string; mcpUrl: string },
  token: string | null,
  hubOrigin: string,
): ClientSnippet[] {
  const url = ch.mcpUrl;
  const secret = token ?? TOKEN_PLACEHOLDER;
  const auth = `Bearer ${secret}`;
  const cap = capabilityUrl(url, secret);
  const j = (v: unknown) => JSON.stringify(v, null, 2);
  return [
    ["Claude Code", "Run in a terminal:", claudeCodeCommand(url, secret)],
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
      `List the tools from a terminal (the Inspector ${INSPECTOR_NOTE}):`,
      inspectorCommand(url, secret),
    ],
    [
      "Plain HTTP",
      "For agents without MCP: one call per request.",
      plainHttpCall(hubOrigin, ch.id, secret, `{"name":"TOOL","arguments":{}}`),
    ],
  ];
}

/** `curl` calling one tool over plain HTTP (`body` is the JSON request body, in single quotes). */
export function plainHttpCall(hub: string, channelId: string, token: string, body: string): string {
  return `curl -X POST ${hub}/api/channels/${channelId}/calls \\\n  -H 'authorization: Bearer ${token}' -H 'content-type: application/json' \\\n  -d '${body}'`;
}
