import { type Monoid, SUBGROUP_INDEX_WGSL, unrolled } from '@weft/gpu';
import { ASSIGN_SEGMENTS_WGSL, mergePathSearch, tileRangeWgsl, WORKGROUP } from '@weft/lbs/merge-path';

export { WORKGROUP };
/**
 * Merge steps each thread of a segreduce tile walks serially (odd: see @weft/lbs's ITEMS_PER_THREAD). 11
 * measured fastest of the odd values tried (docs/decisions/merge-path-tiles.md).
 */
export const ITEMS_PER_THREAD = 11;
/** Merge-path elements per tile: TILE + 1 u32 of workgroup memory (11 KiB) plus the tile's partial sums. */
export const TILE = WORKGROUP * ITEMS_PER_THREAD;

/**
 * Loads the tile's values into the registers `early` before the segment starts are asked for: they wait only
 * on the partition. `STORE_VALUES_WGSL` then puts them in sh after the starts. `value` gives item `i`'s
 * value: `values[i]`, or a functor of the index alone.
 */
const loadValuesWgsl = (value: (i: string) => string) => /* wgsl */ `
  var early: array<u32, ${ITEMS_PER_THREAD}>;
${unrolled(
  ITEMS_PER_THREAD,
  (k) => `
    let local = ${k} * ${WORKGROUP}u + lid;
    if (local < range.na) { early[${k}] = bitcast<u32>(${value('range.a0 + local')}); }`,
)}`;
const STORE_VALUES_WGSL = /* wgsl */ `
${unrolled(
  ITEMS_PER_THREAD,
  (k) => `
    let local = ${k} * ${WORKGROUP}u + lid;
    if (local < na) { sh[nb + 1u + local] = early[${k}]; }`,
)}`;

/**
 * Where the tile kernel gets item values: a functor of (index, seg, rank), `values[index]`, or a functor of
 * the index alone (`seg_item`), whose loads start before the tile's segments are known.
 */
export type ValueSource = 'functor' | 'array' | 'index';

/**
 * The tile kernel. Workgroup memory `sh`: sh[0] = the start of the segment open when the tile begins,
 * sh[1 + j] = offsets[b0 + j] for the tile's nb segment starts, from sh[nb + 1] one word per item (first its
 * segment, then its value as bits). Every segment whose start falls in the tile is written here: whole when
 * it also ends in the tile, else its first piece, which the fix-up pass completes. `carry[tile]` gets the
 * tile's piece of segment b0 - 1, the one open when the tile begins.
 */
export function tileKernel(monoid: Monoid, source: ValueSource, subgroups: boolean): string {
  const T = monoid.type;
  const I = monoid.identity;
  const scan = subgroups ? subgroupTailScan(T, I) : barrierTailScan(T, I);
  const values =
    source === 'functor'
      ? /* wgsl */ `
  // Serial merge of this thread's steps: a start opens a segment, an item takes the open one.
  lbs_assign_segments(diag, end, a_start, a0, na, b0, nb);
  workgroupBarrier();
  // The functor runs in index order across threads, so its memory accesses coalesce; unrolled, with the
  // values kept in registers until all are loaded, a thread has all its items' loads in flight at once.
  var early: array<u32, ${ITEMS_PER_THREAD}>;
${unrolled(
  ITEMS_PER_THREAD,
  (k) => `
    let local = ${k} * ${WORKGROUP}u + lid;
    early[${k}] = bitcast<u32>(${T}(${I}));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[${k}] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }`,
)}
${STORE_VALUES_WGSL}`
      : STORE_VALUES_WGSL;

  return /* wgsl */ `
var<workgroup> sh: array<u32, ${TILE + 1}>;
${scan.shared}

${mergePathSearch('tile_search', 'sh[1u + $J]')}
${source === 'functor' ? ASSIGN_SEGMENTS_WGSL : ''}
${tileRangeWgsl(TILE)}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32${scan.builtins}) {
  let tile = weft_workgroup_index(wid, nwg);
${scan.init}
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_bounds(tile);
${source === 'functor' ? '' : loadValuesWgsl((i) => (source === 'array' ? `values[${i}]` : `seg_item(${i})`))}
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
${scan.slot}
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * ${ITEMS_PER_THREAD}u, na + nb);
  let end = min(diag + ${ITEMS_PER_THREAD}u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;
${values}
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = ${I};
  var head = ${I};
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = ${I};
      b++;
    } else {
      acc = seg_combine(acc, bitcast<${T}>(sh[nb + 1u + a]));
      a++;
    }
  }

${scan.code}
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == ${WORKGROUP - 1}u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}`;
}

