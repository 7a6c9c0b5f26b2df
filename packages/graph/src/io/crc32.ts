/** CRC-32 (IEEE 802.3, as in zlib and PNG), slicing-by-4 tables. */
const TABLES = (() => {
  const t = new Uint32Array(4 * 256);
  for (let i = 0; i < 256; i++) {
    let c = i;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[i] = c >>> 0;
  }
  for (let i = 0; i < 256; i++) {
    for (let s = 1; s < 4; s++) {
      const prev = t[(s - 1) * 256 + i]!;
      t[s * 256 + i] = (t[prev & 0xff]! ^ (prev >>> 8)) >>> 0;
    }
  }
  return t;
})();

/** Extends a running CRC (start with 0) over `bytes`. */
export function crc32(crc: number, bytes: Uint8Array): number {
  const t = TABLES;
  let c = ~crc >>> 0;
  let i = 0;
  const end4 = bytes.length - (bytes.length % 4);
  for (; i < end4; i += 4) {
    c ^= bytes[i]! | (bytes[i + 1]! << 8) | (bytes[i + 2]! << 16) | (bytes[i + 3]! << 24);
    c = t[768 + (c & 0xff)]! ^ t[512 + ((c >>> 8) & 0xff)]! ^ t[256 + ((c >>> 16) & 0xff)]! ^ t[c >>> 24]!;
  }
  for (; i < bytes.length; i++) c = t[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}
