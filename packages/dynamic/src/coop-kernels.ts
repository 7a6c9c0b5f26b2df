import type { KernelDefinition } from '@weft/gpu';
import {
  ALLOC_WGSL,
  BATCH_PARAMS,
  BATCH_WGSL,
  batchItemWgsl,
  DELETE_BINDINGS,
  INSERT_BINDINGS,
  type InsertionOrder,
  orderLabel,
  QUERY_BINDINGS,
  QUERY_PARAMS,
} from './edge-kernels.ts';
import {
  ENTRY_ARGS,
  ENTRY_HEAD,
  THREAD_INDEX,
  tableWgsl,
  V_BASE,
  V_BUCKETS,
  V_DEGREE,
  V_FLAGS,
} from './layout.ts';

/*
 * Subgroup-cooperative probing (Awad et al.'s warp-cooperative work sharing, WCWS): each lane holds one
 * operation, but the subgroup carries them out one at a time. Per round the lanes with work left vote, the
 * lowest one leads, its operation is shuffled to every lane, and the lanes read the slab's key words in
 * parallel (lane l covers words l, l + size, ...: 4 words a lane at size 8, one at 32; lanes past 32 read
 * nothing). A ballot finds the key or a free slot; the leader alone claims with a compare-exchange and
 * shuffles the outcome back. No subgroup size is assumed (ballots are vec4: up to 128 lanes).
 *
 * The control flow stays subgroup-uniform (no early returns; every lane runs every round and every probe of
 * the shared operation; whatever the lanes branch on comes from a ballot, a shuffle or a broadcast, never
 * from a lane's own read of a word that another subgroup may change), which WGSL's analysis cannot prove:
 * hence `@diagnostic(off, subgroup_uniformity)`.
 */

const NO_UNIFORMITY = '@diagnostic(off, subgroup_uniformity)';
const ENTRY = /* wgsl */ `${NO_UNIFORMITY}
${ENTRY_HEAD}`;
const COOP_ARGS = /* wgsl */ `${ENTRY_ARGS}, @builtin(subgroup_invocation_id) lane: u32,
  @builtin(subgroup_size) sg_size: u32`;

const COOP_WGSL = /* wgsl */ `
const NONE = 0xffffffffu;

fn none_set(m: vec4<u32>) -> bool { return all(m == vec4<u32>(0u)); }

// The first of this lane's key words of the slab at word 'base' that holds 'key', or NONE.
fn lane_slot_of(base: u32, lane: u32, sg_size: u32, key: u32) -> u32 {
  for (var w = lane; w < KEY_SLOTS; w += sg_size) {
    if (slab_word(base + w) == key) { return w; }
  }
  return NONE;
}

// The first of this lane's key words that is free (EMPTY or TOMBSTONE), or NONE.
fn lane_free_slot(base: u32, lane: u32, sg_size: u32) -> u32 {
  for (var w = lane; w < KEY_SLOTS; w += sg_size) {
    let x = slab_word(base + w);
    if (x == EMPTY || x == TOMBSTONE) { return w; }
  }
  return NONE;
}

// The slab's next pointer, read once for the whole subgroup: a slab linked by another subgroup between
// the lanes' own reads would otherwise split the lanes between two paths.
${NO_UNIFORMITY}
fn sg_next(base: u32) -> u32 {
  return subgroupBroadcastFirst(slab_word(base + NEXT_WORD));
}

// The slot that the lowest lane with one found, for every lane; NONE when no lane found one.
${NO_UNIFORMITY}
fn sg_first(slot: u32) -> u32 {
  let b = subgroupBallot(slot != NONE);
  if (none_set(b)) { return NONE; }
  return subgroupShuffle(slot, weft_trailing_zeros4(b));
}

// The lane of the (n mod count)-th set bit of a ballot that has some bit set.
fn nth_lane(m: vec4<u32>, n: u32) -> u32 {
  var left = n % (countOneBits(m.x) + countOneBits(m.y) + countOneBits(m.z) + countOneBits(m.w));
  for (var w = 0u; w < 4u; w++) {
    var word = m[w];
    let c = countOneBits(word);
    if (left < c) {
      for (var t = 0u; t < left; t++) { word &= word - 1u; }
      return w * 32u + weft_trailing_zeros(word);
    }
    left -= c;
  }
  return weft_trailing_zeros4(m);
}

// Like sg_first, but the (r mod count)-th lane with a slot: operations on one chain spread their claims
// over its free slots instead of all racing for the first one.
${NO_UNIFORMITY}
fn sg_spread(slot: u32, r: u32) -> u32 {
  let b = subgroupBallot(slot != NONE);
  if (none_set(b)) { return NONE; }
  return subgroupShuffle(slot, nth_lane(b, r));
}

// find_key by the whole subgroup (every lane passes the same v and k): word index of k, or NOT_FOUND.
${NO_UNIFORMITY}
fn sg_find_key(v: u32, k: u32, lane: u32, sg_size: u32) -> u32 {
  return sg_find_from(bucket_slab(v, k), k, lane, sg_size);
}

// The same from a bucket's first slab already known.
${NO_UNIFORMITY}
fn sg_find_from(first: u32, k: u32, lane: u32, sg_size: u32) -> u32 {
  var slab = first;
  for (var hop = 0u; hop < chain_bound(); hop++) {
    let base = slab * 32u;
    let s = sg_first(lane_slot_of(base, lane, sg_size, k));
    if (s != NONE) { return base + s; }
    slab = sg_next(base);
    if (slab == NULL_SLAB) { return NOT_FOUND; }
  }
  return NOT_FOUND;
}
`;

