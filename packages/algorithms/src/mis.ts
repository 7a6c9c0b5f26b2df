import { checkOptionsObject, type DeviceArray, type Functor, type Recorder, rw, u32, wgsl } from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import type { RunOptions } from './common.ts';
import { checkPrioritySeed, PriorityRounds, runPriorityRounds } from './priority.ts';
import { undirectedGraphOf } from './undirected.ts';

const UNDECIDED = 0;
const IN = 1;
const OUT = 2;

export interface MisResult {
  /** 1 for vertices in the set, 0 for the others. */
  inSet: Uint8Array;
  size: number;
  iterations: number;
  /** True when `graph` was directed and its arcs were read as undirected edges. */
  undirected: boolean;
}

/**
 * Maximal independent set (Luby, random priorities): each round, an undecided vertex that beats all its
 * undecided neighbors joins the set, and the undecided neighbors of set members leave it. One neighborhood
 * reduction and one compute per round over all vertices; about log n rounds.
 */
export class MisProblem extends PriorityRounds<{ inSet: Uint8Array; size: number }> {
  constructor(graph: DeviceGraph, seed = 1) {
    super(graph, seed, 'maximal independent set');
  }

  /** Per vertex: 0 undecided, 1 in the set, 2 out. */
  get state(): DeviceArray<'u32'> {
    return this.values;
  }

  protected async resetValues(rec: Recorder): Promise<void> {
    rec.clear(this.values);
  }

  // bit 0: an undecided neighbor beats v; bit 1: a neighbor is in the set.
  protected neighborFlags(beats: Functor): Functor {
    return wgsl`(v: u32, w: u32, edge: u32) -> u32 {
  let s = ${this.values}[w];
  return select(0u, 1u, s == ${u32(UNDECIDED)} && ${beats}(w, v)) | select(0u, 2u, s == ${u32(IN)});
}`;
  }

  protected decide(): Functor {
    const state = rw(this.values);
    return wgsl`(v: u32) {
  var s = ${state}[v];
  let b = ${this.flags}[v];
  // A neighbor joined last round: out. Else a local maximum among the undecided: in.
  if (s == ${u32(UNDECIDED)}) {
    if ((b & 2u) != 0u) { s = ${u32(OUT)}; } else if ((b & 1u) == 0u) { s = ${u32(IN)}; }
    ${state}[v] = s;
  }
  ${rw(this.undecided)}[v] = select(0u, 1u, s == ${u32(UNDECIDED)});
}`;
  }

  async result(): Promise<{ inSet: Uint8Array; size: number }> {
    const inSet = Uint8Array.from(await this.hostValues(), (s) => (s === IN ? 1 : 0));
    return { inSet, size: inSet.reduce((a, b) => a + b, 0) };
  }
}

/**
 * A maximal independent set of an undirected graph (a directed one is read as the simple undirected graph of its arcs, and
 * the result says so); `seed` picks the random priorities.
 */
export async function maximalIndependentSet(
  graph: DeviceGraph,
  options: RunOptions & { seed?: number } = {},
): Promise<MisResult> {
  checkOptionsObject('maximalIndependentSet', options);
  checkDeviceGraph(graph);
  const seed = checkPrioritySeed(options.seed, 'maximalIndependentSet');
  const simple = await undirectedGraphOf(graph);
  try {
    const result = await runPriorityRounds(new MisProblem(simple, seed), options);
    return { ...result, undirected: graph.directed };
  } finally {
    if (simple !== graph) simple.destroy();
  }
}
