// Relay frames between a provider (a tab's bridge or the sidecar) and its channel's ChannelRelay.
// JSON text frames; every frame is parsed by these schemas on both ends.
import * as z from "zod";
import { LIMITS } from "./limits.js";
import { CallToolResultSchema, LoggingLevelSchema } from "./results.js";
import { ToolDescriptorSchema } from "./tool.js";
import { ToolVerificationSchema } from "./verification.js";

export const PROVIDER_KINDS = ["tab", "sidecar"] as const;
export const ProviderKindSchema = z.enum(PROVIDER_KINDS);
export type ProviderKind = z.infer<typeof ProviderKindSchema>;

const CallId = z.string().min(1).max(64);

// provider → hub

export const HelloFrameSchema = z.object({
  type: z.literal("hello"),
  kind: ProviderKindSchema,
  label: z.string().min(1).max(64),
  /** The tab's page. Untrusted: the hub keeps `url` only if it is an http(s) URL on the tab's own (paired)
   *  origin, and cuts `title` to LIMITS.pageTitleMax with control and bidi characters removed. */
  page: z.object({ url: z.string().max(2048), title: z.string().max(256) }).optional(),
  version: z.string().max(32),
});

/**
 * A tool as a tab offers it live: a ToolDescriptor, plus, for a tool registered by a document in one of the
 * tab's frames rather than the top-level document, that frame's origin (as the browser reported it to the
 * page's bridge). Informational: the tab's label stays its paired top-level origin; agents see it in `_meta`.
 */
export const LiveToolSchema = ToolDescriptorSchema.extend({
  frameOrigin: z
    .string()
    .max(2048)
    .regex(/^https?:\/\/[^/?#\s]+$/, "an http(s) origin, such as https://widget.example")
    .optional(),
});
export type LiveTool = z.infer<typeof LiveToolSchema>;

export const ToolsFrameSchema = z.object({
  type: z.literal("tools"),
  tools: z
    .array(LiveToolSchema)
    .max(LIMITS.toolsPerProvider, `a provider offers at most ${LIMITS.toolsPerProvider} tools`),
});

export const ResultFrameSchema = z.object({
  type: z.literal("result"),
  id: CallId,
  result: CallToolResultSchema,
  /** Set by a tab when the user declined the call in the approval dialog (audited as `denied`). */
  denied: z.boolean().optional(),
});

export const ProgressFrameSchema = z.object({
  type: z.literal("progress"),
  id: CallId,
  progress: z.number(),
  total: z.number().optional(),
  message: z.string().max(1024).optional(),
});

export const LogFrameSchema = z.object({
  type: z.literal("log"),
  id: CallId.optional(),
  level: LoggingLevelSchema,
  logger: z.string().max(128).optional(),
  data: z.unknown(),
});

/**
 * Keep-alive (the extension's service worker sends it every 20 s on each tab's socket). The hub answers
 * `{"type":"pong"}`; the exact text `{"type":"ping"}` is answered by the Durable Object runtime itself
 * (setWebSocketAutoResponse) without waking a hibernated relay. Not activity: it reorders no tab.
 */
export const PingFrameSchema = z.object({ type: z.literal("ping") });
/** The exact text of a ping the runtime answers without waking the relay. */
export const PING_FRAME_TEXT = '{"type":"ping"}';

export const ProviderFrameSchema = z.discriminatedUnion("type", [
  HelloFrameSchema,
  ToolsFrameSchema,
  ResultFrameSchema,
  ProgressFrameSchema,
  LogFrameSchema,
  PingFrameSchema,
]);
export type ProviderFrame = z.infer<typeof ProviderFrameSchema>;
export type HelloFrame = z.infer<typeof HelloFrameSchema>;
export type ToolsFrame = z.infer<typeof ToolsFrameSchema>;
export type ResultFrame = z.infer<typeof ResultFrameSchema>;

// hub → provider

export const WelcomeFrameSchema = z.object({
  type: z.literal("welcome"),
  providerId: z.string(),
  channelId: z.string(),
});

export const CallFrameSchema = z.object({
  type: z.literal("call"),
  id: CallId,
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  timeoutMs: z.number().int().positive().max(LIMITS.callTimeoutMaxMs),
  /**
   * Present when the user must approve the call first (the tool is not read-only). `agent` is the label the
   * channel's owner gave the agent token (the agent's name in the dialog); `client` is what the MCP client
   * calls itself (clientInfo.title or name), self-declared and unverified, at most LIMITS.clientNameMax.
   */
  approval: z
    .object({
      agent: z.string().min(1).max(128),
      client: z.string().max(LIMITS.clientNameMax).optional(),
      /** The tool's check against its tab's origin's published manifest (absent: not checked). */
      verification: ToolVerificationSchema.optional(),
    })
    .optional(),
});

export const CancelFrameSchema = z.object({
  type: z.literal("cancel"),
  id: CallId,
  reason: z.string().max(512),
});

/** Sent when a provider's frame was refused; the connection stays open. */
export const ErrorFrameSchema = z.object({
  type: z.literal("error"),
  code: z.string(),
  message: z.string(),
  id: z.string().optional(),
});

/** The answer to a ping. */
export const PongFrameSchema = z.object({ type: z.literal("pong") });
/** The exact text of the runtime's (and the relay's) answer to a ping. */
export const PONG_FRAME_TEXT = '{"type":"pong"}';

export const HubFrameSchema = z.discriminatedUnion("type", [
  WelcomeFrameSchema,
  CallFrameSchema,
  CancelFrameSchema,
  ErrorFrameSchema,
  PongFrameSchema,
]);
export type HubFrame = z.infer<typeof HubFrameSchema>;
export type CallFrame = z.infer<typeof CallFrameSchema>;
export type CancelFrame = z.infer<typeof CancelFrameSchema>;
