import {
  type Count,
  checkOptionsObject,
  type Functor,
  InputError,
  type Target,
  transform,
  wgsl,
} from '@weft/gpu';
import type { FrontierView } from '@weft/graph';

export interface ComputeOptions {
  /** The kernel's label in errors and in per-dispatch timing (default `'transform'`). */
  label?: string;
}

/**
 * Compute (Gunrock's `parallel_for` over vertices): calls `functor(v: u32)` for each vertex `v` of the
 * frontier, or for every vertex `0 .. n` when given `{ all: n }`.
 */
export async function compute(
  target: Target,
  frontier: FrontierView | { readonly all: Count },
  functor: Functor,
  options: ComputeOptions = {},
): Promise<void> {
  checkOptionsObject('compute', options);
  const label = options.label === undefined ? {} : { label: options.label };
  if ('all' in frontier) {
    await transform(target, frontier.all, wgsl`(v: u32) { ${functor}(v); }`, label);
    return;
  }
  if (!frontier.items) throw new InputError('a frontier needs items', 'frontier');
  await transform(target, frontier.length, wgsl`(i: u32) { ${functor}(${frontier.items}[i]); }`, label);
}
