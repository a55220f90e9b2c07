// Helpers for relay tests: channels, paired providers on real WebSockets, MCP clients on the channel.
import { SELF } from "cloudflare:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { expect } from "vitest";
import type { CallFrame, HubFrame, ToolDescriptorInput } from "../../src/protocol/index.js";
import { api } from "./helpers.js";

/** The channel MCP endpoint is a localhost server in local mode: use a loopback host. */
export const HUB = "http://127.0.0.1:8787";

export interface TestChannel {
  id: string;
  ownerKey: string;
  agentToken: string;
  agentTokenId: string;
  mcpUrl: string;
  pairingCode: string;
}

export async function createChannel(body: Record<string, unknown> = { name: "test" }): Promise<TestChannel> {
  const res = await SELF.fetch(`${HUB}/api/channels`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(201);
  const json = (await res.json()) as any;
  return {
    id: json.channel.id,
    ownerKey: json.ownerKey,
    agentToken: json.agentToken,
    agentTokenId: json.agentTokenId,
    mcpUrl: json.mcpUrl,
    pairingCode: json.pairingCode,
  };
}

export async function newPairingCode(ch: TestChannel): Promise<string> {
  const res = await api(`/api/channels/${ch.id}/pairing-codes`, {
    method: "POST",
    headers: { authorization: `Bearer ${ch.ownerKey}` },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as any).pairingCode;
}

export async function pair(code: string, kind: "tab" | "sidecar", origin?: string, label?: string) {
  const res = await api("/api/pair", {
    method: "POST",
    json: { code, kind, ...(label ? { label } : {}) },
    headers: origin ? { origin } : {},
  });
  return res;
}

/** A provider on a real WebSocket into the channel's ChannelRelay. */
export class TestProvider {
  readonly frames: HubFrame[] = [];
  private waiters: Array<() => void> = [];
  closed = false;
  handler: ((call: CallFrame, p: TestProvider) => void | Promise<void>) | undefined;

  constructor(
    readonly ws: WebSocket,
    readonly providerToken: string,
  ) {
    ws.addEventListener("message", (e) => {
      const frame = JSON.parse(String(e.data)) as HubFrame;
      this.frames.push(frame);
      if (frame.type === "call" && this.handler) void this.handler(frame, this);
      for (const w of this.waiters.splice(0)) w();
    });
    ws.addEventListener("close", () => {
      this.closed = true;
      for (const w of this.waiters.splice(0)) w();
    });
  }

  send(frame: unknown): void {
    if (this.closed) return;
    try {
      this.ws.send(JSON.stringify(frame));
    } catch {
      this.closed = true; // closed under us: the hub settles the call as disconnected
    }
  }

  async next<T extends HubFrame["type"]>(
    type: T,
    predicate: (f: Extract<HubFrame, { type: T }>) => boolean = () => true,
    timeoutMs = 20_000,
  ): Promise<Extract<HubFrame, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.frames.find(
        (f) => f.type === type && predicate(f as Extract<HubFrame, { type: T }>),
      );
      if (found) {
        this.frames.splice(this.frames.indexOf(found), 1);
        return found as Extract<HubFrame, { type: T }>;
      }
      if (this.closed) throw new Error(`socket closed while waiting for ${type}`);
      if (Date.now() > deadline)
        throw new Error(`no ${type} frame within ${timeoutMs} ms (got ${JSON.stringify(this.frames)})`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Answers calls with `respond(call)` as its result. */
  serve(respond: (call: CallFrame) => unknown): this {
    this.handler = (call) => this.send({ type: "result", id: call.id, result: respond(call) });
    return this;
  }

  /**
   * Returns once the hub has handled every frame sent before: a ping's pong comes after them, in order. The
   * ping is spelled unlike PING_FRAME_TEXT: the runtime answers that exact text itself, at once, ahead of
   * frames still queued for the object (channel-relay.ts, setWebSocketAutoResponse).
   */
  async flush(): Promise<void> {
    if (this.closed) return;
    this.ws.send('{ "type": "ping" }');
    try {
      await this.next("pong");
    } catch (e) {
      // A socket the hub closed meanwhile has nothing more to flush.
      if (!this.closed) throw e;
    }
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.close(1000, "bye");
  }
}

export async function connectProvider(
  ch: TestChannel,
  opts: {
    kind?: "tab" | "sidecar";
    origin?: string;
    label?: string;
    tools?: ToolDescriptorInput[];
    providerToken?: string;
  } = {},
): Promise<TestProvider> {
  const kind = opts.kind ?? "sidecar";
  let token = opts.providerToken;
  if (!token) {
    const res = await pair(await newPairingCode(ch), kind, opts.origin, opts.label);
    expect(res.status).toBe(201);
    token = ((await res.json()) as any).providerToken as string;
  }
  const res = await SELF.fetch(`${HUB}/relay/${ch.id}`, {
    headers: {
      upgrade: "websocket",
      "sec-websocket-protocol": `webmcp-hub.v1, ${token}`,
      ...(opts.origin ? { origin: opts.origin } : {}),
    },
  });
  expect(res.status).toBe(101);
  expect(res.headers.get("sec-websocket-protocol")).toBe("webmcp-hub.v1");
  const ws = res.webSocket!;
  ws.accept();
  const provider = new TestProvider(ws, token);
  await provider.next("welcome");
  provider.send({ type: "hello", kind, label: opts.label ?? "test", version: "test" });
  if (opts.tools) provider.send({ type: "tools", tools: opts.tools });
  // Once the hub has handled hello and tools (stored, or refused with an error frame for the test to see).
  await provider.flush();
  return provider;
}

/**
 * Polls `check` every 20 ms until it holds; fails saying what was awaited after `timeoutMs`. For state that
 * changes asynchronously (a notification, a stored row): the deadline is generous because a loaded machine is
 * slow, and a passing check returns at once.
 */
export async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The protocol revision the 2026 era of the endpoint speaks. */
export const MODERN = "2026-07-28";

/**
 * An SDK v2 client on the channel's MCP endpoint: the 2025 era (`initialize`, a session) by default, or
 * pinned to 2026-07-28 (stateless, `server/discover`) with `era: "modern"`.
 */
export async function connectAgent(
  ch: TestChannel,
  url = `${HUB}/mcp/${ch.id}`,
  token: string | null = ch.agentToken,
  clientInfo: { name: string; version: string; title?: string } = { name: "test-agent", version: "1.0.0" },
  options: {
    era?: "legacy" | "modern";
    capabilities?: Record<string, unknown>;
    /** false: a 2025 client without its GET stream (the hub's answer to it is replaced by 405, which the SDK
     *  client takes as "no stream"), for tests that evict the object: an open stream is a request in flight,
     *  and the runtime evicts no object while one is. */
    getStream?: boolean;
  } = {},
): Promise<Client> {
  const client = new Client(clientInfo, {
    ...(options.era === "modern" ? { versionNegotiation: { mode: { pin: MODERN } } } : {}),
    ...(options.capabilities ? { capabilities: options.capabilities } : {}),
  });
  // A 2025 client opens its GET stream (where list_changed and other notifications outside a call arrive) on
  // its own after initializing; the client is handed over once that stream is answered, so a test never
  // races it.
  let streamAnswered: () => void = () => {};
  const stream = new Promise<void>((resolve) => (streamAnswered = resolve));
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: async (u, init) => {
      const isGet = (init?.method ?? "GET").toUpperCase() === "GET";
      if (isGet && options.getStream === false) {
        streamAnswered();
        return new Response(null, { status: 405 });
      }
      const res = await SELF.fetch(u, init);
      if (isGet) streamAnswered();
      return res;
    },
    ...(token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {}),
  });
  await client.connect(transport);
  if (options.era !== "modern") await stream;
  return client;
}

export function echoTool(name = "echo", extra: Partial<ToolDescriptorInput> = {}): ToolDescriptorInput {
  return {
    name,
    description: `Echoes its text (${name}).`,
    inputSchema: {
      type: "object",
      properties: { text: { type: "string" } },
      required: ["text"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    ...extra,
  };
}
