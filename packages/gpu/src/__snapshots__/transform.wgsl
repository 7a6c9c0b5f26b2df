// ===== kernel: copy vec4 =====
struct Params {
  n4: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> src: array<vec4<u32>>;
@group(0) @binding(2) var<storage, read_write> dst: array<vec4<u32>>;

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


const V = 1u;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let stride = nwg.x * nwg.y * 256u * V;
  // Loads first, then stores: the compiler cannot move a load above a store to another binding
  // (bindings may alias), so interleaving them would serialize memory latency.
  for (var base = weft_workgroup_index(wid, nwg) * 256u * V + lid; base < params.n4; base += stride) {
    var v: array<vec4<u32>, V>;
    for (var j = 0u; j < V; j++) {
      let i = base + j * 256u;
      if (i < params.n4) { v[j] = src[i]; }
    }
    for (var j = 0u; j < V; j++) {
      let i = base + j * 256u;
      if (i < params.n4) { dst[i] = v[j]; }
    }
  }
}

// ===== kernel: indirect args =====
struct Params {
  index: u32,
  per_group: u32,
  max_dim: u32,
  out: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> count: array<u32>;
@group(0) @binding(2) var<storage, read_write> args: array<u32>;

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


@compute @workgroup_size(1)
fn main() {
  let n = count[params.index];
  let groups = (n + params.per_group - 1u) / params.per_group;
  // Split beyond the per-dimension limit: x * y >= groups; kernels bound-check their linear index.
  let x = min(groups, params.max_dim);
  var y = 1u;
  if (x > 0u) { y = (groups + x - 1u) / x; }
  args[params.out + 0u] = x;
  args[params.out + 1u] = select(1u, y, x > 0u);
  args[params.out + 2u] = 1u;
}

// ===== kernel: map =====
struct Params {
  count_index: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weft_out: array<u32>;
@group(0) @binding(2) var<storage, read> count: array<u32>;

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

fn weft_op(i: u32) -> u32 { return i + 1u; }

// A const, not an override: it sizes a function-scope array.
const ITEMS = 4u;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let base = weft_workgroup_index(wid, nwg) * 256u * ITEMS + lid;
  // A GPU count is clamped to the output's length: items past it are dropped, never written out of bounds.
  let n = min(count[params.count_index], arrayLength(&weft_out));
  var v: array<u32, ITEMS>;
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * 256u;
    if (i < n) { v[j] = weft_op(i); }
  }
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * 256u;
    if (i < n) { weft_out[i] = v[j]; }
  }
}

// ===== kernel: map =====
struct Params {
  n: u32,
  cap_s0: f32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> weft_out: array<f32>;

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

fn weft_op(i: u32) -> f32 { return f32(i) * params.cap_s0; }

// A const, not an override: it sizes a function-scope array.
const ITEMS = 4u;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let base = weft_workgroup_index(wid, nwg) * 256u * ITEMS + lid;
  // A GPU count is clamped to the output's length: items past it are dropped, never written out of bounds.
  let n = params.n;
  var v: array<f32, ITEMS>;
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * 256u;
    if (i < n) { v[j] = weft_op(i); }
  }
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * 256u;
    if (i < n) { weft_out[i] = v[j]; }
  }
}

// ===== kernel: transform =====
struct Params {
  n: u32,
  cap_s0: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> cap_a0: array<u32>;
@group(0) @binding(2) var<storage, read> cap_a1: array<u32>;

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

fn weft_op(i: u32) { cap_a0[i] = cap_a1[i] * 3u + params.cap_s0; }

override ITEMS: u32;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  // Several items per thread, strided by the workgroup size: coalesced, and more loads in flight per thread.
  let base = weft_workgroup_index(wid, nwg) * 256u * ITEMS + lid;
  let n = params.n;
  for (var j = 0u; j < ITEMS; j++) {
    let i = base + j * 256u;
    if (i < n) { weft_op(i); }
  }
}
