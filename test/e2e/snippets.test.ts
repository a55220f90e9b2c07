// Every command and client configuration the hub prints (the console's client tabs and pairing line, the docs
// page, `npm start`'s output) works as printed, run with the real client wherever it runs here:
// - the MCP Inspector CLI (a pinned release, on a Node 22 from the npm registry, as the printed note says),
//   the `mcp-remote` bridge (spawned from a Claude Desktop configuration, spoken to over stdio), curl, and a
//   shell: each printed command goes through `sh -c` exactly as printed, with an `npx` on PATH that runs the
//   pinned package from a cache instead of fetching `@latest` (and a `claude` that reports how the shell
//   split its arguments);
// - the v1 (`@modelcontextprotocol/sdk`) and v2 (`@modelcontextprotocol/client`) SDK clients for the clients
//   that cannot run here (Claude Code, Cursor, VS Code, OpenAI), given the URL and headers read from the
//   snippet after it is checked against that client's documented configuration shape (sources below).
// The snippets come from the functions that render them (web/shared/snippets.ts, scripts/lib/start-banner.ts),
// and the docs page and console page as served are checked to print those same texts.
//
// The clients are not dependencies (their engines want Node ≥ 22): they are installed at test time into
// node_modules/.cache/webmcp-hub-snippets/<package>@<version>, reused by later runs (./walkthrough-helpers.ts).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { launchBrowser, signUpWithPasskey } from "./browser.js";
import { nodeForConformance } from "../../scripts/conformance.mjs";
import { demoChannel } from "../../scripts/lib/seed.mjs";
import { startBanner, startCommands } from "../../scripts/lib/start-banner.js";
import { startConformanceProvider, waitForTools } from "../support/conformance-provider.mjs";
import {
  INSPECTOR,
  clientSnippets,
  claudeCodeCommand,
  inspectorCommand,
  plainHttpCall,
  sidecarDesktopConfig,
  sidecarPairCommand,
  sidecarReconnectCommand,
  sidecarStdioCommand,
} from "../../web/shared/snippets.js";
import { api, createChannel, type Channel } from "./hub-api.js";
import {
  INSPECTOR_VERSION,
  MCP_REMOTE_VERSION,
  connectMcpRemote,
  installed,
  makeShell,
  type Shell,
} from "./walkthrough-helpers.js";

const hubUrl = inject("hubUrl");

/** A tool of test/support/conformance-provider.mjs: read-only, no arguments, a fixed text. */
const TOOL = "test_simple_text";
const TOOL_TEXT = "This is a simple text response for testing.";

/** The tool names and the text TOOL answers, through a v1 or v2 SDK client with these URL and headers. */
async function throughSdk(version: 1 | 2, url: string, headers: Record<string, string>) {
  const info = { name: `snippets-test-v${version}`, version: "1.0.0" };
  if (version === 1) {
    const client = new ClientV1(info);
    await client.connect(new HttpV1(new URL(url), { requestInit: { headers } }));
    try {
      const { tools } = await client.listTools();
      const result = await client.callTool({ name: TOOL, arguments: {} });
      return { names: tools.map((t) => t.name), result };
    } finally {
      await client.close();
    }
  }
  const client = new ClientV2(info);
  await client.connect(new HttpV2(new URL(url), { requestInit: { headers } }));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: TOOL, arguments: {} });
    return { names: tools.map((t) => t.name), result };
  } finally {
    await client.close();
  }
}

function expectToolWorked(outcome: { names: string[]; result: unknown }) {
  expect(outcome.names).toContain(TOOL);
  expect(outcome.result).toMatchObject({ content: [{ type: "text", text: TOOL_TEXT }] });
}

/** The text of the code block with this id in a served page (its HTML entities decoded). */
function codeBlockText(html: string, id: string): string {
  const match = new RegExp(`<pre[^>]*>\\s*<code[^>]*id="${id}"[^>]*>([\\s\\S]*?)</code>`).exec(html);
  const direct = new RegExp(`id="${id}"[^>]*>([\\s\\S]*?)</(?:code|pre)>`).exec(html);
  const inner = (match ?? direct)?.[1];
  if (inner === undefined) throw new Error(`no code block #${id} on the page`);
  return inner
    .replace(/<[^>]+>/g, "")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&amp;", "&");
}

let shell: Shell;
let channel: Channel;
let provider: { close(): Promise<void> };
let inspectorDir: string;

