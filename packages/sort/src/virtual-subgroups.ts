import { SUBGROUP_INDEX_WGSL } from '@weft/gpu';

/**
 * Lanes of a virtual subgroup on devices without the `subgroups` feature: 32, so ballots fit one word and a
 * 256-thread workgroup keeps 8 histograms.
 */
export const VIRTUAL_SUBGROUP = 32;

/** Workgroup-memory bytes the emulation adds to a tile kernel of `threads` threads. */
export function virtualSubgroupBytes(threads: number): number {
  // ballot words (3 rounds), shuffle values, ranking's leader counts, scan pairs
  return 4 * (3 * (threads / VIRTUAL_SUBGROUP) + threads + threads + 2 * threads);
}

const SIGNATURE = '@builtin(subgroup_invocation_id) lane: u32, @builtin(subgroup_size) sg_size: u32) {';
const TICKET_RESET = 'atomicStore(&subgroup_ticket, 0u);';

/**
 * Rewrites a tile kernel's WGSL for a device without subgroups: each run of 32 invocations becomes a virtual
 * subgroup whose ballots, shuffles and scans go through workgroup memory with barriers. The kernels call
 * those operations in uniform control flow with the whole subgroup, so barriers stand in for lockstep; the
 * subgroup kernels themselves stay as they are. Throws if a subgroup operation is left that it does not know.
 */
export function withVirtualSubgroups(code: string, threads: number): string {
  const groups = threads / VIRTUAL_SUBGROUP;
  if (!Number.isInteger(groups)) throw new Error(`virtual subgroups: ${threads} threads`);
  const out = code
    .replace(SUBGROUP_INDEX_WGSL, '')
    .replaceAll(
      SIGNATURE,
      `) {
  vsg_lid = lid;
  let lane = lid % ${VIRTUAL_SUBGROUP}u;
  let sg_size = ${VIRTUAL_SUBGROUP}u;`,
    )
    .replaceAll(TICKET_RESET, `${TICKET_RESET} vsg_reset();`)
    .replaceAll('subgroupBallot(', 'vsg_ballot(')
    .replaceAll('subgroupShuffle(', 'vsg_shuffle(')
    .replaceAll('subgroupInclusiveAdd(', 'vsg_inclusive_add(');
  const left = out.match(/\bsubgroup[A-Z]\w*|@builtin\(subgroup_\w+\)/);
  if (left) throw new Error(`virtual subgroups: no stand-in for ${left[0]}`);
  return `${virtualSubgroupWgsl(groups, threads)}\n${out}`;
}

function virtualSubgroupWgsl(groups: number, threads: number): string {
  const vsg = VIRTUAL_SUBGROUP;
  return /* wgsl */ `
var<workgroup> subgroup_ticket: atomic<u32>;
var<workgroup> vsg_masks: array<atomic<u32>, ${3 * groups}>;
var<workgroup> vsg_values: array<u32, ${threads}>;
var<workgroup> vsg_before: array<u32, ${threads}>;
var<workgroup> vsg_scan: array<vec2<u32>, ${threads}>;
var<private> vsg_lid: u32;
var<private> vsg_round: u32;

fn vsg_reset() {
  for (var i = 0u; i < ${3 * groups}u; i++) { atomicStore(&vsg_masks[i], 0u); }
}

fn subgroup_index() -> u32 {
  if (vsg_lid % ${vsg}u == 0u) { atomicAdd(&subgroup_ticket, 1u); }
  return vsg_lid / ${vsg}u;
}

fn vsg_ballot(p: bool) -> vec4<u32> {
  let w = vsg_lid / ${vsg}u;
  let r = vsg_round;
  vsg_round = (r + 1u) % 3u;
  atomicStore(&vsg_masks[((r + 1u) % 3u) * ${groups}u + w], 0u);
  if (p) { atomicOr(&vsg_masks[r * ${groups}u + w], 1u << (vsg_lid % ${vsg}u)); }
  workgroupBarrier();
  return vec4<u32>(atomicLoad(&vsg_masks[r * ${groups}u + w]), 0u, 0u, 0u);
}

fn vsg_shuffle(x: u32, lane: u32) -> u32 {
  vsg_values[vsg_lid] = x;
  workgroupBarrier();
  let r = vsg_values[(vsg_lid / ${vsg}u) * ${vsg}u + lane];
  workgroupBarrier();
  return r;
}

fn vsg_inclusive_add(v: vec2<u32>) -> vec2<u32> {
  let lane = vsg_lid % ${vsg}u;
  var r = v;
  for (var d = 1u; d < ${vsg}u; d <<= 1u) {
    vsg_scan[vsg_lid] = r;
    workgroupBarrier();
    if (lane >= d) { r += vsg_scan[vsg_lid - d]; }
    workgroupBarrier();
  }
  return r;
}
`;
}
