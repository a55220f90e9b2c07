// The `webmcp-hub` command (bin/webmcp-hub.mjs runs this file's bundle, dist/sidecar/cli.mjs): `sidecar`
// (stdio MCP server), `pair` (the same tool through a channel of a hub) and `publish` (a site manifest).
// Flags are parsed once here; a bad flag exits with status 2 and a sentence saying what to type instead.
// Defaults: a copy downloaded from a hub (/downloads/webmcp-hub-sidecar.tgz) pairs and publishes with that hub
// (its hub.json, which the hub stamps); `pair CODE` without --root shares the folder it runs in, unless that
// folder holds the whole home folder (the filesystem root, home or above), which it refuses.
import { readFileSync, realpathSync } from "node:fs";
import { homedir, hostname } from "node:os";
import path from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import packageJson from "../../package.json";
import { HubLink, HubLinkError, redeemPairingCode } from "./hub-link.js";
import {
  defaultStorePath,
  findLink,
  LinkStoreError,
  listLinks,
  normalizeHubUrl,
  saveLink,
} from "./link-store.js";
import { formatPublishError, publishManifest, PublishError } from "./publish.js";
import { resolveRoots, RootConfigError, type SearchRoot } from "./roots.js";
import { ScanPool } from "./scan-pool.js";
import { DEFAULT_LIMITS, type SearchLimits } from "./search.js";
import { runStdioServer } from "./server.js";

const VERSION: string = packageJson.version;
const USAGE_EXIT = 2;
const FAILURE_EXIT = 1;

/** A mistake on the command line: printed with the command's name, exit status 2. */
class UsageError extends Error {
  override readonly name = "UsageError";
}

const LIMIT_FLAGS = {
  "max-entries": { type: "string" },
  "max-seconds": { type: "string" },
  "max-depth": { type: "string" },
  workers: { type: "string" },
} as const satisfies ParseArgsConfig["options"];

const LIMIT_HELP = `  --max-entries N   stop a scan after examining N entries (default ${DEFAULT_LIMITS.maxEntries.toLocaleString("en-US")})
  --max-seconds S   stop a scan after S seconds (default ${DEFAULT_LIMITS.maxMs / 1000})
  --max-depth N     never descend more than N directory levels (default ${DEFAULT_LIMITS.maxDepth})
  --workers N       scan threads (default: one per core, up to 4; 0 scans on the main thread)`;

const HELP = {
  main: `webmcp-hub ${VERSION} — the webmcp-hub sidecar and publishing tool

Usage:
  webmcp-hub sidecar --root DIR [--root NAME=DIR …]       serve fs.search_by_time over stdio (MCP)
  webmcp-hub pair CODE [--hub URL] [--root DIR …]         serve it to a channel on a hub
  webmcp-hub publish manifest.json --hub URL --site HOST --key KEY
                                                          publish a site manifest

Run "webmcp-hub <command> --help" for a command's flags.`,
  sidecar: `Usage: webmcp-hub sidecar --root DIR [--root NAME=DIR …] [flags]

Serves one MCP tool, fs.search_by_time, over stdin/stdout for a local MCP client (Claude Desktop, any
stdio client). Only MCP messages are written to stdout; notes go to stderr.

  --root [NAME=]DIR  a folder the tool may search (repeatable; the first is the default root). NAME is what
                     agents pass as 'root' (default: the folder's name).
${LIMIT_HELP}
  -h, --help         this help`,
  pair: `Usage: webmcp-hub pair CODE [--hub URL] [--root DIR] [--root NAME=DIR …] [flags]
       webmcp-hub pair [--hub URL] [--root …]     reconnect with the token saved by an earlier pairing

Redeems a pairing code (from the channel's page or POST /api/channels) and serves fs.search_by_time to the
channel's agents through the hub's relay, reconnecting with backoff whenever the connection drops. The
provider token, hub and roots are saved (mode 0600) so the next start needs no new code.

  --hub URL          the hub, like https://hub.example.com${packagedHub() ? ` (default: ${packagedHub()}, where this copy came from)` : ""}
  --root [NAME=]DIR  a folder the tool may search (repeatable). Default with a CODE: the current folder
                     (refused when it is /, your home folder or above it); without: the roots saved at pairing
  --label NAME       how the channel names this sidecar (default: this computer's host name)
  --config FILE      where the token is saved (default: ${defaultStorePath()})
${LIMIT_HELP}
  -h, --help         this help`,
  publish: `Usage: webmcp-hub publish manifest.json [--hub URL] --site HOST --key KEY

Checks the manifest against the hub's schema, then publishes it as the site's new version
(PUT /api/sites/HOST/manifest). Problems are printed one per line with their path in the manifest.

  --hub URL          the hub, like https://hub.example.com${packagedHub() ? ` (default: ${packagedHub()})` : ""}
  --site HOST        the verified site the key belongs to (its host, with :port if any)
  --key KEY          the site's publisher key (whp_…); or set WEBMCP_HUB_PUBLISHER_KEY
  -h, --help         this help`,
};

