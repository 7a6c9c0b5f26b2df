import { SUBGROUP_INDEX_WGSL, unrolled } from '@weft/gpu';
import { type KeyOrder, orderKeyWgsl, padKeyOf } from './order-key.ts';
import { withVirtualSubgroups, workgroupScanWgsl } from './virtual-subgroups.ts';

/**
 * WGSL of the LSD radix sort's three kernels per 8-bit digit pass (reduce-then-scan):
 * 1. `upsweep`: one workgroup per chunk (`tiles_per_chunk` consecutive tiles) counts the chunk's digits into
 *    `row_prefix[digit * num_chunks + chunk]`, and writes each tile's prefix within its chunk to
 *    `tile_prefix[tile * 256 + digit]` (tile-major: coalesced, and one load a digit for the downsweep).
 * 2. `row_scan`: one workgroup per digit turns its row into exclusive prefixes over chunks (runs of
 *    `tiles_per_chunk` tiles) and writes the digit's total to `digit_total[digit]`.
 * 3. `downsweep`: a workgroup ranks a tile's keys stably (subgroup ballots; a keys-only first pass by
 *    workgroup atomics), stages them in workgroup memory in digit order and scatters them to
 *    `digit start + chunk prefix + tile prefix + rank`. Keys-only workgroups may take several tiles, every
 *    `stride`-th (`tilesPerWorkgroup`); a chunk's consecutive tiles in turn were slower (concurrent
 *    workgroups then write far-apart parts of each digit's output). The top-digit-first sort's
 *    passes (`Bucketed`) take their digit starts per bucket instead.
 *
 * Every kernel reads the item count from `params.n` or, for GPU-resident counts, from `count[count_index]`
 * (clamped to `params.n`, the capacity), so a sort of a GPU count needs no read-back.
 */

/** Digit bins of an 8-bit digit. */
export const RADIX = 256;
/** Threads of the helper kernels that do not rank tiles (histogram, copy, zero). */
export const THREADS = 256;
export const RADIX_BITS = 8;

export interface RadixTileConfig {
  /** Threads per workgroup of the tile kernels: 256, or fewer where small subgroups need the memory. */
  readonly threads: number;
  /** Keys per thread in the downsweep and upsweep. */
  readonly keysPerThread: number;
  /** Most subgroups a workgroup can have (threads / smallest subgroup size). */
  readonly maxSubgroups: number;
  /** Words of the staged tile (threads x keys per thread); the histograms have their own array. */
  readonly sharedWords: number;
  /**
   * Words of a subgroup ballot the ranking uses: 1 where subgroups have at most 32 lanes (NVIDIA, Intel,
   * lavapipe: a quarter of the mask arithmetic per key), else 4 (`vec4<u32>` masks, up to 128 lanes).
   */
  readonly maskWords: 1 | 4;
  /**
   * Whether the device has subgroups; without them the tile kernels scan and rank in workgroup memory, on
   * virtual subgroups of 32 invocations (`tileKernelCode`).
   */
  readonly subgroups: boolean;
}

/** A tile kernel's WGSL as the device runs it: as generated, or on virtual subgroups without subgroups. */
export function tileKernelCode(config: RadixTileConfig, code: string): string {
  return config.subgroups ? code : withVirtualSubgroups(code, config.threads);
}

export function tileSize(config: RadixTileConfig): number {
  return config.threads * config.keysPerThread;
}

/** Digits each thread owns in per-digit steps (thread `s` owns digits `s * D .. s * D + D - 1`). */
export function digitsPerThread(config: RadixTileConfig): number {
  return RADIX / config.threads;
}

/**
 * Words of the tile kernels' `hist` with up to `maxSubgroups` subgroups: a 256-digit histogram of two 16-bit
 * halves a word per subgroup, and at least one 32-bit counter a digit (the unstable ranking counts the
 * whole tile into one histogram).
 */
export function histWords(maxSubgroups: number): number {
  return Math.max(maxSubgroups * 128, RADIX);
}

/** Words of a tile kernel's `hist`: without subgroups only the 256 counters of the split ranking. */
function tileHistWords(config: RadixTileConfig): number {
  return config.subgroups ? histWords(config.maxSubgroups) : RADIX;
}

