/** Invocations per workgroup of both passes. */
export const WORKGROUP = 256;
/** Items per invocation: one u32 of keep bits each. */
const ITEMS_PER_INVOCATION = 32;
/** Items per tile (one workgroup). */
export const TILE = WORKGROUP * ITEMS_PER_INVOCATION;

/**
 * The two passes of stream compaction (moderngpu's transform_compact), over tiles of TILE items where each
 * invocation owns 32 consecutive items:
 * - `upsweep` evaluates `weft_keep(index)` once per item, stores the results as one u32 of bits per
 *   invocation, and writes each tile's kept count (a chained scan of the counts then gives tile offsets);
 * - `downsweep` ranks the kept items inside the tile from the stored bits (no second keep call) and calls
 *   `weft_scatter(dest, source)` for each, in source order.
 * With a GPU-resident count the upsweep also writes the number of tiles to `tile_total[0]` for the scan.
 * Without `subgroups` the tile's counts are summed and scanned in workgroup memory instead.
 */
export function compactWgsl(gpuCount: boolean, pass: 'upsweep' | 'downsweep', subgroups = true): string {
  if (!subgroups) return workgroupCompactWgsl(gpuCount, pass);
  const nExpr = gpuCount ? 'min(count[params.count_index], params.capacity)' : 'params.n';
  const common = /* wgsl */ `
const WG = ${WORKGROUP}u;
const IPI = ${ITEMS_PER_INVOCATION}u;
const TILE = WG * IPI;
// Subgroups are at least 4 wide.
var<workgroup> wg_partials: array<u32, WG / 4u>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so that control flow depending on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = ${nExpr}; }
  return workgroupUniformLoad(&wg_n);
}
`;
  if (pass === 'upsweep') {
    return /* wgsl */ `${common}
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  let tiles = (n + TILE - 1u) / TILE;
  ${gpuCount ? 'if (tile == 0u && lid == 0u) { tile_total[0] = tiles; }' : ''}
  if (tile >= tiles) { return; }
  let first = tile * TILE + lid * IPI;
  var word = 0u;
  for (var b = 0u; b < IPI; b++) {
    let i = first + b;
    if (i < n) {
      if (weft_keep(i)) { word |= 1u << b; }
    }
  }
  bits[tile * WG + lid] = word;
  let kept = subgroupAdd(countOneBits(word));
  if (lane == 0u) { wg_partials[lid / sg_size] = kept; }
  workgroupBarrier();
  if (lid == 0u) {
    var sum = 0u;
    for (var s = 0u; s < WG / sg_size; s++) { sum += wg_partials[s]; }
    tile_counts[tile] = sum;
  }
}`;
  }
  return /* wgsl */ `${common}
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  let tiles = (n + TILE - 1u) / TILE;
  if (tile >= tiles) { return; }
  let word = bits[tile * WG + lid];
  let kept = countOneBits(word);
  let before = subgroupExclusiveAdd(kept);
  if (lane == sg_size - 1u) { wg_partials[lid / sg_size] = before + kept; }
  workgroupBarrier();
  var dest = tile_offsets[tile] + before;
  for (var s = 0u; s < lid / sg_size; s++) { dest += wg_partials[s]; }
  let first = tile * TILE + lid * IPI;
  var rest = word;
  while (rest != 0u) {
    weft_scatter(dest, first + weft_trailing_zeros(rest));
    dest += 1u;
    rest &= rest - 1u;
  }
}`;
}

/** {@link compactWgsl} for devices without subgroups: a Hillis-Steele scan of the counts in workgroup memory. */
function workgroupCompactWgsl(gpuCount: boolean, pass: 'upsweep' | 'downsweep'): string {
  const nExpr = gpuCount ? 'min(count[params.count_index], params.capacity)' : 'params.n';
  const common = /* wgsl */ `
const WG = ${WORKGROUP}u;
const IPI = ${ITEMS_PER_INVOCATION}u;
const TILE = WG * IPI;
var<workgroup> wg_scan: array<u32, WG>;
var<workgroup> wg_n: u32;

fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = ${nExpr}; }
  return workgroupUniformLoad(&wg_n);
}

fn exclusive_add(x: u32, lid: u32) -> vec2<u32> {
  var r = x;
  for (var d = 1u; d < WG; d <<= 1u) {
    wg_scan[lid] = r;
    workgroupBarrier();
    if (lid >= d) { r += wg_scan[lid - d]; }
    workgroupBarrier();
  }
  wg_scan[lid] = r;
  workgroupBarrier();
  return vec2<u32>(r - x, wg_scan[WG - 1u]);
}
`;
  if (pass === 'upsweep') {
    return /* wgsl */ `${common}
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  let tiles = (n + TILE - 1u) / TILE;
  ${gpuCount ? 'if (tile == 0u && lid == 0u) { tile_total[0] = tiles; }' : ''}
  if (tile >= tiles) { return; }
  let first = tile * TILE + lid * IPI;
  var word = 0u;
  for (var b = 0u; b < IPI; b++) {
    let i = first + b;
    if (i < n) {
      if (weft_keep(i)) { word |= 1u << b; }
    }
  }
  bits[tile * WG + lid] = word;
  let kept = exclusive_add(countOneBits(word), lid);
  if (lid == 0u) { tile_counts[tile] = kept.y; }
}`;
  }
  return /* wgsl */ `${common}
@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  let tiles = (n + TILE - 1u) / TILE;
  if (tile >= tiles) { return; }
  let word = bits[tile * WG + lid];
  let before = exclusive_add(countOneBits(word), lid);
  var dest = tile_offsets[tile] + before.x;
  let first = tile * TILE + lid * IPI;
  var rest = word;
  while (rest != 0u) {
    weft_scatter(dest, first + weft_trailing_zeros(rest));
    dest += 1u;
    rest &= rest - 1u;
  }
}`;
}
