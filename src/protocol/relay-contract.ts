// The contract between the Worker and a channel's ChannelRelay Durable Object. The Worker authenticates every
// request at the edge and tells the object who it is in `x-webmcp-*` headers; the object reads them once, in
// its `fetch`, with these schemas. The Worker strips every one of these names from what a client sends, so a
// header that does not parse is the Worker's bug (the object answers 500 and logs which header and why), never
// the client's. Both ends encode and decode here, so the two cannot drift apart.
import * as z from "zod";
import { ProviderKindSchema } from "./frames.js";
import { VerificationPolicySchema } from "./verification.js";

/** The contract's header names. `reauth` goes the other way: the object's answer to the Worker. */
export const RELAY_HEADER = {
  /** ChannelConfig (JSON): the channel's settings the object needs, sent with every authenticated request. */
  channel: "x-webmcp-channel",
  /** ProviderAttachment (JSON): a provider's WebSocket upgrade, its token checked. */
  provider: "x-webmcp-provider",
  /** AgentContext (JSON): an MCP request whose agent the Worker authenticated in full. */
  agent: "x-webmcp-agent",
  /** sha256 (hex) of an MCP request's agent token, sent alone first: the object answers if it can vouch for it. */
  agentHash: "x-webmcp-agent-hash",
  /** Set on the object's answer when a session cannot vouch for a request: the Worker checks it in full. */
  reauth: "x-webmcp-reauth",
} as const;

/** Every contract header, as the Worker strips them from a client's request before forwarding it. */
export const RELAY_HEADER_NAMES: readonly string[] = Object.values(RELAY_HEADER);

const Sha256HexSchema = z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in lower-case hex");
const IdSchema = z.string().min(1).max(128);

export const ChannelConfigSchema = z
  .object({
    channelId: IdSchema,
    /** Tool names restricted to [A-Za-z0-9_-]{1,64} (the channel's setting). */
    strictNames: z.boolean(),
    /** What agents may call by verification (the channel's setting; absent: "all"). */
    verificationPolicy: VerificationPolicySchema.optional(),
  })
  .strict();
export type ChannelConfig = z.infer<typeof ChannelConfigSchema>;

/** Who a connecting provider is (after its token was checked); kept on its socket across hibernation. */
export const ProviderAttachmentSchema = z
  .object({
    providerId: IdSchema,
    tokenId: IdSchema,
    kind: ProviderKindSchema,
    label: z.string(),
    origin: z.string().nullable(),
    connectedAt: z.number().int().nonnegative(),
    /** Whether the token's pairing request came from a browser page (null: not recorded, older tokens). */
    pairedFromPage: z.boolean().nullable().optional(),
    /** "extension": a tab the browser extension relays (its token's socket for that tab's origin). */
    via: z.literal("extension").optional(),
    /** "control": the extension's control socket (control-frames.ts), not a provider: it offers no tools. */
    role: z.literal("control").optional(),
  })
  .strict();
export type ProviderAttachment = z.infer<typeof ProviderAttachmentSchema>;

/** The agent of an MCP request the Worker authenticated in full. */
export const AgentContextSchema = z
  .object({
    /** The agent token's id, or `oauth:<grantId>` for an OAuth client. */
    agentTokenId: IdSchema,
    /** The name approval dialogs show for the agent. */
    agentLabel: z.string(),
    /** sha256 of the token the agent presented: later requests of its session carry only this. */
    tokenHash: Sha256HexSchema,
  })
  .strict();
export type AgentContext = z.infer<typeof AgentContextSchema>;

/** One request from the Worker to the object, by what it carries. */
export type RelayRequest =
  | { kind: "provider"; config: ChannelConfig; provider: ProviderAttachment }
  | { kind: "agent"; config: ChannelConfig; agent: AgentContext }
  /**
   * An MCP request with its agent token's sha256 only: the object answers it if it can vouch for that token
   * (a session opened with it, or a token the Worker verified lately), else sets `reauth` on its answer.
   */
  | { kind: "agent-hash"; tokenHash: string };

/** A contract header missing or malformed: the Worker sent something this contract does not allow. */
export class RelayContractError extends Error {
  constructor(
    readonly header: string,
    detail: string,
  ) {
    super(`relay contract: ${header} ${detail}`);
    this.name = "RelayContractError";
  }
}

/** Reads the contract off a forwarded request; throws RelayContractError if any header is malformed. */
export function readRelayRequest(headers: Headers): RelayRequest {
  const tokenHash = headers.get(RELAY_HEADER.agentHash);
  if (tokenHash !== null)
    return { kind: "agent-hash", tokenHash: parse(RELAY_HEADER.agentHash, Sha256HexSchema, tokenHash) };
  const channel = headers.get(RELAY_HEADER.channel);
  if (channel === null) throw new RelayContractError(RELAY_HEADER.channel, "is missing");
  const config = parseJson(RELAY_HEADER.channel, ChannelConfigSchema, channel);
  const provider = headers.get(RELAY_HEADER.provider);
  const agent = headers.get(RELAY_HEADER.agent);
  if (provider !== null && agent !== null)
    throw new RelayContractError(RELAY_HEADER.provider, `and ${RELAY_HEADER.agent} are both set`);
  if (provider !== null)
    return {
      kind: "provider",
      config,
      provider: parseJson(RELAY_HEADER.provider, ProviderAttachmentSchema, provider),
    };
  if (agent !== null)
    return { kind: "agent", config, agent: parseJson(RELAY_HEADER.agent, AgentContextSchema, agent) };
  throw new RelayContractError(
    RELAY_HEADER.channel,
    `comes with neither ${RELAY_HEADER.provider} nor ${RELAY_HEADER.agent}`,
  );
}

/**
 * The headers of a request the Worker forwards to the object: `from` (the client's), without any contract
 * header the client sent, plus the contract's headers for `request`.
 */
export function relayRequestHeaders(from: Headers, request: RelayRequest): Headers {
  const headers = new Headers(from);
  for (const name of RELAY_HEADER_NAMES) headers.delete(name);
  switch (request.kind) {
    case "agent-hash":
      headers.set(RELAY_HEADER.agentHash, request.tokenHash);
      break;
    case "provider":
      headers.set(RELAY_HEADER.channel, JSON.stringify(request.config));
      headers.set(RELAY_HEADER.provider, JSON.stringify(request.provider));
      break;
    case "agent":
      headers.set(RELAY_HEADER.channel, JSON.stringify(request.config));
      headers.set(RELAY_HEADER.agent, JSON.stringify(request.agent));
      break;
  }
  return headers;
}

function parseJson<T>(header: string, schema: z.ZodType<T>, text: string): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RelayContractError(header, "is not JSON");
  }
  return parse(header, schema, json);
}

function parse<T>(header: string, schema: z.ZodType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new RelayContractError(
    header,
    `does not match the contract: ${issue ? `${issue.path.join(".") || "(value)"}: ${issue.message}` : "invalid"}`,
  );
}
