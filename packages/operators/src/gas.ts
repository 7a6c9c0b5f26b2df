import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type ElementType,
  type Functor,
  f32,
  type GpuCount,
  InputError,
  lit,
  type Monoid,
  plus,
  type Recorder,
  rw,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { advancePush } from './advance.ts';
import { compute } from './compute.ts';
import { computeReduce } from './compute-reduce.ts';
import { type EnactorLoop, type EnactorOptions, type EnactorResult, enact } from './enactor.ts';
import type { GatherOrder } from './gather-order.ts';
import { neighborhoodReduce } from './neighborhood.ts';

/** Which edges of `v` a gather walks: in-edges (CSC; an undirected graph's CSR), out-edges, or both. */
export type GatherEdges = 'in' | 'out' | 'all';

/**
 * A gather-apply-scatter vertex program (PowerGraph, MapGraph). Its state lives in the caller's arrays,
 * captured by its functors; `gas` owns only the gathered totals, the reduced aggregates and the flags.
 */
export interface GasProgram<T extends ElementType = ElementType> {
  /** Default `'in'`. */
  gatherEdges?: GatherEdges;
  /** `(v: u32, u: u32, edge: u32) -> T`: what neighbor `u` gives `v`; `edge` is the CSR edge id. */
  gather: Functor;
  /**
   * `gather` reads only `u` and `edge`, not `v` (which it is then given as 0): the gather runs as an SpMV's,
   * each edge's value loaded before the tile knows its vertex (`neighborhoodReduce`'s `ignoresVertex`).
   */
  gatherIgnoresVertex?: boolean;
  /**
   * With `gatherIgnoresVertex`: the gather is given each neighbor's number in this order (from
   * `gatherOrder(graph, direction)`) instead of its id, and reads a vector the program stores at
   * `position[v]` (hubs' values then share cache lines). Not with `gatherEdges: 'all'` on a directed graph.
   */
  gatherOrder?: GatherOrder;
  /** Combines the gathered values; a vertex without such edges gets its identity. */
  sum: Monoid<T>;
  /** `(v: u32, total: T) -> f32`: updates `v`'s state; returns `v`'s term of the residual (or of `normalize`). */
  apply: Functor;
  /**
   * A global rescaling after apply (an L2 or max normalization, a leaked-mass correction): apply's terms
   * are combined by `monoid` into one f32, then `apply(v: u32, aggregate: f32) -> f32` runs on every
   * vertex and returns its residual term instead.
   */
  normalize?: { monoid: Monoid<'f32'>; apply: Functor };
  /**
   * `(src: u32, dst: u32, edge: u32) -> bool` over the out-edges of the vertices applied this iteration:
   * true activates `dst` for the next one. Without it every vertex applies every iteration; with it only
   * activated ones do (all in the first), and the loop also ends when none is activated.
   */
  scatter?: Functor;
}

export interface GasOptions extends EnactorOptions {
  /** Converged once every phase's residual is below this, or 0 (default 0: only when no term is left). */
  tolerance?: number;
  /** How the per-vertex terms combine into a residual: default `plus('f32')` (an L1 change); `max('f32')`. */
  residual?: Monoid<'f32'>;
}

export interface GasResult extends EnactorResult {
  /** Each phase's residual in the last iteration that ran (before convergence stopped the loop). */
  residuals: number[];
}

/**
 * The gather-apply-scatter loop as an enactor problem: each iteration runs the phases in order, each a
 * neighborhood reduction (the gather) into a per-vertex total, then apply and (optionally) normalize, each
 * one `computeReduce` pass folding its terms, and scatter's advance; a one-thread kernel then
 * clears the `active` word once every residual is below the tolerance. Once cleared, later steps of a batch
 * change no state.
 */
export class GasLoop implements EnactorLoop {
  readonly #phases: readonly GasProgram[];
  readonly #totals: DeviceArray[];
  readonly #inTotals: (DeviceArray | undefined)[];
  /** Element 2p: phase p's normalize aggregate; element 2p + 1: its residual. */
  readonly #reduced: DeviceArray<'f32'>;
  /** The residuals of the last iteration that ran. */
  readonly #report: DeviceArray<'f32'>;
  readonly #active: DeviceArray<'u32'>;
  /** Scatter: the vertices applying in even and odd iterations, and [0] how many were activated. */
  readonly #applying: [DeviceArray<'u32'>, DeviceArray<'u32'>] | undefined;
  readonly #activated: DeviceArray<'u32'> | undefined;
  readonly #tolerance: number;
  readonly #residual: Monoid<'f32'>;

