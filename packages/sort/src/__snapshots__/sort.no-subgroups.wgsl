// ===== kernel: merge-path partition u32 =====
struct Params {
  n: u32,
  m: u32,
  tiles: u32,
  upper: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> needles: array<u32>;
@group(0) @binding(2) var<storage, read> haystack: array<u32>;
@group(0) @binding(3) var<storage, read_write> partitions: array<u32>;

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


// Lower bound: a needle goes before equal haystack items (they do not count); upper: after them.
fn a_first(a: u32, b: u32) -> bool {
  if (params.upper != 0u) { return a < b; }
  return a <= b;
}

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = weft_workgroup_index(wid, nwg) * 128u + lid;
  if (p > params.tiles) { return; }
  let diag = min(p * 1024u, params.n + params.m);
  var lo = select(0u, diag - params.m, diag > params.m);
  var hi = min(diag, params.n);
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (a_first(needles[mid], haystack[diag - 1u - mid])) { lo = mid + 1u; } else { hi = mid; }
  }
  partitions[p] = lo;
}

// ===== kernel: merge-path sorted search u32 =====
struct Params {
  n: u32,
  m: u32,
  tiles: u32,
  upper: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> needles: array<u32>;
@group(0) @binding(2) var<storage, read> haystack: array<u32>;
@group(0) @binding(3) var<storage, read> partitions: array<u32>;
@group(0) @binding(4) var<storage, read_write> output: array<u32>;

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


// Lower bound: a needle goes before equal haystack items (they do not count); upper: after them.
fn a_first(a: u32, b: u32) -> bool {
  if (params.upper != 0u) { return a < b; }
  return a <= b;
}

// The tile's needles at [0, na), its haystack items at [na, na + nb).
var<workgroup> items: array<u32, 1024>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= params.tiles) { return; }
  let a0 = partitions[tile];
  let a1 = partitions[tile + 1u];
  let d0 = tile * 1024u;
  let d1 = min(d0 + 1024u, params.n + params.m);
  let b0 = d0 - a0;
  let b1 = d1 - a1;
  let na = a1 - a0;
  let nb = b1 - b0;
  for (var k = lid; k < na + nb; k += 128u) {
    if (k < na) { items[k] = needles[a0 + k]; } else { items[k] = haystack[b0 + k - na]; }
  }
  workgroupBarrier();
  // This thread's diagonal inside the tile, then a serial merge of up to ITEMS items.
  let diag = min(lid * 8u, na + nb);
  var lo = select(0u, diag - nb, diag > nb);
  var hi = min(diag, na);
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (a_first(items[mid], items[na + diag - 1u - mid])) { lo = mid + 1u; } else { hi = mid; }
  }
  var i = lo;
  var j = diag - lo;
  for (var step = 0u; step < 8u; step++) {
    if (i + j >= na + nb) { break; }
    if (i < na && (j >= nb || a_first(items[i], items[na + j]))) {
      output[a0 + i] = b0 + j;
      i++;
    } else {
      j++;
    }
  }
}

// ===== kernel: onesweep histogram =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> control: array<atomic<u32>>;
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



fn order_key(raw: u32) -> u32 { return raw; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }

