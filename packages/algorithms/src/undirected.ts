import { atomic, inline, load, rw, wgsl } from '@weft/gpu';
import { type DeviceGraph, deviceGraphFromEdgeList, uploadGraph } from '@weft/graph';
import { advancePush } from '@weft/operators';

/**
 * `graph` itself when it is undirected and simple (rows strictly increasing, no self-loops), else the
 * simple undirected graph of its arcs built on the GPU, which the caller destroys. One read-back.
 */
export async function simpleUndirectedGraph(graph: DeviceGraph): Promise<DeviceGraph> {
  const device = graph.device;
  const m = graph.edgeCount;
  if (m === 0) return graph;
  const { offsets, chunkedTargets } = graph;
  if (!graph.directed) {
    const bad = device.array('u32', 1, { label: 'simple graph check' });
    try {
      bad.upload([0]);
      const check = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (dst == src || (edge > ${offsets}[src] && ${load(chunkedTargets, 'edge - 1u')} >= dst)) { atomicStore(&${atomic(bad)}[0], 1u); }
  return false;
}`;
      await advancePush(device, graph, 'all', check);
      if ((await bad.download())[0] === 0) return graph;
    } finally {
      bad.destroy();
    }
  }
  const src = device.array('u32', m, { label: 'arc sources' });
  // The build reads one target column: targets in chunks are copied into one (edge-sized scratch).
  const dst = graph.chunked ? device.array('u32', m, { label: 'arc targets' }) : undefined;
  const copy = inline(dst ? wgsl`${rw(dst)}[edge] = d;` : wgsl``);
  try {
    await advancePush(
      device,
      graph,
      'all',
      wgsl`(s: u32, d: u32, edge: u32) -> bool {
  ${rw(src)}[edge] = s;
  ${copy}
  return false;
}`,
    );
    const built = await deviceGraphFromEdgeList(device, {
      src,
      dst: dst ?? graph.targets,
      vertexCount: graph.vertexCount,
      directed: false,
    });
    return built.graph;
  } finally {
    src.destroy();
    dst?.destroy();
  }
}

/**
 * `graph` itself when it is undirected, else the simple undirected graph of its arcs (each arc an edge, loops
 * dropped, parallel edges merged, weights left out) built on the GPU, which the caller destroys: how
 * the algorithms defined on undirected graphs read a directed one.
 */
export async function undirectedGraphOf(graph: DeviceGraph): Promise<DeviceGraph> {
  if (!graph.directed) return graph;
  if (graph.edgeCount === 0) {
    const n = graph.vertexCount;
    const empty = {
      vertexCount: n,
      edgeCount: 0,
      offsets: new Uint32Array(n + 1),
      targets: new Uint32Array(0),
    };
    return uploadGraph(graph.device, { ...empty, directed: false });
  }
  return simpleUndirectedGraph(graph);
}
