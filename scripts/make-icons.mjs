// Draws the extension's toolbar and store icons (extension/icons/icon-<size>.png, checked in) without an image
// library: a blue rounded square with a white hub — a centre node joined to three outer nodes — supersampled
// for smooth edges, written as RGBA PNGs with node:zlib. Run `node scripts/make-icons.mjs` after changing it.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { deflateSync } from "node:zlib";

const OUT = fileURLToPath(new URL("../extension/icons/", import.meta.url));
const SIZES = [16, 32, 48, 128];
const SAMPLES = 4; // per axis, per pixel
const BLUE = [31, 95, 191];
const WHITE = [255, 255, 255];

/** Coverage of the shapes at (x, y) in a unit square: "bg" (rounded square) or "fg" (the hub), else null. */
function shapeAt(x, y) {
  const radius = 0.22;
  const dx = Math.max(Math.abs(x - 0.5) - (0.5 - radius), 0);
  const dy = Math.max(Math.abs(y - 0.5) - (0.5 - radius), 0);
  if (dx * dx + dy * dy > radius * radius) return null;
  const centre = [0.5, 0.53];
  const outer = [
    [0.5, 0.2],
    [0.22, 0.72],
    [0.78, 0.72],
  ];
  const near = (p, r) => (x - p[0]) ** 2 + (y - p[1]) ** 2 <= r * r;
  if (near(centre, 0.12) || outer.some((p) => near(p, 0.09))) return "fg";
  for (const p of outer) if (segmentDistance(x, y, centre, p) <= 0.035) return "fg";
  return "bg";
}

function segmentDistance(x, y, a, b) {
  const [vx, vy] = [b[0] - a[0], b[1] - a[1]];
  const t = Math.max(0, Math.min(1, ((x - a[0]) * vx + (y - a[1]) * vy) / (vx * vx + vy * vy)));
  return Math.hypot(x - (a[0] + t * vx), y - (a[1] + t * vy));
}

function draw(size) {
  const rgba = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++)
    for (let px = 0; px < size; px++) {
      let fg = 0;
      let bg = 0;
      for (let sy = 0; sy < SAMPLES; sy++)
        for (let sx = 0; sx < SAMPLES; sx++) {
          const hit = shapeAt((px + (sx + 0.5) / SAMPLES) / size, (py + (sy + 0.5) / SAMPLES) / size);
          if (hit === "fg") fg++;
          else if (hit === "bg") bg++;
        }
      const covered = fg + bg;
      const i = (py * size + px) * 4;
      if (covered === 0) continue;
      for (let c = 0; c < 3; c++) rgba[i + c] = Math.round((BLUE[c] * bg + WHITE[c] * fg) / covered);
      rgba[i + 3] = Math.round((255 * covered) / (SAMPLES * SAMPLES));
    }
  return png(size, size, rgba);
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** An 8-bit RGBA PNG: signature, IHDR, one IDAT (each row prefixed with filter 0), IEND. */
function png(width, height, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // bit depth 8, colour type RGBA, deflate, no filter method, no interlace
  const rows = Buffer.alloc((width * 4 + 1) * height);
  for (let y = 0; y < height; y++)
    rgba.copy(rows, y * (width * 4 + 1) + 1, y * width * 4, (y + 1) * width * 4);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(rows, { level: 9 })),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

mkdirSync(OUT, { recursive: true });
for (const size of SIZES) {
  const file = join(OUT, `icon-${size}.png`);
  writeFileSync(file, draw(size));
  console.log(`icons: ${file}`);
}
