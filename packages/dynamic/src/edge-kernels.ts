import type { KernelDefinition } from '@weft/gpu';
import {
  A_BUMP,
  A_FREE,
  A_LONG_TABLES,
  A_OVERFLOW,
  A_SPARE,
  ATOMIC,
  ENTRY_ARGS,
  ENTRY_HEAD,
  KEY_SLOTS,
  LONG_TABLE_LOAD,
  READ,
  THREAD_INDEX,
  tableWgsl,
  V_BASE,
  V_BUCKETS,
  V_DEGREE,
  V_FLAGS,
  WORKGROUP,
  WRITE,
} from './layout.ts';

/**
 * A batch as the kernels see it: item j of `src`/`dst`, or with `mirror` set (undirected graphs) item j >> 1
 * in the orientation j & 1, so both directions of an edge stay next to each other in batch order (the
 * "last in batch wins" rule then gives both directions the same value).
 */
export const BATCH_WGSL = /* wgsl */ `
fn batch_src(j: u32) -> u32 {
  if (params.mirror != 0u) { let e = j >> 1u; return select(src[e], dst[e], (j & 1u) == 1u); }
  return src[j];
}
fn batch_dst(j: u32) -> u32 {
  if (params.mirror != 0u) { let e = j >> 1u; return select(dst[e], src[e], (j & 1u) == 1u); }
  return dst[j];
}
fn batch_edge(j: u32) -> u32 { return select(j, j >> 1u, params.mirror != 0u); }
// Ids out of range and self-loops are dropped.
fn batch_valid(j: u32) -> bool {
  let s = batch_src(j);
  let d = batch_dst(j);
  return s < params.vertex_count && d < params.vertex_count && s != d;
}
`;

/** The slab allocator as insert kernels use it (bindings `alloc`, `free_list`; param `slab_capacity`). */
export const ALLOC_WGSL = /* wgsl */ `
// A collision slab: the free list first (popped by a decrement that may go below zero; the fix-up kernel
// clamps it), else the bump pointer. Free-list entries are only written between insert phases, so a popped
// index is never stale. Freed and never-used slabs are all-EMPTY (reset in an earlier dispatch).
fn alloc_slab() -> u32 {
  let f = atomicSub(&alloc[${A_FREE}u], 1u);
  if (bitcast<i32>(f) >= 1) { return free_list[f - 1u]; }
  let b = atomicAdd(&alloc[${A_BUMP}u], 1u);
  if (b < params.slab_capacity) { return b; }
  atomicStore(&alloc[${A_OVERFLOW}u], 1u);
  return NULL_SLAB;
}

// After linking a collision slab to v's table: flag the table if its chains average more than LONG_TABLE_LOAD
// slabs' worth of keys a bucket, so that autoRehash can grow it (links are one in KEY_SLOTS insertions).
fn note_link(v: u32) {
  let degree = atomicLoad(&vertices[v * 4u + ${V_DEGREE}u]);
  let buckets = vertex_word(v, ${V_BUCKETS}u);
  if (degree > buckets * ${LONG_TABLE_LOAD * KEY_SLOTS}u) { atomicStore(&alloc[${A_LONG_TABLES}u], 1u); }
}

// A slab taken but never linked (another thread linked first) goes to the spare half of the free-list array
// (not the top of the free half: a slab popped from there and given back would overwrite an entry that
// another thread has yet to pop). The fix-up kernel moves spares onto the free list.
fn give_back(slab: u32) {
  if (slab == NULL_SLAB) { return; }
  let k = atomicAdd(&alloc[${A_SPARE}u], 1u);
  free_list[params.slab_capacity + k] = slab;
}
`;

/** `slot_of` of an edge that takes no part in the insertion (invalid ids, self-loops). */
const NO_SLOT = 0xffffffff;

