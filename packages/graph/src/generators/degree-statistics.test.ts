import { describe, expect, it } from 'vitest';
import { hostCsrFromEdgeList } from '../host-build.ts';
import { type HostCsr, outDegrees } from '../host-graph.ts';
import { randomGeometric } from './geometric.ts';
import { kronecker } from './kronecker.ts';
import { uniformRandom } from './uniform.ts';

/*
 * The generators against the statistics their definitions publish: the R-MAT / Graph500 initiator and expected
 * degrees, the binomial degrees of a uniform random graph, the hop diameter of a random geometric graph.
 */

const popcount = (x: number) => {
  let c = 0;
  for (let v = x; v !== 0; v &= v - 1) c++;
  return c;
};

function binomial(n: number, k: number): number {
  let c = 1;
  for (let i = 0; i < k; i++) c = (c * (n - i)) / (i + 1);
  return c;
}

/** `observed` of `trials` draws with probability `p`, within 5 standard deviations. */
function expectBinomialCount(observed: number, trials: number, p: number, what: string) {
  const mean = trials * p;
  const sd = Math.sqrt(trials * p * (1 - p));
  expect(Math.abs(observed - mean), `${what}: ${observed} vs expected ${mean.toFixed(1)}`).toBeLessThan(
    5 * sd + 1,
  );
}

describe('Kronecker (Graph500: A, B, C, D = 0.57, 0.19, 0.19, 0.05)', () => {
  const scale = 14;
  const g = kronecker({ scale, seed: 11, permute: false });
  const m = g.src.length;

  it('picks the quadrants with the initiator probabilities at every level', () => {
    const initiator = [0.57, 0.19, 0.19, 0.05];
    for (let level = 0; level < scale; level++) {
      const counts = [0, 0, 0, 0];
      for (let e = 0; e < m; e++) {
        // Quadrant index: target bit (B), source bit (C), both (D).
        const q = ((g.dst[e]! >>> level) & 1) | (((g.src[e]! >>> level) & 1) << 1);
        counts[q]!++;
      }
      for (let q = 0; q < 4; q++)
        expectBinomialCount(counts[q]!, m, initiator[q]!, `level ${level} quadrant ${'ABCD'[q]}`);
    }
  });

  it('gives a vertex whose id has k one-bits the R-MAT expected degree m (A+B)^(S-k) (C+D)^k', () => {
    // Grouped by popcount, a group's share of sources is Binomial(S, C + D) at k, of targets Binomial(S, B + D).
    const bySource = new Array<number>(scale + 1).fill(0);
    const byTarget = new Array<number>(scale + 1).fill(0);
    for (let e = 0; e < m; e++) {
      bySource[popcount(g.src[e]!)]!++;
      byTarget[popcount(g.dst[e]!)]!++;
    }
    for (let k = 0; k <= scale; k++) {
      const p = binomial(scale, k) * 0.76 ** (scale - k) * 0.24 ** k;
      expectBinomialCount(bySource[k]!, m, p, `sources with ${k} one-bits`);
      expectBinomialCount(byTarget[k]!, m, p, `targets with ${k} one-bits`);
    }
    // Vertex 0 alone: m * 0.76^S out-edges expected (about 5,600 here).
    let zero = 0;
    for (let e = 0; e < m; e++) if (g.src[e] === 0) zero++;
    expectBinomialCount(zero, m, 0.76 ** scale, 'out-edges of vertex 0');
  });
});

function degreeMoments(csr: HostCsr): { mean: number; variance: number; max: number; zeros: number } {
  const d = outDegrees(csr);
  let sum = 0;
  let sq = 0;
  let max = 0;
  let zeros = 0;
  for (const x of d) {
    sum += x;
    sq += x * x;
    max = Math.max(max, x);
    if (x === 0) zeros++;
  }
  const mean = sum / d.length;
  return { mean, variance: sq / d.length - mean * mean, max, zeros };
}

describe('uniform random (GAP -u)', () => {
  it('has binomial degrees: mean 2 x edge factor, variance equal to the mean, no isolated vertices', () => {
    const { csr, report } = hostCsrFromEdgeList(uniformRandom({ scale: 14, seed: 21 }));
    const { mean, variance, zeros } = degreeMoments(csr);
    // 16 * 2^14 edges, both directions: degree ~ Binomial(2 m, 1 / n) ~ Poisson(32), less the few merged.
    expect(report.duplicatesDropped + report.selfLoopsDropped).toBeLessThan(0.01 * 16 * 2 ** 14);
    expect(mean).toBeGreaterThan(31.5);
    expect(mean).toBeLessThanOrEqual(32);
    expect(variance / mean).toBeGreaterThan(0.9);
    expect(variance / mean).toBeLessThan(1.1);
    expect(zeros).toBe(0);
  });
});

describe('random geometric (road-like)', () => {
  it('has Poisson degrees of the asked mean and a hop diameter of order 1 / radius', () => {
    const n = 20000;
    const avgDegree = 8;
    const g = randomGeometric({ n, avgDegree, seed: 5 });
    const radius = Math.sqrt(avgDegree / (Math.PI * n));
    const { csr } = hostCsrFromEdgeList(g);
    const { mean, variance, max } = degreeMoments(csr);
    // Border points see less of their disc, so the mean is a little under 8; the spread stays Poisson-like
    // and the degree bounded (no hubs: road-like).
    expect(mean).toBeGreaterThan(7.7);
    expect(mean).toBeLessThan(8.1);
    expect(variance / mean).toBeGreaterThan(0.8);
    expect(variance / mean).toBeLessThan(1.3);
    expect(max).toBeLessThan(30);
    // BFS from the point nearest the corner (0, 0): every hop covers less than the radius, so the farthest
    // point it reaches is at least distance / radius hops away; a random graph would need about log n.
    let start = 0;
    for (let v = 0; v < n; v++) if (g.x[v]! + g.y[v]! < g.x[start]! + g.y[start]!) start = v;
    const depth = new Int32Array(n).fill(-1);
    depth[start] = 0;
    const queue = [start];
    let far = start;
    for (let head = 0; head < queue.length; head++) {
      const v = queue[head]!;
      if (depth[v]! > depth[far]!) far = v;
      for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
        const t = csr.targets[e]!;
        if (depth[t] === -1) {
          depth[t] = depth[v]! + 1;
          queue.push(t);
        }
      }
    }
    // With degree 8 the giant component holds nearly every point and spans the square.
    expect(queue.length).toBeGreaterThan(0.95 * n);
    const distance = Math.hypot(g.x[far]! - g.x[start]!, g.y[far]! - g.y[start]!);
    expect(distance).toBeGreaterThan(1.2);
    expect(depth[far]!).toBeGreaterThanOrEqual(Math.floor(distance / radius));
    // Paths in a connected geometric graph stretch the straight line only a little.
    expect(depth[far]!).toBeLessThan((2 * distance) / radius);
  });
});
