// ===== kernel: lbs indirect args =====
struct Params {
  max_merge: u32,
  item_count_index: u32,
  segment_count_index: u32,
  max_dim: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> args: array<u32>;
@group(0) @binding(2) var<storage, read> counts_buf: array<u32>;

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

fn lbs_item_count() -> u32 { return counts_buf[params.item_count_index]; }
fn lbs_segment_count() -> u32 { return counts_buf[params.segment_count_index]; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return min(lbs_item_count() + lbs_segment_count(), params.max_merge); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}

fn lbs_grid(groups: u32, at: u32) {
  // x * y >= groups within the per-dimension limit; kernels bound-check their linear index.
  let x = min(groups, params.max_dim);
  args[at] = x;
  args[at + 1u] = select(1u, (groups + x - 1u) / max(x, 1u), x > 0u);
  args[at + 2u] = 1u;
}

@compute @workgroup_size(1)
fn main() {
  let tiles = lbs_tile_count();
  lbs_grid((tiles + 256u) / 256u, 0u);
  lbs_grid(tiles, 3u);
  lbs_grid((tiles + 255u) / 256u, 6u);
}

// ===== kernel: lbs partition =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> partitions: array<u32>;

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

fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}


fn lbs_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < offsets[diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

// partitions[t] = items before tile t's first diagonal; one more entry closes the last tile.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = weft_workgroup_index(wid, nwg) * 256u + lid;
  let tiles = lbs_tile_count();
  if (p > tiles) { return; }
  // p * TILE wraps for the closing entry of a merge near 2^32; that one is the whole length.
  let diag = select(p * 2304u, lbs_merge_length(), p == tiles);
  partitions[p] = lbs_search(diag, 0u, lbs_item_count(), lbs_segment_count());
}

// ===== kernel: lbs partition =====
struct Params {
  max_merge: u32,
  item_count_index: u32,
  segment_count_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read_write> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> counts_buf: array<u32>;

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

fn lbs_item_count() -> u32 { return counts_buf[params.item_count_index]; }
fn lbs_segment_count() -> u32 { return counts_buf[params.segment_count_index]; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return min(lbs_item_count() + lbs_segment_count(), params.max_merge); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}


fn lbs_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < offsets[diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

// partitions[t] = items before tile t's first diagonal; one more entry closes the last tile.
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = weft_workgroup_index(wid, nwg) * 256u + lid;
  let tiles = lbs_tile_count();
  if (p > tiles) { return; }
  // p * TILE wraps for the closing entry of a merge near 2^32; that one is the whole length.
  let diag = select(p * 2304u, lbs_merge_length(), p == tiles);
  partitions[p] = lbs_search(diag, 0u, lbs_item_count(), lbs_segment_count());
}

// ===== kernel: transformLbs tile =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read_write> cap_a0: array<u32>;

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

fn lbs_op(index: u32, seg: u32, rank: u32) { cap_a0[index] = rank; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}

var<workgroup> sh: array<u32, 2305>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

fn lbs_assign_segments(diag: u32, end: u32, a_start: u32, a0: u32, na: u32, b0: u32, nb: u32) {
  var a = a_start;
  var b = diag - a_start;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      b++;
    } else {
      sh[nb + 1u + a] = b0 + b - 1u;
      a++;
    }
  }
}

struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2304u;
  let d1 = select(d0 + 2304u, total, total - d0 < 2304u);
  let a0 = partitions[tile];
  let na = partitions[tile + 1u] - a0;
  return LbsTile(a0, na, d0 - a0, d1 - d0 - na);
}

fn lbs_load_starts(range: LbsTile, lid: u32) {
  for (var j = lid; j <= range.nb; j += 256u) {
    sh[j] = select(0u, offsets[range.b0 + j - 1u], range.b0 + j > 0u);
  }
}

fn lbs_tile_range(tile: u32, lid: u32) -> LbsTile {
  let range = lbs_tile_bounds(tile);
  lbs_load_starts(range, lid);
  return range;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_range(tile, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();

  // Serial merge of this thread's 9 steps: a start opens a segment, an item takes the open one.
  let diag = min(lid * 9u, na + nb);
  let end = min(diag + 9u, na + nb);
  lbs_assign_segments(diag, end, tile_search(diag, a0, na, nb), a0, na, b0, nb);
  workgroupBarrier();

  // Items in index order across threads, so the functor's reads and writes coalesce.
  for (var k = 0u; k < 9u; k++) {
    let local = k * 256u + lid;
    if (local < na) {
      let seg = sh[nb + 1u + local];
      if (seg != 0xffffffffu) {
        let index = a0 + local;
        lbs_op(index, seg, index - sh[seg + 1u - b0]);
      }
    }
  }
}

// ===== kernel: transformLbs tile =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read_write> cap_a0: array<u32>;

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

fn lbs_op(index: u32, seg: u32, rank: u32) { cap_a0[index] = seg; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}

var<workgroup> sh: array<u32, 2305>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

fn lbs_assign_segments(diag: u32, end: u32, a_start: u32, a0: u32, na: u32, b0: u32, nb: u32) {
  var a = a_start;
  var b = diag - a_start;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      b++;
    } else {
      sh[nb + 1u + a] = b0 + b - 1u;
      a++;
    }
  }
}

struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2304u;
  let d1 = select(d0 + 2304u, total, total - d0 < 2304u);
  let a0 = partitions[tile];
  let na = partitions[tile + 1u] - a0;
  return LbsTile(a0, na, d0 - a0, d1 - d0 - na);
}