const PARAMS = {
  n: 'u32',
  gpu_count: 'u32',
  count_index: 'u32',
  shift: 'u32',
  /** This pass's digit bits: 0xff, fewer in a last pass when sorting only the low `bits`. */
  digit_mask: 'u32',
  num_tiles: 'u32',
  /** Reduce-then-scan: consecutive tiles one upsweep workgroup counts (a chunk). */
  tiles_per_chunk: 'u32',
  /** Chunks (rows of \`row_prefix\` have one entry per chunk). */
  num_chunks: 'u32',
} as const;
export const RADIX_PARAMS = PARAMS;

export const CEIL_DIV_WGSL = /* wgsl */ `
// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }
`;

export const ITEM_COUNT = /* wgsl */ `
fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}
${CEIL_DIV_WGSL}`;

/**
 * {@link orderKeyWgsl}'s `order_key` for `order`, and `digit_of(raw)`: this pass's digit of a key (params
 * `shift`, `digit_mask`).
 */
export function digitWgsl(order: KeyOrder): string {
  return /* wgsl */ `
${orderKeyWgsl(order)}
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }`;
}

/**
 * Rounds up to which a loop is written with a constant trip count (`stridedLoop`, `boundedLoop`). Dawn
 * guards every loop whose end it cannot prove (unless robustness is off) with a counter and a second exit,
 * and behind such loops the NVIDIA compiler no longer knows the subgroup is converged: every ballot after
 * them reads the active mask again (docs/decisions/constant-trip-loops.md). Longer loops keep their plain
 * form: software drivers unroll constant loops, and long unrolled loops multiply their compile times.
 */
const MAX_CONSTANT_TRIPS = 8;

/**
 * WGSL for `for (var i = start; i < end; i += step) { body }`, constant `end` and `step`, `start` in [0, step):
 * a constant trip count up to {@link MAX_CONSTANT_TRIPS} rounds.
 */
function stridedLoop(variable: string, start: string, end: number, step: number, body: string): string {
  const trips = Math.ceil(end / step);
  if (trips > MAX_CONSTANT_TRIPS) {
    return `for (var ${variable} = ${start}; ${variable} < ${end}u; ${variable} += ${step}u) {
    ${body}
  }`;
  }
  const check = end % step === 0 ? '' : `if (${variable} >= ${end}u) { break; }`;
  return `for (var weft_trip = 0u; weft_trip < ${trips}u; weft_trip++) {
    let ${variable} = ${start} + weft_trip * ${step}u;
    ${check}
    ${body}
  }`;
}

/**
 * WGSL for `for (var i = 0u; i < count; i++) { body }`, `count` at most `max`: a constant trip count up to
 * {@link MAX_CONSTANT_TRIPS} rounds.
 */
function boundedLoop(variable: string, count: string, max: number, body: string): string {
  return `${boundedLoopHead(variable, count, max)}
    ${body}
  }`;
}

/** {@link boundedLoop} up to its body: the body and the closing brace follow (for bodies built in place). */
function boundedLoopHead(variable: string, count: string, max: number): string {
  if (max > MAX_CONSTANT_TRIPS) return `for (var ${variable} = 0u; ${variable} < ${count}; ${variable}++) {`;
  return `for (var ${variable} = 0u; ${variable} < ${max}u; ${variable}++) {
    if (${variable} >= ${count}) { break; }`;
}

/**
 * Exclusive scan over the workgroup in *slot* order. A slot is `w * subgroup_size + lane`, where `w` is
 * `subgroup_index()` (`SUBGROUP_INDEX_WGSL` of `@weft/gpu`): this makes slot order match subgroup scan
 * order without assuming how the hardware lays subgroups over `local_invocation_index`. Needs full subgroups.
 * Returns (exclusive prefix, workgroup total) for both components.
 */
function slotScanWgsl(config: RadixTileConfig): string {
  const maxSubgroups = config.maxSubgroups;
  if (!config.subgroups) {
    // Virtual subgroups lie in invocation order, so slot order is invocation order.
    return /* wgsl */ `${workgroupScanWgsl(config.threads)}
fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}
`;
  }
  return /* wgsl */ `
var<workgroup> sg_totals: array<vec2<u32>, ${maxSubgroups}>;
${SUBGROUP_INDEX_WGSL}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  let inclusive = subgroupInclusiveAdd(v);
  if (lane == sg_size - 1u) { sg_totals[w] = inclusive; }
  workgroupBarrier();
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  ${boundedLoop(
    'i',
    'num_sg',
    maxSubgroups,
    `let t = sg_totals[i];
    if (i < w) { before += t; }
    total += t;`,
  )}
  // The next call overwrites sg_totals: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before + inclusive - v, total);
}
`;
}

