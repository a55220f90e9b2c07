// hub.json, the file by which a package the hub serves from /downloads/ knows the hub it came from: JSON
// `{"hub": ORIGIN}` padded with spaces to a fixed size, stored uncompressed, so that the hub's Worker
// (src/worker/routes/downloads.ts) writes its own origin over it and fixes the CRC-32 that covers it, without
// compressing anything. Written here by the build with the hub it knows (or none).

/** hub.json's fixed size in bytes: room for any origin. */
export const HUB_STAMP_SIZE = 512;

/** `{"hub": hub}` padded with spaces to HUB_STAMP_SIZE bytes (still valid JSON). */
export function hubStamp(hub) {
  const json = Buffer.from(JSON.stringify({ hub }));
  if (json.length > HUB_STAMP_SIZE)
    throw new Error(`hub.json would need ${json.length} bytes; it has ${HUB_STAMP_SIZE}.`);
  return Buffer.concat([json, Buffer.alloc(HUB_STAMP_SIZE - json.length, 0x20)]);
}

/** CRC-32 (IEEE 802.3), as zip entries and gzip trailers hold it. */
export function crc32(bytes) {
  let c = ~0;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}
