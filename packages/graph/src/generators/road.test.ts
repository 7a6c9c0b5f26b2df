import { InputError } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { hostCsrFromEdgeList } from '../host-build.ts';
import type { HostCsr, HostEdgeList } from '../host-graph.ts';
import { grid } from './grid.ts';
import { road } from './road.ts';

const csrOf = (edges: HostEdgeList) => hostCsrFromEdgeList(edges).csr;

function hopDistances(csr: HostCsr, source: number): Int32Array {
  const dist = new Int32Array(csr.vertexCount).fill(-1);
  dist[source] = 0;
  const queue = [source];
  for (let head = 0; head < queue.length; head++) {
    const v = queue[head]!;
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const w = csr.targets[e]!;
      if (dist[w] === -1) {
        dist[w] = dist[v]! + 1;
        queue.push(w);
      }
    }
  }
  return dist;
}

const edgeKeys = (g: HostEdgeList) =>
  Array.from(g.src, (s, i) => `${Math.min(s, g.dst[i]!)}-${Math.max(s, g.dst[i]!)}`).sort();

describe('road', () => {
  it('is deterministic for a seed, differs across seeds; weights leave the edges alone', () => {
    const a = road({ width: 40, height: 30, seed: 5, weights: [10, 500] });
    const b = road({ width: 40, height: 30, seed: 5, weights: [10, 500] });
    expectArrayEqual(a.src, b.src, 'src');
    expectArrayEqual(a.dst, b.dst, 'dst');
    expectArrayEqual(a.weights as Uint32Array, b.weights as Uint32Array, 'weights');
    const plain = road({ width: 40, height: 30, seed: 5 });
    expectArrayEqual(plain.src, a.src, 'src without weights');
    expectArrayEqual(plain.dst, a.dst, 'dst without weights');
    expect(plain.weights).toBeUndefined();
    const other = road({ width: 40, height: 30, seed: 6 });
    expect(edgeKeys(other)).not.toEqual(edgeKeys(a));
    const w = a.weights as Uint32Array;
    expect(w.length).toBe(a.src.length);
    expect(Math.min(...w)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...w)).toBeLessThanOrEqual(500);
  });

  for (const [width, height, seed, keep, diagonals] of [
    [64, 64, 1, undefined, undefined],
    [200, 50, 2, 0.5, 0.1],
    [37, 91, 3, 0, 1],
    [100, 100, 4, 1, 1],
  ] as const) {
    it(`${width} x ${height}, keep ${keep ?? 'default'}, diagonals ${diagonals ?? 'default'}: connected, planar, degrees 1 to 4, long`, () => {
      const g = road({
        width,
        height,
        seed,
        ...(keep === undefined ? {} : { keep }),
        ...(diagonals === undefined ? {} : { diagonals }),
      });
      const n = width * height;
      expect(g.vertexCount).toBe(n);
      expect(g.directed).toBe(false);
      // Grid neighbours or one cell's diagonal, each edge once, at most one diagonal per cell.
      const seen = new Set<string>();
      const cells = new Set<number>();
      for (let i = 0; i < g.src.length; i++) {
        const [a, b] = [Math.min(g.src[i]!, g.dst[i]!), Math.max(g.src[i]!, g.dst[i]!)];
        const dx = Math.abs((a % width) - (b % width));
        const dy = Math.floor(b / width) - Math.floor(a / width);
        expect(dx <= 1 && dy <= 1 && dx + dy >= 1, `edge ${a}-${b}`).toBe(true);
        expect(seen.has(`${a}-${b}`), `duplicate ${a}-${b}`).toBe(false);
        seen.add(`${a}-${b}`);
        if (dx === 1 && dy === 1) {
          const cell = Math.floor(a / width) * width + Math.min(a % width, b % width);
          expect(cells.has(cell), `two diagonals in cell ${cell}`).toBe(false);
          cells.add(cell);
        }
      }
      const csr = csrOf(g);
      let sum = 0;
      for (let v = 0; v < n; v++) {
        const d = csr.offsets[v + 1]! - csr.offsets[v]!;
        expect(d >= 1 && d <= 4, `degree of ${v}: ${d}`).toBe(true);
        sum += d;
      }
      const mean = sum / n;
      const dist = hopDistances(csr, 0);
      expect(
        dist.every((d) => d >= 0),
        'connected',
      ).toBe(true);
      const far = dist[n - 1]!;
      expect(far).toBeGreaterThanOrEqual(Math.max(width, height) - 1);
      // A diagonal saves a shortest path at most one hop of the Manhattan distance, and it is used once.
      expect(far).toBeGreaterThanOrEqual(width + height - 2 - cells.size);
      if (keep === 0 && diagonals === 1) expect(g.src.length - cells.size).toBe(n - 1);
      if (keep === undefined) {
        // A spanning tree plus 30 % of the other grid edges: mean degree near 2.6.
        expect(mean).toBeGreaterThan(2.4);
        expect(mean).toBeLessThan(2.8);
      }
      if (keep === 1) expect(g.src.length - cells.size).toBe(grid({ width, height }).src.length);
    });
  }

  it('matches grid() with every edge kept and no diagonals', () => {
    const g = road({ width: 23, height: 17, seed: 9, keep: 1, diagonals: 0, weights: true });
    const want = grid({ width: 23, height: 17, seed: 9, weights: true });
    expect(edgeKeys(g)).toEqual(edgeKeys(want));
    expectArrayEqual(g.weights as Uint32Array, want.weights as Uint32Array, 'weights');
  });

  it('handles empty and thin shapes and rejects bad options', () => {
    expect(road({ width: 0, height: 5, seed: 1 }).src.length).toBe(0);
    expect(road({ width: 1, height: 1, seed: 1 }).vertexCount).toBe(1);
    const line = road({ width: 1, height: 50, seed: 1 });
    expect(line.src.length).toBe(49);
    expect(() => road({ width: -1, height: 2, seed: 1 })).toThrow(InputError);
    expect(() => road({ width: 2, height: 2, seed: 1.5 })).toThrow(/seed/);
    expect(() => road({ width: 2, height: 2, seed: 1, keep: 1.5 })).toThrow(/keep/);
    expect(() => road({ width: 2, height: 2, seed: 1, diagonals: Number.NaN })).toThrow(/diagonals/);
  });
});
