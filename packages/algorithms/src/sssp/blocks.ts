import {
  checkOptionsObject,
  type DeviceArray,
  type GpuCount,
  InputError,
  type Kernel,
  type Recorder,
} from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { prefersBitmapClaims } from '../bfs/bitmap-claims.ts';
import { type Problem, type RunOptions, recordSet, runProblem } from '../common.ts';
import { buildBlockLayout } from './block-layout.ts';
import { BLOCK_BINDINGS, BLOCK_PARAMS, type BlockKernelShape, blockRoundWgsl } from './blocks-kernel.ts';
import { UNREACHED_F32, UNREACHED_U32 } from './decode.ts';
import { type DistanceDecode, readDistances } from './encode.ts';

/** Block-local SSSP's sizes (see {@link SsspBlocks}); defaults fit the device's limits. */
export interface SsspBlocksTuning {
  /** Most vertices a block holds (default 1024, less where workgroup memory is smaller). */
  blockSize?: number;
  /** Threads of a block's workgroup (default 512, or the device's most). */
  workgroupSize?: number;
  /** Most out-arcs of a block's vertices together (default 4 x `blockSize`): its arcs stay in registers. */
  arcBudget?: number;
  /**
   * Most passes of a block a round (default 1): after pushing across its boundary, a block reloads its
   * distances and, where a block running beside it lowered one meanwhile, sweeps and pushes again at once.
   */
  passes?: number;
  /**
   * Most sweeps of a block a pass (default 0: until a sweep changes nothing). A block stopped by it writes and
   * pushes the distances it has and runs again next round: rounds get shorter and more numerous, and a slow
   * block no longer holds its neighbours' pushes back until it converges.
   */
  maxSweeps?: number;
  /**
   * Every arc weighs 1 whatever the graph's weights: distances are hop counts, BFS depths (default false:
   * the graph's weights, 1 an arc where it has none).
   */
  unitWeights?: boolean;
}

/**
 * Default vertices of a block and threads of its workgroup: more, smaller workgroups (two to an SM) beat fewer
 * that outnumber the SMs and run in two waves (docs/decisions/sssp-blocks.md).
 */
const BLOCK_SIZE = 1024;
const WORKGROUP_SIZE = 512;
/** Out-arcs a block's vertices may have per vertex of its capacity (road graphs have about 2.6). */
const ARCS_PER_VERTEX = 4;
/** Workgroup memory besides the distances: the changed flags and the uniform word, rounded up. */
const RESERVED_BYTES = 64;
/** Local vertex ids are 16-bit halves of an arc word. */
const MAX_BLOCK_SIZE = 65536;
/** Most arcs a thread holds: the sweep is emitted unrolled, once per arc slot. */
const MAX_ARCS_PER_THREAD = 64;

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) {
    throw new InputError(`${name} must be a positive integer, got ${value}`, `blocks.${name}`);
  }
  return value;
}

/** The kernel's shape and the layout's bounds for `tuning` on `graph`'s device; checks the tuning. */
function resolveShape(graph: DeviceGraph, tuning: SsspBlocksTuning) {
  const limits = graph.device.limits;
  const most = Math.min(limits.maxComputeInvocationsPerWorkgroup, limits.maxComputeWorkgroupSizeX);
  const workgroupSize = Math.min(
    positiveInteger(tuning.workgroupSize ?? WORKGROUP_SIZE, 'workgroupSize'),
    most,
  );
  const room = Math.floor((limits.maxComputeWorkgroupStorageSize - RESERVED_BYTES) / 4);
  const blockSize = positiveInteger(tuning.blockSize ?? Math.min(BLOCK_SIZE, room), 'blockSize');
  const verticesPerThread = Math.ceil(blockSize / workgroupSize);
  if (verticesPerThread * workgroupSize > room || blockSize > MAX_BLOCK_SIZE) {
    throw new InputError(
      `blocks of ${blockSize} vertices (${verticesPerThread * workgroupSize} slots of ${workgroupSize} threads) ` +
        `exceed the device's workgroup memory (${room} distances) or ${MAX_BLOCK_SIZE}`,
      'blocks.blockSize',
    );
  }
  const arcBudget = positiveInteger(tuning.arcBudget ?? ARCS_PER_VERTEX * blockSize, 'arcBudget');
  const arcsPerThread = Math.ceil(arcBudget / workgroupSize);
  if (arcsPerThread > MAX_ARCS_PER_THREAD) {
    throw new InputError(
      `an arc budget of ${arcBudget} is ${arcsPerThread} arcs for each of ${workgroupSize} threads (at most ` +
        `${MAX_ARCS_PER_THREAD}): lower arcBudget or blockSize, or raise workgroupSize`,
      'blocks.arcBudget',
    );
  }
  const shape: BlockKernelShape = {
    workgroupSize,
    verticesPerThread,
    arcsPerThread,
    passes: positiveInteger(tuning.passes ?? 1, 'passes'),
    maxSweeps: (tuning.maxSweeps ?? 0) === 0 ? 0 : positiveInteger(tuning.maxSweeps!, 'maxSweeps'),
    float: !tuning.unitWeights && graph.chunkedWeights?.type === 'f32',
  };
  return { shape, blockSize, arcBudget };
}