  constructor(
    readonly graph: DeviceGraph,
    program: GasProgram | readonly GasProgram[],
    options: Pick<GasOptions, 'tolerance' | 'residual'> = {},
  ) {
    checkOptionsObject('new GasLoop', options);
    const phases = Array.isArray(program) ? (program as readonly GasProgram[]) : [program as GasProgram];
    if (phases.length === 0) throw new InputError('a GAS program needs at least one phase', 'gas');
    if (phases.length > 1 && phases.some((p) => p.scatter)) {
      throw new InputError('scatter is for single-phase programs only', 'gas');
    }
    this.#tolerance = options.tolerance ?? 0;
    if (!(this.#tolerance >= 0)) {
      throw new InputError(`tolerance must be >= 0, got ${this.#tolerance}`, 'tolerance');
    }
    this.#residual = options.residual ?? plus('f32');
    if (this.#residual.type !== 'f32') throw new InputError('the residual monoid must be f32', 'residual');
    const device = graph.device;
    const n = Math.max(1, graph.vertexCount);
    for (const p of phases) {
      const edges = p.gatherEdges ?? 'in';
      if (edges !== 'in' && edges !== 'out' && edges !== 'all') {
        throw new InputError(`gatherEdges must be 'in', 'out' or 'all', got '${edges}'`, 'gatherEdges');
      }
      if (edges !== 'out' && graph.directed && !graph.csc) {
        throw new InputError(
          `a gather over '${edges}' edges of a directed graph needs uploadGraph(..., { csc: true })`,
          'graph',
        );
      }
      if (p.gatherOrder && (p.gatherIgnoresVertex !== true || (edges === 'all' && graph.directed))) {
        throw new InputError(
          "gatherOrder needs gatherIgnoresVertex and one view of the edges ('in' or 'out' on a directed graph)",
          'gatherOrder',
        );
      }
    }
    this.#phases = phases;
    this.#totals = phases.map((p) => device.array(p.sum.type, n, { label: 'gas totals' }));
    this.#inTotals = phases.map((p) =>
      (p.gatherEdges ?? 'in') === 'all' && graph.directed
        ? device.array(p.sum.type, n, { label: 'gas in-edge totals' })
        : undefined,
    );
    this.#reduced = device.array('f32', 2 * phases.length, { label: 'gas aggregates' });
    this.#report = device.array('f32', phases.length, { label: 'gas residuals' });
    this.#active = device.array('u32', 1, { label: 'gas active' });
    if (phases[0]!.scatter) {
      this.#applying = [
        device.array('u32', n, { label: 'gas applying (even)' }),
        device.array('u32', n, { label: 'gas applying (odd)' }),
      ];
      this.#activated = device.array('u32', 1, { label: 'gas activated' });
    }
  }

