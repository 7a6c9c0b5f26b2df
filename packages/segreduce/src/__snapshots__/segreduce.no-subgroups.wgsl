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
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
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
  let diag = select(p * 2816u, lbs_merge_length(), p == tiles);
  partitions[p] = lbs_search(diag, 0u, lbs_item_count(), lbs_segment_count());
}

// ===== kernel: segreduce fix-up f32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partitions: array<u32>;
@group(0) @binding(2) var<storage, read> carry: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

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

fn seg_combine(a: f32, b: f32) -> f32 { return a + b; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> keys: array<u32, 256>;
var<workgroup> pieces: array<f32, 256>;

fn fold(seg: u32, v: f32) {
  // Lock-free compare-exchange: some invocation succeeds each round, none waits on another workgroup.
  var old = atomicLoad(&output[seg]);
  loop {
    let next = bitcast<u32>(seg_combine(bitcast<f32>(old), v));
    let r = atomicCompareExchangeWeak(&output[seg], old, next);
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * 256u + lid;
  var key = 0xffffffffu;
  var v = f32(0);
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * 2816u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<f32>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < 256u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(f32(0))) { fold(key, acc); }
  }
}

// ===== kernel: segreduce fix-up f32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partitions: array<u32>;
@group(0) @binding(2) var<storage, read> carry: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

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

fn seg_combine(a: f32, b: f32) -> f32 { return max(a, b); }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> keys: array<u32, 256>;
var<workgroup> pieces: array<f32, 256>;

fn fold(seg: u32, v: f32) {
  // Lock-free compare-exchange: some invocation succeeds each round, none waits on another workgroup.
  var old = atomicLoad(&output[seg]);
  loop {
    let next = bitcast<u32>(seg_combine(bitcast<f32>(old), v));
    let r = atomicCompareExchangeWeak(&output[seg], old, next);
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * 256u + lid;
  var key = 0xffffffffu;
  var v = bitcast<f32>(0xff7fffffu);
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * 2816u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<f32>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < 256u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(bitcast<f32>(0xff7fffffu))) { fold(key, acc); }
  }
}

// ===== kernel: segreduce fix-up f32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partitions: array<u32>;
@group(0) @binding(2) var<storage, read> carry: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

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

fn seg_combine(a: f32, b: f32) -> f32 { return min(a, b); }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> keys: array<u32, 256>;
var<workgroup> pieces: array<f32, 256>;

fn fold(seg: u32, v: f32) {
  // Lock-free compare-exchange: some invocation succeeds each round, none waits on another workgroup.
  var old = atomicLoad(&output[seg]);
  loop {
    let next = bitcast<u32>(seg_combine(bitcast<f32>(old), v));
    let r = atomicCompareExchangeWeak(&output[seg], old, next);
    if (r.exchanged) { break; }
    old = r.old_value;
  }
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * 256u + lid;
  var key = 0xffffffffu;
  var v = bitcast<f32>(0x7f7fffffu);
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * 2816u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<f32>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < 256u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(bitcast<f32>(0x7f7fffffu))) { fold(key, acc); }
  }
}

// ===== kernel: segreduce fix-up u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partitions: array<u32>;
@group(0) @binding(2) var<storage, read> carry: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return a + b; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> keys: array<u32, 256>;
var<workgroup> pieces: array<u32, 256>;

fn fold(seg: u32, v: u32) {atomicAdd(&output[seg], v);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * 256u + lid;
  var key = 0xffffffffu;
  var v = u32(0);
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * 2816u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<u32>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < 256u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(u32(0))) { fold(key, acc); }
  }
}

// ===== kernel: segreduce fix-up u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partitions: array<u32>;
@group(0) @binding(2) var<storage, read> carry: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return a | b; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> keys: array<u32, 256>;
var<workgroup> pieces: array<u32, 256>;

fn fold(seg: u32, v: u32) {atomicOr(&output[seg], v);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * 256u + lid;
  var key = 0xffffffffu;
  var v = u32(0);
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * 2816u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<u32>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < 256u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(u32(0))) { fold(key, acc); }
  }
}

// ===== kernel: segreduce fix-up u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> partitions: array<u32>;
@group(0) @binding(2) var<storage, read> carry: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<atomic<u32>>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return max(a, b); }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> keys: array<u32, 256>;
var<workgroup> pieces: array<u32, 256>;

