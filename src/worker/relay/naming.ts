// Tool names as a channel's agents see them. A tool keeps its own name while it is unique in the channel;
// when providers collide, every colliding tool becomes `<label>__<name>`, so no provider silently captures
// another's calls. Tabs of one origin are one provider group: their same-named tools are one tool, routed
// to the most recently active tab.
import {
  LIMITS,
  META_PROVIDER,
  META_VERIFICATION,
  shortHash,
  toStrictToolName,
  type LiveTool,
  type ToolDescriptor,
} from "../../protocol/index.js";

export interface ProviderState {
  id: string;
  tokenId: string;
  /** "registry": a site's marketplace tools added to the channel (added-tool-listing.ts), no live connection. */
  kind: "tab" | "sidecar" | "registry";
  /** Origin host for a tab, the paired label for a sidecar. */
  label: string;
  origin: string | null;
  /** From the tab's `hello`; `url` is null unless it is an http(s) URL on the tab's own origin. */
  page: { url: string | null; title: string } | null;
  connectedAt: number;
  lastActiveAt: number;
  /** Orders activity within one millisecond (memory only: the store counts each hello, tools frame and answer). */
  activeOrder?: number;
  tools: LiveTool[];
  /** A registry entry's site, manifest version and each tool's page (absolute URL; null: none published). */
  registry?: { site: string; version: number; pages: Record<string, string | null> };
}

export interface ExposedTool {
  /** The name agents call. */
  name: string;
  /** The name the provider registered. */
  originalName: string;
  /** The descriptor agents see (name replaced, provenance in _meta). */
  descriptor: ToolDescriptor & { _meta: Record<string, unknown> };
  /** Providers able to serve it, most recently active first. */
  providerIds: string[];
  group: string;
  label: string;
  origin: string | null;
  readOnly: boolean;
  /** Set when no tab offers the tool and it is listed from the channel's added marketplace tools. */
  registry?: { site: string; version: number; page: string | null };
}

function groupKey(p: ProviderState): string {
  // A site's added marketplace tools group with the tabs of its origin: a tab's same-named tool leads.
  return p.kind === "sidecar" ? `sidecar:${p.tokenId}` : `tab:${p.origin}`;
}

function sanitizeLabel(label: string, strict: boolean): string {
  const cleaned = label.replace(strict ? /[^A-Za-z0-9_-]/g : /[^A-Za-z0-9_.-]/g, "_").slice(0, 40);
  return cleaned || "provider";
}

function fitName(name: string, strict: boolean): string {
  const max = strict ? LIMITS.strictToolNameMax : LIMITS.toolNameMax;
  if (strict) return toStrictToolName(name, max);
  return name.length <= max ? name : `${name.slice(0, max - 9)}_${shortHash(name)}`;
}

export function exposeTools(providers: ProviderState[], strict: boolean): Map<string, ExposedTool> {
  // Group providers; order groups by when they first connected so labels and suffixes are stable.
  const groups = new Map<string, ProviderState[]>();
  for (const p of [...providers].sort((a, b) => a.connectedAt - b.connectedAt || a.id.localeCompare(b.id))) {
    const key = groupKey(p);
    const list = groups.get(key) ?? [];
    list.push(p);
    groups.set(key, list);
  }
  const labels = new Map<string, string>();
  const usedLabels = new Map<string, number>();
  for (const [key, members] of groups) {
    const base = sanitizeLabel(members[0]!.label, strict);
    const n = (usedLabels.get(base) ?? 0) + 1;
    usedLabels.set(base, n);
    labels.set(key, n === 1 ? base : `${base}-${n}`);
  }

  // Per group: each tool name → its providers, most recently active first.
  type Offer = { group: string; originalName: string; baseName: string; providers: ProviderState[] };
  const offersByBase = new Map<string, Offer[]>();
  for (const [key, members] of groups) {
    const byName = new Map<string, ProviderState[]>();
    for (const p of members) for (const t of p.tools) byName.set(t.name, [...(byName.get(t.name) ?? []), p]);
    for (const [originalName, ps] of byName) {
      ps.sort(
        (a, b) =>
          b.lastActiveAt - a.lastActiveAt ||
          (b.activeOrder ?? 0) - (a.activeOrder ?? 0) ||
          b.connectedAt - a.connectedAt,
      );
      const baseName = strict ? toStrictToolName(originalName) : originalName;
      const offer: Offer = { group: key, originalName, baseName, providers: ps };
      offersByBase.set(baseName, [...(offersByBase.get(baseName) ?? []), offer]);
    }
  }

  const exposed = new Map<string, ExposedTool>();
  for (const [baseName, offers] of offersByBase) {
    const collides = offers.length > 1;
    for (const offer of offers) {
      const label = labels.get(offer.group)!;
      let name = fitName(collides ? `${label}__${baseName}` : baseName, strict);
      // A prefixed name could still equal another tool's own name; keep every exposed name unique.
      for (let n = 2; exposed.has(name); n++) name = fitName(`${label}-${n}__${baseName}`, strict);
      const lead = offer.providers[0]!;
      const { frameOrigin, ...source } = lead.tools.find((t) => t.name === offer.originalName)!;
      const registry = lead.kind === "registry" ? lead.registry : undefined;
      exposed.set(name, {
        name,
        originalName: offer.originalName,
        descriptor: {
          ...source,
          name,
          _meta: registry
            ? {
                // The site's published definition itself: verified by construction.
                [META_PROVIDER]: { kind: "registry", origin: lead.origin, site: registry.site, live: false },
                [META_VERIFICATION]: { status: "verified", site: registry.site, version: registry.version },
              }
            : {
                [META_PROVIDER]: {
                  kind: lead.kind,
                  label: lead.label,
                  origin: lead.origin,
                  originalName: offer.originalName,
                  providerId: lead.id,
                  ...(frameOrigin && { frameOrigin }),
                },
              },
        },
        providerIds: offer.providers.filter((p) => p.kind !== "registry").map((p) => p.id),
        group: offer.group,
        label: lead.label,
        origin: lead.origin,
        readOnly: source.annotations?.readOnlyHint === true,
        ...(registry && {
          registry: {
            site: registry.site,
            version: registry.version,
            page: registry.pages[offer.originalName] ?? null,
          },
        }),
      });
    }
  }
  return new Map([...exposed.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
