import type { KernelDefinition } from '@weft/gpu';
import {
  A_BUMP,
  ATOMIC,
  ENTRY_ARGS,
  ENTRY_HEAD,
  KEY_SLOTS,
  READ,
  SLAB_WORDS,
  THREAD_INDEX,
  tableWgsl,
  V_BASE,
  V_BUCKETS,
  WORKGROUP,
  WRITE,
} from './layout.ts';

/** Distance of an unreached vertex; finite sums saturate one below it. */
export const UNREACHED = 0xffffffff;
/**
 * `ctrl` words: the two frontier lengths, the iteration the frontier first came out empty, and a flag set
 * when a zero-weight edge is tight (shortest-path parents may then form cycles).
 */
export const C_COUNT0 = 0;
export const C_DONE = 2;
export const C_ZERO_TIGHT = 3;
/** No parent: the source, unreached vertices. */
export const NO_PARENT = 0xffffffff;
export const CTRL_WORDS = 4;
export const NOT_DONE = 0xffffffff;
/** Indirect arguments: per-vertex relaxation at word 0, the slab sweep at word 3. */
export const ARGS_WORDS = 6;

/**
 * Relaxation shared by the seed and the iterations. A vertex whose distance drops joins the next frontier
 * once: `stamp[v]` is raised to the next frontier's stamp, and only the thread that raised it appends.
 * Stamps grow across runs, so they are never cleared.
 */
function relaxWgsl(withValues: boolean): string {
  return /* wgsl */ `
const UNREACHED = ${UNREACHED}u;

fn weight_at(at: u32) -> u32 { return ${withValues ? 'values[at]' : '1u'}; }

fn push(v: u32) {
  if (atomicMax(&stamp[v], params.next_stamp) < params.next_stamp) {
    let at = atomicAdd(&ctrl[params.next], 1u);
    // A vertex joins once per frontier, so the queue (one slot per vertex) cannot overflow.
    if (at < params.queue_capacity) { queue_next[at] = v; }
  }
}

// Drops x's distance (its shortest path used a deleted edge); the first to drop it pushes it.
fn drop_distance(x: u32) {
  if (atomicExchange(&dist[x], UNREACHED) != UNREACHED) {
    atomicStore(&parent[x], ${NO_PARENT}u);
    push(x);
  }
}

fn relax(d: u32, v: u32, w: u32) {
  if (d == UNREACHED) { return; }
  let s = d + w;
  // Saturate below UNREACHED (a sum that wraps or lands on it).
  let nd = select(s, UNREACHED - 1u, s < d || s == UNREACHED);
  if (nd >= atomicLoad(&dist[v])) { return; }
  if (nd < atomicMin(&dist[v], nd)) { push(v); }
}

// Relaxes the ${KEY_SLOTS} keys of one slab of u's table.
fn relax_slab(d: u32, slab: u32) {
  let base = slab * ${SLAB_WORDS}u;
  for (var lane = 0u; lane < KEY_SLOTS; lane++) {
    let k = slabs[base + lane];
    if (k < TOMBSTONE) { relax(d, k, weight_at(base + lane)); }
  }
}
`;
}

const BINDINGS = {
  slabs: READ,
  values: READ,
  vertices: READ,
  alloc: READ,
  dist: ATOMIC,
  stamp: ATOMIC,
  ctrl: ATOMIC,
  parent: ATOMIC,
  queue_cur: READ,
  queue_next: WRITE,
};

const PARAMS = {
  vertex_count: 'u32',
  slab_capacity: 'u32',
  cur: 'u32',
  next: 'u32',
  cur_stamp: 'u32',
  next_stamp: 'u32',
  queue_capacity: 'u32',
  source: 'u32',
} as const;

/**
 * One Bellman-Ford iteration over the hash tables, two ways (the advance kernel picks one per iteration on
 * the GPU): `by_vertex`, a thread per frontier vertex walking its whole table (little work for a small
 * frontier, unbalanced on hubs), and `by_slab`, a thread per slab of the pool whose owner is in the frontier
 * (balanced: at most ${KEY_SLOTS} keys a thread, but every slab is looked at).
 */
