// The REST answers about a channel's connected OAuth apps (src/worker/oauth/connected-apps.ts), as types the
// Worker returns and the console's client module (web/client/channel/connected-apps.ts) reads.

/** One grant the channel's owning account gave an OAuth client for this channel. */
export interface ConnectedAppView {
  /** DELETE /api/channels/:id/connected-apps/:grantId revokes it and ends its MCP sessions. */
  grantId: string;
  /** A DCR client's id, or a CIMD client's https URL. */
  clientId: string;
  /** The client's name when access was granted (what audit rows and approval dialogs call it). */
  clientName: string;
  grantedAt: string;
  /** Last MCP request with this grant's token (minute resolution); null: not used yet. */
  lastUsedAt: string | null;
  /** When the grant ends unless renewed by authorizing again; null: no expiry. */
  expiresAt: string | null;
}

/** GET /api/channels/:id/connected-apps */
export interface ConnectedAppsResponse {
  connectedApps: ConnectedAppView[];
}

/** DELETE /api/channels/:id/connected-apps/:grantId */
export interface RevokedConnectedApp {
  revoked: string;
  /** MCP sessions of that app the channel ended at once. */
  closedSessions: number;
}
