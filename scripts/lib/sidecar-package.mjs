// The sidecar as a slim npm package, served by the hub at /downloads/webmcp-hub-sidecar.tgz so that
// `npx -y HUB/downloads/webmcp-hub-sidecar.tgz pair CODE` works on a machine that has only Node. Its two files
// are the "sidecar-package" bundles of scripts/lib/bundles.mjs (the CLI and its scan worker with every
// dependency bundled in), so the package declares no dependencies and npx needs no registry.
//
// The hub writes its own origin into the package's hub.json when it serves it (src/worker/routes/downloads.ts),
// so `pair` and `publish` default --hub to the hub the package came from. To make that cheap, the tarball is
// two gzip members (gunzip reads concatenated members as one stream): the package's files, compressed, then
// hub.json and the end of the tar in one stored (uncompressed) deflate block. The hub overwrites hub.json's
// bytes (spaces pad it to a fixed size) and the member's CRC-32, and compresses nothing.
import { gunzipSync, gzipSync } from "node:zlib";
import { readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { crc32, hubStamp } from "./hub-stamp.mjs";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Every entry's time, as `npm pack` writes it (1985-10-26T08:15:00Z): the same bytes for the same files. */
const MTIME = 499162500;
const BLOCK = 512;

function octal(value, width) {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** One ustar entry: its header block and its contents padded to whole blocks. */
function tarEntry(path, contents, mode) {
  if (Buffer.byteLength(path) > 100) throw new Error(`tar path too long: ${path}`);
  const header = Buffer.alloc(BLOCK);
  header.write(path, 0);
  header.write(octal(mode, 8), 100);
  header.write(octal(0, 8), 108); // uid
  header.write(octal(0, 8), 116); // gid
  header.write(octal(contents.length, 12), 124);
  header.write(octal(MTIME, 12), 136);
  header.fill(0x20, 148, 156); // the checksum counts its own field as spaces
  header.write("0", 156); // a regular file
  header.write("ustar\0", 257);
  header.write("00", 263);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  const padding = Buffer.alloc((BLOCK - (contents.length % BLOCK)) % BLOCK);
  return Buffer.concat([header, contents, padding]);
}

/** `data` (under 64 KiB) as one gzip member holding one stored deflate block. */
function storedGzipMember(data) {
  if (data.length > 0xffff) throw new Error("a stored deflate block holds at most 65,535 bytes.");
  const head = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1, 0, 0, 0, 0]);
  head.writeUInt16LE(data.length, 11);
  head.writeUInt16LE(~data.length & 0xffff, 13);
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(data), 0);
  trailer.writeUInt32LE(data.length, 4);
  return Buffer.concat([head, data, trailer]);
}

/** The package's package.json: the sidecar's bin, no dependencies. */
function packageJson() {
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return {
    name: root.name,
    version: root.version,
    description: "The webmcp-hub sidecar: fs.search_by_time over stdio (MCP) or paired to a hub's channel",
    license: root.license,
    type: "module",
    bin: { "webmcp-hub": "cli.mjs" },
    engines: root.engines,
  };
}

const README = `# webmcp-hub sidecar

Downloaded from a webmcp-hub (GET /downloads/webmcp-hub-sidecar.tgz); \`--hub\` defaults to that hub.

    npx -y HUB/downloads/webmcp-hub-sidecar.tgz pair CODE --root DIR    # serve DIR to a channel
    npx -y HUB/downloads/webmcp-hub-sidecar.tgz sidecar --root DIR      # stdio MCP server

Run \`webmcp-hub --help\` for every command.
`;

/**
 * Packs the built package bundles (`cli`, `scanWorker`: file paths) into `outFile` (written whole, then renamed
 * into place). Resolves with the tarball's bytes.
 */
export async function packSidecar({ cli, scanWorker, outFile }) {
  const out = outFile instanceof URL ? fileURLToPath(outFile) : outFile;
  const files = [
    ["package/package.json", Buffer.from(`${JSON.stringify(packageJson(), null, 2)}\n`), 0o644],
    ["package/README.md", Buffer.from(README), 0o644],
    ["package/cli.mjs", readFileSync(cli), 0o755],
    ["package/scan-worker.mjs", readFileSync(scanWorker), 0o644],
  ];
  const body = gzipSync(
    Buffer.concat(files.map(([path, contents, mode]) => tarEntry(path, contents, mode))),
    {
      level: 9,
    },
  );
  // hub.json, then the tar's end (two zero blocks), in the member the hub stamps.
  const tail = Buffer.concat([
    tarEntry(
      "package/hub.json",
      hubStamp("") /* no hub until one serves it: the CLI then asks for --hub */,
      0o644,
    ),
    Buffer.alloc(2 * BLOCK),
  ]);
  const tgz = Buffer.concat([body, storedGzipMember(tail)]);
  gunzipSync(tgz); // a gzip mistake fails the build, not a user's npx
  mkdirSync(dirname(out), { recursive: true });
  const temp = `${out}.${process.pid}.tmp`;
  try {
    writeFileSync(temp, tgz);
    renameSync(temp, out);
  } finally {
    rmSync(temp, { force: true });
  }
  return tgz;
}
