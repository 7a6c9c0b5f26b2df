import type { Monoid } from './monoid.ts';
import { monoidWgsl } from './monoid-wgsl.ts';

/** Compile-time shape of the chained scan: a tile is `workgroupSize * vectorsPerThread * 4` items. */
export interface ScanShape {
  readonly workgroupSize: number;
  readonly vectorsPerThread: number;
}

export interface ChainedScanVariant {
  readonly monoid: Monoid;
  readonly shape: ScanShape;
  readonly inclusive: boolean;
  /** 'array': vec4 loads from `input`; 'functor': items from `weft_input(index)`. */
  readonly source: 'array' | 'functor';
  /** Item count from `params.n`, or from `count[params.count_index]` on the GPU. */
  readonly gpuCount: boolean;
  /** Write the reduction of all items to `total[params.total_index]`. */
  readonly total: boolean;
  /** 'output': store the scan in `output`; 'emit': call `weft_emit(index, prefix, value)` for each item. */
  readonly sink: 'output' | 'emit';
}

/** Spine layout: word 0 is the tile ticket; tile t's state is words 1 + 2t (low half) and 2 + 2t (high half). */
export function spineWords(tiles: number): number {
  return 1 + 2 * tiles;
}

/**
 * Single-pass chained scan with decoupled look-back and decoupled fallback (Smith, Levien, Owens, SPAA 2025).
 *
 * Each workgroup takes the next tile id from an atomic ticket (so every tile it waits on has started),
 * reduces its tile, publishes the reduction (READY), looks back over predecessors for an exclusive prefix,
 * publishes its inclusive prefix (INCLUSIVE), then scans the tile and writes it.
 *
 * WebGPU has neither 64-bit atomics nor fences, so a tile's 32-bit value travels with its flag in the same
 * atomic words: two words per tile, each holding a 16-bit half and the flag. A reader trusts a state only
 * when both flags agree. Flags are ordered NOT_READY < READY < INCLUSIVE above the payload bits, so writers
 * use `atomicMax`: a state can only be upgraded, never overwritten by a stale one.
 *
 * No forward progress between workgroups is guaranteed: after SPIN_LIMIT polls of a NOT_READY predecessor
 * the whole workgroup reduces that predecessor's tile from the input itself (the fallback), installs the
 * result and keeps looking back. Owner and fallback compute a tile's reduction with the same function in
 * the same order, so both halves agree bit for bit even for f32.
 */