var<workgroup> hist: array<atomic<u32>, 1024>;
var<workgroup> n_shared: u32;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  for (var i = lid; i < 1024u; i += 256u) { atomicStore(&hist[i], 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  // Grid-stride over groups of 8 keys per thread, loaded before any atomic (an atomic between
  // two loads keeps the second from issuing early).
  let stride = nwg.x * nwg.y * 2048u;
  for (var base = weft_workgroup_index(wid, nwg) * 2048u + lid; base < n; base += stride) {
    var keys: array<u32, 8>;
  {
      let i = base + 0u * 256u;
      if (i < n) { keys[0u] = keys_in[i]; }
  }
  {
      let i = base + 1u * 256u;
      if (i < n) { keys[1u] = keys_in[i]; }
  }
  {
      let i = base + 2u * 256u;
      if (i < n) { keys[2u] = keys_in[i]; }
  }
  {
      let i = base + 3u * 256u;
      if (i < n) { keys[3u] = keys_in[i]; }
  }
  {
      let i = base + 4u * 256u;
      if (i < n) { keys[4u] = keys_in[i]; }
  }
  {
      let i = base + 5u * 256u;
      if (i < n) { keys[5u] = keys_in[i]; }
  }
  {
      let i = base + 6u * 256u;
      if (i < n) { keys[6u] = keys_in[i]; }
  }
  {
      let i = base + 7u * 256u;
      if (i < n) { keys[7u] = keys_in[i]; }
  }
  {
      if (base + 0u * 256u < n) {
        let k = order_key(keys[0u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 1u * 256u < n) {
        let k = order_key(keys[1u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 2u * 256u < n) {
        let k = order_key(keys[2u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 3u * 256u < n) {
        let k = order_key(keys[3u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 4u * 256u < n) {
        let k = order_key(keys[4u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 5u * 256u < n) {
        let k = order_key(keys[5u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 6u * 256u < n) {
        let k = order_key(keys[6u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 7u * 256u < n) {
        let k = order_key(keys[7u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  }
  workgroupBarrier();
  for (var i = lid; i < params.passes * 256u; i += 256u) {
    let c = atomicLoad(&hist[i]);
    if (c != 0u) { atomicAdd(&control[4u + i], c); }
  }
}

// ===== kernel: onesweep histogram =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> control: array<atomic<u32>>;
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



fn order_key(raw: u32) -> u32 { return ~select(select(raw | 0x80000000u, ~raw, (raw & 0x80000000u) != 0u), 0xffffffffu, (raw & 0x7fffffffu) > 0x7f800000u); }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }

var<workgroup> hist: array<atomic<u32>, 1024>;
var<workgroup> n_shared: u32;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  for (var i = lid; i < 1024u; i += 256u) { atomicStore(&hist[i], 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  // Grid-stride over groups of 8 keys per thread, loaded before any atomic (an atomic between
  // two loads keeps the second from issuing early).
  let stride = nwg.x * nwg.y * 2048u;
  for (var base = weft_workgroup_index(wid, nwg) * 2048u + lid; base < n; base += stride) {
    var keys: array<u32, 8>;
  {
      let i = base + 0u * 256u;
      if (i < n) { keys[0u] = keys_in[i]; }
  }
  {
      let i = base + 1u * 256u;
      if (i < n) { keys[1u] = keys_in[i]; }
  }
  {
      let i = base + 2u * 256u;
      if (i < n) { keys[2u] = keys_in[i]; }
  }
  {
      let i = base + 3u * 256u;
      if (i < n) { keys[3u] = keys_in[i]; }
  }
  {
      let i = base + 4u * 256u;
      if (i < n) { keys[4u] = keys_in[i]; }
  }
  {
      let i = base + 5u * 256u;
      if (i < n) { keys[5u] = keys_in[i]; }
  }
  {
      let i = base + 6u * 256u;
      if (i < n) { keys[6u] = keys_in[i]; }
  }
  {
      let i = base + 7u * 256u;
      if (i < n) { keys[7u] = keys_in[i]; }
  }
  {
      if (base + 0u * 256u < n) {
        let k = order_key(keys[0u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 1u * 256u < n) {
        let k = order_key(keys[1u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 2u * 256u < n) {
        let k = order_key(keys[2u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 3u * 256u < n) {
        let k = order_key(keys[3u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 4u * 256u < n) {
        let k = order_key(keys[4u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 5u * 256u < n) {
        let k = order_key(keys[5u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 6u * 256u < n) {
        let k = order_key(keys[6u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  {
      if (base + 7u * 256u < n) {
        let k = order_key(keys[7u]);
        for (var p = 0u; p < params.passes; p++) {
          let left = params.sort_bits - 8u * p;
          let mask = select(0xffu, (1u << left) - 1u, left < 8u);
          atomicAdd(&hist[p * 256u + ((k >> (8u * p)) & mask)], 1u);
        }
      }
  }
  }
  workgroupBarrier();
  for (var i = lid; i < params.passes * 256u; i += 256u) {
    let c = atomicLoad(&hist[i]);
    if (c != 0u) { atomicAdd(&control[4u + i], c); }
  }
}

// ===== kernel: onesweep pass =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> control: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }


const FLAG_AGGREGATE = 0x40000000u; // the tile's own count
const FLAG_INCLUSIVE = 0x80000000u; // the count of this tile and every earlier tile
const FLAG_MASK = 0xc0000000u;
const VALUE_MASK = 0x3fffffffu;



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;



var<workgroup> tile_shared: u32;
var<workgroup> fallback_hist: array<atomic<u32>, 256>;
// Look-back round flags, double-buffered by round parity so a reset never races a read.
// fallback_tile: 1 + the tile the workgroup counts itself this round (0: none).
var<workgroup> fallback_tile: array<u32, 2>;
var<workgroup> pending: array<u32, 2>;

fn status_index(t: u32, digit: u32) -> u32 {
  return (params.pass_index * params.num_tiles + t) * 256u + digit;
}
// Test hook: odd tiles' published counts read as never ready, forcing the fallback path.
fn trusted(t: u32) -> bool { return params.distrust_odd == 0u || (t & 1u) == 0u; }

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) {
    n_shared = item_count();
    // Tiles in ticket order: a tile's predecessors were started before it, so look-back rarely stalls.
    tile_shared = atomicAdd(&control[params.pass_index], 1u);
    fallback_tile[0] = 0u;
    pending[0] = 0u;
  }
  let n = workgroupUniformLoad(&n_shared);
  let tile = workgroupUniformLoad(&tile_shared);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {
    let d = digit_of(keys[0u]);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[1u]);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[2u]);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[3u]);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[4u]);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[5u]);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[6u]);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[7u]);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = atomicLoad(&control[4u + params.pass_index * 256u + d]);
    sums += vec2<u32>(padded[q], totals[q]);
  }
  // Publish early: later tiles may be waiting for these counts.
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    if (tile == 0u) { atomicMax(&status[status_index(0u, d)], FLAG_INCLUSIVE | tile_count[q]); }
    else { atomicMax(&status[status_index(tile, d)], FLAG_AGGREGATE | tile_count[q]); }
  }
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }

  // Decoupled look-back, each thread on its own digits without barriers: from the nearest earlier tile not
  // yet added, add published counts until an inclusive one. A step spins on that nearest tile, then reads
  // the 3 before it at once (their loads in flight together: most predecessors have published only
  // aggregates, and one tile per step would cost a memory round trip per predecessor). A digit whose nearest
  // tile publishes nothing within the spin stalls; the workgroup then counts one stalled tile's keys itself
  // and every thread goes on.
  var excl: array<u32, 1>;
  var done: array<bool, 1>;
  // Per digit: tiles [next, tile) are in excl.
  var next: array<u32, 1>;
  for (var q = 0u; q < 1u; q++) {
    done[q] = tile == 0u;
    next[q] = tile;
  }
  var round = 0u;
  if (tile != 0u) {
    loop {
      let par = round & 1u;
      // 1 + a tile one of this thread's digits stalled on (0: none).
      var stalled_at = 0u;
      for (var q = 0u; q < 1u; q++) {
        if (done[q]) { continue; }
        let d = slot * 1u + q;
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
          // loop-body `var` without one only once (WGSL says every iteration), so a distrusted tile's slot
          // would keep a value read in an earlier step.
          var window = array<u32, 3>();
  {
          if (at > 0u && trusted(at - 1u - 0u)) { window[0u] = atomicLoad(&status[status_index(at - 1u - 0u, d)]); }
  }
  {
          if (at > 1u && trusted(at - 1u - 1u)) { window[1u] = atomicLoad(&status[status_index(at - 1u - 1u, d)]); }
  }
  {
          if (at > 2u && trusted(at - 1u - 2u)) { window[2u] = atomicLoad(&status[status_index(at - 1u - 2u, d)]); }
  }
          // Add them nearest first, up to the first that has published nothing (spun on next) or is inclusive.
          var open = true;
  {
          if (open && at > 0u) {
            let w = window[0u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[1u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[2u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
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
        for (var d = lid; d < 256u; d += 256u) { atomicStore(&fallback_hist[d], 0u); }
        workgroupBarrier();
        let look_start = look * 2048u;
        for (var j = 0u; j < 8u; j++) {
          let i = look_start + j * 256u + lid;
          if (i < n) { atomicAdd(&fallback_hist[digit_of(keys_in[i])], 1u); }
        }
        workgroupBarrier();
        for (var q = 0u; q < 1u; q++) {
          if (done[q] || next[q] != fallback) { continue; }
          let d = slot * 1u + q;
          let c = atomicLoad(&fallback_hist[d]);
          excl[q] += c;
          next[q] = look;
          done[q] = look == 0u;
          atomicMax(&status[status_index(look, d)], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, done[q]) | c);
        }
      }
      var all_done = true;
      for (var q = 0u; q < 1u; q++) { all_done = all_done && done[q]; }
      if (!all_done) { pending[par] = 1u; }
      if (workgroupUniformLoad(&pending[par]) == 0u) { break; }
      round += 1u;
    }
    for (var q = 0u; q < 1u; q++) {
      atomicMax(&status[status_index(tile, slot * 1u + q)], FLAG_INCLUSIVE | (excl[q] + tile_count[q]));
    }
  }
  for (var q = 0u; q < 1u; q++) {
    scatter_base[slot * 1u + q] = digit_start[q] + excl[q] - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: onesweep pass =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> control: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return ~select(select(raw | 0x80000000u, ~raw, (raw & 0x80000000u) != 0u), 0xffffffffu, (raw & 0x7fffffffu) > 0x7f800000u); }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }


const FLAG_AGGREGATE = 0x40000000u; // the tile's own count
const FLAG_INCLUSIVE = 0x80000000u; // the count of this tile and every earlier tile
const FLAG_MASK = 0xc0000000u;
const VALUE_MASK = 0x3fffffffu;



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;



var<workgroup> tile_shared: u32;
var<workgroup> fallback_hist: array<atomic<u32>, 256>;
// Look-back round flags, double-buffered by round parity so a reset never races a read.
// fallback_tile: 1 + the tile the workgroup counts itself this round (0: none).
var<workgroup> fallback_tile: array<u32, 2>;
var<workgroup> pending: array<u32, 2>;

fn status_index(t: u32, digit: u32) -> u32 {
  return (params.pass_index * params.num_tiles + t) * 256u + digit;
}
// Test hook: odd tiles' published counts read as never ready, forcing the fallback path.
fn trusted(t: u32) -> bool { return params.distrust_odd == 0u || (t & 1u) == 0u; }

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) {
    n_shared = item_count();
    // Tiles in ticket order: a tile's predecessors were started before it, so look-back rarely stalls.
    tile_shared = atomicAdd(&control[params.pass_index], 1u);
    fallback_tile[0] = 0u;
    pending[0] = 0u;
  }
  let n = workgroupUniformLoad(&n_shared);
  let tile = workgroupUniformLoad(&tile_shared);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; }
  }


  {
    let d = select(max_digit, digit_of(keys[0u]), block + 0u * sg_size + lane < n);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[1u]), block + 1u * sg_size + lane < n);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[2u]), block + 2u * sg_size + lane < n);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[3u]), block + 3u * sg_size + lane < n);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[4u]), block + 4u * sg_size + lane < n);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[5u]), block + 5u * sg_size + lane < n);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[6u]), block + 6u * sg_size + lane < n);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[7u]), block + 7u * sg_size + lane < n);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = atomicLoad(&control[4u + params.pass_index * 256u + d]);
    sums += vec2<u32>(padded[q], totals[q]);
  }
  // Publish early: later tiles may be waiting for these counts.
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    if (tile == 0u) { atomicMax(&status[status_index(0u, d)], FLAG_INCLUSIVE | tile_count[q]); }
    else { atomicMax(&status[status_index(tile, d)], FLAG_AGGREGATE | tile_count[q]); }
  }
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }

  // Decoupled look-back, each thread on its own digits without barriers: from the nearest earlier tile not
  // yet added, add published counts until an inclusive one. A step spins on that nearest tile, then reads
  // the 3 before it at once (their loads in flight together: most predecessors have published only
  // aggregates, and one tile per step would cost a memory round trip per predecessor). A digit whose nearest
  // tile publishes nothing within the spin stalls; the workgroup then counts one stalled tile's keys itself
  // and every thread goes on.
  var excl: array<u32, 1>;
  var done: array<bool, 1>;
  // Per digit: tiles [next, tile) are in excl.
  var next: array<u32, 1>;
  for (var q = 0u; q < 1u; q++) {
    done[q] = tile == 0u;
    next[q] = tile;
  }
  var round = 0u;
  if (tile != 0u) {
    loop {
      let par = round & 1u;
      // 1 + a tile one of this thread's digits stalled on (0: none).
      var stalled_at = 0u;
      for (var q = 0u; q < 1u; q++) {
        if (done[q]) { continue; }
        let d = slot * 1u + q;
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
          // loop-body `var` without one only once (WGSL says every iteration), so a distrusted tile's slot
          // would keep a value read in an earlier step.
          var window = array<u32, 3>();
  {
          if (at > 0u && trusted(at - 1u - 0u)) { window[0u] = atomicLoad(&status[status_index(at - 1u - 0u, d)]); }
  }
  {
          if (at > 1u && trusted(at - 1u - 1u)) { window[1u] = atomicLoad(&status[status_index(at - 1u - 1u, d)]); }
  }
  {
          if (at > 2u && trusted(at - 1u - 2u)) { window[2u] = atomicLoad(&status[status_index(at - 1u - 2u, d)]); }
  }
          // Add them nearest first, up to the first that has published nothing (spun on next) or is inclusive.
          var open = true;
  {
          if (open && at > 0u) {
            let w = window[0u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[1u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[2u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
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
        for (var d = lid; d < 256u; d += 256u) { atomicStore(&fallback_hist[d], 0u); }
        workgroupBarrier();
        let look_start = look * 2048u;
        for (var j = 0u; j < 8u; j++) {
          let i = look_start + j * 256u + lid;
          if (i < n) { atomicAdd(&fallback_hist[digit_of(keys_in[i])], 1u); }
        }
        workgroupBarrier();
        for (var q = 0u; q < 1u; q++) {
          if (done[q] || next[q] != fallback) { continue; }
          let d = slot * 1u + q;
          let c = atomicLoad(&fallback_hist[d]);
          excl[q] += c;
          next[q] = look;
          done[q] = look == 0u;
          atomicMax(&status[status_index(look, d)], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, done[q]) | c);
        }
      }
      var all_done = true;
      for (var q = 0u; q < 1u; q++) { all_done = all_done && done[q]; }
      if (!all_done) { pending[par] = 1u; }
      if (workgroupUniformLoad(&pending[par]) == 0u) { break; }
      round += 1u;
    }
    for (var q = 0u; q < 1u; q++) {
      atomicMax(&status[status_index(tile, slot * 1u + q)], FLAG_INCLUSIVE | (excl[q] + tile_count[q]));
    }
  }
  for (var q = 0u; q < 1u; q++) {
    scatter_base[slot * 1u + q] = digit_start[q] + excl[q] - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: onesweep pass pairs =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> control: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }


const FLAG_AGGREGATE = 0x40000000u; // the tile's own count
const FLAG_INCLUSIVE = 0x80000000u; // the count of this tile and every earlier tile
const FLAG_MASK = 0xc0000000u;
const VALUE_MASK = 0x3fffffffu;



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;



var<workgroup> tile_shared: u32;
var<workgroup> fallback_hist: array<atomic<u32>, 256>;
// Look-back round flags, double-buffered by round parity so a reset never races a read.
// fallback_tile: 1 + the tile the workgroup counts itself this round (0: none).
var<workgroup> fallback_tile: array<u32, 2>;
var<workgroup> pending: array<u32, 2>;

fn status_index(t: u32, digit: u32) -> u32 {
  return (params.pass_index * params.num_tiles + t) * 256u + digit;
}
// Test hook: odd tiles' published counts read as never ready, forcing the fallback path.
fn trusted(t: u32) -> bool { return params.distrust_odd == 0u || (t & 1u) == 0u; }

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) {
    n_shared = item_count();
    // Tiles in ticket order: a tile's predecessors were started before it, so look-back rarely stalls.
    tile_shared = atomicAdd(&control[params.pass_index], 1u);
    fallback_tile[0] = 0u;
    pending[0] = 0u;
  }
  let n = workgroupUniformLoad(&n_shared);
  let tile = workgroupUniformLoad(&tile_shared);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  var vals: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }
  // The values too, with the keys: their loads then overlap the ranking, which pays for the registers
  // they hold meanwhile.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { vals[0u] = values_in[idx]; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { vals[1u] = values_in[idx]; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { vals[2u] = values_in[idx]; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { vals[3u] = values_in[idx]; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { vals[4u] = values_in[idx]; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { vals[5u] = values_in[idx]; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { vals[6u] = values_in[idx]; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { vals[7u] = values_in[idx]; }
  }

  {
    let d = digit_of(keys[0u]);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[1u]);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[2u]);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[3u]);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[4u]);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[5u]);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[6u]);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[7u]);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = atomicLoad(&control[4u + params.pass_index * 256u + d]);
    sums += vec2<u32>(padded[q], totals[q]);
  }
  // Publish early: later tiles may be waiting for these counts.
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    if (tile == 0u) { atomicMax(&status[status_index(0u, d)], FLAG_INCLUSIVE | tile_count[q]); }
    else { atomicMax(&status[status_index(tile, d)], FLAG_AGGREGATE | tile_count[q]); }
  }
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }

  // Decoupled look-back, each thread on its own digits without barriers: from the nearest earlier tile not
  // yet added, add published counts until an inclusive one. A step spins on that nearest tile, then reads
  // the 3 before it at once (their loads in flight together: most predecessors have published only
  // aggregates, and one tile per step would cost a memory round trip per predecessor). A digit whose nearest
  // tile publishes nothing within the spin stalls; the workgroup then counts one stalled tile's keys itself
  // and every thread goes on.
  var excl: array<u32, 1>;
  var done: array<bool, 1>;
  // Per digit: tiles [next, tile) are in excl.
  var next: array<u32, 1>;
  for (var q = 0u; q < 1u; q++) {
    done[q] = tile == 0u;
    next[q] = tile;
  }
  var round = 0u;
  if (tile != 0u) {
    loop {
      let par = round & 1u;
      // 1 + a tile one of this thread's digits stalled on (0: none).
      var stalled_at = 0u;
      for (var q = 0u; q < 1u; q++) {
        if (done[q]) { continue; }
        let d = slot * 1u + q;
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
          // loop-body `var` without one only once (WGSL says every iteration), so a distrusted tile's slot
          // would keep a value read in an earlier step.
          var window = array<u32, 3>();
  {
          if (at > 0u && trusted(at - 1u - 0u)) { window[0u] = atomicLoad(&status[status_index(at - 1u - 0u, d)]); }
  }
  {
          if (at > 1u && trusted(at - 1u - 1u)) { window[1u] = atomicLoad(&status[status_index(at - 1u - 1u, d)]); }
  }
  {
          if (at > 2u && trusted(at - 1u - 2u)) { window[2u] = atomicLoad(&status[status_index(at - 1u - 2u, d)]); }
  }
          // Add them nearest first, up to the first that has published nothing (spun on next) or is inclusive.
          var open = true;
  {
          if (open && at > 0u) {
            let w = window[0u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[1u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[2u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
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
        for (var d = lid; d < 256u; d += 256u) { atomicStore(&fallback_hist[d], 0u); }
        workgroupBarrier();
        let look_start = look * 2048u;
        for (var j = 0u; j < 8u; j++) {
          let i = look_start + j * 256u + lid;
          if (i < n) { atomicAdd(&fallback_hist[digit_of(keys_in[i])], 1u); }
        }
        workgroupBarrier();
        for (var q = 0u; q < 1u; q++) {
          if (done[q] || next[q] != fallback) { continue; }
          let d = slot * 1u + q;
          let c = atomicLoad(&fallback_hist[d]);
          excl[q] += c;
          next[q] = look;
          done[q] = look == 0u;
          atomicMax(&status[status_index(look, d)], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, done[q]) | c);
        }
      }
      var all_done = true;
      for (var q = 0u; q < 1u; q++) { all_done = all_done && done[q]; }
      if (!all_done) { pending[par] = 1u; }
      if (workgroupUniformLoad(&pending[par]) == 0u) { break; }
      round += 1u;
    }
    for (var q = 0u; q < 1u; q++) {
      atomicMax(&status[status_index(tile, slot * 1u + q)], FLAG_INCLUSIVE | (excl[q] + tile_count[q]));
    }
  }
  for (var q = 0u; q < 1u; q++) {
    scatter_base[slot * 1u + q] = digit_start[q] + excl[q] - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  var dst: array<u32, 8>;
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[0u] = o;
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[1u] = o;
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[2u] = o;
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[3u] = o;
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[4u] = o;
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[5u] = o;
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[6u] = o;
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[7u] = o;
    }
  }
  workgroupBarrier();
  // Slots past the input's end get zeros, which are never written out.
  { staged[pos[0u]] = vals[0u];
  }
  { staged[pos[1u]] = vals[1u];
  }
  { staged[pos[2u]] = vals[2u];
  }
  { staged[pos[3u]] = vals[3u];
  }
  { staged[pos[4u]] = vals[4u];
  }
  { staged[pos[5u]] = vals[5u];
  }
  { staged[pos[6u]] = vals[6u];
  }
  { staged[pos[7u]] = vals[7u];
  }
  
  workgroupBarrier();
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[0u]] = staged[i]; }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[1u]] = staged[i]; }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[2u]] = staged[i]; }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[3u]] = staged[i]; }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[4u]] = staged[i]; }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[5u]] = staged[i]; }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[6u]] = staged[i]; }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[7u]] = staged[i]; }
  }
}