/**
 * A graph prepared for block-local SSSP, once for any number of sources: its vertices grouped into compact
 * blocks (grown breadth-first on the host, `./block-layout.ts`) and renumbered block by block, each block's
 * intra-block arcs in local ids and its cross arcs, on the device. Weights are copied in: they must be
 * non-negative (the caller checks). `destroy()` frees these arrays, not the graph's.
 */
export class SsspBlocks {
  /** Host time the preparation took (read-back, blocks, upload), in ms. */
  readonly prepareMs: number;

  private constructor(
    readonly graph: DeviceGraph,
    readonly shape: BlockKernelShape,
    readonly blockCount: number,
    /** Old id of each new id, new id of each old id, and the block of each new id. */
    readonly order: Uint32Array,
    readonly rank: Uint32Array,
    readonly blockOf: Uint32Array,
    /** `order` on the device, so results are put back in the caller's ids there (uploaded once, 4 bytes a vertex). */
    readonly orderOnDevice: DeviceArray<'u32'>,
    readonly meta: DeviceArray<'u32'>,
    readonly arcs: DeviceArray<'u32'>,
    readonly crossOffsets: DeviceArray<'u32'>,
    readonly cross: DeviceArray<'u32'>,
    /** Every arc weighs 1 ({@link SsspBlocksTuning.unitWeights}), or the graph has no weights. */
    readonly unitWeights: boolean,
    started: number,
  ) {
    this.prepareMs = performance.now() - started;
  }

  /** Reads `graph` back, grows its blocks and uploads them (see {@link SsspBlocksTuning}). */
  static async prepare(graph: DeviceGraph, tuning: SsspBlocksTuning = {}): Promise<SsspBlocks> {
    checkOptionsObject('SsspBlocks.prepare', tuning);
    const started = performance.now();
    const { shape, blockSize, arcBudget } = resolveShape(graph, tuning);
    const host = await graph.toHost();
    const unitWeights = !!tuning.unitWeights || host.weights === undefined;
    const { weights: _, ...unweighted } = host;
    const layout = buildBlockLayout(unitWeights ? unweighted : host, {
      blockSize,
      arcBudget,
      workgroupSize: shape.workgroupSize,
    });
    const meta = new Uint32Array(2 * (layout.blockCount + 1));
    for (let b = 0; b <= layout.blockCount; b++) {
      meta[2 * b] = layout.blockStart[b]!;
      meta[2 * b + 1] = layout.arcStart[b]!;
    }
    const device = graph.device;
    const made: DeviceArray<'u32'>[] = [];
    const up = (data: Uint32Array, label: string) => {
      const array = device.upload(data, { label });
      made.push(array);
      return array;
    };
    try {
      return new SsspBlocks(
        graph,
        shape,
        layout.blockCount,
        layout.order,
        layout.rank,
        layout.blockOf,
        up(layout.order, 'sssp block order'),
        up(meta, 'sssp block starts'),
        up(layout.arcs, 'sssp block arcs'),
        up(layout.crossOffsets, 'sssp cross offsets'),
        up(layout.cross, 'sssp cross arcs'),
        unitWeights,
        started,
      );
    } catch (error) {
      for (const a of made) a.destroy();
      throw error;
    }
  }

  destroy(): void {
    this.orderOnDevice.destroy();
    this.meta.destroy();
    this.arcs.destroy();
    this.crossOffsets.destroy();
    this.cross.destroy();
  }
}

