import { type Functor, onTarget, type Target } from '@weft/gpu';
import type { DynamicGraph } from './dynamic-graph.ts';
import { A_BUMP, KEY_SLOTS, SLAB_WORDS, tableWgsl, WORKGROUP } from './layout.ts';

/**
 * Calls `f(source: u32, target: u32, value: u32)` once for every edge of the graph, straight from the hash
 * tables (one thread per key slot, in no particular order); `value` holds the edge value's bits in the map
 * variant (`bitcast<f32>(value)` for f32) and 0 in the set variant. An operator over all edges without a
 * CSR snapshot: degree counts, push-style updates, edge filters. The graph must not change meanwhile.
 *
 * ```ts
 * await forEachEdge(device, graph, wgsl`(s: u32, t: u32, w: u32) { atomicAdd(&${atomic(inDegree)}[t], 1u); }`);
 * ```
 */
export async function forEachEdge(target: Target, graph: DynamicGraph, f: Functor): Promise<void> {
  const slots = graph.slabCapacity * KEY_SLOTS;
  const withValues = graph.valueType !== undefined;
  await onTarget(target, 'dynamic forEachEdge', async (rec) => {
    const kernel = await rec.device.kernel({
      label: 'dynamic for each edge',
      bindings: {
        slabs: { type: 'array<u32>', access: 'read' },
        values: { type: 'array<u32>', access: 'read' },
        vertices: { type: 'array<u32>', access: 'read' },
        alloc: { type: 'array<u32>', access: 'read' },
      },
      params: { n: 'u32', vertex_count: 'u32', slab_capacity: 'u32' },
      functors: { weft_edge: f },
      code: /* wgsl */ `
${tableWgsl(false, false)}
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
  @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  if (i >= params.n) { return; }
  let slab = i / KEY_SLOTS;
  if (slab >= alloc[${A_BUMP}u]) { return; }
  let at = slab * ${SLAB_WORDS}u + i % KEY_SLOTS;
  let key = slabs[at];
  let owner_word = slabs[slab * ${SLAB_WORDS}u + OWNER_WORD];
  if (key >= TOMBSTONE || owner_word == NO_OWNER) { return; }
  ${withValues ? 'let value = values[at];' : 'let value = 0u;'}
  weft_edge(owner_word & ~COLLISION, key, value);
}`,
    });
    rec.dispatch(kernel, {
      bindings: { slabs: graph.slabs, values: graph.values, vertices: graph.vertices, alloc: graph.alloc },
      params: { n: slots, ...graph.tableParams() },
      workgroups: Math.ceil(slots / WORKGROUP),
    });
  });
}
