import { checkOptionsObject, onTarget, WeftError, wgsl } from '@weft/gpu';
import type { PartitionedGraph } from '@weft/graph';
import { advancePush, DisjointSets } from '@weft/operators';
import {
  checkExchangeForm,
  type MinExchangeForm,
  MinExchangePart,
  minMergeRounds,
  type PartitionedTiming,
  PhaseClock,
} from './partitioned-exchange.ts';
import { countRoots } from './roots.ts';

export interface PartitionedComponentsOptions {
  /**
   * How a round's changed labels cross the host: `'compact'` (default) as (id, label) pairs, a changed
   * bitmap with the labels, or the whole vector, whichever has the fewest words; `'pairs'` as pairs or the
   * whole vector only, to compare.
   */
  exchange?: MinExchangeForm;
}

export interface PartitionedComponentsResult {
  /** Each vertex's component, named by its smallest vertex id (as `connectedComponents`). */
  labels: Uint32Array;
  count: number;
  /** Rounds of local union-find and exchange (the last one changes nothing). */
  rounds: number;
  /** Bytes read back from the devices plus bytes written to them, over the run. */
  exchangedBytes: number;
  /** Where the rounds' wall time went (each part's links, compression and changes count as compute). */
  timing: PartitionedTiming;
}

/**
 * Weakly connected components over a graph partitioned across devices. Every device holds the whole label
 * vector as a union-find forest (each label a smaller vertex of the same component); a round is:
 *
 *     on each part: union the ends of every arc it holds, starting from the current labels; compress
 *     the labels that changed go to the host as (id, label) pairs, a changed bitmap and labels, or the
 *       whole vector, whichever is smallest,
 *     and on to every other device, which min-merges them into its labels before its next round
 *
 * until a round changes no label anywhere: then every arc's ends share a root, the smallest vertex of
 * their component. A part links each arc it holds (an undirected edge between parts is held by one side).
 */
export async function connectedComponentsPartitioned(
  graph: PartitionedGraph,
  options: PartitionedComponentsOptions = {},
): Promise<PartitionedComponentsResult> {
  checkOptionsObject('connectedComponentsPartitioned', options);
  const form = checkExchangeForm(options.exchange);
  const n = graph.vertexCount;
  if (n === 0) {
    const timing = new PhaseClock().timing;
    return { labels: new Uint32Array(0), count: 0, rounds: 0, exchangedBytes: 0, timing };
  }
  const clock = new PhaseClock();
  const states: { sets: DisjointSets; exchange: MinExchangePart }[] = [];
  try {
    for (const p of graph.parts) {
      const device = p.graph.device;
      const sets = new DisjointSets(device, n, { label: 'partitioned cc' });
      states.push({
        sets,
        exchange: new MinExchangePart(device, sets.parents, n, 'partitioned cc', form),
      });
    }
    await Promise.all(
      states.map(({ sets, exchange }) =>
        onTarget(exchange.device, 'partitioned cc reset', async (rec) => {
          await sets.recordReset(rec);
          await exchange.recordStart(rec);
        }),
      ),
    );
    clock.mark('setupMs');
    const { rounds, exchangedBytes, timing } = await minMergeRounds(
      states.map((s) => s.exchange),
      async (i, incoming, round) => {
        const { sets } = states[i]!;
        const part = graph.parts[i]!.graph;
        // Links and compression reach a fixpoint in one pass: a part nothing came to has nothing to redo.
        if (part.edgeCount === 0 || incoming?.length === 0) return undefined;
        await onTarget(round, 'partitioned cc links', async (rec) => {
          await advancePush(
            rec,
            part,
            'all',
            wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (src != dst) { ${sets.union()}(src, dst); }
  return false;
}`,
          );
          await sets.recordCompress(rec);
        });
        return round;
      },
      () => wgsl`(v: u32) {}`,
      clock,
    );
    const finished = await Promise.all(states.map((s) => s.sets.finished()));
    if (finished.includes(false)) {
      throw new WeftError('union-find gave up on a link after too many failed compare-exchanges');
    }
    // A merge may leave a label pointing at a non-root: compressed on the device, not by the host's
    // random reads over the whole vector.
    const { sets, exchange } = states[0]!;
    await sets.recordCompress(exchange.device);
    const count = await countRoots(sets.parents, n);
    const labels = await sets.parents.download(0, n);
    clock.mark('resultMs');
    return { labels, count, rounds, exchangedBytes, timing };
  } finally {
    for (const s of states) {
      s.exchange.destroy();
      s.sets.destroy();
    }
  }
}
