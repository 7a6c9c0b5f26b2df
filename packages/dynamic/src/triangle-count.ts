import { InputError, type KernelDefinition } from '@weft/gpu';
import type { DynamicGraph } from './dynamic-graph.ts';
import { A_BUMP, tableWgsl, V_BASE, V_BUCKETS, V_DEGREE, WORKGROUP } from './layout.ts';

function triangleKernel(): KernelDefinition {
  return {
    label: 'dynamic triangle count',
    bindings: {
      slabs: { type: 'array<u32>', access: 'read' },
      vertices: { type: 'array<u32>', access: 'read' },
      alloc: { type: 'array<u32>', access: 'read' },
      counts: { type: 'array<u32>', access: 'read_write' },
    },
    params: { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
    code: /* wgsl */ `
${tableWgsl(false, false)}

// Triangles u < v < w through edge (u, v): walk the smaller table of the two and look w up in the other's.
fn triangles_through(u: u32, v: u32) -> u32 {
  var x = u;
  var other = v;
  if (vertex_word(v, ${V_DEGREE}u) < vertex_word(u, ${V_DEGREE}u)) { x = v; other = u; }
  var count = 0u;
  let base = vertex_word(x, ${V_BASE}u);
  let buckets = vertex_word(x, ${V_BUCKETS}u);
  for (var b = 0u; b < buckets; b++) {
    var slab = base + b;
    for (var hop = 0u; hop < chain_bound() && slab != NULL_SLAB; hop++) {
      for (var lane = 0u; lane < KEY_SLOTS; lane++) {
        let w = slab_word(slab * 32u + lane);
        if (w < TOMBSTONE && w > v && find_key(other, w) != NOT_FOUND) { count++; }
      }
      slab = slab_word(slab * 32u + NEXT_WORD);
    }
  }
  return count;
}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (i >= params.n) { return; }
  var count = 0u;
  if (i < alloc[${A_BUMP}u]) {
    let owner_word = slab_word(i * 32u + OWNER_WORD);
    if (owner_word != NO_OWNER) {
      let u = owner_word & ~COLLISION;
      for (var lane = 0u; lane < KEY_SLOTS; lane++) {
        let v = slab_word(i * 32u + lane);
        if (v < TOMBSTONE && u < v) { count += triangles_through(u, v); }
      }
    }
  }
  counts[i] = count;
}`,
  };
}

/**
 * Triangles of an undirected dynamic graph, straight from the hash tables: one thread per slab; for each
 * edge (u, v) with u < v it walks the smaller of the two tables and counts the w > v that the other table
 * holds (a hash lookup). Per-slab counts are summed on the host, so the total is exact beyond 2^32.
 */
export async function triangleCount(graph: DynamicGraph): Promise<number> {
  if (graph.directed) throw new InputError('triangle counting needs an undirected graph', 'triangleCount');
  const d = graph.device;
  const kernel = await d.kernel(triangleKernel());
  const n = graph.slabCapacity;
  const counts = d.array('u32', n, { label: 'triangle counts per slab' });
  try {
    const rec = d.recorder({ label: 'dynamic triangle count' });
    rec.dispatch(kernel, {
      bindings: { slabs: graph.slabs, vertices: graph.vertices, alloc: graph.alloc, counts },
      params: { n, ...graph.tableParams() },
      workgroups: Math.ceil(n / WORKGROUP),
    });
    await rec.submit();
    const host = await counts.download();
    let total = 0;
    for (const c of host) total += c;
    return total;
  } finally {
    counts.destroy();
  }
}
