import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostEdgeList } from '../host-graph.ts';
import { Growable } from '../io/growable.ts';
import { checkSeed, uniformWeights, weightRange, Xoshiro128 } from './random.ts';

export interface RandomGeometricOptions {
  /** Number of points (vertices). */
  n: number;
  /** Connect points closer than this (unit square). Default Gunrock's 0.55 * sqrt(ln n / n). */
  radius?: number;
  /** Alternative to `radius`: the radius giving this expected degree away from the border, sqrt(d / (pi n)). */
  avgDegree?: number;
  seed: number;
  /** `'distance'` for f32 Euclidean lengths, or integer weights uniform in [min, max] (`true` = [1, 255]). */
  weights?: 'distance' | boolean | readonly [number, number];
}

/** A geometric graph with the points that made it (coordinates in [0, 1)). */
export interface GeometricGraph extends HostEdgeList {
  x: Float32Array;
  y: Float32Array;
}

/**
 * A random geometric graph: n points uniform in the unit square, an undirected edge between every two points
 * closer than the radius (road-like: bounded degree, diameter about 1 / radius). Pairs are found through a
 * grid of cells at least `radius` wide, so only the 3 x 3 cells around a point are searched: O(n) expected.
 * Each edge is listed once, from the smaller id.
 */
export function randomGeometric(options: RandomGeometricOptions): GeometricGraph {
  checkOptionsObject('randomGeometric', options, true);
  const { n, seed } = options;
  checkSeed(seed);
  if (!Number.isInteger(n) || n < 0 || n > 2 ** 31) {
    throw new InputError(`n must be an integer in [0, 2^31], got ${n}`, 'n');
  }
  if (options.radius !== undefined && options.avgDegree !== undefined) {
    throw new InputError('give radius or avgDegree, not both', 'radius');
  }
  const radius =
    options.radius ??
    (options.avgDegree !== undefined
      ? Math.sqrt(options.avgDegree / (Math.PI * Math.max(n, 1)))
      : 0.55 * Math.sqrt(Math.log(Math.max(n, 2)) / Math.max(n, 1)));
  if (!(radius > 0 && radius <= Math.SQRT2)) {
    throw new InputError(
      `radius must be in (0, sqrt 2], got ${radius}`,
      options.radius !== undefined ? 'radius' : 'avgDegree',
    );
  }
  const px = new Float64Array(n);
  const py = new Float64Array(n);
  const block = 1 << 16;
  for (let start = 0; start < n; start += block) {
    const rng = new Xoshiro128(seed, start / block);
    for (let i = start; i < Math.min(n, start + block); i++) {
      px[i] = rng.float();
      py[i] = rng.float();
    }
  }

  // Cells at least `radius` wide; no more cells than points, so memory stays O(n).
  const side = Math.max(1, Math.min(Math.floor(1 / radius), Math.floor(Math.sqrt(Math.max(n, 1)))));
  const cellOf = (i: number) =>
    Math.min(side - 1, Math.floor(py[i]! * side)) * side + Math.min(side - 1, Math.floor(px[i]! * side));
  const cellStart = new Uint32Array(side * side + 1);
  for (let i = 0; i < n; i++) cellStart[cellOf(i) + 1]!++;
  for (let c = 0; c < side * side; c++) cellStart[c + 1]! += cellStart[c]!;
  const next = cellStart.slice(0, side * side);
  const byCell = new Uint32Array(n);
  for (let i = 0; i < n; i++) byCell[next[cellOf(i)]!++] = i;

  const r2 = radius * radius;
  const src = new Growable((k) => new Uint32Array(k), 1 << 16);
  const dst = new Growable((k) => new Uint32Array(k), 1 << 16);
  const lengths = new Growable((k) => new Float64Array(k), options.weights === 'distance' ? 1 << 16 : 16);
  for (let i = 0; i < n; i++) {
    const cx = Math.min(side - 1, Math.floor(px[i]! * side));
    const cy = Math.min(side - 1, Math.floor(py[i]! * side));
    for (let y = Math.max(0, cy - 1); y <= Math.min(side - 1, cy + 1); y++) {
      for (let x = Math.max(0, cx - 1); x <= Math.min(side - 1, cx + 1); x++) {
        const c = y * side + x;
        for (let k = cellStart[c]!; k < cellStart[c + 1]!; k++) {
          const j = byCell[k]!;
          if (j <= i) continue;
          const dx = px[i]! - px[j]!;
          const dy = py[i]! - py[j]!;
          const d2 = dx * dx + dy * dy;
          if (d2 < r2) {
            src.push(i);
            dst.push(j);
            if (options.weights === 'distance') lengths.push(Math.sqrt(d2));
          }
        }
      }
    }
  }
  const graph: GeometricGraph = {
    vertexCount: n,
    src: src.finish(),
    dst: dst.finish(),
    directed: false,
    x: Float32Array.from(px),
    y: Float32Array.from(py),
  };
  if (options.weights === 'distance') graph.weights = Float32Array.from(lengths.finish());
  else {
    const range = weightRange(options.weights);
    if (range) graph.weights = uniformWeights(graph.src.length, range, seed);
  }
  return graph;
}
