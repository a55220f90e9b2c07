// The Worker ↔ ChannelRelay contract (src/protocol/relay-contract.ts): what each `x-webmcp-*` header may
// carry, that the Worker's encoding is what the object reads, that a client cannot smuggle contract headers
// through the Worker, and that a malformed header reaching the object is a logged 500, not a guess.
import { env, runInDurableObject, SELF } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  RELAY_HEADER,
  RELAY_HEADER_NAMES,
  RelayContractError,
  readRelayRequest,
  relayRequestHeaders,
  type RelayRequest,
} from "../../src/protocol/index.js";
import type { ChannelRelay } from "../../src/worker/channel-relay.js";
import { api } from "./helpers.js";
import { HUB, createChannel, newPairingCode, pair } from "./relay-helpers.js";

const HASH = "ab".repeat(32);
const CONFIG = { channelId: "contract-channel", strictNames: false };
const ATTACHMENT = {
  providerId: "p-1",
  tokenId: "t-1",
  kind: "tab" as const,
  label: "shop.example",
  origin: "https://shop.example",
  connectedAt: 1_700_000_000_000,
  pairedFromPage: true,
};
const AGENT = { agentTokenId: "a-1", agentLabel: "my agent", tokenHash: HASH };

afterEach(() => {
  vi.restoreAllMocks();
});

describe("the relay contract's headers", () => {
  const requests: RelayRequest[] = [
    { kind: "agent-hash", tokenHash: HASH },
    { kind: "provider", config: CONFIG, provider: ATTACHMENT },
    {
      kind: "provider",
      config: CONFIG,
      provider: { ...ATTACHMENT, via: "extension", pairedFromPage: false },
    },
    { kind: "agent", config: { ...CONFIG, strictNames: true }, agent: AGENT },
  ];
  for (const request of requests) {
    it(`reads back what the Worker writes (${request.kind})`, () => {
      expect(readRelayRequest(relayRequestHeaders(new Headers(), request))).toEqual(request);
    });
  }

  it("strips every contract header a client sent and keeps the rest", () => {
    const client = new Headers({ "content-type": "application/json", "mcp-session-id": "s-1" });
    for (const name of RELAY_HEADER_NAMES) client.set(name, "from the client");
    const headers = relayRequestHeaders(client, { kind: "agent", config: CONFIG, agent: AGENT });
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("mcp-session-id")).toBe("s-1");
    expect(headers.get(RELAY_HEADER.provider)).toBeNull();
    expect(headers.get(RELAY_HEADER.agentHash)).toBeNull();
    expect(headers.get(RELAY_HEADER.reauth)).toBeNull();
    expect(readRelayRequest(headers)).toEqual({ kind: "agent", config: CONFIG, agent: AGENT });
  });

  const malformed: Array<[string, Record<string, string>, string]> = [
    [
      "a channel header that is not JSON",
      { [RELAY_HEADER.channel]: "{", [RELAY_HEADER.agent]: JSON.stringify(AGENT) },
      RELAY_HEADER.channel,
    ],
    [
      "a channel config without strictNames",
      {
        [RELAY_HEADER.channel]: JSON.stringify({ channelId: "c" }),
        [RELAY_HEADER.agent]: JSON.stringify(AGENT),
      },
      RELAY_HEADER.channel,
    ],
    [
      "a channel config with a field the contract does not have",
      {
        [RELAY_HEADER.channel]: JSON.stringify({ ...CONFIG, extra: 1 }),
        [RELAY_HEADER.agent]: JSON.stringify(AGENT),
      },
      RELAY_HEADER.channel,
    ],
    ["no channel header", { [RELAY_HEADER.agent]: JSON.stringify(AGENT) }, RELAY_HEADER.channel],
    ["a channel header alone", { [RELAY_HEADER.channel]: JSON.stringify(CONFIG) }, RELAY_HEADER.channel],
    [
      "a provider of an unknown kind",
      {
        [RELAY_HEADER.channel]: JSON.stringify(CONFIG),
        [RELAY_HEADER.provider]: JSON.stringify({ ...ATTACHMENT, kind: "robot" }),
      },
      RELAY_HEADER.provider,
    ],
    [
      "a provider without a token id",
      {
        [RELAY_HEADER.channel]: JSON.stringify(CONFIG),
        [RELAY_HEADER.provider]: JSON.stringify({ ...ATTACHMENT, tokenId: undefined }),
      },
      RELAY_HEADER.provider,
    ],
    [
      "an agent whose token hash is not a sha256",
      {
        [RELAY_HEADER.channel]: JSON.stringify(CONFIG),
        [RELAY_HEADER.agent]: JSON.stringify({ ...AGENT, tokenHash: "" }),
      },
      RELAY_HEADER.agent,
    ],
    [
      "both a provider and an agent",
      {
        [RELAY_HEADER.channel]: JSON.stringify(CONFIG),
        [RELAY_HEADER.provider]: JSON.stringify(ATTACHMENT),
        [RELAY_HEADER.agent]: JSON.stringify(AGENT),
      },
      RELAY_HEADER.provider,
    ],
    ["an agent hash that is not a sha256", { [RELAY_HEADER.agentHash]: "0" }, RELAY_HEADER.agentHash],
  ];
  for (const [what, headers, header] of malformed) {
    it(`refuses ${what}, naming ${header}`, () => {
      let error: unknown;
      try {
        readRelayRequest(new Headers(headers));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(RelayContractError);
      expect((error as RelayContractError).header).toBe(header);
      expect((error as RelayContractError).message).toContain(header);
    });
  }
});

