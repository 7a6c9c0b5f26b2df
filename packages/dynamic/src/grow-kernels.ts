import type { KernelDefinition } from '@weft/gpu';
import {
  A_BASE_GROWTH,
  A_BUMP,
  A_FREE,
  A_GROWTH_DENIED,
  ATOMIC,
  ENTRY_ARGS,
  ENTRY_HEAD,
  READ,
  THREAD_INDEX,
  tableWgsl,
  V_BASE,
  V_BUCKETS,
  V_DEGREE,
  WORKGROUP,
  WRITE,
} from './layout.ts';

/** Words of a grown table's record: vertex, old base, old buckets, new base, new buckets, spare slabs. */
export const GROWN_WORDS = 6;
/** New buckets placed per pass of a table's relocation (the counts and cursors live in workgroup memory). */
const CHUNK = 1024;
/** Tables of at most this many new buckets are relocated by a tile of TILE_WIDTH threads. */
const SMALL = 128;
const TILE_WIDTH = 32;

/**
 * Grows, before an insertion batch goes in, every table that the batch would lengthen past `grow_above`
 * keys a base bucket, so that recorded batches keep chains short without reading anything back. Three
 * entry points, dispatched in this order:
 * - `plan` (one thread per item of the batch sorted by source; `keys` are the sorted sources): the first
 *   item of a source counts its run, and a live vertex whose degree plus run exceeds the bound gets
 *   `ceil((degree + run) / keys_per_bucket)` contiguous base slabs from the bump pointer, followed by
 *   `degree / KEY_SLOTS` slabs, the most collision slabs its keys can need in the new table. A workgroup
 *   asks for one block for all its growing vertices with one atomic add (a compare-exchange loop on the
 *   bump pointer serialized thousands of workgroups) and gets it only if the block ends by `grow_limit`
 *   (what the batch's own insertions may need stays free); otherwise its tables keep their size and
 *   `A_GROWTH_DENIED` is set. Granted buckets beyond the old ones are added to `A_BASE_GROWTH`. The vertex
 *   record points at the new base at once (its degree stays); `grown` lists old and new tables, those of
 *   at most SMALL new buckets from 0, larger ones from `list_capacity`.
 * - `relocate_small` first moves the bump pointer past the blocks granted. Then a tile of TILE_WIDTH
 *   threads a small table counts the old keys per new bucket, lays each bucket's collision slabs out from
 *   the block's spare slabs, writes every key (and value) at its counted position and links the chains: no
 *   compare-exchange and no allocation, so relocating cannot fail. The old slabs are then emptied and
 *   pushed onto the free list with the block's unused spare slabs (the previous fix-up left the free count
 *   settled, and nothing pops during this pass).
 * - `relocate`: the same for large tables, a workgroup each, in passes of CHUNK new buckets.
 */