export function ssspRelaxKernel(withValues: boolean): KernelDefinition {
  // Also the deletion passes: \`parents\` (per slab) and \`invalidate\` (per frontier vertex).
  return {
    label: `dynamic sssp relax${withValues ? ' (weighted)' : ''}`,
    bindings: BINDINGS,
    params: PARAMS,
    entryPoints: ['by_vertex', 'by_slab', 'parents', 'invalidate'],
    code: /* wgsl */ `
${tableWgsl(false, false)}
${relaxWgsl(withValues)}

${ENTRY_HEAD}
fn by_vertex(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= atomicLoad(&ctrl[params.cur])) { return; }
  let u = queue_cur[i];
  let d = atomicLoad(&dist[u]);
  let base = vertex_word(u, ${V_BASE}u);
  let buckets = vertex_word(u, ${V_BUCKETS}u);
  for (var b = 0u; b < buckets; b++) {
    var slab = base + b;
    for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
      relax_slab(d, slab);
      slab = slabs[slab * ${SLAB_WORDS}u + NEXT_WORD];
    }
  }
}

// The owner's stamp is compared with >=: a frontier vertex may already carry the next stamp (improved
// again during this iteration), and relaxing a vertex that is only in the next frontier is harmless.
${ENTRY_HEAD}
fn by_slab(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= min(alloc[${A_BUMP}u], params.slab_capacity)) { return; }
  let owner_word = slabs[i * ${SLAB_WORDS}u + OWNER_WORD];
  if (owner_word == NO_OWNER) { return; }
  let u = owner_word & ~COLLISION;
  if (u >= params.vertex_count || atomicLoad(&stamp[u]) < params.cur_stamp) { return; }
  relax_slab(atomicLoad(&dist[u]), i);
}

// Shortest-path parents, one thread per slab: parent[x] = some u whose edge to x is tight. A tight
// zero-weight edge raises a flag (parents could then form a cycle; the host recomputes instead).
${ENTRY_HEAD}
fn parents(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= min(alloc[${A_BUMP}u], params.slab_capacity)) { return; }
  let owner_word = slabs[i * ${SLAB_WORDS}u + OWNER_WORD];
  if (owner_word == NO_OWNER) { return; }
  let u = owner_word & ~COLLISION;
  if (u >= params.vertex_count) { return; }
  let d = atomicLoad(&dist[u]);
  if (d == UNREACHED) { return; }
  for (var lane = 0u; lane < KEY_SLOTS; lane++) {
    let at = i * ${SLAB_WORDS}u + lane;
    let x = slabs[at];
    if (x >= TOMBSTONE || x == params.source) { continue; }
    let w = weight_at(at);
    let s = d + w;
    let nd = select(s, UNREACHED - 1u, s < d || s == UNREACHED);
    if (nd == atomicLoad(&dist[x])) {
      atomicStore(&parent[x], u);
      // Zero weights and saturated sums tie a vertex with its parent: parents may form a cycle.
      if (w == 0u || nd == UNREACHED - 1u) { atomicStore(&ctrl[${C_ZERO_TIGHT}u], 1u); }
    }
  }
}

// Invalidation, one thread per frontier vertex y (its distance was just dropped): every x whose parent is
// y loses its distance too and joins the next frontier.
${ENTRY_HEAD}
fn invalidate(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= atomicLoad(&ctrl[params.cur])) { return; }
  let y = queue_cur[i];
  let base = vertex_word(y, ${V_BASE}u);
  let buckets = vertex_word(y, ${V_BUCKETS}u);
  for (var b = 0u; b < buckets; b++) {
    var slab = base + b;
    for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
      for (var lane = 0u; lane < KEY_SLOTS; lane++) {
        let x = slabs[slab * ${SLAB_WORDS}u + lane];
        if (x < TOMBSTONE && atomicLoad(&parent[x]) == y) { drop_distance(x); }
      }
      slab = slabs[slab * ${SLAB_WORDS}u + NEXT_WORD];
    }
  }
}`,
  };
}

/**
 * Seeds the frontier from a batch of inserted edges: each (u, v) relaxes v with the weight the table now
 * holds (so duplicates in the batch and replaced values count as the graph has them).
 */
export function ssspSeedKernel(withValues: boolean): KernelDefinition {
  return {
    label: `dynamic sssp seed${withValues ? ' (weighted)' : ''}`,
    bindings: { ...BINDINGS, src: READ, dst: READ },
    params: { ...PARAMS, n: 'u32', mirror: 'u32' },
    entryPoints: ['main', 'unlink'],
    code: /* wgsl */ `
${tableWgsl(false, false)}
${relaxWgsl(withValues)}

fn batch_edge(i: u32) -> vec2<u32> {
  if (params.mirror != 0u) {
    let e = i >> 1u;
    if ((i & 1u) == 1u) { return vec2<u32>(dst[e], src[e]); }
    return vec2<u32>(src[e], dst[e]);
  }
  return vec2<u32>(src[i], dst[i]);
}

${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let e = batch_edge(i);
  let u = e.x;
  let v = e.y;
  if (!is_alive(u) || v >= params.vertex_count) { return; }
  let at = find_key(u, v);
  if (at != NOT_FOUND) { relax(atomicLoad(&dist[u]), v, weight_at(at)); }
}

// After edges were deleted: a deleted edge u -> v that was v's shortest-path parent edge drops v.
${ENTRY_HEAD}
fn unlink(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let e = batch_edge(i);
  if (e.x < params.vertex_count && e.y < params.vertex_count && atomicLoad(&parent[e.y]) == e.x) {
    drop_distance(e.y);
  }
}`,
  };
}

/**
 * After an iteration (one thread): reads the new frontier's length, zeroes the old one's (the next
 * iteration appends there), writes the next iteration's indirect arguments (one of the two relaxations
 * gets zero workgroups) and records the iteration at which the frontier first came out empty.
 */
export function ssspAdvanceKernel(): KernelDefinition {
  return {
    label: 'dynamic sssp advance',
    bindings: { ctrl: ATOMIC, args: WRITE, alloc: READ },
    params: {
      cur: 'u32',
      next: 'u32',
      iteration: 'u32',
      sweep_min: 'u32',
      slab_capacity: 'u32',
      max_dim: 'u32',
    },
    code: /* wgsl */ `
fn set_args(at: u32, items: u32) {
  let groups = (items + ${WORKGROUP - 1}u) / ${WORKGROUP}u;
  let x = min(groups, params.max_dim);
  args[at] = x;
  args[at + 1u] = select(1u, (groups + x - 1u) / x, x > 0u);
  args[at + 2u] = 1u;
}

@compute @workgroup_size(1)
fn main() {
  let n = atomicLoad(&ctrl[params.next]);
  atomicStore(&ctrl[params.cur], 0u);
  let sweep = n >= params.sweep_min;
  set_args(0u, select(n, 0u, sweep));
  set_args(3u, select(0u, min(alloc[${A_BUMP}u], params.slab_capacity), sweep && n > 0u));
  if (n == 0u && atomicLoad(&ctrl[${C_DONE}u]) == ${NOT_DONE}u) {
    atomicStore(&ctrl[${C_DONE}u], params.iteration);
  }
}`,
  };
}
