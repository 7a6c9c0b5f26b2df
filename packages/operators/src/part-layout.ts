import { type DeviceArray, Recorder, type Target, wgsl } from '@weft/gpu';
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
  // In place where the old arrays fit: work recorded before reads them before this scan overwrites them.
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

/** Frees what {@link prepareNeighborParts} keeps for `graph` (a graph's `destroy` calls it). */
export function releaseNeighborParts(graph: NeighborGraph): void {
  const known = layouts.get(graph);
  if (!known) return;
  layouts.delete(graph);
  known.starts.destroy();
  known.total.destroy();
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
