import { InputError, type WeftDevice } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { type IterationTrace, smallFrontierFits } from '@weft/operators';
import type { LoadBalanceOption, RunOptions, TraceOption } from '../common.ts';
import type { SsspBlocks, SsspBlocksTuning } from '../sssp/blocks.ts';
import { BitmapClaimLevel, bitmapClaimsFit, prefersBitmapClaims } from './bitmap-claims.ts';
import { DirectionOptimizedLevel } from './direction-optimized.ts';
import { IdempotentLevel } from './idempotent.ts';
import type { BfsLevel, BfsState } from './level.ts';

export interface BfsOptions extends RunOptions, LoadBalanceOption, TraceOption {
  /** Also record a BFS tree: `parents[v]` (-1 for the source and unreached vertices). */
  parents?: boolean;
  /**
   * `'push'` (default): top-down only. `'auto'`: direction-optimizing (Beamer), choosing on the GPU per
   * level; `'pull'`: bottom-up only. Pull needs in-edges: an undirected graph or `csc` uploaded.
   */
  direction?: 'push' | 'pull' | 'auto';
  /** Pull when frontier vertices + their out-edges exceed `threshold x edgeCount` (default 1/20, Ligra's). */
  threshold?: number;
  /**
   * Idempotent push (Gunrock's idempotence): depths set by plain stores, duplicates culled by a filter
   * (see `./idempotent.ts`). Same depths; push direction only; an output buffer of `edgeCount` words.
   */
  idempotent?: boolean;
  /**
   * How a push level claims a vertex. `'depth'`: `atomicMin` on its depth, the winner appends it.
   * `'bitmap'`: visited bits tested against the level's snapshot first (see `./bitmap-claims.ts`).
   * `'auto'` (default): bitmap on graphs of at least 8 out-edges a vertex, whose levels are heavy; depth on
   * sparse, high-diameter ones, whose many light levels would each pay the bitmap's bookkeeping, and where
   * the bitmap's level won't fit the device's storage buffers a stage (9 plus one per chunk of the targets,
   * one more with parents).
   * Direction-optimizing and idempotent runs claim by depth (`'bitmap'` with them is an error).
   */
  claim?: 'auto' | 'bitmap' | 'depth';
  /**
   * The small-frontier engine (`advanceSmallFrontier`): each step first runs as many levels as fit in one
   * workgroup, then a bulk level on the frontier it leaves. `'auto'` (default): on for the push BFS with
   * depth claims (what `claim: 'auto'` picks on sparse, high-diameter graphs) unless `trace` is set.
   * `'on'` forces it (and depth claims), `'off'` never runs it; an object is `'on'` with the engine's
   * `capacity` (a multiple of 256) and `maxLevels` per dispatch, for tests of the hand-off.
   */
  smallFrontier?: 'auto' | 'on' | 'off' | SmallFrontierTuning;
  /**
   * `'frontier'`: level by level over a frontier, as the options above ask. `'blocks'`: block-local rounds
   * on the graph's vertices grouped into compact blocks once ({@link SsspBlocks} with `unitWeights`, whose
   * distances are depths); depths only: no `parents` or `trace`, push direction, no frontier options.
   * `'auto'` (default): `'blocks'` on sparse graphs (under 8 out-edges a vertex, targets in one chunk) from
   * the second call on the same graph when those options are left unset, with the blocks kept with the
   * graph until it is destroyed ({@link DeviceGraph.derived}); `'frontier'` otherwise.
   */
  strategy?: 'auto' | 'frontier' | 'blocks';
  /** With `strategy: 'blocks'`: the block sizes, or blocks already prepared for this graph with `unitWeights`. */
  blocks?: SsspBlocksTuning | SsspBlocks;
}

/** The engine's settings (see `SmallFrontierOptions` in `@weft/operators`). */
export interface SmallFrontierTuning {
  capacity?: number;
  maxLevels?: number;
}

export type BfsProblemOptions = Pick<
  BfsOptions,
  'parents' | 'direction' | 'threshold' | 'idempotent' | 'claim' | 'loadBalance' | 'smallFrontier'
>;

