import { wgsl } from '@weft/gpu';
import {
  exclusiveScan,
  hostMonoids,
  hostReduce,
  hostScan,
  inclusiveScan,
  reduce,
  type ScanTuning,
  transformScan,
} from '@weft/scan';
import { randomU32 } from '@weft/testing/random';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';

const plusU32 = hostMonoids.plus('u32');

/** u32 plus scan (chained scan with decoupled look-back and fallback); `tuning` for sweeps. */
export function scanVariant(name: string, inclusive: boolean, tuning?: ScanTuning): BenchCase {
  return {
    name,
    family: 'scan',
    async setup(device, n, seed) {
      const host = randomU32(n, seed);
      const input = device.upload(host, { label: 'scan input' });
      const output = device.array('u32', n, { label: 'scan output' });
      const scan = inclusive ? inclusiveScan : exclusiveScan;
      return {
        items: n,
        bytes: 8 * n,
        run: (rec) => scan(rec, input, output, tuning ? { tuning } : {}),
        validate: async () => firstMismatch(await output.download(), hostScan(host, plusU32, 0, inclusive)),
        destroy: () => {
          input.destroy();
          output.destroy();
        },
      };
    },
  };
}

/** u32 plus reduction: one atomic per workgroup. */
export function reduceVariant(name: string, tuning?: ScanTuning): BenchCase {
  return {
    name,
    family: 'reduce',
    async setup(device, n, seed) {
      const host = randomU32(n, seed);
      const input = device.upload(host, { label: 'reduce input' });
      const result = device.array('u32', 1, { label: 'reduce result' });
      return {
        items: n,
        bytes: 4 * n,
        run: (rec) => reduce(rec, input, result, tuning ? { tuning } : {}),
        validate: async () => firstMismatch(await result.download(), [hostReduce(host, plusU32, 0)]),
        destroy: () => {
          input.destroy();
          result.destroy();
        },
      };
    },
  };
}

/** moderngpu's transform_scan: exclusive scan of a functor's values (`src[i] & 0xff`), with the total on the GPU. */
export const transformScanCase: BenchCase = {
  name: 'transformScan u32 (src[i] & 0xff)',
  family: 'scan',
  async setup(device, n, seed) {
    const host = randomU32(n, seed);
    const src = device.upload(host, { label: 'transformScan src' });
    const output = device.array('u32', n, { label: 'transformScan output' });
    const total = device.array('u32', 1, { label: 'transformScan total' });
    const f = wgsl`(i: u32) -> u32 { return ${src}[i] & 0xffu; }`;
    const values = host.map((x) => x & 0xff);
    return {
      items: n,
      bytes: 8 * n,
      run: (rec) => transformScan(rec, n, f, output, { total: { array: total, index: 0 } }),
      validate: async () =>
        firstMismatch(await output.download(), hostScan(values, plusU32, 0, false)) ??
        firstMismatch(await total.download(), [hostReduce(values, plusU32, 0)]),
      destroy: () => {
        src.destroy();
        output.destroy();
        total.destroy();
      },
    };
  },
};

export const cases: BenchCase[] = [
  scanVariant('scan exclusive u32', false),
  scanVariant('scan inclusive u32', true),
  reduceVariant('reduce u32'),
  transformScanCase,
];

/** Tile-size sweep for tuning runs on a GPU (not part of the default suite). */
export const tuneCases: BenchCase[] = [
  ...[2, 4, 8].map((v) => scanVariant(`scan exclusive u32 256x${v}vec4`, false, { vectorsPerThread: v })),
  scanVariant('scan exclusive u32 512x4vec4', false, { workgroupSize: 512, vectorsPerThread: 4 }),
  scanVariant('scan exclusive u32 spin 64', false, { spinLimit: 64 }),
  ...[4, 8, 16].map((v) => reduceVariant(`reduce u32 256x${v}vec4`, { vectorsPerThread: v })),
];