describe("the object's fetch", () => {
  it("answers a malformed header from the Worker with 500 and logs which header and why", async () => {
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName("contract-malformed"));
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await runInDurableObject(stub, (relay: ChannelRelay) =>
      relay.fetch(
        new Request("https://relay.internal/mcp", {
          method: "POST",
          headers: {
            [RELAY_HEADER.channel]: JSON.stringify(CONFIG),
            [RELAY_HEADER.agent]: JSON.stringify({ agentTokenId: "a-1", agentLabel: "x" }),
          },
          body: "{}",
        }),
      ),
    );
    expect(res.status).toBe(500);
    expect(await res.json()).toMatchObject({ error: { code: "internal_error" } });
    const lines = logged.mock.calls.map((args) => args.map(String).join(" "));
    expect(lines.some((l) => l.includes(RELAY_HEADER.agent) && l.includes("tokenHash"))).toBe(true);
  });

  it("answers a request that carries no contract at all with 500 too", async () => {
    const stub = env.CHANNEL.get(env.CHANNEL.idFromName("contract-none"));
    vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await stub.fetch("https://relay.internal/relay", { headers: { upgrade: "websocket" } });
    expect(res.status).toBe(500);
  });
});

describe("through the Worker", () => {
  it("a provider's upgrade that carries contract headers of its own still connects as what its token says", async () => {
    const ch = await createChannel();
    const paired = await pair(await newPairingCode(ch), "sidecar", undefined, "real-label");
    const { providerToken } = (await paired.json()) as { providerToken: string };
    const res = await SELF.fetch(`${HUB}/relay/${ch.id}`, {
      headers: {
        upgrade: "websocket",
        "sec-websocket-protocol": `webmcp-hub.v1, ${providerToken}`,
        // Forged: had the Worker passed the hash on, the object would have taken this for an MCP request.
        [RELAY_HEADER.agentHash]: HASH,
        [RELAY_HEADER.channel]: JSON.stringify({ channelId: ch.id, strictNames: true }),
        [RELAY_HEADER.provider]: JSON.stringify({ ...ATTACHMENT, label: "forged" }),
      },
    });
    expect(res.status).toBe(101);
    const ws = res.webSocket!;
    ws.accept();
    const first = await new Promise<string>((resolve) =>
      ws.addEventListener("message", (e) => resolve(String(e.data)), { once: true }),
    );
    expect(JSON.parse(first)).toMatchObject({ type: "welcome", channelId: ch.id });
    const view = await api(`/api/channels/${ch.id}`, { headers: { authorization: `Bearer ${ch.ownerKey}` } });
    const { channel, providers } = (await view.json()) as {
      channel: { strictNames: boolean };
      providers: Array<{ label: string }>;
    };
    expect(channel.strictNames).toBe(false);
    expect(providers.map((p) => p.label)).toEqual(["real-label"]);
    ws.close(1000, "bye");
  });
});