type Command = keyof typeof HELP;

function parse<T extends NonNullable<ParseArgsConfig["options"]>>(
  command: string,
  argv: string[],
  options: T,
) {
  try {
    return parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    const message = e instanceof Error ? e.message : String(e);
    const flag = /'(-[^' ]*)/.exec(message)?.[1];
    if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      throw new UsageError(
        `unknown flag ${flag ?? message}. Run "webmcp-hub ${command} --help" for the flags.`,
      );
    }
    if (code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE") {
      throw new UsageError(`${flag ?? "a flag"} needs a value. Run "webmcp-hub ${command} --help".`);
    }
    throw new UsageError(message);
  }
}

function positiveInteger(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new UsageError(`--${flag} must be a whole number of at least ${min}, not "${value}".`);
  }
  return n;
}

interface ScanSettings {
  limits: Partial<SearchLimits>;
  pool: ScanPool | null;
}

function scanSettings(values: Record<string, unknown>): ScanSettings {
  const limits: Partial<SearchLimits> = {};
  const maxEntries = positiveInteger("max-entries", values["max-entries"] as string | undefined);
  if (maxEntries !== undefined) limits.maxEntries = maxEntries;
  const seconds = values["max-seconds"] as string | undefined;
  if (seconds !== undefined) {
    const s = Number(seconds);
    if (!Number.isFinite(s) || s <= 0)
      throw new UsageError(`--max-seconds must be a positive number, not "${seconds}".`);
    limits.maxMs = s * 1000;
  }
  const depth = positiveInteger("max-depth", values["max-depth"] as string | undefined, 0);
  if (depth !== undefined) limits.maxDepth = depth;
  const workers = positiveInteger("workers", values.workers as string | undefined, 0);
  const pool =
    workers === 0 ? null : new ScanPool(workers, undefined, (line) => console.error(`webmcp-hub: ${line}`));
  return { limits, pool };
}

function roots(specs: string[], command: string): SearchRoot[] {
  if (specs.length === 0) {
    throw new UsageError(`give at least one folder with --root DIR. Run "webmcp-hub ${command} --help".`);
  }
  try {
    return resolveRoots(specs);
  } catch (e) {
    if (e instanceof RootConfigError) throw new UsageError(e.message);
    throw e;
  }
}

/**
 * The hub this copy was downloaded from: hub.json next to the bundle, stamped by the hub that served the
 * package (scripts/lib/sidecar-package.mjs). Undefined in a checkout, which has no hub.json.
 */
