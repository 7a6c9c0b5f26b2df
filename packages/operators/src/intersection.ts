import {
  type Count,
  checkOptionsObject,
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
import { isNeighborGraph, type NeighborGraph } from './neighbors.ts';

export interface IntersectionOptions {
  /** `(a: u32, b: u32, w: u32) -> bool`: count only the common neighbors `w` it accepts (default all). */
  accept?: Functor;
  /**
   * Also emit the common neighbors: `starts[i]` gets the exclusive scan of the counts (pair i's place in
   * `neighbors`), `neighbors` the accepted common neighbors of each pair in increasing order (on a
   * `NeighborGraph`, in the order its shorter list holds them), and
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
 *
 * `graph` may also be a {@link NeighborGraph} offering `hasEdge` (a `DynamicGraph`: its lists are hash
 * tables): the shorter list (by `degree`, when offered) is walked and each item probed in the longer, so a
 * pair costs min(deg) probes. Without `hasEdge` it throws an `InputError`.
 */
export async function intersectionCount(
  target: Target,
  graph: DeviceGraph | NeighborGraph,
  first: DeviceArray<'u32'>,
  second: DeviceArray<'u32'>,
  count: Count,
  output: DeviceArray<'u32'>,
  options: IntersectionOptions = {},
): Promise<void> {
  checkOptionsObject('intersectionCount', options);
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
  const accept = options.accept ?? wgsl`(a: u32, b: u32, w: u32) -> bool { return true; }`;
  // `(i: u32, found: fn(i: u32, c: u32, w: u32), done: fn(i: u32, c: u32))`: the accepted common neighbors
  // of pair i (c counting them).
  const walk = isNeighborGraph(graph)
    ? neighborWalk(graph, first, second, accept)
    : csrWalk(graph, first, second, accept);
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

/** A CSR's pair walk: the shorter list in order, each item binary-searched in the longer. */
function csrWalk(graph: DeviceGraph, first: DeviceArray<'u32'>, second: DeviceArray<'u32'>, accept: Functor) {
  const { offsets, chunkedTargets } = graph;
  const contains = hasNeighbor(graph);
  return (found: Functor, done: Functor) => wgsl`(i: u32) {
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
}

/**
 * A {@link NeighborGraph}'s pair walk: the shorter list (by `degree`, where the graph keeps it) in the
 * graph's order, each item probed with `hasEdge` in the longer.
 */
function neighborWalk(
  graph: NeighborGraph,
  first: DeviceArray<'u32'>,
  second: DeviceArray<'u32'>,
  accept: Functor,
) {
  if (!graph.hasEdge) {
    throw new InputError('intersection on a neighbor-iteration graph needs its hasEdge()', 'graph');
  }
  const contains = graph.hasEdge();
  const degree = graph.degree?.() ?? wgsl`(v: u32) -> u32 { return 0u; }`;
  // WGSL functions cannot see a caller's locals: the pair (a, b, long, i) and its count live in private
  // variables, declared beside an empty helper that the visit calls so that the linker emits them.
  const cell = wgsl`() {}
var<private> weft_pair: vec4<u32>;
var<private> weft_pair_count: u32;`;
  return (found: Functor, done: Functor) => {
    const visit = wgsl`(src: u32, w: u32, edge: u32) {
  ${cell}();
  let p = weft_pair;
  if (${accept}(p.x, p.y, w) && ${contains}(p.z, w)) {
    ${found}(p.w, weft_pair_count, w);
    weft_pair_count++;
  }
}`;
    return wgsl`(i: u32) {
  let a = ${first}[i];
  let b = ${second}[i];
  let short = select(a, b, ${degree}(b) < ${degree}(a));
  weft_pair = vec4<u32>(a, b, select(b, a, short == b), i);
  weft_pair_count = 0u;
  ${graph.forEachNeighbor(visit)}(short);
  ${done}(i, weft_pair_count);
}`;
  };
}
