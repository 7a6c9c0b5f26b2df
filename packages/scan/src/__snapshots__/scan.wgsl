// ===== kernel: exclusiveScan f32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<f32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return a + b; }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(f32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan f32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<f32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return max(a, b); }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(bitcast<f32>(0xff7fffffu)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMax(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan f32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<f32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return min(a, b); }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(bitcast<f32>(0x7f7fffffu)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMin(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan i32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<i32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: i32, b: i32) -> i32 { return a + b; }


alias Elem = i32;
fn weft_identity() -> Elem { return Elem(i32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan i32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<i32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: i32, b: i32) -> i32 { return max(a, b); }


alias Elem = i32;
fn weft_identity() -> Elem { return Elem(bitcast<i32>(0x80000000u)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMax(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a + b; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a | b; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupOr(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: exclusiveScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return min(a, b); }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(0xffffffffu); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMin(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan f32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<f32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return a + b; }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(f32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan f32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<f32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return max(a, b); }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(bitcast<f32>(0xff7fffffu)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMax(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan f32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<f32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return min(a, b); }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(bitcast<f32>(0x7f7fffffu)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMin(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan i32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<i32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: i32, b: i32) -> i32 { return a + b; }


alias Elem = i32;
fn weft_identity() -> Elem { return Elem(i32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan i32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<i32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<i32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: i32, b: i32) -> i32 { return max(a, b); }


alias Elem = i32;
fn weft_identity() -> Elem { return Elem(bitcast<i32>(0x80000000u)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMax(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a + b; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a | b; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupOr(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: inclusiveScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(3) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read> count: array<u32>;
@group(0) @binding(5) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return min(a, b); }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(0xffffffffu); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMin(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: reduce f32 (partials) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
@group(0) @binding(4) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return a + b; }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(f32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { partials[tile] = r; }
}

@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32,
          @builtin(subgroup_invocation_id) lane: u32,
          @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tiles = (n + TILE - 1u) / TILE;
  var t = weft_identity();
  for (var i = lid; i < tiles; i += WG) { t = weft_combine(t, partials[i]); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { result[params.result_index] = r; }
}

// ===== kernel: reduce f32 (partials) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
@group(0) @binding(4) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return max(a, b); }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(bitcast<f32>(0xff7fffffu)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMax(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { partials[tile] = r; }
}

@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32,
          @builtin(subgroup_invocation_id) lane: u32,
          @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tiles = (n + TILE - 1u) / TILE;
  var t = weft_identity();
  for (var i = lid; i < tiles; i += WG) { t = weft_combine(t, partials[i]); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { result[params.result_index] = r; }
}

// ===== kernel: reduce f32 (partials) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> result: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
@group(0) @binding(4) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: f32, b: f32) -> f32 { return min(a, b); }


alias Elem = f32;
fn weft_identity() -> Elem { return Elem(bitcast<f32>(0x7f7fffffu)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMin(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { partials[tile] = r; }
}

@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32,
          @builtin(subgroup_invocation_id) lane: u32,
          @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tiles = (n + TILE - 1u) / TILE;
  var t = weft_identity();
  for (var i = lid; i < tiles; i += WG) { t = weft_combine(t, partials[i]); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { result[params.result_index] = r; }
}

// ===== kernel: reduce i32 (atomic) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> result: array<atomic<i32>>;
@group(0) @binding(3) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: i32, b: i32) -> i32 { return a + b; }


alias Elem = i32;
fn weft_identity() -> Elem { return Elem(i32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { atomicAdd(&result[params.result_index], r); }
}

@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }

// ===== kernel: reduce i32 (atomic) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<i32>>;
@group(0) @binding(2) var<storage, read_write> result: array<atomic<i32>>;
@group(0) @binding(3) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: i32, b: i32) -> i32 { return max(a, b); }


alias Elem = i32;
fn weft_identity() -> Elem { return Elem(bitcast<i32>(0x80000000u)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMax(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { atomicMax(&result[params.result_index], r); }
}

@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }

// ===== kernel: reduce u32 (atomic) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> result: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a + b; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { atomicAdd(&result[params.result_index], r); }
}

@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }

// ===== kernel: reduce u32 (atomic) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> result: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a | b; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupOr(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { atomicOr(&result[params.result_index], r); }
}

@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }

// ===== kernel: reduce u32 (atomic) =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  result_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> input: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> result: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> count: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return min(a, b); }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(0xffffffffu); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupMin(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);
}

const WG = 256u;
const VPT = 8u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}


fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}

fn reduce_workgroup(t: Elem, lid: u32, lane: u32, sg_size: u32) -> Elem {
  let s = sg_reduce(t, sg_size);
  if (lane == 0u) { wg_partials[lid / sg_size] = s; }
  workgroupBarrier();
  var r = wg_partials[0];
  for (var i = 1u; i < WG / sg_size; i++) { r = weft_combine(r, wg_partials[i]); }
  return r;
}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = reduce_workgroup(t, lid, lane, sg_size);
  if (lid == 0u) { atomicMin(&result[params.result_index], r); }
}

@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }

// ===== kernel: transformScan u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> output: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(3) var<storage, read> count: array<u32>;
@group(0) @binding(4) var<storage, read_write> total: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a + b; }

