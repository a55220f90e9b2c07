// The relay bench's provider: a Node WebSocket provider (paired as a sidecar) serving `echo`, in its own
// process so it does not share the bench client's event loop. `echo_timed` answers the same and adds, in
// the result's `_meta`, when the call frame arrived and when the result left (wall-clock ms, sub-ms
// precision), so the bench can split a call's time into its legs. Reads {relayUrl, providerToken} as JSON
// from argv[2]; prints `{"providerId": …}` once welcomed; reconnects if dropped; stops on SIGTERM.
import { keepRelayProvider } from "../../test/support/conformance-provider.mjs";
import { wallMs } from "./load.mjs";

const ECHO_SCHEMA = {
  type: "object",
  properties: { text: { type: "string" } },
  required: ["text"],
  additionalProperties: false,
};

export const ECHO_TOOLS = [
  {
    name: "echo",
    description: "Echoes its text.",
    inputSchema: ECHO_SCHEMA,
    annotations: { readOnlyHint: true },
  },
  {
    name: "echo_timed",
    description: "Echoes its text; _meta says when the call arrived and when the result left.",
    inputSchema: ECHO_SCHEMA,
    annotations: { readOnlyHint: true },
  },
];

const handlers = {
  echo: ({ text }) => ({ content: [{ type: "text", text }] }),
  echo_timed: ({ text }) => {
    const arrived = wallMs();
    return {
      content: [{ type: "text", text }],
      _meta: { "bench/arrivedAt": arrived, "bench/sentAt": wallMs() },
    };
  },
};

if (process.argv[2]) {
  const { relayUrl, providerToken } = JSON.parse(process.argv[2]);
  // Reconnects, as a sidecar does, when the hub drops the socket (a Durable Object reset under load).
  const provider = await keepRelayProvider({
    relayUrl,
    providerToken,
    label: "bench",
    tools: ECHO_TOOLS,
    handlers,
    onReconnect: () => console.error("reconnected to the relay"),
  });
  console.log(JSON.stringify({ providerId: provider.providerId }));
  process.on("SIGTERM", async () => {
    await provider.close();
    process.exit(0);
  });
}
