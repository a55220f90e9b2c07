// The relay's floor: the least any MCP relay on Workers + Durable Objects pays in
// this runtime, served by the relay bench's Worker (bench/relay/worker.mjs routes /floor/ here) under the same
// `wrangler dev` as the real relay, so bench/relay/floor.mjs can compare the two in one run. No auth, no
// sessions, no validation, no audit, no SDK:
//   POST /floor/mcp/:name       the Worker answers the handshake itself (`initialize` for 2025-11-25,
//                               `server/discover` for 2026-07-28), `ping`, notifications (202) and `tools/list`
//                               (the provider's list, from the object); each `tools/call` goes to the object by
//                               one RPC, which writes one `call` frame to the provider and resolves with the
//                               `result` frame's result, sent back as one JSON response
//   GET  /floor/provider/:name  the provider's WebSocket (subprotocol webmcp-hub.v1, the relay frames of
//                               src/protocol: welcome → hello, tools; call → result), accepted with the
//                               Hibernation API as ChannelRelay does
// Anything else a client sends (GET for a stream, DELETE) is 405, which MCP clients take as "not offered".
// Plain JS because tsconfig.node.json typechecks bench/ for Node, without the Workers types.
import { DurableObject } from "cloudflare:workers";

const SUBPROTOCOL = "webmcp-hub.v1";
const MODERN = "2026-07-28";
const LEGACY = ["2025-11-25", "2025-06-18", "2025-03-26"];
const SERVER_INFO = { name: "webmcp-hub-floor", version: "0.0.0" };
const CALL_TIMEOUT_MS = 60_000;

/** One provider socket, the calls waiting for its `result` frames, nothing stored. */
export class FloorRelay extends DurableObject {
  pending = new Map();
  seq = 0;

  fetch(request) {
    if (request.headers.get("upgrade") !== "websocket") return new Response(null, { status: 404 });
    for (const old of this.ctx.getWebSockets()) old.close(1000, "replaced");
    const [client, server] = Object.values(new WebSocketPair());
    this.ctx.acceptWebSocket(server);
    server.serializeAttachment({ tools: [] });
    server.send(JSON.stringify({ type: "welcome", providerId: "floor", channelId: "floor" }));
    return new Response(null, {
      status: 101,
      webSocket: client,
      headers: { "sec-websocket-protocol": SUBPROTOCOL },
    });
  }

  /** The provider's tools, as its last `tools` frame listed them. */
  tools() {
    return this.ctx.getWebSockets()[0]?.deserializeAttachment()?.tools ?? [];
  }

  /** One `call` frame out, its `result` frame's result back (null without a provider). */
  call(name, args) {
    const ws = this.ctx.getWebSockets()[0];
    if (!ws) return null;
    const id = String(++this.seq);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ isError: true, content: [{ type: "text", text: "The provider did not answer." }] });
      }, CALL_TIMEOUT_MS);
      this.pending.set(id, (result) => {
        clearTimeout(timer);
        resolve(result);
      });
      ws.send(JSON.stringify({ type: "call", id, name, arguments: args, timeoutMs: CALL_TIMEOUT_MS }));
    });
  }

  webSocketMessage(ws, data) {
    const frame = JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data));
    if (frame.type === "result") {
      const settle = this.pending.get(frame.id);
      this.pending.delete(frame.id);
      settle?.(frame.result);
    } else if (frame.type === "tools") {
      ws.serializeAttachment({ tools: frame.tools });
    }
  }

  webSocketClose(ws, code) {
    ws.close(code === 1005 ? 1000 : code, "bye");
  }
}

const json = (body, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

/** The floor's routes (/floor/mcp/:name, /floor/provider/:name). */
export async function floorFetch(request, env) {
  const [, , kind, name = "floor"] = new URL(request.url).pathname.split("/");
  const relay = env.FLOOR.get(env.FLOOR.idFromName(name));
  if (kind === "provider") return relay.fetch(request);
  if (kind !== "mcp") return new Response(null, { status: 404 });
  if (request.method !== "POST") return new Response(null, { status: 405, headers: { allow: "POST" } });

  const message = await request.json();
  if (message.id === undefined) return new Response(null, { status: 202 });
  const modern = request.headers.get("mcp-protocol-version") === MODERN;
  const reply = (result) =>
    json({ jsonrpc: "2.0", id: message.id, result: modern ? { ...result, resultType: "complete" } : result });
  switch (message.method) {
    case "tools/call": {
      const { name: tool, arguments: args = {} } = message.params;
      const result = await relay.call(tool, args);
      if (result === null) {
        return json({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: "No provider." } });
      }
      return reply(result);
    }
    case "initialize": {
      const asked = message.params?.protocolVersion;
      return reply({
        protocolVersion: LEGACY.includes(asked) ? asked : LEGACY[0],
        capabilities: { tools: {} },
        serverInfo: SERVER_INFO,
      });
    }
    case "server/discover":
      return reply({
        supportedVersions: [MODERN, ...LEGACY],
        capabilities: { tools: {} },
        _meta: { "io.modelcontextprotocol/serverInfo": SERVER_INFO },
      });
    case "ping":
      return reply({});
    case "tools/list":
      // 2026-07-28 list results say how long they may be cached: not at all, tools come and go.
      return reply({ tools: await relay.tools(), ...(modern ? { ttlMs: 0, cacheScope: "private" } : {}) });
    default:
      return json({
        jsonrpc: "2.0",
        id: message.id,
        error: { code: -32601, message: `Method not found: ${message.method}` },
      });
  }
}
