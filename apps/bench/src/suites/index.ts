import type { BenchGraph } from '../graphs.ts';
import type { BenchCase } from '../types.ts';
import {
  copyEngineCase,
  copyKernelCase,
  copyKernelVariant,
  mapCase,
  transformCase,
  transformVariant,
} from './primitives/copy.ts';

export const SUITES = ['primitives', 'build', 'operators', 'algorithms', 'dynamic', 'tune'] as const;

/** Suites by name; each is a list of cases run at every requested size. Modules load on demand. */
export async function loadSuite(name: string): Promise<BenchCase[]> {
  switch (name) {
    case 'primitives': {
      const modules = await Promise.all([
        import('./primitives/scan.ts'),
        import('./primitives/compact.ts'),
        import('./primitives/lbs.ts'),
        import('./primitives/segreduce.ts'),
        import('./primitives/sort.ts'),
      ]);
      return [copyKernelCase, copyEngineCase, transformCase, mapCase, ...modules.flatMap((m) => m.cases)];
    }
    case 'build':
      return [...(await import('./build.ts')).cases, ...(await import('./load.ts')).cases];
    case 'operators':
      return (await import('./operators.ts')).cases;
    case 'algorithms': {
      const [gpu, cpu] = await Promise.all([import('./algorithms.ts'), import('./cpu-baselines.ts')]);
      return [...gpu.cases, ...cpu.cases];
    }
    case 'dynamic':
      return (await import('./dynamic.ts')).cases;
    case 'tune':
      // Tuning sweeps and ablations (not part of the default run): the bandwidth kernels' work per thread,
      // what each step of a BFS claim costs in a push advance, the sort's tile shapes, and result read-backs.
      return [
        ...(await import('./advance-ablation.ts')).cases,
        ...(await import('./readback.ts')).cases,
        ...[1, 2, 4].map((v) => copyKernelVariant(`copy kernel u32 vec4x${v}`, { vectorsPerThread: v })),
        ...[1, 2].map((v) =>
          copyKernelVariant(`copy kernel u32 vec4x${v} grid 4096`, {
            vectorsPerThread: v,
            maxWorkgroups: 4096,
          }),
        ),
        ...[1, 2, 4, 8, 16].map((v) => transformVariant(`transform u32 x${v}`, v)),
        ...(await import('./primitives/sort.ts')).tuneCases,
      ];
    default:
      throw new Error(`unknown suite '${name}' (known: ${SUITES.join(', ')})`);
  }
}

/** Suites that run on chosen graphs (`--graph`, `--kron`, ...) instead of their default shapes and sizes. */
export const GRAPH_SUITES: readonly string[] = ['operators', 'algorithms'];

/** A graph suite's cases on one chosen graph, run at that graph's own size (its arc count). */
export async function loadGraphSuite(name: string, g: BenchGraph): Promise<BenchCase[]> {
  switch (name) {
    case 'operators':
      return (await import('./operators.ts')).casesForGraph(g);
    case 'algorithms': {
      const [gpu, cpu] = await Promise.all([import('./algorithms.ts'), import('./cpu-baselines.ts')]);
      return [...gpu.casesForGraph(g), ...cpu.baselinesForGraph(g)];
    }
    default:
      throw new Error(
        `suite '${name}' does not run on chosen graphs (those that do: ${GRAPH_SUITES.join(', ')})`,
      );
  }
}

/**
 * Sizes a suite runs at when `--sizes` is not given: small on software adapters (CPU figures, quick),
 * the issues' ranges on a GPU: primitives 2^16..2^27 items; construction from 2^20..2^24 input edges;
 * operators and algorithms on 2^22..2^26 arcs (Kronecker scale 17..21); dynamic batches of 2^16..2^22 edges.
 */
export function defaultSizes(suite: string, software: boolean): number[] {
  const pow = (xs: number[]) => xs.map((x) => 2 ** x);
  switch (suite) {
    case 'build':
      return software ? pow([14, 16]) : pow([20, 22, 24]);
    case 'algorithms':
    case 'operators':
      return software ? pow([14, 16]) : pow([22, 24, 26]);
    case 'dynamic':
      return software ? pow([10, 12]) : pow([16, 18, 20, 22]);
    default:
      return software ? pow([16, 18, 20]) : pow([16, 18, 20, 22, 24, 26, 27]);
  }
}