/**
 * The round loop: while any lane has an operation pending, the lowest such lane leads; `body` runs on every
 * lane with the leader's `v`, `k` and `j` (its batch item), then the leader's operation is done. At most
 * one round per lane, so the bound is the largest subgroup size.
 */
function rounds(body: string): string {
  return /* wgsl */ `
  for (var round = 0u; round < 128u; round++) {
    let work = subgroupBallot(pending);
    if (none_set(work)) { break; }
    let leader = weft_trailing_zeros4(work);
    let v = subgroupShuffle(my_v, leader);
    let k = subgroupShuffle(my_k, leader);
    let j = subgroupShuffle(my_j, leader);
    let leads = lane == leader;
    ${body}
    if (leads) { pending = false; }
  }`;
}

/** Edge queries, one subgroup per query at a time (same bindings and semantics as `queryKernel`). */
export function coopQueryKernel(withValues: boolean): KernelDefinition {
  return {
    label: `dynamic edge queries, subgroup-cooperative${withValues ? ' (map)' : ''}`,
    subgroups: true,
    bindings: QUERY_BINDINGS,
    params: QUERY_PARAMS,
    code: /* wgsl */ `
${tableWgsl(false, false)}
${COOP_WGSL}
${ENTRY}
fn main(${COOP_ARGS}) {
  ${THREAD_INDEX}
  var pending = i < params.n;
  var my_v = 0u;
  var my_k = 0u;
  let my_j = i;
  if (pending) { my_v = src[i]; my_k = dst[i]; }
  ${rounds(/* wgsl */ `
    var at = NOT_FOUND;
    if (is_alive(v) && k < TOMBSTONE) { at = sg_find_key(v, k, lane, sg_size); }
    if (leads) {
      found[j] = select(0u, 1u, at != NOT_FOUND);
      ${withValues ? 'out_values[j] = select(0u, values[at], at != NOT_FOUND);' : ''}
    }`)}
}`,
  };
}

/**
 * Edge deletion, one subgroup per edge at a time (same bindings and semantics as `deleteKernel`). With
 * `claims` = `'after-rounds'` (the default) each lane first loads its own source's record (flags, base,
 * bucket count: one round trip for all lanes, not one a round), the rounds only search, and every lane then
 * tombstones its own find at once: a round costs one dependent read of a slab instead of three (the
 * record, the slab, the leader's compare-exchange). Deleting only tombstones keys, so a found key stays
 * where it was until some lane's compare-exchange takes it (a repeat in the batch then finds it gone).
 * `'each-round'` is the earlier form, kept to time against.
 */
