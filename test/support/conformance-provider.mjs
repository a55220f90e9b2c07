// A Node relay provider (kind "sidecar", over `ws`) that serves the MCP conformance suite's fixture tools
// through a channel, so `scripts/conformance.mjs` can run the official suite against the channel's MCP
// endpoint (2025-11-25 tools, and 2026-07-28's: the tasks extension's greet, slow_compute, failing_job,
// confirm_delete, and test_trigger_tool_change; protocol_error_job on a second provider that it crashes);
// `connectRelayProvider` is the plain provider, which bench/relay also uses for its echo tool.
// Plain .mjs so scripts and benches run it with Node 20 and no build step. The frames are those of
// src/protocol/frames.ts (ARCHITECTURE.md "Relay frames"); every hub frame is checked here before use.
import WebSocket from "ws";

export const RELAY_SUBPROTOCOL = "webmcp-hub.v1";
const VERSION = "conformance-0.1";

/** 1×1 red PNG (RGB, 8 bit). */
export const RED_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
/** A 1 ms WAV: RIFF PCM, 8 kHz, mono, 8 bit, eight samples of silence. */
export const SILENT_WAV = "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const NO_ARGUMENTS = { type: "object", properties: {}, additionalProperties: false };
const READ_ONLY = { readOnlyHint: true };
const NOT_READ_ONLY = { readOnlyHint: false };

function fixture(name, description) {
  return { name, description, inputSchema: NO_ARGUMENTS, annotations: READ_ONLY };
}

const text = (value) => ({ content: [{ type: "text", text: value }] });

/** The tools the conformance scenarios call, described as each scenario's description says. */
export const CONFORMANCE_TOOLS = [
  fixture("test_simple_text", "Returns one text block (conformance: tools-call-simple-text)."),
  fixture("test_image_content", "Returns a 1x1 red PNG as image content (conformance: tools-call-image)."),
  fixture("test_audio_content", "Returns a tiny WAV as audio content (conformance: tools-call-audio)."),
  fixture(
    "test_embedded_resource",
    "Returns an embedded text resource (conformance: tools-call-embedded-resource).",
  ),
  fixture(
    "test_multiple_content_types",
    "Returns text, an image and an embedded resource (conformance: tools-call-mixed-content).",
  ),
  fixture("test_error_handling", "Always fails with an isError result (conformance: tools-call-error)."),
  fixture(
    "test_tool_with_progress",
    "Reports progress 0, 50 and 100 of 100, 50 ms apart (conformance: tools-call-with-progress).",
  ),
  fixture(
    "test_tool_with_logging",
    "Sends three info log messages 50 ms apart while it runs (conformance: tools-call-with-logging).",
  ),
  fixture(
    "test_logging_tool",
    "Sends info log messages while it runs (conformance 2026-07-28: server-stateless, no log without a logLevel).",
  ),
  {
    name: "json_schema_2020_12_tool",
    description: "Tool with JSON Schema 2020-12 features",
    // The 2026-07-28 suite's schema (a superset of 2025-11-25's): every 2020-12 keyword must reach agents.
    inputSchema: {
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      $defs: {
        address: {
          $anchor: "addressDef",
          type: "object",
          properties: { street: { type: "string" }, city: { type: "string" } },
        },
      },
      properties: {
        name: { type: "string" },
        address: { $ref: "#/$defs/address" },
        contactMethod: { type: "string", enum: ["phone", "email"] },
        phone: { type: "string" },
        email: { type: "string" },
      },
      allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
      if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
      then: { required: ["phone"] },
      else: { required: ["email"] },
      additionalProperties: false,
    },
    annotations: READ_ONLY,
  },
  // The tasks extension's fixtures (2026-07-28 tasks-* scenarios). A call to a tool that is not read-only
  // runs as a task when the request declares io.modelcontextprotocol/tasks (the channel's tasks policy);
  // a read-only one, or any call without the extension, runs inline.
  {
    name: "greet",
    description: "Answers Hello, {name}! at once; read-only, so always inline (conformance: tasks-*).",
    inputSchema: {
      type: "object",
      properties: { name: { type: "string", maxLength: 200 } },
      required: ["name"],
      additionalProperties: false,
    },
    annotations: READ_ONLY,
  },
  {
    name: "slow_compute",
    description:
      "Works for `seconds` seconds (progress each second), then answers; cancellable. Not read-only, so a task for a client that declares the tasks extension (conformance: tasks-*).",
    inputSchema: {
      type: "object",
      properties: {
        seconds: { type: "number", minimum: 0, maximum: 300 },
        label: { type: "string", maxLength: 200 },
      },
      required: ["seconds"],
      additionalProperties: false,
    },
    annotations: NOT_READ_ONLY,
  },
  {
    name: "failing_job",
    description:
      "Works for about a second, then answers with a tool execution error (isError); a task with the extension (conformance: tasks-*).",
    inputSchema: NO_ARGUMENTS,
    annotations: NOT_READ_ONLY,
  },
  {
    name: "confirm_delete",
    description:
      "Deletes nothing and answers that {filename} was deleted. A channel's tasks never ask the client for input (confirmation happens in the provider: a tab's approval dialog), so its task goes from working to completed (conformance: tasks-dispatch-and-envelope).",
    inputSchema: {
      type: "object",
      properties: { filename: { type: "string", maxLength: 200 } },
      required: ["filename"],
      additionalProperties: false,
    },
    annotations: NOT_READ_ONLY,
  },
  {
    name: "test_trigger_tool_change",
    description:
      "Changes the tool list (this tool's description counts the changes) by sending the provider's tools again, so listeners get notifications/tools/list_changed (conformance 2026-07-28: server-stateless).",
    inputSchema: NO_ARGUMENTS,
    annotations: NOT_READ_ONLY,
  },
];

