import { type CopyOptions, copy, type DeviceArray, map, type Recorder, rw, transform, wgsl } from '@weft/gpu';
import { randomU32 } from '@weft/testing/random';
import type { BenchCase } from '../../types.ts';
import { firstMismatch } from '../../validate.ts';

/** The bandwidth reference: a kernel that copies 16-byte vectors. */
export const copyKernelCase: BenchCase = copyKernelVariant('copy kernel u32');

/** Copy kernels with other vector counts per thread (for tuning runs: `--cases copy`). */
export function copyKernelVariant(name: string, options: CopyOptions = {}): BenchCase {
  return {
    name,
    family: 'copy',
    async setup(device, n, seed) {
      const host = randomU32(n, seed);
      const src = device.upload(host, { label: 'copy src' });
      const dst = device.array('u32', n, { label: 'copy dst' });
      return {
        items: n,
        bytes: 8 * n,
        run: (rec) => copy(rec, src, dst, options),
        validate: async () => firstMismatch(await dst.download(), host),
        destroy: () => {
          src.destroy();
          dst.destroy();
        },
      };
    },
  };
}

/** `copyBufferToBuffer`: what the copy engine does, for comparison with the kernel. */
export const copyEngineCase: BenchCase = {
  name: 'copy engine u32',
  family: 'copy',
  async setup(device, n, seed) {
    const host = randomU32(n, seed);
    const src = device.upload(host);
    const dst = device.array('u32', n);
    return {
      items: n,
      bytes: 8 * n,
      run: async (rec) => {
        rec.copy(src, dst);
      },
      validate: async () => firstMismatch(await dst.download(), host),
      destroy: () => {
        src.destroy();
        dst.destroy();
      },
    };
  },
};

/** moderngpu's transform with a functor that reads one array and writes another. */
export const transformCase: BenchCase = transformVariant('transform u32 (x*3+1)');

/** Transforms with other items per thread (for tuning runs). */
export function transformVariant(name: string, itemsPerThread?: number): BenchCase {
  return timesThreePlusOne(name, (src, dst) => {
    const f = wgsl`(i: u32) { ${rw(dst)}[i] = ${src}[i] * 3u + 1u; }`;
    return (rec) => transform(rec, src.length, f, itemsPerThread === undefined ? {} : { itemsPerThread });
  });
}

/** The same work as a map: the functor returns x * 3 + 1 and `map` stores it (all loads before stores). */
export const mapCase: BenchCase = timesThreePlusOne('map u32 (x*3+1)', (src, dst) => {
  const f = wgsl`(i: u32) -> u32 { return ${src}[i] * 3u + 1u; }`;
  return (rec) => map(rec, src.length, f, dst);
});

/** dst[i] = src[i] * 3 + 1 over random u32, recorded by `record`'s run function. */
function timesThreePlusOne(
  name: string,
  record: (src: DeviceArray<'u32'>, dst: DeviceArray<'u32'>) => (rec: Recorder) => Promise<void>,
): BenchCase {
  return {
    name,
    family: 'transform',
    async setup(device, n, seed) {
      const host = randomU32(n, seed);
      const src = device.upload(host);
      const dst = device.array('u32', n);
      return {
        items: n,
        bytes: 8 * n,
        run: record(src, dst),
        validate: async () =>
          firstMismatch(
            await dst.download(),
            host.map((x) => (Math.imul(x, 3) + 1) >>> 0),
          ),
        destroy: () => {
          src.destroy();
          dst.destroy();
        },
      };
    },
  };
}
