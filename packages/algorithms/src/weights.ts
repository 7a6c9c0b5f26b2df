import { atomic, InputError, load, transform, u32, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { advancePush } from '@weft/operators';

/** f32 infinity's bits: at or above them (sign clear) an f32 is infinite or NaN. */
const INFINITY_F32 = 0x7f800000;
/** Where SSSP's sums stop: the largest reachable distance word (2^32 - 2; the largest finite f32's bits). */
export const SATURATED_U32 = 0xfffffffe;
export const SATURATED_F32 = 0x7f7fffff;

/**
 * Throws an {@link InputError} naming the first edge whose weight `who` cannot take: negative, NaN or
 * infinite (u32 weights cannot be). One kernel folds the first bad edge index with an atomic, then one
 * word is read back; the edge's endpoints are looked up only on failure.
 */
export async function checkNonNegativeWeights(graph: DeviceGraph, who: string): Promise<void> {
  const w = graph.chunkedWeights;
  if (w === undefined || w.type === 'u32' || graph.edgeCount === 0) return;
  const device = graph.device;
  const first = device.array('u32', 1, { label: 'first bad weight' });
  let edge: number;
  try {
    const rec = device.recorder({ label: 'weight check' });
    await rec.fill(first, 0xffffffff);
    // f32 by its bits (WGSL may assume no NaN or infinity): sign set (but -0) or exponent all ones.
    const bad =
      w.type === 'i32'
        ? wgsl`(e: u32) -> bool { return ${load(w, 'e')} < 0i; }`
        : wgsl`(e: u32) -> bool {
  let b = bitcast<u32>(${load(w, 'e')});
  return b >= ${u32(INFINITY_F32)} && b != 0x80000000u;
}`;
    await transform(
      rec,
      graph.edgeCount,
      wgsl`(e: u32) { if (${bad}(e)) { atomicMin(&${atomic(first)}[0], e); } }`,
    );
    edge = (await rec.submit({ download: first })).downloaded[0]!;
  } finally {
    first.destroy();
  }
  if (edge === 0xffffffff) return;
  throw await arcWeightError(graph, edge, who, 'finite non-negative weights');
}

/**
 * The one-line {@link InputError} refusing arc `edge`'s weight: its value, its endpoints (the source by binary
 * search of the offsets) and what `who` needs. Downloads a few words; call it only on failure.
 */
export async function arcWeightError(
  graph: DeviceGraph,
  edge: number,
  who: string,
  needs: string,
): Promise<InputError> {
  const [weight, offsets, target] = await Promise.all([
    graph.chunkedWeights!.download(edge, 1),
    graph.offsets.download(),
    graph.chunkedTargets.download(edge, 1),
  ]);
  let lo = 0;
  let hi = graph.vertexCount - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (offsets[mid]! <= edge) lo = mid;
    else hi = mid - 1;
  }
  const value = weight[0]!;
  const what = Number.isNaN(value) ? 'is NaN' : value < 0 ? 'is negative' : 'is infinite';
  return new InputError(
    `weight ${value} of edge ${lo} -> ${target[0]} (edge ${edge}) ${what}: ${who} needs ${needs}`,
    'graph.weights',
  );
}

/**
 * Throws an {@link InputError} naming the first arc `v -> u` of an undirected graph whose weight (summed
 * over parallel arcs) differs from that of `u -> v` by more than f32 rounding: algorithms that gather a
 * vertex's in-edges from its own arcs read the weight of `v -> u` for `u -> v`. Rows are sorted, so each
 * group of parallel arcs is adjacent and `u`'s arcs to `v` start at a lower bound. One kernel, one word back.
 */
export async function checkSymmetricWeights(graph: DeviceGraph, who: string): Promise<void> {
  const w = graph.chunkedWeights;
  if (w === undefined || graph.directed || graph.edgeCount === 0) return;
  const { offsets, chunkedTargets: targets } = graph;
  const device = graph.device;
  const first = device.array('u32', 1, { label: 'first asymmetric arc' });
  let edge: number;
  try {
    const rec = device.recorder({ label: 'symmetric weight check' });
    await rec.fill(first, 0xffffffff);
    await advancePush(
      rec,
      graph,
      'all',
      wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (edge > ${offsets}[src] && ${load(targets, 'edge - 1u')} == dst) { return false; }
  var mine = 0.0;
  var k = edge;
  let mineEnd = ${offsets}[src + 1u];
  while (k < mineEnd && ${load(targets, 'k')} == dst) {
    mine += f32(${load(w, 'k')});
    k++;
  }
  let end = ${offsets}[dst + 1u];
  var lo = ${offsets}[dst];
  var hi = end;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (${load(targets, 'mid')} < src) { lo = mid + 1u; } else { hi = mid; }
  }
  var theirs = 0.0;
  var j = lo;
  while (j < end && ${load(targets, 'j')} == src) {
    theirs += f32(${load(w, 'j')});
    j++;
  }
  if (abs(mine - theirs) > 1e-6 * max(mine, theirs)) { atomicMin(&${atomic(first)}[0], edge); }
  return false;
}`,
    );
    edge = (await rec.submit({ download: first })).downloaded[0]!;
  } finally {
    first.destroy();
  }
  if (edge === 0xffffffff) return;
  const [offsetsHost, targetsHost, weightsHost] = await Promise.all([
    graph.offsets.download(),
    graph.chunkedTargets.download(),
    w.download(),
  ]);
  let v = 0;
  while (offsetsHost[v + 1]! <= edge) v++;
  const u = targetsHost[edge]!;
  const sum = (a: number, b: number) => {
    let s = 0;
    for (let e = offsetsHost[a]!; e < offsetsHost[a + 1]!; e++)
      if (targetsHost[e] === b) s += weightsHost[e]!;
    return s;
  };
  throw new InputError(
    `the undirected graph's arc ${v} -> ${u} weighs ${sum(v, u)} but ${u} -> ${v} weighs ${sum(u, v)}: ` +
      `${who} needs an undirected edge to weigh the same both ways`,
    'graph.weights',
  );
}