beforeAll(async () => {
  const [inspector, mcpRemote, node22] = await Promise.all([
    installed("@modelcontextprotocol/inspector", INSPECTOR_VERSION),
    installed("mcp-remote", MCP_REMOTE_VERSION),
    nodeForConformance(),
  ]);
  inspectorDir = inspector;
  shell = await makeShell(mcpRemote, { dir: inspector, node: node22 });
  channel = await createChannel("snippets");
  provider = await startConformanceProvider({ hubUrl, pairingCode: channel.pairingCode, label: "snippets" });
  await waitForTools(hubUrl, channel.id, channel.ownerKey, [TOOL], 30_000);
}, 240_000);

afterAll(async () => {
  await provider?.close();
  if (shell) await rm(shell.home, { recursive: true, force: true });
});

/** The console's tabs for the test channel, by client name. */
function consoleTabs(): Map<string, string> {
  const snippets = clientSnippets({ id: channel.id, mcpUrl: channel.mcpUrl }, channel.agentToken, hubUrl);
  return new Map(snippets.map(([name, , code]) => [name, code]));
}

describe("the console's client tabs, run with each client", () => {
  it("has a tab for each client the issue names, and no other", () => {
    expect([...consoleTabs().keys()]).toEqual([
      "Claude Code",
      "Claude Desktop",
      "Cursor",
      "VS Code",
      "OpenAI API",
      "MCP Inspector",
      "Plain HTTP",
    ]);
  });

  it("MCP Inspector: the printed command lists the channel's tools with the pinned Inspector on Node 22", async () => {
    const command = consoleTabs().get("MCP Inspector")!;
    const result = await shell.run(command);
    expect(result.stderr).not.toMatch(/Transport type not specified/);
    expect(result.code, result.stderr).toBe(0);
    const listed = JSON.parse(result.stdout) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((t) => t.name)).toContain(TOOL);
  });

  it("MCP Inspector: the Node the hub says it needs is what the Inspector's package declares", async () => {
    const pkg = JSON.parse(await readFile(join(inspectorDir, "package.json"), "utf8"));
    expect(pkg.engines.node).toBe(`>=${INSPECTOR.minNode}.0`);
    expect(consoleTabs().get("MCP Inspector")).toBe(inspectorCommand(channel.mcpUrl, channel.agentToken));
  });

  it("Claude Desktop: mcp-remote started from the configuration serves the channel over stdio", async () => {
    const config = JSON.parse(consoleTabs().get("Claude Desktop")!);
    // Claude Desktop's documented shape (modelcontextprotocol.io/docs/develop/connect-local-servers):
    // {"mcpServers": {NAME: {"command": …, "args": [...]}}}; mcp-remote's README: npx -y mcp-remote URL.
    const [name, server] = Object.entries(config.mcpServers)[0] as [
      string,
      { command: string; args: string[] },
    ];
    expect(Object.keys(config)).toEqual(["mcpServers"]);
    expect(name).toBe("webmcp-hub");
    expect(server.command).toBe("npx");
    expect(server.args.slice(0, 2)).toEqual(["-y", "mcp-remote"]);
    const client = new ClientV1({ name: "claude-desktop-as-tested", version: "1.0.0" });
    const transport = new StdioClientTransport({
      command: server.command,
      args: server.args,
      env: shell.env as Record<string, string>,
      cwd: shell.home,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (d) => (stderr += d));
    try {
      await client.connect(transport);
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain(TOOL);
      const result = await client.callTool({ name: TOOL, arguments: {} });
      expect(result).toMatchObject({ content: [{ type: "text", text: TOOL_TEXT }] });
    } catch (e) {
      throw new Error(`${e instanceof Error ? e.message : String(e)}\nmcp-remote's stderr:\n${stderr}`);
    } finally {
      await client.close();
    }
  });

  it("Claude Code: the command splits as `claude mcp add` documents it, and its URL and header reach the channel", async () => {
    const command = consoleTabs().get("Claude Code")!;
    expect(command).toBe(claudeCodeCommand(channel.mcpUrl, channel.agentToken));
    const printed = await shell.run(command);
    const argv = JSON.parse(printed.stdout) as string[];
    // code.claude.com/docs/en/mcp: claude mcp add --transport http <name> <url> --header "Authorization: Bearer <token>"
    expect(argv).toEqual([
      "mcp",
      "add",
      "--transport",
      "http",
      "webmcp-hub",
      channel.mcpUrl,
      "--header",
      `Authorization: Bearer ${channel.agentToken}`,
    ]);
    const [header, value] = argv[7]!.split(/:\s*/, 2) as [string, string];
    expectToolWorked(await throughSdk(2, argv[5]!, { [header]: value }));
  });

  it("Cursor: mcp.json has Cursor's documented remote-server shape, and its URL and headers reach the channel", async () => {
    const config = JSON.parse(consoleTabs().get("Cursor")!);
    // cursor.com/docs/context/mcp: {"mcpServers": {NAME: {"url": …, "headers": {…}}}} for a remote server.
    expect(config).toEqual({
      mcpServers: {
        "webmcp-hub": {
          url: channel.mcpUrl,
          headers: { Authorization: `Bearer ${channel.agentToken}` },
        },
      },
    });
    const server = config.mcpServers["webmcp-hub"];
    expectToolWorked(await throughSdk(1, server.url, server.headers));
  });

  it("VS Code: .vscode/mcp.json has VS Code's documented http-server shape, and it reaches the channel", async () => {
    const config = JSON.parse(consoleTabs().get("VS Code")!);
    // code.visualstudio.com/docs/copilot/reference/mcp-configuration: {"servers": {NAME: {"type": "http",
    // "url": …, "headers": {…}}}}.
    expect(config).toEqual({
      servers: {
        "webmcp-hub": {
          type: "http",
          url: channel.mcpUrl,
          headers: { Authorization: `Bearer ${channel.agentToken}` },
        },
      },
    });
    const server = config.servers["webmcp-hub"];
    expectToolWorked(await throughSdk(2, server.url, server.headers));
  });

  it("OpenAI API: the tool has the Responses API's documented MCP shape, and its URL and headers reach the channel", async () => {
    const tool = JSON.parse(consoleTabs().get("OpenAI API")!);
    // developers.openai.com/api/docs/guides/tools-remote-mcp: {"type": "mcp", "server_label", "server_url",
    // "headers"?, "require_approval": "never" | "always" | {…}}.
    expect(tool).toEqual({
      type: "mcp",
      server_label: "webmcp-hub",
      server_url: channel.mcpUrl,
      headers: { Authorization: `Bearer ${channel.agentToken}` },
      require_approval: "never",
    });
    expect(tool.server_label).toMatch(/^[A-Za-z0-9_-]+$/);
    expectToolWorked(await throughSdk(1, tool.server_url, tool.headers));
  });

  it("Plain HTTP: curl as printed calls the channel, and with a tool's name in place of TOOL runs it", async () => {
    const command = consoleTabs().get("Plain HTTP")!;
    const printed = await shell.run(command);
    expect(printed.code, printed.stderr).toBe(0);
    const asPrinted = JSON.parse(printed.stdout);
    expect(asPrinted.results[0]).toMatchObject({ name: "TOOL", status: "invalid" });
    const filled = await shell.run(command.replace('"name":"TOOL"', `"name":"${TOOL}"`));
    const body = JSON.parse(filled.stdout);
    expect(body.results[0]).toMatchObject({
      name: TOOL,
      status: "ok",
      result: { content: [{ type: "text", text: TOOL_TEXT }] },
    });
  });

  it("with no agent token in this browser, every tab shows the placeholder in the token's place", () => {
    const placeholder = clientSnippets({ id: channel.id, mcpUrl: channel.mcpUrl }, null, hubUrl);
    const filled = consoleTabs();
    for (const [name, , code] of placeholder)
      expect(code.replaceAll("wha_…", channel.agentToken)).toBe(filled.get(name));
  });
});

