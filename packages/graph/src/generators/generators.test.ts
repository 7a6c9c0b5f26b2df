import { InputError } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { hostCsrFromEdgeList } from '../host-build.ts';
import { type HostEdgeList, outDegrees } from '../host-graph.ts';
import { randomGeometric } from './geometric.ts';
import { grid } from './grid.ts';
import { kronecker, randomPermutation } from './kronecker.ts';
import { uniformRandom } from './uniform.ts';

function expectSameEdges(a: HostEdgeList, b: HostEdgeList) {
  expectArrayEqual(a.src, b.src, 'src');
  expectArrayEqual(a.dst, b.dst, 'dst');
  if (b.weights) expectArrayEqual(a.weights!, b.weights, 'weights');
}

function differs(a: Uint32Array, b: Uint32Array): boolean {
  return a.length !== b.length || a.some((x, i) => x !== b[i]);
}

const sortedDegrees = (edges: HostEdgeList) => outDegrees(hostCsrFromEdgeList(edges).csr).sort();

describe('kronecker', () => {
  it('is deterministic for a seed and differs across seeds', () => {
    const a = kronecker({ scale: 12, seed: 7, weights: true });
    expectSameEdges(kronecker({ scale: 12, seed: 7, weights: true }), a);
    expect(differs(kronecker({ scale: 12, seed: 8 }).src, a.src)).toBe(true);
    // Weights come from their own stream: asking for them leaves the edges alone.
    expectSameEdges(kronecker({ scale: 12, seed: 7 }), {
      ...a,
      weights: undefined,
    } as unknown as HostEdgeList);
  });

  it('has Graph500 sizes, [1, 255] weights and a skewed degree distribution', () => {
    const scale = 14;
    const g = kronecker({ scale, seed: 1, weights: true });
    expect(g.vertexCount).toBe(2 ** scale);
    expect(g.src.length).toBe(16 * 2 ** scale);
    expect(g.directed).toBe(false);
    const w = g.weights as Uint32Array;
    expect(w).toBeInstanceOf(Uint32Array);
    expect(w.reduce((a, x) => Math.min(a, x), 255)).toBe(1);
    expect(w.reduce((a, x) => Math.max(a, x), 0)).toBe(255);
    const mean = w.reduce((s, x) => s + x, 0) / w.length;
    expect(mean).toBeGreaterThan(124);
    expect(mean).toBeLessThan(132);
    const degrees = sortedDegrees(g);
    const avg = degrees.reduce((s, x) => s + x, 0) / degrees.length;
    expect(avg).toBeGreaterThan(10);
    // Power law: the largest hub dwarfs the average, and many vertices are isolated.
    expect(degrees[degrees.length - 1]!).toBeGreaterThan(50 * avg);
    expect(degrees.filter((d) => d === 0).length).toBeGreaterThan(0.2 * g.vertexCount);
  });

  it('permutes ids without changing the degree sequence; unpermuted vertex 0 is the hub', () => {
    const permuted = kronecker({ scale: 11, seed: 3 });
    const plain = kronecker({ scale: 11, seed: 3, permute: false });
    expect(differs(permuted.src, plain.src)).toBe(true);
    expectArrayEqual(sortedDegrees(permuted), sortedDegrees(plain), 'degree sequence');
    const d = outDegrees(hostCsrFromEdgeList(plain).csr);
    expect(d[0]).toBe(d.reduce((a, x) => Math.max(a, x), 0));
    const p = randomPermutation(1000, 9);
    expectArrayEqual(
      p.slice().sort(),
      Uint32Array.from({ length: 1000 }, (_, i) => i),
      'permutation',
    );
  });

  it('handles scale 0 and rejects bad options', () => {
    const g = kronecker({ scale: 0, edgeFactor: 4, seed: 1 });
    expect([...g.src]).toEqual([0, 0, 0, 0]);
    expect(() => kronecker({ scale: -1, seed: 1 })).toThrow(InputError);
    expect(() => kronecker({ scale: 4, seed: 1.5 })).toThrow(/seed/);
    expect(() => kronecker({ scale: 4, seed: 1, a: 0.9, b: 0.2 })).toThrow(/a \+ b \+ c <= 1/);
    expect(() => kronecker({ scale: 4, seed: 1, weights: [5, 2] })).toThrow(/weights/);
  });
});

