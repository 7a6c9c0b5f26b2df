import { compactFused } from '@weft/compact';
import {
  checkOptionsObject,
  type DeviceArray,
  type ElementType,
  type Functor,
  functorBindingCount,
  InputError,
  load,
  type Monoid,
  onTarget,
  plus,
  type Recorder,
  rw,
  type Target,
  transform,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph, FrontierSink, FrontierView } from '@weft/graph';
import { transformScan } from '@weft/scan';
import { segmentedReduce, transformSegreduce } from '@weft/segreduce';
import { type AdvanceWorkspace, edgeIdFunctor, edgeView, scanParts, vertexOfFunctor } from './advance.ts';
import type { GatherOrder } from './gather-order.ts';
import { foldFunctor, isNeighborGraph, type NeighborGraph } from './neighbors.ts';
import { preparePartsFor } from './part-layout.ts';

/** Storage buffers a segreduce tile binds beside its functor's: starts, partitions, output, carries, two counts. */
const SEGREDUCE_TILE_BINDINGS = 6;

export interface NeighborhoodReduceOptions<T extends ElementType> {
  /** Default `plus` of the output's type. */
  monoid?: Monoid<T>;
  /** Reduce over out-neighbors (default) or in-neighbors (CSC; an undirected graph's CSR). */
  direction?: 'out' | 'in';
  workspace?: AdvanceWorkspace;
  /**
   * Output as a new frontier too: the input's vertices `v` (in input order) whose reduced value passes
   * `keep(v: u32, value: T) -> bool` (pure) are compacted into `output` (its count set on the GPU).
   */
  frontier?: { keep: Functor; output: FrontierSink };
  /**
   * `f` reads only its neighbor and edge, not the vertex whose neighborhood it reduces (which it is then
   * given as 0). Over all vertices of a `DeviceGraph`, each edge's value is then loaded before the tile
   * knows the edge's vertex, overlapping the merge-path search: SpMV's gathers (PageRank's pull). Default
   * false.
   */
  ignoresVertex?: boolean;
  /**
   * With `ignoresVertex` over all vertices: `f` is given each neighbor's number in this order (from
   * {@link gatherOrder} for the same direction) instead of its id, so it reads a vector stored in that order.
   */
  gatherOrder?: GatherOrder;
}

/**
 * Neighborhood reduction (Mini-Gunrock): `output[i]` = the monoid's combination of
 * `f(src: u32, dst: u32, edge: u32) -> T` over the neighbors `dst` of the input's `i`-th vertex `src` (of
 * vertex `i` for `'all'`), `edge` the CSR edge id (for `'in'`, of the edge dst -> src); a vertex without
 * neighbors gets the identity. Segmented reduction, balanced for any degrees.
 *
 * `graph` may also be a {@link NeighborGraph} (out-edges only, `edge` what the graph says): each of the
 * graph's parts of an input vertex's list is folded by one thread and a segmented reduction combines the
 * parts (one thread per input vertex folds its whole list where the graph offers no parts).
 */
export async function neighborhoodReduce<T extends ElementType>(
  target: Target,
  graph: DeviceGraph | NeighborGraph,
  input: FrontierView | 'all',
  f: Functor,
  output: DeviceArray<T>,
  options: NeighborhoodReduceOptions<T> = {},
): Promise<void> {
  checkOptionsObject('neighborhoodReduce', options);
  if (isNeighborGraph(graph)) return reduceNeighbors(target, graph, input, f, output, options);
  const { offsets, column, edgeIds } = edgeView(graph, options.direction ?? 'out', 'neighborhoodReduce');
  // Over all vertices the segments are the offsets themselves, so an item's index is its edge position:
  // no offsets binding and no load of it per edge.
  const byIndex = input === 'all' && options.ignoresVertex === true;
  const order = options.gatherOrder;
  if (order) checkGatherOrder(graph, order, byIndex, options.direction ?? 'out');
  const item = byIndex
    ? wgsl`(index: u32) -> ${output.type} {
  return ${f}(0u, ${load(order?.column ?? column, 'index')}, ${edgeIdFunctor(edgeIds)}(index));
}`
    : input === 'all'
      ? wgsl`(index: u32, seg: u32, rank: u32) -> ${output.type} {
  return ${f}(seg, ${load(column, 'index')}, ${edgeIdFunctor(edgeIds)}(index));
}`
      : wgsl`(index: u32, seg: u32, rank: u32) -> ${output.type} {
  let v = ${vertexOfFunctor(input)}(seg);
  let k = ${offsets}[v] + rank;
  return ${f}(v, ${load(column, 'k')}, ${edgeIdFunctor(edgeIds)}(k));
}`;
  const monoid = options.monoid ? { monoid: options.monoid } : {};
  const maxCount = Math.max(1, graph.edgeCount);
  const select = options.frontier;
  const emit = (rec: Recorder) => emitKept(rec, graph, input, output, select);
  // Where the tile's bindings and the functor's exceed the device's storage buffers (browsers grant 8 or
  // 10), a thread per input vertex folds its neighbors instead: slower on hubs, but it runs.
  const limit = graph.device.limits.maxStorageBuffersPerShaderStage;
  const perVertex = SEGREDUCE_TILE_BINDINGS + functorBindingCount(item) > limit;
  await onTarget(target, 'neighborhoodReduce', async (rec) => {
    if (perVertex) {
      const m = options.monoid ?? plus(output.type);
      const fold = wgsl`(i: u32) {
  let v = ${vertexOfFunctor(input)}(i);
  var acc = ${m.identity};
  let end = ${offsets}[v + 1u];
  for (var k = ${offsets}[v]; k < end; k++) {
    acc = ${m.combine}(acc, ${f}(v, ${load(order?.column ?? column, 'k')}, ${edgeIdFunctor(edgeIds)}(k)));
  }
  ${rw(output)}[i] = acc;
}`;
      await transform(rec, input === 'all' ? graph.vertexCount : input.length, fold, { itemsPerThread: 1 });
      await emit(rec);
      return;
    }
    if (byIndex) {
      await segmentedReduce(rec, item, offsets, graph.vertexCount, output, {
        ...monoid,
        count: graph.edgeCount,
      });
      await emit(rec);
      return;
    }
    if (input === 'all') {
      await transformSegreduce(rec, graph.edgeCount, offsets, graph.vertexCount, item, output, monoid);
      await emit(rec);
      return;
    }
    const items = input.items;
    const space = options.workspace;
    const starts = space?.segmentStarts ?? rec.scratch('u32', Math.max(1, items.length), 'reduce starts');
    const total = space?.total ?? rec.scratch('u32', 1, 'reduce total');
    await transformScan(
      rec,
      input.length,
      wgsl`(i: u32) -> u32 { let v = ${items}[i]; return ${offsets}[v + 1u] - ${offsets}[v]; }`,
      starts,
      { total: { array: total, index: 0 } },
    );
    await transformSegreduce(rec, { array: total, index: 0 }, starts, input.length, item, output, {
      ...monoid,
      maxCount,
    });
    await emit(rec);
  });
}

