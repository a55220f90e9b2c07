// Types for seed.mjs.
import type { DemoSite } from "./demo-site.mjs";

export interface SeededSite {
  host: string;
  origin: string;
  /** Shown once by the hub; every seed issues a new one and revokes the previous. */
  publisherKey: string;
  version: number;
  toolCount: number;
  /** True when the hub already had this exact manifest as the current version. */
  unchanged: boolean;
}

export function seedDemoSite(options: {
  hubUrl: string;
  demo: Pick<DemoSite, "origin" | "setVerifyToken" | "manifest"> & Partial<Pick<DemoSite, "setHubUrl">>;
}): Promise<SeededSite>;

export interface SeededChannel {
  channelId: string;
  name: string;
  /** Secrets shown once by the hub. */
  ownerKey: string;
  agentToken: string;
  /** `HUB/mcp/:channelId` (send the agent token as a bearer token). */
  mcpUrl: string;
  /** `HUB/mcp/:channelId/k/:agentToken`, for clients that take only a URL. */
  mcpCapabilityUrl: string;
  /** `ABCD-EFGH`, single use, valid 10 minutes. */
  pairingCode: string;
  pairingCodeExpiresAt: string;
}

export function seedChannel(options: { hubUrl: string; name?: string }): Promise<SeededChannel>;

export function newPairingCode(options: {
  hubUrl: string;
  channelId: string;
  ownerKey: string;
}): Promise<string>;

export interface DemoChannel extends SeededChannel {
  /** True when the channel recorded in the state file was reused. */
  reused: boolean;
}

/**
 * The demo channel of `npm start`: the one recorded in `stateFile` if the hub still has it (with a fresh
 * pairing code), else a new one, recorded there.
 */
export function demoChannel(options: {
  hubUrl: string;
  stateFile: string;
  name?: string;
}): Promise<DemoChannel>;