/**
 * The fix-up pass, one thread per tile: folds each tile's piece of the segment open at its start into
 * that segment's output. Runs of tiles inside one long segment are combined in workgroup memory first, so a
 * segment over k tiles costs about k / ${WORKGROUP} atomic folds.
 */
export function fixupKernel(monoid: Monoid): string {
  const T = monoid.type;
  const I = monoid.identity;
  const fold = monoid.atomic
    ? `${monoid.atomic}(&output[seg], v);`
    : /* wgsl */ `
  // Lock-free compare-exchange: some invocation succeeds each round, none waits on another workgroup.
  var old = atomicLoad(&output[seg]);
  loop {
    let next = bitcast<u32>(seg_combine(bitcast<${T}>(old), v));
    let r = atomicCompareExchangeWeak(&output[seg], old, next);
    if (r.exchanged) { break; }
    old = r.old_value;
  }`;
  return /* wgsl */ `
var<workgroup> keys: array<u32, ${WORKGROUP}>;
var<workgroup> pieces: array<${T}, ${WORKGROUP}>;

fn fold(seg: u32, v: ${T}) {${fold}
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  var key = 0xffffffffu;
  var v = ${I};
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * ${TILE}u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<${T}>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < ${WORKGROUP}u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(${I})) { fold(key, acc); }
  }
}`;
}

interface TailScan {
  /** Workgroup declarations. */
  shared: string;
  /** Extra entry-point builtins. */
  builtins: string;
  /** Runs first (before a barrier). */
  init: string;
  /** Defines `slot`: the thread's position in scan order (the order of its merge steps). */
  slot: string;
  /**
   * From each thread's tail (\`boundary\`: a segment starts in the thread; \`acc\`: the sum since the last
   * start), defines \`inclusive\` (the segmented inclusive scan at this slot) and \`carry_in\` (the same at the
   * slot before, the identity for slot 0).
   */
  code: string;
}

/** Hillis-Steele over workgroup memory: log2(${WORKGROUP}) rounds of two barriers (adapters without subgroups). */
function barrierTailScan(T: string, I: string): TailScan {
  return {
    shared: /* wgsl */ `var<workgroup> scan_flag: array<u32, ${WORKGROUP}>;
var<workgroup> scan_value: array<${T}, ${WORKGROUP}>;`,
    builtins: '',
    init: '',
    slot: '  let slot = lid;',
    code: /* wgsl */ `
  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < ${WORKGROUP}u; off <<= 1u) {
    var f = scan_flag[lid];
    var v = scan_value[lid];
    if (lid >= off && f == 0u) {
      v = seg_combine(scan_value[lid - off], v);
      f = scan_flag[lid - off];
    }
    workgroupBarrier();
    scan_flag[lid] = f;
    scan_value[lid] = v;
    workgroupBarrier();
  }
  let inclusive = scan_value[lid];
  let carry_in = select(${I}, scan_value[max(lid, 1u) - 1u], lid > 0u);`,
  };
}

/**
 * Subgroup shuffles inside each subgroup, one barrier to share the subgroups' totals. Slots are
 * \`subgroup ticket * subgroup size + lane\`, so scan order is subgroup order whatever the hardware's
 * layout of subgroups over invocations; needs full subgroups (${WORKGROUP} is a multiple of every size).
 */
