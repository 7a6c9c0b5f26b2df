import type { KernelDefinition } from '@weft/gpu';
import {
  A_BUMP,
  ATOMIC,
  COLLISION,
  ENTRY_ARGS,
  ENTRY_HEAD,
  HASH_WGSL,
  KEY_SLOTS,
  NEXT_WORD,
  NULL_SLAB,
  OWNER_WORD,
  READ,
  V_BASE,
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

/*
 * The placement build of fresh tables from a CSR whose rows hold distinct keys (Awad et al.'s bulk build
 * without probing): every key's bucket is known, so a counting placement writes it straight to its slot.
 * One kernel per pass, each binding only what it reads and writes (a browser grants 10 storage buffers):
 * - `tile_starts`, a thread per tile of WORKGROUP arcs: the row of the tile's first arc. An arc of the later
 *   passes searches only between its tile's row and the next tile's (a whole-array search that every thread
 *   of a workgroup waited on would stall it for the search's latency).
 * - `count_keys`, a thread per arc: flags a row that is not strictly increasing, holds a loop or names no
 *   vertex (`status[S_BAD]`); else the key's bucket (its base slab) counts it, the count before it being its
 *   rank in the bucket. A table of one bucket (most vertices of a skewed graph) needs no atomics: the rank is
 *   the key's place in its row, and the row's first arc stores the count. Arc 0 keeps the bump pointer in
 *   `status[S_BUMP]`.
 * - between them an exclusive scan of each bucket's collision slabs, `(count - 1) / KEY_SLOTS`, into
 *   `first`, its total in `status[S_TOTAL]`.
 * - `place_keys`, a thread per arc (unless flagged or the pool is too small): rank r goes to slot
 *   r % KEY_SLOTS of the base slab (r < KEY_SLOTS) or of the bucket's collision slab r / KEY_SLOTS - 1; a
 *   row's first arc sets the degree.
 * - `link_chains`, a thread per base slab: chains the bucket's collision slabs (owner and next words); base
 *   slab 0's thread advances the bump pointer.
 * - `arc_sources` (the insertion fallback): each arc's row.
 * The tables must be fresh: slabs beyond the bump pointer all-EMPTY, degrees 0.
 */

const ARC_PARAMS = { m: 'u32', vertex_count: 'u32' } as const;

/** `row_of(e, lo, hi)`: the last v in [lo, hi) with offsets[v] <= e (the row holding arc e). */
const ROW_WGSL = /* wgsl */ `
fn row_of(e: u32, lo_in: u32, hi_in: u32) -> u32 {
  var lo = lo_in;
  var hi = hi_in;
  for (var step = 0u; step < 32u; step++) {
    if (hi - lo <= 1u) { break; }
    let mid = lo + (hi - lo) / 2u;
    if (offsets[mid] <= e) { lo = mid; } else { hi = mid; }
  }
  return lo;
}`;

/** Entry prologue of the passes over arcs: `e` and its row `v`. */
const ARC_ROW = /* wgsl */ `
  let tile = weft_workgroup_index(wid, nwg);
  let e = tile * ${WORKGROUP}u + lid;
  if (e >= params.m) { return; }
  let v = row_of(e, tile_rows[tile], tile_rows[tile + 1u] + 1u);`;

/** `bucket_of(v, k)`: the base slab of key k's bucket in v's table. */
const BUCKET_WGSL = /* wgsl */ `
${HASH_WGSL}
fn bucket_of(v: u32, k: u32) -> u32 {
  return vertices[v * 4u + ${V_BASE}u] + hash_key(k) % vertices[v * 4u + ${V_BUCKETS}u];
}`;

/** Placement runs only on rows of distinct keys and when every collision slab fits the pool. */
const PLACEABLE_WGSL = /* wgsl */ `
fn placeable() -> bool {
  return status[${S_BAD}u] == 0u && status[${S_BUMP}u] + status[${S_TOTAL}u] <= params.slab_capacity;
}`;

export function tileStartsKernel(): KernelDefinition {
  return {
    label: 'dynamic bulk build tile rows',
    bindings: { offsets: READ, tile_rows: WRITE },
    params: ARC_PARAMS,
    code: /* wgsl */ `
${ROW_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  let t = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  let tiles = (params.m + ${WORKGROUP - 1}u) / ${WORKGROUP}u;
  if (t > tiles) { return; }
  if (t == tiles) { tile_rows[t] = params.vertex_count - 1u; return; }
  tile_rows[t] = row_of(t * ${WORKGROUP}u, 0u, params.vertex_count);
}`,
  };
}

export function countKeysKernel(): KernelDefinition {
  return {
    label: 'dynamic bulk build count',
    bindings: {
      offsets: READ,
      targets: READ,
      vertices: READ,
      alloc: READ,
      tile_rows: READ,
      counts: ATOMIC,
      rank: WRITE,
      status: ATOMIC,
    },
    params: ARC_PARAMS,
    code: /* wgsl */ `
${ROW_WGSL}
${BUCKET_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${ARC_ROW}
  if (e == 0u) { atomicStore(&status[${S_BUMP}u], alloc[${A_BUMP}u]); }
  let k = targets[e];
  let start = offsets[v];
  if (k >= params.vertex_count || k == v || (e > start && targets[e - 1u] >= k)) {
    atomicStore(&status[${S_BAD}u], 1u);
    return;
  }
  let s = bucket_of(v, k);
  if (vertices[v * 4u + ${V_BUCKETS}u] == 1u) {
    if (e == start) { atomicStore(&counts[s], offsets[v + 1u] - start); }
  } else {
    rank[e] = atomicAdd(&counts[s], 1u);
  }
}`,
  };
}

export function placeKeysKernel(withValues: boolean): KernelDefinition {
  return {
    label: `dynamic bulk build place${withValues ? ' (map)' : ''}`,
    bindings: {
      slabs: WRITE,
      vertices: WRITE,
      offsets: READ,
      targets: READ,
      tile_rows: READ,
      rank: READ,
      first: READ,
      status: READ,
      ...(withValues ? { values: WRITE, weights: READ } : {}),
    },
    params: { ...ARC_PARAMS, slab_capacity: 'u32' },
    code: /* wgsl */ `
${ROW_WGSL}
${BUCKET_WGSL}
${PLACEABLE_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${ARC_ROW}
  if (!placeable()) { return; }
  let k = targets[e];
  let s = bucket_of(v, k);
  let start = offsets[v];
  var r = e - start;
  if (vertices[v * 4u + ${V_BUCKETS}u] != 1u) { r = rank[e]; }
  var slab = s;
  if (r >= ${KEY_SLOTS}u) { slab = status[${S_BUMP}u] + first[s] + r / ${KEY_SLOTS}u - 1u; }
  let at = slab * 32u + r % ${KEY_SLOTS}u;
  slabs[at] = k;
  ${withValues ? 'values[at] = weights[e];' : ''}
  if (e == start) { vertices[v * 4u + ${V_DEGREE}u] = offsets[v + 1u] - start; }
}`,
  };
}

export function linkChainsKernel(): KernelDefinition {
  return {
    label: 'dynamic bulk build link',
    bindings: { slabs: WRITE, alloc: WRITE, counts: READ, first: READ, status: READ },
    params: { buckets: 'u32', slab_capacity: 'u32' },
    code: /* wgsl */ `
${PLACEABLE_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  let s = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (s >= params.buckets || !placeable()) { return; }
  let bump = status[${S_BUMP}u];
  if (s == 0u) { alloc[${A_BUMP}u] = bump + status[${S_TOTAL}u]; }
  let extra = (max(counts[s], 1u) - 1u) / ${KEY_SLOTS}u;
  if (extra == 0u) { return; }
  let owner = slabs[s * 32u + ${OWNER_WORD}u] | ${COLLISION}u;
  let chain = bump + first[s];
  slabs[s * 32u + ${NEXT_WORD}u] = chain;
  for (var j = 0u; j < extra; j++) {
    let c = (chain + j) * 32u;
    slabs[c + ${OWNER_WORD}u] = owner;
    slabs[c + ${NEXT_WORD}u] = select(chain + j + 1u, ${NULL_SLAB}u, j + 1u == extra);
  }
}`,
  };
}

export function arcSourcesKernel(): KernelDefinition {
  return {
    label: 'dynamic bulk build sources',
    bindings: { offsets: READ, tile_rows: READ, out_src: WRITE },
    params: ARC_PARAMS,
    code: /* wgsl */ `
${ROW_WGSL}
${ENTRY_HEAD}
fn main(${ENTRY_ARGS}) {
  ${ARC_ROW}
  out_src[e] = v;
}`,
  };
}
