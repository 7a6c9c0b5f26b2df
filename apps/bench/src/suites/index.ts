import type { BenchCase } from '../types.ts';
import { copyEngineCase, copyKernelCase, transformCase } from './primitives/copy.ts';

/** Suites by name; each is a list of cases run at every requested size. */
export async function loadSuite(name: string): Promise<BenchCase[]> {
  switch (name) {
    case 'primitives':
      return [copyKernelCase, copyEngineCase, transformCase, ...(await optionalPrimitiveCases())];
    default:
      throw new Error(`unknown suite '${name}' (known: ${SUITES.join(', ')})`);
  }
}

export const SUITES = ['primitives'] as const;

/** Cases of the transform packages, each in its own module. */
async function optionalPrimitiveCases(): Promise<BenchCase[]> {
  return [];
}
