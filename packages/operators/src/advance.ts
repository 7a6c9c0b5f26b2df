import {
  atomic,
  ChunkedArray,
  type Count,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  functorBindingCount,
  InputError,
  isGpuCount,
  load,
  onTarget,
  type Recorder,
  rw,
  type Target,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import {
  bitmapToQueue,
  type DeviceGraph,
  type FrontierBitmap,
  type FrontierSink,
  type FrontierView,
} from '@weft/graph';
import { transformLbs } from '@weft/lbs';
import { transformScan } from '@weft/scan';
import { type LoadBalance, resolveLoadBalance, THREAD_MAPPED_MAX_DEGREE } from './load-balance.ts';
import { isNeighborGraph, type NeighborGraph, type NeighborParts } from './neighbors.ts';
import { currentPartLayout, preparePartsFor } from './part-layout.ts';

/** Storage buffers a `transformLbs` tile binds beside its functor's: offsets, partitions, up to two counts. */
export const LBS_TILE_BINDINGS = 4;

/**
 * Scratch an advance reuses across calls (the scan of the frontier's degrees and its total), so that many
 * iterations recorded into one submit do not each allocate a frontier-sized array.
 */
export class AdvanceWorkspace {
  readonly segmentStarts: DeviceArray<'u32'>;
  readonly total: DeviceArray<'u32'>;
  /** Dispatch sizes a direction-optimizing advance chooses on the GPU. */
  readonly gates: DeviceArray<'u32'>;
  /**
   * `loadBalance: 'per-advance'`: [merge-path edges, thread-mapped vertices, merge-path segments, the
   * frontier's largest degree], written on the GPU each call (the unchosen path's sizes are 0).
   */
  readonly balance: DeviceArray<'u32'>;

  constructor(device: WeftDevice, capacity: number) {
    this.segmentStarts = device.array('u32', Math.max(1, capacity), { label: 'advance segment starts' });
    // The degree total, and room for a copy of the frontier's length (see advancePush's shared counts).
    this.total = device.array('u32', 2, { label: 'advance edge total' });
    this.gates = device.array('u32', 4, { label: 'advance direction gates' });
    this.balance = device.array('u32', 4, { label: 'advance balance gates' });
  }

  destroy(): void {
    this.segmentStarts.destroy();
    this.total.destroy();
    this.gates.destroy();
    this.balance.destroy();
  }
}

export interface AdvanceOptions {
  /** Append kept neighbors here (Gunrock's output frontier). Omit for side effects only. */
  output?: FrontierSink;
  /** Keep the sink's current contents (default: its count is zeroed first). */
  append?: boolean;
  /** Uniquify: a neighbor is appended only if its bit was clear (the bit is set). The caller clears it. */
  visited?: FrontierBitmap;
  /** Reused scratch (see {@link AdvanceWorkspace}); default: per-call scratch. */
  workspace?: AdvanceWorkspace;
  /** Walk in-edges (the graph's CSC; an undirected graph's CSR) instead of out-edges. */
  direction?: 'out' | 'in';
  /**
   * How edges are spread over threads (see {@link LoadBalance}); default `'merge-path'`. `'all'` input
   * with `'per-advance'` takes merge path (no frontier to measure).
   */
  loadBalance?: LoadBalance;
  /** Largest degree walked with a thread per vertex by `'auto'` and `'per-advance'` (default 32). */
  threadMappedMaxDegree?: number;
  /**
   * Idempotent advance (Gunrock's idempotence): the caller's functor may run more than once per
   * destination and claims nothing atomically (e.g. BFS storing a depth with a plain store), and a `dst`
   * is appended each time its functor returns true, so the output may hold duplicates. Size the output
   * for them (the input's out-edges bound it) and cull them with `filter(..., { visited })`. Excludes
   * `visited` here: the claim it makes is what idempotence leaves out.
   */
  idempotent?: boolean;
}

/**
 * The edge arrays of one direction: for in-edges, `edge` ids map back to CSR order (shared edge data).
 * `column` is the neighbor ids as a `ChunkedArray` (read with `load(column, 'k')`); `neighbors` is the same
 * as one array, and on a chunked graph throws a `DeviceLimitError` naming `who`.
 */
export function edgeView(graph: DeviceGraph, direction: 'out' | 'in', who: string) {
  if (direction === 'out' || !graph.directed) {
    return {
      offsets: graph.offsets,
      column: graph.chunkedTargets,
      get neighbors() {
        graph.requireUnchunked(who);
        return graph.targets;
      },
      edgeIds: undefined,
    };
  }
  if (!graph.csc) {
    throw new InputError('in-edges of a directed graph need uploadGraph(..., { csc: true })', who);
  }
  const { inOffsets, sources, inEdgeIds } = graph.csc;
  return {
    offsets: inOffsets,
    column: new ChunkedArray([sources], 31),
    neighbors: sources,
    edgeIds: inEdgeIds,
  };
}

/** `(v: u32)`: appends `v` to the sink unless its visited bit was already set; dropped past capacity. */
export function appendFunctor(
  output: FrontierSink | undefined,
  visited: FrontierBitmap | undefined,
): Functor {
  if (!output) return wgsl`(v: u32) {}`;
  const fresh = visited
    ? wgsl`(v: u32) -> bool {
  let bit = 1u << (v & 31u);
  return (atomicOr(&${atomic(visited.words)}[v >> 5u], bit) & bit) == 0u;
}`
    : wgsl`(v: u32) -> bool { return true; }`;
  return wgsl`(v: u32) {
  if (!${fresh}(v)) { return; }
  let slot = atomicAdd(&${atomic(output.count)}[0], 1u);
  if (slot < ${u32(output.items.length)}) { ${rw(output.items)}[slot] = v; }
}`;
}

/** `(k: u32) -> u32`: the CSR edge id of position `k` of the walked edge array. */
export function edgeIdFunctor(edgeIds: DeviceArray<'u32'> | undefined): Functor {
  return edgeIds ? wgsl`(k: u32) -> u32 { return ${edgeIds}[k]; }` : wgsl`(k: u32) -> u32 { return k; }`;
}

/**
 * `(k: u32) -> u32`: the neighbor at position `k` of an edge view's `column`, for kernels that name their
 * bindings (`queueDrainWgsl(..., chunked = true)`, the small-frontier engine) and so cannot interpolate it.
 */
export function neighborFunctor(column: ChunkedArray<'u32'>): Functor {
  return wgsl`(k: u32) -> u32 { return ${load(column, 'k')}; }`;
}

/** `(seg: u32) -> u32`: the vertex of segment `seg`: the frontier's entry, or `seg` itself for all vertices. */
export function vertexOfFunctor(input: FrontierView | 'all'): Functor {
  return input === 'all'
    ? wgsl`(seg: u32) -> u32 { return seg; }`
    : wgsl`(seg: u32) -> u32 { return ${input.items}[seg]; }`;
}

/**
 * Push advance (Mini-Gunrock): visits every out-edge (src, dst) of the input frontier's vertices, evenly
 * balanced over the GPU, and calls `functor(src: u32, dst: u32, edge: u32) -> bool`; `edge` is the CSR
 * edge id. With an output, each `dst` whose functor returned true is appended to it.
 *
 * The input is a frontier (the exclusive scan of its degrees, with the total kept on the GPU, drives a
 * load-balanced search dispatched indirectly) or `'all'` (every vertex: the CSR offsets are the scan).
 *
 * `graph` may also be a {@link NeighborGraph} (a `DynamicGraph`, `csrNeighbors(csr)`; out-edges only, `edge`
 * what the graph says): `'all'` runs a thread per edge block where it offers `edgeBlocks`; where it offers
 * `parts`, each part of an input vertex's list gets a thread through a load-balanced search
 * (`loadBalance: 'thread-mapped'` walks each vertex's list in one thread instead), else one thread per
 * input vertex walks its list.
 */
export async function advancePush(
  target: Target,
  graph: DeviceGraph | NeighborGraph,
  input: FrontierView | 'all',
  functor: Functor,
  options: AdvanceOptions = {},
): Promise<void> {
  checkOptionsObject('advancePush', options);
  const who = 'advancePush';
  const { output, visited } = options;
  if (options.idempotent && visited) {
    throw new InputError(
      'an idempotent advance appends without claiming: cull its duplicates with filter(..., { visited })',
      'options.visited',
    );
  }
  if (isNeighborGraph(graph)) return advanceNeighbors(target, graph, input, functor, options);
  const { offsets, column, edgeIds } = edgeView(graph, options.direction ?? 'out', who);
  const append = appendFunctor(output, visited);
  // Over all vertices an item's index is its edge position (the segments are the offsets).
  const visit =
    input === 'all'
      ? wgsl`(index: u32, seg: u32, rank: u32) {
  let dst = ${load(column, 'index')};
  if (${functor}(seg, dst, ${edgeIdFunctor(edgeIds)}(index))) { ${append}(dst); }
}`
      : wgsl`(index: u32, seg: u32, rank: u32) {
  let src = ${vertexOfFunctor(input)}(seg);
  let k = ${offsets}[src] + rank;
  let dst = ${load(column, 'k')};
  if (${functor}(src, dst, ${edgeIdFunctor(edgeIds)}(k))) { ${append}(dst); }
}`;
  // A thread walks one input vertex's edges, handing each accepted dst to `emit`; `skip(src, degree)` may
  // take the vertex elsewhere instead.
  const walkWith = (emit: Functor, skip: Functor = KEEP_EVERY_VERTEX) => wgsl`(i: u32) {
  let src = ${vertexOfFunctor(input)}(i);
  let first = ${offsets}[src];
  let end = ${offsets}[src + 1u];
  if (${skip}(src, end - first)) { return; }
  for (var k = first; k < end; k++) {
    let dst = ${load(column, 'k')};
    if (${functor}(src, dst, ${edgeIdFunctor(edgeIds)}(k))) { ${emit}(dst); }
  }
}`;
  const walk = walkWith(append);
  // The `lane`-th of HUB_LANES threads walks every HUB_LANES-th edge of `src`, from its `lane`-th.
  const walkHubWith = (emit: Functor) => wgsl`(src: u32, lane: u32) {
  let end = ${offsets}[src + 1u];
  for (var k = ${offsets}[src] + lane; k < end; k += ${u32(HUB_LANES)}) {
    let dst = ${load(column, 'k')};
    if (${functor}(src, dst, ${edgeIdFunctor(edgeIds)}(k))) { ${emit}(dst); }
  }
}`;
  const maxDegree = options.threadMappedMaxDegree ?? THREAD_MAPPED_MAX_DEGREE;
  if (!(maxDegree >= 0)) {
    throw new InputError(`threadMappedMaxDegree must be >= 0, got ${maxDegree}`, 'options');
  }
  const chosen = resolveLoadBalance(graph, options.loadBalance ?? 'merge-path', maxDegree);
  // The merge-path tile binds its offsets, partitions and counts beside the functor's arrays: on a device
  // that allows fewer storage buffers a stage (browsers grant 8 or 10), a thread per vertex walks instead.
  const lbsBindings = LBS_TILE_BINDINGS + functorBindingCount(visit);
  const stageLimit = graph.device.limits.maxStorageBuffersPerShaderStage;
  // One over the limit, a frontier's GPU-held length is copied beside the degree total so that the tile
  // binds one count buffer: 8 target chunks (2^31 arcs) then stay load-balanced under Dawn's 16.
  const shareCounts = input !== 'all' && isGpuCount(input.length) && lbsBindings === stageLimit + 1;
  const tileTooWide = lbsBindings - (shareCounts ? 1 : 0) > stageLimit;
  const loadBalance = tileTooWide ? 'thread-mapped' : chosen;
  await onTarget(target, who, async (rec) => {
    if (output && !options.append) rec.clear(output.count);
    if (graph.edgeCount === 0) return;
    if (loadBalance === 'thread-mapped') {
      const count = input === 'all' ? graph.vertexCount : input.length;
      const limit = graph.device.limits.maxStorageBuffersPerShaderStage;
      // Walked for want of bindings, not chosen: a thread per vertex would walk a hub's million edges alone.
      const splits = (emit: Functor) =>
        tileTooWide && hubWalkFits(count, walkWith(emit), walkHubWith(emit), limit);
      const splitAppending = splits(append);
      // Past the device's storage buffers, or where only then the hubs fit apart, the walk only sets the
      // visited bits, and a second pass appends the bits this advance set (those not set before it) to the
      // output: two bindings fewer in the walk.
      // (A walk with no binding to spare never splits appending, so that case is checked only here.)
      if (output && visited && !splitAppending) {
        const mark = wgsl`(v: u32) { atomicOr(&${atomic(visited.words)}[v >> 5u], 1u << (v & 31u)); }`;
        const splitMarking = splits(mark);
        if (functorBindingCount(walk) + 1 > limit || splitMarking) {
          const before = rec.scratch('u32', visited.words.length, 'advance visited before');
          rec.copy(visited.words, before);
          if (splitMarking) await walkSplittingHubs(rec, input, count, walkWith, mark, walkHubWith(mark));
          else await transform(rec, count, walkWith(mark), { itemsPerThread: 1 });
          await bitmapToQueue(rec, visited, output, {
            append: true,
            except: { words: before, vertexCount: visited.vertexCount },
          });
          return;
        }
      }
      if (splitAppending) await walkSplittingHubs(rec, input, count, walkWith, append, walkHubWith(append));
      else await transform(rec, count, walk, { itemsPerThread: 1 });
      return;
    }
    if (input === 'all') {
      await transformLbs(rec, graph.edgeCount, offsets, graph.vertexCount, visit);
      return;
    }
    const items = input.items;
    const space = options.workspace;
    if (space && space.segmentStarts.length < items.length) {
      throw new InputError(
        `workspace holds ${space.segmentStarts.length} starts, the frontier up to ${items.length}`,
        'options.workspace',
      );
    }
    const starts = space?.segmentStarts ?? rec.scratch('u32', Math.max(1, items.length), 'advance starts');
    const total = space?.total ?? rec.scratch('u32', 2, 'advance total');
    const perAdvance = loadBalance === 'per-advance';
    const balance = perAdvance ? (space?.balance ?? rec.scratch('u32', 4, 'advance balance')) : undefined;
    // 'per-advance' notes the largest degree as the scan reads them (atomicMax: harmless if evaluated twice).
    const note = balance ? wgsl`(d: u32) { atomicMax(&${atomic(balance)}[3], d); }` : wgsl`(d: u32) {}`;
    if (balance) rec.clear(balance);
    await transformScan(
      rec,
      input.length,
      wgsl`(i: u32) -> u32 {
  let v = ${items}[i];
  let d = ${offsets}[v + 1u] - ${offsets}[v];
  ${note}(d);
  return d;
}`,
      starts,
      { total: { array: total, index: 0 } },
    );
    if (!balance) {
      const len = input.length;
      let segments: Count = len;
      if (shareCounts && isGpuCount(len)) {
        rec.copy(len.array, total, 1, len.index, 1);
        segments = { array: total, index: 1 };
      }
      await transformLbs(rec, { array: total, index: 0 }, starts, segments, visit, {
        maxCount: graph.edgeCount,
      });
      return;
    }
    const len = input.length;
    const length =
      typeof len === 'number'
        ? wgsl`() -> u32 { return ${u32(len)}; }`
        : wgsl`() -> u32 { return ${len.array}[${u32(len.index)}]; }`;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  let mapped = ${rw(balance)}[3] <= ${u32(maxDegree)};
  let len = ${length}();
  ${rw(balance)}[0] = select(${total}[0], 0u, mapped);
  ${rw(balance)}[1] = select(0u, len, mapped);
  ${rw(balance)}[2] = select(len, 0u, mapped);
}`,
    );
    await transform(rec, { array: balance, index: 1 }, walk, { itemsPerThread: 1 });
    await transformLbs(rec, { array: balance, index: 0 }, starts, { array: balance, index: 2 }, visit, {
      maxCount: graph.edgeCount,
    });
  });
}

/**
 * `advancePush` on a {@link NeighborGraph}. Unless `loadBalance` is `'thread-mapped'`: over all vertices,
 * a thread per block of the graph's edge blocks; with the graph's parts, a scan of the input's part
 * counts and a load-balanced search give each part its thread, so a hub's list spreads over many.
 * Otherwise one thread per input vertex walks its out-edges.
 */
async function advanceNeighbors(
  target: Target,
  graph: NeighborGraph,
  input: FrontierView | 'all',
  functor: Functor,
  options: AdvanceOptions,
): Promise<void> {
  const who = 'advancePush';
  if ((options.direction ?? 'out') !== 'out') {
    throw new InputError('a neighbor-iteration graph offers out-edges only', 'options.direction');
  }
  const { output, visited } = options;
  const append = appendFunctor(output, visited);
  const visit = wgsl`(src: u32, dst: u32, edge: u32) { if (${functor}(src, dst, edge)) { ${append}(dst); } }`;
  const vertex = vertexOfFunctor(input);
  const offered = options.loadBalance === 'thread-mapped' ? undefined : graph.parts?.();
  const perPart = offered
    ? wgsl`(index: u32, seg: u32, rank: u32) { ${offered.forEach(visit)}(${vertex}(seg), rank); }`
    : undefined;
  // As for a CSR: past the device's storage buffers a stage, a thread per vertex walks instead.
  const limit = graph.device.limits.maxStorageBuffersPerShaderStage;
  const parts = perPart && LBS_TILE_BINDINGS + functorBindingCount(perPart) <= limit ? offered : undefined;
  const blocks =
    input === 'all' && options.loadBalance !== 'thread-mapped' ? graph.edgeBlocks?.() : undefined;
  if (input === 'all' && parts && !blocks) await preparePartsFor(target, graph);
  await onTarget(target, who, async (rec) => {
    if (output && !options.append) rec.clear(output.count);
    if (graph.vertexCount === 0) return;
    if (blocks) {
      await transform(rec, blocks.count, blocks.forEach(visit), { itemsPerThread: 1 });
      return;
    }
    if (!parts || !perPart) {
      const walk = graph.forEachNeighbor(visit);
      await transform(
        rec,
        input === 'all' ? graph.vertexCount : input.length,
        wgsl`(i: u32) { ${walk}(${vertex}(i)); }`,
        { itemsPerThread: 1 },
      );
      return;
    }
    const { starts, count, segments } = await scanParts(rec, graph, parts, input, options.workspace, who);
    await transformLbs(rec, count, starts, segments, perPart, {
      maxCount: parts.capacity,
    });
  });
}

/**
 * The exclusive scan of the input vertices' part counts (`starts`, one per input vertex) and its total on
 * the GPU: the segments of a load-balanced pass over a {@link NeighborGraph}'s parts.
 */
export async function scanParts(
  rec: Recorder,
  graph: NeighborGraph,
  parts: NeighborParts,
  input: FrontierView | 'all',
  space: AdvanceWorkspace | undefined,
  who: string,
): Promise<{ starts: DeviceArray<'u32'>; count: Count; segments: Count }> {
  const kept = input === 'all' ? currentPartLayout(graph) : undefined;
  if (kept) return { starts: kept.starts, count: kept.count, segments: graph.vertexCount };
  const segments = input === 'all' ? graph.vertexCount : input.length;
  const need = input === 'all' ? graph.vertexCount : input.items.length;
  if (space && space.segmentStarts.length < need) {
    throw new InputError(
      `workspace holds ${space.segmentStarts.length} starts, the input up to ${need}`,
      `${who} options.workspace`,
    );
  }
  const starts = space?.segmentStarts ?? rec.scratch('u32', Math.max(1, need), 'part starts');
  const total = space?.total ?? rec.scratch('u32', 1, 'part total');
  await transformScan(
    rec,
    segments,
    wgsl`(i: u32) -> u32 { return ${parts.count}(${vertexOfFunctor(input)}(i)); }`,
    starts,
    { total: { array: total, index: 0 } },
  );
  return { starts, count: { array: total, index: 0 }, segments };
}

export interface AdvancePullOptions {
  /** `(v: u32) -> bool`: which vertices look for a parent (e.g. the unvisited ones). Default: all. */
  candidate?: Functor;
  /** Append each vertex that accepted a parent here (count zeroed first unless `append`). */
  output?: FrontierSink;
  append?: boolean;
}

/**
 * Pull advance (bottom-up, Beamer): every candidate vertex `dst` walks its in-edges and calls
 * `functor(src, dst, edge) -> bool` for each in-neighbor `src` that is in the `frontier` bitmap, stopping at
 * the first that returns true (early exit: one parent is enough); `dst` is then appended to the output.
 * One thread per vertex: cheap when the frontier is large and most candidates find a parent at once.
 */
export async function advancePull(
  target: Target,
  graph: DeviceGraph,
  frontier: FrontierBitmap,
  functor: Functor,
  options: AdvancePullOptions = {},
): Promise<void> {
  checkOptionsObject('advancePull', options);
  const who = 'advancePull';
  const { offsets, column, edgeIds } = edgeView(graph, 'in', who);
  const candidate = options.candidate ?? wgsl`(v: u32) -> bool { return true; }`;
  const append = appendFunctor(options.output, undefined);
  const visit = wgsl`(dst: u32) {
  if (!${candidate}(dst)) { return; }
  let end = ${offsets}[dst + 1u];
  for (var k = ${offsets}[dst]; k < end; k++) {
    let src = ${load(column, 'k')};
    if ((${frontier.words}[src >> 5u] & (1u << (src & 31u))) != 0u) {
      if (${functor}(src, dst, ${edgeIdFunctor(edgeIds)}(k))) {
        ${append}(dst);
        return;
      }
    }
  }
}`;
  await onTarget(target, who, async (rec) => {
    if (options.output && !options.append) rec.clear(options.output.count);
    await transform(rec, graph.vertexCount, visit);
  });
}

const KEEP_EVERY_VERTEX = wgsl`(src: u32, degree: u32) -> bool { return false; }`;

/** Out-degrees above which a vertex the thread-mapped fallback walks gets {@link HUB_LANES} threads. */
const HUB_DEGREE = 256;
const HUB_LANES = 256;

/**
 * Whether {@link walkSplittingHubs} fits the stage: its hubs' list is one binding more in both the listing
 * walk (`walk`, the thread-per-vertex walk) and the hubs' walk, and a count held on the GPU is one more
 * binding of a transform (the hubs' count binds their list again).
 */
function hubWalkFits(count: Count, walk: Functor, walkHub: Functor, limit: number): boolean {
  return (
    functorBindingCount(walk) + 1 + (isGpuCount(count) ? 1 : 0) <= limit &&
    functorBindingCount(walkHub) + 2 <= limit
  );
}

/**
 * The thread-mapped walk of an advance whose load-balanced tile needs more storage buffers than the stage
 * has (a graph in many chunks): vertices of degree up to {@link HUB_DEGREE} are walked a thread each, the
 * rest listed and walked by {@link HUB_LANES} threads each. The caller checks {@link hubWalkFits} first.
 */
async function walkSplittingHubs(
  rec: Recorder,
  input: FrontierView | 'all',
  count: Count,
  walkWith: (emit: Functor, skip?: Functor) => Functor,
  emit: Functor,
  walkHub: Functor,
): Promise<void> {
  const capacity = input === 'all' ? Number(count) : input.items.length;
  // [0]: hubs listed, [1]: their threads, [2 ..]: the hubs.
  const hubs = rec.scratch('u32', 2 + Math.max(1, capacity), 'advance hubs');
  const list = wgsl`(src: u32, degree: u32) -> bool {
  if (degree <= ${u32(HUB_DEGREE)}) { return false; }
  let at = atomicAdd(&${atomic(hubs)}[0], 1u);
  if (at >= ${u32(capacity)}) { return false; }
  atomicStore(&${atomic(hubs)}[2u + at], src);
  return true;
}`;
  const light = walkWith(emit, list);
  const hubWalk = wgsl`(i: u32) { ${walkHub}(${hubs}[2u + i / ${u32(HUB_LANES)}], i % ${u32(HUB_LANES)}); }`;
  await transform(rec, 1, wgsl`(i: u32) { ${rw(hubs)}[0] = 0u; }`, { label: 'advance hubs reset' });
  await transform(rec, count, light, { itemsPerThread: 1 });
  await transform(
    rec,
    1,
    wgsl`(i: u32) { ${rw(hubs)}[1] = min(${rw(hubs)}[0], ${u32(capacity)}) * ${u32(HUB_LANES)}; }`,
    { label: 'advance hub threads' },
  );
  await transform(rec, { array: hubs, index: 1 }, hubWalk, { itemsPerThread: 1, label: 'advance hubs' });
}