/**
 * Served by a second provider (startCrashProvider): `protocol_error_job` makes that provider drop its
 * socket mid-call, as a crashed sidecar would. The call then has no tool result at all (the hub settles
 * it as disconnected), which a task reports as failed with a JSON-RPC error (conformance: tasks-lifecycle).
 */
export const CRASH_TOOLS = [
  {
    name: "protocol_error_job",
    description:
      "Its provider drops the connection mid-call, like a crash: no tool result, so the task fails with a protocol error (conformance: tasks-lifecycle).",
    inputSchema: NO_ARGUMENTS,
    annotations: NOT_READ_ONLY,
  },
];

/**
 * The main provider's tools after `changes` calls to test_trigger_tool_change: the same tools, that one's
 * description saying how often the list changed (a change agents can see, so the hub sends list_changed).
 */
export function conformanceTools(changes = 0) {
  if (changes === 0) return CONFORMANCE_TOOLS;
  return CONFORMANCE_TOOLS.map((t) =>
    t.name === "test_trigger_tool_change"
      ? { ...t, description: `${t.description} Changed ${changes} time(s).` }
      : t,
  );
}

/** Waits `ms`, or rejects with the signal's reason once the call is cancelled. */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Handlers by tool name: `(args, call) => CallToolResult`, where `call` has `signal`,
 * `progress(progress, total?, message?)`, `log(level, data, logger?)`, `sendTools(tools)` (a new `tools`
 * frame) and `dropConnection()` (the socket is terminated, as by a crash). `stepMs` is the gap between
 * progress and log steps (the scenarios ask for ~50 ms); `state.changes` counts test_trigger_tool_change's
 * calls (serve `conformanceTools(state.changes)` so a reconnection sends the list as it is now).
 */