export function upsweepWgsl(config: RadixTileConfig, order: KeyOrder): string {
  const kpt = config.keysPerThread;
  const t = config.threads;
  const tile = tileSize(config);
  const dpt = digitsPerThread(config);
  return /* wgsl */ `
${digitWgsl(order)}
${ITEM_COUNT}
// Two histograms, a tile's in each by turns: one barrier a tile (a thread takes its digits' counts from one
// while the next tile counts into the other).
var<workgroup> hist: array<atomic<u32>, ${2 * RADIX}>;
var<workgroup> n_shared: u32;

@compute @workgroup_size(${t})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let chunk = weft_workgroup_index(wid, nwg);
  for (var d = lid; d < ${2 * RADIX}u; d += ${t}u) { atomicStore(&hist[d], 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let active_tiles = ceil_div(n, ${tile}u);
  let first_tile = chunk * params.tiles_per_chunk;
  // Chunks past the count write nothing: row_scan treats them as empty.
  if (chunk >= params.num_chunks || first_tile >= active_tiles) { return; }
  let end_tile = min(first_tile + params.tiles_per_chunk, active_tiles);
  // This thread's digits lid * D + q: the chunk's count of each before the current tile.
  var running: array<u32, ${dpt}>;
  for (var tile = first_tile; tile < end_tile; tile++) {
    let tile_start = tile * ${tile}u;
    let half = ((tile - first_tile) & 1u) * ${RADIX}u;
    // Every load first, then the atomics: an atomic between two loads keeps the second from issuing early.
    var keys: array<u32, ${kpt}>;
${unrolled(
  kpt,
  (j) => `
      let i = tile_start + ${j} * ${t}u + lid;
      if (i < n) { keys[${j}] = keys_in[i]; }`,
)}
${unrolled(kpt, (j) => `   if (tile_start + ${j} * ${t}u + lid < n) { atomicAdd(&hist[half + digit_of(keys[${j}])], 1u); }`)}
    // With one tile a chunk every tile's prefix in its chunk is 0: neither written nor read.
    if (params.tiles_per_chunk > 1u) {
      for (var q = 0u; q < ${dpt}u; q++) { tile_prefix[tile * ${RADIX}u + lid * ${dpt}u + q] = running[q]; }
    }
    workgroupBarrier();
    for (var q = 0u; q < ${dpt}u; q++) {
      let at = half + lid * ${dpt}u + q;
      running[q] += atomicLoad(&hist[at]);
      atomicStore(&hist[at], 0u);
    }
  }
  for (var q = 0u; q < ${dpt}u; q++) { row_prefix[(lid * ${dpt}u + q) * params.num_chunks + chunk] = running[q]; }
}
`;
}

export function rowScanWgsl(config: RadixTileConfig): string {
  const tile = tileSize(config);
  const t = config.threads;
  return /* wgsl */ `
${ITEM_COUNT}
${slotScanWgsl(config)}
var<workgroup> n_shared: u32;

@compute @workgroup_size(${t})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
  let digit = wid.x;
  if (lid == 0u) { n_shared = item_count(); atomicStore(&subgroup_ticket, 0u); }
  let n = workgroupUniformLoad(&n_shared);
  // Rows have one entry per chunk of tiles_per_chunk tiles.
  let active_chunks = min(ceil_div(ceil_div(n, ${tile}u), params.tiles_per_chunk), params.num_chunks);
  let w = subgroup_index();
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let slot = w * sg_size + lane;
  let row = digit * params.num_chunks;
  var carry = 0u;
  // Each round scans 4 consecutive chunks per slot.
  for (var base = 0u; base < active_chunks; base += ${4 * t}u) {
    let t0 = base + slot * 4u;
    var v = vec4<u32>(0u);
    for (var q = 0u; q < 4u; q++) {
      if (t0 + q < active_chunks) { v[q] = row_prefix[row + t0 + q]; }
    }
    let r = slot_scan(vec2<u32>(v.x + v.y + v.z + v.w, 0u), w, lane, sg_size, num_sg);
    var run = carry + r.x;
    for (var q = 0u; q < 4u; q++) {
      if (t0 + q < active_chunks) { row_prefix[row + t0 + q] = run; }
      run += v[q];
    }
    carry += r.z;
  }
  if (lid == 0u) { digit_total[digit] = carry; }
}
`;
}

