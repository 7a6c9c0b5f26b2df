import type { KernelDefinition } from '@weft/gpu';
import { A_BUMP, A_FREE, tableWgsl, V_BASE, V_BUCKETS, V_DEGREE, V_FLAGS, WORKGROUP } from './layout.ts';

/**
 * Shared by both deletion paths: `set_vertex`, and `untie(k, v)`, which removes key v from the table of k
 * when k is a live vertex (a vertex of the batch is DELETING, and its own table is cleared instead).
 */
const VERTEX_WGSL = /* wgsl */ `
fn set_vertex(v: u32, f: u32, x: u32) { atomicStore(&vertices[v * 4u + f], x); }

fn untie(k: u32, v: u32) {
  if (k >= params.vertex_count || !is_alive(k)) { return; }
  let at = find_key(k, v);
  if (at == NOT_FOUND) { return; }
  for (var attempt = 0u; attempt < 1024u; attempt++) {
    let r = atomicCompareExchangeWeak(&slabs[at], v, TOMBSTONE);
    if (r.exchanged) { atomicSub(&vertices[k * 4u + ${V_DEGREE}u], 1u); return; }
    if (r.old_value != v) { return; }
  }
}`;

/** The tables and the allocator, which every vertex kernel writes. */
const TABLE_BINDINGS = {
  slabs: { type: 'array<atomic<u32>>', access: 'read_write' },
  free_list: { type: 'array<u32>', access: 'read_write' },
  alloc: { type: 'array<atomic<u32>>', access: 'read_write' },
  vertices: { type: 'array<atomic<u32>>', access: 'read_write' },
} as const;

/** An entry point of one thread `i` per item, `params[count]` items. */
function threadEntry(name: string, count: 'n' | 'batch', body: string): string {
  return /* wgsl */ `
@compute @workgroup_size(${WORKGROUP})
fn ${name}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (i >= params.${count}) { return; }
${body}
}`;
}

export type VertexEntry = 'insert_vertices' | 'mark' | 'sweep' | 'unlink' | 'clear' | 'finish';

/**
 * Vertex operations. `ids` (and `buckets`) list distinct vertices, checked on the host.
 * - `insert_vertices`: a vertex with `buckets[i] > 0` gets that many contiguous base slabs from the bump
 *   pointer (pre-filled EMPTY); `buckets[i] == 0` keeps the base slabs it already has. Either way it is ALIVE.
 * - `mark`: flags the vertices to delete.
 * - `sweep` (one thread per slab): a slab of a vertex being deleted is reset to EMPTY, and a collision slab
 *   goes onto the free list; in every other slab, keys naming a deleted vertex become TOMBSTONE. That removes
 *   in-edges too, in directed and undirected graphs alike, at the cost of reading every slab once.
 * - `unlink` (undirected graphs): one thread per word of the deleted vertices' base slabs, all of the batch's
 *   slabs laid end to end (`buckets` holds the exclusive scan of their bucket counts, `params.batch + 1`
 *   entries; a thread finds its vertex by binary search), so a hub spreads over as many threads as its table
 *   has words. A key lane's thread handles that lane in the base slab and in each slab of its collision
 *   chain: each key k names a neighbour whose table holds the reverse key; that key becomes TOMBSTONE (found
 *   by k's hash probe) and k's degree drops. Neighbours being deleted too are skipped: their tables are
 *   cleared whole. The work is the deleted vertices' adjacency, not the pool (Awad et al.'s vertex deletion).
 * - `clear` (after `unlink`, same grid): the base slabs are reset to EMPTY, a bucket's next word's thread
 *   puts its collision slabs onto the free list, and the thread of a vertex's first word finishes it.
 * - `finish`: degree 0, flags cleared.
 */
