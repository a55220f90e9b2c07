// The marketplace tools added to this channel (channels/added-tools.ts stores them), as pseudo-providers
// the tool catalog names alongside the live ones: one per site, kind "registry", grouped with the tabs of the
// site's origin so that a tab offering the same tool wins (naming.ts routes a group's tool to its most
// recently active member; a registry entry is never active) and the entry comes back when the tab leaves.
//
// Read from D1 by the object itself, cached ADDED_TTL_MS like the published manifests (verification.ts), at
// most one read at a time; re-read at once when the owner changes the set through REST (the route calls the
// object), so agents hear list_changed then; a site delisted or unverified since drops out at the next read.
// D1 failing: the last set read is kept (none: nothing listed), retried after the TTL.
//
// A call to an added tool no tab offers ends at once with an isError naming the page to open (channel-relay.ts
// notOpenText), audited `disconnected`. Opening that page on demand through the paired extension
// (page-opener.ts) replaces that answer, not the listing.
import type { LiveTool } from "../../protocol/index.js";
import { readAddedTools, toolPage, unlistedReason } from "../channels/added-tools.js";
import type { ProviderState } from "./naming.js";

export const ADDED_TTL_MS = 60_000;

export class AddedToolListing {
  private current: ProviderState[] = [];
  private signature = "[]";
  private at = Number.NEGATIVE_INFINITY;
  private loading: Promise<boolean> | null = null;

  constructor(
    private readonly db: D1Database,
    private readonly channelId: () => string | null,
    private readonly now: () => number = Date.now,
  ) {}

  /** The added tools as the catalog names them (as last read). */
  providers(): ProviderState[] {
    return this.current;
  }

  /** Reads the set again if older than the TTL (`fresh`: now); true when it changed. Never throws. */
  async refresh({ fresh = false }: { fresh?: boolean } = {}): Promise<boolean> {
    if (this.loading) {
      const changed = await this.loading;
      if (!fresh) return changed;
    }
    if (!fresh && this.now() - this.at < ADDED_TTL_MS) return false;
    const channelId = this.channelId();
    if (!channelId) return false;
    this.loading = this.read(channelId).finally(() => {
      this.loading = null;
    });
    return this.loading;
  }

  private async read(channelId: string): Promise<boolean> {
    try {
      const rows = await readAddedTools(this.db, channelId);
      this.at = this.now();
      const bySite = new Map<string, ProviderState>();
      for (const row of rows) {
        if (unlistedReason(row) || !row.definition) continue;
        let p = bySite.get(row.host);
        if (!p) {
          p = {
            id: `registry:${row.host}`,
            tokenId: `registry:${row.host}`,
            kind: "registry",
            label: row.host,
            origin: row.origin,
            page: null,
            // Last in its group for labels, never the most recently active: a live tab always leads.
            connectedAt: Number.MAX_SAFE_INTEGER,
            lastActiveAt: Number.NEGATIVE_INFINITY,
            tools: [],
            registry: { site: row.host, version: row.version ?? 0, pages: {} },
          };
          bySite.set(row.host, p);
        }
        const { pages: _pages, ...definition } = row.definition;
        p.tools.push(definition satisfies LiveTool);
        p.registry!.pages[row.name] = toolPage(row.origin, row.definition);
      }
      const next = [...bySite.values()];
      const signature = JSON.stringify(next);
      const changed = signature !== this.signature;
      this.current = next;
      this.signature = signature;
      return changed;
    } catch (e) {
      this.at = this.now();
      console.warn(`channel ${channelId}: reading its added marketplace tools failed (${String(e)})`);
      return false;
    }
  }
}