function packagedHub(): string | undefined {
  try {
    const { hub } = JSON.parse(readFileSync(new URL("./hub.json", import.meta.url), "utf8")) as {
      hub?: unknown;
    };
    return typeof hub === "string" && /^https?:\/\/[^/]+$/.test(hub) ? normalizeHubUrl(hub) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * `pair CODE` with no --root: the folder it runs in, realpath'd. Refused when it holds the whole home folder
 * (the filesystem root, the home folder or one of its ancestors): sharing that is never what a bare
 * `npx … pair CODE` should do by accident.
 */
function currentFolderRoot(): string {
  const cwd = realpathSync(process.cwd());
  let home = homedir();
  try {
    home = realpathSync(home);
  } catch {
    // a home folder that does not exist holds nothing to protect; compare with its name as given
  }
  const up = path.relative(cwd, home);
  const holdsHome = up === "" || (up !== ".." && !up.startsWith(`..${path.sep}`) && !path.isAbsolute(up));
  if (holdsHome || path.parse(cwd).root === cwd) {
    throw new UsageError(
      `no --root given, and the current folder ${cwd} holds your whole home folder: run it in the folder to share, or pass --root DIR.`,
    );
  }
  return cwd;
}

function hubUrl(value: string | undefined, command: string): string | undefined {
  if (value === undefined) return packagedHub();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(
      `--hub must be a URL like https://hub.example.com, not "${value}". Run "webmcp-hub ${command} --help".`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`--hub must be an http:// or https:// URL, not "${value}".`);
  }
  return normalizeHubUrl(value);
}

async function sidecar(argv: string[]): Promise<number> {
  const { values, positionals } = parse("sidecar", argv, {
    root: { type: "string", multiple: true },
    ...LIMIT_FLAGS,
  });
  if (values.help) return help("sidecar");
  if (positionals.length > 0) {
    throw new UsageError(`unexpected argument "${positionals[0]}"; folders are given with --root DIR.`);
  }
  // stdout carries MCP messages only: anything a library logs goes to stderr.
  console.log = console.info = console.debug = console.warn = console.error;
  const configured = roots(values.root ?? [], "sidecar");
  const { limits, pool } = scanSettings(values);
  pool?.warm();
  for (const r of configured) console.error(`webmcp-hub sidecar: root "${r.name}" → ${r.realPath}`);
  console.error(`webmcp-hub sidecar: ${scanThreads(pool)}; serving fs.search_by_time on stdio.`);
  try {
    await runStdioServer({ roots: configured, pool, limits, version: VERSION });
  } finally {
    await pool?.close();
  }
  return 0;
}

function scanThreads(pool: ScanPool | null): string {
  return pool?.usable ? `scanning on ${pool.size} worker threads` : "scanning on the main thread";
}

function defaultLabel(): string {
  const name = hostname()
    .replace(/[^A-Za-z0-9_.-]/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return name || "sidecar";
}

async function pair(argv: string[]): Promise<number> {
  const { values, positionals } = parse("pair", argv, {
    hub: { type: "string" },
    root: { type: "string", multiple: true },
    label: { type: "string" },
    config: { type: "string" },
    ...LIMIT_FLAGS,
  });
  if (values.help) return help("pair");
  if (positionals.length > 1)
    throw new UsageError(`expected one pairing code, got "${positionals.join(" ")}".`);
  const store = path.resolve(values.config ?? process.env.WEBMCP_HUB_CONFIG ?? defaultStorePath());
  const hub = hubUrl(values.hub, "pair");
  const code = positionals[0];
  const label = values.label ?? defaultLabel();
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(label)) {
    throw new UsageError(`--label must be 1–64 letters, digits, '_', '-' or '.', not "${label}".`);
  }
  const { limits, pool } = scanSettings(values);
  const log = (line: string) => console.error(`webmcp-hub pair: ${line}`);

  let link;
  if (code !== undefined) {
    if (hub === undefined)
      throw new UsageError(`--hub URL is required with a pairing code. Run "webmcp-hub pair --help".`);
    const configured = roots(values.root ?? [currentFolderRoot()], "pair");
    const paired = await redeemPairingCode(hub, code, label);
    link = {
      hub,
      channelId: paired.channelId,
      relayUrl: paired.relayUrl,
      providerToken: paired.providerToken,
      label: paired.label,
      roots: configured.map((r) => `${r.name}=${r.realPath}`),
      pairedAt: new Date().toISOString(),
    };
    saveLink(store, link);
    log(`paired with channel ${link.channelId} on ${hub}; the provider token is saved in ${store}.`);
  } else {
    link = findLink(store, hub);
    if (!link) {
      const known = listLinks(store).map((l) => l.hub);
      throw new UsageError(
        hub
          ? `no saved pairing for ${hub} in ${store}. Pair first: webmcp-hub pair CODE --hub ${hub} --root DIR.`
          : known.length > 1
            ? `${store} holds pairings for ${known.join(", ")}: choose one with --hub URL.`
            : `no saved pairing in ${store}. Pair first: webmcp-hub pair CODE --hub URL --root DIR.`,
      );
    }
  }
  const configured = roots(values.root ?? link.roots, "pair");
  pool?.warm();
  for (const r of configured) log(`root "${r.name}" → ${r.realPath}`);
  log(scanThreads(pool));
  const hubLink = new HubLink({
    relayUrl: link.relayUrl,
    providerToken: link.providerToken,
    label: link.label,
    version: VERSION,
    roots: configured,
    pool,
    limits,
    log,
  });
  const stop = () => hubLink.stop();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  try {
    await hubLink.run();
  } finally {
    await pool?.close();
  }
  return 0;
}

async function publish(argv: string[]): Promise<number> {
  const { values, positionals } = parse("publish", argv, {
    hub: { type: "string" },
    site: { type: "string" },
    host: { type: "string" },
    key: { type: "string" },
  });
  if (values.help) return help("publish");
  const file = positionals[0];
  if (file === undefined || positionals.length > 1) {
    throw new UsageError(
      `give one manifest file, like: webmcp-hub publish manifest.json --hub URL --site HOST --key KEY.`,
    );
  }
  const hub = hubUrl(values.hub, "publish");
  if (hub === undefined) throw new UsageError(`--hub URL is required. Run "webmcp-hub publish --help".`);
  const site = values.site ?? values.host;
  if (site === undefined) {
    throw new UsageError(`--site HOST is required: the verified site the publisher key belongs to.`);
  }
  const key = values.key ?? process.env.WEBMCP_HUB_PUBLISHER_KEY;
  if (key === undefined || key === "") {
    throw new UsageError(
      `--key KEY (or WEBMCP_HUB_PUBLISHER_KEY) is required: the site's publisher key, whp_….`,
    );
  }
  const outcome = await publishManifest({ file, hub, site, key });
  console.log(
    outcome.unchanged
      ? `${outcome.host}: the manifest is unchanged; version ${outcome.version} stays current.`
      : `${outcome.host}: published version ${outcome.version} (${outcome.toolCount} tools).`,
  );
  return 0;
}

function help(command: Command): number {
  console.log(HELP[command]);
  return 0;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "sidecar":
        return await sidecar(rest);
      case "pair":
        return await pair(rest);
      case "publish":
        return await publish(rest);
      case undefined:
      case "help":
      case "--help":
      case "-h":
        return help(rest[0] && rest[0] in HELP ? (rest[0] as Command) : "main");
      case "--version":
      case "-v":
        console.log(VERSION);
        return 0;
      default:
        throw new UsageError(
          `unknown command "${command}". Commands: sidecar, pair, publish; run "webmcp-hub --help".`,
        );
    }
  } catch (e) {
    const name = command && command in HELP ? `webmcp-hub ${command}` : "webmcp-hub";
    if (e instanceof UsageError) {
      console.error(`${name}: ${e.message}`);
      return USAGE_EXIT;
    }
    if (e instanceof PublishError) {
      for (const line of formatPublishError(e)) console.error(line);
      return FAILURE_EXIT;
    }
    if (e instanceof HubLinkError || e instanceof LinkStoreError) {
      console.error(`${name}: ${e.message}`);
      return FAILURE_EXIT;
    }
    console.error(`${name}: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return FAILURE_EXIT;
  }
}

process.exitCode = await main(process.argv.slice(2));
