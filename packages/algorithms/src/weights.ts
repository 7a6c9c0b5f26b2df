import { atomic, InputError, load, transform, u32, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';

/** f32 infinity's bits: at or above them (sign clear) an f32 is infinite or NaN. */
const INFINITY_F32 = 0x7f800000;

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
    await rec.submit();
    edge = (await first.download())[0]!;
  } finally {
    first.destroy();
  }
  if (edge === 0xffffffff) return;
  const [weight, offsets, target] = await Promise.all([
    w.download(edge, 1),
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
  throw new InputError(
    `weight ${value} of edge ${lo} -> ${target[0]} (edge ${edge}) ${what}: ${who} needs finite non-negative weights`,
    'graph.weights',
  );
}
