// The scale bench's providers, in a process of their own (so they do not share the agents' event loop): one
// WebSocket per channel speaking the provider frames as a paired tab of a registered site would (the site's
// Origin on the socket, `hello` kind "tab", the site's tools), not a browser. Each call's first string
// argument says what to answer: "<outcome>:<delayMs>:<n>" — ok, error (an isError result whose message is
// error n of a few), or denied (the user declined: `denied: true`) — after delayMs, so the harness knows every
// call's outcome in advance and the hub's durations have a realistic spread.
// argv[2]: a JSON file of [{relayUrl, providerToken, origin, tools}]. Prints {"connected": n} once every socket
// is welcomed and has sent its tools; reconnects a dropped socket; stops on SIGTERM.
import { readFileSync } from "node:fs";
import WebSocket from "ws";

const SUBPROTOCOL = "webmcp-hub.v1";
const specs = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ERRORS = [
  "Out of stock.",
  "The product id is unknown.",
  "The shop is closed for maintenance; try again later.",
];
let stopped = false;
let reconnects = 0;

function answer(socket, frame) {
  const first = Object.values(frame.arguments ?? {}).find((v) => typeof v === "string") ?? "ok:0:0";
  const [outcome, delay, n] = first.split(":");
  const send = () => {
    if (socket.readyState !== WebSocket.OPEN) return;
    const result =
      outcome === "ok"
        ? { content: [{ type: "text", text: "done" }] }
        : {
            isError: true,
            content: [{ type: "text", text: outcome === "denied" ? "The user declined." : ERRORS[n % 3] }],
          };
    socket.send(
      JSON.stringify({ type: "result", id: frame.id, result, ...(outcome === "denied" && { denied: true }) }),
    );
  };
  const ms = Number(delay) || 0;
  if (ms > 0) setTimeout(send, ms);
  else send();
}

function connect(spec) {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(spec.relayUrl, [SUBPROTOCOL, spec.providerToken], {
      perMessageDeflate: false,
      headers: { origin: spec.origin },
    });
    let welcomed = false;
    socket.on("message", (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === "welcome") {
        welcomed = true;
        socket.send(
          JSON.stringify({
            type: "hello",
            kind: "tab",
            label: new URL(spec.origin).host,
            page: { url: `${spec.origin}/shop.html`, title: "Bench shop" },
            version: "bench-scale",
          }),
        );
        socket.send(JSON.stringify({ type: "tools", tools: spec.tools }));
        resolve(socket);
      } else if (frame.type === "call") answer(socket, frame);
    });
    socket.on("error", (e) => {
      if (!welcomed) reject(e);
    });
    socket.on("close", () => {
      if (!welcomed) return reject(new Error("closed before welcome"));
      if (stopped) return;
      reconnects++;
      setTimeout(() => connect(spec).catch(() => {}), 200);
    });
  });
}

let connected = 0;
const queue = [...specs];
await Promise.all(
  Array.from({ length: 16 }, async () => {
    for (let spec = queue.shift(); spec; spec = queue.shift()) {
      for (let attempt = 0; ; attempt++) {
        try {
          await connect(spec);
          break;
        } catch (e) {
          if (attempt > 5) throw e;
          await new Promise((r) => setTimeout(r, 250 * (attempt + 1)));
        }
      }
      connected++;
    }
  }),
);
console.log(JSON.stringify({ connected }));
setInterval(() => console.error(JSON.stringify({ reconnects })), 30_000).unref();
process.on("SIGTERM", () => {
  stopped = true;
  process.exit(0);
});