/** Workgroup memory and helpers of a kernel that ranks a tile (see {@link rankTileWgsl}). */
export function tileSharedWgsl(config: RadixTileConfig): string {
  const tile = tileSize(config);
  return /* wgsl */ `
${slotScanWgsl(config)}
// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > ${tile} keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, ${tileHistWords(config)}>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, ${config.sharedWords}>;
var<workgroup> local_start: array<u32, ${RADIX}>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, ${RADIX}>;
var<workgroup> n_shared: u32;

${config.subgroups ? laneMaskWgsl(config.maskWords) : ''}
`;
}

/**
 * Lane-mask helpers over `LaneMask` (u32 for subgroups of at most 32 lanes, else vec4<u32>):
 * `lanes_below(lane)`, `mask_count(m)`, `lowest_lane(m)`, `ballot(p)`.
 */
function laneMaskWgsl(words: 1 | 4): string {
  if (words === 1) {
    return /* wgsl */ `
alias LaneMask = u32;
fn ballot(p: bool) -> u32 { return subgroupBallot(p).x; }
fn lanes_below(lane: u32) -> u32 { return (1u << lane) - 1u; }
fn mask_count(m: u32) -> u32 { return countOneBits(m); }
fn lowest_lane(m: u32) -> u32 { return weft_trailing_zeros(m); }`;
  }
  return /* wgsl */ `
alias LaneMask = vec4<u32>;
fn ballot(p: bool) -> vec4<u32> { return subgroupBallot(p); }
fn mask_below(lane: u32, word: u32) -> u32 {
  let lo = word * 32u;
  if (lane <= lo) { return 0u; }
  if (lane >= lo + 32u) { return 0xffffffffu; }
  return (1u << (lane - lo)) - 1u;
}
fn lanes_below(lane: u32) -> vec4<u32> {
  return vec4<u32>(mask_below(lane, 0u), mask_below(lane, 1u), mask_below(lane, 2u), mask_below(lane, 3u));
}
fn mask_count(m: vec4<u32>) -> u32 {
  let c = countOneBits(m);
  return c.x + c.y + c.z + c.w;
}
fn lowest_lane(m: vec4<u32>) -> u32 { return weft_trailing_zeros4(m); }`;
}

/** Zeroes the per-subgroup histograms and `subgroup_ticket` (before the barrier that reads `n`). */
export function tileInitWgsl(config: RadixTileConfig): string {
  return /* wgsl */ `
  ${stridedLoop('i', 'lid', tileHistWords(config), config.threads, 'atomicStore(&hist[i], 0u);')}
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }`;
}

/**
 * The ranking's per-thread constants: `w` (subgroup index), `slot`, `max_digit`, and for the ballots
 * `all_lanes` and `below`.
 */
function tileLanesWgsl(ballots: boolean): string {
  return /* wgsl */ `
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  ${ballots ? 'let all_lanes = ballot(true);\n  let below = lanes_below(lane);' : ''}`;
}

/**
 * Loads this subgroup's block of a tile (`block`: its first index) from `source` into the private array
 * `target`; keys past `n` become the order's pad key where it has one (see {@link rankTileWgsl}).
 */
function loadTileWgsl(
  config: RadixTileConfig,
  order: KeyOrder,
  target: 'keys' | 'vals',
  source: string,
  block: string,
): string {
  const padKey = target === 'keys' ? padKeyOf(order) : undefined;
  return unrolled(
    config.keysPerThread,
    (k) => `
    let idx = ${block} + ${k} * sg_size + lane;
    if (idx < n) { ${target}[${k}] = ${source}[idx]; }${padKey === undefined ? '' : ` else { ${target}[${k}] = ${padKey}u; }`}`,
  );
}