export function growTablesKernel(
  withValues: boolean,
  entry: 'plan' | 'relocate' | 'relocate_small',
): KernelDefinition {
  const moveValue = withValues ? 'values[at] = values[source];' : '';
  return {
    label: `dynamic grow tables: ${entry}${withValues ? ' (map)' : ''}`,
    bindings: {
      slabs: ATOMIC,
      values: WRITE,
      free_list: WRITE,
      alloc: ATOMIC,
      vertices: ATOMIC,
      keys: READ,
      grown: WRITE,
      grown_count: ATOMIC,
    },
    params: {
      n: 'u32',
      vertex_count: 'u32',
      slab_capacity: 'u32',
      grow_limit: 'u32',
      list_capacity: 'u32',
      grow_above: 'f32',
      keys_per_bucket: 'f32',
    },
    entryPoints: [entry],
    code: /* wgsl */ `
${tableWgsl(true, true)}
const NONE = 0xffffffffu;
// Words of grown_count: small tables listed, base slabs asked for, the end of the blocks granted, large
// tables listed.
const G_LISTED = 0u;
const G_REQUESTED = 1u;
const G_TAKEN = 2u;
const G_LARGE = 3u;
// Tables of at most SMALL new buckets are moved by a tile of threads each; larger ones by a workgroup each,
// from index list_capacity of the list on.
const SMALL = ${SMALL}u;
const TILE_WIDTH = ${TILE_WIDTH}u;
const TILES = ${WORKGROUP / TILE_WIDTH}u;
const CHUNK = ${CHUNK}u;
const ENTRY = ${GROWN_WORDS}u;

var<workgroup> wg_blocks: atomic<u32>;
var<workgroup> wg_buckets: atomic<u32>;
var<workgroup> wg_small: atomic<u32>;
var<workgroup> wg_large: atomic<u32>;
var<workgroup> wg_base: u32;
var<workgroup> wg_slot: vec2<u32>;

${ENTRY_HEAD}
fn plan(${ENTRY_ARGS}) {
  ${THREAD_INDEX}
  // Workgroup memory may start with an earlier dispatch's words (devices without its zero-initialization).
  if (lid == 0u) {
    atomicStore(&wg_blocks, 0u);
    atomicStore(&wg_buckets, 0u);
    atomicStore(&wg_small, 0u);
    atomicStore(&wg_large, 0u);
  }
  workgroupBarrier();
  var v = NONE;
  var fit = 0u;
  var spare = 0u;
  var old_buckets = 0u;
  if (i < params.n) {
    let s = keys[i];
    if (s < params.vertex_count && (i == 0u || keys[i - 1u] != s) && is_alive(s)) {
      // The run of s ends at the first later item with another key (the keys are sorted).
      var lo = i + 1u;
      var hi = params.n;
      while (lo < hi) {
        let mid = lo + (hi - lo) / 2u;
        if (keys[mid] == s) { lo = mid + 1u; } else { hi = mid; }
      }
      old_buckets = vertex_word(s, ${V_BUCKETS}u);
      let degree = vertex_word(s, ${V_DEGREE}u);
      let wanted = f32(degree) + f32(lo - i);
      if (old_buckets > 0u && wanted > f32(old_buckets) * params.grow_above) {
        v = s;
        fit = u32(ceil(wanted / params.keys_per_bucket));
        spare = degree / KEY_SLOTS;
      }
    }
  }
  var offset = 0u;
  var slot = 0u;
  let small = fit <= SMALL;
  if (v != NONE) {
    offset = atomicAdd(&wg_blocks, fit + spare);
    atomicAdd(&wg_buckets, fit - old_buckets);
    // Not a select(): it would run both atomics.
    if (small) { slot = atomicAdd(&wg_small, 1u); } else { slot = atomicAdd(&wg_large, 1u); }
  }
  workgroupBarrier();
  if (lid == 0u) {
    wg_base = NONE;
    let smalls = atomicLoad(&wg_small);
    let larges = atomicLoad(&wg_large);
    if (smalls + larges > 0u) {
      let first = vec2<u32>(
        atomicAdd(&grown_count[G_LISTED], smalls),
        atomicAdd(&grown_count[G_LARGE], larges),
      );
      wg_slot = first;
      if (first.x + smalls <= params.list_capacity && first.y + larges <= params.list_capacity) {
        // Blocks are laid end to end from the bump pointer, which nothing moves during this pass; those
        // ending within the room succeed, a prefix of the offsets, so the pointer later moves past them all.
        let total = atomicLoad(&wg_blocks);
        let offset = atomicAdd(&grown_count[G_REQUESTED], total);
        let bump = atomicLoad(&alloc[${A_BUMP}u]);
        let room = select(0u, params.grow_limit - bump, bump < params.grow_limit);
        if (total <= room && offset <= room - total) {
          wg_base = bump + offset;
          atomicMax(&grown_count[G_TAKEN], offset + total);
          atomicAdd(&alloc[${A_BASE_GROWTH}u], atomicLoad(&wg_buckets));
        }
      }
    }
  }
  workgroupBarrier();
  let index = select(wg_slot.y, wg_slot.x, small) + slot;
  if (v == NONE || index >= params.list_capacity) { return; }
  let e = (select(params.list_capacity, 0u, small) + index) * ENTRY;
  if (wg_base == NONE) {
    grown[e] = NONE;
    atomicStore(&alloc[${A_GROWTH_DENIED}u], 1u);
    return;
  }
  let base = wg_base + offset;
  grown[e] = v;
  grown[e + 1u] = vertex_word(v, ${V_BASE}u);
  grown[e + 2u] = old_buckets;
  grown[e + 3u] = base;
  grown[e + 4u] = fit;
  grown[e + 5u] = spare;
  atomicStore(&vertices[v * 4u + ${V_BASE}u], base);
  atomicStore(&vertices[v * 4u + ${V_BUCKETS}u], fit);
}

var<workgroup> wg_entry: array<u32, ENTRY>;
var<workgroup> wg_count: array<atomic<u32>, CHUNK>;
var<workgroup> wg_first: array<u32, CHUNK>;
var<workgroup> wg_used: u32;
var<workgroup> wg_listed: u32;
var<workgroup> wg_released: atomic<u32>;
var<workgroup> wg_free_at: u32;
var<workgroup> wg_spare_at: u32;

// The new bucket of key k, relative to the chunk starting at c0 (CHUNK or more: another chunk's).
fn chunk_bucket(k: u32, buckets: u32, c0: u32) -> u32 { return hash_key(k) % buckets - c0; }

${ENTRY_HEAD}
fn relocate(${ENTRY_ARGS}) {
  if (lid == 0u) { wg_listed = min(atomicLoad(&grown_count[G_LARGE]), params.list_capacity); }
  let listed = workgroupUniformLoad(&wg_listed);
  let stride = nwg.x * nwg.y;
  for (var g = weft_workgroup_index(wid, nwg); g < listed; g += stride) {
    if (lid < ENTRY) { wg_entry[lid] = grown[(params.list_capacity + g) * ENTRY + lid]; }
    if (lid == 0u) {
      wg_used = 0u;
      atomicStore(&wg_released, 0u);
    }
    let v = workgroupUniformLoad(&wg_entry[0]);
    if (v == NONE) { continue; }
    let buckets = workgroupUniformLoad(&wg_entry[4]);
    let old_base = wg_entry[1];
    let old_buckets = wg_entry[2];
    let base = wg_entry[3];
    let spare = wg_entry[5];
    let spare_first = base + buckets;
    for (var c0 = 0u; c0 < buckets; c0 += CHUNK) {
      for (var b = lid; b < CHUNK; b += ${WORKGROUP}u) { atomicStore(&wg_count[b], 0u); }
      workgroupBarrier();
      for (var s = lid; s < old_buckets; s += ${WORKGROUP}u) {
        var slab = old_base + s;
        for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
          let w = load_slab(slab * 32u);
          for (var lane = 0u; lane < KEY_SLOTS; lane++) {
            if (w[lane] < TOMBSTONE) {
              let b = chunk_bucket(w[lane], buckets, c0);
              if (b < CHUNK) { atomicAdd(&wg_count[b], 1u); }
            }
          }
          slab = w[NEXT_WORD];
        }
      }
      workgroupBarrier();
      // Each bucket's collision slabs, laid end to end after the earlier chunks'; the counts become cursors.
      if (lid == 0u) {
        var used = wg_used;
        for (var b = 0u; b < min(CHUNK, buckets - c0); b++) {
          let count = atomicLoad(&wg_count[b]);
          wg_first[b] = used;
          if (count > 0u) { used += (count - 1u) / KEY_SLOTS; }
          atomicStore(&wg_count[b], 0u);
        }
        wg_used = used;
      }
      workgroupBarrier();
      for (var s = lid; s < old_buckets; s += ${WORKGROUP}u) {
        var slab = old_base + s;
        for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
          let w = load_slab(slab * 32u);
          for (var lane = 0u; lane < KEY_SLOTS; lane++) {
            let k = w[lane];
            if (k < TOMBSTONE) {
              let b = chunk_bucket(k, buckets, c0);
              if (b < CHUNK) {
                let p = atomicAdd(&wg_count[b], 1u);
                let q = p / KEY_SLOTS;
                let to = select(base + c0 + b, spare_first + wg_first[b] + q - 1u, q > 0u);
                let at = to * 32u + p % KEY_SLOTS;
                let source = slab * 32u + lane;
                atomicStore(&slabs[at], k);
                ${moveValue}
              }
            }
          }
          slab = w[NEXT_WORD];
        }
      }
      workgroupBarrier();
      // Owner words and links: a thread a bucket of the chunk.
      for (var b = lid; b < min(CHUNK, buckets - c0); b += ${WORKGROUP}u) {
        let count = atomicLoad(&wg_count[b]);
        var prev = base + c0 + b;
        atomicStore(&slabs[prev * 32u + OWNER_WORD], v);
        for (var q = 1u; q * KEY_SLOTS < count; q++) {
          let next = spare_first + wg_first[b] + q - 1u;
          atomicStore(&slabs[next * 32u + OWNER_WORD], v | COLLISION);
          atomicStore(&slabs[prev * 32u + NEXT_WORD], next);
          prev = next;
        }
      }
      workgroupBarrier();
    }
    // The old table's slabs (emptied) and the spare slabs no bucket needed (never written) go straight onto
    // the free list: nothing pops it during this pass, and the batch's insertions can take them. A workgroup
    // counts its slabs first and takes their free-list positions with one atomic.
    var mine = 0u;
    for (var s = lid; s < old_buckets; s += ${WORKGROUP}u) {
      var slab = old_base + s;
      for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
        mine++;
        slab = atomicLoad(&slabs[slab * 32u + NEXT_WORD]);
      }
    }
    var at = atomicAdd(&wg_released, mine);
    workgroupBarrier();
    if (lid == 0u) {
      let released = atomicLoad(&wg_released);
      wg_free_at = atomicAdd(&alloc[${A_FREE}u], released + spare - wg_used);
      wg_spare_at = wg_free_at + released;
    }
    workgroupBarrier();
    at += wg_free_at;
    for (var s = lid; s < old_buckets; s += ${WORKGROUP}u) {
      var slab = old_base + s;
      for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
        let next = atomicLoad(&slabs[slab * 32u + NEXT_WORD]);
        for (var word = 0u; word < 32u; word++) { atomicStore(&slabs[slab * 32u + word], EMPTY); }
        free_list[at] = slab;
        at++;
        slab = next;
      }
    }
    for (var q = wg_used + lid; q < spare; q += ${WORKGROUP}u) {
      free_list[wg_spare_at + q - wg_used] = spare_first + q;
    }
    workgroupBarrier();
  }
}
var<workgroup> tile_entry: array<array<u32, ENTRY>, TILES>;
var<workgroup> tile_count: array<array<atomic<u32>, SMALL>, TILES>;
var<workgroup> tile_first: array<array<u32, SMALL>, TILES>;
var<workgroup> tile_used: array<u32, TILES>;
var<workgroup> tile_released: array<atomic<u32>, TILES>;
var<workgroup> tile_free_at: array<u32, TILES>;
var<workgroup> wg_small_listed: u32;

// Small tables, a tile of TILE_WIDTH threads each (TILES tables a workgroup at a time), in the same steps as
// relocate: count, lay out, place, link, release.
${ENTRY_HEAD}
fn relocate_small(${ENTRY_ARGS}) {
  let t = lid / TILE_WIDTH;
  let lane = lid % TILE_WIDTH;
  let group = weft_workgroup_index(wid, nwg);
  if (group == 0u && lid == 0u) { atomicAdd(&alloc[${A_BUMP}u], atomicLoad(&grown_count[G_TAKEN])); }
  if (lid == 0u) { wg_small_listed = min(atomicLoad(&grown_count[G_LISTED]), params.list_capacity); }
  let listed = workgroupUniformLoad(&wg_small_listed);
  let per_round = nwg.x * nwg.y * TILES;
  for (var round = 0u; round * per_round < listed; round++) {
    let g = round * per_round + group * TILES + t;
    if (lane < ENTRY) { tile_entry[t][lane] = select(NONE, grown[g * ENTRY + lane], g < listed); }
    for (var b = lane; b < SMALL; b += TILE_WIDTH) { atomicStore(&tile_count[t][b], 0u); }
    if (lane == 0u) {
      tile_used[t] = 0u;
      atomicStore(&tile_released[t], 0u);
    }
    workgroupBarrier();
    let v = tile_entry[t][0];
    let old_base = tile_entry[t][1];
    let old_buckets = select(0u, tile_entry[t][2], v != NONE);
    let base = tile_entry[t][3];
    let buckets = tile_entry[t][4];
    let spare = tile_entry[t][5];
    let spare_first = base + buckets;
    for (var s = lane; s < old_buckets; s += TILE_WIDTH) {
      var slab = old_base + s;
      for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
        let w = load_slab(slab * 32u);
        for (var k = 0u; k < KEY_SLOTS; k++) {
          if (w[k] < TOMBSTONE) { atomicAdd(&tile_count[t][hash_key(w[k]) % buckets], 1u); }
        }
        slab = w[NEXT_WORD];
      }
    }
    workgroupBarrier();
    if (lane == 0u && v != NONE) {
      var used = 0u;
      for (var b = 0u; b < buckets; b++) {
        let count = atomicLoad(&tile_count[t][b]);
        tile_first[t][b] = used;
        if (count > 0u) { used += (count - 1u) / KEY_SLOTS; }
        atomicStore(&tile_count[t][b], 0u);
      }
      tile_used[t] = used;
    }
    workgroupBarrier();
    for (var s = lane; s < old_buckets; s += TILE_WIDTH) {
      var slab = old_base + s;
      for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
        let w = load_slab(slab * 32u);
        for (var k = 0u; k < KEY_SLOTS; k++) {
          let key = w[k];
          if (key < TOMBSTONE) {
            let b = hash_key(key) % buckets;
            let p = atomicAdd(&tile_count[t][b], 1u);
            let q = p / KEY_SLOTS;
            let to = select(base + b, spare_first + tile_first[t][b] + q - 1u, q > 0u);
            let at = to * 32u + p % KEY_SLOTS;
            let source = slab * 32u + k;
            atomicStore(&slabs[at], key);
            ${moveValue}
          }
        }
        slab = w[NEXT_WORD];
      }
    }
    workgroupBarrier();
    var mine = 0u;
    if (v != NONE) {
      for (var b = lane; b < buckets; b += TILE_WIDTH) {
        let count = atomicLoad(&tile_count[t][b]);
        var prev = base + b;
        atomicStore(&slabs[prev * 32u + OWNER_WORD], v);
        for (var q = 1u; q * KEY_SLOTS < count; q++) {
          let next = spare_first + tile_first[t][b] + q - 1u;
          atomicStore(&slabs[next * 32u + OWNER_WORD], v | COLLISION);
          atomicStore(&slabs[prev * 32u + NEXT_WORD], next);
          prev = next;
        }
      }
      for (var s = lane; s < old_buckets; s += TILE_WIDTH) {
        var slab = old_base + s;
        for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
          mine++;
          slab = atomicLoad(&slabs[slab * 32u + NEXT_WORD]);
        }
      }
    }
    var at = atomicAdd(&tile_released[t], mine);
    workgroupBarrier();
    if (lane == 0u && v != NONE) {
      let released = atomicLoad(&tile_released[t]);
      tile_free_at[t] = atomicAdd(&alloc[${A_FREE}u], released + spare - tile_used[t]);
    }
    workgroupBarrier();
    if (v != NONE) {
      let free_at = tile_free_at[t];
      at += free_at;
      for (var s = lane; s < old_buckets; s += TILE_WIDTH) {
        var slab = old_base + s;
        for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
          let next = atomicLoad(&slabs[slab * 32u + NEXT_WORD]);
          for (var word = 0u; word < 32u; word++) { atomicStore(&slabs[slab * 32u + word], EMPTY); }
          free_list[at] = slab;
          at++;
          slab = next;
        }
      }
      let spare_at = free_at + atomicLoad(&tile_released[t]);
      for (var q = tile_used[t] + lane; q < spare; q += TILE_WIDTH) {
        free_list[spare_at + q - tile_used[t]] = spare_first + q;
      }
    }
    workgroupBarrier();
  }
}`,
  };
}
