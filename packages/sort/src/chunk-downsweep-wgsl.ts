import { unrolled } from '@weft/gpu';
import { type KeyOrder, padKeyOf } from './order-key.ts';
import {
  digitsPerThread,
  digitWgsl,
  ITEM_COUNT,
  laneMaskWgsl,
  RADIX,
  RADIX_BITS,
  type RadixTileConfig,
  scatterTileWgsl,
  slotScanWgsl,
  tileSize,
} from './radix-wgsl.ts';

/**
 * How the downsweep's ranking keeps each subgroup's running position per digit:
 * - `packed`: two 16-bit counters a word (digits d and d + 128), so the leader of a digit's peers bumps
 *   them with an atomic add and shuffles the old value to its peers (half the workgroup memory);
 * - `wide`: one word per digit and subgroup, so every peer reads the position and the last peer writes it
 *   back, with no atomic in the loop and no shuffle.
 */
export type RankCounters = 'packed' | 'wide';

/** Words of the per-subgroup position table (`wide` has one spare word that absorbs non-last lanes' stores). */
export function rankCounterWords(config: RadixTileConfig, counters: RankCounters): number {
  return counters === 'packed' ? config.maxSubgroups * (RADIX / 2) : config.maxSubgroups * RADIX + 1;
}

/**
 * WGSL of the reduce-then-scan downsweep: one workgroup per chunk of `tiles_per_chunk` consecutive tiles,
 * ranked in turn. Per tile, *early counts*: every subgroup first counts its keys' digits (atomics, in any
 * order), the workgroup turns the counts into each subgroup's first staged position per digit, and only
 * then ranks keys stably (ballot match within a subgroup, rounds in input order), writing each key straight
 * to its staged slot. The chunk's output offset per digit starts at `digit start + row_prefix` and grows by
 * each tile's count, so `row_prefix` needs one entry per chunk and digit, not per tile.
 */