/**
 * Ranks the tile at `tile_start` (keys < `n` valid) and stages its keys in `staged` in digit order. Each
 * slot owns D = 256 / threads consecutive digits, `slot * D + q` for q < D. Leaves, per owned digit q:
 * `tile_count[q]` (keys of the digit in the tile, valid only), `digit_start[q]` (exclusive prefix of
 * `digitTotal(d)` over digits), `tile_digit_start[q]` (the digit's start in the staged tile; `local_start[]`
 * holds every digit's), and per thread `pos[]` and, with `pairs`, the keys' values in `vals[]` (for
 * {@link scatterTileWgsl}). `digitTotal` is an expression of the digit `d`. Options: `afterCount` runs as soon
 * as `tile_count` is known (OneSweep publishes it there); `preloaded`: the caller has declared
 * {@link tileLanesWgsl}'s constants and `keys[]`, `pos[]` (and `vals[]`) and loaded the tile into them.
 *
 * `stable` (the default): equal digits keep their input order (subgroup ballots). The order's pad key
 * ({@link padKeyOf}), where it has one, fills the slots past the input's end, so no key needs a check
 * against `n` while it is ranked. Unstable: each key takes its place within its digit by one workgroup
 * atomic on the tile's histogram, in whatever order the atomics land; only for a pass whose equal digits
 * carry no order to keep (see {@link unorderedFirstPass}). Keys past the end then keep their own slots.
 */
export function rankTileWgsl(
  config: RadixTileConfig,
  order: KeyOrder,
  pairs: boolean,
  digitTotal: string,
  {
    afterCount = '',
    stable = true,
    preloaded = false,
  }: { afterCount?: string; stable?: boolean; preloaded?: boolean } = {},
): string {
  const padKey = padKeyOf(order);
  // Keys past the end rank as the largest digit after every real key, so they fill the tile's last slots:
  // as the pad key, or by a check.
  const digitOf = (key: string, k: string) =>
    padKey === undefined
      ? `select(max_digit, digit_of(${key}), block + ${k} * sg_size + lane < n)`
      : `digit_of(${key})`;
  const kpt = config.keysPerThread;
  const tile = tileSize(config);
  const dpt = digitsPerThread(config);
  // Without subgroups: sort the tile's (digit, tile index) pairs in workgroup memory by two digit bits a
  // pass, each thread moving ${kpt} consecutive pairs (a split keeps their order, so the sort is stable), then
  // each key reads where its index ended up. Few barriers, in loops: Mesa's software drivers compile every
  // barrier site slowly.
  const splitRanks = /* wgsl */ `
${unrolled(
  kpt,
  (k) => `
    let d = ${digitOf(`keys[${k}]`, k)};
    let at = block - tile_start + ${k} * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);`,
)}
  workgroupBarrier();
  var entry: array<u32, ${kpt}>;
  for (var j = 0u; j < ${kpt}u; j++) { entry[j] = staged[lid * ${kpt}u + j]; }
  for (var b = 0u; b < ${RADIX_BITS}u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < ${kpt}u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < ${kpt}u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < ${kpt}u; j++) { entry[j] = staged[lid * ${kpt}u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < ${kpt}u; j++) { staged[entry[j] & 0xffffu] = lid * ${kpt}u + j; }
  workgroupBarrier();
${unrolled(kpt, (k) => `   pos[${k}] = staged[block - tile_start + ${k} * sg_size + lane];`)}
  ${stridedLoop('d', 'slot', RADIX, config.threads, 'local_start[d] = atomicLoad(&hist[d]);')}
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);`;
  const ballotRanks = /* wgsl */ `
${unrolled(
  kpt,
  (k) => `
    let d = ${digitOf(`keys[${k}]`, k)};
    // Lanes holding the same digit: those whose ballot agrees with this lane's bit on all 8 bits (a constant
    // count the compiler unrolls; the bits above a partial last digit are zero in every lane, so their
    // ballots change nothing). One mask collects every disagreement, \`ballot ^ (bit ? ~0 : 0)\`, in place of
    // ANDing each ballot or its complement in: fewer instructions a round.
    var differ = LaneMask(0u);
    for (var b = 0u; b < ${RADIX_BITS}u; b++) {
      let bit_set = ((d >> b) & 1u) == 1u;
      differ |= ballot(bit_set) ^ select(LaneMask(0u), ~LaneMask(0u), bit_set);
    }
    let peers = all_lanes & ~differ;
    let rank = mask_count(peers & below);
    let word = w * 128u + (d & 127u);
    let half = (d >> 7u) * 16u;
    // Every lane adds: the leader its peers' count, the others zero, so no branch surrounds the atomic.
    var before = atomicAdd(&hist[word], select(0u, mask_count(peers) << half, rank == 0u));
    before = subgroupShuffle(before, lowest_lane(peers));
    pos[${k}] = ((before >> half) & 0xffffu) + rank;`,
)}
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);

  // Per histogram word (digits d and d + 128): exclusive prefix over subgroups (in place) and the tile's count.
  ${stridedLoop(
    'hw',
    'slot',
    128,
    config.threads,
    `var run = 0u;
    ${boundedLoop(
      'i',
      'num_sg',
      config.maxSubgroups,
      `let v = atomicLoad(&hist[i * 128u + hw]);
      atomicStore(&hist[i * 128u + hw], run);
      run += v;`,
    )}
    local_start[hw] = run & 0xffffu;
    local_start[hw + 128u] = run >> 16u;`,
  )}
  workgroupBarrier();`;
  // Keys past the end add nothing and keep their own slots, which lie past every real key's.
  const atomicRanks = /* wgsl */ `
${unrolled(kpt, (k) => `   pos[${k}] = atomicAdd(&hist[digit_of(keys[${k}])], select(0u, 1u, block + ${k} * sg_size + lane < n));`)}
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);`;
  return /* wgsl */ `
  ${preloaded ? '' : tileLanesWgsl(stable && config.subgroups)}
  let block = tile_start + w * sg_size * ${kpt}u;
  ${preloaded ? '' : `var keys: array<u32, ${kpt}>;\n  var pos: array<u32, ${kpt}>;${pairs ? `\n  var vals: array<u32, ${kpt}>;` : ''}`}
  ${
    preloaded
      ? ''
      : `// All loads first, so they are in flight together.
