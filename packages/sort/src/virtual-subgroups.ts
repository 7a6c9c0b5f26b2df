import { SUBGROUP_INDEX_WGSL } from '@weft/gpu';

/**
 * Lanes of a virtual subgroup on devices without the `subgroups` feature: 32, so a 256-thread workgroup
 * keeps the same tile layout (subgroup `w` loads keys in rounds of 32) as on NVIDIA.
 */
export const VIRTUAL_SUBGROUP = 32;

/** Invocations whose values one invocation sums in {@link workgroupScanWgsl}'s middle step. */
const SCAN_GROUP = 16;

/** Workgroup-memory bytes the kernels without subgroups add to a tile kernel of `threads` threads. */
export function virtualSubgroupBytes(threads: number): number {
  // scan values and group sums (vec2 each)
  return 8 * (threads + threads / SCAN_GROUP);
}

const SIGNATURE = '@builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {';

/**
 * Rewrites a tile kernel's WGSL for a device without subgroups: each run of 32 invocations becomes a
 * virtual subgroup (`lane`, `sg_size` and `subgroup_index()` from `local_invocation_index`). The kernels
 * generate their ballots and scans without subgroup operations on such devices (`RadixTileConfig.subgroups`),
 * so none may be left: this throws if one is.
 */
export function withVirtualSubgroups(code: string, threads: number): string {
  if (!Number.isInteger(threads / VIRTUAL_SUBGROUP)) throw new Error(`virtual subgroups: ${threads} threads`);
  const out = code.replace(SUBGROUP_INDEX_WGSL, '').replaceAll(
    SIGNATURE,
    `) {
  vsg_lid = lid;
  let lane = lid % ${VIRTUAL_SUBGROUP}u;
  let sg_size = ${VIRTUAL_SUBGROUP}u;`,
  );
  const left = out.match(/\bsubgroup[A-Z]\w*|@builtin\(subgroup_\w+\)/);
  if (left) throw new Error(`virtual subgroups: no stand-in for ${left[0]}`);
  return /* wgsl */ `var<workgroup> subgroup_ticket: atomic<u32>;
var<private> vsg_lid: u32;

fn subgroup_index() -> u32 {
  if (vsg_lid % ${VIRTUAL_SUBGROUP}u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / ${VIRTUAL_SUBGROUP}u;
}
${out}`;
}

/**
 * `wg_scan(v, lid)` for devices without subgroups: (exclusive prefix, workgroup total) of `v` over the
 * workgroup in invocation order, in three barriers (each invocation then sums at most
 * `threads / 16 + 15` values): fewer barriers than a log-step scan, which Mesa's software drivers compile
 * slowly.
 */
export function workgroupScanWgsl(threads: number): string {
  const groups = threads / SCAN_GROUP;
  return /* wgsl */ `
var<workgroup> wg_scan_values: array<vec2<u32>, ${threads}>;
var<workgroup> wg_scan_groups: array<vec2<u32>, ${groups}>;

fn wg_scan(v: vec2<u32>, lid: u32) -> vec4<u32> {
  wg_scan_values[lid] = v;
  workgroupBarrier();
  if (lid < ${groups}u) {
    var sum = vec2<u32>(0u);
    for (var i = 0u; i < ${SCAN_GROUP}u; i++) { sum += wg_scan_values[lid * ${SCAN_GROUP}u + i]; }
    wg_scan_groups[lid] = sum;
  }
  workgroupBarrier();
  let g = lid / ${SCAN_GROUP}u;
  var before = vec2<u32>(0u);
  var total = vec2<u32>(0u);
  for (var i = 0u; i < ${groups}u; i++) {
    let t = wg_scan_groups[i];
    if (i < g) { before += t; }
    total += t;
  }
  for (var i = g * ${SCAN_GROUP}u; i < lid; i++) { before += wg_scan_values[i]; }
  // The next call overwrites both arrays: everybody must have read them first.
  workgroupBarrier();
  return vec4<u32>(before, total);
}
`;
}