// ===== kernel: onesweep pass pairs =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<u32>;
@group(0) @binding(5) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(6) var<storage, read_write> control: array<atomic<u32>>;
@group(0) @binding(7) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return ~select(select(raw | 0x80000000u, ~raw, (raw & 0x80000000u) != 0u), 0xffffffffu, (raw & 0x7fffffffu) > 0x7f800000u); }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }


const FLAG_AGGREGATE = 0x40000000u; // the tile's own count
const FLAG_INCLUSIVE = 0x80000000u; // the count of this tile and every earlier tile
const FLAG_MASK = 0xc0000000u;
const VALUE_MASK = 0x3fffffffu;



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;



var<workgroup> tile_shared: u32;
var<workgroup> fallback_hist: array<atomic<u32>, 256>;
// Look-back round flags, double-buffered by round parity so a reset never races a read.
// fallback_tile: 1 + the tile the workgroup counts itself this round (0: none).
var<workgroup> fallback_tile: array<u32, 2>;
var<workgroup> pending: array<u32, 2>;

fn status_index(t: u32, digit: u32) -> u32 {
  return (params.pass_index * params.num_tiles + t) * 256u + digit;
}
// Test hook: odd tiles' published counts read as never ready, forcing the fallback path.
fn trusted(t: u32) -> bool { return params.distrust_odd == 0u || (t & 1u) == 0u; }

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) {
    n_shared = item_count();
    // Tiles in ticket order: a tile's predecessors were started before it, so look-back rarely stalls.
    tile_shared = atomicAdd(&control[params.pass_index], 1u);
    fallback_tile[0] = 0u;
    pending[0] = 0u;
  }
  let n = workgroupUniformLoad(&n_shared);
  let tile = workgroupUniformLoad(&tile_shared);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  var vals: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; }
  }
  // The values too, with the keys: their loads then overlap the ranking, which pays for the registers
  // they hold meanwhile.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { vals[0u] = values_in[idx]; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { vals[1u] = values_in[idx]; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { vals[2u] = values_in[idx]; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { vals[3u] = values_in[idx]; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { vals[4u] = values_in[idx]; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { vals[5u] = values_in[idx]; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { vals[6u] = values_in[idx]; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { vals[7u] = values_in[idx]; }
  }

  {
    let d = select(max_digit, digit_of(keys[0u]), block + 0u * sg_size + lane < n);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[1u]), block + 1u * sg_size + lane < n);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[2u]), block + 2u * sg_size + lane < n);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[3u]), block + 3u * sg_size + lane < n);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[4u]), block + 4u * sg_size + lane < n);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[5u]), block + 5u * sg_size + lane < n);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[6u]), block + 6u * sg_size + lane < n);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = select(max_digit, digit_of(keys[7u]), block + 7u * sg_size + lane < n);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = atomicLoad(&control[4u + params.pass_index * 256u + d]);
    sums += vec2<u32>(padded[q], totals[q]);
  }
  // Publish early: later tiles may be waiting for these counts.
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    if (tile == 0u) { atomicMax(&status[status_index(0u, d)], FLAG_INCLUSIVE | tile_count[q]); }
    else { atomicMax(&status[status_index(tile, d)], FLAG_AGGREGATE | tile_count[q]); }
  }
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }

  // Decoupled look-back, each thread on its own digits without barriers: from the nearest earlier tile not
  // yet added, add published counts until an inclusive one. A step spins on that nearest tile, then reads
  // the 3 before it at once (their loads in flight together: most predecessors have published only
  // aggregates, and one tile per step would cost a memory round trip per predecessor). A digit whose nearest
  // tile publishes nothing within the spin stalls; the workgroup then counts one stalled tile's keys itself
  // and every thread goes on.
  var excl: array<u32, 1>;
  var done: array<bool, 1>;
  // Per digit: tiles [next, tile) are in excl.
  var next: array<u32, 1>;
  for (var q = 0u; q < 1u; q++) {
    done[q] = tile == 0u;
    next[q] = tile;
  }
  var round = 0u;
  if (tile != 0u) {
    loop {
      let par = round & 1u;
      // 1 + a tile one of this thread's digits stalled on (0: none).
      var stalled_at = 0u;
      for (var q = 0u; q < 1u; q++) {
        if (done[q]) { continue; }
        let d = slot * 1u + q;
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
          // loop-body `var` without one only once (WGSL says every iteration), so a distrusted tile's slot
          // would keep a value read in an earlier step.
          var window = array<u32, 3>();
  {
          if (at > 0u && trusted(at - 1u - 0u)) { window[0u] = atomicLoad(&status[status_index(at - 1u - 0u, d)]); }
  }
  {
          if (at > 1u && trusted(at - 1u - 1u)) { window[1u] = atomicLoad(&status[status_index(at - 1u - 1u, d)]); }
  }
  {
          if (at > 2u && trusted(at - 1u - 2u)) { window[2u] = atomicLoad(&status[status_index(at - 1u - 2u, d)]); }
  }
          // Add them nearest first, up to the first that has published nothing (spun on next) or is inclusive.
          var open = true;
  {
          if (open && at > 0u) {
            let w = window[0u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[1u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[2u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
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
        for (var d = lid; d < 256u; d += 256u) { atomicStore(&fallback_hist[d], 0u); }
        workgroupBarrier();
        let look_start = look * 2048u;
        for (var j = 0u; j < 8u; j++) {
          let i = look_start + j * 256u + lid;
          if (i < n) { atomicAdd(&fallback_hist[digit_of(keys_in[i])], 1u); }
        }
        workgroupBarrier();
        for (var q = 0u; q < 1u; q++) {
          if (done[q] || next[q] != fallback) { continue; }
          let d = slot * 1u + q;
          let c = atomicLoad(&fallback_hist[d]);
          excl[q] += c;
          next[q] = look;
          done[q] = look == 0u;
          atomicMax(&status[status_index(look, d)], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, done[q]) | c);
        }
      }
      var all_done = true;
      for (var q = 0u; q < 1u; q++) { all_done = all_done && done[q]; }
      if (!all_done) { pending[par] = 1u; }
      if (workgroupUniformLoad(&pending[par]) == 0u) { break; }
      round += 1u;
    }
    for (var q = 0u; q < 1u; q++) {
      atomicMax(&status[status_index(tile, slot * 1u + q)], FLAG_INCLUSIVE | (excl[q] + tile_count[q]));
    }
  }
  for (var q = 0u; q < 1u; q++) {
    scatter_base[slot * 1u + q] = digit_start[q] + excl[q] - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  var dst: array<u32, 8>;
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[0u] = o;
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[1u] = o;
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[2u] = o;
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[3u] = o;
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[4u] = o;
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[5u] = o;
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[6u] = o;
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[7u] = o;
    }
  }
  workgroupBarrier();
  // Slots past the input's end get zeros, which are never written out.
  { staged[pos[0u]] = vals[0u];
  }
  { staged[pos[1u]] = vals[1u];
  }
  { staged[pos[2u]] = vals[2u];
  }
  { staged[pos[3u]] = vals[3u];
  }
  { staged[pos[4u]] = vals[4u];
  }
  { staged[pos[5u]] = vals[5u];
  }
  { staged[pos[6u]] = vals[6u];
  }
  { staged[pos[7u]] = vals[7u];
  }
  
  workgroupBarrier();
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[0u]] = staged[i]; }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[1u]] = staged[i]; }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[2u]] = staged[i]; }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[3u]] = staged[i]; }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[4u]] = staged[i]; }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[5u]] = staged[i]; }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[6u]] = staged[i]; }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[7u]] = staged[i]; }
  }
}

