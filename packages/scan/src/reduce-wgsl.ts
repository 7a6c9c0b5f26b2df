import type { Monoid } from '@weft/gpu';
import { LOAD4, monoidWgsl } from './monoid-wgsl.ts';

export interface ReduceVariant {
  readonly monoid: Monoid;
  readonly workgroupSize: number;
  readonly vectorsPerThread: number;
  /** 'atomic': each workgroup folds its partial into `result` with the monoid's atomic; 'partials': two passes. */
  readonly path: 'atomic' | 'partials';
  /** Reduce across the workgroup with subgroup built-ins, or in workgroup memory (devices without them). */
  readonly subgroups: boolean;
}

/**
 * Reduction. Each workgroup reduces one tile of `workgroupSize * vectorsPerThread * 4` items (invocations
 * reduce vec4 loads, then a subgroup built-in, then the subgroup partials). u32/i32 monoids with an atomic
 * fold the tile into the result with one atomic per workgroup (`init` sets the identity first); the others
 * write per-tile partials that one workgroup folds (`finish`).
 */
export function reduceWgsl(v: ReduceVariant): string {
  if (!v.subgroups) return workgroupReduceWgsl(v);
  const fold =
    v.path === 'atomic' ? `${v.monoid.atomic}(&result[params.result_index], r);` : 'partials[tile] = r;';
  const entries =
    v.path === 'atomic'
      ? `
@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }`
      : `
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
}`;
  return /* wgsl */ `
${monoidWgsl(v.monoid)}
const WG = ${v.workgroupSize}u;
const VPT = ${v.vectorsPerThread}u;
const TILE = WG * VPT * 4u;
const MAX_SUBGROUPS = WG / 4u;

var<workgroup> wg_partials: array<Elem, MAX_SUBGROUPS>;
var<workgroup> wg_n: u32;

// n through workgroup memory, so control flow that depends on it is uniform.
fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}

${LOAD4}

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
  if (lid == 0u) { ${fold} }
}
${entries}
`;
}

/** {@link reduceWgsl} for devices without subgroups: the workgroup reduces its partials in workgroup memory. */
function workgroupReduceWgsl(v: ReduceVariant): string {
  const fold =
    v.path === 'atomic' ? `${v.monoid.atomic}(&result[params.result_index], r);` : 'partials[tile] = r;';
  const entries =
    v.path === 'atomic'
      ? `
@compute @workgroup_size(1)
fn init() { atomicStore(&result[params.result_index], weft_identity()); }`
      : `
@compute @workgroup_size(WG)
fn finish(@builtin(local_invocation_index) lid: u32) {
  let n = uniform_n(lid);
  let tiles = (n + TILE - 1u) / TILE;
  var t = weft_identity();
  for (var i = lid; i < tiles; i += WG) { t = weft_combine(t, partials[i]); }
  let r = wg_reduce(t, lid);
  if (lid == 0u) { result[params.result_index] = r; }
}`;
  return /* wgsl */ `
${monoidWgsl(v.monoid, false)}
const WG = ${v.workgroupSize}u;
const VPT = ${v.vectorsPerThread}u;
const TILE = WG * VPT * 4u;

var<workgroup> wg_n: u32;

fn uniform_n(lid: u32) -> u32 {
  if (lid == 0u) { wg_n = min(select(params.n, count[params.count_index], params.use_count != 0u), params.max_n); }
  return workgroupUniformLoad(&wg_n);
}

${LOAD4}

@compute @workgroup_size(WG)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let n = uniform_n(lid);
  let tile = weft_workgroup_index(wid, nwg);
  if (tile * TILE >= n) { return; }
  let base = tile * (TILE / 4u) + lid;
  var t = weft_identity();
  for (var k = 0u; k < VPT; k++) { t = weft_combine(t, reduce4(load4(base + k * WG, n))); }
  let r = wg_reduce(t, lid);
  if (lid == 0u) { ${fold} }
}
${entries}
`;
}