${loadTileWgsl(config, order, 'keys', 'keys_in', 'block')}
${
  pairs
    ? `  // The values too, with the keys: their loads then overlap the ranking, which pays for the registers
  // they hold meanwhile.
${loadTileWgsl(config, order, 'vals', 'values_in', 'block')}`
    : ''
}`
  }
${stable ? (config.subgroups ? ballotRanks : splitRanks) : atomicRanks}
  let valid_in_tile = min(${tile}u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, ${dpt}>;
  var tile_count: array<u32, ${dpt}>;
  var totals: array<u32, ${dpt}>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < ${dpt}u; q++) {
    let d = slot * ${dpt}u + q;
    ${
      stable
        ? `padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, ${tile}u - valid_in_tile, d == max_digit);`
        : `tile_count[q] = atomicLoad(&hist[d]);
    padded[q] = tile_count[q];`
    }
    totals[q] = ${digitTotal};
    sums += vec2<u32>(padded[q], totals[q]);
  }
  ${afterCount}
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, ${dpt}>;
  var tile_digit_start: array<u32, ${dpt}>;
  var run = starts.xy;
  for (var q = 0u; q < ${dpt}u; q++) {
    local_start[slot * ${dpt}u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();
${
  stable
    ? // The split ranking leaves final positions.
      !config.subgroups
      ? ''
      : unrolled(
          kpt,
          (k) => `
    let d = ${digitOf(`keys[${k}]`, k)};
    let sub = (atomicLoad(&hist[w * 128u + (d & 127u)]) >> ((d >> 7u) * 16u)) & 0xffffu;
    pos[${k}] += local_start[d] + sub;`,
        )
    : unrolled(
        kpt,
        (k) => `
    let idx = block + ${k} * sg_size + lane;
    pos[${k}] = select(idx - tile_start, local_start[digit_of(keys[${k}])] + pos[${k}], idx < n);`,
      )
}
${unrolled(kpt, (k) => ` staged[pos[${k}]] = keys[${k}];`)}`;
}

/**
 * Whether the first pass may rank unstably: only the first pass of a keys-only sort whose order key tells
 * every two distinct keys apart (u32 and i32 over all 32 bits). An LSD sort needs stable passes to keep the
 * lower digits' order, but the first pass has no lower digits; and keys that map to the same order key are
 * then the same bits, so no order among them can be seen. Not with values (their order is the
 * stability users see), `bits` below 32 (the high bits are carried along unsorted) or f32 (every NaN
 * maps to one order key).
 */
export function unorderedFirstPass(order: KeyOrder, pairs: boolean, sortBits: number): boolean {
  return !pairs && order.type !== 'f32' && sortBits === 32;
}

