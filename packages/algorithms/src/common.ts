import { type DeviceArray, InputError, type Recorder, rw, transform, u32, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import type { EnactorOptions } from '@weft/operators';

/** Options every traversal takes: the enactor's batching, cancellation and progress. */
export type RunOptions = Pick<EnactorOptions, 'signal' | 'onProgress' | 'batch' | 'maxBatch'>;

/** How push advances spread edges over threads (see `advancePush`): merge-path (default) or thread-mapped. */
export interface LoadBalanceOption {
  loadBalance?: 'merge-path' | 'thread-mapped';
}

export function checkSource(graph: DeviceGraph, source: number, who: string): void {
  if (!Number.isInteger(source) || source < 0 || source >= graph.vertexCount) {
    throw new InputError(`source ${source} is not a vertex (the graph has ${graph.vertexCount})`, who);
  }
}

/** Records `array[index] = value`. */
export async function recordSet(
  rec: Recorder,
  array: DeviceArray,
  index: number,
  value: number,
): Promise<void> {
  await transform(rec, 1, wgsl`(i: u32) { ${rw(array)}[${u32(index)}] = ${u32(value)}; }`);
}