// ===== kernel: onesweep pass unstable =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  sort_bits: u32,
  num_tiles: u32,
  pass_index: u32,
  passes: u32,
  max_spin: u32,
  distrust_odd: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read_write> status: array<atomic<u32>>;
@group(0) @binding(4) var<storage, read_write> control: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }


const FLAG_AGGREGATE = 0x40000000u; // the tile's own count
const FLAG_INCLUSIVE = 0x80000000u; // the count of this tile and every earlier tile
const FLAG_MASK = 0xc0000000u;
const VALUE_MASK = 0x3fffffffu;



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;



var<workgroup> tile_shared: u32;
var<workgroup> fallback_hist: array<atomic<u32>, 256>;
// Look-back round flags, double-buffered by round parity so a reset never races a read.
// fallback_tile: 1 + the tile the workgroup counts itself this round (0: none).
var<workgroup> fallback_tile: array<u32, 2>;
var<workgroup> pending: array<u32, 2>;

fn status_index(t: u32, digit: u32) -> u32 {
  return (params.pass_index * params.num_tiles + t) * 256u + digit;
}
// Test hook: odd tiles' published counts read as never ready, forcing the fallback path.
fn trusted(t: u32) -> bool { return params.distrust_odd == 0u || (t & 1u) == 0u; }