fn fold(seg: u32, v: u32) {atomicMax(&output[seg], v);
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let t = weft_workgroup_index(wid, nwg) * 256u + lid;
  var key = 0xffffffffu;
  var v = 0u;
  if (t < lbs_tile_count()) {
    // Tile t begins inside segment b0 - 1; tile 0 (b0 == 0) begins before every segment.
    let b0 = t * 2816u - partitions[t];
    if (b0 > 0u) {
      key = b0 - 1u;
      v = bitcast<u32>(carry[t]);
    }
  }
  keys[lid] = key;
  pieces[lid] = v;
  workgroupBarrier();
  if (key != 0xffffffffu && (lid == 0u || keys[lid - 1u] != key)) {
    var acc = v;
    for (var j = lid + 1u; j < 256u && keys[j] == key; j++) { acc = seg_combine(acc, pieces[j]); }
    if (bitcast<u32>(acc) != bitcast<u32>(0u)) { fold(key, acc); }
  }
}

// ===== kernel: segreduce tile f32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;
@group(0) @binding(5) var<storage, read_write> carry: array<u32>;

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

fn seg_combine(a: f32, b: f32) -> f32 { return a + b; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<f32, 256>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}


struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    if (local < range.na) { early[0u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 1u * 256u + lid;
    if (local < range.na) { early[1u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 2u * 256u + lid;
    if (local < range.na) { early[2u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 3u * 256u + lid;
    if (local < range.na) { early[3u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 4u * 256u + lid;
    if (local < range.na) { early[4u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 5u * 256u + lid;
    if (local < range.na) { early[5u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 6u * 256u + lid;
    if (local < range.na) { early[6u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 7u * 256u + lid;
    if (local < range.na) { early[7u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 8u * 256u + lid;
    if (local < range.na) { early[8u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 9u * 256u + lid;
    if (local < range.na) { early[9u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 10u * 256u + lid;
    if (local < range.na) { early[10u] = bitcast<u32>(values[range.a0 + local]); }
  }
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = f32(0);
  var head = f32(0);
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = f32(0);
      b++;
    } else {
      acc = seg_combine(acc, bitcast<f32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(f32(0), scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}

// ===== kernel: segreduce tile f32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;
@group(0) @binding(5) var<storage, read_write> carry: array<u32>;

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

fn seg_combine(a: f32, b: f32) -> f32 { return max(a, b); }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<f32, 256>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}


struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    if (local < range.na) { early[0u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 1u * 256u + lid;
    if (local < range.na) { early[1u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 2u * 256u + lid;
    if (local < range.na) { early[2u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 3u * 256u + lid;
    if (local < range.na) { early[3u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 4u * 256u + lid;
    if (local < range.na) { early[4u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 5u * 256u + lid;
    if (local < range.na) { early[5u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 6u * 256u + lid;
    if (local < range.na) { early[6u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 7u * 256u + lid;
    if (local < range.na) { early[7u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 8u * 256u + lid;
    if (local < range.na) { early[8u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 9u * 256u + lid;
    if (local < range.na) { early[9u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 10u * 256u + lid;
    if (local < range.na) { early[10u] = bitcast<u32>(values[range.a0 + local]); }
  }
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = bitcast<f32>(0xff7fffffu);
  var head = bitcast<f32>(0xff7fffffu);
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = bitcast<f32>(0xff7fffffu);
      b++;
    } else {
      acc = seg_combine(acc, bitcast<f32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(bitcast<f32>(0xff7fffffu), scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}

// ===== kernel: segreduce tile f32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<f32>;
@group(0) @binding(4) var<storage, read_write> output: array<f32>;
@group(0) @binding(5) var<storage, read_write> carry: array<u32>;

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

fn seg_combine(a: f32, b: f32) -> f32 { return min(a, b); }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<f32, 256>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}


struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    if (local < range.na) { early[0u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 1u * 256u + lid;
    if (local < range.na) { early[1u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 2u * 256u + lid;
    if (local < range.na) { early[2u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 3u * 256u + lid;
    if (local < range.na) { early[3u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 4u * 256u + lid;
    if (local < range.na) { early[4u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 5u * 256u + lid;
    if (local < range.na) { early[5u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 6u * 256u + lid;
    if (local < range.na) { early[6u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 7u * 256u + lid;
    if (local < range.na) { early[7u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 8u * 256u + lid;
    if (local < range.na) { early[8u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 9u * 256u + lid;
    if (local < range.na) { early[9u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 10u * 256u + lid;
    if (local < range.na) { early[10u] = bitcast<u32>(values[range.a0 + local]); }
  }
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = bitcast<f32>(0x7f7fffffu);
  var head = bitcast<f32>(0x7f7fffffu);
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = bitcast<f32>(0x7f7fffffu);
      b++;
    } else {
      acc = seg_combine(acc, bitcast<f32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(bitcast<f32>(0x7f7fffffu), scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}

// ===== kernel: segreduce tile u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<u32>;
@group(0) @binding(5) var<storage, read_write> carry: array<u32>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return a + b; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<u32, 256>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}


struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    if (local < range.na) { early[0u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 1u * 256u + lid;
    if (local < range.na) { early[1u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 2u * 256u + lid;
    if (local < range.na) { early[2u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 3u * 256u + lid;
    if (local < range.na) { early[3u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 4u * 256u + lid;
    if (local < range.na) { early[4u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 5u * 256u + lid;
    if (local < range.na) { early[5u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 6u * 256u + lid;
    if (local < range.na) { early[6u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 7u * 256u + lid;
    if (local < range.na) { early[7u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 8u * 256u + lid;
    if (local < range.na) { early[8u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 9u * 256u + lid;
    if (local < range.na) { early[9u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 10u * 256u + lid;
    if (local < range.na) { early[10u] = bitcast<u32>(values[range.a0 + local]); }
  }
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = u32(0);
  var head = u32(0);
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = u32(0);
      b++;
    } else {
      acc = seg_combine(acc, bitcast<u32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(u32(0), scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}

// ===== kernel: segreduce tile u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<u32>;
@group(0) @binding(5) var<storage, read_write> carry: array<u32>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return a | b; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<u32, 256>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}


struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    if (local < range.na) { early[0u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 1u * 256u + lid;
    if (local < range.na) { early[1u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 2u * 256u + lid;
    if (local < range.na) { early[2u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 3u * 256u + lid;
    if (local < range.na) { early[3u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 4u * 256u + lid;
    if (local < range.na) { early[4u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 5u * 256u + lid;
    if (local < range.na) { early[5u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 6u * 256u + lid;
    if (local < range.na) { early[6u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 7u * 256u + lid;
    if (local < range.na) { early[7u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 8u * 256u + lid;
    if (local < range.na) { early[8u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 9u * 256u + lid;
    if (local < range.na) { early[9u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 10u * 256u + lid;
    if (local < range.na) { early[10u] = bitcast<u32>(values[range.a0 + local]); }
  }
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = u32(0);
  var head = u32(0);
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = u32(0);
      b++;
    } else {
      acc = seg_combine(acc, bitcast<u32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(u32(0), scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}

// ===== kernel: segreduce tile u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read> values: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<u32>;
@group(0) @binding(5) var<storage, read_write> carry: array<u32>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return max(a, b); }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<u32, 256>;


fn tile_search(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < sh[1u + diag - 1u - mid]) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}


struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    if (local < range.na) { early[0u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 1u * 256u + lid;
    if (local < range.na) { early[1u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 2u * 256u + lid;
    if (local < range.na) { early[2u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 3u * 256u + lid;
    if (local < range.na) { early[3u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 4u * 256u + lid;
    if (local < range.na) { early[4u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 5u * 256u + lid;
    if (local < range.na) { early[5u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 6u * 256u + lid;
    if (local < range.na) { early[6u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 7u * 256u + lid;
    if (local < range.na) { early[7u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 8u * 256u + lid;
    if (local < range.na) { early[8u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 9u * 256u + lid;
    if (local < range.na) { early[9u] = bitcast<u32>(values[range.a0 + local]); }
  }
  {
    let local = 10u * 256u + lid;
    if (local < range.na) { early[10u] = bitcast<u32>(values[range.a0 + local]); }
  }
  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = 0u;
  var head = 0u;
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = 0u;
      b++;
    } else {
      acc = seg_combine(acc, bitcast<u32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(0u, scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}

// ===== kernel: segreduce tile u32 =====
struct Params {
  item_count: u32,
  segment_count: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> offsets: array<u32>;
@group(0) @binding(2) var<storage, read> partitions: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;
@group(0) @binding(4) var<storage, read_write> carry: array<u32>;
@group(0) @binding(5) var<storage, read> cap_a0: array<u32>;

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

fn seg_combine(a: u32, b: u32) -> u32 { return a + b; }

fn seg_value(index: u32, seg: u32, rank: u32) -> u32 { return cap_a0[index] + rank; }
fn lbs_item_count() -> u32 { return params.item_count; }
fn lbs_segment_count() -> u32 { return params.segment_count; }
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return lbs_item_count() + lbs_segment_count(); }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / 2816u + select(0u, 1u, merge % 2816u != 0u);
}

var<workgroup> sh: array<u32, 2817>;
var<workgroup> scan_flag: array<u32, 256>;
var<workgroup> scan_value: array<u32, 256>;


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
  let d0 = tile * 2816u;
  let d1 = select(d0 + 2816u, total, total - d0 < 2816u);
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
  let range = lbs_tile_bounds(tile);

  lbs_load_starts(range, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();
  let slot = lid;
  // Each thread walks the merge steps of its slot: consecutive slots, consecutive steps.
  let diag = min(slot * 11u, na + nb);
  let end = min(diag + 11u, na + nb);
  let a_start = tile_search(diag, a0, na, nb);
  let b_start = diag - a_start;

  // Serial merge of this thread's steps: a start opens a segment, an item takes the open one.
  lbs_assign_segments(diag, end, a_start, a0, na, b0, nb);
  workgroupBarrier();
  // The functor runs in index order across threads, so its memory accesses coalesce; unrolled, with the
  // values kept in registers until all are loaded, a thread has all its items' loads in flight at once.
  var early: array<u32, 11>;
  {
    let local = 0u * 256u + lid;
    early[0u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[0u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 1u * 256u + lid;
    early[1u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[1u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 2u * 256u + lid;
    early[2u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[2u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 3u * 256u + lid;
    early[3u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[3u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 4u * 256u + lid;
    early[4u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[4u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 5u * 256u + lid;
    early[5u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[5u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 6u * 256u + lid;
    early[6u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[6u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 7u * 256u + lid;
    early[7u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[7u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 8u * 256u + lid;
    early[8u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[8u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 9u * 256u + lid;
    early[9u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[9u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }
  {
    let local = 10u * 256u + lid;
    early[10u] = bitcast<u32>(u32(u32(0)));
    if (local < na) {
      let seg = sh[nb + 1u + local];
      let index = a0 + local;
      // 0xffffffff: an item before offsets[0], in no segment.
      if (seg != 0xffffffffu) { early[10u] = bitcast<u32>(seg_value(index, seg, index - sh[seg + 1u - b0])); }
    }
  }

  {
    let local = 0u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[0u]; }
  }
  {
    let local = 1u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[1u]; }
  }
  {
    let local = 2u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[2u]; }
  }
  {
    let local = 3u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[3u]; }
  }
  {
    let local = 4u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[4u]; }
  }
  {
    let local = 5u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[5u]; }
  }
  {
    let local = 6u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[6u]; }
  }
  {
    let local = 7u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[7u]; }
  }
  {
    let local = 8u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[8u]; }
  }
  {
    let local = 9u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[9u]; }
  }
  {
    let local = 10u * 256u + lid;
    if (local < na) { sh[nb + 1u + local] = early[10u]; }
  }
  workgroupBarrier();

  // Serial reduction over the same steps. A start closes the open segment: the thread's first such
  // segment (its head) began before the thread; later ones began and ended here and are written now.
  var a = a_start;
  var b = b_start;
  var acc = u32(0);
  var head = u32(0);
  var boundary = false;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      if (boundary) { output[b0 + b - 1u] = acc; } else { head = acc; boundary = true; }
      acc = u32(0);
      b++;
    } else {
      acc = seg_combine(acc, bitcast<u32>(sh[nb + 1u + a]));
      a++;
    }
  }


  scan_flag[lid] = select(0u, 1u, boundary);
  scan_value[lid] = acc;
  workgroupBarrier();
  for (var off = 1u; off < 256u; off <<= 1u) {
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
  let carry_in = select(u32(0), scan_value[max(lid, 1u) - 1u], lid > 0u);
  if (boundary) {
    let v = seg_combine(carry_in, head);
    if (b_start > 0u) {
      output[b0 + b_start - 1u] = v;
    } else {
      carry[tile] = bitcast<u32>(v);
    }
  }
  if (slot == 255u) {
    // The segment open at the tile's end: its first piece when it started here, else the whole tile is
    // one more piece of segment b0 - 1.
    if (nb > 0u) {
      output[b0 + nb - 1u] = inclusive;
    } else {
      carry[tile] = bitcast<u32>(inclusive);
    }
  }
}
