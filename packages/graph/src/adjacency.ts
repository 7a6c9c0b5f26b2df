import { type Functor, load, wgsl } from '@weft/gpu';
import type { DeviceGraph } from './device-graph.ts';

/**
 * `(v: u32, w: u32) -> bool`: whether `w` is an out-neighbor of `v`, by binary search in `v`'s row of the CSR
 * (rows are sorted by target: every builder in this package produces them so). For intersections and
 * triangle counting.
 */
export function hasNeighbor(graph: DeviceGraph): Functor {
  const { offsets, chunkedTargets } = graph;
  return wgsl`(v: u32, w: u32) -> bool {
  var lo = ${offsets}[v];
  var hi = ${offsets}[v + 1u];
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    let x = ${load(chunkedTargets, 'mid')};
    if (x == w) { return true; }
    if (x < w) { lo = mid + 1u; } else { hi = mid; }
  }
  return false;
}`;
}
