// The channel's MCP layer (src/worker/mcp/) driven through a fake of the relay's port (relay/channel-port.ts),
// with no relay, provider or Durable Object logic behind it: what the endpoint asks of the port and what it
// makes of the answers, in both protocol eras. Only the object's SQLite is real (sessions and tasks live
// there), taken from a fresh object's storage.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { AgentContext } from "../../src/protocol/index.js";
import { ChannelEndpoint } from "../../src/worker/mcp/channel-endpoint.js";
import { META_TIMEOUT } from "../../src/worker/mcp/channel-server.js";
import type { CallOutcome, CallRequest, ChannelTools } from "../../src/worker/relay/channel-port.js";
import type { ExposedTool } from "../../src/worker/relay/naming.js";
import { MODERN } from "./relay-helpers.js";

const TASKS = { extensions: { "io.modelcontextprotocol/tasks": {} } };

function tool(name: string, readOnly: boolean): ExposedTool {
  return {
    name,
    originalName: name,
    descriptor: {
      name,
      description: `The ${name} tool.`,
      inputSchema: { type: "object", properties: { text: { type: "string" } } },
      ...(readOnly ? { annotations: { readOnlyHint: true } } : {}),
      _meta: {},
    },
    providerIds: ["p1"],
    group: "sidecar:test",
    label: "test",
    origin: null,
    readOnly,
  };
}

/** The port, faked: two tools, every call recorded, answers chosen per tool name. */
class FakePort implements ChannelTools {
  readonly calls: CallRequest[] = [];
  readonly tools = new Map([
    ["zeta.read", tool("zeta.read", true)],
    ["alpha.write", tool("alpha.write", false)],
  ]);
  /** Calls of the write tool wait here until the test opens it. */
  private opened: () => void = () => {};
  private readonly gate = new Promise<void>((resolve) => (this.opened = resolve));
  /** The last call's answer, as the endpoint got it. */
  returned: Promise<CallOutcome> | undefined;

  open(): void {
    this.opened();
  }

  exposedTools() {
    return this.tools;
  }
  async listedTools() {
    return this.tools;
  }
  callTool(req: CallRequest): Promise<CallOutcome> {
    this.calls.push(req);
    this.returned = this.answer(req);
    return this.returned;
  }
  private async answer(req: CallRequest): Promise<CallOutcome> {
    if (!this.tools.has(req.name))
      return {
        unknownTool: true,
        status: "invalid",
        result: {
          isError: true,
          content: [{ type: "text", text: `Unknown tool: ${req.name}. Ask the fake.` }],
        },
      };
    if (req.name === "alpha.write") await this.gate;
    return {
      status: "ok",
      result: {
        content: [{ type: "text", text: `${req.name} by ${req.agentLabel}: ${String(req.arguments.text)}` }],
      },
    };
  }
}

const agent = (id: string): AgentContext => ({
  agentTokenId: id,
  agentLabel: `agent ${id}`,
  // A sha256 in hex, as the Worker sends it: one per agent.
  tokenHash: id.charCodeAt(0).toString(16).padStart(2, "0").repeat(32),
});

function post(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request("https://relay.internal/mcp/ch", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** A 2026-07-28 request, its headers mirroring the body. */
function modern(method: string, params: Record<string, unknown>, capabilities: object = {}, id = 1) {
  const name =
    typeof params.name === "string"
      ? params.name
      : typeof params.taskId === "string"
        ? params.taskId
        : undefined;
  return post(
    {
      jsonrpc: "2.0",
      id,
      method,
      params: {
        ...params,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": MODERN,
          "io.modelcontextprotocol/clientInfo": { name: "port-client", title: "Port Client", version: "1" },
          "io.modelcontextprotocol/clientCapabilities": capabilities,
        },
      },
    },
    { "mcp-protocol-version": MODERN, "mcp-method": method, ...(name ? { "mcp-name": name } : {}) },
  );
}

/** The JSON-RPC message of a response, JSON or one SSE event. */
async function message(response: Response): Promise<Record<string, any>> {
  const text = await response.text();
  const data = response.headers.get("content-type")?.includes("text/event-stream")
    ? text
        .split("\n")
        .filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6))
        .filter((l) => l.trim())
        .at(-1)!
    : text;
  return JSON.parse(data) as Record<string, any>;
}

/** Runs `body` with an endpoint over `port`, on a fresh object's SQLite. */
async function withEndpoint(
  body: (endpoint: ChannelEndpoint, port: FakePort) => Promise<void>,
): Promise<void> {
  const stub = env.CHANNEL.get(env.CHANNEL.newUniqueId());
  await runInDurableObject(stub, async (_instance, state) => {
    const port = new FakePort();
    await body(new ChannelEndpoint(port, state.storage.sql), port);
  });
}

/** Opens a 2025-11-25 session for `who`; returns its id. */
async function initialize(
  endpoint: ChannelEndpoint,
  who: AgentContext,
  clientInfo: { name: string; title?: string; version: string },
): Promise<string> {
  const init = await endpoint.handle(
    post({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo },
    }),
    { agent: who },
  );
  expect(init.status).toBe(200);
  const session = init.headers.get("mcp-session-id");
  expect(session).toBeTruthy();
  await init.text();
  return session!;
}