export function conformanceHandlers({ stepMs = 50, state = { changes: 0 } } = {}) {
  return {
    test_simple_text: () => text("This is a simple text response for testing."),
    test_image_content: () => ({ content: [{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }] }),
    test_audio_content: () => ({ content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }] }),
    test_embedded_resource: () => ({
      content: [
        {
          type: "resource",
          resource: {
            uri: "test://embedded-resource",
            mimeType: "text/plain",
            text: "This is an embedded resource content.",
          },
        },
      ],
    }),
    test_multiple_content_types: () => ({
      content: [
        { type: "text", text: "Multiple content types test:" },
        { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
        {
          type: "resource",
          resource: {
            uri: "test://mixed-content-resource",
            mimeType: "application/json",
            text: JSON.stringify({ test: "data", value: 123 }),
          },
        },
      ],
    }),
    test_error_handling: () => ({
      isError: true,
      content: [{ type: "text", text: "This tool intentionally returns an error for testing" }],
    }),
    test_tool_with_progress: async (_args, call) => {
      call.progress(0, 100);
      await pause(stepMs, call.signal);
      call.progress(50, 100);
      await pause(stepMs, call.signal);
      call.progress(100, 100);
      return text("Progress test completed: reported 0, 50 and 100 of 100.");
    },
    test_tool_with_logging: async (_args, call) => {
      call.log("info", "Tool execution started");
      await pause(stepMs, call.signal);
      call.log("info", "Tool processing data");
      await pause(stepMs, call.signal);
      call.log("info", "Tool execution completed");
      return text("Logging test completed: sent three info messages.");
    },
    test_logging_tool: async (_args, call) => {
      call.log("info", "Tool execution started");
      await pause(stepMs, call.signal);
      call.log("info", "Tool execution completed");
      return text("Logging test completed.");
    },
    json_schema_2020_12_tool: (args) => text(`Received ${JSON.stringify(args)}`),
    greet: (args) => text(`Hello, ${args.name}!`),
    slow_compute: async (args, call) => {
      const seconds = args.seconds;
      const whole = Math.floor(seconds);
      for (let s = 0; s < whole; s++) {
        call.progress(s, seconds);
        await pause(1000, call.signal);
      }
      await pause(Math.round((seconds - whole) * 1000), call.signal);
      call.progress(seconds, seconds);
      return text(`Computed${args.label ? ` ${args.label}` : ""} in ${seconds} s.`);
    },
    failing_job: async (_args, call) => {
      await pause(1000, call.signal);
      return { isError: true, content: [{ type: "text", text: "failing_job failed, as it always does." }] };
    },
    confirm_delete: (args) => text(`Deleted ${args.filename} (a conformance fixture: nothing was deleted).`),
    test_trigger_tool_change: (_args, call) => {
      state.changes++;
      // Sent before the result: the hub takes the new list (and notifies listeners) before the call ends.
      call.sendTools(conformanceTools(state.changes));
      return text(`The tool list changed (${state.changes} time(s)).`);
    },
  };
}

/** `protocol_error_job`: the provider's socket is dropped mid-call, as if the process crashed. */
export function crashHandlers() {
  return {
    protocol_error_job: (_args, call) => {
      call.dropConnection();
      // Settled by the socket's close, which aborts the calls in flight (no result is sent).
      return new Promise((_resolve, reject) =>
        call.signal.addEventListener("abort", () => reject(call.signal.reason), { once: true }),
      );
    },
  };
}

/** An HTTP error from the hub's REST API, with its `{error: {code, message}}` when it sent one. */
export class HubApiError extends Error {
  constructor(what, status, body) {
    const detail = body?.error ? `${body.error.code}: ${body.error.message}` : JSON.stringify(body);
    super(`${what} failed with HTTP ${status} (${detail})`);
    this.name = "HubApiError";
    this.status = status;
    this.body = body;
  }
}

async function postJson(url, body, what) {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new HubApiError(what, res.status, json);
  return json;
}

/** `POST /api/channels {name}` → `{channel:{id}, ownerKey, agentToken, mcpUrl, mcpCapabilityUrl, pairingCode}`. */
export function createChannel(hubUrl, name) {
  return postJson(`${hubUrl}/api/channels`, { name }, "Creating a channel");
}

/** `POST /api/pair {code, kind: "sidecar", label}` → `{channelId, providerToken, relayUrl}`. */
export function pairSidecar(hubUrl, code, label) {
  return postJson(`${hubUrl}/api/pair`, { code, kind: "sidecar", label }, "Pairing");
}