fn lbs_load_starts(range: LbsTile, lid: u32) {
  for (var j = lid; j <= range.nb; j += 256u) {
    sh[j] = select(0u, offsets[range.b0 + j - 1u], range.b0 + j > 0u);
  }
}

fn lbs_tile_range(tile: u32, lid: u32) -> LbsTile {
  let range = lbs_tile_bounds(tile);
  lbs_load_starts(range, lid);
  return range;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_range(tile, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();

  // Serial merge of this thread's 9 steps: a start opens a segment, an item takes the open one.
  let diag = min(lid * 9u, na + nb);
  let end = min(diag + 9u, na + nb);
  lbs_assign_segments(diag, end, tile_search(diag, a0, na, nb), a0, na, b0, nb);
  workgroupBarrier();

  // Items in index order across threads, so the functor's reads and writes coalesce.
  for (var k = 0u; k < 9u; k++) {
    let local = k * 256u + lid;
    if (local < na) {
      let seg = sh[nb + 1u + local];
      if (seg != 0xffffffffu) {
        let index = a0 + local;
        lbs_op(index, seg, index - sh[seg + 1u - b0]);
      }
    }
  }
}

// ===== kernel: transformLbs tile =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read_write> cap_a0: array<u32>;
@group(0) @binding(4) var<storage, read> cap_a1: array<u32>;

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

fn lbs_op(index: u32, seg: u32, rank: u32) { cap_a0[index] = cap_a1[seg]; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}

var<workgroup> sh: array<u32, 2305>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

fn lbs_assign_segments(diag: u32, end: u32, a_start: u32, a0: u32, na: u32, b0: u32, nb: u32) {
  var a = a_start;
  var b = diag - a_start;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      b++;
    } else {
      sh[nb + 1u + a] = b0 + b - 1u;
      a++;
    }
  }
}

struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2304u;
  let d1 = select(d0 + 2304u, total, total - d0 < 2304u);
  let a0 = partitions[tile];
  let na = partitions[tile + 1u] - a0;
  return LbsTile(a0, na, d0 - a0, d1 - d0 - na);
}

fn lbs_load_starts(range: LbsTile, lid: u32) {
  for (var j = lid; j <= range.nb; j += 256u) {
    sh[j] = select(0u, offsets[range.b0 + j - 1u], range.b0 + j > 0u);
  }
}

fn lbs_tile_range(tile: u32, lid: u32) -> LbsTile {
  let range = lbs_tile_bounds(tile);
  lbs_load_starts(range, lid);
  return range;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_range(tile, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();

  // Serial merge of this thread's 9 steps: a start opens a segment, an item takes the open one.
  let diag = min(lid * 9u, na + nb);
  let end = min(diag + 9u, na + nb);
  lbs_assign_segments(diag, end, tile_search(diag, a0, na, nb), a0, na, b0, nb);
  workgroupBarrier();

  // Items in index order across threads, so the functor's reads and writes coalesce.
  for (var k = 0u; k < 9u; k++) {
    let local = k * 256u + lid;
    if (local < na) {
      let seg = sh[nb + 1u + local];
      if (seg != 0xffffffffu) {
        let index = a0 + local;
        lbs_op(index, seg, index - sh[seg + 1u - b0]);
      }
    }
  }
}

// ===== kernel: transformLbs tile =====
struct Params {
  max_merge: u32,
  item_count_index: u32,
  segment_count_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> counts_buf: array<u32>;
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

fn lbs_op(index: u32, seg: u32, rank: u32) { cap_a0[index] = seg; }
fn lbs_item_count() -> u32 { return counts_buf[params.item_count_index]; }
fn lbs_segment_count() -> u32 { return counts_buf[params.segment_count_index]; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return min(lbs_item_count() + lbs_segment_count(), params.max_merge); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2304u + select(0u, 1u, merge % 2304u != 0u);
}

var<workgroup> sh: array<u32, 2305>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}

fn lbs_assign_segments(diag: u32, end: u32, a_start: u32, a0: u32, na: u32, b0: u32, nb: u32) {
  var a = a_start;
  var b = diag - a_start;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      b++;
    } else {
      sh[nb + 1u + a] = b0 + b - 1u;
      a++;
    }
  }
}

struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2304u;
  let d1 = select(d0 + 2304u, total, total - d0 < 2304u);
  let a0 = partitions[tile];
  let na = partitions[tile + 1u] - a0;
  return LbsTile(a0, na, d0 - a0, d1 - d0 - na);
}

fn lbs_load_starts(range: LbsTile, lid: u32) {
  for (var j = lid; j <= range.nb; j += 256u) {
    sh[j] = select(0u, offsets[range.b0 + j - 1u], range.b0 + j > 0u);
  }
}

fn lbs_tile_range(tile: u32, lid: u32) -> LbsTile {
  let range = lbs_tile_bounds(tile);
  lbs_load_starts(range, lid);
  return range;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_range(tile, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();

  // Serial merge of this thread's 9 steps: a start opens a segment, an item takes the open one.
  let diag = min(lid * 9u, na + nb);
  let end = min(diag + 9u, na + nb);
  lbs_assign_segments(diag, end, tile_search(diag, a0, na, nb), a0, na, b0, nb);
  workgroupBarrier();

  // Items in index order across threads, so the functor's reads and writes coalesce.
  for (var k = 0u; k < 9u; k++) {
    let local = k * 256u + lid;
    if (local < na) {
      let seg = sh[nb + 1u + local];
      if (seg != 0xffffffffu) {
        let index = a0 + local;
        lbs_op(index, seg, index - sh[seg + 1u - b0]);
      }
    }
  }
}
