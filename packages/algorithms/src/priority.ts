import { type DeviceArray, type Functor, InputError, u32, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';

/**
 * `(a: u32, b: u32) -> bool`: a's random priority beats b's (Luby / Jones-Plassmann). Priorities are a
 * hash of the id and the seed, ties broken by id, so every pair is ordered and runs are reproducible.
 */
export function beatsFunctor(seed: number): Functor {
  const hash = wgsl`(x: u32) -> u32 {
  // PCG output permutation of an LCG step: a cheap, well-mixed 32-bit hash.
  let s = x * 747796405u + 2891336453u;
  let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (w >> 22u) ^ w;
}`;
  return wgsl`(a: u32, b: u32) -> bool {
  let ha = ${hash}(a ^ ${u32(seed >>> 0)});
  let hb = ${hash}(b ^ ${u32(seed >>> 0)});
  return ha > hb || (ha == hb && a > b);
}`;
}

export function checkUndirected(graph: DeviceGraph, who: string): void {
  if (graph.directed) {
    throw new InputError(
      `${who} needs an undirected graph: build it with csrFromEdgeList(..., { symmetrize: true })`,
      'graph',
    );
  }
}

export function vertexArray(graph: DeviceGraph, label: string): DeviceArray<'u32'> {
  return graph.device.array('u32', Math.max(1, graph.vertexCount), { label });
}