describe("the MCP layer over a fake channel port", () => {
  it("2025-11-25: a session lists the port's tools in name order and calls through it, as its agent and client", async () => {
    await withEndpoint(async (endpoint, port) => {
      const a = agent("a");
      const session = await initialize(endpoint, a, {
        name: "legacy-client",
        title: "Legacy Client",
        version: "1",
      });
      const headers = { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
      await endpoint.handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers), {
        tokenHash: a.tokenHash,
      });

      const list = await message(
        await endpoint.handle(post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, headers), {
          tokenHash: a.tokenHash,
        }),
      );
      expect(list.result.tools.map((t: { name: string }) => t.name)).toEqual(["alpha.write", "zeta.read"]);

      const call = await message(
        await endpoint.handle(
          post(
            {
              jsonrpc: "2.0",
              id: 2,
              method: "tools/call",
              params: { name: "zeta.read", arguments: { text: "hi" }, _meta: { [META_TIMEOUT]: 1234 } },
            },
            headers,
          ),
          { tokenHash: a.tokenHash },
        ),
      );
      expect(call.result.content[0].text).toBe("zeta.read by agent a: hi");
      expect(port.calls).toHaveLength(1);
      expect(port.calls[0]).toMatchObject({
        name: "zeta.read",
        arguments: { text: "hi" },
        agentTokenId: "a",
        agentLabel: "agent a",
        clientName: "Legacy Client",
        timeoutMs: 1234,
      });

      // The session is its token's: another token's hash is sent back to the Worker for the full check.
      const other = await endpoint.handle(post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, headers), {
        tokenHash: agent("b").tokenHash,
      });
      expect(other.status).toBe(401);
    });
  });

  it("2025-11-25: an unknown tool is the JSON-RPC error -32602 with the port's words", async () => {
    await withEndpoint(async (endpoint) => {
      const a = agent("a");
      const session = await initialize(endpoint, a, { name: "c", version: "1" });
      const reply = await message(
        await endpoint.handle(
          post(
            { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "nope", arguments: {} } },
            { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" },
          ),
          { agent: a },
        ),
      );
      expect(reply.error).toMatchObject({ code: -32602, message: "Unknown tool: nope. Ask the fake." });
    });
  });

  it("2026-07-28: each request's call is made as that request's agent, one after another on reused servers", async () => {
    await withEndpoint(async (endpoint, port) => {
      for (const [i, id] of ["a", "b", "a", "c", "b"].entries()) {
        const reply = await message(
          await endpoint.handle(
            modern("tools/call", { name: "zeta.read", arguments: { text: `n${i}` } }, {}, i),
            {
              agent: agent(id),
            },
          ),
        );
        expect(reply, JSON.stringify(reply)).toHaveProperty("result");
        expect(reply.result.content[0].text).toBe(`zeta.read by agent ${id}: n${i}`);
      }
      expect(port.calls.map((c) => [c.agentTokenId, c.clientName])).toEqual([
        ["a", "Port Client"],
        ["b", "Port Client"],
        ["a", "Port Client"],
        ["c", "Port Client"],
        ["b", "Port Client"],
      ]);
      const list = await message(await endpoint.handle(modern("tools/list", {}), { agent: agent("a") }));
      expect(list.result.tools.map((t: { name: string }) => t.name)).toEqual(["alpha.write", "zeta.read"]);
    });
  });

  it("2026-07-28: a call that waits for approval becomes a task of its agent; its result comes through the port", async () => {
    await withEndpoint(async (endpoint, port) => {
      const created = await message(
        await endpoint.handle(
          modern("tools/call", { name: "alpha.write", arguments: { text: "go" } }, TASKS),
          {
            agent: agent("a"),
          },
        ),
      );
      expect(created.result).toMatchObject({ resultType: "task", status: "working" });
      const taskId = created.result.taskId as string;
      expect(port.calls.map((c) => c.name)).toEqual(["alpha.write"]);

      // Another agent is told the task does not exist, whichever pooled server answers it.
      const foreign = await message(
        await endpoint.handle(modern("tasks/get", { taskId }, TASKS, 2), { agent: agent("b") }),
      );
      expect(foreign.error).toMatchObject({
        code: -32602,
        message: "Failed to retrieve task: Task not found",
      });

      const working = await message(
        await endpoint.handle(modern("tasks/get", { taskId }, TASKS, 3), { agent: agent("a") }),
      );
      expect(working.result.status).toBe("working");
      port.open();
      // The task stores the answer as the port's promise settles (its handler was attached first).
      await port.returned;
      const done = (
        await message(await endpoint.handle(modern("tasks/get", { taskId }, TASKS, 3), { agent: agent("a") }))
      ).result;
      expect(done).toMatchObject({
        status: "completed",
        result: { content: [{ type: "text", text: "alpha.write by agent a: go" }] },
      });

      // Without the extension declared the same tool answers inline (the gate stays open).
      const inline = await endpoint.handle(
        modern("tools/call", { name: "alpha.write", arguments: { text: "now" } }, {}, 4),
        { agent: agent("a") },
      );
      expect((await message(inline)).result.content[0].text).toBe("alpha.write by agent a: now");
      expect(port.calls.map((c) => c.name)).toEqual(["alpha.write", "alpha.write"]);
    });
  });
});