export interface BfsResult {
  /** Hops from the source; -1 where unreachable. */
  depths: Int32Array;
  parents?: Int32Array;
  /** Levels expanded (the eccentricity of the source plus one). */
  iterations: number;
  /**
   * Enactor steps the run took: `iterations`, or fewer where the small-frontier engine ran several levels
   * in one step. A replay of `BfsProblem.step` records this many.
   */
  steps: number;
  /** Levels done bottom-up (direction `'auto'` or `'pull'`). */
  pullIterations: number;
  /**
   * With `trace: true`: per level, the input frontier length and the edges inspected: the out-degree sum
   * of the frontier for a push level; for a pull level an upper bound, the in-degree sum of the vertices
   * still unvisited when it began (pull stops at a vertex's first parent).
   */
  trace?: IterationTrace;
}

/** The variant the options ask for (undefined: the plain push BFS above), checked before any allocation. */
export function variantOf(
  graph: DeviceGraph,
  options: BfsProblemOptions,
): ((bfs: BfsState) => BfsLevel) | undefined {
  const direction = options.direction ?? 'push';
  const claim = options.claim ?? 'auto';
  if (direction !== 'push' && direction !== 'pull' && direction !== 'auto') {
    throw new InputError(`direction must be 'push', 'pull' or 'auto', got '${direction}'`, 'direction');
  }
  if (claim !== 'auto' && claim !== 'bitmap' && claim !== 'depth') {
    throw new InputError(`claim must be 'auto', 'bitmap' or 'depth', got '${claim}'`, 'claim');
  }
  const mode = options.smallFrontier ?? 'auto';
  if (!(mode === 'auto' || mode === 'on' || mode === 'off' || (typeof mode === 'object' && mode))) {
    throw new InputError(
      `smallFrontier must be 'auto', 'on', 'off' or tuning, got ${String(mode)}`,
      'smallFrontier',
    );
  }
  if (options.idempotent && direction !== 'push') {
    throw new InputError(`idempotent BFS pushes only; direction '${direction}' was asked`, 'direction');
  }
  if (direction !== 'push' && graph.directed && !graph.csc) {
    throw new InputError(
      `BFS direction '${direction}' on a directed graph needs uploadGraph(..., { csc: true })`,
      'graph',
    );
  }
  if (claim === 'bitmap' && (direction !== 'push' || options.idempotent)) {
    throw new InputError(
      `bitmap claims are for the atomic push BFS; direction '${direction}'${options.idempotent ? ', idempotent' : ''} was asked`,
      'claim',
    );
  }
  if (forcesSmallFrontier(options) && (direction !== 'push' || options.idempotent || claim === 'bitmap')) {
    throw new InputError(
      `the small-frontier engine is for the push BFS with depth claims; direction '${direction}'${options.idempotent ? ', idempotent' : ''}${claim === 'bitmap' ? ', bitmap claims' : ''} was asked`,
      'smallFrontier',
    );
  }
  if (direction !== 'push') return (bfs) => new DirectionOptimizedLevel(bfs, direction, options.threshold);
  if (options.idempotent) return (bfs) => new IdempotentLevel(bfs);
  if (
    claim === 'bitmap' ||
    (claim === 'auto' &&
      !forcesSmallFrontier(options) &&
      prefersBitmapClaims(graph) &&
      bitmapClaimsFit(graph, !!options.parents))
  ) {
    return (bfs) => new BitmapClaimLevel(bfs);
  }
  return undefined;
}

const forcesSmallFrontier = (options: BfsProblemOptions) =>
  options.smallFrontier !== undefined && options.smallFrontier !== 'auto' && options.smallFrontier !== 'off';

/**
 * The small-frontier engine's settings when the run uses it (undefined: it does not). `hasVariant`: the
 * options picked a variant (`variantOf`), whose levels the engine cannot run.
 */
export function smallFrontierOf(
  options: BfsProblemOptions,
  hasVariant: boolean,
  device: WeftDevice,
): SmallFrontierTuning | undefined {
  const mode = options.smallFrontier ?? 'auto';
  if (mode === 'off' || hasVariant) return undefined;
  if (mode === 'auto' && !smallFrontierFits(device)) return undefined;
  return typeof mode === 'object' ? mode : {};
}
