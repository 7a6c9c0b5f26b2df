import { compactArray } from '@weft/compact';
import { wgsl } from '@weft/gpu';
import { randomU32 } from '@weft/testing/random';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';

/**
 * Stream compaction at 50% density: keeps the u32 values >= 2^31, in order (upsweep, chained scan of tile
 * counts, downsweep). Minimum traffic: read n values once (the keep bits are re-read from a 1/32-size
 * array) and write the n/2 kept values.
 */
export const compactCase: BenchCase = compactVariant('compact u32 50%', false);

/** The same in one pass (chained scan of the keep flags that scatters as it goes). */
export const compactFusedCase: BenchCase = compactVariant('compact u32 50% fused', true);

function compactVariant(name: string, fused: boolean): BenchCase {
  return {
    name,
    family: 'compact',
    async setup(device, n, seed) {
      const host = randomU32(n, seed);
      const input = device.upload(host, { label: 'compact input' });
      const output = device.array('u32', n, { label: 'compact output' });
      const kept = device.array('u32', 1, { label: 'compact kept' });
      const keep = wgsl`(i: u32) -> bool { return ${input}[i] >= 0x80000000u; }`;
      return {
        items: n,
        bytes: 4 * n + 4 * Math.ceil(n / 2),
        run: (rec) => compactArray(rec, input, output, keep, { array: kept, index: 0 }, { fused }),
        validate: async () => {
          const want = host.filter((x) => x >= 0x80000000);
          return (
            firstMismatch(await kept.download(), [want.length]) ??
            firstMismatch((await output.download()).subarray(0, want.length), want)
          );
        },
        destroy: () => {
          input.destroy();
          output.destroy();
          kept.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = [compactCase, compactFusedCase];
