// GET /downloads/webmcp-hub-sidecar.tgz and /downloads/webmcp-hub-extension.zip: the packages the build put in
// the static files (scripts/build.mjs), with this hub's origin written into their hub.json, so the sidecar
// pairs with, and the extension points at, the hub they were downloaded from. hub.json is stored uncompressed
// where the build puts it (scripts/lib/hub-stamp.mjs): the zip's first entry; the tarball's last gzip member,
// one stored deflate block. Stamping overwrites its space-padded bytes and the CRC-32 that covers them: no
// compression library in the Worker, a few microseconds of work.
import { Hono } from "../http/hono.js";
import type { AppContext, AppEnv } from "../http/context.js";
import { HubError } from "../http/errors.js";

const TYPES = { tgz: "application/gzip", zip: "application/zip" } as const;

function crc32(bytes: Uint8Array): number {
  let c = ~0;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

/** Writes `{"hub": origin}` over `target` (hub.json's bytes), padded with spaces. */
function writeHub(target: Uint8Array, origin: string): void {
  const json = new TextEncoder().encode(JSON.stringify({ hub: origin }));
  if (json.length > target.length) throw new Error(`the origin ${origin} does not fit hub.json.`);
  target.fill(0x20);
  target.set(json);
}

function broken(what: string): never {
  throw new Error(`${what} is not as scripts/build.mjs makes it: rebuild the static files (npm run build).`);
}

/** The zip with `origin` in its first entry, hub.json (stored): its bytes and both copies of its CRC-32. */
export function stampZip<B extends Uint8Array>(zip: B, origin: string): B {
  const v = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const nameLength = v.getUint16(26, true);
  const name = new TextDecoder().decode(zip.subarray(30, 30 + nameLength));
  if (v.getUint32(0, true) !== 0x04034b50 || v.getUint16(8, true) !== 0 || name !== "hub.json")
    broken("the extension's zip");
  const start = 30 + nameLength + v.getUint16(28, true);
  const data = zip.subarray(start, start + v.getUint32(18, true));
  writeHub(data, origin);
  const crc = crc32(data);
  const directory = v.getUint32(zip.length - 22 + 16, true); // the end record (no comment) → first entry
  if (v.getUint32(zip.length - 22, true) !== 0x06054b50 || v.getUint32(directory, true) !== 0x02014b50)
    broken("the extension's zip");
  v.setUint32(14, crc, true);
  v.setUint32(directory + 16, crc, true);
  return zip;
}

/** The tarball with `origin` in its last gzip member (a stored block: hub.json's tar entry, then the tar's end). */
export function stampTgz<B extends Uint8Array>(tgz: B, origin: string): B {
  const v = new DataView(tgz.buffer, tgz.byteOffset, tgz.byteLength);
  const size = v.getUint32(tgz.length - 4, true);
  const start = tgz.length - 8 - size;
  const header = tgz.subarray(start, start + 512);
  if (tgz[start - 5] !== 1 || v.getUint16(start - 4, true) !== size) broken("the sidecar's tarball");
  if (new TextDecoder().decode(header.subarray(0, 16)) !== "package/hub.json")
    broken("the sidecar's tarball");
  const fileSize = parseInt(new TextDecoder().decode(header.subarray(124, 135)), 8);
  writeHub(tgz.subarray(start + 512, start + 512 + fileSize), origin);
  v.setUint32(tgz.length - 8, crc32(tgz.subarray(start, start + size)), true);
  return tgz;
}

async function download(c: AppContext, kind: "tgz" | "zip"): Promise<Response> {
  const stored = await c.env.ASSETS.fetch(new Request(c.req.url));
  if (!stored.ok) {
    throw new HubError("not_found", `${c.req.path} is not built on this hub: run \`npm run build\`.`);
  }
  const bytes = new Uint8Array(await stored.arrayBuffer());
  const origin = c.var.hub;
  return c.body(kind === "tgz" ? stampTgz(bytes, origin) : stampZip(bytes, origin), 200, {
    "content-type": TYPES[kind],
    // the same file name whatever the hub, and revalidated each time so an upgraded hub serves its new build
    "content-disposition": `attachment; filename="${c.req.path.slice("/downloads/".length)}"`,
    "cache-control": "no-cache",
  });
}

export const downloadRoutes = new Hono<AppEnv>();
downloadRoutes.get("/webmcp-hub-sidecar.tgz", (c) => download(c, "tgz"));
downloadRoutes.get("/webmcp-hub-extension.zip", (c) => download(c, "zip"));
