import type { Monoid } from '@weft/gpu';

/**
 * WGSL helpers for a monoid, shared by the scan and reduce kernels. Expects the monoid's combine declared as
 * `weft_combine` (a kernel functor). Subgroup steps use the monoid's built-ins where WGSL has them and
 * subgroup-size-agnostic shuffles otherwise (WGSL's subgroup scans exist only for add and mul).
 */
export function monoidWgsl(m: Monoid, subgroups = true): string {
  const t = m.type;
  if (!subgroups) return workgroupMonoidWgsl(m);
  const sg = m.subgroup;
  const reduce = sg
    ? `return ${sg.reduce}(x);`
    : `var r = x;
  for (var mask = 1u; mask < sg_size; mask <<= 1u) { r = weft_combine(r, subgroupShuffleXor(r, mask)); }
  return r;`;
  const inclusive = sg?.inclusive
    ? `return ${sg.inclusive}(x);`
    : `var r = x;
  for (var d = 1u; d < sg_size; d <<= 1u) {
    let up = subgroupShuffleUp(r, d);
    if (lane >= d) { r = weft_combine(up, r); }
  }
  return r;`;
  const exclusive = sg?.exclusive
    ? `return ${sg.exclusive}(x);`
    : `let up = subgroupShuffleUp(sg_inclusive(x, lane, sg_size), 1u);
  return select(up, weft_identity(), lane == 0u);`;
  return /* wgsl */ `
alias Elem = ${t};
fn weft_identity() -> Elem { return Elem(${m.identity}); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
@diagnostic(off, subgroup_uniformity)
fn sg_reduce(x: Elem, sg_size: u32) -> Elem {
  ${reduce}
}
@diagnostic(off, subgroup_uniformity)
fn sg_inclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  ${inclusive}
}
@diagnostic(off, subgroup_uniformity)
fn sg_exclusive(x: Elem, lane: u32, sg_size: u32) -> Elem {
  ${exclusive}
}
`;
}

/**
 * The helpers of {@link monoidWgsl} for devices without subgroups: a reduction and an exclusive scan over the
 * whole workgroup (`WG` invocations, in `local_invocation_index` order) in workgroup memory. Each is called
 * by every invocation in uniform control flow (they hold barriers) and ends with a barrier, so calls may follow
 * one another.
 */
function workgroupMonoidWgsl(m: Monoid): string {
  return /* wgsl */ `
alias Elem = ${m.type};
fn weft_identity() -> Elem { return Elem(${m.identity}); }
fn combine4(a: vec4<Elem>, b: vec4<Elem>) -> vec4<Elem> {
  return vec4<Elem>(weft_combine(a.x, b.x), weft_combine(a.y, b.y), weft_combine(a.z, b.z), weft_combine(a.w, b.w));
}
fn reduce4(v: vec4<Elem>) -> Elem { return weft_combine(weft_combine(v.x, v.y), weft_combine(v.z, v.w)); }
var<workgroup> wg_scan: array<Elem, WG>;
fn wg_reduce(x: Elem, lid: u32) -> Elem {
  wg_scan[lid] = x;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s >>= 1u) {
    if (lid < s) { wg_scan[lid] = weft_combine(wg_scan[lid], wg_scan[lid + s]); }
    workgroupBarrier();
  }
  let r = wg_scan[0];
  workgroupBarrier();
  return r;
}
struct WgScan {
  exclusive: Elem,
  total: Elem,
}
fn wg_scan_exclusive(x: Elem, lid: u32) -> WgScan {
  var r = x;
  for (var d = 1u; d < WG; d <<= 1u) {
    wg_scan[lid] = r;
    workgroupBarrier();
    if (lid >= d) { r = weft_combine(wg_scan[lid - d], r); }
    workgroupBarrier();
  }
  wg_scan[lid] = r;
  workgroupBarrier();
  let out = WgScan(select(weft_identity(), wg_scan[max(lid, 1u) - 1u], lid > 0u), wg_scan[WG - 1u]);
  workgroupBarrier();
  return out;
}
`;
}

/**
 * `load4(vi, n)`: the vec4 at `input[vi]` with the items at or past n replaced by the identity. Branch-free
 * (the load is clamped in bounds and masked), so a loop of them issues every load at once.
 */
export const LOAD4 = /* wgsl */ `
fn load4(vi: u32, n: u32) -> vec4<Elem> {
  let x = input[min(vi, (max(n, 1u) - 1u) / 4u)];
  return select(vec4<Elem>(weft_identity()), x, vec4<u32>(vi * 4u) + vec4<u32>(0u, 1u, 2u, 3u) < vec4<u32>(n));
}`;
