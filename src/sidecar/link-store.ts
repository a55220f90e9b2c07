// Where `webmcp-hub pair` keeps what it needs to reconnect without a new pairing code: the hub, channel,
// relay URL, provider token and roots, in ~/.config/webmcp-hub/sidecar.json (or $XDG_CONFIG_HOME, or
// %APPDATA% on Windows), written atomically with mode 0600 in a 0700 directory: the token is a secret.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";
import { z } from "zod";

export const StoredLinkSchema = z.object({
  hub: z.url(),
  channelId: z.string().min(1),
  relayUrl: z.url(),
  providerToken: z.string().startsWith("whr_"),
  label: z.string().min(1).max(64),
  /** `--root` specs as given at pairing (resolved to absolute paths), used when `pair` runs without --root. */
  roots: z.array(z.string().min(1)),
  pairedAt: z.string(),
});
export type StoredLink = z.infer<typeof StoredLinkSchema>;

const StoreSchema = z.object({ version: z.literal(1), links: z.array(StoredLinkSchema) });
type Store = z.infer<typeof StoreSchema>;

export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    process.platform === "win32"
      ? (env.APPDATA ?? path.join(homedir(), "AppData", "Roaming"))
      : env.XDG_CONFIG_HOME || path.join(homedir(), ".config");
  return path.join(base, "webmcp-hub", "sidecar.json");
}

/** A hub URL as stored and compared: its origin plus any path, without a trailing slash. */
export function normalizeHubUrl(hub: string): string {
  const url = new URL(hub);
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

export class LinkStoreError extends Error {
  override readonly name = "LinkStoreError";
}

function readStore(file: string): Store {
  if (!existsSync(file)) return { version: 1, links: [] };
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new LinkStoreError(
      `${file} is not valid JSON (${e instanceof Error ? e.message : e}); delete it and pair again.`,
    );
  }
  const parsed = StoreSchema.safeParse(json);
  if (!parsed.success)
    throw new LinkStoreError(`${file} is not a webmcp-hub sidecar file; delete it and pair again.`);
  return parsed.data;
}

/** The stored link for `hub`, or the only one when `hub` is omitted; undefined when none fits. */
export function findLink(file: string, hub: string | undefined): StoredLink | undefined {
  const { links } = readStore(file);
  if (hub === undefined) return links.length === 1 ? links[0] : undefined;
  const wanted = normalizeHubUrl(hub);
  return links.find((l) => l.hub === wanted);
}

export function listLinks(file: string): StoredLink[] {
  return readStore(file).links;
}

/** Saves `link`, replacing an earlier one for the same hub. */
export function saveLink(file: string, link: StoredLink): void {
  const store = readStore(file);
  const links = store.links.filter((l) => l.hub !== link.hub);
  links.push(link);
  const dir = path.dirname(file);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify({ version: 1, links }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600); // in case the file existed with a wider mode or the umask narrowed nothing
  renameSync(temp, file);
}
