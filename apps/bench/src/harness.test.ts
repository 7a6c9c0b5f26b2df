import type { WeftDevice } from '@weft/gpu';
import { expect, test } from 'vitest';
import { measureCases } from './harness.ts';
import { withComparisons } from './report.ts';
import type { BenchCase } from './types.ts';

/** A device whose submits report the GPU time the case set for the current source. */
function fakeDevice(gpuMs: () => number): WeftDevice {
  return {
    recorder: () => ({
      submit: async () => ({ wallMs: gpuMs() + 0.5, gpuNs: gpuMs() * 1e6, dispatches: 3 }),
    }),
  } as unknown as WeftDevice;
}

const options = { repeat: 4, warmupMs: 0, batchMs: 0, maxBatch: 1, seed: 1 };

test('sources: per-source times and edges, median time, harmonic-mean TEPS, validation of every source', async () => {
  // Source i takes (i + 1) ms and traverses 1000 * (i + 1) edges... except source 2: 3000 edges in 6 ms.
  let current = 0;
  const ms = [1, 2, 6, 4];
  const edges = [1000, 2000, 3000, 4000];
  const validated: number[] = [];
  const c: BenchCase = {
    name: 'bfs fake',
    family: 'algorithms',
    async setup() {
      return {
        items: edges[0]!,
        bytes: 0,
        sources: {
          vertices: [10, 11, 12, 13],
          select: async (i) => {
            current = i;
            return { edges: edges[i]!, iterations: 2 };
          },
        },
        run: async () => {},
        validate: async () => {
          validated.push(current);
          return current === 3 ? 'wrong depth' : null;
        },
        destroy() {},
      };
    },
  };
  const [m] = await measureCases(
    fakeDevice(() => ms[current]!),
    'algorithms',
    [c],
    [100],
    options,
  );
  const s = m!.sources!;
  expect(s.timesMs).toEqual(ms);
  expect(s.edges).toEqual(edges);
  expect(s.submitsPerSource).toBe(1);
  // TEPS 1e6, 1e6, 5e5, 1e6: harmonic mean 4 / (1 + 1 + 2 + 1) * 1e6 = 8e5.
  expect(s.harmonicMeanTeps).toBeCloseTo(8e5, 3);
  expect(m!.itemsPerSec).toBeCloseTo(8e5, 3);
  expect(m!.timeMs).toBe(3); // median of 1, 2, 4, 6
  expect(s.minMs).toBe(1);
  expect(s.maxMs).toBe(6);
  expect(s.msPerIteration).toBe(1.5);
  expect(validated).toEqual([0, 1, 2, 3]);
  expect(m!.valid).toBe(false);
  expect(m!.error).toBe('source 13 (#3): wrong depth');
});

test('sources: validateEvery samples every k-th source and the last', async () => {
  let current = 0;
  const validated: number[] = [];
  const c: BenchCase = {
    name: 'sssp fake',
    family: 'algorithms',
    async setup() {
      return {
        items: 1,
        bytes: 0,
        sources: {
          vertices: Array.from({ length: 20 }, (_, i) => i),
          validateEvery: 8,
          select: async (i) => {
            current = i;
            return { edges: 100 };
          },
        },
        run: async () => {},
        validate: async () => {
          validated.push(current);
          return null;
        },
        destroy() {},
      };
    },
  };
  const [m] = await measureCases(
    fakeDevice(() => 1),
    'algorithms',
    [c],
    [1],
    options,
  );
  expect(validated).toEqual([0, 8, 16, 19]);
  expect(m!.sources!.validated).toBe(4);
  expect(m!.valid).toBe(true);
  expect(m!.sources!.iterations).toBeUndefined();
});

test('once: a case independent of n runs at the smallest size it supports; paper rows are compared', async () => {
  const sizes: number[] = [];
  const make = (name: string, extra: Partial<BenchCase>): BenchCase => ({
    name,
    family: 'dynamic',
    async setup(_device, n) {
      sizes.push(n);
      return {
        items: 2 ** 20,
        bytes: 0,
        setup: `setup at ${n}`,
        run: async () => {},
        validate: async () => null,
        destroy() {},
      };
    },
    ...extra,
  });
  const cases = [
    make('dynamic bulk build fake', { once: true, paperRow: 'bulk build', maxItems: () => 2 ** 18 }),
    make('dynamic insert edges fake', { paperRow: 'edge insertion' }),
  ];
  // 1 ms per run: 2^20 items a millisecond.
  const ms = await measureCases(
    fakeDevice(() => 1),
    'dynamic',
    cases,
    [2 ** 20, 2 ** 16, 2 ** 18],
    options,
  );
  expect(sizes).toEqual([2 ** 16, 2 ** 20, 2 ** 16, 2 ** 18]);
  expect(ms.map((m) => m.paperRow)).toEqual([
    'bulk build',
    'edge insertion',
    'edge insertion',
    'edge insertion',
  ]);
  expect(ms[0]!.setup).toBe(`setup at ${2 ** 16}`);
  const report = withComparisons(ms, undefined);
  // The bulk build row has a figure at any size; edge insertion only at the paper's 2^20 batches.
  expect(report.map((m) => m.comparison?.anchor)).toEqual([
    'Awad 2020 bulk build',
    'Awad 2020 edge insertion',
    undefined,
    undefined,
  ]);
  const insertion = report[1]!.comparison!;
  expect(insertion.target).toBe(3);
  expect(insertion.ratio).toBeCloseTo(2 ** 20 / 1e-3 / 665e6, 6);
});