/**
 * Writes the staged tile's key i to `scatter_base[digit] + i` (keys, then values). `afterValuesStaged` runs
 * once `vals[]` is in workgroup memory (its registers are free from there).
 */
export function scatterTileWgsl(
  config: RadixTileConfig,
  pairs: boolean,
  {
    afterValuesStaged = '',
    storeKey = 'keys_out[o] = key;',
  }: { afterValuesStaged?: string; storeKey?: string } = {},
): string {
  const kpt = config.keysPerThread;
  const t = config.threads;
  return /* wgsl */ `
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  ${pairs ? `var dst: array<u32, ${kpt}>;` : ''}
${unrolled(
  kpt,
  (j) => `
    let i = ${j} * ${t}u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      ${storeKey}
      ${pairs ? `dst[${j}] = o;` : ''}
    }`,
)}
  ${
    pairs
      ? `workgroupBarrier();
  // Slots past the input's end get zeros, which are never written out.
${unrolled(kpt, (k) => ` staged[pos[${k}]] = vals[${k}];`)}
  ${afterValuesStaged}
  workgroupBarrier();
${unrolled(
  kpt,
  (j) => `
    let i = ${j} * ${t}u + lid;
    if (i < valid_in_tile) { values_out[dst[${j}]] = staged[i]; }`,
)}`
      : ''
  }`;
}

/**
 * Per owned digit: `scatter_base`, the digit's output start for this tile minus its tile-local start (the
 * digit's start, the chunk's prefix in its row and the tile's prefix in its chunk).
 */
function scatterBaseWgsl(config: RadixTileConfig, bucketed: Bucketed | undefined): string {
  const dpt = digitsPerThread(config);
  const base =
    bucketed === 'inner' || bucketed === 'last' ? 'bucket_base[bucket * 256u + d]' : 'digit_start[q]';
  return /* wgsl */ `
  for (var q = 0u; q < ${dpt}u; q++) {
    let d = slot * ${dpt}u + q;
    scatter_base[d] = ${base} + tile_out_of(tile, d) - tile_digit_start[q];
  }`;
}

/**
 * The passes of a sort by the top digit first (see `prepareBucketed` in bucketed-passes.ts): `top` sorts by the
 * top digit into buckets whose starts are rounded up to whole tiles; `inner` sorts by a lower digit inside
 * each bucket (every tile lies in one bucket); `last` does so and writes each bucket's real keys only,
 * closing up the padding.
 */
export type Bucketed = 'top' | 'inner' | 'last';

/** Layout of the bucket table (u32 words) the bucketed passes read. */
export const BUCKET_TABLE = {
  /** 257 words: each bucket's first tile, then the padded array's tile count. */
  firstTile: 0,
  /** 256 words: each bucket's key count (its real keys). */
  count: 257,
  /** 256 words: each bucket's start in the unpadded output. */
  start: 513,
  /** One word a tile of the padded array: the bucket it lies in. */
  tileBucket: 769,
} as const;

/** Per tile (uniform): `bucket`, and for `last` the bound and shift that drop padding and close it up. */
function bucketOfTileWgsl(config: RadixTileConfig, bucketed: Bucketed | undefined): string {
  if (bucketed !== 'inner' && bucketed !== 'last') return '';
  const tile = tileSize(config);
  return /* wgsl */ `
    let bucket = buckets[${BUCKET_TABLE.tileBucket}u + tile];
    ${
      bucketed === 'last'
        ? `let bucket_first = buckets[${BUCKET_TABLE.firstTile}u + bucket] * ${tile}u;
    // Slots from here on in the bucket are padding; real keys move down by the padding of earlier buckets.
    let keep_below = bucket_first + buckets[${BUCKET_TABLE.count}u + bucket];
    let close_up = bucket_first - buckets[${BUCKET_TABLE.start}u + bucket];`
        : ''
    }`;
}

/** `tile_out_of(tile, d)`: where digit `d`'s keys of `tile` start among the digit's output. */
export const TILE_OUT_WGSL = /* wgsl */ `
fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * ${RADIX}u + d]; }
  return out;
}`;

/**
 * The reduce-then-scan downsweep. With `tilesPerWorkgroup` 1, one workgroup ranks and scatters one tile.
 * With more, each workgroup takes every `stride`-th tile (stride = workgroups launched, so concurrent
 * workgroups still take neighbouring tiles and write close together in each digit's output) and loads its
 * next tile's keys as soon as the current tile's keys are staged: the loads are in flight while the tile
 * scatters, in registers the staged keys no longer need.
 */