function subgroupTailScan(T: string, I: string): TailScan {
  // At most this many subgroups: the smallest subgroup WebGPU allows has 4 lanes.
  const maxSubgroups = WORKGROUP / 4;
  return {
    shared: /* wgsl */ `${SUBGROUP_INDEX_WGSL}
var<workgroup> sg_flag: array<u32, ${maxSubgroups}>;
var<workgroup> sg_value: array<${T}, ${maxSubgroups}>;`,
    builtins: ',\n        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32',
    // Zeroed explicitly: Dawn may be told not to zero workgroup memory.
    init: '  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }',
    slot: /* wgsl */ `  let w = subgroup_index();
  let slot = w * sg_size + lane;`,
    code: /* wgsl */ `
  // Segmented scan: (f1, v1) then (f2, v2) gives (f1 | f2, f2 ? v2 : v1 + v2).
  var f = select(0u, 1u, boundary);
  var v = acc;
  for (var off = 1u; off < sg_size; off <<= 1u) {
    let pf = subgroupShuffleUp(f, off);
    let pv = subgroupShuffleUp(v, off);
    if (lane >= off) {
      if (f == 0u) { v = seg_combine(pv, v); }
      f |= pf;
    }
  }
  if (lane == sg_size - 1u) {
    sg_flag[w] = f;
    sg_value[w] = v;
  }
  workgroupBarrier();
  // What the earlier subgroups carry into this one.
  var before = ${I};
  for (var i = 0u; i < w; i++) {
    if (sg_flag[i] != 0u) { before = sg_value[i]; } else { before = seg_combine(before, sg_value[i]); }
  }
  let inclusive = select(seg_combine(before, v), v, f != 0u);
  var carry_in = subgroupShuffleUp(inclusive, 1u);
  if (lane == 0u) { carry_in = before; }`,
  };
}

/**
 * The tile kernel of integer sums (u32/i32 plus, exact modulo 2^32): a segment's piece in a tile is the
 * difference of the tile's prefix sums at the piece's two ends, so the tile needs a scan, not a serial walk.
 * Same outputs as {@link tileKernel}: each segment starting in the tile gets its value (or first piece) and
 * `carry[tile]` the items before the tile's first start, which the fix-up folds in. Values are handled as
 * u32 bits: i32 sums wrap the same way. Workgroup memory `sh` as in {@link tileKernel}: the segment starts
 * from sh[1], the items from sh[nb + 1].
 */
export function prefixTileKernel(T: string): string {
  return /* wgsl */ `
var<workgroup> sh: array<u32, ${TILE + 1}>;
${SUBGROUP_INDEX_WGSL}
var<workgroup> sg_sums: array<u32, ${WORKGROUP / 4}>;
var<workgroup> tile_total: u32;
${tileRangeWgsl(TILE)}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  // Zeroed explicitly: Dawn may be told not to zero workgroup memory.
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_bounds(tile);
${loadValuesWgsl((i) => `values[${i}]`)}
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
${STORE_VALUES_WGSL}
  workgroupBarrier();
  let base = nb + 1u;
  // Subgroups in ticket order, so slot order is scan order whatever the hardware's subgroup layout.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  // Each slot sums ${ITEMS_PER_THREAD} consecutive items (an odd stride: no bank conflicts).
  let first = min(slot * ${ITEMS_PER_THREAD}u, na);
  let last = min(first + ${ITEMS_PER_THREAD}u, na);
  var sum = 0u;
  for (var i = first; i < last; i++) { sum += sh[base + i]; }
  let inclusive = subgroupInclusiveAdd(sum);
  if (lane == sg_size - 1u) { sg_sums[w] = inclusive; }
  workgroupBarrier();
  var run = inclusive - sum;
  for (var i = 0u; i < w; i++) { run += sg_sums[i]; }
  if (slot == ${WORKGROUP - 1}u) { tile_total = run + sum; }
  // Each item becomes the tile's sum before it.
  for (var i = first; i < last; i++) {
    let x = sh[base + i];
    sh[base + i] = run;
    run += x;
  }
  workgroupBarrier();
  let total = tile_total;
  // Start j (sh[1 + j]) lies at item offsets[b0 + j] - a0 of the tile, in [0, na]: na is after every item.
  if (lid == 0u) {
    var before = total;
    if (nb > 0u) {
      let at = sh[1u] - a0;
      before = select(total, sh[base + at], at < na);
    }
    carry[tile] = before;
  }
  for (var j = lid; j < nb; j += ${WORKGROUP}u) {
    let at = sh[1u + j] - a0;
    let lo = select(total, sh[base + at], at < na);
    var hi = total;
    if (j + 1u < nb) {
      let next = sh[2u + j] - a0;
      hi = select(total, sh[base + next], next < na);
    }
    output[b0 + j] = bitcast<${T}>(hi - lo);
  }
}`;
}
