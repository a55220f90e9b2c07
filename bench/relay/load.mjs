// Closed-loop load for the relay bench: `concurrency` callers share one MCP SDK (v2) client (one session in
// the 2025-11-25 era) and call a tool back to back until the time is up; every call's latency is kept. Also
// the percentile and formatting helpers of the relay bench's table.
import { setMaxListeners } from "node:events";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** Wall-clock milliseconds with sub-millisecond precision, comparable across processes on one machine. */
export const wallMs = () => performance.timeOrigin + performance.now();

export const LEGACY_ERA = "2025-11-25";
export const MODERN_ERA = "2026-07-28";

/**
 * One v2 client connected to `url` in `era`: 2025-11-25 is the legacy `initialize` handshake (the SDK's
 * default, as real clients connect today), 2026-07-28 is pinned (`server/discover`, no session; fails if the
 * server does not offer it).
 */
async function openSession(url, name, era) {
  const client = new Client(
    { name, version: "0.1.0" },
    era === LEGACY_ERA ? {} : { versionNegotiation: { mode: { pin: era } } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: (input, init) => {
      if (init?.signal) setMaxListeners(0, init.signal);
      return fetch(input, init);
    },
  });
  await client.connect(transport);
  const spoken = client.getNegotiatedProtocolVersion();
  if (spoken !== era) throw new Error(`${url} negotiated ${spoken}, not ${era}`);
  return client;
}

/**
 * An MCP SDK (v2) client on Streamable HTTP (`ping`, `callTool`, `close`) speaking `era` (2025-11-25 by
 * default) that, as the spec asks of a 2025 client, opens a new session when the server answers 404
 * "Session not found", and retries the call once in it.
 * `sessions` counts the sessions opened (a relay session can still be lost when wrangler restarts the Worker
 * because a source file changed). Node 20's fetch leaves one listener on the request's AbortSignal per
 * request, and the SDK transport passes one signal to every request: its limit is lifted so thousands of
 * calls do not print MaxListenersExceededWarning.
 */
export async function connectClient(url, name = "bench-agent", { era = LEGACY_ERA } = {}) {
  if (era !== LEGACY_ERA && era !== MODERN_ERA) throw new Error(`unknown era ${era}`);
  let client = await openSession(url, name, era);
  let reopening = null;
  const wrapper = {
    sessions: 1,
    async run(fn) {
      const current = client;
      try {
        return await fn(current);
      } catch (e) {
        if (era !== LEGACY_ERA || !/Session not found/.test(String(e?.message))) throw e;
        if (current === client) {
          reopening ??= openSession(url, name, era).then(
            (next) => {
              client = next;
              wrapper.sessions++;
              reopening = null;
              void current.close().catch(() => {});
            },
            (error) => {
              reopening = null;
              throw error;
            },
          );
        }
        if (reopening) await reopening;
        return fn(client);
      }
    },
    ping: () => wrapper.run((c) => c.ping()),
    callTool: (params) => wrapper.run((c) => c.callTool(params)),
    close: () => client.close(),
  };
  return wrapper;
}

function describeError(e) {
  if (!(e instanceof Error)) return String(e);
  const cause = e.cause instanceof Error ? ` (cause: ${e.cause.message})` : "";
  return `${e.constructor.name}${"code" in e ? ` ${e.code}` : ""}: ${e.message || "(no message)"}${cause}`;
}

/**
 * Runs `call(worker, seq)` from `concurrency` workers until `durationMs` has passed; resolves with the
 * latencies (ms) of the calls that succeeded, the calls per second (successful calls over the whole
 * window) and the failed calls (a call that throws or whose `check` is false), with the first failure's
 * message. Throws if more than `maxFailureShare` of the calls fail: a broken path must not pass as fast.
 */
export async function closedLoop({
  concurrency,
  durationMs,
  call,
  check = () => true,
  maxFailureShare = 0.02,
}) {
  const latencies = [];
  let failures = 0;
  let firstFailure;
  let seq = 0;
  const started = performance.now();
  const deadline = started + durationMs;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, worker) => {
      while (performance.now() < deadline) {
        const n = seq++;
        const t0 = performance.now();
        try {
          const result = await call(worker, n);
          if (check(result, worker, n)) {
            latencies.push(performance.now() - t0);
            continue;
          }
          firstFailure ??= JSON.stringify(result).slice(0, 300);
        } catch (e) {
          firstFailure ??= describeError(e);
        }
        failures++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  if (failures > (latencies.length + failures) * maxFailureShare) {
    throw new Error(`${failures} of ${latencies.length + failures} calls failed; the first: ${firstFailure}`);
  }
  return {
    latencies,
    calls: latencies.length,
    seconds,
    perSecond: latencies.length / seconds,
    failures,
    firstFailure,
  };
}

/** `echo` through an SDK client: the text comes back unchanged. */
export function echoCall(client, tool = "echo") {
  return {
    call: (worker, n) => client.callTool({ name: tool, arguments: { text: `w${worker}-${n}` } }),
    check: (result, worker, n) => !result.isError && result.content?.[0]?.text === `w${worker}-${n}`,
  };
}

/** Nearest-rank percentile of `samples` (p in 0..100). */
export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}

export function median(samples) {
  return percentile(samples, 50);
}

/** Merges runs of one configuration (rounds) into one. */
export function merge(runs) {
  const latencies = runs.flatMap((r) => r.latencies);
  const calls = runs.reduce((a, r) => a + r.calls, 0);
  const seconds = runs.reduce((a, r) => a + r.seconds, 0);
  return {
    latencies,
    calls,
    seconds,
    perSecond: calls / seconds,
    failures: runs.reduce((a, r) => a + r.failures, 0),
    firstFailure: runs.find((r) => r.firstFailure)?.firstFailure,
  };
}

/** Three significant digits, like the registry bench. */
export function fmt(ms) {
  if (ms === undefined || Number.isNaN(ms)) return "–";
  return ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2);
}

export function ratio(a, b) {
  return `${(a / b).toFixed(2)}×`;
}

export function markdownTable(header, rows) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