@compute @workgroup_size(256)
fn main(@builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) {
    n_shared = item_count();
    // Tiles in ticket order: a tile's predecessors were started before it, so look-back rarely stalls.
    tile_shared = atomicAdd(&control[params.pass_index], 1u);
    fallback_tile[0] = 0u;
    pending[0] = 0u;
  }
  let n = workgroupUniformLoad(&n_shared);
  let tile = workgroupUniformLoad(&tile_shared);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {   pos[0u] = atomicAdd(&hist[digit_of(keys[0u])], select(0u, 1u, block + 0u * sg_size + lane < n));
  }
  {   pos[1u] = atomicAdd(&hist[digit_of(keys[1u])], select(0u, 1u, block + 1u * sg_size + lane < n));
  }
  {   pos[2u] = atomicAdd(&hist[digit_of(keys[2u])], select(0u, 1u, block + 2u * sg_size + lane < n));
  }
  {   pos[3u] = atomicAdd(&hist[digit_of(keys[3u])], select(0u, 1u, block + 3u * sg_size + lane < n));
  }
  {   pos[4u] = atomicAdd(&hist[digit_of(keys[4u])], select(0u, 1u, block + 4u * sg_size + lane < n));
  }
  {   pos[5u] = atomicAdd(&hist[digit_of(keys[5u])], select(0u, 1u, block + 5u * sg_size + lane < n));
  }
  {   pos[6u] = atomicAdd(&hist[digit_of(keys[6u])], select(0u, 1u, block + 6u * sg_size + lane < n));
  }
  {   pos[7u] = atomicAdd(&hist[digit_of(keys[7u])], select(0u, 1u, block + 7u * sg_size + lane < n));
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    tile_count[q] = atomicLoad(&hist[d]);
    padded[q] = tile_count[q];
    totals[q] = atomicLoad(&control[4u + params.pass_index * 256u + d]);
    sums += vec2<u32>(padded[q], totals[q]);
  }
  // Publish early: later tiles may be waiting for these counts.
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    if (tile == 0u) { atomicMax(&status[status_index(0u, d)], FLAG_INCLUSIVE | tile_count[q]); }
    else { atomicMax(&status[status_index(tile, d)], FLAG_AGGREGATE | tile_count[q]); }
  }
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();
  {
    let idx = block + 0u * sg_size + lane;
    pos[0u] = select(idx - tile_start, local_start[digit_of(keys[0u])] + pos[0u], idx < n);
  }
  {
    let idx = block + 1u * sg_size + lane;
    pos[1u] = select(idx - tile_start, local_start[digit_of(keys[1u])] + pos[1u], idx < n);
  }
  {
    let idx = block + 2u * sg_size + lane;
    pos[2u] = select(idx - tile_start, local_start[digit_of(keys[2u])] + pos[2u], idx < n);
  }
  {
    let idx = block + 3u * sg_size + lane;
    pos[3u] = select(idx - tile_start, local_start[digit_of(keys[3u])] + pos[3u], idx < n);
  }
  {
    let idx = block + 4u * sg_size + lane;
    pos[4u] = select(idx - tile_start, local_start[digit_of(keys[4u])] + pos[4u], idx < n);
  }
  {
    let idx = block + 5u * sg_size + lane;
    pos[5u] = select(idx - tile_start, local_start[digit_of(keys[5u])] + pos[5u], idx < n);
  }
  {
    let idx = block + 6u * sg_size + lane;
    pos[6u] = select(idx - tile_start, local_start[digit_of(keys[6u])] + pos[6u], idx < n);
  }
  {
    let idx = block + 7u * sg_size + lane;
    pos[7u] = select(idx - tile_start, local_start[digit_of(keys[7u])] + pos[7u], idx < n);
  }
  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }

  // Decoupled look-back, each thread on its own digits without barriers: from the nearest earlier tile not
  // yet added, add published counts until an inclusive one. A step spins on that nearest tile, then reads
  // the 3 before it at once (their loads in flight together: most predecessors have published only
  // aggregates, and one tile per step would cost a memory round trip per predecessor). A digit whose nearest
  // tile publishes nothing within the spin stalls; the workgroup then counts one stalled tile's keys itself
  // and every thread goes on.
  var excl: array<u32, 1>;
  var done: array<bool, 1>;
  // Per digit: tiles [next, tile) are in excl.
  var next: array<u32, 1>;
  for (var q = 0u; q < 1u; q++) {
    done[q] = tile == 0u;
    next[q] = tile;
  }
  var round = 0u;
  if (tile != 0u) {
    loop {
      let par = round & 1u;
      // 1 + a tile one of this thread's digits stalled on (0: none).
      var stalled_at = 0u;
      for (var q = 0u; q < 1u; q++) {
        if (done[q]) { continue; }
        let d = slot * 1u + q;
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
          // loop-body `var` without one only once (WGSL says every iteration), so a distrusted tile's slot
          // would keep a value read in an earlier step.
          var window = array<u32, 3>();
  {
          if (at > 0u && trusted(at - 1u - 0u)) { window[0u] = atomicLoad(&status[status_index(at - 1u - 0u, d)]); }
  }
  {
          if (at > 1u && trusted(at - 1u - 1u)) { window[1u] = atomicLoad(&status[status_index(at - 1u - 1u, d)]); }
  }
  {
          if (at > 2u && trusted(at - 1u - 2u)) { window[2u] = atomicLoad(&status[status_index(at - 1u - 2u, d)]); }
  }
          // Add them nearest first, up to the first that has published nothing (spun on next) or is inclusive.
          var open = true;
  {
          if (open && at > 0u) {
            let w = window[0u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[1u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
  {
          if (open && at > 0u) {
            let w = window[2u];
            if ((w & FLAG_MASK) == 0u) {
              open = false;
            } else {
              sum += w & VALUE_MASK;
              at -= 1u;
              found = (w & FLAG_INCLUSIVE) != 0u;
              open = !found;
            }
          }
  }
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
        for (var d = lid; d < 256u; d += 256u) { atomicStore(&fallback_hist[d], 0u); }
        workgroupBarrier();
        let look_start = look * 2048u;
        for (var j = 0u; j < 8u; j++) {
          let i = look_start + j * 256u + lid;
          if (i < n) { atomicAdd(&fallback_hist[digit_of(keys_in[i])], 1u); }
        }
        workgroupBarrier();
        for (var q = 0u; q < 1u; q++) {
          if (done[q] || next[q] != fallback) { continue; }
          let d = slot * 1u + q;
          let c = atomicLoad(&fallback_hist[d]);
          excl[q] += c;
          next[q] = look;
          done[q] = look == 0u;
          atomicMax(&status[status_index(look, d)], select(FLAG_AGGREGATE, FLAG_INCLUSIVE, done[q]) | c);
        }
      }
      var all_done = true;
      for (var q = 0u; q < 1u; q++) { all_done = all_done && done[q]; }
      if (!all_done) { pending[par] = 1u; }
      if (workgroupUniformLoad(&pending[par]) == 0u) { break; }
      round += 1u;
    }
    for (var q = 0u; q < 1u; q++) {
      atomicMax(&status[status_index(tile, slot * 1u + q)], FLAG_INCLUSIVE | (excl[q] + tile_count[q]));
    }
  }
  for (var q = 0u; q < 1u; q++) {
    scatter_base[slot * 1u + q] = digit_start[q] + excl[q] - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: radix bucket bases =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(2) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(3) var<storage, read> digit_total: array<u32>;
@group(0) @binding(4) var<storage, read> buckets: array<u32>;
@group(0) @binding(5) var<storage, read_write> bucket_base: array<u32>;

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



fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}
var<workgroup> scan: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = wid.x;
  let d = lid;
  let first = buckets[0u + b];
  let end = buckets[0u + b + 1u];
  let all_tiles = buckets[256u];
  // Global exclusive prefixes of digit d at the bucket's first and end tiles (the row scan's rows cover the
  // tiles before all_tiles; at all_tiles it is the digit's total). An empty bucket's tiles are nobody's.
  var before = 0u;
  var upto = 0u;
  if (first < end) {
    before = tile_out_of(first, d);
    if (end < all_tiles) { upto = tile_out_of(end, d); } else { upto = digit_total[d]; }
  }
  let count = upto - before;
  scan[d] = count;
  workgroupBarrier();
  // Inclusive scan over the 256 digits (Hillis-Steele: 8 steps).
  for (var step = 1u; step < 256u; step <<= 1u) {
    var add = 0u;
    if (d >= step) { add = scan[d - step]; }
    workgroupBarrier();
    scan[d] += add;
    workgroupBarrier();
  }
  if (first < end) { bucket_base[b * 256u + d] = first * 2048u + scan[d] - count - before; }
}

// ===== kernel: radix bucket table =====
@group(0) @binding(0) var<storage, read> digit_total: array<u32>;
@group(0) @binding(1) var<storage, read_write> buckets: array<u32>;
@group(0) @binding(2) var<storage, read_write> padded_count: array<u32>;
@group(0) @binding(3) var<storage, read_write> keys: array<u32>;

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



fn order_key(raw: u32) -> u32 { return raw; }

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }

var<workgroup> padded_start: array<u32, 257>;
var<workgroup> plain_start: array<u32, 256>;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32) {
  let b = wid.x;
  // Every workgroup scans the 256 totals (padded to whole tiles, and as they are) for its own bucket's start:
  // all loads at once, then a Hillis-Steele scan in workgroup memory (a serial loop of loads would wait a load
  // latency a digit).
  let total = digit_total[lid];
  let padded = ceil_div(total, 2048u) * 2048u;
  padded_start[lid] = padded;
  plain_start[lid] = total;
  workgroupBarrier();
  for (var step = 1u; step < 256u; step <<= 1u) {
    var add_padded = 0u;
    var add_plain = 0u;
    if (lid >= step) {
      add_padded = padded_start[lid - step];
      add_plain = plain_start[lid - step];
    }
    workgroupBarrier();
    padded_start[lid] += add_padded;
    plain_start[lid] += add_plain;
    workgroupBarrier();
  }
  // Inclusive to exclusive: shift up by one (the last inclusive sum is the padded length).
  let padded_end = padded_start[lid];
  let plain_end = plain_start[lid];
  workgroupBarrier();
  padded_start[lid + 1u] = padded_end;
  plain_start[lid] = plain_end - total;
  if (lid == 0u) { padded_start[0] = 0u; }
  workgroupBarrier();
  if (b == 0u) {
    buckets[0u + lid] = padded_start[lid] / 2048u;
    buckets[257u + lid] = digit_total[lid];
    buckets[513u + lid] = plain_start[lid];
    if (lid == 0u) {
      buckets[256u] = padded_start[256u] / 2048u;
      padded_count[0] = padded_start[256u];
    }
  }
  let first = padded_start[b];
  let end = padded_start[b + 1u];
  for (var t = first / 2048u + lid; t < end / 2048u; t += 256u) { buckets[769u + t] = b; }
  // order_key is x ^ order_key(0) for u32 and i32 keys, so this inverts it.
  let pad = ((b << 24u) | 0xffffffu) ^ order_key(0u);
  for (var i = first + digit_total[b] + lid; i < end; i += 256u) { keys[i] = pad; }
}

// ===== kernel: radix downsweep =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(5) var<storage, read> digit_total: array<u32>;
@group(0) @binding(6) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {
    let d = digit_of(keys[0u]);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[1u]);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[2u]);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[3u]);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[4u]);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[5u]);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[6u]);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[7u]);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = digit_total[d];
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = digit_start[q] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: radix downsweep inner =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(5) var<storage, read> digit_total: array<u32>;
@group(0) @binding(6) var<storage, read> count: array<u32>;
@group(0) @binding(7) var<storage, read> buckets: array<u32>;
@group(0) @binding(8) var<storage, read> bucket_base: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
    let bucket = buckets[769u + tile];
    
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {
    let d = digit_of(keys[0u]);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[1u]);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[2u]);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[3u]);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[4u]);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[5u]);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[6u]);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[7u]);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = 0u;
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = bucket_base[bucket * 256u + d] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: radix downsweep inner unstable =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(5) var<storage, read> digit_total: array<u32>;
@group(0) @binding(6) var<storage, read> count: array<u32>;
@group(0) @binding(7) var<storage, read> buckets: array<u32>;
@group(0) @binding(8) var<storage, read> bucket_base: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
    let bucket = buckets[769u + tile];
    
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {   pos[0u] = atomicAdd(&hist[digit_of(keys[0u])], select(0u, 1u, block + 0u * sg_size + lane < n));
  }
  {   pos[1u] = atomicAdd(&hist[digit_of(keys[1u])], select(0u, 1u, block + 1u * sg_size + lane < n));
  }
  {   pos[2u] = atomicAdd(&hist[digit_of(keys[2u])], select(0u, 1u, block + 2u * sg_size + lane < n));
  }
  {   pos[3u] = atomicAdd(&hist[digit_of(keys[3u])], select(0u, 1u, block + 3u * sg_size + lane < n));
  }
  {   pos[4u] = atomicAdd(&hist[digit_of(keys[4u])], select(0u, 1u, block + 4u * sg_size + lane < n));
  }
  {   pos[5u] = atomicAdd(&hist[digit_of(keys[5u])], select(0u, 1u, block + 5u * sg_size + lane < n));
  }
  {   pos[6u] = atomicAdd(&hist[digit_of(keys[6u])], select(0u, 1u, block + 6u * sg_size + lane < n));
  }
  {   pos[7u] = atomicAdd(&hist[digit_of(keys[7u])], select(0u, 1u, block + 7u * sg_size + lane < n));
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    tile_count[q] = atomicLoad(&hist[d]);
    padded[q] = tile_count[q];
    totals[q] = 0u;
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();
  {
    let idx = block + 0u * sg_size + lane;
    pos[0u] = select(idx - tile_start, local_start[digit_of(keys[0u])] + pos[0u], idx < n);
  }
  {
    let idx = block + 1u * sg_size + lane;
    pos[1u] = select(idx - tile_start, local_start[digit_of(keys[1u])] + pos[1u], idx < n);
  }
  {
    let idx = block + 2u * sg_size + lane;
    pos[2u] = select(idx - tile_start, local_start[digit_of(keys[2u])] + pos[2u], idx < n);
  }
  {
    let idx = block + 3u * sg_size + lane;
    pos[3u] = select(idx - tile_start, local_start[digit_of(keys[3u])] + pos[3u], idx < n);
  }
  {
    let idx = block + 4u * sg_size + lane;
    pos[4u] = select(idx - tile_start, local_start[digit_of(keys[4u])] + pos[4u], idx < n);
  }
  {
    let idx = block + 5u * sg_size + lane;
    pos[5u] = select(idx - tile_start, local_start[digit_of(keys[5u])] + pos[5u], idx < n);
  }
  {
    let idx = block + 6u * sg_size + lane;
    pos[6u] = select(idx - tile_start, local_start[digit_of(keys[6u])] + pos[6u], idx < n);
  }
  {
    let idx = block + 7u * sg_size + lane;
    pos[7u] = select(idx - tile_start, local_start[digit_of(keys[7u])] + pos[7u], idx < n);
  }
  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = bucket_base[bucket * 256u + d] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: radix downsweep last =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(5) var<storage, read> digit_total: array<u32>;
@group(0) @binding(6) var<storage, read> count: array<u32>;
@group(0) @binding(7) var<storage, read> buckets: array<u32>;
@group(0) @binding(8) var<storage, read> bucket_base: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
    let bucket = buckets[769u + tile];
    let bucket_first = buckets[0u + bucket] * 2048u;
    // Slots from here on in the bucket are padding; real keys move down by the padding of earlier buckets.
    let keep_below = bucket_first + buckets[257u + bucket];
    let close_up = bucket_first - buckets[513u + bucket];
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {
    let d = digit_of(keys[0u]);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[1u]);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[2u]);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[3u]);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[4u]);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[5u]);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[6u]);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[7u]);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = 0u;
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = bucket_base[bucket * 256u + d] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      if (o < keep_below) { keys_out[o - close_up] = key; }
      
    }
  }
  
}

