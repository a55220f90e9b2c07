// Fuzz: hub → provider frames into the sidecar's hub link (src/sidecar/hub-link.ts), fed by a local `ws`
// server standing in for the relay: near-valid frames from HubFrameSchema (welcome, call with odd names,
// arguments, ids and timeouts, cancel for live and unknown ids, error), raw text, binary and oversized frames.
// The link never throws or sends a frame the protocol does not define, answers each call at most once, and
// after every case (reconnecting if a frame made it drop the socket) still answers a normal call.
import fc from "fast-check";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { HubFrameSchema, LIMITS, ProviderFrameSchema, type ProviderFrame } from "../../src/protocol/index.js";
import { HubLink } from "../../src/sidecar/hub-link.js";
import { resolveRoots } from "../../src/sidecar/roots.js";
import { TOOL_NAME } from "../../src/sidecar/tool.js";
import {
  argumentsArb,
  deepNesting,
  fromZod,
  fuzzRuns,
  hostileValue,
  hugeString,
  jsonText,
  rawBodyText,
} from "../support/fuzz-arbitraries.js";
import { removeDir, tempDir, writeTree } from "./helpers.js";

const RUNS = fuzzRuns(process.env.FUZZ_RUNS, 100);

interface Relay {
  url: string;
  socket: WebSocket | null;
  connections: number;
  frames: ProviderFrame[];
  invalid: string[];
  close(): Promise<void>;
}

async function startRelay(): Promise<Relay> {
  const server: Server = createServer();
  const wss = new WebSocketServer({
    server,
    handleProtocols: (set) => (set.has("webmcp-hub.v1") ? "webmcp-hub.v1" : false),
    maxPayload: 64 * 1024 * 1024,
  });
  const relay: Relay = {
    url: "",
    socket: null,
    connections: 0,
    frames: [],
    invalid: [],
    close: async () => {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      await new Promise((r) => server.close(r));
    },
  };
  wss.on("connection", (ws) => {
    relay.connections++;
    relay.socket = ws;
    ws.on("message", (data) => {
      const text = String(data);
      const parsed = ProviderFrameSchema.safeParse(JSON.parse(text));
      if (parsed.success) relay.frames.push(parsed.data);
      else relay.invalid.push(text.slice(0, 300));
    });
    ws.send(JSON.stringify({ type: "welcome", providerId: `p${relay.connections}`, channelId: "ch" }));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  relay.url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/relay/ch`;
  return relay;
}

async function until<T>(
  what: string,
  probe: () => T | null | undefined | false,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const searchArgsArb = fc.oneof(
  fc.record(
    {
      from: fc.constantFrom("2025-01-01T00:00:00Z", "yesterday", "", "2025-13-40T99:99:99Z"),
      glob: fc.constantFrom("*.md", "**", "[", "{a,b}", ""),
      limit: fc.oneof(fc.integer({ min: -1, max: 600 }), hostileValue),
      sort: fc.constantFrom("newest", "oldest", "sideways"),
      root: fc.constantFrom("docs", "nope", "../.."),
    },
    { requiredKeys: [] },
  ),
  argumentsArb,
);

const frameArb = fromZod(HubFrameSchema, {
  name: fc.oneof({ arbitrary: fc.constant(TOOL_NAME), weight: 4 }, fc.string(), fc.constant("__proto__")),
  arguments: searchArgsArb,
  id: fc.oneof({ arbitrary: fc.constantFrom("c1", "c2", "c3"), weight: 3 }, fc.string({ maxLength: 70 })),
  timeoutMs: fc.oneof(
    { arbitrary: fc.integer({ min: 1, max: 2000 }), weight: 4 },
    fc.constantFrom(0, -1, 1e12),
  ),
});

const wireArb = fc.oneof(
  { arbitrary: frameArb.map((f) => ({ binary: false, text: jsonText(f) })), weight: 10 },
  { arbitrary: rawBodyText.map((t) => ({ binary: false, text: t })), weight: 2 },
  { arbitrary: deepNesting.map((t) => ({ binary: false, text: t.text })), weight: 1 },
  {
    // Past the link's 1 MiB maxPayload: it must drop the socket and reconnect.
    arbitrary: hugeString.map((s) => ({
      binary: false,
      text: jsonText({ type: "error", code: "x", message: s.repeat(16) }),
    })),
    weight: 1,
  },
  {
    arbitrary: fc
      .uint8Array({ maxLength: 32 })
      .map((b) => ({ binary: true, text: Buffer.from(b).toString("latin1") })),
    weight: 1,
  },
);

describe("fuzzing the sidecar's hub link", () => {
  let dir: string;
  let relay: Relay;
  let link: HubLink;
  let running: Promise<void>;
  const logs: string[] = [];

  beforeAll(async () => {
    dir = tempDir();
    writeTree(dir, { "docs/a.md": "2025-06-01T00:00:00Z", "docs/b.txt": "2025-06-02T00:00:00Z" });
    relay = await startRelay();
    link = new HubLink({
      relayUrl: relay.url,
      providerToken: "whr_fuzz",
      label: "fuzz",
      version: "test",
      roots: resolveRoots([`docs=${dir}/docs`]),
      pool: null,
      log: (line) => logs.push(line),
      backoff: { initialMs: 5, maxMs: 20 },
    });
    running = link.run();
    await until("the link's tools frame", () => relay.frames.some((f) => f.type === "tools"));
  });

  afterAll(async () => {
    link?.stop();
    await running;
    await relay?.close();
    if (dir) removeDir(dir);
  });

  it(
    "survives any frame from the hub and still answers a call",
    async () => {
      let probe = 0;
      await fc.assert(
        fc.asyncProperty(fc.array(wireArb, { minLength: 1, maxLength: 4 }), async (wires) => {
          const socket = await until("a relay socket", () => relay.socket);
          const connections = relay.connections;
          let dropped = false;
          for (const w of wires) {
            if (socket.readyState !== socket.OPEN) break;
            socket.send(w.binary ? Buffer.from(w.text, "latin1") : w.text, { binary: w.binary });
            // Past the link's maxPayload (1 MiB), it closes this socket (1009) and dials again.
            if (Buffer.byteLength(w.text) > LIMITS.frameBytes) {
              dropped = true;
              break;
            }
          }
          if (dropped) await until("the link's reconnection", () => relay.connections > connections);
          // A normal call, on whatever socket the link holds now (it reconnects after an oversized frame).
          const id = `probe-${++probe}`;
          const live = await until("the link connected", () =>
            relay.socket?.readyState === relay.socket?.OPEN && link.state === "connected"
              ? relay.socket
              : false,
          );
          live.send(
            JSON.stringify({
              type: "call",
              id,
              name: TOOL_NAME,
              arguments: { root: "docs", timeField: "modified" },
              timeoutMs: 10_000,
            }),
          );
          const result = await until("the probe's result", () =>
            relay.frames.find((f) => f.type === "result" && f.id === id),
          );
          if (result.type === "result" && result.result.isError)
            throw new Error(`the probe failed: ${JSON.stringify(result.result.content)}`);
          // Everything the link sent is a frame the protocol defines, and no call was answered twice.
          expect(relay.invalid).toEqual([]);
          const answered = relay.frames
            .filter((f) => f.type === "result")
            .map((f) => (f as { id: string }).id);
          const probes = answered.filter((a) => a.startsWith("probe-"));
          expect(new Set(probes).size).toBe(probes.length);
        }),
        { numRuns: RUNS },
      );
      expect(link.state).toBe("connected");
    },
    60_000 + RUNS * 300,
  );
});
