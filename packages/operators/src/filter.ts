import { compactFused } from '@weft/compact';
import {
  atomic,
  type Count,
  checkOptionsObject,
  type Functor,
  InputError,
  isGpuCount,
  lit,
  onTarget,
  rw,
  type Target,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
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
  checkOptionsObject('filter', options);
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

/**
 * Near/far split (Davidson et al.'s two-level priority queue, Gunrock's filter with a priority): each
 * vertex `v` of `input` goes to `near` when `priority(v: u32) -> u32` is below `threshold`, else to `far`,
 * both in input order (two stream compactions); the sinks' counts are set on the GPU. `threshold` is a
 * number or a u32 on the GPU, so a caller can move it between iterations without a read-back. Priorities
 * compare as u32: non-negative f32 values compare correctly through `bitcast<u32>`. `priority` must be pure.
 */
export async function splitFrontier(
  target: Target,
  input: FrontierView,
  priority: Functor,
  threshold: Count,
  near: FrontierSink,
  far: FrontierSink,
): Promise<void> {
  if (near.items === far.items || near.count === far.count) {
    throw new InputError('near and far must be different sinks', 'far');
  }
  const items = input.items;
  for (const [name, sink] of [
    ['near', near],
    ['far', far],
  ] as const) {
    if (sink.items.length < items.length) {
      throw new InputError(`${sink.items.length} slots cannot hold the input's ${items.length}`, name);
    }
  }
  const limit = isGpuCount(threshold)
    ? wgsl`() -> u32 { return ${threshold.array}[${u32(threshold.index)}]; }`
    : wgsl`() -> u32 { return ${u32(threshold)}; }`;
  await onTarget(target, 'splitFrontier', async (rec) => {
    for (const [sink, wantNear] of [
      [near, true],
      [far, false],
    ] as const) {
      await compactFused(
        rec,
        input.length,
        wgsl`(i: u32) -> bool { return (${priority}(${items}[i]) < ${limit}()) == ${lit(String(wantNear))}; }`,
        wgsl`(dest: u32, source: u32) { ${rw(sink.items)}[dest] = ${items}[source]; }`,
        { array: sink.count, index: 0 },
        { maxCount: items.length },
      );
    }
  });
}
