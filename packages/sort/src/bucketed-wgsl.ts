import type { KeyOrder } from './order-key.ts';
import { orderKeyWgsl } from './order-key.ts';
import { BUCKET_TABLE, CEIL_DIV_WGSL, RADIX, type RadixTileConfig, tileSize } from './radix-wgsl.ts';

/**
 * WGSL of the two small kernels of a sort by the top digit first (see `prepareBucketed` in bucketed-passes.ts).
 *
 * `bucketTableWgsl`: after the top pass's row scan, one workgroup per bucket (top digit) lays the buckets out
 * at whole tiles and fills its bucket's padding with the bucket's largest key (the top digit over 24 one
 * bits), which sorts last in the bucket in every later pass. Workgroup 0 writes the bucket table
 * ({@link BUCKET_TABLE}) and the padded length (the later passes' GPU-resident count); each workgroup writes
 * the tile-to-bucket entries of its own bucket.
 *
 * `bucketBaseWgsl`: after an inner pass's row scan, one workgroup per bucket turns the global prefixes of each
 * digit at the bucket's first and end tiles into `bucket_base[bucket * 256 + digit]`: where the digit's keys
 * of the bucket start (bucket start + the bucket's smaller digits) minus the digit's global prefix at the
 * bucket's first tile, so a tile's digit start is `bucket_base + tile_out_of(tile, digit)`.
 */

export function bucketTableWgsl(config: RadixTileConfig, order: KeyOrder): string {
  const tile = tileSize(config);
  return /* wgsl */ `
${orderKeyWgsl(order)}
${CEIL_DIV_WGSL}
var<workgroup> padded_start: array<u32, ${RADIX + 1}>;
var<workgroup> plain_start: array<u32, ${RADIX}>;

@compute @workgroup_size(${RADIX})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = wid.x;
  // Every workgroup scans the 256 totals (padded to whole tiles, and as they are) for its own bucket's start:
  // all loads at once, then a Hillis-Steele scan in workgroup memory (a serial loop of loads would wait a load
  // latency a digit).
  let total = digit_total[lid];
  let padded = ceil_div(total, ${tile}u) * ${tile}u;
  padded_start[lid] = padded;
  plain_start[lid] = total;
  workgroupBarrier();
  for (var step = 1u; step < ${RADIX}u; step <<= 1u) {
    var add_padded = 0u;
    var add_plain = 0u;
    if (lid >= step) {
      add_padded = padded_start[lid - step];
      add_plain = plain_start[lid - step];
    }
    workgroupBarrier();
    padded_start[lid] += add_padded;
    plain_start[lid] += add_plain;
    workgroupBarrier();
  }
  // Inclusive to exclusive: shift up by one (the last inclusive sum is the padded length).
  let padded_end = padded_start[lid];
  let plain_end = plain_start[lid];
  workgroupBarrier();
  padded_start[lid + 1u] = padded_end;
  plain_start[lid] = plain_end - total;
  if (lid == 0u) { padded_start[0] = 0u; }
  workgroupBarrier();
  if (b == 0u) {
    buckets[${BUCKET_TABLE.firstTile}u + lid] = padded_start[lid] / ${tile}u;
    buckets[${BUCKET_TABLE.count}u + lid] = digit_total[lid];
    buckets[${BUCKET_TABLE.start}u + lid] = plain_start[lid];
    if (lid == 0u) {
      buckets[${BUCKET_TABLE.firstTile + RADIX}u] = padded_start[${RADIX}u] / ${tile}u;
      padded_count[0] = padded_start[${RADIX}u];
    }
  }
  let first = padded_start[b];
  let end = padded_start[b + 1u];
  for (var t = first / ${tile}u + lid; t < end / ${tile}u; t += ${RADIX}u) { buckets[${BUCKET_TABLE.tileBucket}u + t] = b; }
  // order_key is x ^ order_key(0) for u32 and i32 keys, so this inverts it.
  let pad = ((b << 24u) | 0xffffffu) ^ order_key(0u);
  for (var i = first + digit_total[b] + lid; i < end; i += ${RADIX}u) { keys[i] = pad; }
}
`;
}

export function bucketBaseWgsl(config: RadixTileConfig, tileOut: string): string {
  const tile = tileSize(config);
  return /* wgsl */ `
${tileOut}
var<workgroup> scan: array<u32, ${RADIX}>;

@compute @workgroup_size(${RADIX})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = wid.x;
  let d = lid;
  let first = buckets[${BUCKET_TABLE.firstTile}u + b];
  let end = buckets[${BUCKET_TABLE.firstTile}u + b + 1u];
  let all_tiles = buckets[${BUCKET_TABLE.firstTile + RADIX}u];
  // Global exclusive prefixes of digit d at the bucket's first and end tiles (the row scan's rows cover the
  // tiles before all_tiles; at all_tiles it is the digit's total). An empty bucket's tiles are nobody's.
  var before = 0u;
  var upto = 0u;
  if (first < end) {
    before = tile_out_of(first, d);
    if (end < all_tiles) { upto = tile_out_of(end, d); } else { upto = digit_total[d]; }
  }
  let count = upto - before;
  scan[d] = count;
  workgroupBarrier();
  // Inclusive scan over the 256 digits (Hillis-Steele: 8 steps).
  for (var step = 1u; step < ${RADIX}u; step <<= 1u) {
    var add = 0u;
    if (d >= step) { add = scan[d - step]; }
    workgroupBarrier();
    scan[d] += add;
    workgroupBarrier();
  }
  if (first < end) { bucket_base[b * ${RADIX}u + d] = first * ${tile}u + scan[d] - count - before; }
}
`;
}
