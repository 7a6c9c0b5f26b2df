import type { BenchCase } from '../types.ts';
import {
  copyEngineCase,
  copyKernelCase,
  copyKernelVariant,
  transformCase,
  transformVariant,
} from './primitives/copy.ts';

/** Suites by name; each is a list of cases run at every requested size. */
export async function loadSuite(name: string): Promise<BenchCase[]> {
  switch (name) {
    case 'primitives':
      return [copyKernelCase, copyEngineCase, transformCase, ...(await optionalPrimitiveCases())];
    case 'tune':
      // Tuning sweep of the bandwidth kernels' work per thread (not part of the default run).
      return [
        ...[1, 2, 4].map((v) => copyKernelVariant(`copy kernel u32 vec4x${v}`, { vectorsPerThread: v })),
        ...[1, 2].map((v) =>
          copyKernelVariant(`copy kernel u32 vec4x${v} grid 4096`, {
            vectorsPerThread: v,
            maxWorkgroups: 4096,
          }),
        ),
        copyKernelVariant('copy kernel u32 vec4x1 again', { vectorsPerThread: 1 }),
        ...[1, 2, 4, 8, 16].map((v) => transformVariant(`transform u32 x${v}`, v)),
      ];
    default:
      throw new Error(`unknown suite '${name}' (known: ${SUITES.join(', ')})`);
  }
}

export const SUITES = ['primitives', 'tune'] as const;

/** Cases of the transform packages, each in its own module. */
async function optionalPrimitiveCases(): Promise<BenchCase[]> {
  const modules = await Promise.all([import('./primitives/lbs.ts'), import('./primitives/segreduce.ts')]);
  return modules.flatMap((m) => m.cases);
}