// ===== kernel: radix downsweep pairs =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> values_in: array<u32>;
@group(0) @binding(4) var<storage, read_write> values_out: array<u32>;
@group(0) @binding(5) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(6) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(7) var<storage, read> digit_total: array<u32>;
@group(0) @binding(8) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  var vals: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }
  // The values too, with the keys: their loads then overlap the ranking, which pays for the registers
  // they hold meanwhile.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { vals[0u] = values_in[idx]; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { vals[1u] = values_in[idx]; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { vals[2u] = values_in[idx]; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { vals[3u] = values_in[idx]; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { vals[4u] = values_in[idx]; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { vals[5u] = values_in[idx]; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { vals[6u] = values_in[idx]; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { vals[7u] = values_in[idx]; }
  }

  {
    let d = digit_of(keys[0u]);
    let at = block - tile_start + 0u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[1u]);
    let at = block - tile_start + 1u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[2u]);
    let at = block - tile_start + 2u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[3u]);
    let at = block - tile_start + 3u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[4u]);
    let at = block - tile_start + 4u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[5u]);
    let at = block - tile_start + 5u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[6u]);
    let at = block - tile_start + 6u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  {
    let d = digit_of(keys[7u]);
    let at = block - tile_start + 7u * sg_size + lane;
    staged[at] = (d << 16u) | at;
    atomicAdd(&hist[d], 1u);
  }
  workgroupBarrier();
  var entry: array<u32, 8>;
  for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  for (var b = 0u; b < 8u; b += 2u) {
    if ((max_digit >> b) == 0u) { break; }
    var c = vec4<u32>(0u);
    for (var j = 0u; j < 8u; j++) { c[(entry[j] >> (16u + b)) & 3u] += 1u; }
    let s = wg_scan(vec2<u32>(c.x | (c.y << 16u), c.z | (c.w << 16u)), lid);
    let total = vec4<u32>(s.z & 0xffffu, s.z >> 16u, s.w & 0xffffu, s.w >> 16u);
    var next = vec4<u32>(s.x & 0xffffu, s.x >> 16u, s.y & 0xffffu, s.y >> 16u) +
      vec4<u32>(0u, total.x, total.x + total.y, total.x + total.y + total.z);
    for (var j = 0u; j < 8u; j++) {
      let bucket = (entry[j] >> (16u + b)) & 3u;
      staged[next[bucket]] = entry[j];
      next[bucket] += 1u;
    }
    workgroupBarrier();
    for (var j = 0u; j < 8u; j++) { entry[j] = staged[lid * 8u + j]; }
  }
  workgroupBarrier();
  for (var j = 0u; j < 8u; j++) { staged[entry[j] & 0xffffu] = lid * 8u + j; }
  workgroupBarrier();
  {   pos[0u] = staged[block - tile_start + 0u * sg_size + lane];
  }
  {   pos[1u] = staged[block - tile_start + 1u * sg_size + lane];
  }
  {   pos[2u] = staged[block - tile_start + 2u * sg_size + lane];
  }
  {   pos[3u] = staged[block - tile_start + 3u * sg_size + lane];
  }
  {   pos[4u] = staged[block - tile_start + 4u * sg_size + lane];
  }
  {   pos[5u] = staged[block - tile_start + 5u * sg_size + lane];
  }
  {   pos[6u] = staged[block - tile_start + 6u * sg_size + lane];
  }
  {   pos[7u] = staged[block - tile_start + 7u * sg_size + lane];
  }
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let d = slot + weft_trip * 256u;
    
    local_start[d] = atomicLoad(&hist[d]);
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    padded[q] = local_start[d];
    tile_count[q] = padded[q] - select(0u, 2048u - valid_in_tile, d == max_digit);
    totals[q] = digit_total[d];
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();

  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = digit_start[q] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  var dst: array<u32, 8>;
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[0u] = o;
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[1u] = o;
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[2u] = o;
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[3u] = o;
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[4u] = o;
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[5u] = o;
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[6u] = o;
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      dst[7u] = o;
    }
  }
  workgroupBarrier();
  // Slots past the input's end get zeros, which are never written out.
  { staged[pos[0u]] = vals[0u];
  }
  { staged[pos[1u]] = vals[1u];
  }
  { staged[pos[2u]] = vals[2u];
  }
  { staged[pos[3u]] = vals[3u];
  }
  { staged[pos[4u]] = vals[4u];
  }
  { staged[pos[5u]] = vals[5u];
  }
  { staged[pos[6u]] = vals[6u];
  }
  { staged[pos[7u]] = vals[7u];
  }
  
  workgroupBarrier();
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[0u]] = staged[i]; }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[1u]] = staged[i]; }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[2u]] = staged[i]; }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[3u]] = staged[i]; }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[4u]] = staged[i]; }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[5u]] = staged[i]; }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[6u]] = staged[i]; }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) { values_out[dst[7u]] = staged[i]; }
  }
}