export function chainedScanWgsl(v: ChainedScanVariant): string {
  const { workgroupSize: wg, vectorsPerThread: vpt } = v.shape;
  const nExpr = v.gpuCount ? 'count[params.count_index]' : 'params.n';
  const load =
    v.source === 'array'
      ? `let i = vi * 4u;
  if (i + 4u <= n) { return input[vi]; }
  var r = vec4<Elem>(weft_identity());
  if (i < n) {
    let x = input[vi];
    r.x = x.x;
    if (i + 1u < n) { r.y = x.y; }
    if (i + 2u < n) { r.z = x.z; }
  }
  return r;`
      : `let i = vi * 4u;
  var r = vec4<Elem>(weft_identity());
  if (i < n) { r.x = weft_input(i); }
  if (i + 1u < n) { r.y = weft_input(i + 1u); }
  if (i + 2u < n) { r.z = weft_input(i + 2u); }
  if (i + 3u < n) { r.w = weft_input(i + 3u); }
  return r;`;

  return /* wgsl */ `
${monoidWgsl(v.monoid)}
override SPIN_LIMIT: u32 = 16u;
// Test hook: recompute the first predecessor's reduction even when it is published.
override FORCE_FALLBACK: bool = false;

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

fn load4(vi: u32, n: u32) -> vec4<Elem> {
  ${load}
}

fn load_tile(tile: u32, n: u32, lane: u32, sid: u32, sg_size: u32) -> array<vec4<Elem>, VPT> {
  // Subgroup sid owns a contiguous run of sg_size * VPT vectors; its lanes load sg_size consecutive vectors at a time.
  let base = tile * (TILE / 4u) + sid * sg_size * VPT + lane;
  var vals: array<vec4<Elem>, VPT>;
  for (var k = 0u; k < VPT; k++) { vals[k] = load4(base + k * sg_size, n); }
  return vals;
}

// The reduction of one tile; every invocation returns it. Used by the owner and by the fallback alike.
fn reduce_tile(vals: array<vec4<Elem>, VPT>, lid: u32, lane: u32, sid: u32, sg_size: u32) -> Elem {
  var t = reduce4(vals[0]);
  for (var k = 1u; k < VPT; k++) { t = weft_combine(t, reduce4(vals[k])); }
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[sid] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  // wg_partials is reused by the next step.
  workgroupBarrier();
  return r;
}

fn pack(value: Elem, flag: u32) -> vec2<u32> {
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

// Lowest lane set in a ballot, or 128 when none is.
fn first_lane(b: vec4<u32>) -> u32 {
  if (b.x != 0u) { return countTrailingZeros(b.x); }
  if (b.y != 0u) { return 32u + countTrailingZeros(b.y); }
  if (b.z != 0u) { return 64u + countTrailingZeros(b.z); }
  if (b.w != 0u) { return 96u + countTrailingZeros(b.w); }
  return 128u;
}

// Run by one whole subgroup: lane j reads tile look - j, so one round trip covers sg_size predecessors.
// Folds published states into prefix until an INCLUSIVE one; gives up (FALLBACK at look) after
// SPIN_LIMIT polls that find the nearest unread predecessor NOT_READY.
@diagnostic(off, subgroup_uniformity)
fn look_back(look_in: u32, prefix_in: Elem, forced: bool, lane: u32, sg_size: u32) -> LookBack {
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
    let first_bad = min(first_lane(subgroupBallot(!ok)), sg_size);
    let first_inclusive = first_lane(subgroupBallot(inclusive));
    let value = bitcast<Elem>((hi << 16u) | (lo & 0xffffu));
    if (first_inclusive < first_bad) {
      prefix = weft_combine(sg_reduce(select(weft_identity(), value, lane <= first_inclusive), sg_size), prefix);
      return LookBack(LOOK_DONE, look, prefix);
    }
    if (first_bad > 0u) {
      // Lanes before the first unpublished one are READY: fold them and move the window.
      prefix = weft_combine(sg_reduce(select(weft_identity(), value, lane < first_bad), sg_size), prefix);
      look -= first_bad;
      spins = 0u;
      continue;
    }
    spins += 1u;
    if (spins > SPIN_LIMIT || forced) { return LookBack(LOOK_FALLBACK, look, prefix); }
  }
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  // Read through workgroup memory so that n, and all control flow that depends on it, is uniform.
  if (lid == 0u) { wg_n = min(${nExpr}, params.max_n); }
  let n = workgroupUniformLoad(&wg_n);
  let tiles = max(1u, (n + TILE - 1u) / TILE);
  if (lid == 0u) { wg_tile = atomicAdd(&spine[0], 1u); }
  let tile = workgroupUniformLoad(&wg_tile);
  // Spare workgroups of a 2-D grid (or an indirect grid sized before n was known) have nothing to do.
  if (tile >= tiles) { return; }
  let sid = lid / sg_size;

  var vals = load_tile(tile, n, lane, sid, sg_size);
${v.sink === 'emit' ? '  let items = vals;\n' : ''}  let aggregate = reduce_tile(vals, lid, lane, sid, sg_size);
  if (lid == 0u) { publish(tile, aggregate, select(READY, INCLUSIVE, tile == 0u)); }

  // Look back (subgroup 0 polls a window of predecessors; the whole workgroup runs a fallback).
  var prefix = weft_identity();
  if (tile > 0u) {
    var look = tile - 1u;
    var forced = FORCE_FALLBACK;
    loop {
      if (sid == 0u) {
        let r = look_back(look, prefix, forced, lane, sg_size);
        if (lane == 0u) {
          wg_look = r.decision;
          wg_look_tile = r.look;
          wg_prefix = r.prefix;
        }
      }
      forced = false;
      if (workgroupUniformLoad(&wg_look) == LOOK_DONE) {
        prefix = workgroupUniformLoad(&wg_prefix);
        break;
      }
      // Fallback: reduce the stalled predecessor's tile here, install it, and go on from there.
      let stalled = workgroupUniformLoad(&wg_look_tile);
      let theirs = reduce_tile(load_tile(stalled, n, lane, sid, sg_size), lid, lane, sid, sg_size);
      prefix = weft_combine(theirs, workgroupUniformLoad(&wg_prefix));
      if (lid == 0u) { publish(stalled, theirs, select(READY, INCLUSIVE, stalled == 0u)); }
      if (stalled == 0u) { break; }
      look = stalled - 1u;
    }
    if (lid == 0u) { publish(tile, weft_combine(prefix, aggregate), INCLUSIVE); }
  }
${
  v.total
    ? `  if (tile == tiles - 1u && lid == 0u) { total[params.total_index] = weft_combine(prefix, aggregate); }\n`
    : ''
}
  // Scan the tile: within each vector, across the subgroup per block of vectors, then across subgroups.
  var carry = weft_identity();
  for (var k = 0u; k < VPT; k++) {
    let x = vals[k];
    let s1 = weft_combine(x.x, x.y);
    let s2 = weft_combine(s1, x.z);
    let s3 = weft_combine(s2, x.w);
    let before = weft_combine(carry, sg_exclusive(s3, lane, sg_size));
    ${
      v.inclusive
        ? 'vals[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));'
        : 'vals[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));'
    }
    // The last lane's running total already includes carry.
    carry = subgroupShuffle(weft_combine(before, s3), sg_size - 1u);
  }
  if (lane == 0u) { wg_partials[sid] = carry; }
  workgroupBarrier();
  var offset = prefix;
  for (var i = 0u; i < sid; i++) { offset = weft_combine(offset, wg_partials[i]); }

${v.sink === 'output' ? STORE_OUTPUT : EMIT}
}
`;
}

const STORE_OUTPUT = /* wgsl */ `
  let base = tile * (TILE / 4u) + sid * sg_size * VPT + lane;
  for (var k = 0u; k < VPT; k++) {
    let vi = base + k * sg_size;
    let i = vi * 4u;
    let out = combine4(vec4<Elem>(offset), vals[k]);
    if (i + 4u <= n) {
      output[vi] = out;
    } else if (i < n) {
      // The last, partial vector: keep the elements past n (read-modify-write; no other invocation touches it).
      var keep = output[vi];
      keep.x = out.x;
      if (i + 1u < n) { keep.y = out.y; }
      if (i + 2u < n) { keep.z = out.z; }
      output[vi] = keep;
    }
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
