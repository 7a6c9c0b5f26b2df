import type { KernelDefinition } from '@weft/gpu';
import {
  A_BUMP,
  ATOMIC,
  ENTRY_ARGS,
  ENTRY_HEAD,
  READ,
  tableWgsl,
  V_BUCKETS,
  V_DEGREE,
  WORKGROUP,
  WRITE,
} from './layout.ts';

/** Words of the placement build's `status` array. */
export const S_BAD = 0;
export const S_TOTAL = 1;
export const S_BUMP = 2;
export const STATUS_WORDS = 4;

/**
 * The placement build of fresh tables from a CSR whose rows hold distinct keys (Awad et al.'s bulk build
 * without probing): every key's bucket is known, so a counting placement writes it straight to its slot.
 * One thread per arc in `count_keys` and `place_keys`, one per base slab in `link_chains`; `arc_sources` writes each
 * arc's row for the insertion path. An arc finds its row by a binary search between the rows of its tile's
 * first arc and the next tile's, which `tile_starts` finds first, a thread per tile (a search all threads of
 * a workgroup waited on would stall it for the whole search's latency).
 * - `count_keys`: flags a row that is not strictly increasing, holds a loop or names no vertex (`status[S_BAD]`);
 *   else the key's bucket (its base slab) counts it, the count before it being its rank in the bucket. A
 *   table of one bucket (most vertices of a skewed graph) needs no atomics: the rank is the key's place in
 *   its row, and the row's first arc stores the count.
 *   Thread 0 keeps the bump pointer in `status[S_BUMP]`.
 * - between them an exclusive scan of each bucket's collision slabs, `(count - 1) / KEY_SLOTS`, into
 *   `first`, its total in `status[S_TOTAL]`.
 * - `place_keys` (unless flagged or the pool is too small): rank r goes to slot r % KEY_SLOTS of the base slab
 *   (r < KEY_SLOTS) or of collision slab r / KEY_SLOTS - 1 of the bucket; a row's first arc sets the degree.
 * - `link_chains`: chains each bucket's collision slabs (owner and next words) and advances the bump pointer.
 * The tables must be fresh: collision slabs beyond the bump pointer all-EMPTY, degrees 0.
 */
export function placeKernel(withValues: boolean): KernelDefinition {
  const row = /* wgsl */ `
  let tile = weft_workgroup_index(wid, nwg);
  let e = tile * ${WORKGROUP}u + lid;
  if (e >= params.m) { return; }
  let v = row_of(e, tile_rows[tile], tile_rows[tile + 1u] + 1u);`;
  return {
    label: `dynamic placement build${withValues ? ' (map)' : ''}`,
    bindings: {
      slabs: WRITE,
      values: WRITE,
      vertices: WRITE,
      alloc: WRITE,
      offsets: READ,
      targets: READ,
      weights: READ,
      counts: ATOMIC,
      rank: WRITE,
      first: READ,
      status: ATOMIC,
      out_src: WRITE,
      tile_rows: WRITE,
    },
    params: { m: 'u32', buckets: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
    entryPoints: ['tile_starts', 'count_keys', 'place_keys', 'link_chains', 'arc_sources'],
    code: /* wgsl */ `
${tableWgsl(false, false)}

// The row holding arc e: the last v in [lo, hi) with offsets[v] <= e (empty rows before it share its offset).
fn row_of(e: u32, lo_in: u32, hi_in: u32) -> u32 {
  var lo = lo_in;
  var hi = hi_in;
  for (var step = 0u; step < 32u; step++) {
    if (hi - lo <= 1u) { break; }
    let mid = lo + (hi - lo) / 2u;
    if (offsets[mid] <= e) { lo = mid; } else { hi = mid; }
  }
  return lo;
}

// Placement runs only on rows of distinct keys and when every collision slab fits the pool.
fn placeable() -> bool {
  return atomicLoad(&status[${S_BAD}u]) == 0u
    && atomicLoad(&status[${S_BUMP}u]) + atomicLoad(&status[${S_TOTAL}u]) <= params.slab_capacity;
}

${ENTRY_HEAD}
fn tile_starts(${ENTRY_ARGS}) {
  let t = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  let tiles = (params.m + ${WORKGROUP - 1}u) / ${WORKGROUP}u;
  if (t > tiles) { return; }
  if (t == tiles) { tile_rows[t] = params.vertex_count - 1u; return; }
  tile_rows[t] = row_of(t * ${WORKGROUP}u, 0u, params.vertex_count);
}

${ENTRY_HEAD}
fn count_keys(${ENTRY_ARGS}) {
  ${row}
  if (e == 0u) { atomicStore(&status[${S_BUMP}u], alloc[${A_BUMP}u]); }
  let k = targets[e];
  let start = offsets[v];
  if (k >= params.vertex_count || k == v || (e > start && targets[e - 1u] >= k)) {
    atomicStore(&status[${S_BAD}u], 1u);
    return;
  }
  let s = bucket_slab(v, k);
  if (vertex_word(v, ${V_BUCKETS}u) == 1u) {
    if (e == start) { atomicStore(&counts[s], offsets[v + 1u] - start); }
  } else {
    rank[e] = atomicAdd(&counts[s], 1u);
  }
}

${ENTRY_HEAD}
fn place_keys(${ENTRY_ARGS}) {
  ${row}
  if (!placeable()) { return; }
  let k = targets[e];
  let s = bucket_slab(v, k);
  let start = offsets[v];
  var r = e - start;
  if (vertex_word(v, ${V_BUCKETS}u) != 1u) { r = rank[e]; }
  var slab = s;
  if (r >= KEY_SLOTS) { slab = atomicLoad(&status[${S_BUMP}u]) + first[s] + r / KEY_SLOTS - 1u; }
  let at = slab * 32u + r % KEY_SLOTS;
  slabs[at] = k;
  ${withValues ? 'values[at] = weights[e];' : ''}
  if (e == start) { vertices[v * 4u + ${V_DEGREE}u] = offsets[v + 1u] - start; }
}

${ENTRY_HEAD}
fn link_chains(${ENTRY_ARGS}) {
  let s = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (s >= params.buckets || !placeable()) { return; }
  let bump = atomicLoad(&status[${S_BUMP}u]);
  if (s == 0u) { alloc[${A_BUMP}u] = bump + atomicLoad(&status[${S_TOTAL}u]); }
  let extra = (max(atomicLoad(&counts[s]), 1u) - 1u) / KEY_SLOTS;
  if (extra == 0u) { return; }
  let owner = slabs[s * 32u + OWNER_WORD] | COLLISION;
  let chain = bump + first[s];
  slabs[s * 32u + NEXT_WORD] = chain;
  for (var j = 0u; j < extra; j++) {
    let c = (chain + j) * 32u;
    slabs[c + OWNER_WORD] = owner;
    slabs[c + NEXT_WORD] = select(chain + j + 1u, NULL_SLAB, j + 1u == extra);
  }
}

${ENTRY_HEAD}
fn arc_sources(${ENTRY_ARGS}) {
  ${row}
  out_src[e] = v;
}`,
  };
}