describe("the docs page and the console page print the same commands", () => {
  it("the docs page's commands, with the channel's id and token filled in, are the ones run above", async () => {
    const html = await (await fetch(`${hubUrl}/docs`)).text();
    const fill = (text: string) =>
      text.replaceAll("CHANNEL_ID", channel.id).replaceAll("wha_…", channel.agentToken);
    const tabs = consoleTabs();
    expect(fill(codeBlockText(html, "agent-claude"))).toBe(tabs.get("Claude Code"));
    expect(fill(codeBlockText(html, "agent-inspector"))).toBe(tabs.get("MCP Inspector"));
    expect(codeBlockText(html, "agent-curl")).toBe(
      plainHttpCall(hubUrl, "CHANNEL_ID", "wha_…", `{"name":"get-dresses","arguments":{"size":8}}`),
    );
    expect(
      fill(codeBlockText(html, "agent-curl")).replace("get-dresses", "TOOL").replace(`{"size":8}`, "{}"),
    ).toBe(tabs.get("Plain HTTP"));
    expect(html).toContain("needs Node 22.19 or newer");
  });

  it("the docs page's sidecar commands are the hub-served package's forms (the downloads contract)", async () => {
    const html = await (await fetch(`${hubUrl}/docs`)).text();
    const pkg = `${hubUrl}/downloads/webmcp-hub-sidecar.tgz`;
    expect(codeBlockText(html, "sidecar-stdio")).toBe(`npx -y ${pkg} sidecar --root ~/Documents`);
    expect(codeBlockText(html, "sidecar-stdio")).toBe(sidecarStdioCommand(hubUrl));
    expect(codeBlockText(html, "sidecar-pair")).toBe(`npx -y ${pkg} pair CODE --root ~/Documents`);
    expect(codeBlockText(html, "sidecar-pair")).toBe(sidecarPairCommand(hubUrl, "CODE"));
    expect(html).toContain(`<code>npx -y ${pkg} pair</code>`);
    expect(sidecarReconnectCommand(hubUrl)).toBe(`npx -y ${pkg} pair`);
    const desktop = JSON.parse(codeBlockText(html, "sidecar-desktop"));
    expect(JSON.parse(sidecarDesktopConfig(hubUrl))).toEqual(desktop);
    // Claude Desktop starts servers in "/", so the folder must be absolute.
    expect(desktop).toEqual({
      mcpServers: {
        "webmcp-hub-files": {
          command: "npx",
          args: ["-y", pkg, "sidecar", "--root", "/Users/me/Documents"],
        },
      },
    });
    expect(html).not.toMatch(/npx webmcp-hub/);
  });

  it("the console page's pairing line is the hub-served package's pair command", async () => {
    const html = await (await fetch(`${hubUrl}/channels/${channel.id}`)).text();
    expect(codeBlockText(html, "sidecar-cmd")).toBe(sidecarPairCommand(hubUrl, "CODE"));
    expect(html).not.toMatch(/npx webmcp-hub/);
  });
});

