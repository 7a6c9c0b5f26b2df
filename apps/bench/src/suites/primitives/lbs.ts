import { rw, wgsl } from '@weft/gpu';
import { transformLbs } from '@weft/lbs';
import { mulberry32 } from '@weft/testing/random';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';

/** Mean segment length of the generated inputs: about a sparse graph's average degree. */
const MEAN_LENGTH = 16;

/**
 * Segment lengths that add up to exactly `n` items with mean about 16: `uniform` in [0, 32], or
 * `power-law` (Pareto, exponent 2.5, 20% empty, capped at n / 4) like the degrees of a scale-free graph.
 */
export function segmentLengths(n: number, shape: 'uniform' | 'power-law', seed: number): Uint32Array {
  const r = mulberry32(seed);
  const lengths: number[] = [];
  let total = 0;
  while (total < n) {
    let len: number;
    if (shape === 'uniform') len = Math.floor(r() * (2 * MEAN_LENGTH + 1));
    else if (r() < 0.2) len = 0;
    else len = Math.min(Math.floor(6.7 * (1 - r()) ** (-1 / 1.5)), Math.max(1, Math.floor(n / 4)));
    len = Math.min(len, n - total);
    lengths.push(len);
    total += len;
  }
  return Uint32Array.from(lengths);
}

/** Exclusive scan of the lengths: each segment's first item. */
export function segmentStarts(lengths: Uint32Array): Uint32Array {
  const starts = new Uint32Array(lengths.length);
  let at = 0;
  for (let s = 0; s < lengths.length; s++) {
    starts[s] = at;
    at += lengths[s]!;
  }
  return starts;
}

function lbsCase(shape: 'uniform' | 'power-law'): BenchCase {
  return {
    name: `lbs ${shape} (transformLbs seg)`,
    family: 'lbs',
    maxItems: (device) => Math.floor(device.limits.maxStorageBufferBindingSize / 4),
    async setup(device, n, seed) {
      const lengths = segmentLengths(n, shape, seed);
      const starts = segmentStarts(lengths);
      const offsets = device.upload(starts, { label: 'lbs offsets' });
      const out = device.array('u32', Math.max(1, n), { label: 'lbs segments' });
      const f = wgsl`(index: u32, seg: u32, rank: u32) { ${rw(out)}[index] = seg; }`;
      return {
        items: n,
        // Each item's segment written, each segment start read once.
        bytes: 4 * n + 4 * lengths.length,
        run: (rec) => transformLbs(rec, n, offsets, lengths.length, f),
        async validate() {
          const want = new Uint32Array(n);
          for (let s = 0; s < lengths.length; s++) want.fill(s, starts[s]!, starts[s]! + lengths[s]!);
          return firstMismatch(await out.download(0, n), want);
        },
        destroy() {
          offsets.destroy();
          out.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = [lbsCase('uniform'), lbsCase('power-law')];