export function vertexKernel(only: VertexEntry): KernelDefinition {
  const entry = (name: string, body: string) => threadEntry(name, 'n', body);
  // One thread per word i of the batch's base slabs: g, v, s (the slab), j (v's slab index), lane.
  const perWord = (name: string, body: string) =>
    entry(
      name,
      /* wgsl */ `
  let t = i / 32u;
  var g = 0u;
  var hi = params.batch;
  while (g + 1u < hi) {
    let mid = (g + hi) / 2u;
    if (buckets[mid] <= t) { g = mid; } else { hi = mid; }
  }
  let v = ids[g];
  let j = t - buckets[g];
  let s = vertex_word(v, ${V_BASE}u) + j;
  let lane = i % 32u;
${body}`,
    );
  return {
    label: `dynamic vertex ${only}`,
    bindings: {
      ...TABLE_BINDINGS,
      ids: { type: 'array<u32>', access: 'read' },
      buckets: { type: 'array<u32>', access: 'read' },
    },
    params: { n: 'u32', batch: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
    entryPoints: [only],
    code: /* wgsl */ `
${tableWgsl(true, true)}
${VERTEX_WGSL}

${entry(
  'insert_vertices',
  /* wgsl */ `
  let v = ids[i];
  let count = buckets[i];
  if (count > 0u) {
    let base = atomicAdd(&alloc[${A_BUMP}u], count);
    set_vertex(v, ${V_BASE}u, base);
    set_vertex(v, ${V_BUCKETS}u, count);
    for (var b = 0u; b < count; b++) { atomicStore(&slabs[(base + b) * 32u + OWNER_WORD], v); }
  }
  set_vertex(v, ${V_DEGREE}u, 0u);
  set_vertex(v, ${V_FLAGS}u, ALIVE);`,
)}

${entry('mark', `  set_vertex(ids[i], ${V_FLAGS}u, DELETING);`)}

${entry(
  'sweep',
  /* wgsl */ `
  if (i >= atomicLoad(&alloc[${A_BUMP}u])) { return; }
  let base = i * 32u;
  let owner_word = atomicLoad(&slabs[base + OWNER_WORD]);
  if (owner_word == NO_OWNER) { return; }
  let owner = owner_word & ~COLLISION;
  if ((vertex_word(owner, ${V_FLAGS}u) & DELETING) != 0u) {
    for (var w = 0u; w < 32u; w++) {
      if (w != OWNER_WORD) { atomicStore(&slabs[base + w], EMPTY); }
    }
    if ((owner_word & COLLISION) != 0u) {
      atomicStore(&slabs[base + OWNER_WORD], NO_OWNER);
      // No slab is popped in this phase, so the count is exact and a plain push is safe.
      let k = atomicAdd(&alloc[${A_FREE}u], 1u);
      free_list[k] = i;
    }
    return;
  }
  for (var lane = 0u; lane < KEY_SLOTS; lane++) {
    let k = atomicLoad(&slabs[base + lane]);
    if (k < params.vertex_count && (vertex_word(k, ${V_FLAGS}u) & DELETING) != 0u) {
      atomicStore(&slabs[base + lane], TOMBSTONE);
      atomicSub(&vertices[owner * 4u + ${V_DEGREE}u], 1u);
    }
  }`,
)}

${perWord(
  'unlink',
  /* wgsl */ `
  if (lane >= KEY_SLOTS) { return; }
  var c = s;
  for (var hop = 0u; hop <= chain_bound() && c != NULL_SLAB; hop++) {
    untie(slab_word(c * 32u + lane), v);
    c = slab_word(c * 32u + NEXT_WORD);
  }`,
)}

${perWord(
  'clear',
  /* wgsl */ `
  if (lane < KEY_SLOTS) { atomicStore(&slabs[s * 32u + lane], EMPTY); }
  if (lane == NEXT_WORD) {
    var c = slab_word(s * 32u + NEXT_WORD);
    for (var hop = 0u; hop < chain_bound() && c != NULL_SLAB; hop++) {
      let next = slab_word(c * 32u + NEXT_WORD);
      for (var l = 0u; l < 32u; l++) {
        if (l != OWNER_WORD) { atomicStore(&slabs[c * 32u + l], EMPTY); }
      }
      atomicStore(&slabs[c * 32u + OWNER_WORD], NO_OWNER);
      let f = atomicAdd(&alloc[${A_FREE}u], 1u);
      free_list[f] = c;
      c = next;
    }
    atomicStore(&slabs[s * 32u + NEXT_WORD], NULL_SLAB);
  }
  if (j == 0u && lane == 0u) {
    set_vertex(v, ${V_DEGREE}u, 0u);
    set_vertex(v, ${V_FLAGS}u, 0u);
  }`,
)}

${entry(
  'finish',
  /* wgsl */ `
  let v = ids[i];
  set_vertex(v, ${V_DEGREE}u, 0u);
  set_vertex(v, ${V_FLAGS}u, 0u);`,
)}
`,
  };
}

export type VertexBatchEntry = 'claim' | 'locate' | 'apply' | 'finish';

/** Of one thread per word of the claimed vertices' base slabs: its slab `s`, vertex `v`, its slab index `j`
 * in v's table and word `w` (`live` false past `status[0]` slabs). */
const PER_WORD_HEAD = /* wgsl */ `
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  let t = i / 32u;
  let w = i % 32u;
  let live = t < status[0];
  var v = 0u;
  var j = 0u;
  var s = NULL_SLAB;
  if (live) {
    var g = 0u;
    var hi = params.batch;
    while (g + 1u < hi) {
      let mid = (g + hi) / 2u;
      if (starts[mid] <= t) { g = mid; } else { hi = mid; }
    }
    v = ids[g];
    j = t - starts[g];
    s = vertex_word(v, ${V_BASE}u) + j;
  }`;

/**
 * Vertex deletion with the batch prepared on the GPU: `ids` may hold repeats, dead vertices and ids out of
 * range, and no host copy of the bucket counts is needed, so a batch costs no read-back.
 * - `claim` (one thread per id): an ALIVE vertex turns DELETING by compare-exchange, so of repeated ids one
 *   thread wins; `counts[i]` gets the winner's base bucket count, 0 for every other id. A scan of `counts`
 *   into `starts` (its total in `status[0]`) then lays the claimed vertices' base slabs end to end.
 * - `locate` (undirected graphs; one thread per word of those slabs, `status[0] * 32` of them, a slab's 32
 *   threads in one workgroup) binds the tables as plain words: a key lane's thread walks its lane through
 *   the bucket's chain, finds each key's reverse key in the live neighbour's table (a probed slab loaded
 *   whole) and overwrites its own word with that key's position, or EMPTY (no key, a tombstone, a neighbour
 *   deleted too). It writes only the claimed vertices' words, whose tables no thread probes (they are not
 *   ALIVE), so plain loads are safe; atomic ones made the probe about twice as slow.
 * - `apply` (same grid): each position's key becomes TOMBSTONE by compare-exchange and its table's owner
 *   (the owner word of the position's slab) loses a degree; the word becomes EMPTY. After a barrier (the
 *   chain's next words are then read by no one else) the next word's thread frees the collision slabs,
 *   resetting their owner and next words, and the thread of a vertex's first word finishes it.
 * - `finish` (directed graphs, after `sweep`; one thread per id): claimed vertices get degree 0, flags 0.
 */
export function vertexBatchKernel(entry: VertexBatchEntry): KernelDefinition {
  const perId = (name: string, body: string) => threadEntry(name, 'batch', body);
  const params = { batch: 'u32', vertex_count: 'u32', slab_capacity: 'u32' } as const;
  const lists = {
    ids: { type: 'array<u32>', access: 'read' },
    starts: { type: 'array<u32>', access: 'read' },
    status: { type: 'array<u32>', access: 'read' },
  } as const;
  const args = /* wgsl */ `@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32`;
  if (entry === 'locate') {
    return {
      label: 'dynamic vertex batch locate',
      bindings: {
        slabs: { type: 'array<u32>', access: 'read_write' },
        vertices: { type: 'array<u32>', access: 'read' },
        ...lists,
      },
      params,
      entryPoints: ['locate'],
      code: /* wgsl */ `
${tableWgsl(false, false)}

@compute @workgroup_size(${WORKGROUP})
fn locate(${args}) {
${PER_WORD_HEAD}
  if (!live || w >= KEY_SLOTS) { return; }
  var c = s;
  for (var hop = 0u; hop <= chain_bound() && c != NULL_SLAB; hop++) {
    let base = c * 32u;
    let k = slabs[base + w];
    let next = slabs[base + NEXT_WORD];
    var position = EMPTY;
    if (is_alive(k)) {
      let at = find_key(k, v);
      if (at != NOT_FOUND) { position = at; }
    }
    slabs[base + w] = position;
    c = next;
  }
}`,
    };
  }
  return {
    label: `dynamic vertex batch ${entry}`,
    bindings: {
      ...TABLE_BINDINGS,
      ...lists,
      ...(entry === 'claim' ? { counts: { type: 'array<u32>', access: 'read_write' } } : {}),
    },
    params,
    entryPoints: [entry],
    code: /* wgsl */ `
${tableWgsl(true, true)}
${VERTEX_WGSL}

${
  entry === 'claim'
    ? perId(
        'claim',
        /* wgsl */ `
  let v = ids[i];
  var count = 0u;
  if (v < params.vertex_count) {
    for (var attempt = 0u; attempt < 1024u; attempt++) {
      let r = atomicCompareExchangeWeak(&vertices[v * 4u + ${V_FLAGS}u], ALIVE, DELETING);
      if (r.exchanged) { count = vertex_word(v, ${V_BUCKETS}u); break; }
      if (r.old_value != ALIVE) { break; }
    }
  }
  counts[i] = count;`,
      )
    : ''
}

${
  entry === 'apply'
    ? /* wgsl */ `
@compute @workgroup_size(${WORKGROUP})
fn apply(${args}) {
${PER_WORD_HEAD}
  if (live && w < KEY_SLOTS) {
    var c = s;
    for (var hop = 0u; hop <= chain_bound() && c != NULL_SLAB; hop++) {
      let base = c * 32u;
      let at = slab_word(base + w);
      let next = slab_word(base + NEXT_WORD);
      if (at != EMPTY) {
        let k = slab_word((at / 32u) * 32u + OWNER_WORD) & ~COLLISION;
        for (var attempt = 0u; attempt < 1024u; attempt++) {
          let r = atomicCompareExchangeWeak(&slabs[at], v, TOMBSTONE);
          if (r.exchanged) { atomicSub(&vertices[k * 4u + ${V_DEGREE}u], 1u); break; }
          if (r.old_value != v) { break; }
        }
        atomicStore(&slabs[base + w], EMPTY);
      }
      c = next;
    }
  }
  workgroupBarrier();
  if (live && w == NEXT_WORD) {
    var c = slab_word(s * 32u + NEXT_WORD);
    for (var hop = 0u; hop < chain_bound() && c != NULL_SLAB; hop++) {
      let next = slab_word(c * 32u + NEXT_WORD);
      atomicStore(&slabs[c * 32u + NEXT_WORD], NULL_SLAB);
      atomicStore(&slabs[c * 32u + OWNER_WORD], NO_OWNER);
      let f = atomicAdd(&alloc[${A_FREE}u], 1u);
      free_list[f] = c;
      c = next;
    }
    atomicStore(&slabs[s * 32u + NEXT_WORD], NULL_SLAB);
  }
  if (live && j == 0u && w == 0u) {
    set_vertex(v, ${V_DEGREE}u, 0u);
    set_vertex(v, ${V_FLAGS}u, 0u);
  }
}`
    : ''
}

${
  entry === 'finish'
    ? perId(
        'finish',
        /* wgsl */ `
  let v = ids[i];
  if (v < params.vertex_count && vertex_word(v, ${V_FLAGS}u) == DELETING) {
    set_vertex(v, ${V_DEGREE}u, 0u);
    set_vertex(v, ${V_FLAGS}u, 0u);
  }`,
      )
    : ''
}
`,
  };
}
