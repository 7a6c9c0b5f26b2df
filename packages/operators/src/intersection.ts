import {
  type Count,
  type DeviceArray,
  type Functor,
  InputError,
  rw,
  type Target,
  transform,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, hasNeighbor } from '@weft/graph';

export interface IntersectionOptions {
  /** `(a: u32, b: u32, w: u32) -> bool`: count only the common neighbors `w` it accepts (default all). */
  accept?: Functor;
}

/**
 * Segmented intersection: `output[i]` = the number of common out-neighbors of vertices `first[i]` and
 * `second[i]` for `i < count` (pairs from two frontiers, or an edge list's two columns). One thread per
 * pair walks the shorter neighbor list and binary-searches the longer (CSR lists are sorted), so a pair
 * costs min(deg) x log(max(deg)).
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
  const { offsets, targets } = graph;
  const accept = options.accept ?? wgsl`(a: u32, b: u32, w: u32) -> bool { return true; }`;
  const contains = hasNeighbor(graph);
  await transform(
    target,
    count,
    wgsl`(i: u32) {
  let a = ${first}[i];
  let b = ${second}[i];
  let short = select(a, b, ${offsets}[b + 1u] - ${offsets}[b] < ${offsets}[a + 1u] - ${offsets}[a]);
  let long = select(b, a, short == b);
  var c = 0u;
  let end = ${offsets}[short + 1u];
  for (var k = ${offsets}[short]; k < end; k++) {
    let w = ${targets}[k];
    if (${accept}(a, b, w) && ${contains}(long, w)) { c++; }
  }
  ${rw(output)}[i] = c;
}`,
  );
}
