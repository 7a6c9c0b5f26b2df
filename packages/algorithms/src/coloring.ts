import { checkOptionsObject, type DeviceArray, type Functor, type Recorder, rw, u32, wgsl } from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import type { RunOptions } from './common.ts';
import { checkPrioritySeed, PriorityRounds, runPriorityRounds } from './priority.ts';
import { undirectedGraphOf } from './undirected.ts';

const NONE = 0xffffffff;

export interface ColoringResult {
  /** A proper coloring: neighbors never share a color. Colors are 0 .. colorCount - 1 with gaps possible. */
  colors: Uint32Array;
  /** Distinct colors used. */
  colorCount: number;
  iterations: number;
  /** True when `graph` was directed and its arcs were read as undirected edges. */
  undirected: boolean;
}

/**
 * Graph coloring by Jones-Plassmann with random priorities, two colors per round (Gunrock's min/max
 * variant): in round r, uncolored vertices that beat every uncolored neighbor take color 2r, those that
 * every uncolored neighbor beats take 2r + 1. Each is an independent set, so the coloring is proper. One
 * neighborhood reduction (or of two flags) and one compute per round.
 */
export class ColoringProblem extends PriorityRounds<{ colors: Uint32Array; colorCount: number }> {
  constructor(graph: DeviceGraph, seed = 1) {
    super(graph, seed, 'graph coloring');
  }

  /** Per vertex: its color, 0xffffffff while uncolored. */
  get colors(): DeviceArray<'u32'> {
    return this.values;
  }

  protected async resetValues(rec: Recorder): Promise<void> {
    await rec.fill(this.values, NONE);
  }

  // bit 0: an uncolored neighbor beats v; bit 1: v beats an uncolored neighbor.
  protected neighborFlags(beats: Functor): Functor {
    return wgsl`(v: u32, w: u32, edge: u32) -> u32 {
  if (${this.values}[w] != ${u32(NONE)}) { return 0u; }
  return select(2u, 1u, ${beats}(w, v));
}`;
  }

  protected decide(iteration: number): Functor {
    const colors = rw(this.values);
    return wgsl`(v: u32) {
  var c = ${colors}[v];
  if (c == ${u32(NONE)}) {
    let f = ${this.flags}[v];
    if ((f & 1u) == 0u) { c = ${u32(2 * iteration)}; } else if ((f & 2u) == 0u) { c = ${u32(2 * iteration + 1)}; }
    ${colors}[v] = c;
  }
  ${rw(this.undecided)}[v] = select(0u, 1u, c == ${u32(NONE)});
}`;
  }

  async result(): Promise<{ colors: Uint32Array; colorCount: number }> {
    const colors = await this.hostValues();
    return { colors, colorCount: new Set(colors).size };
  }
}

/**
 * A proper vertex coloring of an undirected graph (a directed one is read as the simple undirected graph of its arcs, and
 * the result says so); `seed` picks the random priorities.
 */
export async function graphColoring(
  graph: DeviceGraph,
  options: RunOptions & { seed?: number } = {},
): Promise<ColoringResult> {
  checkOptionsObject('graphColoring', options);
  checkDeviceGraph(graph);
  const seed = checkPrioritySeed(options.seed, 'graphColoring');
  const simple = await undirectedGraphOf(graph);
  try {
    const result = await runPriorityRounds(new ColoringProblem(simple, seed), options);
    return { ...result, undirected: graph.directed };
  } finally {
    if (simple !== graph) simple.destroy();
  }
}
