import {
  type Count,
  type DeviceArray,
  type Functor,
  InputError,
  load,
  onTarget,
  rw,
  type Target,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, hasNeighbor } from '@weft/graph';
import { transformScan } from '@weft/scan';

export interface IntersectionOptions {
  /** `(a: u32, b: u32, w: u32) -> bool`: count only the common neighbors `w` it accepts (default all). */
  accept?: Functor;
  /**
   * Also emit the common neighbors: `starts[i]` gets the exclusive scan of the counts (pair i's place in
   * `neighbors`), `neighbors` the accepted common neighbors of each pair in increasing order, and
   * `total[0]` (when given) their number. Neighbors past `neighbors`' length are dropped: read `total` to
   * size a retry. A second pass over the pairs writes them, so emitting costs about twice the counting.
   */
  emit?: { starts: DeviceArray<'u32'>; neighbors: DeviceArray<'u32'>; total?: DeviceArray<'u32'> };
}

/**
 * Segmented intersection: `output[i]` = the number of common out-neighbors of vertices `first[i]` and
 * `second[i]` for `i < count` (pairs from two frontiers, or an edge list's two columns). One thread per
 * pair walks the shorter neighbor list and binary-searches the longer (CSR lists are sorted), so a pair
 * costs min(deg) x log(max(deg)). With `emit`, the common neighbors themselves too (Gunrock's
 * segmented intersection with output).
 */
export async function intersectionCount(
  target: Target,
  graph: DeviceGraph,
  first: DeviceArray<'u32'>,
  second: DeviceArray<'u32'>,
  count: Count,
  output: DeviceArray<'u32'>,
  options: IntersectionOptions = {},
): Promise<void> {
  if (typeof count === 'number' && (count > first.length || count > second.length || count > output.length)) {
    throw new InputError(
      `${count} pairs but first has ${first.length}, second ${second.length}, output ${output.length} entries`,
      'count',
    );
  }
  const emit = options.emit;
  if (emit && typeof count === 'number' && count > emit.starts.length) {
    throw new InputError(
      `${count} pairs but starts has ${emit.starts.length} entries`,
      'options.emit.starts',
    );
  }
  const { offsets, chunkedTargets } = graph;
  const accept = options.accept ?? wgsl`(a: u32, b: u32, w: u32) -> bool { return true; }`;
  const contains = hasNeighbor(graph);
  // `(i: u32, found: fn(c: u32, w: u32))`: the accepted common neighbors of pair i, in increasing order.
  const walk = (found: Functor, done: Functor) => wgsl`(i: u32) {
  let a = ${first}[i];
  let b = ${second}[i];
  let short = select(a, b, ${offsets}[b + 1u] - ${offsets}[b] < ${offsets}[a + 1u] - ${offsets}[a]);
  let long = select(b, a, short == b);
  var c = 0u;
  let end = ${offsets}[short + 1u];
  for (var k = ${offsets}[short]; k < end; k++) {
    let w = ${load(chunkedTargets, 'k')};
    if (${accept}(a, b, w) && ${contains}(long, w)) {
      ${found}(i, c, w);
      c++;
    }
  }
  ${done}(i, c);
}`;
  const none = wgsl`(i: u32, c: u32, w: u32) {}`;
  await onTarget(target, 'intersectionCount', async (rec) => {
    await transform(rec, count, walk(none, wgsl`(i: u32, c: u32) { ${rw(output)}[i] = c; }`));
    if (!emit) return;
    const total = emit.total ?? rec.scratch('u32', 1, 'intersection total');
    await transformScan(rec, count, wgsl`(i: u32) -> u32 { return ${output}[i]; }`, emit.starts, {
      total: { array: total, index: 0 },
    });
    const put = wgsl`(i: u32, c: u32, w: u32) {
  let at = ${emit.starts}[i] + c;
  if (at < ${u32(emit.neighbors.length)}) { ${rw(emit.neighbors)}[at] = w; }
}`;
    await transform(rec, count, walk(put, wgsl`(i: u32, c: u32) {}`));
  });
}
