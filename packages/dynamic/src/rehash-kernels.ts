import type { KernelDefinition } from '@weft/gpu';
import {
  A_BUMP,
  A_FREE,
  ATOMIC,
  ENTRY_ARGS,
  ENTRY_HEAD,
  READ,
  THREAD_INDEX,
  tableWgsl,
  V_BASE,
  V_BUCKETS,
  V_DEGREE,
  WRITE,
} from './layout.ts';

/**
 * Totals the plan counts: rebuilt vertices, the change of the base bucket total (wrapping u32: read it as
 * i32), base slabs taken by growing tables.
 */
export const T_REBUILT = 0;
export const T_BUCKET_CHANGE = 1;
export const T_GROWTH = 2;
/** Word of the totals array that the scan of the keys to move writes its total into. */
export const T_KEYS = 3;
export const TOTAL_WORDS = 4;

const entry = (name: string, n: string, body: string) => /* wgsl */ `
${ENTRY_HEAD}
fn ${name}(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= ${n}) { return; }
${body}
}`;

/**
 * Plans a rehash.
 * - `measure` (one thread per slab below the bump pointer): a base slab of a live vertex walks its bucket's
 *   chain and adds its length to the vertex's slab count and raises its longest chain.
 * - `decide` (one thread per vertex): a live vertex whose keys per base slot lie outside [low, high], or
 *   whose longest chain exceeds `max_chain`, is rebuilt with `max(1, ceil(degree / keys_per_bucket))`
 *   buckets, unless that table would be the one it has (same buckets, no collision slabs). The plan then
 *   holds the new bucket count (0: kept) and a zero cursor.
 *   A workgroup sums its counts in workgroup memory and adds them to `totals` once: many vertices may be
 *   rebuilt, and atomics on one word serialize.
 */
export function rehashPlanKernel(): KernelDefinition {
  return {
    label: 'dynamic rehash plan',
    bindings: { slabs: READ, vertices: READ, alloc: READ, plan: ATOMIC, totals: ATOMIC },
    params: {
      n: 'u32',
      vertex_count: 'u32',
      slab_capacity: 'u32',
      low: 'f32',
      high: 'f32',
      max_chain: 'u32',
      keys_per_bucket: 'f32',
    },
    entryPoints: ['measure', 'decide'],
    code: /* wgsl */ `
${tableWgsl(false, false)}
var<workgroup> wg_rebuilt: atomic<u32>;
var<workgroup> wg_change: atomic<u32>;
var<workgroup> wg_growth: atomic<u32>;
${entry(
  'measure',
  `min(params.n, alloc[${A_BUMP}u])`,
  /* wgsl */ `
  let owner = slabs[i * 32u + OWNER_WORD];
  if (owner == NO_OWNER || (owner & COLLISION) != 0u || !is_alive(owner)) { return; }
  var length = 1u;
  var c = slabs[i * 32u + NEXT_WORD];
  for (var hop = 0u; hop < chain_bound() && c != NULL_SLAB; hop++) {
    length++;
    c = slabs[c * 32u + NEXT_WORD];
  }
  atomicAdd(&plan[owner * 2u], length);
  atomicMax(&plan[owner * 2u + 1u], length);`,
)}
${ENTRY_HEAD}
fn decide(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i < params.vertex_count) {
    let v = i;
    let slab_count = atomicLoad(&plan[v * 2u]);
    let longest = atomicLoad(&plan[v * 2u + 1u]);
    atomicStore(&plan[v * 2u + 1u], 0u);
    let degree = vertex_word(v, ${V_DEGREE}u);
    let buckets = vertex_word(v, ${V_BUCKETS}u);
    let load = f32(degree) / (f32(max(buckets, 1u)) * f32(KEY_SLOTS));
    let fit = max(1u, u32(ceil(f32(degree) / params.keys_per_bucket)));
    let out_of_bounds = load < params.low || load > params.high || longest > params.max_chain;
    var wanted = 0u;
    if (is_alive(v) && out_of_bounds && (fit != buckets || slab_count > fit)) {
      wanted = fit;
      atomicAdd(&wg_rebuilt, 1u);
      atomicAdd(&wg_change, fit - buckets);
      if (fit > buckets) { atomicAdd(&wg_growth, fit); }
    }
    atomicStore(&plan[v * 2u], wanted);
  }
  workgroupBarrier();
  if (lid == 0u) {
    let count = atomicLoad(&wg_rebuilt);
    if (count > 0u) {
      atomicAdd(&totals[${T_REBUILT}u], count);
      atomicAdd(&totals[${T_BUCKET_CHANGE}u], atomicLoad(&wg_change));
      atomicAdd(&totals[${T_GROWTH}u], atomicLoad(&wg_growth));
    }
  }
}`,
  };
}

/**
 * Moves the live keys of the vertices to rebuild out of their tables (one thread per slab below the bump
 * pointer): vertex v's keys land at `offsets[v]` onwards, in the sorted-batch form the insert kernel reads
 * (`out_src` the vertex, also its sort key; `out_dst` the key; `out_val` its value; `out_idx` the position).
 */