describe('uniformRandom', () => {
  it('is deterministic, in range and without hubs', () => {
    const g = uniformRandom({ scale: 14, seed: 2 });
    expectSameEdges(uniformRandom({ scale: 14, seed: 2 }), g);
    expect(g.src.length).toBe(16 * 2 ** 14);
    expect(g.src.every((v) => v < 2 ** 14) && g.dst.every((v) => v < 2 ** 14)).toBe(true);
    const degrees = sortedDegrees(g);
    const avg = degrees.reduce((s, x) => s + x, 0) / degrees.length;
    expect(avg).toBeGreaterThan(31);
    expect(avg).toBeLessThan(32.1);
    // Binomial degrees: the maximum stays within a few standard deviations (sqrt 32 ~ 5.7) of the mean.
    expect(degrees[degrees.length - 1]!).toBeLessThan(avg + 8 * Math.sqrt(avg));
    const weighted = uniformRandom({ scale: 6, edgeFactor: 3, seed: 2, weights: [10, 12] });
    expect([...new Set(weighted.weights)].sort()).toEqual([10, 11, 12]);
  });
});

describe('randomGeometric', () => {
  it('finds exactly the pairs closer than the radius (vs all pairs)', () => {
    for (const [n, radius] of [
      [0, 0.1],
      [1, 0.5],
      [600, 0.07],
      [300, 0.9],
    ] as const) {
      const g = randomGeometric({ n, radius, seed: 4, weights: 'distance' });
      const expected: string[] = [];
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const dx = g.x[i]! - g.x[j]!;
          const dy = g.y[i]! - g.y[j]!;
          if (Math.hypot(dx, dy) < radius - 1e-6) expected.push(`${i},${j}`);
        }
      }
      const got = new Set([...g.src].map((s, k) => `${s},${g.dst[k]}`));
      expect(got.size).toBe(g.src.length);
      expect(expected.filter((e) => !got.has(e))).toEqual([]);
      // Pairs within f32 rounding of the radius may go either way; nothing farther may appear.
      expect(g.src.length - expected.length).toBeLessThanOrEqual(2);
      const bad = [...g.src].filter((s, k) => !(s < g.dst[k]! && g.weights![k]! < radius + 1e-6));
      expect(bad).toEqual([]);
    }
  });

  it('hits the asked average degree and is deterministic', () => {
    const g = randomGeometric({ n: 40000, avgDegree: 10, seed: 6 });
    expectSameEdges(randomGeometric({ n: 40000, avgDegree: 10, seed: 6 }), g);
    const avg = (2 * g.src.length) / g.vertexCount;
    // The border loses part of each disc: slightly below 10.
    expect(avg).toBeGreaterThan(9);
    expect(avg).toBeLessThan(10.3);
    expect(randomGeometric({ n: 1000, seed: 1, weights: true }).weights).toBeInstanceOf(Uint32Array);
    expect(() => randomGeometric({ n: 10, radius: 0.1, avgDegree: 3, seed: 1 })).toThrow(/not both/);
    expect(() => randomGeometric({ n: 10, radius: 0, seed: 1 })).toThrow(/radius/);
  });
});

describe('grid', () => {
  it('has corner, border and interior degrees 2, 3 and 4', () => {
    const [w, h] = [7, 5];
    const g = grid({ width: w, height: h });
    expect(g.src.length).toBe((w - 1) * h + w * (h - 1));
    const d = outDegrees(hostCsrFromEdgeList(g).csr);
    const count = (k: number) => d.filter((x) => x === k).length;
    expect(count(2)).toBe(4);
    expect(count(3)).toBe(2 * (w - 2) + 2 * (h - 2));
    expect(count(4)).toBe((w - 2) * (h - 2));
    expect(d[0]).toBe(2);
    expect(d[w + 1]).toBe(4);
    expect(grid({ width: 1, height: 4 }).src.length).toBe(3);
    expect(grid({ width: 0, height: 4 }).vertexCount).toBe(0);
    const weighted = grid({ width: 30, height: 30, weights: true, seed: 3 });
    expectArrayEqual(
      weighted.weights!,
      grid({ width: 30, height: 30, weights: true, seed: 3 }).weights!,
      'weights',
    );
    expect(() => grid({ width: -1, height: 2 })).toThrow(/width/);
  });
});
