import { type DeviceArray, type GpuCount, type Recorder, rw, u32, type WeftDevice, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { bitOr, compute, enact, neighborhoodReduce } from '@weft/operators';
import { reduce } from '@weft/scan';
import type { RunOptions } from './common.ts';
import { beatsFunctor, checkUndirected, vertexArray } from './priority.ts';

const UNDECIDED = 0;
const IN = 1;
const OUT = 2;

export interface MisResult {
  /** 1 for vertices in the set, 0 for the others. */
  inSet: Uint8Array;
  size: number;
  iterations: number;
}

/**
 * Maximal independent set (Luby, random priorities): each round, an undecided vertex that beats all its
 * undecided neighbors joins the set, and the undecided neighbors of set members leave it. Two neighborhood
 * reductions and two computes per round over all vertices; about log n rounds.
 */
export class MisProblem {
  readonly state: DeviceArray<'u32'>;
  readonly #blocked: DeviceArray<'u32'>;
  readonly #undecided: DeviceArray<'u32'>;
  readonly #active: DeviceArray<'u32'>;

  constructor(
    readonly device: WeftDevice,
    readonly graph: DeviceGraph,
    readonly seed = 1,
  ) {
    checkUndirected(graph, 'maximal independent set');
    this.state = vertexArray(graph, 'mis state');
    this.#blocked = vertexArray(graph, 'mis blocked');
    this.#undecided = vertexArray(graph, 'mis undecided');
    this.#active = device.array('u32', 1, { label: 'mis undecided count' });
  }

  async reset(rec: Recorder): Promise<void> {
    rec.clear(this.state);
    await rec.fill(this.#active, this.graph.vertexCount);
  }

  async step(rec: Recorder): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    const state = this.state;
    const beats = beatsFunctor(this.seed);
    // bit 0: an undecided neighbor beats v; bit 1: a neighbor is in the set.
    await neighborhoodReduce(
      rec,
      this.graph,
      'all',
      wgsl`(v: u32, w: u32, edge: u32, rank: u32) -> u32 {
  let s = ${state}[w];
  return select(0u, 1u, s == ${u32(UNDECIDED)} && ${beats}(w, v)) | select(0u, 2u, s == ${u32(IN)});
}`,
      this.#blocked,
      { monoid: bitOr },
    );
    await compute(
      rec,
      { all: n },
      wgsl`(v: u32) {
  var s = ${rw(state)}[v];
  let b = ${this.#blocked}[v];
  // A neighbor joined last round: out. Else a local maximum among the undecided: in.
  if (s == ${u32(UNDECIDED)}) {
    if ((b & 2u) != 0u) { s = ${u32(OUT)}; } else if ((b & 1u) == 0u) { s = ${u32(IN)}; }
    ${rw(state)}[v] = s;
  }
  ${rw(this.#undecided)}[v] = select(0u, 1u, s == ${u32(UNDECIDED)});
}`,
    );
    await reduce(rec, this.#undecided, this.#active, { count: n });
  }

  active(): GpuCount {
    return { array: this.#active, index: 0 };
  }

  async result(): Promise<{ inSet: Uint8Array; size: number }> {
    const n = this.graph.vertexCount;
    const state = n === 0 ? new Uint32Array(0) : await this.state.download(0, n);
    const inSet = Uint8Array.from(state, (s) => (s === IN ? 1 : 0));
    return { inSet, size: inSet.reduce((a, b) => a + b, 0) };
  }

  destroy(): void {
    for (const a of [this.state, this.#blocked, this.#undecided, this.#active]) a.destroy();
  }
}

/** A maximal independent set of an undirected graph; `seed` picks the random priorities. */
export async function maximalIndependentSet(
  device: WeftDevice,
  graph: DeviceGraph,
  options: RunOptions & { seed?: number } = {},
): Promise<MisResult> {
  const problem = new MisProblem(device, graph, options.seed ?? 1);
  try {
    const rec = device.recorder({ label: 'mis reset' });
    await problem.reset(rec);
    await rec.submit();
    const { iterations } = await enact(
      device,
      { step: (r) => problem.step(r), active: () => problem.active() },
      options,
    );
    return { ...(await problem.result()), iterations };
  } finally {
    problem.destroy();
  }
}