export function rehashStageKernel(withValues: boolean): KernelDefinition {
  return {
    label: `dynamic rehash stage${withValues ? ' (map)' : ''}`,
    bindings: {
      slabs: READ,
      values: READ,
      vertices: READ,
      alloc: READ,
      plan: ATOMIC,
      offsets: READ,
      out_src: WRITE,
      out_dst: WRITE,
      out_val: WRITE,
      out_idx: WRITE,
    },
    params: { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32', staged: 'u32' },
    code: /* wgsl */ `
${tableWgsl(false, false)}
${entry(
  'main',
  `min(params.n, alloc[${A_BUMP}u])`,
  /* wgsl */ `
  let base = i * 32u;
  let owner_word = slabs[base + OWNER_WORD];
  if (owner_word == NO_OWNER) { return; }
  let v = owner_word & ~COLLISION;
  if (v >= params.vertex_count || atomicLoad(&plan[v * 2u]) == 0u) { return; }
  let w = load_slab(base);
  var live = 0u;
  for (var lane = 0u; lane < KEY_SLOTS; lane++) { live += select(0u, 1u, w[lane] < TOMBSTONE); }
  if (live == 0u) { return; }
  var p = offsets[v] + atomicAdd(&plan[v * 2u + 1u], live);
  for (var lane = 0u; lane < KEY_SLOTS; lane++) {
    if (w[lane] < TOMBSTONE && p < params.staged) {
      out_src[p] = v;
      out_dst[p] = w[lane];
      ${withValues ? 'out_val[p] = values[base + lane];' : ''}
      out_idx[p] = p;
      p++;
    }
  }`,
)}`,
  };
}

/**
 * Empties the tables to rebuild.
 * - `release` (one thread per slab below the bump pointer): a slab of a vertex to rebuild is reset; it stays
 *   the vertex's only when it is one of the first `buckets` base slabs of a table that does not grow, and
 *   goes onto the free list otherwise (nothing is popped in this phase, so a plain push is safe; a workgroup
 *   takes its free-list positions with one atomic).
 * - `assign` (one thread per vertex): a growing table takes its base slabs, contiguous, from the bump
 *   pointer (the host reserved them); every rebuilt vertex gets its bucket count and degree 0 (the insert
 *   kernel counts the keys back in).
 */
export function rehashReleaseKernel(): KernelDefinition {
  return {
    label: 'dynamic rehash release',
    bindings: { slabs: ATOMIC, free_list: WRITE, alloc: ATOMIC, vertices: ATOMIC, plan: READ },
    params: { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
    entryPoints: ['release', 'assign'],
    code: /* wgsl */ `
${tableWgsl(true, true)}
fn set_vertex(v: u32, f: u32, x: u32) { atomicStore(&vertices[v * 4u + f], x); }
var<workgroup> wg_freed: atomic<u32>;
var<workgroup> wg_base: u32;
${ENTRY_HEAD}
fn release(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  var free = false;
  var slot = 0u;
  if (i < min(params.n, atomicLoad(&alloc[${A_BUMP}u]))) {
    let base = i * 32u;
    let owner_word = atomicLoad(&slabs[base + OWNER_WORD]);
    let v = owner_word & ~COLLISION;
    if (owner_word != NO_OWNER && v < params.vertex_count && plan[v * 2u] != 0u) {
      let wanted = plan[v * 2u];
      let j = i - vertex_word(v, ${V_BASE}u);
      let keep = (owner_word & COLLISION) == 0u && wanted <= vertex_word(v, ${V_BUCKETS}u) && j < wanted;
      for (var w = 0u; w < 32u; w++) {
        if (w != OWNER_WORD) { atomicStore(&slabs[base + w], EMPTY); }
      }
      if (!keep) {
        atomicStore(&slabs[base + OWNER_WORD], NO_OWNER);
        free = true;
        slot = atomicAdd(&wg_freed, 1u);
      }
    }
  }
  workgroupBarrier();
  if (lid == 0u) {
    let count = atomicLoad(&wg_freed);
    if (count > 0u) { wg_base = atomicAdd(&alloc[${A_FREE}u], count); }
  }
  workgroupBarrier();
  if (free) { free_list[wg_base + slot] = i; }
}
${entry(
  'assign',
  'params.vertex_count',
  /* wgsl */ `
  let v = i;
  let wanted = plan[v * 2u];
  if (wanted == 0u) { return; }
  if (wanted > vertex_word(v, ${V_BUCKETS}u)) {
    let base = atomicAdd(&alloc[${A_BUMP}u], wanted);
    set_vertex(v, ${V_BASE}u, base);
    for (var b = 0u; b < wanted; b++) { atomicStore(&slabs[(base + b) * 32u + OWNER_WORD], v); }
  }
  set_vertex(v, ${V_BUCKETS}u, wanted);
  set_vertex(v, ${V_DEGREE}u, 0u);`,
)}`,
  };
}
