import { InputError } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';

/**
 * How a push advance spreads a frontier's edges over threads.
 * - `'merge-path'`: a scan of the frontier's degrees and a load-balanced search; even for any degree skew.
 * - `'thread-mapped'`: one thread walks each frontier vertex's list; one dispatch and no scan, so cheaper
 *   per level for small frontiers of low-degree vertices (road networks, meshes), poor under skew.
 * - `'auto'`: `'thread-mapped'` when the graph's largest out-degree is at most
 *   {@link THREAD_MAPPED_MAX_DEGREE}, else `'merge-path'`; decided on the host from
 *   `graph.knownMaxOutDegree` before anything is recorded.
 * - `'per-advance'`: each advance decides on the GPU from its frontier's largest degree (the degree scan
 *   runs and also finds it; the unchosen path gets zero workgroups); nothing is read back.
 */
export type LoadBalance = 'auto' | 'merge-path' | 'thread-mapped' | 'per-advance';

const LOAD_BALANCES: readonly LoadBalance[] = ['auto', 'merge-path', 'thread-mapped', 'per-advance'];

/**
 * Throws on a `loadBalance` that is none of the strategies (JavaScript callers, typos): the advance would
 * run it as another one. {@link resolveLoadBalance} checks; callers that must refuse it before any GPU work,
 * or on a path without an advance, call it themselves.
 */
export function checkLoadBalance(loadBalance: LoadBalance | undefined): void {
  if (loadBalance !== undefined && !LOAD_BALANCES.includes(loadBalance)) {
    throw new InputError(
      `loadBalance must be one of ${LOAD_BALANCES.join(', ')}, got '${loadBalance}'`,
      'loadBalance',
    );
  }
}

/** Largest out-degree that `'auto'` (and by default `'per-advance'`) walks with a thread per vertex. */
export const THREAD_MAPPED_MAX_DEGREE = 32;

/**
 * `'auto'` made concrete for `graph` (other strategies pass through, unknown ones throw). Synchronous: the graph's largest
 * out-degree must be known (`uploadGraph` knows it; `await graph.maxOutDegree()` measures it once).
 */
export function resolveLoadBalance(
  graph: DeviceGraph,
  loadBalance: LoadBalance,
  maxDegree = THREAD_MAPPED_MAX_DEGREE,
): Exclude<LoadBalance, 'auto'> {
  checkLoadBalance(loadBalance);
  if (loadBalance !== 'auto') return loadBalance;
  const largest = graph.knownMaxOutDegree;
  if (largest === undefined) {
    throw new InputError(
      "loadBalance 'auto' needs the graph's largest out-degree: await graph.maxOutDegree() first",
      'loadBalance',
    );
  }
  return largest <= maxDegree ? 'thread-mapped' : 'merge-path';
}
