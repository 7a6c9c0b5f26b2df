import { type Count, type Functor, InputError, type Target, transform, wgsl } from '@weft/gpu';
import type { FrontierView } from '@weft/graph';

/**
 * Compute (Gunrock's `parallel_for` over vertices): calls `functor(v: u32)` for each vertex `v` of the
 * frontier, or for every vertex `0 .. n` when given `{ all: n }`.
 */
export async function compute(
  target: Target,
  frontier: FrontierView | { readonly all: Count },
  functor: Functor,
): Promise<void> {
  if ('all' in frontier) {
    await transform(target, frontier.all, wgsl`(v: u32) { ${functor}(v); }`);
    return;
  }
  if (!frontier.items) throw new InputError('a frontier needs items', 'frontier');
  await transform(target, frontier.length, wgsl`(i: u32) { ${functor}(${frontier.items}[i]); }`);
}