export function coopDeleteKernel(claims: 'after-rounds' | 'each-round' = 'after-rounds'): KernelDefinition {
  const tombstone = (v: string, k: string, at: string) => /* wgsl */ `
      for (var attempt = 0u; attempt < 1024u; attempt++) {
        let r = atomicCompareExchangeWeak(&slabs[${at}], ${k}, TOMBSTONE);
        if (r.exchanged) { atomicSub(&vertices[${v} * 4u + ${V_DEGREE}u], 1u); break; }
        if (r.old_value != ${k}) { break; }
      }`;
  const eachRound = /* wgsl */ `
  var pending = i < params.n && batch_valid(i);
  var my_v = 0u;
  var my_k = 0u;
  let my_j = i;
  if (pending) {
    my_v = batch_src(i);
    my_k = batch_dst(i);
    pending = is_alive(my_v);
  }
  ${rounds(/* wgsl */ `
    let at = sg_find_key(v, k, lane, sg_size);
    if (leads && at != NOT_FOUND) {${tombstone('v', 'k', 'at')}
    }`)}`;
  const afterRounds = /* wgsl */ `
  var pending = i < params.n && batch_valid(i);
  var my_v = 0u;
  var my_k = 0u;
  var my_slab = NULL_SLAB;
  if (pending) {
    my_v = batch_src(i);
    my_k = batch_dst(i);
    let flags = vertex_word(my_v, ${V_FLAGS}u);
    let base = vertex_word(my_v, ${V_BASE}u);
    let buckets = vertex_word(my_v, ${V_BUCKETS}u);
    pending = (flags & ALIVE) != 0u && buckets > 0u;
    if (pending) { my_slab = base + hash_key(my_k) % buckets; }
  }
  var my_at = NOT_FOUND;
  for (var round = 0u; round < 128u; round++) {
    let work = subgroupBallot(pending);
    if (none_set(work)) { break; }
    let leader = weft_trailing_zeros4(work);
    let k = subgroupShuffle(my_k, leader);
    let at = sg_find_from(subgroupShuffle(my_slab, leader), k, lane, sg_size);
    if (lane == leader) {
      my_at = at;
      pending = false;
    }
  }
  if (my_at != NOT_FOUND) {${tombstone('my_v', 'my_k', 'my_at')}
  }`;
  return {
    label: `dynamic delete edges, subgroup-cooperative${claims === 'each-round' ? ', claims each round' : ''}`,
    subgroups: true,
    bindings: DELETE_BINDINGS,
    params: BATCH_PARAMS,
    code: /* wgsl */ `
${tableWgsl(true, true)}
${BATCH_WGSL}
${COOP_WGSL}
${ENTRY}
fn main(${COOP_ARGS}) {
  ${THREAD_INDEX}${claims === 'each-round' ? eachRound : afterRounds}
}`,
  };
}

/**
 * Insertion of a de-duplicated batch taken in `order`, one subgroup per edge at a time (same bindings and
 * semantics as `insertKernel`).
 */
