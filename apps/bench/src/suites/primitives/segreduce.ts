import { segmentedReduce, type TilePathOption } from '@weft/segreduce';
import { randomU32 } from '@weft/testing/random';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';
import { segmentLengths, segmentStarts } from './lbs.ts';

/**
 * u32 sums take prefix differences by default; `(serial walk)` measures the general path (min, max, f32 and
 * user monoids, and functors, take it).
 */
function segreduceCase(shape: 'uniform' | 'power-law', path: TilePathOption = {}): BenchCase {
  const variant = path.prefixSums === false ? ' (serial walk)' : '';
  return {
    name: `segreduce u32 plus ${shape}${variant}`,
    family: 'segreduce',
    maxItems: (device) => Math.floor(device.limits.maxStorageBufferBindingSize / 4),
    async setup(device, n, seed) {
      const lengths = segmentLengths(n, shape, seed);
      const starts = segmentStarts(lengths);
      const host = randomU32(n, seed + 1);
      const values = device.upload(host.length > 0 ? host : new Uint32Array(1), {
        label: 'segreduce values',
      });
      const offsets = device.upload(starts, { label: 'segreduce offsets' });
      const out = device.array('u32', lengths.length, { label: 'segreduce sums' });
      return {
        items: n,
        // Values and segment starts read once, one sum written per segment.
        bytes: 4 * n + 8 * lengths.length,
        run: (rec) => segmentedReduce(rec, values, offsets, lengths.length, out, { count: n, ...path }),
        async validate() {
          const want = new Uint32Array(lengths.length);
          for (let s = 0; s < lengths.length; s++) {
            let sum = 0;
            for (let i = starts[s]!; i < starts[s]! + lengths[s]!; i++) sum = (sum + host[i]!) >>> 0;
            want[s] = sum;
          }
          return firstMismatch(await out.download(), want);
        },
        destroy() {
          values.destroy();
          offsets.destroy();
          out.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = [
  segreduceCase('uniform'),
  segreduceCase('power-law'),
  segreduceCase('uniform', { prefixSums: false }),
  segreduceCase('power-law', { prefixSums: false }),
];