/**
 * The order in which insert kernels take a de-duplicated batch: `'by-source'`, sorted by the dedup kernel's
 * keys (`keys`: the source of each pair's newest item, others at least vertex_count; `idx`: batch positions
 * in that order), so a vertex's insertions run side by side; `'batch'`, as given, with no sort (`keys`: each
 * batch edge's slot in the dedup table, `idx`: the table, whose slot holds 1 + the winning edge).
 */
export type InsertionOrder = 'by-source' | 'batch';

/** `batch_item(i)`: the source, batch position and target of insert thread i; source NONE_ITEM when it has none. */
export function batchItemWgsl(order: InsertionOrder): string {
  const pick =
    order === 'by-source'
      ? /* wgsl */ `
  let v = keys[i];
  if (v >= params.vertex_count) { return vec3<u32>(NONE_ITEM, 0u, 0u); }
  let j = idx[i];
  return vec3<u32>(v, j, batch_dst(j));`
      : /* wgsl */ `
  let e = batch_edge(i);
  let h = keys[e];
  if (h == ${NO_SLOT}u || idx[h] != e + 1u) { return vec3<u32>(NONE_ITEM, 0u, 0u); }
  return vec3<u32>(batch_src(i), i, batch_dst(i));`;
  return /* wgsl */ `
const NONE_ITEM = 0xffffffffu;
fn batch_item(i: u32) -> vec3<u32> {${pick}
}`;
}

/** Label suffix of an insert kernel taking the batch in `order`. */
export function orderLabel(order: InsertionOrder): string {
  return order === 'batch' ? ', batch order' : '';
}

/**
 * De-duplicates a batch in one pass over an open-addressing table of pairs (a power of two, at least twice
 * the pairs hashed, so probes are short and always end). The unit hashed is a batch edge (`batch_edge`):
 * directed, its (source, target); mirrored, its unordered pair {min, max}, once for both of its items, since
 * "last in batch wins, in either orientation" is exactly the newest edge with that unordered pair (half the
 * atomics and half the table of hashing each direction). A slot holds 1 + the newest edge with its pair,
 * raised by atomicMax. Slots store edges, not pairs: the batch arrays hold the pair of any edge, so one
 * 32-bit atomic word per slot suffices. Entry `dedup` fills the table (`slot_of[e]`: edge e's slot) and the
 * positions for the sort (when `with_order` is set); `sort_keys` then gives each item its sort key: its source if its edge won, else
 * `params.loser` (at least vertex_count), so one stable sort both groups the winners by source and moves
 * everything else past them.
 */
export function batchDedupKernel(): KernelDefinition {
  return {
    label: 'dynamic batch dedup',
    bindings: {
      src: READ,
      dst: READ,
      keys: WRITE,
      idx: WRITE,
      slot_of: WRITE,
      table: ATOMIC,
    },
    params: {
      n: 'u32',
      mirror: 'u32',
      vertex_count: 'u32',
      table_mask: 'u32',
      loser: 'u32',
      with_order: 'u32',
    },
    entryPoints: ['dedup', 'sort_keys'],
    code: /* wgsl */ `
${BATCH_WGSL}
fn pair_hash(s: u32, d: u32) -> u32 {
  var h = (s * 0x9e3779b1u) ^ (d + 0x7f4a7c15u + (s << 6u) + (s >> 2u));
  h ^= h >> 16u;
  h *= 0x85ebca6bu;
  h ^= h >> 13u;
  h *= 0xc2b2ae35u;
  return h ^ (h >> 16u);
}

// The pair edge e is hashed by (unordered when mirrored).
fn edge_pair(e: u32) -> vec2<u32> {
  if (params.mirror != 0u) { return vec2<u32>(min(src[e], dst[e]), max(src[e], dst[e])); }
  return vec2<u32>(src[e], dst[e]);
}

${ENTRY_HEAD}
fn dedup(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  if (params.with_order != 0u) { idx[i] = i; }
  if (params.mirror != 0u && (i & 1u) == 1u) { return; }
  let e = batch_edge(i);
  slot_of[e] = ${NO_SLOT}u;
  if (!batch_valid(i)) { return; }
  let pair = edge_pair(e);
  var h = pair_hash(pair.x, pair.y) & params.table_mask;
  // Fewer distinct pairs than slots: a free slot or the pair's own is always found. The bound only covers
  // spurious compare-exchange failures, which retry the same slot.
  for (var probe = 0u; probe < 4u * (params.table_mask + 1u); probe++) {
    var w = atomicLoad(&table[h]);
    if (w == 0u) {
      let r = atomicCompareExchangeWeak(&table[h], 0u, e + 1u);
      if (r.exchanged) { slot_of[e] = h; return; }
      w = r.old_value;
      if (w == 0u) { continue; }
    }
    if (all(edge_pair(w - 1u) == pair)) {
      atomicMax(&table[h], e + 1u);
      slot_of[e] = h;
      return;
    }
    h = (h + 1u) & params.table_mask;
  }
}

${ENTRY_HEAD}
fn sort_keys(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let e = batch_edge(i);
  let h = slot_of[e];
  let newest = h != ${NO_SLOT}u && atomicLoad(&table[h]) == e + 1u;
  keys[i] = select(params.loser, batch_src(i), newest);
}`,
  };
}

