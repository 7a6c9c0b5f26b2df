/**
 * WGSL: a workgroup counter `subgroup_ticket` and `fn subgroup_index() -> u32`, a dense index of the caller's
 * subgroup in [0, number of subgroups) drawn from it. A slot `subgroup_index() * subgroup_size + lane` then
 * follows subgroup scan order whatever the hardware's layout of subgroups over `local_invocation_index`
 * (needs full subgroups). The kernel zeroes `subgroup_ticket` with `atomicStore` before a barrier that precedes
 * the first call (Dawn may be told not to zero workgroup memory); after a barrier that follows the last call,
 * `atomicLoad(&subgroup_ticket)` is the number of subgroups.
 */
export const SUBGROUP_INDEX_WGSL = /* wgsl */ `
var<workgroup> subgroup_ticket: atomic<u32>;

fn subgroup_index() -> u32 {
  var w = 0u;
  if (subgroupElect()) { w = atomicAdd(&subgroup_ticket, 1u); }
  return subgroupMax(w);
}`;