fn weft_input(i: u32) -> u32 { return i % 7u; }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let i = vi * 4u;
  var r = vec4<Elem>(weft_identity());
  if (i < n) { r.x = weft_input(i); }
  if (i + 1u < n) { r.y = weft_input(i + 1u); }
  if (i + 2u < n) { r.z = weft_input(i + 2u); }
  if (i + 3u < n) { r.w = weft_input(i + 3u); }
  return r;
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2), weft_combine(before, s3));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

}

// ===== kernel: transformScanTo u32 =====
enable subgroups;
struct Params {
  n: u32,
  count_index: u32,
  use_count: u32,
  max_n: u32,
  total_index: u32,
  write_total: u32,
  force_fallback: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> spine: array<atomic<u32>>;
@group(0) @binding(2) var<storage, read> count: array<u32>;
@group(0) @binding(3) var<storage, read_write> total: array<u32>;
@group(0) @binding(4) var<storage, read_write> cap_a0: array<u32>;

// Workgroup index of a 1-D grid that was split into x * y workgroups (beyond maxComputeWorkgroupsPerDimension).
fn weft_workgroup_index(wid: vec3<u32>, nwg: vec3<u32>) -> u32 {
  return wid.x + wid.y * nwg.x;
}
// countTrailingZeros(x) (32 for 0): isolate the lowest set bit and count the ones below it. SPIR-V has no
// such instruction, and Tint's stand-in for firstTrailingBit is a 5-step binary search of several times the
// instructions.
fn weft_trailing_zeros(x: u32) -> u32 {
  return countOneBits((x & (0u - x)) - 1u);
}
// The same over a 128-bit mask such as a subgroup ballot (x holds the lowest bits): the lowest set lane, 128
// for none.
fn weft_trailing_zeros4(m: vec4<u32>) -> u32 {
  if (m.x != 0u) { return weft_trailing_zeros(m.x); }
  if (m.y != 0u) { return 32u + weft_trailing_zeros(m.y); }
  if (m.z != 0u) { return 64u + weft_trailing_zeros(m.z); }
  return 96u + weft_trailing_zeros(m.w);
}

fn weft_combine(a: u32, b: u32) -> u32 { return a + b; }

fn weft_input(i: u32) -> u32 { return u32(i % 3u == 0u); }

fn weft_emit(i: u32, scanned: u32, value: u32) { if (value != 0u) { cap_a0[scanned] = i; } }


alias Elem = u32;
fn weft_identity() -> Elem { return Elem(u32(0)); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  return subgroupAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupInclusiveAdd(x);
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  return subgroupExclusiveAdd(x);
}

override SPIN_LIMIT: u32 = 16u;

const WG = 256u;
const VPT = 4u;
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
  let i = vi * 4u;
  var r = vec4<Elem>(weft_identity());
  if (i < n) { r.x = weft_input(i); }
  if (i + 1u < n) { r.y = weft_input(i + 1u); }
  if (i + 2u < n) { r.z = weft_input(i + 2u); }
  if (i + 3u < n) { r.w = weft_input(i + 3u); }
  return r;
}

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

// Scans a tile in place: within each vector, then across the subgroup per block of vectors (each subgroup
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
    (*vals)[k] = vec4<Elem>(before, weft_combine(before, x.x), weft_combine(before, s1), weft_combine(before, s2));
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
    let first_bad = min(weft_trailing_zeros4(subgroupBallot(!ok)), sg_size);
    let first_inclusive = weft_trailing_zeros4(subgroupBallot(inclusive));
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
    if (spins > SPIN_LIMIT || forced) { break; }
  }
  return LookBack(LOOK_FALLBACK, look, prefix);
}

@compute @workgroup_size(WG)
@diagnostic(off, subgroup_uniformity)
fn main(@builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
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
  var items: array<vec4<Elem>, VPT>;
  var scanned: TileScan;
  var prefix = weft_identity();
  var work = tile;
  var look = tile;
  // Test hook: recompute the nearest predecessor's reduction even when it is published.
  var forced = params.force_fallback != 0u;
  loop {
    var v = load_tile(work, n, lane, sid, sg_size);
    let loaded = v;
    let sc = scan_tile(&v, lane, sid, sg_size);
    // Tile 0's reduction is its inclusive prefix.
    if (lid == 0u) { publish(work, sc.aggregate, select(READY, INCLUSIVE, work == 0u)); }
    if (work == tile) {
      vals = v;
      items = loaded;
      scanned = sc;
    } else {
      prefix = weft_combine(sc.aggregate, prefix);
    }
    if (work == 0u) { break; }
    look = work - 1u;
    // Look back: subgroup 0 polls a window of predecessors.
    if (sid == 0u) {
      let r = look_back(look, prefix, forced, lane, sg_size);
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

  let base = tile * (TILE / 4u) + sid * sg_size * VPT + lane;
  for (var k = 0u; k < VPT; k++) {
    let i = (base + k * sg_size) * 4u;
    let out = combine4(vec4<Elem>(offset), vals[k]);
    let item = items[k];
    if (i < n) { weft_emit(i, out.x, item.x); }
    if (i + 1u < n) { weft_emit(i + 1u, out.y, item.y); }
    if (i + 2u < n) { weft_emit(i + 2u, out.z, item.z); }
    if (i + 3u < n) { weft_emit(i + 3u, out.w, item.w); }
  }
}
