import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { checkDimensions, checkSeed, uniformWeights, weightRange } from './random.ts';

export interface GridOptions {
  width: number;
  height: number;
  /** Integer weights uniform in [min, max] (`true` = [1, 255]), drawn from `seed`. */
  weights?: boolean | readonly [number, number];
  /** Seed for the weights (default 1). */
  seed?: number;
}

/**
 * A width x height 4-neighbour grid, vertex `y * width + x`; each undirected edge listed once (to the right and
 * downward). After symmetrization corners have degree 2, border vertices 3, interior vertices 4.
 */
export function grid(options: GridOptions): HostEdgeList {
  checkOptionsObject('grid', options, true);
  const { width, height } = options;
  checkDimensions(width, height);
  const n = width * height;
  if (n > 2 ** 31) throw new InputError(`${n} vertices exceed the generators' 2^31 limit`, 'width');
  const m = width === 0 || height === 0 ? 0 : (width - 1) * height + width * (height - 1);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  let e = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const v = y * width + x;
      if (x + 1 < width) {
        src[e] = v;
        dst[e++] = v + 1;
      }
      if (y + 1 < height) {
        src[e] = v;
        dst[e++] = v + width;
      }
    }
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed: false };
  const range = weightRange(options.weights);
  if (range) {
    const seed = options.seed ?? 1;
    checkSeed(seed);
    edges.weights = uniformWeights(m, range, seed);
  }
  return edges;
}