  /** Records the start of a run: every vertex applies in the first iteration. */
  async reset(rec: Recorder): Promise<void> {
    await rec.fill(this.#active, this.graph.vertexCount === 0 ? 0 : 1);
    if (this.#applying) await rec.fill(this.#applying[0], 1);
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const n = this.graph.vertexCount;
    if (n === 0) return;
    const active = this.#active;
    const applying = this.#applying?.[iteration % 2];
    const on = applying
      ? wgsl`(v: u32) -> bool { return ${active}[0] != 0u && ${applying}[v] != 0u; }`
      : wgsl`(v: u32) -> bool { return ${active}[0] != 0u; }`;
    for (const [p, phase] of this.#phases.entries()) {
      const totals = this.#totals[p]!;
      const inTotals = this.#inTotals[p];
      const edges = phase.gatherEdges ?? 'in';
      const direction = edges === 'all' ? 'out' : edges;
      const ignoresVertex = phase.gatherIgnoresVertex === true;
      const order = phase.gatherOrder ? { gatherOrder: phase.gatherOrder } : {};
      await neighborhoodReduce(rec, this.graph, 'all', phase.gather, totals, {
        monoid: phase.sum,
        direction,
        ignoresVertex,
        ...order,
      });
      if (inTotals) {
        await neighborhoodReduce(rec, this.graph, 'all', phase.gather, inTotals, {
          monoid: phase.sum,
          direction: 'in',
          ignoresVertex,
        });
      }
      const total = inTotals
        ? wgsl`(v: u32) -> ${phase.sum.type} { return ${phase.sum.combine}(${totals}[v], ${inTotals}[v]); }`
        : wgsl`(v: u32) -> ${phase.sum.type} { return ${totals}[v]; }`;
      // Each pass folds its vertices' terms as it writes them: an apply's into normalize's aggregate or the
      // residual, a normalize's into the residual.
      const reduced = this.#reduced;
      const none = plus('f32');
      const into = (index: number) =>
        wgsl`(term: f32, unused: f32) { ${rw(reduced)}[${lit(index)}] = term; }`;
      const normalize = phase.normalize;
      await computeReduce(
        rec,
        n,
        wgsl`(v: u32) -> vec2<f32> {
  var t = 0.0;
  if (${on}(v)) { t = ${phase.apply}(v, ${total}(v)); }
  return vec2<f32>(t, 0.0);
}`,
        [normalize ? normalize.monoid : this.#residual, none],
        into(normalize ? 2 * p : 2 * p + 1),
      );
      if (normalize) {
        await computeReduce(
          rec,
          n,
          wgsl`(v: u32) -> vec2<f32> {
  var t = 0.0;
  if (${on}(v)) { t = ${normalize.apply}(v, ${reduced}[${lit(2 * p)}]); }
  return vec2<f32>(t, 0.0);
}`,
          [this.#residual, none],
          into(2 * p + 1),
        );
      }
    }
    const activated = this.#activated;
    const scatter = this.#phases[0]!.scatter;
    if (scatter && activated && applying) {
      const next = this.#applying![(iteration + 1) % 2]!;
      rec.clear(next);
      rec.clear(activated);
      await advancePush(
        rec,
        this.graph,
        'all',
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${on}(src) && ${scatter}(src, dst, edge)) {
    if (atomicExchange(&${atomic(next)}[dst], 1u) == 0u) { atomicAdd(&${atomic(activated)}[0], 1u); }
  }
  return false;
}`,
      );
    }
    const reduced = this.#reduced;
    const report = this.#report;
    let below = wgsl`(tol: f32) -> bool { return true; }`;
    for (let p = 0; p < this.#phases.length; p++) {
      below = wgsl`(tol: f32) -> bool {
  let rest = ${below}(tol);
  let r = ${reduced}[${lit(2 * p + 1)}];
  ${rw(report)}[${lit(p)}] = r;
  return rest && (r < tol || r == 0.0);
}`;
    }
    const none = activated
      ? wgsl`() -> bool { return ${activated}[0] == 0u; }`
      : wgsl`() -> bool { return false; }`;
    await compute(
      rec,
      { all: 1 },
      wgsl`(i: u32) {
  if (${active}[0] == 0u) { return; }
  let below = ${below}(${f32(this.#tolerance)});
  if (below || ${none}()) { ${rw(active)}[0] = 0u; }
}`,
    );
  }

  active(): GpuCount {
    return { array: this.#active, index: 0 };
  }

  /** Each phase's residual in the last iteration that ran. */
  async residuals(): Promise<number[]> {
    return Array.from(await this.#report.download());
  }

  destroy(): void {
    for (const a of [...this.#totals, ...this.#inTotals, this.#reduced, this.#report, this.#active]) {
      a?.destroy();
    }
    this.#applying?.[0].destroy();
    this.#applying?.[1].destroy();
    this.#activated?.destroy();
  }
}

/**
 * Runs a gather-apply-scatter program (or phases run in order each iteration) until every residual is
 * below `tolerance`, scatter activates nothing, or `maxIterations` (then `converged` is false). The caller
 * sets the program's state first; iterations are batched by the enactor, one status word read back a batch.
 */
export async function gas(
  graph: DeviceGraph,
  program: GasProgram | readonly GasProgram[],
  options: GasOptions = {},
): Promise<GasResult> {
  checkOptionsObject('gas', options);
  const loop = new GasLoop(graph, program, options);
  try {
    if (graph.vertexCount === 0) return { iterations: 0, converged: true, submits: 0, residuals: [] };
    const rec = graph.device.recorder({ label: 'gas reset' });
    await loop.reset(rec);
    await rec.submit();
    const run = await enact(graph.device, loop, options);
    return { ...run, residuals: await loop.residuals() };
  } finally {
    loop.destroy();
  }
}
