// ===== kernel: transform =====
struct Params {
  n: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> cap_a0: array<u32>;
@group(0) @binding(2) var<storage, read_write> cap_a1: array<u32>;
@group(0) @binding(3) var<storage, read_write> cap_a2: array<u32>;
@group(0) @binding(4) var<storage, read> cap_a3: array<u32>;
@group(0) @binding(5) var<storage, read> cap_a4: array<u32>;
@group(0) @binding(6) var<storage, read> cap_a5: array<u32>;
@group(0) @binding(7) var<storage, read_write> cap_a6: array<atomic<i32>>;
@group(0) @binding(8) var<storage, read_write> cap_a7: array<atomic<i32>>;
@group(0) @binding(9) var<storage, read_write> cap_a8: array<atomic<i32>>;

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

fn weft_helper_0(i: u32, v: u32) {
  let j = i & 15u;
  switch (i >> 4u) {
    case 0u: { cap_a0[j] = v; }
    case 1u: { cap_a1[j] = v; }
    default: { cap_a2[j] = v; }
  }
}

fn weft_helper_1(i: u32) -> u32 {
  let j = i & 15u;
  switch (i >> 4u) {
    case 0u: { return cap_a3[j]; }
    case 1u: { return cap_a4[j]; }
    default: { return cap_a5[j]; }
  }
}

fn weft_helper_2(i: u32, v: i32) -> i32 {
  let j = i & 15u;
  switch (i >> 4u) {
    case 0u: { return atomicMax(&cap_a6[j], v); }
    case 1u: { return atomicMax(&cap_a7[j], v); }
    default: { return atomicMax(&cap_a8[j], v); }
  }
}

fn weft_op(i: u32) {
  weft_helper_0(i, weft_helper_1(i) + 1u);
  weft_helper_2(i, i32(i));
}

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