// ===== kernel: radix downsweep top unstable =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(5) var<storage, read> digit_total: array<u32>;
@group(0) @binding(6) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {   pos[0u] = atomicAdd(&hist[digit_of(keys[0u])], select(0u, 1u, block + 0u * sg_size + lane < n));
  }
  {   pos[1u] = atomicAdd(&hist[digit_of(keys[1u])], select(0u, 1u, block + 1u * sg_size + lane < n));
  }
  {   pos[2u] = atomicAdd(&hist[digit_of(keys[2u])], select(0u, 1u, block + 2u * sg_size + lane < n));
  }
  {   pos[3u] = atomicAdd(&hist[digit_of(keys[3u])], select(0u, 1u, block + 3u * sg_size + lane < n));
  }
  {   pos[4u] = atomicAdd(&hist[digit_of(keys[4u])], select(0u, 1u, block + 4u * sg_size + lane < n));
  }
  {   pos[5u] = atomicAdd(&hist[digit_of(keys[5u])], select(0u, 1u, block + 5u * sg_size + lane < n));
  }
  {   pos[6u] = atomicAdd(&hist[digit_of(keys[6u])], select(0u, 1u, block + 6u * sg_size + lane < n));
  }
  {   pos[7u] = atomicAdd(&hist[digit_of(keys[7u])], select(0u, 1u, block + 7u * sg_size + lane < n));
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    tile_count[q] = atomicLoad(&hist[d]);
    padded[q] = tile_count[q];
    totals[q] = ceil_div(digit_total[d], 2048u) * 2048u;
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();
  {
    let idx = block + 0u * sg_size + lane;
    pos[0u] = select(idx - tile_start, local_start[digit_of(keys[0u])] + pos[0u], idx < n);
  }
  {
    let idx = block + 1u * sg_size + lane;
    pos[1u] = select(idx - tile_start, local_start[digit_of(keys[1u])] + pos[1u], idx < n);
  }
  {
    let idx = block + 2u * sg_size + lane;
    pos[2u] = select(idx - tile_start, local_start[digit_of(keys[2u])] + pos[2u], idx < n);
  }
  {
    let idx = block + 3u * sg_size + lane;
    pos[3u] = select(idx - tile_start, local_start[digit_of(keys[3u])] + pos[3u], idx < n);
  }
  {
    let idx = block + 4u * sg_size + lane;
    pos[4u] = select(idx - tile_start, local_start[digit_of(keys[4u])] + pos[4u], idx < n);
  }
  {
    let idx = block + 5u * sg_size + lane;
    pos[5u] = select(idx - tile_start, local_start[digit_of(keys[5u])] + pos[5u], idx < n);
  }
  {
    let idx = block + 6u * sg_size + lane;
    pos[6u] = select(idx - tile_start, local_start[digit_of(keys[6u])] + pos[6u], idx < n);
  }
  {
    let idx = block + 7u * sg_size + lane;
    pos[7u] = select(idx - tile_start, local_start[digit_of(keys[7u])] + pos[7u], idx < n);
  }
  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = digit_start[q] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: radix downsweep unstable =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> keys_out: array<u32>;
@group(0) @binding(3) var<storage, read> row_prefix: array<u32>;
@group(0) @binding(4) var<storage, read> tile_prefix: array<u32>;
@group(0) @binding(5) var<storage, read> digit_total: array<u32>;
@group(0) @binding(6) var<storage, read> count: array<u32>;

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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}



fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }



var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

// Per-subgroup digit histograms (two 16-bit counters per word: a subgroup ranks at most one tile,
// 2^16 > 2048 keys). Atomic, because leaders of digits d and d + 128 share a word. The unstable
// ranking uses the first 256 words as one 32-bit counter a digit.
var<workgroup> hist: array<atomic<u32>, 256>;
// The tile's keys (then values) staged in sorted order: a plain array, so staging and the scatter's reads
// are ordinary loads and stores (a separate array costs memory, but atomics are slow even uncontended).
var<workgroup> staged: array<u32, 2048>;
var<workgroup> local_start: array<u32, 256>;
// Per digit: its output start minus its tile-local start, so staged key i goes to scatter_base[digit] + i.
var<workgroup> scatter_base: array<u32, 256>;
var<workgroup> n_shared: u32;




fn tile_out_of(tile: u32, d: u32) -> u32 {
  var out = row_prefix[d * params.num_chunks + tile / params.tiles_per_chunk];
  if (params.tiles_per_chunk > 1u) { out += tile_prefix[tile * 256u + d]; }
  return out;
}

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  
  for (var weft_trip = 0u; weft_trip < 1u; weft_trip++) {
    let i = lid + weft_trip * 256u;
    
    atomicStore(&hist[i], 0u);
  }
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let tile = weft_workgroup_index(wid, nwg);
  let tile_start = tile * 2048u;
  if (tile >= params.num_tiles || tile_start >= n) { return; }
  
  
  
  // Subgroup w loads (and ranks) the contiguous block [w * sg_size * KPT, +sg_size * KPT) of the tile, KPT
  // rounds of sg_size consecutive keys, so (w, round, lane) order is input order: the ballots rank in that
  // order, which makes them stable.
  let w = subgroup_index();
  let slot = w * sg_size + lane;
  let max_digit = params.digit_mask;
  
  let block = tile_start + w * sg_size * 8u;
  var keys: array<u32, 8>;
  var pos: array<u32, 8>;
  // All loads first, so they are in flight together.
  {
    let idx = block + 0u * sg_size + lane;
    if (idx < n) { keys[0u] = keys_in[idx]; } else { keys[0u] = 4294967295u; }
  }
  {
    let idx = block + 1u * sg_size + lane;
    if (idx < n) { keys[1u] = keys_in[idx]; } else { keys[1u] = 4294967295u; }
  }
  {
    let idx = block + 2u * sg_size + lane;
    if (idx < n) { keys[2u] = keys_in[idx]; } else { keys[2u] = 4294967295u; }
  }
  {
    let idx = block + 3u * sg_size + lane;
    if (idx < n) { keys[3u] = keys_in[idx]; } else { keys[3u] = 4294967295u; }
  }
  {
    let idx = block + 4u * sg_size + lane;
    if (idx < n) { keys[4u] = keys_in[idx]; } else { keys[4u] = 4294967295u; }
  }
  {
    let idx = block + 5u * sg_size + lane;
    if (idx < n) { keys[5u] = keys_in[idx]; } else { keys[5u] = 4294967295u; }
  }
  {
    let idx = block + 6u * sg_size + lane;
    if (idx < n) { keys[6u] = keys_in[idx]; } else { keys[6u] = 4294967295u; }
  }
  {
    let idx = block + 7u * sg_size + lane;
    if (idx < n) { keys[7u] = keys_in[idx]; } else { keys[7u] = 4294967295u; }
  }


  {   pos[0u] = atomicAdd(&hist[digit_of(keys[0u])], select(0u, 1u, block + 0u * sg_size + lane < n));
  }
  {   pos[1u] = atomicAdd(&hist[digit_of(keys[1u])], select(0u, 1u, block + 1u * sg_size + lane < n));
  }
  {   pos[2u] = atomicAdd(&hist[digit_of(keys[2u])], select(0u, 1u, block + 2u * sg_size + lane < n));
  }
  {   pos[3u] = atomicAdd(&hist[digit_of(keys[3u])], select(0u, 1u, block + 3u * sg_size + lane < n));
  }
  {   pos[4u] = atomicAdd(&hist[digit_of(keys[4u])], select(0u, 1u, block + 4u * sg_size + lane < n));
  }
  {   pos[5u] = atomicAdd(&hist[digit_of(keys[5u])], select(0u, 1u, block + 5u * sg_size + lane < n));
  }
  {   pos[6u] = atomicAdd(&hist[digit_of(keys[6u])], select(0u, 1u, block + 6u * sg_size + lane < n));
  }
  {   pos[7u] = atomicAdd(&hist[digit_of(keys[7u])], select(0u, 1u, block + 7u * sg_size + lane < n));
  }
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let valid_in_tile = min(2048u, n - tile_start);
  // This slot's digits: counts with the padding keys (for tile-local starts) and without (to publish); the
  // unstable ranking never counts padding keys, so its two are the same.
  var padded: array<u32, 1>;
  var tile_count: array<u32, 1>;
  var totals: array<u32, 1>;
  var sums = vec2<u32>(0u);
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    tile_count[q] = atomicLoad(&hist[d]);
    padded[q] = tile_count[q];
    totals[q] = digit_total[d];
    sums += vec2<u32>(padded[q], totals[q]);
  }
  
  let starts = slot_scan(sums, w, lane, sg_size, num_sg);
  var digit_start: array<u32, 1>;
  var tile_digit_start: array<u32, 1>;
  var run = starts.xy;
  for (var q = 0u; q < 1u; q++) {
    local_start[slot * 1u + q] = run.x;
    tile_digit_start[q] = run.x;
    digit_start[q] = run.y;
    run += vec2<u32>(padded[q], totals[q]);
  }
  workgroupBarrier();
  {
    let idx = block + 0u * sg_size + lane;
    pos[0u] = select(idx - tile_start, local_start[digit_of(keys[0u])] + pos[0u], idx < n);
  }
  {
    let idx = block + 1u * sg_size + lane;
    pos[1u] = select(idx - tile_start, local_start[digit_of(keys[1u])] + pos[1u], idx < n);
  }
  {
    let idx = block + 2u * sg_size + lane;
    pos[2u] = select(idx - tile_start, local_start[digit_of(keys[2u])] + pos[2u], idx < n);
  }
  {
    let idx = block + 3u * sg_size + lane;
    pos[3u] = select(idx - tile_start, local_start[digit_of(keys[3u])] + pos[3u], idx < n);
  }
  {
    let idx = block + 4u * sg_size + lane;
    pos[4u] = select(idx - tile_start, local_start[digit_of(keys[4u])] + pos[4u], idx < n);
  }
  {
    let idx = block + 5u * sg_size + lane;
    pos[5u] = select(idx - tile_start, local_start[digit_of(keys[5u])] + pos[5u], idx < n);
  }
  {
    let idx = block + 6u * sg_size + lane;
    pos[6u] = select(idx - tile_start, local_start[digit_of(keys[6u])] + pos[6u], idx < n);
  }
  {
    let idx = block + 7u * sg_size + lane;
    pos[7u] = select(idx - tile_start, local_start[digit_of(keys[7u])] + pos[7u], idx < n);
  }
  { staged[pos[0u]] = keys[0u];
  }
  { staged[pos[1u]] = keys[1u];
  }
  { staged[pos[2u]] = keys[2u];
  }
  { staged[pos[3u]] = keys[3u];
  }
  { staged[pos[4u]] = keys[4u];
  }
  { staged[pos[5u]] = keys[5u];
  }
  { staged[pos[6u]] = keys[6u];
  }
  { staged[pos[7u]] = keys[7u];
  }
  // Loaded after ranking: loading them before it, into registers or workgroup memory, was slower.
  
  for (var q = 0u; q < 1u; q++) {
    let d = slot * 1u + q;
    scatter_base[d] = digit_start[q] + tile_out_of(tile, d) - tile_digit_start[q];
  }
  
  // Staged keys and scatter_base must be complete.
  workgroupBarrier();
  
  {
    let i = 0u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 1u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 2u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 3u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 4u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 5u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 6u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  {
    let i = 7u * 256u + lid;
    if (i < valid_in_tile) {
      let key = staged[i];
      let o = scatter_base[digit_of(key)] + i;
      keys_out[o] = key;
      
    }
  }
  
}