/**
 * Bindings and parameters each pair of probing kernels (thread and subgroup) shares, per operation; batch
 * operations (insert, delete) take the batch parameters.
 */
export const INSERT_BINDINGS = {
  slabs: ATOMIC,
  values: WRITE,
  free_list: WRITE,
  alloc: ATOMIC,
  vertices: ATOMIC,
  src: READ,
  dst: READ,
  vals: READ,
  keys: READ,
  idx: READ,
} as const;
export const DELETE_BINDINGS = { slabs: ATOMIC, vertices: ATOMIC, src: READ, dst: READ } as const;
export const QUERY_BINDINGS = {
  slabs: READ,
  values: READ,
  vertices: READ,
  src: READ,
  dst: READ,
  found: WRITE,
  out_values: WRITE,
} as const;
export const BATCH_PARAMS = { n: 'u32', mirror: 'u32', vertex_count: 'u32', slab_capacity: 'u32' } as const;
export const QUERY_PARAMS = { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32' } as const;

/**
 * Inserts a batch de-duplicated by the dedup kernel, taken in `order` (see {@link InsertionOrder}): pairs
 * are unique within the kernel, so a thread may claim a TOMBSTONE without another thread putting the same
 * key elsewhere (the duplicate-after-delete bug of SlabHash's insertUnique).
 */
export function insertKernel(withValues: boolean, order: InsertionOrder = 'by-source'): KernelDefinition {
  const setValue = withValues ? 'values[at] = vals[batch_edge(j)];' : '';
  return {
    label: `dynamic insert edges${withValues ? ' (map)' : ''}${orderLabel(order)}`,
    bindings: INSERT_BINDINGS,
    params: BATCH_PARAMS,
    code: /* wgsl */ `
${tableWgsl(true, true)}
${BATCH_WGSL}
${batchItemWgsl(order)}

${ALLOC_WGSL}
fn insert_edge(i: u32, j: u32, v: u32, k: u32, first: u32) {
  // Pass 1: is k there (then only its value changes)? Remember the first slab with a free slot, and in it
  // the free slot nearest this thread's own lane with the word read there.
  let first_lane = i % KEY_SLOTS;
  var slab = first;
  var claim_slab = NULL_SLAB;
  var claim_lane = 0u;
  var claim_word = EMPTY;
  for (var hop = 0u; hop < chain_bound(); hop++) {
    let base = slab * 32u;
    let words = load_slab(base);
    var nearest = KEY_SLOTS;
    for (var lane = 0u; lane < KEY_SLOTS; lane++) {
      let at = base + lane;
      let w = words[lane];
      if (w == k) { ${setValue} return; }
      let d = (lane + KEY_SLOTS - first_lane) % KEY_SLOTS;
      if ((w == EMPTY || w == TOMBSTONE) && claim_slab == NULL_SLAB && d < nearest) {
        nearest = d;
        claim_lane = lane;
        claim_word = w;
      }
    }
    if (nearest < KEY_SLOTS && claim_slab == NULL_SLAB) { claim_slab = slab; }
    let next = words[NEXT_WORD];
    if (next == NULL_SLAB) { break; }
    slab = next;
  }
  // The slot pass 1 saw free is claimed with the word it read there: no second read when no one took it.
  if (claim_slab != NULL_SLAB) {
    let at = claim_slab * 32u + claim_lane;
    let r = atomicCompareExchangeWeak(&slabs[at], claim_word, k);
    if (r.exchanged) {
      ${setValue}
      atomicAdd(&vertices[v * 4u + ${V_DEGREE}u], 1u);
      return;
    }
  }
  // Pass 2: claim a free slot from there on. Other keys race for the same slots; this key does not (the
  // batch is unique), so a lost slot just means moving on. Each thread starts at its own lane: the threads
  // of one vertex are adjacent in the sorted batch and would otherwise all fight for the same slot.
  var s = claim_slab;
  var tried = 0u;
  if (s == NULL_SLAB) { s = slab; tried = KEY_SLOTS; }
  var spare = NULL_SLAB;
  // Each step either moves forward or retries after a spurious compare-exchange failure.
  for (var step = 0u; step < chain_bound() * 64u; step++) {
    let base = s * 32u;
    if (tried < KEY_SLOTS) {
      let at = base + (first_lane + tried) % KEY_SLOTS;
      let w = atomicLoad(&slabs[at]);
      if (w == EMPTY || w == TOMBSTONE) {
        let r = atomicCompareExchangeWeak(&slabs[at], w, k);
        if (r.exchanged) {
          ${setValue}
          atomicAdd(&vertices[v * 4u + ${V_DEGREE}u], 1u);
          give_back(spare);
          return;
        }
        if (r.old_value == w) { continue; }
      }
      tried++;
      continue;
    }
    var next = atomicLoad(&slabs[base + NEXT_WORD]);
    if (next == NULL_SLAB) {
      if (spare == NULL_SLAB) {
        spare = alloc_slab();
        if (spare == NULL_SLAB) { return; }
      }
      let r = atomicCompareExchangeWeak(&slabs[base + NEXT_WORD], NULL_SLAB, spare);
      if (r.exchanged) {
        atomicStore(&slabs[spare * 32u + OWNER_WORD], v | COLLISION);
        note_link(v);
        next = spare;
        spare = NULL_SLAB;
      } else if (r.old_value == NULL_SLAB) {
        continue;
      } else {
        next = r.old_value;
      }
    }
    s = next;
    tried = 0u;
  }
  give_back(spare);
}

${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let item = batch_item(i);
  let v = item.x;
  if (v >= params.vertex_count) { return; }
  let j = item.y;
  let k = item.z;
  // The source's record and the target's flags, read together (one round trip before the probe).
  let flags = vertex_word(v, ${V_FLAGS}u);
  let base = vertex_word(v, ${V_BASE}u);
  let buckets = vertex_word(v, ${V_BUCKETS}u);
  let target_alive = is_alive(k);
  if ((flags & ALIVE) == 0u || !target_alive || buckets == 0u) { return; }
  insert_edge(i, j, v, k, base + hash_key(k) % buckets);
}`,
  };
}

/**
 * After an insert phase: one workgroup copies the spares onto the free list (a hub's chain, raced for by
 * thousands of threads, leaves as many spares), then its first thread clamps the free count (pops may have
 * taken it below zero), adds the spares and clamps the bump pointer. One dispatch: every batch pays for it.
 */
export function allocFixupKernel(): KernelDefinition {
  return {
    label: 'dynamic slab allocator fix-up',
    bindings: { alloc: ATOMIC, free_list: WRITE },
    params: { slab_capacity: 'u32' },
    code: /* wgsl */ `
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(local_invocation_index) lid: u32) {
  let free_count = u32(max(bitcast<i32>(atomicLoad(&alloc[${A_FREE}u])), 0));
  let spares = atomicLoad(&alloc[${A_SPARE}u]);
  // Slabs still free and spares are distinct, so together they fit below the capacity.
  for (var k = lid; k < spares; k += ${WORKGROUP}u) {
    free_list[free_count + k] = free_list[params.slab_capacity + k];
  }
  storageBarrier();
  workgroupBarrier();
  if (lid != 0u) { return; }
  atomicStore(&alloc[${A_FREE}u], free_count + spares);
  atomicStore(&alloc[${A_SPARE}u], 0u);
  // Failed allocations (pool overflow) still advanced the bump pointer: slabs below the capacity are the ones
  // handed out.
  atomicStore(&alloc[${A_BUMP}u], min(atomicLoad(&alloc[${A_BUMP}u]), params.slab_capacity));
}`,
  };
}

/**
 * Deletes a batch in two passes. `locate` probes the tables through plain (not atomic) loads, a probed slab
 * loaded whole as queries load it, and writes each item's key position to `positions` (NOT_FOUND where the
 * source is dead or the key absent); `apply` turns those keys into TOMBSTONE by compare-exchange, so a
 * duplicate in the batch finds its key gone and the degree drops once. Atomic loads made the one-pass
 * probe about twice as slow; between the passes nothing else writes the tables.
 */
export function deleteKernel(pass: 'locate' | 'apply'): KernelDefinition {
  if (pass === 'locate') {
    return {
      label: 'dynamic delete edges, locate',
      bindings: { slabs: READ, vertices: READ, src: READ, dst: READ, positions: WRITE },
      params: BATCH_PARAMS,
      code: /* wgsl */ `
${tableWgsl(false, false)}
${BATCH_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  var at = NOT_FOUND;
  if (batch_valid(i)) {
    let v = batch_src(i);
    if (is_alive(v)) { at = find_key(v, batch_dst(i)); }
  }
  positions[i] = at;
}`,
    };
  }
  return {
    label: 'dynamic delete edges, apply',
    bindings: { ...DELETE_BINDINGS, positions: READ },
    params: BATCH_PARAMS,
    code: /* wgsl */ `
${tableWgsl(true, true)}
${BATCH_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let at = positions[i];
  if (at == NOT_FOUND) { return; }
  let v = batch_src(i);
  let k = batch_dst(i);
  for (var attempt = 0u; attempt < 1024u; attempt++) {
    let r = atomicCompareExchangeWeak(&slabs[at], k, TOMBSTONE);
    if (r.exchanged) { atomicSub(&vertices[v * 4u + ${V_DEGREE}u], 1u); return; }
    if (r.old_value != k) { return; }
  }
}`,
  };
}

/** `found[i]` = 1 when edge src[i] -> dst[i] exists, with its value in `out_values[i]` (0 when absent). */
export function queryKernel(withValues: boolean): KernelDefinition {
  return {
    label: `dynamic edge queries${withValues ? ' (map)' : ''}`,
    bindings: QUERY_BINDINGS,
    params: QUERY_PARAMS,
    code: /* wgsl */ `
${tableWgsl(false, false)}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  if (i >= params.n) { return; }
  let v = src[i];
  let k = dst[i];
  var at = NOT_FOUND;
  if (is_alive(v) && k < TOMBSTONE) { at = find_key(v, k); }
  found[i] = select(0u, 1u, at != NOT_FOUND);
  ${withValues ? 'if (at != NOT_FOUND) { out_values[i] = values[at]; } else { out_values[i] = 0u; }' : ''}
}`,
  };
}
