/**
 * WGSL of the OneSweep radix sort (Adinets & Merrill 2022, after Smith's GPUSorting): one `global_hist`
 * kernel counts every pass's digits in a single read of the keys, then one `onesweep` kernel per 8-bit
 * digit ranks a tile, publishes its digit counts, and finds the counts of all earlier tiles by decoupled
 * look-back over 256 bins, WITH fallback: a bin still not ready after a bounded spin makes the whole
 * workgroup count the stalled tile's digits itself from the keys. WebGPU gives no forward-progress
 * guarantee between workgroups, so nothing ever waits unboundedly on another workgroup.
 *
 * `control` (cleared before every sort): [0, 4) tile tickets per pass, [4, 4 + 4 * 256) digit counts per pass.
 * `status` (cleared before every sort): per pass, per tile, per digit, one word: 2 flag bits + a 30-bit count.
 */
import { unrolled } from '@weft/gpu';
import { type KeyOrder, orderKeyWgsl } from './order-key.ts';
import {
  digitsPerThread,
  digitWgsl,
  ITEM_COUNT,
  RADIX,
  type RadixTileConfig,
  rankTileWgsl,
  scatterTileWgsl,
  THREADS,
  tileInitWgsl,
  tileSharedWgsl,
  tileSize,
} from './radix-wgsl.ts';

export const ONESWEEP_PARAMS = {
  n: 'u32',
  gpu_count: 'u32',
  count_index: 'u32',
  shift: 'u32',
  /** This pass's digit bits: 0xff, fewer in a last pass when sorting only the low `sort_bits`. */
  digit_mask: 'u32',
  sort_bits: 'u32',
  num_tiles: 'u32',
  pass_index: 'u32',
  passes: 'u32',
  /** Polls of a predecessor's status word before falling back. */
  max_spin: 'u32',
  /** Test hook: treat odd tiles' published counts as never ready, forcing the fallback path. */
  distrust_odd: 'u32',
} as const;

/** Words of `control`: 4 tickets + 4 passes x 256 digit counts. */
export const CONTROL_WORDS = 4 + 4 * RADIX;
/** Counts must fit the 30 bits below the status flags. */
export const MAX_ONESWEEP_ITEMS = 2 ** 30 - 1;

const STATUS = /* wgsl */ `
const FLAG_AGGREGATE = 0x40000000u; // the tile's own count
const FLAG_INCLUSIVE = 0x80000000u; // the count of this tile and every earlier tile
const FLAG_MASK = 0xc0000000u;
const VALUE_MASK = 0x3fffffffu;
`;

/** Workgroups of the histogram kernel (grid-stride): enough to fill a large GPU, few global atomics. */
export const HIST_WORKGROUPS = 1024;
/**
 * Earlier tiles a look-back step reads per digit: the nearest, then the rest at once, so their loads are in
 * flight together; 4 was as fast as 8, and one a step behind a barrier far slower (docs/decisions/sort-algorithm.md).
 */
const LOOKBACK_WINDOW = 4;
/** Keys each histogram thread loads before counting them. */
const HIST_KEYS = 8;

export function globalHistWgsl(order: KeyOrder): string {
  return /* wgsl */ `
${orderKeyWgsl(order)}
${ITEM_COUNT}
var<workgroup> hist: array<atomic<u32>, ${4 * RADIX}>;
var<workgroup> n_shared: u32;

@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  for (var i = lid; i < ${4 * RADIX}u; i += ${THREADS}u) { atomicStore(&hist[i], 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  // Grid-stride over groups of ${HIST_KEYS} keys per thread, loaded before any atomic (an atomic between
  // two loads keeps the second from issuing early).
  let stride = nwg.x * nwg.y * ${THREADS * HIST_KEYS}u;
  for (var base = weft_workgroup_index(wid, nwg) * ${THREADS * HIST_KEYS}u + lid; base < n; base += stride) {
    var keys: array<u32, ${HIST_KEYS}>;
${unrolled(
  HIST_KEYS,
  (j) => `
      let i = base + ${j} * ${THREADS}u;
      if (i < n) { keys[${j}] = keys_in[i]; }`,
)}
${unrolled(
  HIST_KEYS,
  (j) => `
      if (base + ${j} * ${THREADS}u < n) {
        let k = order_key(keys[${j}]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * ${RADIX}u + ((k >> (8u * p)) & mask)], 1u);
        }
      }`,
)}
  }
  workgroupBarrier();
  for (var i = lid; i < params.passes * ${RADIX}u; i += ${THREADS}u) {
    let c = atomicLoad(&hist[i]);
    if (c != 0u) { atomicAdd(&control[4u + i], c); }
  }
}
`;
}