/**
 * Block-local SSSP from one source at a time on an {@link SsspBlocks}: each step is one round, one
 * workgroup a block, where a block flagged by the previous round relaxes its intra-block arcs to a fixed
 * point in workgroup memory and pushes improvements across its cross arcs, flagging the blocks they reach.
 * A round with no flagged block does nothing, so steps recorded past convergence cost an early exit per
 * block. `active()` counts the blocks flagged for the next round.
 */
export class SsspBlocksProblem implements Problem<{ distances: Float64Array }, [number]> {
  /** Distance words by new id (see `SsspProblem`'s encoding). */
  readonly distances: DeviceArray<'u32'>;
  /** The distance each vertex's cross arcs were last relaxed from. */
  readonly relaxed: DeviceArray<'u32'>;
  /** Three rotating counts of blocks flagged for the next round, one unused word, two sets of flags. */
  readonly state: DeviceArray<'u32'>;
  #kernel: Kernel | undefined;
  #iteration = 0;

  readonly #decode: DistanceDecode | undefined;

  /** `decode`: where the distances become numbers (`SsspOptions.decode`). */
  constructor(
    readonly blocks: SsspBlocks,
    options: { decode?: DistanceDecode | undefined } = {},
  ) {
    checkOptionsObject('new SsspBlocksProblem', options);
    this.#decode = options.decode;
    const device = blocks.graph.device;
    const n = Math.max(1, blocks.order.length);
    this.distances = device.array('u32', n, { label: 'sssp block distances' });
    this.relaxed = device.array('u32', n, { label: 'sssp block relaxed' });
    this.state = device.array('u32', 4 + 2 * blocks.blockCount, { label: 'sssp block flags' });
  }

  get unreached(): number {
    return this.blocks.shape.float ? UNREACHED_F32 : UNREACHED_U32;
  }