function checkGatherOrder(
  graph: DeviceGraph,
  order: GatherOrder,
  byIndex: boolean,
  direction: 'out' | 'in',
): void {
  const who = 'neighborhoodReduce';
  if (!byIndex) {
    throw new InputError("gatherOrder needs ignoresVertex over all vertices (input 'all')", who);
  }
  if (graph.directed && order.direction !== direction) {
    throw new InputError(
      `gatherOrder renumbers the '${order.direction}' view, the reduction reads '${direction}'`,
      who,
    );
  }
  if (order.graph !== graph) throw new InputError('gatherOrder was built for another graph', who);
}

/** The `frontier` option: the input's vertices whose reduced value passes `keep`, compacted in order. */
async function emitKept<T extends ElementType>(
  rec: Recorder,
  graph: { vertexCount: number },
  input: FrontierView | 'all',
  output: DeviceArray<T>,
  select: NeighborhoodReduceOptions<T>['frontier'],
): Promise<void> {
  if (!select) return;
  const vertex = vertexOfFunctor(input);
  const length = input === 'all' ? graph.vertexCount : input.length;
  await compactFused(
    rec,
    length,
    wgsl`(i: u32) -> bool { return ${select.keep}(${vertex}(i), ${output}[i]); }`,
    wgsl`(dest: u32, source: u32) { ${rw(select.output.items)}[dest] = ${vertex}(source); }`,
    { array: select.output.count, index: 0 },
    { maxCount: input === 'all' ? Math.max(1, graph.vertexCount) : input.items.length },
  );
}

/** `neighborhoodReduce` on a {@link NeighborGraph}. */
async function reduceNeighbors<T extends ElementType>(
  target: Target,
  graph: NeighborGraph,
  input: FrontierView | 'all',
  f: Functor,
  output: DeviceArray<T>,
  options: NeighborhoodReduceOptions<T>,
): Promise<void> {
  const who = 'neighborhoodReduce';
  if ((options.direction ?? 'out') !== 'out') {
    throw new InputError('a neighbor-iteration graph offers out-edges only', 'options.direction');
  }
  const count = input === 'all' ? graph.vertexCount : typeof input.length === 'number' ? input.length : 0;
  if (output.length < count) {
    throw new InputError(`output has ${output.length} entries, the input up to ${count}`, `${who} output`);
  }
  const m = options.monoid ?? plus(output.type);
  const vertex = vertexOfFunctor(input);
  const offered = graph.parts?.();
  const item = offered
    ? wgsl`(index: u32, seg: u32, rank: u32) -> ${output.type} {
  return ${foldFunctor(offered.forEach, f, m, output.type, true)}(${vertex}(seg), rank);
}`
    : undefined;
  const limit = graph.device.limits.maxStorageBuffersPerShaderStage;
  const parts = item && SEGREDUCE_TILE_BINDINGS + functorBindingCount(item) <= limit ? offered : undefined;
  if (input === 'all' && parts) await preparePartsFor(target, graph);
  await onTarget(target, who, async (rec) => {
    if (graph.vertexCount === 0) {
      // No vertex, so no input vertex: nothing to reduce, and an empty frontier to emit.
    } else if (!parts || !item) {
      const fold = foldFunctor((visit) => graph.forEachNeighbor(visit), f, m, output.type, false);
      await transform(
        rec,
        input === 'all' ? graph.vertexCount : input.length,
        wgsl`(i: u32) { ${rw(output)}[i] = ${fold}(${vertex}(i)); }`,
        { itemsPerThread: 1 },
      );
    } else {
      const { starts, count, segments } = await scanParts(rec, graph, parts, input, options.workspace, who);
      await transformSegreduce(rec, count, starts, segments, item, output, {
        monoid: m,
        maxCount: parts.capacity,
      });
    }
    await emitKept(rec, graph, input, output, options.frontier);
  });
}