export function onesweepWgsl(
  config: RadixTileConfig,
  pairs: boolean,
  order: KeyOrder,
  stable = true,
): string {
  const win = LOOKBACK_WINDOW;
  const tile = tileSize(config);
  const kpt = config.keysPerThread;
  const t = config.threads;
  const dpt = digitsPerThread(config);
  return /* wgsl */ `
${digitWgsl(order)}
${ITEM_COUNT}
${STATUS}
${tileSharedWgsl(config)}
var<workgroup> tile_shared: u32;
var<workgroup> fallback_hist: array<atomic<u32>, ${RADIX}>;
// Look-back round flags, double-buffered by round parity so a reset never races a read.
// fallback_tile: 1 + the tile the workgroup counts itself this round (0: none).
var<workgroup> fallback_tile: array<u32, 2>;
var<workgroup> pending: array<u32, 2>;

fn status_index(t: u32, digit: u32) -> u32 {
  return (params.pass_index * params.num_tiles + t) * ${RADIX}u + digit;
}
// Test hook: odd tiles' published counts read as never ready, forcing the fallback path.
fn trusted(t: u32) -> bool { return params.distrust_odd == 0u || (t & 1u) == 0u; }

@compute @workgroup_size(${t})
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
  ${tileInitWgsl(config)}
  if (lid == 0u) {
    n_shared = item_count();
    // Tiles in ticket order: a tile's predecessors were started before it, so look-back rarely stalls.
    tile_shared = atomicAdd(&control[params.pass_index], 1u);
    fallback_tile[0] = 0u;
    pending[0] = 0u;
  }
  let n = workgroupUniformLoad(&n_shared);
  let tile = workgroupUniformLoad(&tile_shared);
  let tile_start = tile * ${tile}u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  ${rankTileWgsl(config, order, pairs, 'atomicLoad(&control[4u + params.pass_index * 256u + d])', {
    afterCount: `// Publish early: later tiles may be waiting for these counts.
  for (var q = 0u; q < ${dpt}u; q++) {
    let d = slot * ${dpt}u + q;
    if (tile == 0u) { atomicMax(&status[status_index(0u, d)], FLAG_INCLUSIVE | tile_count[q]); }
    else { atomicMax(&status[status_index(tile, d)], FLAG_AGGREGATE | tile_count[q]); }
  }`,
    stable,
  })}

  // Decoupled look-back, each thread on its own digits without barriers: from the nearest earlier tile not
  // yet added, add published counts until an inclusive one. A step spins on that nearest tile, then reads
  // the ${win - 1} before it at once (their loads in flight together: most predecessors have published only
  // aggregates, and one tile per step would cost a memory round trip per predecessor). A digit whose nearest
  // tile publishes nothing within the spin stalls; the workgroup then counts one stalled tile's keys itself
  // and every thread goes on.
  var excl: array<u32, ${dpt}>;
  var done: array<bool, ${dpt}>;
  // Per digit: tiles [next, tile) are in excl.
  var next: array<u32, ${dpt}>;
  for (var q = 0u; q < ${dpt}u; q++) {
    done[q] = tile == 0u;
    next[q] = tile;
  }
  var round = 0u;
  if (tile != 0u) {
    loop {
      let par = round & 1u;
      // 1 + a tile one of this thread's digits stalled on (0: none).
      var stalled_at = 0u;
      for (var q = 0u; q < ${dpt}u; q++) {
        if (done[q]) { continue; }
        let d = slot * ${dpt}u + q;
        // Tiles [at, next[q]) are added into sum.
        var at = next[q];
        var sum = 0u;
        var found = false;
        // Each step adds at least one tile or stalls, so this ends.
        loop {
          var s = 0u;
          if (trusted(at - 1u)) {
            for (var spin = 0u; spin < params.max_spin; spin++) {
              s = atomicLoad(&status[status_index(at - 1u, d)]);
              if ((s & FLAG_MASK) != 0u) { break; }
            }
          }
          if ((s & FLAG_MASK) == 0u) {
            stalled_at = at;
            break;
          }
          sum += s & VALUE_MASK;
          at -= 1u;
          found = (s & FLAG_INCLUSIVE) != 0u;
          if (found) { break; }
          // Tile at - 1 - j, for j below at. An explicit initializer: Dawn on lavapipe zero-initializes a
          // loop-body \`var\` without one only once (WGSL says every iteration), so a distrusted tile's slot
          // would keep a value read in an earlier step.
          var window = array<u32, ${win - 1}>();
${unrolled(
  win - 1,
  (j) => `
          if (at > ${j} && trusted(at - 1u - ${j})) { window[${j}] = atomicLoad(&status[status_index(at - 1u - ${j}, d)]); }`,
)}
          // Add them nearest first, up to the first that has published nothing (spun on next) or is inclusive.
          var open = true;
${unrolled(
  win - 1,
  (j) => `
          if (open && at > 0u) {
            let w = window[${j}];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }`,
)}
          if (found) { break; }
        }
        excl[q] += sum;
        next[q] = at;
        done[q] = found;
      }
      // Any stalled tile will do (a race between equally good writers); its digits' threads add its count.
      if (stalled_at != 0u) { fallback_tile[par] = stalled_at; }
      let fallback = workgroupUniformLoad(&fallback_tile[par]);
      // Everyone has read last round's flags: reset them for the next round.
      if (lid == 0u) {
        fallback_tile[par ^ 1u] = 0u;
        pending[par ^ 1u] = 0u;
      }
      if (fallback != 0u) {
        // Count the stalled tile's digits from its keys, and share the result through its status.
        let look = fallback - 1u;
        for (var d = lid; d < ${RADIX}u; d += ${t}u) { atomicStore(&fallback_hist[d], 0u); }
        workgroupBarrier();
        let look_start = look * ${tile}u;
        for (var j = 0u; j < ${kpt}u; j++) {
          let i = look_start + j * ${t}u + lid;
          if (i < n) { atomicAdd(&fallback_hist[digit_of(keys_in[i])], 1u); }
        }
        workgroupBarrier();
        for (var q = 0u; q < ${dpt}u; q++) {
          if (done[q] || next[q] != fallback) { continue; }
          let d = slot * ${dpt}u + q;
          let c = atomicLoad(&fallback_hist[d]);
          excl[q] += c;
          next[q] = look;
          done[q] = look == 0u;
          atomicMax(&status[status_index(look, d)], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, done[q]) | c);
        }
      }
      var all_done = true;
      for (var q = 0u; q < ${dpt}u; q++) { all_done = all_done && done[q]; }
      if (!all_done) { pending[par] = 1u; }
      if (workgroupUniformLoad(&pending[par]) == 0u) { break; }
      round += 1u;
    }
    for (var q = 0u; q < ${dpt}u; q++) {
      atomicMax(&status[status_index(tile, slot * ${dpt}u + q)], FLAG_INCLUSIVE | (excl[q] + tile_count[q]));
    }
  }
  for (var q = 0u; q < ${dpt}u; q++) {
    scatter_base[slot * ${dpt}u + q] = digit_start[q] + excl[q] - tile_digit_start[q];
  }
  ${scatterTileWgsl(config, pairs)}
}
`;
}