export function downsweepChunkWgsl(
  config: RadixTileConfig,
  pairs: boolean,
  order: KeyOrder,
  counters: RankCounters,
): string {
  const kpt = config.keysPerThread;
  const tile = tileSize(config);
  const t = config.threads;
  const dpt = digitsPerThread(config);
  const packed = counters === 'packed';
  const counterWords = rankCounterWords(config, counters);
  const padKey = padKeyOf(order);
  // Keys past the end rank as the largest digit after every real key, so they fill the tile's last slots:
  // as the pad key, or by a check.
  const digitOf = (k: string) =>
    padKey === undefined
      ? `select(max_digit, digit_of(keys[${k}]), block + ${k} * sg_size + lane < n)`
      : `digit_of(keys[${k}])`;
  // The subgroup's counter of digit d: its word, and the shift of its half when packed.
  const counterIndex = packed ? 'w * 128u + (d & 127u)' : `w * ${RADIX}u + d`;
  const increment = packed ? '1u << ((d >> 7u) * 16u)' : '1u';
  const rankRound = packed
    ? /* wgsl */ `
    let half = (d >> 7u) * 16u;
    // Every lane adds: the leader its peers' count, the others zero (no branch around the atomic).
    var before = atomicAdd(&counter[${counterIndex}], select(0u, mask_count(peers) << half, rank == 0u));
    before = subgroupShuffle(before, lowest_lane(peers));
    let p = ((before >> half) & 0xffffu) + rank;`
    : /* wgsl */ `
    let at = ${counterIndex};
    let p = atomicLoad(&counter[at]) + rank;
    // The last peer moves the digit's position past the round's keys; the others store into the spare word
    // (a store every lane makes needs no branch). The next round's loads see it: a subgroup's workgroup
    // memory accesses execute in program order, as the packed form's atomics also rely on.
    let cnt = mask_count(peers);
    atomicStore(&counter[select(${counterWords - 1}u, at, rank + 1u == cnt)], p + 1u);`;
  return /* wgsl */ `
${digitWgsl(order)}
${ITEM_COUNT}
${slotScanWgsl(config.maxSubgroups)}
// Per subgroup and digit: first the count of the subgroup's keys of the digit in the tile, then the staged
// position of its next one.
var<workgroup> counter: array<atomic<u32>, ${counterWords}>;
// The tile's keys (then values) in digit order.
var<workgroup> staged: array<u32, ${config.sharedWords}>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, ${RADIX}>;
${packed ? `// Per digit: its tile count, then its tile-local start (from digit owners to the owners of packed words).\nvar<workgroup> digit_share: array<u32, ${RADIX}>;` : ''}
var<workgroup> n_shared: u32;
${laneMaskWgsl(config.maskWords)}

@compute @workgroup_size(${t})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
  let chunk = weft_workgroup_index(wid, nwg);
  for (var i = lid; i < ${counterWords}u; i += ${t}u) { atomicStore(&counter[i], 0u); }
  if (lid == 0u) { n_shared = item_count(); atomicStore(&subgroup_ticket, 0u); }
  let n = workgroupUniformLoad(&n_shared);
  let active_tiles = n / ${tile}u + select(0u, 1u, n % ${tile}u != 0u);
  let first_tile = chunk * params.tiles_per_chunk;
  if (chunk >= params.num_chunks || first_tile >= active_tiles) { return; }
  let end_tile = min(first_tile + params.tiles_per_chunk, active_tiles);
  // Subgroup w ranks the contiguous block [w * sg_size * KPT, +sg_size * KPT) of a tile, KPT rounds of
  // sg_size consecutive keys, so (w, round, lane) order is input order: ranking in that order is stable.
  let w = subgroup_index();
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let slot = w * sg_size + lane;
  let all_lanes = ballot(true);
  let max_digit = params.digit_mask;
  let below = lanes_below(lane);

  // This slot's digits (slot * D + q): where the chunk's keys of each go, advanced tile by tile.
  var chunk_out: array<u32, ${dpt}>;
  {
    var totals: array<u32, ${dpt}>;
    var sum = 0u;
    for (var q = 0u; q < ${dpt}u; q++) {
      let d = slot * ${dpt}u + q;
      totals[q] = digit_total[d];
      chunk_out[q] = row_prefix[d * params.num_chunks + chunk];
      sum += totals[q];
    }
    var run = slot_scan(vec2<u32>(sum, 0u), w, lane, sg_size, num_sg).x;
    for (var q = 0u; q < ${dpt}u; q++) {
      chunk_out[q] += run;
      run += totals[q];
    }
  }

  for (var tile = first_tile; tile < end_tile; tile++) {
    let tile_start = tile * ${tile}u;
    let block = tile_start + w * sg_size * ${kpt}u;
    var keys: array<u32, ${kpt}>;
    // All loads first, so they are in flight together.
${unrolled(
  kpt,
  (k) => `
      let idx = block + ${k} * sg_size + lane;
      if (idx < n) { keys[${k}] = keys_in[idx]; }${padKey === undefined ? '' : ` else { keys[${k}] = ${padKey}u; }`}`,
)}
${
  pairs
    ? `    var vals: array<u32, ${kpt}>;
    var pos: array<u32, ${kpt}>;
${unrolled(
  kpt,
  (k) => `
      let idx = block + ${k} * sg_size + lane;
      if (idx < n) { vals[${k}] = values_in[idx]; }`,
)}`
    : ''
}
    // Early counts: each subgroup's keys per digit (order does not matter here).
${unrolled(
  kpt,
  (k) => `
      let d = ${digitOf(k)};
      atomicAdd(&counter[${counterIndex}], ${increment});`,
)}
    workgroupBarrier();
    let valid_in_tile = min(${tile}u, n - tile_start);
${packed ? packedStartsWgsl(config) : wideStartsWgsl(config)}
    workgroupBarrier();
${unrolled(
  kpt,
  (k) => `
      let d = ${digitOf(k)};
      // Lanes holding the same digit: intersect the ballots of its ${RADIX_BITS} bits (a constant count the
      // compiler unrolls; bits above a partial last digit are zero in every lane and change nothing).
      var peers = all_lanes;
      for (var b = 0u; b < ${RADIX_BITS}u; b++) {
        let bit_set = ((d >> b) & 1u) == 1u;
        let votes = ballot(bit_set);
        peers &= select(~votes, votes, bit_set);
      }
      let rank = mask_count(peers & below);${rankRound}
      staged[p] = keys[${k}];${pairs ? `\n      pos[${k}] = p;` : ''}`,
)}
    workgroupBarrier();
    // The counters are free until the next tile counts (after the barrier that ends this one).
    for (var i = lid; i < ${counterWords}u; i += ${t}u) { atomicStore(&counter[i], 0u); }
    for (var q = 0u; q < ${dpt}u; q++) {
      scatter_base[slot * ${dpt}u + q] = chunk_out[q] - tile_digit_start[q];
      chunk_out[q] += tile_count[q];
    }
${scatterTileWgsl(config, pairs)}
    // Everyone has read staged and scatter_base before the next tile writes them.
    workgroupBarrier();
  }
}
`;
}

/**
 * Packed counters: per word (digits d, d + 128) an exclusive prefix over subgroups; per digit the tile's
 * counts (with and without padding) and tile-local start; then each word gets its two digits' starts added.
 * Leaves `tile_count`, `tile_digit_start` for the slot's digits.
 */
function packedStartsWgsl(config: RadixTileConfig): string {
  const dpt = digitsPerThread(config);
  const t = config.threads;
  const tile = tileSize(config);
  return /* wgsl */ `
    for (var hw = slot; hw < 128u; hw += ${t}u) {
      var sum = 0u;
      for (var i = 0u; i < num_sg; i++) { sum += atomicLoad(&counter[i * 128u + hw]); }
      digit_share[hw] = sum & 0xffffu;
      digit_share[hw + 128u] = sum >> 16u;
    }
    workgroupBarrier();
    var padded: array<u32, ${dpt}>;
    var tile_count: array<u32, ${dpt}>;
    var tile_digit_start: array<u32, ${dpt}>;
    var sum = 0u;
    for (var q = 0u; q < ${dpt}u; q++) {
      let d = slot * ${dpt}u + q;
      padded[q] = digit_share[d];
      tile_count[q] = padded[q] - select(0u, ${tile}u - valid_in_tile, d == max_digit);
      sum += padded[q];
    }
    // (slot_scan's barriers also order the reads above before the writes below.)
    var run = slot_scan(vec2<u32>(sum, 0u), w, lane, sg_size, num_sg).x;
    for (var q = 0u; q < ${dpt}u; q++) {
      tile_digit_start[q] = run;
      digit_share[slot * ${dpt}u + q] = run;
      run += padded[q];
    }
    workgroupBarrier();
    for (var hw = slot; hw < 128u; hw += ${t}u) {
      var run = digit_share[hw] | (digit_share[hw + 128u] << 16u);
      for (var i = 0u; i < num_sg; i++) {
        let c = atomicLoad(&counter[i * 128u + hw]);
        atomicStore(&counter[i * 128u + hw], run);
        run += c;
      }
    }`;
}

/** Wide counters: the slot owns its digits' columns, so it sums, scans and writes them back itself. */
function wideStartsWgsl(config: RadixTileConfig): string {
  const dpt = digitsPerThread(config);
  const tile = tileSize(config);
  return /* wgsl */ `
    var padded: array<u32, ${dpt}>;
    var tile_count: array<u32, ${dpt}>;
    var tile_digit_start: array<u32, ${dpt}>;
    var sum = 0u;
    for (var q = 0u; q < ${dpt}u; q++) {
      let d = slot * ${dpt}u + q;
      var c = 0u;
      for (var i = 0u; i < num_sg; i++) { c += atomicLoad(&counter[i * ${RADIX}u + d]); }
      padded[q] = c;
      tile_count[q] = c - select(0u, ${tile}u - valid_in_tile, d == max_digit);
      sum += c;
    }
    var run = slot_scan(vec2<u32>(sum, 0u), w, lane, sg_size, num_sg).x;
    for (var q = 0u; q < ${dpt}u; q++) {
      let d = slot * ${dpt}u + q;
      tile_digit_start[q] = run;
      for (var i = 0u; i < num_sg; i++) {
        let c = atomicLoad(&counter[i * ${RADIX}u + d]);
        atomicStore(&counter[i * ${RADIX}u + d], run);
        run += c;
      }
    }`;
}