export function coopInsertKernel(withValues: boolean, order: InsertionOrder = 'by-source'): KernelDefinition {
  const setValue = withValues ? 'values[at] = vals[batch_edge(j)];' : '';
  return {
    label: `dynamic insert edges, subgroup-cooperative${withValues ? ' (map)' : ''}${orderLabel(order)}`,
    subgroups: true,
    bindings: INSERT_BINDINGS,
    params: BATCH_PARAMS,
    code: /* wgsl */ `
${tableWgsl(true, true)}
${BATCH_WGSL}
${batchItemWgsl(order)}
${ALLOC_WGSL}
${COOP_WGSL}

// Inserts k into v's table (every lane runs it with the same v, k, j; the leader writes). Pass 1 looks for
// k in the whole chain and remembers the first slab with a free slot; pass 2 claims a slot from there on,
// extending the chain when it is full. The batch holds k once, so a lost compare-exchange means another
// key took the slot: read the slab again.
${NO_UNIFORMITY}
fn insert_edge(v: u32, k: u32, j: u32, first: u32, lane: u32, sg_size: u32, leads: bool, leader: u32) {
  var slab = first;
  var claim_slab = NULL_SLAB;
  for (var hop = 0u; hop < chain_bound(); hop++) {
    let base = slab * 32u;
    let hit = sg_first(lane_slot_of(base, lane, sg_size, k));
    if (hit != NONE) {
      if (leads) { let at = base + hit; ${setValue} }
      return;
    }
    if (claim_slab == NULL_SLAB && sg_first(lane_free_slot(base, lane, sg_size)) != NONE) {
      claim_slab = slab;
    }
    let next = sg_next(base);
    if (next == NULL_SLAB) { break; }
    slab = next;
  }
  var s = select(claim_slab, slab, claim_slab == NULL_SLAB);
  var spare = NULL_SLAB;  // the leader's
  for (var step = 0u; step < chain_bound() * 64u; step++) {
    let base = s * 32u;
    let free = sg_spread(lane_free_slot(base, lane, sg_size), j);
    if (free != NONE) {
      var won = 0u;
      if (leads) {
        // The slot was free a moment ago: EMPTY first, TOMBSTONE if that is what it holds, no read before.
        let at = base + free;
        var expected = EMPTY;
        for (var t = 0u; t < 2u; t++) {
          let r = atomicCompareExchangeWeak(&slabs[at], expected, k);
          if (r.exchanged) {
            ${setValue}
            atomicAdd(&vertices[v * 4u + ${V_DEGREE}u], 1u);
            give_back(spare);
            won = 1u;
            break;
          }
          if (r.old_value != TOMBSTONE) { break; }
          expected = TOMBSTONE;
        }
      }
      if (subgroupShuffle(won, leader) == 1u) { return; }
      continue;
    }
    // Full: follow the chain, or link a new slab at its end (the leader allocates and links).
    var next = sg_next(base);
    if (next == NULL_SLAB) {
      var linked = NULL_SLAB;
      if (leads) {
        if (spare == NULL_SLAB) { spare = alloc_slab(); }
        if (spare != NULL_SLAB) {
          let r = atomicCompareExchangeWeak(&slabs[base + NEXT_WORD], NULL_SLAB, spare);
          if (r.exchanged) {
            atomicStore(&slabs[spare * 32u + OWNER_WORD], v | COLLISION);
            note_link(v);
            linked = spare;
            spare = NULL_SLAB;
          } else {
            // Spurious failure: NULL_SLAB again, retried; else the slab another subgroup linked.
            linked = r.old_value;
          }
        }
      }
      // All lanes learn whether the pool ran dry (give up: the overflow flag is set) and where to go.
      let out_of_slabs = subgroupShuffle(select(0u, 1u, leads && spare == NULL_SLAB && linked == NULL_SLAB), leader);
      if (out_of_slabs == 1u) { return; }
      next = subgroupShuffle(linked, leader);
      if (next == NULL_SLAB) { continue; }
    }
    s = next;
  }
  if (leads) { give_back(spare); }
}

${ENTRY}
fn main(${COOP_ARGS}) {
  ${THREAD_INDEX}
  var pending = false;
  var my_v = 0u;
  var my_k = 0u;
  var my_j = 0u;
  var my_slab = NULL_SLAB;
  if (i < params.n) {
    let item = batch_item(i);
    my_v = item.x;
    my_j = item.y;
    my_k = item.z;
    if (my_v < params.vertex_count) {
      // Each lane reads its own source's record and target's flags before the rounds, all lanes at once.
      let flags = vertex_word(my_v, ${V_FLAGS}u);
      let base = vertex_word(my_v, ${V_BASE}u);
      let buckets = vertex_word(my_v, ${V_BUCKETS}u);
      let target_alive = is_alive(my_k);
      pending = (flags & ALIVE) != 0u && target_alive && buckets > 0u;
      if (pending) { my_slab = base + hash_key(my_k) % buckets; }
    }
  }
  ${rounds('insert_edge(v, k, j, subgroupShuffle(my_slab, leader), lane, sg_size, leads, leader);')}
}`,
  };
}
