import { atomic, checkOptionsObject, InputError, onTarget, rw, u32, wgsl } from '@weft/gpu';
import type { PartitionedGraph } from '@weft/graph';
import { enact } from '@weft/operators';
import { checkSource, type LoadBalanceOption, prepareLoadBalance } from './common.ts';
import {
  checkExchangeForm,
  type MinExchangeForm,
  MinExchangePart,
  minMergeRounds,
  onEveryPart,
  type PartitionedTiming,
  PhaseClock,
  touches,
} from './partitioned-exchange.ts';
import { readDistances } from './sssp/encode.ts';
import { type SsspOptions, SsspProblem } from './sssp/sssp.ts';
import { checkNonNegativeWeights } from './weights.ts';

/**
 * `weight`: each arc's weight computed by a WGSL edge functor, as `sssp`'s option (no weight array bound);
 * `decode`: where the distances become numbers, as `sssp`'s option.
 */
export type PartitionedSsspOptions = LoadBalanceOption &
  Pick<SsspOptions, 'weight' | 'decode'> & {
    /**
     * How a round's lowered distances cross the host: `'compact'` (default) as (id, distance) pairs, a
     * changed bitmap with the distances, or the whole vector, whichever has the fewest words; `'pairs'` as
     * pairs or the whole vector only, to compare.
     */
    exchange?: MinExchangeForm;
  };

export interface PartitionedSsspResult {
  /** Distances from the source; `Infinity` where unreachable (as `sssp`). */
  distances: Float64Array;
  /** Rounds of local relaxation and exchange (the last one changes nothing). */
  rounds: number;
  /** Bellman-Ford levels run on all parts together, over the run. */
  iterations: number;
  /** Bytes read back from the devices plus bytes written to them, over the run. */
  exchangedBytes: number;
  /** Where the rounds' wall time went (each part's Bellman-Ford levels count as compute). */
  timing: PartitionedTiming;
}

/**
 * Single-source shortest paths over a graph partitioned across devices, with `sssp`'s weights (none, u32,
 * i32 >= 0 or f32 >= 0) and distances. Every device holds the whole distance vector; a round is:
 *
 *     on each part: frontier Bellman-Ford (SsspProblem's levels) over its owned rows' out-arcs, from the
 *       vertices whose distance dropped, to a local fixpoint
 *     the distances that dropped go to the host (as pairs, a bitmap and values, or the whole vector,
 *       whichever is smallest) and on to every other device, which
 *       min-merges them into its distances; an owned vertex lowered by another part joins its next frontier
 *
 * until a round lowers nothing anywhere.
 */
export async function ssspPartitioned(
  graph: PartitionedGraph,
  source: number,
  options: PartitionedSsspOptions = {},
): Promise<PartitionedSsspResult> {
  checkOptionsObject('ssspPartitioned', options);
  checkSource(graph, source);
  const form = checkExchangeForm(options.exchange);
  const n = graph.vertexCount;
  const clock = new PhaseClock();
  const weights = options.weight === undefined ? graph.parts[0]!.graph.chunkedWeights : undefined;
  if (weights && !['u32', 'i32', 'f32'].includes(weights.type)) {
    throw new InputError(`unsupported weight type ${weights.type}`, 'graph.weights');
  }
  await onEveryPart(graph.parts, async (p) => {
    if (weights) await checkNonNegativeWeights(p.graph, 'SSSP');
    await prepareLoadBalance(p.graph, options.loadBalance);
  });
  const states: { problem: SsspProblem; exchange: MinExchangePart; lo: number; hi: number }[] = [];
  try {
    for (const { graph: part, lo, hi } of graph.parts) {
      const { exchange: _, ...sssp } = options;
      const problem = new SsspProblem(part, { ...sssp, smallFrontier: 'off' });
      states.push({
        problem,
        exchange: new MinExchangePart(part.device, problem.distances, n, 'partitioned sssp', form),
        lo,
        hi,
      });
    }
    // Every part's frontier starts with the source; only its owner's rows hold arcs out of it.
    await Promise.all(
      states.map(({ problem, exchange }) =>
        onTarget(exchange.device, 'partitioned sssp reset', async (rec) => {
          await problem.reset(rec, source);
          await exchange.recordStart(rec);
        }),
      ),
    );
    const float = states[0]!.problem.float;
    let iterations = 0;
    clock.mark('setupMs');
    const { rounds, exchangedBytes, timing } = await minMergeRounds(
      states.map((s) => s.exchange),
      async (i, incoming, merge) => {
        const { problem, exchange, lo, hi } = states[i]!;
        // Only owned vertices have arcs here: a part to which no owned vertex's distance came (or that does
        // not own the source, at first) has nothing to relax.
        if (incoming ? !touches(incoming, lo, hi) : source < lo || source >= hi) return undefined;
        // The merge fills the frontier the levels start from.
        await merge.submit();
        iterations += (await enact(exchange.device, problem)).iterations;
        return exchange.device.recorder({ label: 'partitioned sssp changes' });
      },
      (i) => {
        const { problem, lo, hi } = states[i]!;
        const { items, length } = problem.queue.current;
        return wgsl`(v: u32) {
  if (v < ${u32(lo)} || v >= ${u32(hi)}) { return; }
  ${rw(items)}[atomicAdd(&${atomic(length.array)}[0], 1u)] = v;
}`;
      },
      clock,
    );
    const distances = await readDistances(states[0]!.problem.distances, n, float, { decode: options.decode });
    clock.mark('resultMs');
    return { distances, rounds, iterations, exchangedBytes, timing };
  } finally {
    for (const s of states) {
      s.exchange.destroy();
      s.problem.destroy();
    }
  }
}