/** The channel as its owner sees it (`GET /api/channels/:id`): live providers and exposed tools. */
export async function channelSnapshot(hubUrl, channelId, ownerKey) {
  const res = await fetch(`${hubUrl}/api/channels/${channelId}`, {
    headers: { authorization: `Bearer ${ownerKey}` },
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new HubApiError("Reading the channel", res.status, json);
  return json;
}

/** Resolves once every name in `names` is among the channel's exposed tools (the hub has taken the list). */
export async function waitForTools(hubUrl, channelId, ownerKey, names, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  let seen = [];
  for (;;) {
    const snapshot = await channelSnapshot(hubUrl, channelId, ownerKey);
    seen = (snapshot.tools ?? []).map((t) => t.name);
    if (names.every((n) => seen.includes(n))) return snapshot;
    if (Date.now() > deadline) {
      throw new Error(
        `The channel did not list ${names.filter((n) => !seen.includes(n)).join(", ")} within ${timeoutMs} ms (it lists: ${seen.join(", ") || "nothing"}).`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

const LEVELS = new Set(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

/** Narrows one hub frame (JSON text) to what this provider acts on, or says why it is not one. */
export function parseHubFrame(data) {
  let frame;
  try {
    frame = JSON.parse(String(data));
  } catch {
    return { error: "not JSON" };
  }
  if (typeof frame !== "object" || frame === null) return { error: "not an object" };
  const str = (v) => typeof v === "string" && v.length > 0;
  switch (frame.type) {
    case "welcome":
      return str(frame.providerId) && str(frame.channelId) ? { frame } : { error: "welcome without ids" };
    case "call":
      return str(frame.id) &&
        str(frame.name) &&
        typeof frame.arguments === "object" &&
        frame.arguments !== null &&
        Number.isInteger(frame.timeoutMs)
        ? { frame }
        : { error: "call without id, name, arguments or timeoutMs" };
    case "cancel":
      return str(frame.id) ? { frame } : { error: "cancel without id" };
    case "error":
      return { frame };
    default:
      return { error: `unknown frame type ${JSON.stringify(frame.type)}` };
  }
}

/**
 * Connects to `relayUrl` with the provider token, waits for `welcome`, sends `hello` and `tools`, and
 * answers `call` frames with `handlers[name](args, call)`. `tools` is a list, or a function giving the list
 * to send at each (re)connection. A handler that throws becomes an isError
 * result; a `cancel` frame aborts the call's signal (and no result is sent). Resolves with
 * `{ providerId, channelId, socket, errors, inFlight, closed, close() }` once welcomed.
 */
export function connectRelayProvider({
  relayUrl,
  providerToken,
  label,
  tools,
  handlers,
  version = VERSION,
  onHubError = () => {},
  connectTimeoutMs = 10_000,
  errors = [],
}) {
  const socket = new WebSocket(relayUrl, [RELAY_SUBPROTOCOL, providerToken], {
    perMessageDeflate: false,
  });
  const send = (frame) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
  };
  const inFlight = new Map();
  let resolveClosed;
  const closed = new Promise((r) => (resolveClosed = r));

  async function run(call) {
    const controller = new AbortController();
    inFlight.set(call.id, controller);
    const context = {
      id: call.id,
      signal: controller.signal,
      progress: (progress, total, message) =>
        send({
          type: "progress",
          id: call.id,
          progress,
          ...(total !== undefined ? { total } : {}),
          ...(message ? { message } : {}),
        }),
      log: (level, data, logger) => {
        if (!LEVELS.has(level)) throw new Error(`unknown log level ${level}`);
        send({ type: "log", id: call.id, level, ...(logger ? { logger } : {}), data });
      },
      sendTools: (next) => send({ type: "tools", tools: next }),
      dropConnection: () => socket.terminate(),
    };
    let result;
    try {
      const handler = handlers[call.name];
      result = handler
        ? await handler(call.arguments, context)
        : {
            isError: true,
            content: [{ type: "text", text: `This provider has no tool named ${call.name}.` }],
          };
    } catch (e) {
      if (controller.signal.aborted) return; // cancelled: the hub has already answered the agent
      result = {
        isError: true,
        content: [{ type: "text", text: e instanceof Error ? e.message : String(e) }],
      };
    } finally {
      inFlight.delete(call.id);
    }
    if (!controller.signal.aborted) send({ type: "result", id: call.id, result });
  }

  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`No welcome frame from ${relayUrl} within ${connectTimeoutMs} ms.`));
    }, connectTimeoutMs);
    socket.on("unexpected-response", (_req, res) => {
      clearTimeout(timer);
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () =>
        reject(
          new Error(`The relay refused the WebSocket upgrade: HTTP ${res.statusCode} ${body.slice(0, 300)}`),
        ),
      );
    });
    socket.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
    socket.on("close", (code, reason) => {
      clearTimeout(timer);
      for (const controller of inFlight.values()) controller.abort(new Error("socket closed"));
      resolveClosed({ code, reason: String(reason) });
      reject(new Error(`The relay closed the socket before welcoming (${code} ${reason}).`));
    });
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      const parsed = parseHubFrame(data);
      if (parsed.error) {
        errors.push({ code: "bad_hub_frame", message: parsed.error });
        return;
      }
      const frame = parsed.frame;
      switch (frame.type) {
        case "welcome":
          clearTimeout(timer);
          send({ type: "hello", kind: "sidecar", label, version });
          send({ type: "tools", tools: typeof tools === "function" ? tools() : tools });
          resolve({
            providerId: frame.providerId,
            channelId: frame.channelId,
            socket,
            errors,
            inFlight,
            closed,
            close: async () => {
              if (socket.readyState === WebSocket.CLOSED) return;
              socket.close(1000, "bye");
              await Promise.race([closed, new Promise((r) => setTimeout(r, 2000))]);
              if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
            },
          });
          return;
        case "call":
          void run(frame);
          return;
        case "cancel":
          inFlight.get(frame.id)?.abort(new Error(frame.reason || "cancelled"));
          return;
        case "error":
          errors.push(frame);
          onHubError(frame);
          return;
      }
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Like `connectRelayProvider`, and reconnects (same token, backoff from 100 ms to 2 s) whenever the hub
 * drops the socket, as a sidecar does: `wrangler dev` restarts the Durable Object when the source changes.
 * `close()` stops for good. `reconnects` counts the reconnections.
 */
export async function keepRelayProvider(options) {
  const errors = [];
  let current = await connectRelayProvider({ ...options, errors });
  let stopped = false;
  let reconnects = 0;
  const loop = (async () => {
    while (!stopped) {
      await current.closed;
      for (let delay = 100; !stopped; delay = Math.min(delay * 2, 2000)) {
        await sleep(delay);
        if (stopped) return;
        try {
          current = await connectRelayProvider({ ...options, errors });
          reconnects++;
          options.onReconnect?.(current);
          break;
        } catch {
          // the hub is still restarting: try again
        }
      }
    }
  })();
  return {
    get providerId() {
      return current.providerId;
    },
    get channelId() {
      return current.channelId;
    },
    get reconnects() {
      return reconnects;
    },
    errors,
    close: async () => {
      stopped = true;
      await current.close();
      await loop;
    },
  };
}

/**
 * Pairs a sidecar provider to a channel with `pairingCode` and serves the conformance fixtures, staying
 * connected until `close()`. `hubUrl` is like `http://127.0.0.1:8787`.
 */
export async function startConformanceProvider({ hubUrl, pairingCode, label = "conformance", stepMs }) {
  const paired = await pairSidecar(hubUrl, pairingCode, label);
  const state = { changes: 0 };
  const provider = await keepRelayProvider({
    relayUrl: paired.relayUrl,
    providerToken: paired.providerToken,
    label,
    tools: () => conformanceTools(state.changes),
    handlers: conformanceHandlers({ stepMs, state }),
  });
  return Object.assign(provider, { paired });
}

/** `POST /api/channels/:id/pairing-codes` as the owner → `{pairingCode, expiresAt}`. */
export async function createPairingCode(hubUrl, channelId, ownerKey) {
  const res = await fetch(`${hubUrl}/api/channels/${channelId}/pairing-codes`, {
    method: "POST",
    headers: { authorization: `Bearer ${ownerKey}` },
  });
  const json = await res.json().catch(() => null);
  if (!res.ok) throw new HubApiError("Creating a pairing code", res.status, json);
  return json;
}

/**
 * A second sidecar on the channel serving CRASH_TOOLS: a call to `protocol_error_job` drops its socket
 * (it reconnects at once, as a restarted sidecar would). Its own provider, so the crash cuts no other call.
 */
export async function startCrashProvider({ hubUrl, pairingCode, label = "conformance-crash" }) {
  const paired = await pairSidecar(hubUrl, pairingCode, label);
  const provider = await keepRelayProvider({
    relayUrl: paired.relayUrl,
    providerToken: paired.providerToken,
    label,
    tools: CRASH_TOOLS,
    handlers: crashHandlers(),
  });
  return Object.assign(provider, { paired });
}
