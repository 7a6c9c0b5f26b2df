import {
  atomic,
  type ChunkedArray,
  type DeviceArray,
  inline,
  load,
  rw,
  store,
  transform,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { sortPairs } from '@weft/sort';
import { edgeView } from './advance.ts';

/**
 * A graph's vertices renumbered by how often a gather over `direction`'s edges reads them, most read first,
 * with that view's neighbor column rewritten in the new numbers. An SpMV-style gather (PageRank's pull)
 * that reads `x[position]` from a vector stored in this order finds the hubs' values packed into a few
 * cache lines, where the graph's own numbering scatters them over the whole vector.
 */
export interface GatherOrder {
  /** The graph it renumbers. */
  readonly graph: DeviceGraph;
  /** The view it renumbers: `'in'` (a directed graph's CSC; an undirected graph's CSR) or `'out'`. */
  readonly direction: 'out' | 'in';
  /** `position[v]`: vertex `v`'s number in the order (ties keep the graph's order). */
  readonly position: DeviceArray<'u32'>;
  /** The view's neighbor column with each vertex `u` replaced by `position[u]` (chunked past one binding). */
  readonly column: ChunkedArray<'u32'>;
  destroy(): void;
}

/** The key a graph keeps a gather order under ({@link DeviceGraph.derived}): one for both views when undirected. */
function gatherOrderKey(graph: DeviceGraph, direction: 'out' | 'in'): string {
  return `gather order ${graph.directed ? direction : 'undirected'}`;
}

/**
 * The graph's {@link GatherOrder} for `direction`, built on the GPU on the first call (a radix sort of the
 * vertices by how often they are read, and one pass over the arcs) and kept with the graph: it holds a
 * second copy of the view's column, freed with the graph.
 */
export function gatherOrder(graph: DeviceGraph, direction: 'out' | 'in'): Promise<GatherOrder> {
  return graph.derived(gatherOrderKey(graph, direction), () => buildGatherOrder(graph, direction));
}

/** Whether the graph already keeps (or is building) a gather order for `direction`. */
export function hasGatherOrder(graph: DeviceGraph, direction: 'out' | 'in'): boolean {
  return graph.hasDerived(gatherOrderKey(graph, direction));
}

async function buildGatherOrder(graph: DeviceGraph, direction: 'out' | 'in'): Promise<GatherOrder> {
  const { device, vertexCount: n, edgeCount: m } = graph;
  const { column } = edgeView(graph, direction, 'gatherOrder');
  const count = Math.max(1, n);
  const reads = device.array('u32', count, { label: 'gather order reads' });
  const ids = device.array('u32', count, { label: 'gather order ids' });
  const position = device.array('u32', count, { label: 'gather order positions' });
  let renumbered: ChunkedArray<'u32'> | undefined;
  try {
    renumbered = device.chunkedArray('u32', Math.max(1, m), { label: 'gather order column' });
    const rec = device.recorder({ label: 'gather order' });
    // How often each vertex is gathered is its degree in the other view: out-degree for in-gathers.
    const other = !graph.directed || direction === 'in' ? graph.offsets : graph.csc?.inOffsets;
    if (other) {
      await transform(
        rec,
        n,
        wgsl`(v: u32) {
  ${rw(reads)}[v] = ${other}[v + 1u] - ${other}[v];
  ${rw(ids)}[v] = v;
}`,
      );
    } else {
      rec.clear(reads);
      await transform(rec, n, wgsl`(v: u32) { ${rw(ids)}[v] = v; }`);
      await transform(rec, m, wgsl`(e: u32) { atomicAdd(&${atomic(reads)}[${load(column, 'e')}], 1u); }`);
    }
    if (n > 1) await sortPairs(rec, reads, ids, { count: n, descending: true });
    await transform(rec, n, wgsl`(i: u32) { ${rw(position)}[${ids}[i]] = i; }`);
    const out = renumbered;
    await transform(
      rec,
      m,
      wgsl`(e: u32) { ${store(out, 'e', inline(wgsl`${position}[${load(column, 'e')}]`))}; }`,
    );
    await rec.submit();
  } catch (e) {
    position.destroy();
    renumbered?.destroy();
    throw e;
  } finally {
    reads.destroy();
    ids.destroy();
  }
  const kept = renumbered;
  return {
    graph,
    direction,
    position,
    column: kept,
    destroy() {
      position.destroy();
      kept.destroy();
    },
  };
}
