import {
  bitOr,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  type Recorder,
  u32,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { compute, neighborhoodReduce } from '@weft/operators';
import { reduce } from '@weft/scan';
import { type Problem, type RunOptions, runProblem } from './common.ts';

/**
 * `(a: u32, b: u32) -> bool`: a's random priority beats b's (Luby / Jones-Plassmann). Priorities are a
 * hash of the id and the seed, ties broken by id, so every pair is ordered and runs are reproducible.
 */
function beatsFunctor(seed: number): Functor {
  const hash = wgsl`(x: u32) -> u32 {
  // PCG output permutation of an LCG step: a cheap, well-mixed 32-bit hash.
  let s = x * 747796405u + 2891336453u;
  let w = ((s >> ((s >> 28u) + 4u)) ^ s) * 277803737u;
  return (w >> 22u) ^ w;
}`;
  return wgsl`(a: u32, b: u32) -> bool {
  let ha = ${hash}(a ^ ${u32(seed >>> 0)});
  let hb = ${hash}(b ^ ${u32(seed >>> 0)});
  return ha > hb || (ha == hb && a > b);
}`;
}

function checkUndirected(graph: DeviceGraph, who: string): void {
  if (graph.directed) {
    throw new InputError(
      `${who} needs an undirected graph: build it with hostCsrFromEdgeList(..., { symmetrize: true })`,
      'graph',
    );
  }
}

function vertexArray(graph: DeviceGraph, label: string): DeviceArray<'u32'> {
  return graph.device.array('u32', Math.max(1, graph.vertexCount), { label });
}

/**
 * The round structure MIS and coloring share (Luby / Jones-Plassmann with random priorities): each round,
 * one neighborhood reduction (bitwise or) of a functor's flags over every vertex's neighbors, one compute
 * that decides vertices from their flags and marks those still undecided, and a count of those on the GPU,
 * which the enactor watches (no read-back per round). Subclasses give the two functors and the reset.
 */
export abstract class PriorityRounds<R> implements Problem<R> {
  /** Per vertex: the algorithm's answer (MIS state, color). */
  readonly values: DeviceArray<'u32'>;
  /** Per vertex: the or of `neighborFlags` over its neighbors, this round. */
  protected readonly flags: DeviceArray<'u32'>;
  /** Per vertex: 1 while undecided (written by `decide`). */
  protected readonly undecided: DeviceArray<'u32'>;
  readonly #active: DeviceArray<'u32'>;

  constructor(
    readonly graph: DeviceGraph,
    readonly seed: number,
    who: string,
  ) {
    const device = graph.device;
    checkUndirected(graph, who);
    this.values = vertexArray(graph, `${who} values`);
    this.flags = vertexArray(graph, `${who} flags`);
    this.undecided = vertexArray(graph, `${who} undecided`);
    this.#active = device.array('u32', 1, { label: `${who} undecided count` });
  }

  /** `(v: u32, w: u32, edge: u32) -> u32`: what neighbor w tells vertex v this round. */
  protected abstract neighborFlags(beats: Functor): Functor;
  /** `(v: u32)`: decides v from `flags[v]` in round `iteration`; writes `undecided[v]`. */
  protected abstract decide(iteration: number): Functor;
  /** Sets `values` to their undecided state. */
  protected abstract resetValues(rec: Recorder): Promise<void>;
  abstract result(): Promise<R>;

  async reset(rec: Recorder): Promise<void> {
    await this.resetValues(rec);
    await rec.fill(this.#active, this.graph.vertexCount);
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    const flags = this.neighborFlags(beatsFunctor(this.seed));
    await neighborhoodReduce(rec, this.graph, 'all', flags, this.flags, { monoid: bitOr('u32') });
    await compute(rec, { all: n }, this.decide(iteration));
    await reduce(rec, this.undecided, this.#active, { count: n });
  }

  active(): GpuCount {
    return { array: this.#active, index: 0 };
  }

  /** The values of every vertex, on the host. */
  protected async hostValues(): Promise<Uint32Array> {
    const n = this.graph.vertexCount;
    return n === 0 ? new Uint32Array(0) : await this.values.download(0, n);
  }

  destroy(): void {
    for (const a of [this.values, this.flags, this.undecided, this.#active]) a.destroy();
  }
}

/** The priorities' seed, default 1; throws unless an integer, as a fraction or NaN would be truncated silently. */
export function checkPrioritySeed(seed: number | undefined, who: string): number {
  const value = seed ?? 1;
  if (!Number.isInteger(value)) throw new InputError(`${who}: seed must be an integer, got ${value}`, 'seed');
  return value;
}

/** Resets `problem`, runs its rounds until nothing is undecided, and frees it. */
export async function runPriorityRounds<R>(
  problem: PriorityRounds<R>,
  options: RunOptions,
): Promise<R & { iterations: number }> {
  const run = await runProblem(problem.graph, problem, (rec) => problem.reset(rec), options);
  return { ...run.result, iterations: run.iterations };
}