describe("npm start's demo channel and what it prints", () => {
  let stateDir: string;
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "webmcp-hub-demo-state-"));
  });
  afterAll(async () => {
    await rm(stateDir, { recursive: true, force: true });
  });

  it("reuses the demo channel across starts with a fresh pairing code, and makes a new one when the hub lost it", async () => {
    const stateFile = join(stateDir, "nested", "demo.json");
    const first = await demoChannel({ hubUrl, stateFile });
    expect(first.reused).toBe(false);
    expect(JSON.parse(await readFile(stateFile, "utf8"))).toEqual({
      channelId: first.channelId,
      ownerKey: first.ownerKey,
      agentToken: first.agentToken,
    });

    const second = await demoChannel({ hubUrl, stateFile });
    expect(second).toMatchObject({
      reused: true,
      channelId: first.channelId,
      ownerKey: first.ownerKey,
      agentToken: first.agentToken,
      mcpUrl: first.mcpUrl,
      mcpCapabilityUrl: first.mcpCapabilityUrl,
      name: first.name,
    });
    expect(second.pairingCode).not.toBe(first.pairingCode);
    expect(Date.parse(second.pairingCodeExpiresAt)).toBeGreaterThan(Date.now());

    // The agent token revoked in the console: the next start issues a new one and keeps it.
    const tokens = await api(`/api/channels/${first.channelId}/agent-tokens`, { token: first.ownerKey });
    await api(`/api/channels/${first.channelId}/agent-tokens`, {
      method: "DELETE",
      token: first.ownerKey,
      json: { id: tokens.body.agentTokens[0].id },
    });
    const third = await demoChannel({ hubUrl, stateFile });
    expect(third).toMatchObject({ reused: true, channelId: first.channelId, ownerKey: first.ownerKey });
    expect(third.agentToken).toMatch(/^wha_/);
    expect(third.agentToken).not.toBe(first.agentToken);
    expect(JSON.parse(await readFile(stateFile, "utf8")).agentToken).toBe(third.agentToken);
    const probe = await api(`/api/channels/${first.channelId}/calls`, {
      method: "POST",
      token: third.agentToken,
      json: { name: TOOL, arguments: {} },
    });
    expect(probe.status).toBe(200);

    // A state file naming a channel the hub does not have (a wiped .wrangler/state): a new channel.
    await writeFile(stateFile, JSON.stringify({ ...first, channelId: "gone-channel-id" }));
    const fourth = await demoChannel({ hubUrl, stateFile });
    expect(fourth.reused).toBe(false);
    expect(fourth.channelId).not.toBe(first.channelId);
    expect(JSON.parse(await readFile(stateFile, "utf8")).channelId).toBe(fourth.channelId);
  });

  it("prints a one-click console link, and its Inspector and sidecar commands work as printed", async () => {
    const demo = await demoChannel({ hubUrl, stateFile: join(stateDir, "banner.json") });
    const input = {
      hub: hubUrl,
      demoOrigin: inject("demoOrigin"),
      site: { host: inject("demoHost"), version: 1, toolCount: 11, unchanged: true, publisherKey: "whp_x" },
      channel: demo,
      stateFile: ".wrangler/webmcp-hub-demo-channel.json",
    };
    const banner = startBanner(input);
    const commands = startCommands(input);
    for (const line of Object.values(commands)) expect(banner).toContain(line);
    expect(banner).not.toMatch(/npx webmcp-hub/);
    // One host throughout: every URL printed is on the hub's host name (the demo site's too).
    const hosts = new Set([...banner.matchAll(/https?:\/\/[^\s/:]+/g)].map((m) => new URL(m[0]).hostname));
    expect([...hosts]).toEqual([new URL(hubUrl).hostname]);

    // The console link: the channel's page, the secrets only in the fragment (never sent to the server).
    const link = new URL(commands.console);
    expect(link.origin + link.pathname).toBe(`${hubUrl}/channels/${demo.channelId}`);
    expect(link.search).toBe("");
    const fragment = new URLSearchParams(link.hash.slice(1));
    expect(fragment.get("ownerKey")).toBe(demo.ownerKey);
    expect(fragment.get("agentToken")).toBe(demo.agentToken);
    expect((await fetch(link)).status).toBe(200);

    // The sidecar line: the downloads contract's recommended form, with this start's code.
    expect(commands.sidecar).toBe(
      `npx -y ${hubUrl}/downloads/webmcp-hub-sidecar.tgz pair ${demo.pairingCode} --root ~/Documents`,
    );

    // The Inspector line, run as printed: the demo channel has no provider, so it lists no tools.
    expect(banner).toContain(`(it needs Node ${INSPECTOR.minNode} or newer)`);
    const result = await shell.run(commands.inspector);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveProperty("tools");
  });
});