export function downsweepWgsl(
  config: RadixTileConfig,
  pairs: boolean,
  order: KeyOrder,
  {
    stable = true,
    tilesPerWorkgroup = 1,
    bucketed,
  }: { stable?: boolean; tilesPerWorkgroup?: number; bucketed?: Bucketed } = {},
): string {
  const tile = tileSize(config);
  const kpt = config.keysPerThread;
  // The top pass's digits start at whole tiles; the inner passes take their starts from bucket_base.
  const digitTotal =
    bucketed === 'top'
      ? `ceil_div(digit_total[d], ${tile}u) * ${tile}u`
      : bucketed === undefined
        ? 'digit_total[d]'
        : '0u';
  const storeKey =
    bucketed === 'last' ? 'if (o < keep_below) { keys_out[o - close_up] = key; }' : 'keys_out[o] = key;';
  const header = /* wgsl */ `
${digitWgsl(order)}
${ITEM_COUNT}
${tileSharedWgsl(config)}
${TILE_OUT_WGSL}

@compute @workgroup_size(${config.threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
  ${tileInitWgsl(config)}
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);`;
  if (tilesPerWorkgroup === 1) {
    return /* wgsl */ `${header}
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * ${tile}u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  ${bucketOfTileWgsl(config, bucketed)}
  ${rankTileWgsl(config, order, pairs, digitTotal, { stable })}
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  ${scatterBaseWgsl(config, bucketed)}
  ${scatterTileWgsl(config, pairs, { storeKey })}
}
`;
  }
  const nextBlock = `next_tile * ${tile}u + w * sg_size * ${kpt}u`;
  return /* wgsl */ `${header}
  let active_tiles = min(params.num_tiles, ceil_div(n, ${tile}u));
  let stride = nwg.x * nwg.y;
  let first_tile = weft_workgroup_index(wid, nwg);
  if (first_tile >= active_tiles) { return; }
  ${tileLanesWgsl(stable && config.subgroups)}
  var keys: array<u32, ${kpt}>;
  var pos: array<u32, ${kpt}>;
  ${pairs ? `var vals: array<u32, ${kpt}>;` : ''}
  {
    let next_tile = first_tile;
${loadTileWgsl(config, order, 'keys', 'keys_in', nextBlock)}
${pairs ? loadTileWgsl(config, order, 'vals', 'values_in', nextBlock) : ''}
  }
  // At most tilesPerWorkgroup rounds (the grid has at least num_tiles / tilesPerWorkgroup workgroups).
  let rounds = ceil_div(active_tiles - first_tile, stride);
  ${boundedLoopHead('round', 'rounds', tilesPerWorkgroup)}
    let tile = first_tile + round * stride;
    let tile_start = tile * ${tile}u;
    let next_tile = tile + stride;
    ${bucketOfTileWgsl(config, bucketed)}
    ${rankTileWgsl(config, order, pairs, digitTotal, { stable, preloaded: true })}
    // The keys are staged: their registers take the next tile's, loading while this tile scatters. (Loading
    // the digit totals and the tile's offsets a tile ahead too was slower.)
    if (next_tile < active_tiles) {
${loadTileWgsl(config, order, 'keys', 'keys_in', nextBlock)}
    }
    ${scatterBaseWgsl(config, bucketed)}
    ${scatterTileWgsl(config, pairs, {
      storeKey,
      afterValuesStaged: `if (next_tile < active_tiles) {
${loadTileWgsl(config, order, 'vals', 'values_in', nextBlock)}
  }`,
    })}
    // The next tile counts into cleared histograms (every read of them came before the scatter's barrier)
    // and stages only once this tile's scatter has read \`staged\` and \`scatter_base\`.
    ${stridedLoop('i', 'lid', tileHistWords(config), config.threads, 'atomicStore(&hist[i], 0u);')}
    workgroupBarrier();
  }
}
`;
}

/** Copies the first `item_count()` elements from `src` to `dst` (a kernel, so it stays in the pass). */
export const COPY_PREFIX_WGSL = /* wgsl */ `
fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}
@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${THREADS}u + lid;
  if (i < item_count()) { dst[i] = src[i]; }
}
`;
