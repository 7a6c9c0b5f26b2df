import {
  type ArrayCapture,
  atomic,
  type Functor,
  lit,
  load,
  rw,
  transform,
  WeftError,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import { advancePush, DisjointSets } from '@weft/operators';
import { arcWeightError } from './weights.ts';

export interface SpanningForestResult {
  /** Sum of the forest's edge weights (its edge count on an unweighted graph). */
  weight: number;
  /** CSR edge ids of the forest in increasing order; each undirected edge once, by its arc with source < target. */
  edges: Uint32Array;
  /** Number of trees: one per connected component, isolated vertices included. */
  trees: number;
  /** True when `graph` was directed and its arcs were read as undirected edges. */
  undirected: boolean;
}

/** A component's best weight and edge before any outgoing edge is seen; the refused arc while there is none. */
const NO_EDGE = 0xffffffff;

/**
 * `(edge: u32) -> u32`: the edge's weight as a u32 that orders like the weight. Non-negative f32 bits order
 * like u32; a negative or NaN weight (refused after the first round) is clamped so that keys stay ordered.
 */
function weightKey(graph: DeviceGraph): Functor {
  const w = graph.chunkedWeights;
  if (!w) return wgsl`(edge: u32) -> u32 { return 1u; }`;
  if (w.type === 'u32') return wgsl`(edge: u32) -> u32 { return ${load(w, 'edge')}; }`;
  if (w.type === 'i32') return wgsl`(edge: u32) -> u32 { return u32(max(${load(w, 'edge')}, 0)); }`;
  return wgsl`(edge: u32) -> u32 {
  var bits = bitcast<u32>(${load(w, 'edge')});
  if (bits == 0x80000000u) { bits = 0u; }
  return min(bits, 0x7f800000u);
}`;
}

/**
 * `(src: u32, dst: u32, edge: u32) -> bool` for every arc: folds into `status[1]` the least arc, self-loops
 * aside, whose weight is negative or NaN; undefined where no weight can be. Both arcs of an undirected edge are
 * checked, not only the candidate with source < target, since the two need not weigh the same (the builder with
 * `dedupe: 'none'` takes the weights a list gives (u, v) and (v, u) for the edge's two arcs).
 */
function weightCheck(graph: DeviceGraph, status: ArrayCapture): Functor | undefined {
  const w = graph.chunkedWeights;
  if (!w || w.type === 'u32') return undefined;
  const bad =
    w.type === 'i32'
      ? wgsl`(edge: u32) -> bool { return ${load(w, 'edge')} < 0i; }`
      : wgsl`(edge: u32) -> bool {
  let bits = bitcast<u32>(${load(w, 'edge')});
  return bits > 0x7f800000u && bits != 0x80000000u;
}`;
  return wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (src != dst && ${bad}(edge)) { atomicMin(&${status}[1], edge); }
  return false;
}`;
}

/**
 * Minimum spanning forest by Borůvka's rounds on a GPU union-find: each round every component takes its
 * lightest outgoing edge, ties broken by edge id so the forest is deterministic (the one Kruskal finds with
 * the same order), and the chosen edges are united; rounds stop when no component has an outgoing edge (about
 * log2 of the vertex count). Every arc's weight but a self-loop's must be non-negative and not NaN, both arcs
 * of an undirected edge included (the forest reads the one with source < target); a directed graph is read as
 * undirected.
 */
export async function minimumSpanningForest(graph: DeviceGraph): Promise<SpanningForestResult> {
  checkDeviceGraph(graph);
  const device = graph.device;
  const n = graph.vertexCount;
  const m = graph.edgeCount;
  const sets = new DisjointSets(device, n, { label: 'mst' });
  const comp = device.array('u32', Math.max(1, n), { label: 'mst component' });
  const bestWeight = device.array('u32', Math.max(1, n), { label: 'mst best weight' });
  const bestEdge = device.array('u32', Math.max(1, n), { label: 'mst best edge' });
  // The forest's edges as they are linked (at most n - 1), so only they come back to the host.
  const chosen = device.array('u32', Math.max(1, n), { label: 'mst chosen edges' });
  const w = graph.chunkedWeights;
  const chosenWeights = w ? device.array(w.type, Math.max(1, n), { label: 'mst chosen weights' }) : undefined;
  // Word 0: a round linked two trees; word 1: the first arc of a refused weight; word 2: edges chosen.
  const status = device.array('u32', 3, { label: 'mst status' });
  try {
    status.upload([0, NO_EDGE, 0]);
    await sets.recordReset(device);
    const st = atomic(status);
    const key = weightKey(graph);
    const check = weightCheck(graph, st);
    const c = rw(comp);
    const bw = atomic(bestWeight);
    const be = atomic(bestEdge);
    // Both arcs of an undirected edge are stored: consider the one with source < target.
    const keep = graph.directed
      ? wgsl`(src: u32, dst: u32) -> bool { return src != dst; }`
      : wgsl`(src: u32, dst: u32) -> bool { return src < dst; }`;
    // Components are fixed for the round's first two passes: every vertex points at its root.
    const start = wgsl`(v: u32) {
  let r = ${sets.find()}(v);
  atomicStore(&${atomic(sets.parents)}[v], r);
  ${c}[v] = r;
  atomicStore(&${bw}[v], ${lit(`${NO_EDGE}u`)});
  atomicStore(&${be}[v], ${lit(`${NO_EDGE}u`)});
  if (v == 0u) { atomicStore(&${st}[0], 0u); }
}`;
    const lightest = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (!${keep}(src, dst)) { return false; }
  let a = ${c}[src];
  let b = ${c}[dst];
  if (a == b) { return false; }
  let k = ${key}(edge);
  atomicMin(&${bw}[a], k);
  atomicMin(&${bw}[b], k);
  return false;
}`;
    const firstOfLightest = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (!${keep}(src, dst)) { return false; }
  let a = ${c}[src];
  let b = ${c}[dst];
  if (a == b) { return false; }
  let k = ${key}(edge);
  if (k == atomicLoad(&${bw}[a])) { atomicMin(&${be}[a], edge); }
  if (k == atomicLoad(&${bw}[b])) { atomicMin(&${be}[b], edge); }
  return false;
}`;
    const record =
      w && chosenWeights
        ? wgsl`(at: u32, edge: u32) {
  ${rw(chosen)}[at] = edge;
  ${rw(chosenWeights)}[at] = ${load(w, 'edge')};
}`
        : wgsl`(at: u32, edge: u32) { ${rw(chosen)}[at] = edge; }`;
    // Both ends' components may choose the same edge: the union links it once.
    const link = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (!${keep}(src, dst)) { return false; }
  let a = ${c}[src];
  let b = ${c}[dst];
  if (a == b) { return false; }
  if (atomicLoad(&${be}[a]) != edge && atomicLoad(&${be}[b]) != edge) { return false; }
  if (${sets.union()}(src, dst)) {
    ${record}(atomicAdd(&${st}[2], 1u), edge);
    atomicStore(&${st}[0], 1u);
  }
  return false;
}`;
    if (n > 0 && m > 0) {
      for (let round = 0; ; round++) {
        const rec = device.recorder({ label: 'mst round' });
        // In the first round's submit, so that checking costs no read-back of its own.
        if (round === 0 && check) await advancePush(rec, graph, 'all', check);
        await transform(rec, n, start);
        await advancePush(rec, graph, 'all', lightest);
        await advancePush(rec, graph, 'all', firstOfLightest);
        await advancePush(rec, graph, 'all', link);
        await rec.submit();
        const [linked, bad] = await status.download(0, 2);
        if (bad !== NO_EDGE) {
          throw await arcWeightError(graph, bad!, 'minimumSpanningForest', 'non-negative weights');
        }
        if (!linked) break;
      }
    }
    if (!(await sets.finished())) {
      throw new WeftError('union-find gave up on a link after too many failed compare-exchanges');
    }
    const count = (await status.download(2, 1))[0]!;
    const edges = count === 0 ? new Uint32Array(0) : (await chosen.download(0, count)).sort();
    let weight = edges.length;
    if (chosenWeights && count > 0) {
      weight = 0;
      for (const x of await chosenWeights.download(0, count)) weight += x;
    }
    return { weight, edges, trees: n - edges.length, undirected: graph.directed };
  } finally {
    sets.destroy();
    comp.destroy();
    bestWeight.destroy();
    bestEdge.destroy();
    chosen.destroy();
    chosenWeights?.destroy();
    status.destroy();
  }
}