describe("an OAuth client as npm start tells people to connect one", () => {
  it("Claude Desktop through mcp-remote given only the MCP URL: consent in the browser, then the channel's tools", async () => {
    // Passkeys need a host name: the browser side runs on localhost.
    const hub = hubUrl.replace("//127.0.0.1:", "//localhost:");
    const browser = await launchBrowser();
    let ownProvider: { close(): Promise<void> } | undefined;
    let client: ClientV1 | undefined;
    try {
      const page = await browser.newPage();
      await signUpWithPasskey(page, hub, "Ada");
      const created = await page.request.post(`${hub}/api/channels`, {
        data: { name: "Snippets OAuth channel" },
        headers: { origin: hub },
      });
      expect(created.status()).toBe(201);
      const body = (await created.json()) as {
        channel: { id: string };
        ownerKey: string;
        pairingCode: string;
      };
      ownProvider = await startConformanceProvider({ hubUrl, pairingCode: body.pairingCode, label: "oauth" });
      await waitForTools(hubUrl, body.channel.id, body.ownerKey, [TOOL], 30_000);

      // The Claude Desktop tab's configuration with the MCP URL in place of the capability URL.
      const mcpUrl = `${hub}/mcp/${body.channel.id}`;
      const tab = clientSnippets({ id: body.channel.id, mcpUrl }, "wha_unused", hub).find(
        ([name]) => name === "Claude Desktop",
      )!;
      const server = JSON.parse(tab[2]).mcpServers["webmcp-hub"] as { command: string; args: string[] };
      const args = server.args.map((a) => (a === `${mcpUrl}/k/wha_unused` ? mcpUrl : a));
      expect(args).toEqual(["-y", "mcp-remote", mcpUrl]);

      const remote = await connectMcpRemote({ command: server.command, args }, shell, async (url) => {
        await page.goto(url);
        await page.locator("#consent-allow, #authorize-problem").first().waitFor();
        await page.locator("#consent-allow").click();
        await page.waitForURL(/localhost:\d+\/oauth\/callback/, { waitUntil: "commit" });
      });
      client = remote.client;
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain(TOOL);
        const result = await client.callTool({ name: TOOL, arguments: {} });
        expect(result).toMatchObject({ content: [{ type: "text", text: TOOL_TEXT }] });
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        throw new Error(`${message}\nmcp-remote's stderr:\n${remote.stderr()}\npage: ${page.url()}`);
      }
      // The connected app names itself on the channel's page of connected apps.
      const apps = await api(`/api/channels/${body.channel.id}/connected-apps`, { token: body.ownerKey });
      expect(apps.body.connectedApps.length).toBe(1);
    } finally {
      await client?.close();
      await ownProvider?.close();
      await browser.close();
    }
  }, 120_000);
});
