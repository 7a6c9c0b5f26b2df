import type { Monoid } from '@weft/gpu';
import { LOAD4, monoidWgsl } from './monoid-wgsl.ts';

/** Compile-time shape of the chained scan: a tile is `workgroupSize * vectorsPerThread * 4` items. */
interface ScanShape {
  readonly workgroupSize: number;
  readonly vectorsPerThread: number;
}

export interface ChainedScanVariant {
  readonly monoid: Monoid;
  readonly shape: ScanShape;
  readonly inclusive: boolean;
  /** 'array': vec4 loads from `input`; 'functor': items from `weft_input(index)`. */
  readonly source: 'array' | 'functor';
  /** 'output': store the scan in `output`; 'emit': call `weft_emit(index, prefix, value)` for each item. */
  readonly sink: 'output' | 'emit';
  /**
   * Scan tiles with subgroup built-ins and look back with a subgroup, or (devices without subgroups) scan
   * tiles in workgroup memory as one subgroup of the whole workgroup and look back with one invocation.
   */
  readonly subgroups: boolean;
}

/** Spine layout: word 0 is the tile ticket; tile t's state is words 1 + 2t (low half) and 2 + 2t (high half). */
export function spineWords(tiles: number): number {
  return 1 + 2 * tiles;
}

/**
 * Single-pass chained scan with decoupled look-back and decoupled fallback (Smith, Levien, Owens, SPAA 2025).
 *
 * Each workgroup takes the next tile id from an atomic ticket (so every tile it waits on has started),
 * scans its tile in registers, publishes the tile's reduction (READY), looks back over predecessors for an
 * exclusive prefix, publishes its inclusive prefix (INCLUSIVE), then adds the prefix and writes the tile.
 *
 * WebGPU has neither 64-bit atomics nor fences, so a tile's 32-bit value travels with its flag in the same
 * atomic words: two words per tile, each holding a 16-bit half and the flag. A reader trusts a state only
 * when both flags agree. Flags are ordered NOT_READY < READY < INCLUSIVE above the payload bits, so writers
 * use `atomicMax`: a state can only be upgraded, never overwritten by a stale one.
 *
 * No forward progress between workgroups is guaranteed: after SPIN_LIMIT polls of a NOT_READY predecessor
 * the whole workgroup scans that predecessor's tile from the input itself (the fallback), installs its
 * reduction and keeps looking back. Owner and fallback compute a tile's reduction with the same function in
 * the same order, so both halves agree bit for bit even for f32.
 */