// ===== kernel: radix row scan =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> row_prefix: array<u32>;
@group(0) @binding(2) var<storage, read_write> digit_total: array<u32>;
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

var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % 32u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / 32u;
}


fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }


var<workgroup> wg_scan_values: array<vec2<u32>, 256>;
var<workgroup> wg_scan_groups: array<vec2<u32>, 16>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < 16u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < 16u; i++) { sum += wg_scan_values[lid * 16u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / 16u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < 16u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * 16u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}

fn slot_scan(v: vec2<u32>, w: u32, lane: u32, sg_size: u32, num_sg: u32) -> vec4<u32> {
  return wg_scan(v, w * sg_size + lane);
}

var<workgroup> n_shared: u32;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        ) {
  vsg_lid = lid;
  let lane = lid % 32u;
  let sg_size = 32u;
  let digit = wid.x;
  if (lid == 0u) { n_shared = item_count(); atomicStore(&subgroup_ticket, 0u); }
  let n = workgroupUniformLoad(&n_shared);
  // Rows have one entry per chunk of tiles_per_chunk tiles.
  let active_chunks = min(ceil_div(ceil_div(n, 2048u), params.tiles_per_chunk), params.num_chunks);
  let w = subgroup_index();
  workgroupBarrier();
  let num_sg = atomicLoad(&subgroup_ticket);
  let slot = w * sg_size + lane;
  let row = digit * params.num_chunks;
  var carry = 0u;
  // Each round scans 4 consecutive chunks per slot.
  for (var base = 0u; base < active_chunks; base += 1024u) {
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

// ===== kernel: radix upsweep =====
struct Params {
  n: u32,
  gpu_count: u32,
  count_index: u32,
  shift: u32,
  digit_mask: u32,
  num_tiles: u32,
  tiles_per_chunk: u32,
  num_chunks: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> keys_in: array<u32>;
@group(0) @binding(2) var<storage, read_write> row_prefix: array<u32>;
@group(0) @binding(3) var<storage, read_write> tile_prefix: array<u32>;
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




fn order_key(raw: u32) -> u32 { return raw; }
fn digit_of(raw: u32) -> u32 { return (order_key(raw) >> params.shift) & params.digit_mask; }

fn item_count() -> u32 {
  if (params.gpu_count != 0u) { return min(count[params.count_index], params.n); }
  return params.n;
}

// a / b rounded up, without the overflow of (a + b - 1) / b near 2^32.
fn ceil_div(a: u32, b: u32) -> u32 { return a / b + select(0u, 1u, a % b != 0u); }

// Two histograms, a tile's in each by turns: one barrier a tile (a thread takes its digits' counts from one
// while the next tile counts into the other).
var<workgroup> hist: array<atomic<u32>, 512>;
var<workgroup> n_shared: u32;

@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let chunk = weft_workgroup_index(wid, nwg);
  for (var d = lid; d < 512u; d += 256u) { atomicStore(&hist[d], 0u); }
  if (lid == 0u) { n_shared = item_count(); }
  let n = workgroupUniformLoad(&n_shared);
  let active_tiles = ceil_div(n, 2048u);
  let first_tile = chunk * params.tiles_per_chunk;
  // Chunks past the count write nothing: row_scan treats them as empty.
  if (chunk >= params.num_chunks || first_tile >= active_tiles) { return; }
  let end_tile = min(first_tile + params.tiles_per_chunk, active_tiles);
  // This thread's digits lid * D + q: the chunk's count of each before the current tile.
  var running: array<u32, 1>;
  for (var tile = first_tile; tile < end_tile; tile++) {
    let tile_start = tile * 2048u;
    let half = ((tile - first_tile) & 1u) * 256u;
    // Every load first, then the atomics: an atomic between two loads keeps the second from issuing early.
    var keys: array<u32, 8>;
  {
      let i = tile_start + 0u * 256u + lid;
      if (i < n) { keys[0u] = keys_in[i]; }
  }
  {
      let i = tile_start + 1u * 256u + lid;
      if (i < n) { keys[1u] = keys_in[i]; }
  }
  {
      let i = tile_start + 2u * 256u + lid;
      if (i < n) { keys[2u] = keys_in[i]; }
  }
  {
      let i = tile_start + 3u * 256u + lid;
      if (i < n) { keys[3u] = keys_in[i]; }
  }
  {
      let i = tile_start + 4u * 256u + lid;
      if (i < n) { keys[4u] = keys_in[i]; }
  }
  {
      let i = tile_start + 5u * 256u + lid;
      if (i < n) { keys[5u] = keys_in[i]; }
  }
  {
      let i = tile_start + 6u * 256u + lid;
      if (i < n) { keys[6u] = keys_in[i]; }
  }
  {
      let i = tile_start + 7u * 256u + lid;
      if (i < n) { keys[7u] = keys_in[i]; }
  }
  {   if (tile_start + 0u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[0u])], 1u); }
  }
  {   if (tile_start + 1u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[1u])], 1u); }
  }
  {   if (tile_start + 2u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[2u])], 1u); }
  }
  {   if (tile_start + 3u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[3u])], 1u); }
  }
  {   if (tile_start + 4u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[4u])], 1u); }
  }
  {   if (tile_start + 5u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[5u])], 1u); }
  }
  {   if (tile_start + 6u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[6u])], 1u); }
  }
  {   if (tile_start + 7u * 256u + lid < n) { atomicAdd(&hist[half + digit_of(keys[7u])], 1u); }
  }
    // With one tile a chunk every tile's prefix in its chunk is 0: neither written nor read.
    if (params.tiles_per_chunk > 1u) {
      for (var q = 0u; q < 1u; q++) { tile_prefix[tile * 256u + lid * 1u + q] = running[q]; }
    }
    workgroupBarrier();
    for (var q = 0u; q < 1u; q++) {
      let at = half + lid * 1u + q;
      running[q] += atomicLoad(&hist[at]);
      atomicStore(&hist[at], 0u);
    }
  }
  for (var q = 0u; q < 1u; q++) { row_prefix[(lid * 1u + q) * params.num_chunks + chunk] = running[q]; }
}

// ===== kernel: sort zero =====
struct Params {
  n4: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> words: array<vec4<u32>>;

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


@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * 256u + lid;
  if (i < params.n4) { words[i] = vec4<u32>(0u); }
}

// ===== kernel: sorted search u32 =====
struct Params {
  n: u32,
  m: u32,
  upper: u32,
}
@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> needles: array<u32>;
@group(0) @binding(2) var<storage, read> haystack: array<u32>;
@group(0) @binding(3) var<storage, read_write> output: array<u32>;

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



// First index in [lo, hi) of haystack whose element is >= x (lower) or > x (upper).
fn haystack_lower(x: u32, lo0: u32, hi0: u32) -> u32 {
  var lo = lo0; var hi = hi0;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (haystack[mid] < x) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}
fn haystack_upper(x: u32, lo0: u32, hi0: u32) -> u32 {
  var lo = lo0; var hi = hi0;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (haystack[mid] <= x) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * 256u + lid;
  if (i >= params.n) { return; }
  let x = needles[i];
  if (params.upper != 0u) { output[i] = haystack_upper(x, 0u, params.m); }
  else { output[i] = haystack_lower(x, 0u, params.m); }
}