  /** Records the start from `source` (a vertex: the caller checks). */
  async reset(rec: Recorder, source: number): Promise<void> {
    const at = this.blocks.rank[source]!;
    await rec.fill(this.distances, this.unreached);
    await rec.fill(this.relaxed, this.unreached);
    rec.clear(this.state);
    await recordSet(rec, this.distances, at, 0);
    await recordSet(rec, this.state, 4 + this.blocks.blockOf[at]!, 1);
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const { blockCount, shape } = this.blocks;
    this.#iteration = iteration;
    this.#kernel ??= await rec.device.kernel({
      label: 'sssp block round',
      params: BLOCK_PARAMS,
      bindings: BLOCK_BINDINGS,
      code: blockRoundWgsl(shape),
    });
    const groups = Math.max(1, blockCount);
    const x = Math.min(groups, rec.device.limits.maxComputeWorkgroupsPerDimension);
    rec.dispatch(this.#kernel, {
      bindings: {
        block_meta: this.blocks.meta,
        arcs: this.blocks.arcs,
        cross_offsets: this.blocks.crossOffsets,
        cross: this.blocks.cross,
        dist: this.distances,
        relaxed: this.relaxed,
        state: this.state,
      },
      params: {
        blocks: blockCount,
        flags_in: 4 + (iteration % 2) * blockCount,
        flags_out: 4 + ((iteration + 1) % 2) * blockCount,
        count_out: (iteration + 1) % 3,
        count_clear: (iteration + 2) % 3,
      },
      workgroups: [x, Math.ceil(groups / x), 1],
    });
  }

  active(): GpuCount {
    return { array: this.state, index: (this.#iteration + 1) % 3 };
  }

  /** The distances in the caller's vertex ids. */
  async result(): Promise<{ distances: Float64Array }> {
    const { order, orderOnDevice, shape } = this.blocks;
    const distances = await readDistances(this.distances, order.length, shape.float, {
      order: orderOnDevice,
      decode: this.#decode,
    });
    return { distances };
  }

  destroy(): void {
    this.distances.destroy();
    this.relaxed.destroy();
    this.state.destroy();
  }
}

/**
 * Graphs searched once by the frontier path where `'auto'` would take blocks, by the key their blocks would
 * be kept under: blocks are prepared from a graph's second such search on, as one search would not repay
 * their preparation (tens of ms on the host for a few ms of search) while repeated queries do.
 */
const searchedOnce = new Map<string, WeakSet<DeviceGraph>>();

/** The key a graph keeps `'auto'`'s blocks under ({@link DeviceGraph.derived}): one set when it has no weights. */
function autoBlocksKey(graph: DeviceGraph, unitWeights: boolean): string {
  return unitWeights && graph.chunkedWeights ? 'bfs blocks' : 'sssp blocks';
}

/**
 * Whether a search left to `'auto'` runs on blocks: on sparse graphs (under 8 out-edges a vertex, targets in
 * one chunk) from the second search of the same kind on the same graph, or at once where blocks are kept.
 * A stage's storage-buffer limit does not bind the blocks' kernel (7 buffers).
 */
function autoPicksBlocks(graph: DeviceGraph, unitWeights: boolean): boolean {
  if (prefersBitmapClaims(graph) || graph.chunked) return false;
  const key = autoBlocksKey(graph, unitWeights);
  const seen = searchedOnce.get(key) ?? new WeakSet<DeviceGraph>();
  searchedOnce.set(key, seen);
  if (graph.hasDerived(key) || seen.has(graph)) return true;
  seen.add(graph);
  return false;
}

/**
 * The strategy a search runs: throws on an unknown one, or on `'blocks'` with `refused`, an option blocks
 * do not have. `'auto'` takes blocks where {@link autoPicksBlocks} does, unless `refused` or `frontierAsked`
 * (an option only the frontier path reads) is set.
 */
export function searchStrategy(
  graph: DeviceGraph,
  strategy: string,
  unitWeights: boolean,
  refused: string | undefined,
  frontierAsked: boolean,
): 'frontier' | 'blocks' {
  if (!['auto', 'frontier', 'blocks'].includes(strategy)) {
    throw new InputError(`unknown strategy '${strategy}': use 'auto', 'frontier' or 'blocks'`, 'strategy');
  }
  if (strategy === 'blocks') {
    if (refused)
      throw new InputError(`strategy 'blocks' has no '${refused}': use strategy 'frontier'`, refused);
    return 'blocks';
  }
  const auto = strategy === 'auto' && !refused && !frontierAsked;
  return auto && autoPicksBlocks(graph, unitWeights) ? 'blocks' : 'frontier';
}

/**
 * A search on blocks from `source`: on `given` blocks (checked to be `graph`'s), on the blocks `'auto'` keeps
 * with the graph (`auto`), or on blocks prepared for this search and freed after it.
 */
export async function searchBlocks(
  graph: DeviceGraph,
  source: number,
  how: {
    auto: boolean;
    unitWeights: boolean;
    blocks?: SsspBlocksTuning | SsspBlocks;
    decode?: DistanceDecode | undefined;
  },
  options: RunOptions,
): Promise<{ distances: Float64Array; rounds: number }> {
  const { auto, unitWeights } = how;
  const given = auto
    ? await graph.derived(autoBlocksKey(graph, unitWeights), () => SsspBlocks.prepare(graph, { unitWeights }))
    : how.blocks instanceof SsspBlocks
      ? how.blocks
      : undefined;
  if (given && given.graph !== graph) {
    throw new InputError('these blocks were prepared for another graph', 'blocks');
  }
  const tuning = how.blocks instanceof SsspBlocks ? undefined : how.blocks;
  // Blocks, or a tuning, of the other kind would answer the other question on a weighted graph.
  const asked = given ? given.unitWeights : tuning?.unitWeights;
  if (asked !== undefined && asked !== unitWeights && graph.chunkedWeights) {
    throw new InputError(
      unitWeights
        ? "these blocks carry the graph's weights: prepare them with { unitWeights: true } for BFS"
        : 'these blocks count hops ({ unitWeights: true }): prepare them without it for SSSP',
      'blocks',
    );
  }
  const blocks = given ?? (await SsspBlocks.prepare(graph, { ...tuning, unitWeights }));
  try {
    const problem = new SsspBlocksProblem(blocks, { decode: how.decode });
    // A read-back costs about as much as a hundred rounds past convergence (each an early exit), and road
    // graphs converge in 20-40 rounds: most searches then take one submit.
    const run = await runProblem(graph, problem, (rec) => problem.reset(rec, source), {
      batch: 32,
      ...options,
    });
    return { distances: run.result.distances, rounds: run.iterations };
  } finally {
    if (!given) blocks.destroy();
  }
}
