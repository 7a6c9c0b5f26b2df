import { compactFused } from '@weft/compact';
import { atomic, type Functor, onTarget, rw, type Target, transform, wgsl } from '@weft/gpu';
import type { FrontierBitmap, FrontierSink, FrontierView } from '@weft/graph';

export interface FilterOptions {
  /** Uniquify: keep a vertex only if its bit was clear (the bit is then set). The caller clears it. */
  visited?: FrontierBitmap;
}

/**
 * Filter (Mini-Gunrock): `output` = the vertices `v` of `input` with `predicate(v: u32) -> bool`, in input
 * order, by stream compaction; the kept count goes to `output.count` on the GPU. `predicate` must be pure
 * (the compaction may evaluate it twice). With `visited`, duplicates and already-visited vertices go too:
 * a first pass test-and-sets each survivor's bit and records the outcome as the compaction's flag.
 */
export async function filter(
  target: Target,
  input: FrontierView,
  predicate: Functor,
  output: FrontierSink,
  options: FilterOptions = {},
): Promise<void> {
  const items = input.items;
  await onTarget(target, 'filter', async (rec) => {
    let keep: Functor;
    const visited = options.visited;
    if (visited) {
      const flags = rec.scratch('u32', Math.max(1, items.length), 'filter flags');
      await transform(
        rec,
        input.length,
        wgsl`(i: u32) {
  let v = ${items}[i];
  var fresh = 0u;
  if (${predicate}(v)) {
    let bit = 1u << (v & 31u);
    fresh = select(0u, 1u, (atomicOr(&${atomic(visited.words)}[v >> 5u], bit) & bit) == 0u);
  }
  ${rw(flags)}[i] = fresh;
}`,
      );
      keep = wgsl`(i: u32) -> bool { return ${flags}[i] != 0u; }`;
    } else {
      keep = wgsl`(i: u32) -> bool { return ${predicate}(${items}[i]); }`;
    }
    await compactFused(
      rec,
      input.length,
      keep,
      wgsl`(dest: u32, source: u32) { ${rw(output.items)}[dest] = ${items}[source]; }`,
      { array: output.count, index: 0 },
      { maxCount: items.length },
    );
  });
}
