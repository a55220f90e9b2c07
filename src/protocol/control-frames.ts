// The browser extension's control socket ("Open on demand"): one WebSocket per paired browser,
// beside its per-tab sockets, over which the channel asks the extension to open a page so that a marketplace
// tool added to the channel can run when no tab offers it.
//
// It connects to `/relay/:channelId?control=1` with the extension's provider token (subprotocols
// `webmcp-hub.v1, whr_…`, as a tab socket) and offers no tools. The hub welcomes it (WelcomeFrame), answers
// pings (PING_FRAME_TEXT) like a tab socket's, and sends `open` / `open-cancel`; the extension answers each
// `open` exactly once, with `opened` or `open-failed`. Only an extension token may open one; a channel keeps
// the most recent LIMITS.controlSocketsPerChannel of them (the newest leads: the browser the user used last).
//
// The hub checks the page before it asks (an http(s) URL on the site's own origin, from its published
// manifest); the extension checks it again (the URL's origin must equal `origin`) and asks the user before
// it opens anything, in its own window, naming the agent, the site, the tool and the page. It opens the page
// in a visible new tab, shared with the channel for that tab (as "Allow once") unless the user always shares
// the site, and leaves the tab open for later calls. What runs the call afterwards is the ordinary path: the
// tab registers the tool, its socket sends it, the call frame comes with its usual approval.
import * as z from "zod";
import { LIMITS } from "./limits.js";

const OpenId = z.string().min(1).max(64);
const HttpUrl = z
  .string()
  .max(2048)
  .regex(/^https?:\/\//, "an http(s) URL");
const HttpOrigin = z
  .string()
  .max(2048)
  .regex(/^https?:\/\/[^/?#\s]+$/, "an http(s) origin");

/** The query parameter that makes a relay socket of an extension token its control socket. */
export const CONTROL_QUERY = "control";

// hub → extension

export const OpenFrameSchema = z.object({
  type: z.literal("open"),
  id: OpenId,
  /** The page to open: the tool's published page, on `origin`. */
  url: HttpUrl,
  /** The site's origin (its verified origin in the registry). */
  origin: HttpOrigin,
  /** The site's host in the registry. */
  site: z.string().min(1).max(253),
  /** The tool to run there (its published name) and its title, if it has one. */
  tool: z.string().min(1).max(LIMITS.toolNameMax),
  title: z.string().max(LIMITS.titleMax).optional(),
  /** Whether the tool is read-only (if not, the call itself asks for approval again once the page is open). */
  readOnly: z.boolean(),
  /** Who asks: the agent's name as the owner labelled its token, and what its MCP client calls itself. */
  agent: z.string().min(1).max(128),
  client: z.string().max(LIMITS.clientNameMax).optional(),
  /** How long the hub waits for the user's answer, in ms; after it the hub sends `open-cancel`. */
  timeoutMs: z.number().int().positive().max(LIMITS.callTimeoutMaxMs),
});
export type OpenFrame = z.infer<typeof OpenFrameSchema>;

/** The hub no longer waits for this open (the agent cancelled, or time ran out): withdraw the prompt. */
export const OpenCancelFrameSchema = z.object({
  type: z.literal("open-cancel"),
  id: OpenId,
  reason: z.string().max(512),
});
export type OpenCancelFrame = z.infer<typeof OpenCancelFrameSchema>;

// extension → hub

/** The user allowed it and the page is opening in a new visible tab. */
export const OpenedFrameSchema = z.object({
  type: z.literal("opened"),
  id: OpenId,
});

/**
 * The page was not opened. `declined`: the user said no (or closed the prompt); `blocked`: the user never
 * shares this site in the extension; `invalid`: the extension refused the request itself (the URL is not on
 * the origin, or not http(s)); `failed`: the browser could not open it.
 */
export const OPEN_FAILURES = ["declined", "blocked", "invalid", "failed"] as const;
export const OpenFailedFrameSchema = z.object({
  type: z.literal("open-failed"),
  id: OpenId,
  reason: z.enum(OPEN_FAILURES),
  message: z.string().max(512).optional(),
});
export type OpenFailure = (typeof OPEN_FAILURES)[number];

export const ControlFrameSchema = z.discriminatedUnion("type", [
  OpenedFrameSchema,
  OpenFailedFrameSchema,
  z.object({ type: z.literal("ping") }),
]);
export type ControlFrame = z.infer<typeof ControlFrameSchema>;
