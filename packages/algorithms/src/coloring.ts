import { type DeviceArray, type GpuCount, type Recorder, rw, u32, type WeftDevice, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { bitOr, compute, enact, neighborhoodReduce } from '@weft/operators';
import { reduce } from '@weft/scan';
import type { RunOptions } from './common.ts';
import { beatsFunctor, checkUndirected, vertexArray } from './priority.ts';

const NONE = 0xffffffff;

export interface ColoringResult {
  /** A proper coloring: neighbors never share a color. Colors are 0 .. colorCount - 1 with gaps possible. */
  colors: Uint32Array;
  /** Distinct colors used. */
  colorCount: number;
  iterations: number;
}

/**
 * Graph coloring by Jones-Plassmann with random priorities, two colors per round (Gunrock's min/max
 * variant): in round r, uncolored vertices that beat every uncolored neighbor take color 2r, those that
 * every uncolored neighbor beats take 2r + 1. Each is an independent set, so the coloring is proper. One
 * neighborhood reduction (or of two flags) and one compute per round.
 */
export class ColoringProblem {
  readonly colors: DeviceArray<'u32'>;
  readonly #flags: DeviceArray<'u32'>;
  readonly #uncolored: DeviceArray<'u32'>;
  readonly #active: DeviceArray<'u32'>;

  constructor(
    readonly device: WeftDevice,
    readonly graph: DeviceGraph,
    readonly seed = 1,
  ) {
    checkUndirected(graph, 'graph coloring');
    this.colors = vertexArray(graph, 'colors');
    this.#flags = vertexArray(graph, 'coloring flags');
    this.#uncolored = vertexArray(graph, 'coloring uncolored');
    this.#active = device.array('u32', 1, { label: 'coloring uncolored count' });
  }

  async reset(rec: Recorder): Promise<void> {
    await rec.fill(this.colors, NONE);
    await rec.fill(this.#active, this.graph.vertexCount);
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    const colors = this.colors;
    const beats = beatsFunctor(this.seed);
    // bit 0: an uncolored neighbor beats v; bit 1: v beats an uncolored neighbor.
    await neighborhoodReduce(
      rec,
      this.graph,
      'all',
      wgsl`(v: u32, w: u32, edge: u32, rank: u32) -> u32 {
  if (${colors}[w] != ${u32(NONE)}) { return 0u; }
  return select(2u, 1u, ${beats}(w, v));
}`,
      this.#flags,
      { monoid: bitOr },
    );
    await compute(
      rec,
      { all: n },
      wgsl`(v: u32) {
  var c = ${rw(colors)}[v];
  if (c == ${u32(NONE)}) {
    let f = ${this.#flags}[v];
    if ((f & 1u) == 0u) { c = ${u32(2 * iteration)}; } else if ((f & 2u) == 0u) { c = ${u32(2 * iteration + 1)}; }
    ${rw(colors)}[v] = c;
  }
  ${rw(this.#uncolored)}[v] = select(0u, 1u, c == ${u32(NONE)});
}`,
    );
    await reduce(rec, this.#uncolored, this.#active, { count: n });
  }

  active(): GpuCount {
    return { array: this.#active, index: 0 };
  }

  async result(): Promise<{ colors: Uint32Array; colorCount: number }> {
    const n = this.graph.vertexCount;
    const colors = n === 0 ? new Uint32Array(0) : await this.colors.download(0, n);
    return { colors, colorCount: new Set(colors).size };
  }

  destroy(): void {
    for (const a of [this.colors, this.#flags, this.#uncolored, this.#active]) a.destroy();
  }
}

/** A proper vertex coloring of an undirected graph; `seed` picks the random priorities. */
export async function graphColoring(
  device: WeftDevice,
  graph: DeviceGraph,
  options: RunOptions & { seed?: number } = {},
): Promise<ColoringResult> {
  const problem = new ColoringProblem(device, graph, options.seed ?? 1);
  try {
    const rec = device.recorder({ label: 'coloring reset' });
    await problem.reset(rec);
    await rec.submit();
    const { iterations } = await enact(
      device,
      { step: (r, i) => problem.step(r, i), active: () => problem.active() },
      options,
    );
    return { ...(await problem.result()), iterations };
  } finally {
    problem.destroy();
  }
}
