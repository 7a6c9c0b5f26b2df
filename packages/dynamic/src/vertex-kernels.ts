import type { KernelDefinition } from '@weft/gpu';
import { A_BUMP, A_FREE, tableWgsl, V_BASE, V_BUCKETS, V_DEGREE, V_FLAGS, WORKGROUP } from './layout.ts';

/** Threads of the workgroup that `unlink` and `clear` give each deleted vertex. */
const VERTEX_WORKGROUP = 64;

/**
 * Vertex operations. `ids` (and `buckets`) list distinct vertices, checked on the host.
 * - `insert_vertices`: a vertex with `buckets[i] > 0` gets that many contiguous base slabs from the bump
 *   pointer (pre-filled EMPTY); `buckets[i] == 0` keeps the base slabs it already has. Either way it is ALIVE.
 * - `mark`: flags the vertices to delete.
 * - `sweep` (one thread per slab): a slab of a vertex being deleted is reset to EMPTY, and a collision slab
 *   goes onto the free list; in every other slab, keys naming a deleted vertex become TOMBSTONE. That removes
 *   in-edges too, in directed and undirected graphs alike, at the cost of reading every slab once.
 * - `unlink` (undirected graphs; one workgroup per deleted vertex, its threads over the words of its base
 *   slabs, the thread of a bucket's next word walking the bucket's collision chain): each key k of the vertex
 *   names a neighbour whose table holds the reverse key; that key becomes TOMBSTONE (found by k's hash probe)
 *   and k's degree drops. Neighbours being deleted too are skipped: their tables are cleared whole. The work
 *   is the deleted vertices' adjacency, not the pool (Awad et al.'s vertex deletion).
 * - `clear` (after `unlink`, same grid): the vertex's base slabs are reset to EMPTY and its collision slabs
 *   go onto the free list.
 * - `finish`: degree 0, flags cleared.
 */
export function vertexKernel(): KernelDefinition {
  const entry = (name: string, body: string) => /* wgsl */ `
@compute @workgroup_size(${WORKGROUP})
fn ${name}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (i >= params.n) { return; }
${body}
}`;
  // One workgroup per vertex ids[g]: threads stride over the words of its base slabs; a key word runs
  // \`key\` (with s, lane), a bucket's next word walks the collision chain, running \`chain\` on each slab c
  // (its next read first), then \`after\` (with s).
  const perVertex = (name: string, key: string, chain: string, after = '') => /* wgsl */ `
@compute @workgroup_size(${VERTEX_WORKGROUP})
fn ${name}(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let g = weft_workgroup_index(wid, nwg);
  if (g >= params.n) { return; }
  let v = ids[g];
  let base = vertex_word(v, ${V_BASE}u);
  let words = vertex_word(v, ${V_BUCKETS}u) * 32u;
  for (var w = lid; w < words; w += ${VERTEX_WORKGROUP}u) {
    let s = base + w / 32u;
    let lane = w % 32u;
    if (lane < KEY_SLOTS) {
${key}
      continue;
    }
    if (lane != NEXT_WORD) { continue; }
    var c = slab_word(s * 32u + NEXT_WORD);
    for (var hop = 0u; hop < chain_bound() && c != NULL_SLAB; hop++) {
      let next = slab_word(c * 32u + NEXT_WORD);
${chain}
      c = next;
    }
${after}
  }
}`;
  return {
    label: 'dynamic vertex operations',
    bindings: {
      slabs: { type: 'array<atomic<u32>>', access: 'read_write' },
      free_list: { type: 'array<u32>', access: 'read_write' },
      alloc: { type: 'array<atomic<u32>>', access: 'read_write' },
      vertices: { type: 'array<atomic<u32>>', access: 'read_write' },
      ids: { type: 'array<u32>', access: 'read' },
      buckets: { type: 'array<u32>', access: 'read' },
    },
    params: { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
    entryPoints: ['insert_vertices', 'mark', 'sweep', 'unlink', 'clear', 'finish'],
    code: /* wgsl */ `
${tableWgsl(true, true)}
fn set_vertex(v: u32, f: u32, x: u32) { atomicStore(&vertices[v * 4u + f], x); }
fn untie(k: u32, v: u32) {
  let at = find_key(k, v);
  if (at == NOT_FOUND) { return; }
  for (var attempt = 0u; attempt < 1024u; attempt++) {
    let r = atomicCompareExchangeWeak(&slabs[at], v, TOMBSTONE);
    if (r.exchanged) { atomicSub(&vertices[k * 4u + ${V_DEGREE}u], 1u); return; }
    if (r.old_value != v) { return; }
  }
}

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

${perVertex(
  'unlink',
  /* wgsl */ `
    let k = slab_word(s * 32u + lane);
    if (k < params.vertex_count && is_alive(k)) { untie(k, v); }`,
  /* wgsl */ `
      for (var l = 0u; l < KEY_SLOTS; l++) {
        let k = slab_word(c * 32u + l);
        if (k < params.vertex_count && is_alive(k)) { untie(k, v); }
      }`,
)}

${perVertex(
  'clear',
  /* wgsl */ `
    atomicStore(&slabs[s * 32u + lane], EMPTY);`,
  /* wgsl */ `
      for (var l = 0u; l < 32u; l++) {
        if (l != OWNER_WORD) { atomicStore(&slabs[c * 32u + l], EMPTY); }
      }
      atomicStore(&slabs[c * 32u + OWNER_WORD], NO_OWNER);
      let f = atomicAdd(&alloc[${A_FREE}u], 1u);
      free_list[f] = c;`,
  /* wgsl */ `
    atomicStore(&slabs[s * 32u + NEXT_WORD], NULL_SLAB);`,
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
