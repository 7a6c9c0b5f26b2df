import {
  type ChunkedArray,
  type DeviceArray,
  Recorder,
  rw,
  store,
  type Target,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { transformScan } from '@weft/scan';
import type { NeighborGraph, NeighborParts } from './neighbors.ts';

/** The scan of every vertex's part count and its total, as of one `version` of a graph's lists. */
export interface PartLayout {
  readonly version: number;
  /** `starts[v]`: the parts of the vertices before `v` (one entry per vertex). */
  readonly starts: DeviceArray<'u32'>;
  /** Word 0: all the parts. */
  readonly total: DeviceArray<'u32'>;
  /** The total as read back. */
  readonly count: number;
}

/** Kept beside each graph until its `version` moves on (or `releaseNeighborParts`). */
const layouts = new WeakMap<NeighborGraph, PartLayout>();

/** The layout kept for `graph` where it still describes the lists (same `version`, same vertices). */
export function currentPartLayout(graph: NeighborGraph): PartLayout | undefined {
  const known = layouts.get(graph);
  if (!known) return undefined;
  if (graph.version === undefined || known.version !== graph.version) return undefined;
  return known.starts.length >= Math.max(1, graph.vertexCount) ? known : undefined;
}

/**
 * Scans the part counts of all of `graph`'s vertices now (its own submit, the total read back) and keeps
 * the result until the graph's `version` changes, so that operators over all vertices (`neighborhoodReduce`,
 * `advancePush` without edge blocks) skip the scan and size their balanced pass by the exact total. Nothing
 * to do for a graph without `parts` or `version`, or whose layout is current. Memory: one u32 per vertex.
 */
export async function prepareNeighborParts(graph: NeighborGraph): Promise<void> {
  const parts = graph.parts?.();
  const version = graph.version;
  if (!parts || version === undefined || graph.vertexCount === 0 || currentPartLayout(graph)) return;
  const n = graph.vertexCount;
  const old = layouts.get(graph);
  // Reused in place where it fits, sparing an allocation per batch of updates.
  const starts =
    old && old.starts.length === n ? old.starts : graph.device.array('u32', n, { label: 'part starts' });
  const total = old?.total ?? graph.device.array('u32', 1, { label: 'part total' });
  if (old && old.starts !== starts) old.starts.destroy();
  layouts.delete(graph);
  try {
    await scanAll(graph.device, graph, parts, starts, total);
    const [count] = await total.download(0, 1);
    layouts.set(graph, { version, starts, total, count: count! });
  } catch (e) {
    starts.destroy();
    total.destroy();
    throw e;
  }
}

/**
 * Frees what {@link prepareNeighborParts} and {@link gatherNeighbors} keep for `graph` (a graph's
 * `destroy` calls it).
 */
export function releaseNeighborParts(graph: NeighborGraph): void {
  releaseGathered(graph);
  const known = layouts.get(graph);
  if (!known) return;
  layouts.delete(graph);
  known.starts.destroy();
  known.total.destroy();
}

/** A graph's out-lists copied in CSR order. */
export interface GatheredNeighbors {
  /** The version of the lists they copy. */
  readonly version: number;
  /** `vertexCount + 1` entries: vertex `v`'s targets are `targets[offsets[v] .. offsets[v + 1]]`. */
  readonly offsets: DeviceArray<'u32'>;
  /** Each vertex's out-neighbors in the order its parts visit them (chunked past one binding). */
  readonly targets: ChunkedArray<'u32'>;
  readonly edgeCount: number;
}

const gathered = new WeakMap<NeighborGraph, GatheredNeighbors>();

function releaseGathered(graph: NeighborGraph): void {
  const known = gathered.get(graph);
  if (!known) return;
  gathered.delete(graph);
  known.offsets.destroy();
  known.targets.destroy();
}

/**
 * `graph`'s out-lists copied once into CSR order (offsets and targets; edge ids are not kept), kept until
 * its `version` changes, so that passes repeated over the same lists (PageRank's pull) read them side by side
 * as on a CSR instead of walking the graph's storage each time: with the part layout current
 * ({@link prepareNeighborParts}), a scan of each part's neighbors (one walk of the lists) and a walk
 * writing them, one word read back. Owned by the graph's cache: do not destroy it. Undefined for a graph
 * without `parts`, `version` or vertices. Memory: 4 bytes an edge and a vertex.
 */
export async function gatherNeighbors(graph: NeighborGraph): Promise<GatheredNeighbors | undefined> {
  const known = gathered.get(graph);
  if (known && known.version === graph.version && known.offsets.length >= graph.vertexCount + 1) return known;
  releaseGathered(graph);
  const parts = graph.parts?.();
  const version = graph.version;
  const { device, vertexCount: n } = graph;
  if (!parts || version === undefined || n === 0) return undefined;
  await prepareNeighborParts(graph);
  const layout = currentPartLayout(graph);
  if (!layout) return undefined;
  const { starts, count: partCount } = layout;
  // The part's vertex: the last whose first part is at most i (vertices without parts share their start).
  const vertexOf = wgsl`(i: u32) -> u32 {
  var lo = 0u;
  var hi = ${u32(n)};
  while (hi - lo > 1u) {
    let mid = lo + (hi - lo) / 2u;
    if (${starts}[mid] <= i) { lo = mid; } else { hi = mid; }
  }
  return lo;
}`;
  // WGSL functions cannot see a caller's locals: the running position lives in a private variable,
  // declared beside an empty helper that the visit calls so that the linker emits the declaration.
  const cell = wgsl`() {}
var<private> weft_gather_at: u32;`;
  const counted = parts.forEach(wgsl`(src: u32, dst: u32, edge: u32) {
  ${cell}();
  weft_gather_at++;
}`);
  const keyStarts = device.array('u32', Math.max(1, partCount), { label: 'gathered part starts' });
  const total = device.array('u32', 1, { label: 'gathered edge count' });
  const offsets = device.array('u32', n + 1, { label: 'gathered offsets' });
  let targets: ChunkedArray<'u32'> | undefined;
  try {
    await transformScan(
      device,
      partCount,
      wgsl`(i: u32) -> u32 {
  let v = ${vertexOf}(i);
  weft_gather_at = 0u;
  ${counted}(v, i - ${starts}[v]);
  return weft_gather_at;
}`,
      keyStarts,
      { total: { array: total, index: 0 } },
    );
    const edgeCount = (await total.download(0, 1))[0]!;
    const last = u32(Math.max(1, partCount) - 1);
    await transform(
      device,
      n + 1,
      wgsl`(v: u32) {
  let s = select(${u32(partCount)}, ${starts}[min(v, ${u32(n - 1)})], v < ${u32(n)});
  ${rw(offsets)}[v] = select(${u32(edgeCount)}, ${keyStarts}[min(s, ${last})], s < ${u32(partCount)});
}`,
    );
    const out = device.chunkedArray('u32', Math.max(1, edgeCount), { label: 'gathered targets' });
    targets = out;
    const written = parts.forEach(wgsl`(src: u32, dst: u32, edge: u32) {
  ${cell}();
  if (weft_gather_at < ${u32(edgeCount)}) { ${store(out, 'weft_gather_at', 'dst')}; }
  weft_gather_at++;
}`);
    await transform(
      device,
      partCount,
      wgsl`(i: u32) {
  let v = ${vertexOf}(i);
  weft_gather_at = ${keyStarts}[i];
  ${written}(v, i - ${starts}[v]);
}`,
    );
    const made = { version, offsets, targets: out, edgeCount };
    gathered.set(graph, made);
    return made;
  } catch (e) {
    offsets.destroy();
    targets?.destroy();
    throw e;
  } finally {
    keyStarts.destroy();
    total.destroy();
  }
}

/**
 * Before an operator over all vertices of `graph` records onto `target`: where `target` is a device (so
 * nothing is pending that could still change the lists), makes the layout current. Inside a recorder the
 * caller's recorded batches may not have run yet, so a stale layout is left for the operator to scan anew.
 */
export async function preparePartsFor(target: Target, graph: NeighborGraph): Promise<void> {
  if (!(target instanceof Recorder)) await prepareNeighborParts(graph);
}

/** Records the exclusive scan of every vertex's part count into `starts`, the sum into `total[0]`. */
async function scanAll(
  target: Target,
  graph: NeighborGraph,
  parts: NeighborParts,
  starts: DeviceArray<'u32'>,
  total: DeviceArray<'u32'>,
): Promise<void> {
  await transformScan(
    target,
    graph.vertexCount,
    wgsl`(i: u32) -> u32 { return ${parts.count}(i); }`,
    starts,
    {
      total: { array: total, index: 0 },
    },
  );
}
