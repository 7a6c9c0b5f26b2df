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
      total: { type: 'array<atomic<u32>>', access: 'read_write' },
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

var<workgroup> partial: array<u32, ${WORKGROUP}>;

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  var count = 0u;
  if (i < params.n && i < alloc[${A_BUMP}u]) {
    let owner_word = slab_word(i * 32u + OWNER_WORD);
    if (owner_word != NO_OWNER) {
      let u = owner_word & ~COLLISION;
      for (var lane = 0u; lane < KEY_SLOTS; lane++) {
        let v = slab_word(i * 32u + lane);
        if (v < TOMBSTONE && u < v) { count += triangles_through(u, v); }
      }
    }
  }
  // The workgroup's sum, then one 64-bit add as two words: an add that wraps the low word carries once.
  partial[lid] = count;
  for (var stride = ${WORKGROUP / 2}u; stride > 0u; stride >>= 1u) {
    workgroupBarrier();
    if (lid < stride) { partial[lid] += partial[lid + stride]; }
  }
  if (lid == 0u && partial[0] != 0u) {
    let old = atomicAdd(&total[0], partial[0]);
    if (old + partial[0] < old) { atomicAdd(&total[1], 1u); }
  }
}`,
  };
}

/**
 * Triangles of an undirected dynamic graph, straight from the hash tables: one thread per slab; for each
 * edge (u, v) with u < v it walks the smaller of the two tables and counts the w > v that the other table
 * holds (a hash lookup). Workgroup sums go into a 64-bit total on the GPU (exact beyond 2^32; one slab's
 * count must stay below 2^32 and a workgroup's too), read back as two words.
 */
export async function dynamicTriangleCount(graph: DynamicGraph): Promise<number> {
  if (graph.directed)
    throw new InputError('triangle counting needs an undirected graph', 'dynamicTriangleCount');
  const d = graph.device;
  const kernel = await d.kernel(triangleKernel());
  const n = graph.slabCapacity;
  const total = d.array('u32', 2, { label: 'triangle count' });
  try {
    const rec = d.recorder({ label: 'dynamic triangle count' });
    rec.clear(total);
    rec.dispatch(kernel, {
      bindings: { slabs: graph.slabs, vertices: graph.vertices, alloc: graph.alloc, total },
      params: { n, ...graph.tableParams() },
      workgroups: Math.ceil(n / WORKGROUP),
    });
    await rec.submit();
    const [lo, hi] = await total.download();
    return hi! * 2 ** 32 + lo!;
  } finally {
    total.destroy();
  }
}