export function chainedScanWgsl(v: ChainedScanVariant): string {
  const { workgroupSize: wg, vectorsPerThread: vpt } = v.shape;
  const sg = v.subgroups;
  const valsStore = v.inclusive
    ? '(*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));'
    : '(*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));';
  const load =
    v.source === 'array'
      ? LOAD4
      : `
fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let i = vi * 4u;
  var r = vec4<Elem>(weft_identity());
  if (i < n) { r.x = weft_input(i); }
  if (i + 1u < n) { r.y = weft_input(i + 1u); }
  if (i + 2u < n) { r.z = weft_input(i + 2u); }
  if (i + 3u < n) { r.w = weft_input(i + 3u); }
  return r;
}`;

  return /* wgsl */ `
${monoidWgsl(v.monoid, sg)}
override SPIN_LIMIT: u32 = 16u;

const WG = ${wg}u;
const VPT = ${vpt}u;
const TILE = WG * VPT * 4u;
// Subgroups are at least 4 wide, so a workgroup has at most WG / 4 of them.
const MAX_SUBGROUPS = WG / 4u;
const NOT_READY = 0u;
const READY = 1u;
const INCLUSIVE = 2u;
const LOOK_DONE = 0u;
const LOOK_FALLBACK = 1u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_tile: u32;
var<workgroup> wg_n: u32;
var<workgroup> wg_look: u32;
var<workgroup> wg_look_tile: u32;
var<workgroup> wg_prefix: Elem;

${load}
${sg ? '' : SINGLE_LANE}
fn load_tile(tile: u32, n: u32, lane: u32, sid: u32, sg_size: u32) -> array<vec4<Elem>, VPT> {
  // Subgroup sid owns a contiguous run of sg_size * VPT vectors; its lanes load sg_size consecutive vectors at a time.
  let base = tile * (TILE / 4u) + sid * sg_size * VPT + lane;
  var vals: array<vec4<Elem>, VPT>;
  for (var k = 0u; k < VPT; k++) { vals[k] = load4(base + k * sg_size, n); }
  return vals;
}

struct TileScan {
  // The reduction of the whole tile.
  aggregate: Elem,
  // The reduction of the subgroups before this invocation's subgroup.
  before: Elem,
}

${
  sg
    ? `// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
// owns a contiguous run), then across subgroups through workgroup memory. The owner and the fallback both
// compute a tile's reduction here, in the same order, so their published halves agree bit for bit.
fn scan_tile(vals: ptr<function, array<vec4<Elem>, VPT>>, lane: u32, sid: u32, sg_size: u32) -> TileScan {
  var carry = weft_identity();
  for (var k = 0u; k < VPT; k++) {
    let x = (*vals)[k];
    let s1 = weft_combine(x.x, x.y);
    let s2 = weft_combine(s1, x.z);
    let s3 = weft_combine(s2, x.w);
    let before = weft_combine(carry, sg_exclusive(s3, lane, sg_size));
    ${valsStore}
    // The last lane's running total already includes carry.
    carry = subgroupShuffle(weft_combine(before, s3), sg_size - 1u);
  }
  if (lane == 0u) { wg_partials[sid] = carry; }
  workgroupBarrier();
  var r = TileScan(weft_identity(), weft_identity());
  for (var i = 0u; i < WG / sg_size; i++) {
    if (i == sid) { r.before = r.aggregate; }
    r.aggregate = weft_combine(r.aggregate, wg_partials[i]);
  }
  // No barrier needed before a fallback's call writes wg_partials again: the look-back's
  // workgroupUniformLoad calls (barriers) come between.
  return r;
}

`
    : workgroupScanTile(valsStore)
}fn pack(value: Elem, flag: u32) -> vec2<u32> {
  let bits = bitcast<u32>(value);
  return vec2<u32>((flag << 16u) | (bits & 0xffffu), (flag << 16u) | (bits >> 16u));
}

fn publish(tile: u32, value: Elem, flag: u32) {
  let w = pack(value, flag);
  atomicMax(&spine[1u + 2u * tile], w.x);
  atomicMax(&spine[2u + 2u * tile], w.y);
}

struct LookBack {
  decision: u32,
  look: u32,
  prefix: Elem,
}

// Run by one whole subgroup: lane j reads tile look - j, so one round trip covers sg_size predecessors.
// Folds published states into prefix until an INCLUSIVE one; gives up (FALLBACK at look) after
// SPIN_LIMIT polls that find the nearest unread predecessor NOT_READY.
${sg ? '@diagnostic(off, subgroup_uniformity)\n' : ''}fn look_back(look_in: u32, prefix_in: Elem, forced: bool, lane: u32, sg_size: u32) -> LookBack {
  var look = look_in;
  var prefix = prefix_in;
  var spins = 0u;
  loop {
    let has = lane <= look;
    var lo = 0u;
    var hi = 0u;
    if (has) {
      lo = atomicLoad(&spine[1u + 2u * (look - lane)]);
      hi = atomicLoad(&spine[2u + 2u * (look - lane)]);
    }
    let flag = lo >> 16u;
    let ok = has && flag != NOT_READY && flag == (hi >> 16u) && !(forced && lane == 0u);
    // Tile 0's reduction is its inclusive prefix, whichever flag it carries.
    let inclusive = ok && (flag == INCLUSIVE || lane == look);
    let first_bad = min(weft_trailing_zeros4(${sg ? 'subgroupBallot' : 'lane_ballot'}(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(${sg ? 'subgroupBallot' : 'lane_ballot'}(inclusive));
    let value = bitcast<Elem>((hi << 16u) | (lo & 0xffffu));
    if (first_inclusive < first_bad) {
      prefix = weft_combine(${sg ? 'sg_reduce' : 'lane_reduce'}(select(weft_identity(), value, lane <= first_inclusive), sg_size), prefix);
      return LookBack(LOOK_DONE, look, prefix);
    }
    if (first_bad > 0u) {
      // Lanes before the first unpublished one are READY: fold them and move the window.
      prefix = weft_combine(${sg ? 'sg_reduce' : 'lane_reduce'}(select(weft_identity(), value, lane < first_bad), sg_size), prefix);
      look -= first_bad;
      spins = 0u;
      continue;
    }
    spins += 1u;
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
${sg ? '@diagnostic(off, subgroup_uniformity)\n' : ''}${
  sg
    ? `fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {`
    : `fn main(@builtin(local_invocation_index) lid: u32) {
  let lane = lid;
  let sg_size = WG;`
}
  // Read through workgroup memory so that n, and all control flow that depends on it, is uniform.
  // The count comes from params.n or, when params.use_count is set, from the GPU.
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  let n = workgroupUniformLoad(&wg_n);
  let tiles = max(1u, (n + TILE - 1u) / TILE);
  if (lid == 0u) { wg_tile = atomicAdd(&spine[0], 1u); }
  let tile = workgroupUniformLoad(&wg_tile);
  // Spare workgroups of a 2-D grid (or an indirect grid sized before n was known) have nothing to do.
  if (tile >= tiles) { return; }
  let sid = lid / sg_size;

  // One loop scans this workgroup's own tile first, then any stalled predecessor's tile (the fallback),
  // so the tile code is compiled once.
  var vals: array<vec4<Elem>, VPT>;
${v.sink === 'emit' ? '  var items: array<vec4<Elem>, VPT>;\n' : ''}  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
${v.sink === 'emit' ? '    let loaded = v;\n' : ''}    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
${v.sink === 'emit' ? '      items = loaded;\n' : ''}      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    ${sg ? 'if (sid == 0u) {\n      let r = look_back(look, prefix, forced, lane, sg_size);' : 'if (lid == 0u) {\n      let r = look_back(look, prefix, forced, 0u, 1u);'}
      if (lane == 0u) {
        wg_look = r.decision;
        wg_look_tile = r.look;
        wg_prefix = r.prefix;
      }
    }
    forced = false;
    let decision = workgroupUniformLoad(&wg_look);
    prefix = workgroupUniformLoad(&wg_prefix);
    if (decision == LOOK_DONE) { break; }
    // Fallback: scan the stalled predecessor's tile here, install its reduction, and go on from there.
    work = workgroupUniformLoad(&wg_look_tile);
  }
  let aggregate = scanned.aggregate;
  if (tile > 0u && lid == 0u) { publish(tile, weft_combine(prefix, aggregate), INCLUSIVE); }
  if (params.write_total != 0u && tile == tiles - 1u && lid == 0u) {
    total[params.total_index] = weft_combine(prefix, aggregate);
  }
  let offset = weft_combine(prefix, scanned.before);
${v.sink === 'output' ? STORE_OUTPUT : EMIT}
}
`;
}

const STORE_OUTPUT = /* wgsl */ `
  let base = tile * (TILE / 4u) + sid * sg_size * VPT + lane;
  // The last, partial vector (n not a multiple of 4) is written after the loop, keeping the elements past n.
  var tail_vi = 0xffffffffu;
  var tail = vec4<Elem>();
  for (var k = 0u; k < VPT; k++) {
    let vi = base + k * sg_size;
    let out = combine4(vec4<Elem>(offset), vals[k]);
    if (vi * 4u + 4u <= n) {
      output[vi] = out;
    } else if (vi * 4u < n) {
      tail_vi = vi;
      tail = out;
    }
  }
  if (tail_vi != 0xffffffffu) {
    // Read-modify-write: no other invocation touches this vector.
    let i = tail_vi * 4u;
    output[tail_vi] = select(output[tail_vi], tail, vec4<u32>(i) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
  }
`;

// Hands each item's scan value (exclusive or inclusive) and its own value to the consumer, in place of a store.
const EMIT = /* wgsl */ `
  let base = tile * (TILE / 4u) + sid * sg_size * VPT + lane;
  for (var k = 0u; k < VPT; k++) {
    let i = (base + k * sg_size) * 4u;
    let out = combine4(vec4<Elem>(offset), vals[k]);
    let item = items[k];
    if (i < n) { weft_emit(i, out.x, item.x); }
    if (i + 1u < n) { weft_emit(i + 1u, out.y, item.y); }
    if (i + 2u < n) { weft_emit(i + 2u, out.z, item.z); }
    if (i + 3u < n) { weft_emit(i + 3u, out.w, item.w); }
  }`;

// Without subgroups the look-back runs in one invocation (lane 0 of a one-lane window).
const SINGLE_LANE = /* wgsl */ `
fn lane_ballot(p: bool) -> vec4<u32> { return vec4<u32>(select(0u, 1u, p), 0u, 0u, 0u); }
fn lane_reduce(x: Elem, sg_size: u32) -> Elem { return x; }
`;

// Without subgroups the whole workgroup is one subgroup (lane = lid, sid = 0): each round of vectors is
// scanned across the workgroup in workgroup memory, and the carry takes the round's total.
function workgroupScanTile(valsStore: string): string {
  return /* wgsl */ `
fn scan_tile(vals: ptr<function, array<vec4<Elem>, VPT>>, lane: u32, sid: u32, sg_size: u32) -> TileScan {
  var carry = weft_identity();
  for (var k = 0u; k < VPT; k++) {
    let x = (*vals)[k];
    let s1 = weft_combine(x.x, x.y);
    let s2 = weft_combine(s1, x.z);
    let s3 = weft_combine(s2, x.w);
    let round = wg_scan_exclusive(s3, lane);
    let before = weft_combine(carry, round.exclusive);
    ${valsStore}
    carry = weft_combine(carry, round.total);
  }
  return TileScan(carry, weft_identity());
}

`;
}
