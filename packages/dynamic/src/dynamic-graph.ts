import {
  checkOptionsObject,
  DeviceArray,
  DeviceLimitError,
  type Functor,
  InputError,
  type Kernel,
  type KernelDefinition,
  onTarget,
  onTargetReusingScratch,
  plus,
  type Recorder,
  rw,
  u32,
  type WeftDevice,
  WeftError,
  wgsl,
  writeDispatchArgs,
} from '@weft/gpu';
import {
  checkDeviceGraph,
  type DeviceGraph,
  type HostCsr,
  type HostEdgeList,
  validateCsr,
} from '@weft/graph';
import {
  type NeighborBlocks,
  type NeighborGraph,
  type NeighborParts,
  type NeighborWeights,
  releaseNeighborParts,
} from '@weft/operators';
import { transformScan, transformScanTo } from '@weft/scan';
import { sortPairs } from '@weft/sort';
import { coopDeleteKernel, coopInsertKernel, coopQueryKernel } from './coop-kernels.ts';
import {
  allocFixupKernel,
  batchDedupKernel,
  deleteKernel,
  type InsertionOrder,
  insertKernel,
  queryKernel,
} from './edge-kernels.ts';
import { exportSnapshot, readTables, type TableSnapshot } from './export.ts';
import { GROWN_WORDS, growTablesKernel } from './grow-kernels.ts';
import {
  A_BASE_GROWTH,
  A_BUMP,
  A_FREE,
  A_LONG_TABLES,
  A_OVERFLOW,
  ALIVE,
  bucketsFor,
  KEY_SLOTS,
  MAX_VERTICES,
  SLAB_WORDS,
  V_BUCKETS,
  V_DEGREE,
  V_FLAGS,
  VERTEX_WORDS,
  WORKGROUP,
} from './layout.ts';
import {
  forEachSlabEdge,
  forEachSlabNeighbor,
  hasEdgeFunctor,
  LONG_CHAIN_KEYS,
  slabDegree,
  slabParts,
} from './neighbors.ts';
import {
  arcSourcesKernel,
  countKeysKernel,
  linkChainsKernel,
  placeKeysKernel,
  S_BAD,
  S_BUMP,
  S_TOTAL,
  STATUS_WORDS,
  tileStartsKernel,
} from './place-kernels.ts';
import {
  rehashPlanKernel,
  rehashReleaseKernel,
  rehashStageKernel,
  T_BUCKET_CHANGE,
  T_GROWTH,
  T_KEYS,
  T_REBUILT,
  TOTAL_WORDS,
} from './rehash-kernels.ts';
import { TableStorage } from './storage.ts';
import { type VertexEntry, vertexBatchKernel, vertexKernel } from './vertex-kernels.ts';

/**
 * How insert, delete and query kernels probe the tables: `'thread'`, one thread per operation walking slabs
 * word by word; `'subgroup'`, one subgroup per operation at a time, its lanes reading a slab's words in
 * parallel (Awad et al.'s warp-cooperative work sharing; needs the `subgroups` feature); `'auto'` (the
 * default), what the dynamic bench suite measured fastest on an NVIDIA GPU for large batches: thread probing
 * for insertions and queries, subgroup probing for deletions, thread probing everywhere without subgroups.
 */
export type Probing = 'auto' | 'thread' | 'subgroup';

/** Element type of edge values in the map variant. */
export type ValueType = 'u32' | 'i32' | 'f32';
/** Vertex ids of a batch: on the host, or already on the GPU. */
export type IdArray = Uint32Array | DeviceArray<'u32'>;
/** Edge values of a batch (the graph's value type), on the host or on the GPU. */
export type ValueArray = Uint32Array | Int32Array | Float32Array | DeviceArray;

export interface DynamicGraphOptions {
  /** Vertices 0 .. vertexCount - 1 exist from the start (more come with `insertVertices`). */
  vertexCount: number;
  /** Undirected graphs store each edge in both tables and keep them consistent. */
  directed: boolean;
  /** Map variant: one value of this type per edge. Default: set variant (no values). */
  values?: ValueType;
  /** Expected out-degree per vertex: sizes its base buckets. Default: one bucket per vertex. */
  degreeHints?: ArrayLike<number>;
  /** Keys per base slot the hint aims for (default 0.7). */
  loadFactor?: number;
  /** Initial slab pool size in slabs (grows on demand). */
  slabCapacity?: number;
  /** Probing of edge insertions, deletions and queries (default `'auto'`; changeable later). */
  probing?: Probing;
  /**
   * Grow the tables an insertion batch would make long before it goes in (on the GPU), and rehash after
   * edge batches once they changed as many keys as half the tables' nominal room (default false; see
   * {@link DynamicGraph.autoRehash}).
   */
  autoRehash?: boolean;
}

export interface BatchOptions {
  /** Record into this recorder instead of submitting (the slab pool must already be large enough). */
  recorder?: Recorder;
  /**
   * Most collision slabs the batch can take from the bump pointer (default: one per edge, a safe bound).
   * A smaller figure avoids growing the pool for a batch known to fit, e.g. re-inserting deleted edges.
   */
  maxNewSlabs?: number;
}

/** When {@link DynamicGraph.rehash} rebuilds a vertex's table. */
export interface RehashOptions {
  /** Rebuild a table holding fewer keys per base slot than this (default: half the graph's `loadFactor`). */
  low?: number;
  /** Rebuild a table holding more keys per base slot than this (default: twice the graph's `loadFactor`). */
  high?: number;
  /** Rebuild a table with a bucket chain of more slabs than this (default 4). */
  maxChain?: number;
}

export interface RehashResult {
  /** Tables rebuilt. */
  verticesRebuilt: number;
  /** Slabs the allocator holds free afterwards that were in use before (live slabs before minus after). */
  slabsFreed: number;
}

export interface EdgeQueryResult {
  /** 1 where the edge exists. */
  found: Uint32Array;
  /** Values of found edges (0 elsewhere); map variant only. */
  values?: Uint32Array | Int32Array | Float32Array;
}

/** A CSR on the GPU, as the placement build reads it. */
interface CsrArrays {
  vertexCount: number;
  edgeCount: number;
  directed: boolean;
  offsets: DeviceArray<'u32'>;
  targets: DeviceArray<'u32'>;
  weights?: DeviceArray;
}

/** @internal A placement build split for timing (see `DynamicGraph.bulkBuild`). */
export interface BulkBuild {
  readonly graph: DynamicGraph;
  /** Records the placement passes (GPU work only). */
  record(rec: Recorder): Promise<void>;
  /** After the recorded work ran: `'placed'`, or `'inserted'` when the insertion path built the tables. */
  finish(): Promise<'placed' | 'inserted'>;
}

const DEFAULT_LOAD_FACTOR = 0.7;
/** Largest `slotPartsAbove`: times a vertex's bucket count it must stay within u32 in the kernels. */
const MAX_SLOT_PARTS_ABOVE = 1024;
// A bucket of more than four slabs holds over 120 keys where rebuilt tables aim for about 21 a slab: by
// chance that does not happen, so it flags a chain left long by deletions or by keys piled into one bucket.
const DEFAULT_MAX_CHAIN = 4;
const MIN_SLABS = 64;
/** Tables one insertion batch may grow (a record of GROWN_WORDS words each): more wait for the next batch. */
const MAX_GROWN_TABLES = 1 << 20;
/** Workgroups of the relocation pass, each taking listed tables in turn. */
const RELOCATING_WORKGROUPS = 2048;
const NOT_A_VERTEX = 0xffffffff;

/**
 * A dynamic graph on the GPU: per vertex a hash table of 128-byte slabs holding destination ids (and, in the
 * map variant, a parallel array of values). Batched edge insertion and deletion, edge queries, vertex
 * insertion and deletion; snapshots as a `@weft/graph` {@link DeviceGraph}. Awad et al., "Dynamic Graphs on
 * the GPU" (IPDPS 2020), adapted to WebGPU's 32-bit atomics. See README.md for the layout and semantics.
 *
 * A {@link NeighborGraph}: `@weft/operators`' `advancePush` and the enactor run on it directly.
 */
export class DynamicGraph implements NeighborGraph {
  readonly loadFactor: number;
  /** Probing of the next edge insertions, deletions and queries. */
  probing: Probing = 'auto';
  /**
   * Keeps tables near their load factor as edges come and go. In an `insertEdges` call (recorded or not,
   * with `insertionOrder: 'by-source'`), before the batch goes in, every table the batch would fill past
   * `2 * loadFactor` keys a base slot grows on the GPU to `loadFactor` (nothing is read back for it), as far
   * as the pool holds the new tables beside the batch's own need: an unrecorded call reads the allocator
   * back after the batch, and a recorded one only takes slabs the pool's reservation (`reserveSlabs`, or
   * the slab an edge of earlier batches without `maxNewSlabs`) leaves over.
   * After an `insertEdges` or `deleteEdges` call that is not recorded: {@link rehash} with the default
   * bounds once the edge directions deleted (and, with `insertionOrder: 'batch'`, inserted) since the last
   * rehash exceed half of what the base buckets are sized for (`30 * loadFactor` keys each), so the
   * rehash's passes over the pool cost at most a constant share of the batches' work; and after an
   * `insertEdges` call that still linked a slab to a table holding more than `2 * 30` keys a base bucket.
   */
  autoRehash = false;
  /**
   * How {@link deleteVertices} prepares a batch: `'device'` (the default), on the GPU (ids claimed by
   * compare-exchange, their slabs laid out by a scan, no host work beyond the upload, no read-back);
   * `'host'`, the earlier path (ids de-duplicated and filtered on the host, slab offsets from the host copy
   * of the bucket counts, probes that compare as they load), kept so that the two can be timed side by side.
   */
  vertexDeletion: 'device' | 'host' = 'device';
  /**
   * How {@link insertEdges} orders a de-duplicated batch: `'by-source'` (the default), one stable radix sort
   * groups it by source so that a vertex's insertions run side by side (its record and slabs stay in cache);
   * `'batch'`, as given, with no sort (the insert kernel asks the dedup table whether its item won): two
   * dispatches fewer and no sort, at the cost of that locality.
   */
  insertionOrder: InsertionOrder = 'by-source';
  /**
   * @internal Subgroup edge deletion: each lane tombstones its own find after the search rounds (the
   * default), or the leader in each round (the earlier kernel, kept so that a bench can time both).
   */
  deleteClaims: 'after-rounds' | 'each-round' = 'after-rounds';
  #vertexCount = 0;
  #store!: TableStorage;
  /** Host copies of the ALIVE flag and of the base bucket counts (vertex operations and rehash change them). */
  #alive: Uint8Array = new Uint8Array(0);
  #buckets: Uint32Array = new Uint32Array(0);
  #destroyed = false;
  #version = 0;
  #slotPartsAbove = LONG_CHAIN_KEYS;
  /** Sum of every vertex's base bucket count, and the keys changed by edge batches since the last rehash. */
  #baseSlabs = 0;
  #changedKeys = 0;
  /** A rehash changed bucket counts on the GPU: the host copies are read back before a vertex operation. */
  #bucketsStale = false;
  /** A deletion by ids on the GPU changed ALIVE flags that the host copy does not know of. */
  #aliveStale = false;

  private constructor(
    readonly device: WeftDevice,
    readonly directed: boolean,
    readonly valueType: ValueType | undefined,
    loadFactor: number,
  ) {
    this.loadFactor = loadFactor;
  }

  /** An empty graph (no edges) with vertices 0 .. vertexCount - 1. */
  static async create(device: WeftDevice, options: DynamicGraphOptions): Promise<DynamicGraph> {
    checkOptionsObject('DynamicGraph.create', options, true);
    const { vertexCount } = options;
    const where = 'DynamicGraph.create';
    if (!Number.isInteger(vertexCount) || vertexCount < 0 || vertexCount > MAX_VERTICES) {
      throw new InputError(
        `vertexCount must be an integer in [0, ${MAX_VERTICES}], got ${vertexCount}`,
        where,
      );
    }
    const loadFactor = options.loadFactor ?? DEFAULT_LOAD_FACTOR;
    if (!(loadFactor > 0 && loadFactor <= 1)) {
      throw new InputError(`loadFactor must be in (0, 1], got ${loadFactor}`, where);
    }
    const hints = options.degreeHints;
    if (hints !== undefined && hints.length !== vertexCount) {
      throw new InputError(`degreeHints has ${hints.length} entries, expected ${vertexCount}`, where);
    }
    if (typeof options.directed !== 'boolean') {
      throw new InputError(`directed must be true or false, got ${String(options.directed)}`, where);
    }
    const values = options.values;
    if (values !== undefined && values !== 'u32' && values !== 'i32' && values !== 'f32') {
      throw new InputError(`values must be 'u32', 'i32' or 'f32', got ${String(values)}`, where);
    }
    const slabCapacity = options.slabCapacity ?? 0;
    if (!Number.isInteger(slabCapacity) || slabCapacity < 0) {
      throw new InputError(`slabCapacity must be a non-negative integer, got ${slabCapacity}`, where);
    }
    const g = new DynamicGraph(device, options.directed, options.values, loadFactor);
    if (
      options.probing !== undefined &&
      options.probing !== 'auto' &&
      options.probing !== 'thread' &&
      options.probing !== 'subgroup'
    ) {
      throw new InputError(
        `probing must be 'auto', 'thread' or 'subgroup', got ${String(options.probing)}`,
        where,
      );
    }
    if (options.probing !== undefined) g.probing = options.probing;
    if (options.autoRehash !== undefined && typeof options.autoRehash !== 'boolean') {
      throw new InputError(`autoRehash must be true or false, got ${String(options.autoRehash)}`, where);
    }
    g.autoRehash = options.autoRehash ?? false;
    g.#kernelFor('thread', 'subgroup', 'subgroup'); // checks the feature up front
    const buckets = new Uint32Array(vertexCount);
    let baseSlabs = 0;
    for (let v = 0; v < vertexCount; v++) {
      buckets[v] = bucketsFor(checkHint(hints?.[v] ?? 0, v, where), loadFactor);
      baseSlabs += buckets[v]!;
    }
    // Base buckets plus a quarter for collision slabs; the pool grows when batches need more.
    const slabs = Math.max(slabCapacity, Math.ceil(baseSlabs * 1.25), MIN_SLABS);
    const vertexCapacity = Math.max(vertexCount, 16);
    g.#store = new TableStorage(device, options.values !== undefined, vertexCapacity, slabs);
    g.#alive = new Uint8Array(vertexCapacity);
    g.#buckets = new Uint32Array(vertexCapacity);
    await g.#store.initialize();
    if (vertexCount > 0) {
      // Vertices 0 .. n - 1 are new and distinct: no host checks (insertVertices' would cost seconds at
      // millions of vertices), their base buckets fit the pool as sized above.
      const ids = new Uint32Array(vertexCount);
      for (let v = 0; v < vertexCount; v++) ids[v] = v;
      g.#vertexCount = vertexCount;
      await g.#store.reserve(baseSlabs, undefined, true);
      await g.#vertexOps(['insert_vertices'], ids, buckets);
      g.#alive.fill(1, 0, vertexCount);
      g.#buckets.set(buckets);
      g.#baseSlabs = baseSlabs;
    }
    return g;
  }

  /**
   * Bulk build from a CSR (degrees are the hints unless `options.degreeHints` gives others; an undirected
   * CSR already lists both directions). Values come from `csr.weights` when `options.values` is set (its
   * type by default). The CSR is copied to the GPU and built as by {@link fromDeviceGraph}.
   */
  static async fromCsr(
    device: WeftDevice,
    csr: HostCsr,
    options: Partial<DynamicGraphOptions> = {},
  ): Promise<DynamicGraph> {
    checkOptionsObject('DynamicGraph.fromCsr', options);
    validateCsr(csr);
    const made: DeviceArray[] = [];
    const up = (data: Uint32Array | Int32Array | Float32Array, label: string) => {
      const a = device.upload(data.length > 0 ? data : oneZero(data), { label });
      made.push(a);
      return a as DeviceArray<'u32'>;
    };
    try {
      const arrays: CsrArrays = {
        vertexCount: csr.vertexCount,
        edgeCount: csr.edgeCount,
        directed: csr.directed,
        offsets: up(csr.offsets, 'bulk build offsets'),
        targets: up(csr.targets, 'bulk build targets'),
        ...(csr.weights ? { weights: up(csr.weights, 'bulk build weights') } : {}),
      };
      return await DynamicGraph.#build(device, arrays, options, 'DynamicGraph.fromCsr', csr.offsets);
    } finally {
      for (const a of made) a.destroy();
    }
  }

  /**
   * Bulk build from a CSR on the GPU (an unchunked {@link DeviceGraph} of this device; its row offsets are
   * read back once for the degree hints). When every row is strictly increasing and holds no self-loop
   * (checked on the GPU), keys are placed: each bucket counts its keys, a scan hands out collision slabs, and
   * every key is written straight to its slot. Otherwise the arcs go through one insertion batch, as
   * {@link fromArcs} (duplicates: the last one's value wins; self-loops dropped). Either way the tables are
   * the same as an insertion build's. An undirected CSR lists both directions; values come from the
   * graph's weights (their type, unless `options.values` names it).
   */
  static async fromDeviceGraph(
    device: WeftDevice,
    graph: DeviceGraph,
    options: Partial<DynamicGraphOptions> = {},
  ): Promise<DynamicGraph> {
    checkOptionsObject('DynamicGraph.fromDeviceGraph', options);
    const where = 'DynamicGraph.fromDeviceGraph';
    checkDeviceGraph(graph, where);
    if (graph.device !== device) throw new InputError('the graph lives on another device', where);
    graph.requireUnchunked(where);
    const weights = graph.weights;
    return DynamicGraph.#build(
      device,
      {
        vertexCount: graph.vertexCount,
        edgeCount: graph.edgeCount,
        directed: graph.directed,
        offsets: graph.offsets,
        targets: graph.targets,
        ...(weights ? { weights } : {}),
      },
      options,
      where,
    );
  }

  static async #build(
    device: WeftDevice,
    csr: CsrArrays,
    options: Partial<DynamicGraphOptions>,
    where: string,
    hostOffsets?: Uint32Array,
  ): Promise<DynamicGraph> {
    const build = await DynamicGraph.bulkBuild(device, csr, options, where, hostOffsets);
    try {
      await onTarget(device, 'dynamic bulk build', (rec) => build.record(rec));
      await build.finish();
    } catch (e) {
      build.graph.destroy();
      throw e;
    }
    return build.graph;
  }

  /**
   * @internal The placement build in three steps, so that a bench can time the GPU work alone: empty
   * tables sized from the degrees (and room for every collision slab the placement may take), the recorded
   * passes, and `finish`, which reads the status back and runs the insertion path when the rows were not
   * distinct keys (or the pool could not hold the chains).
   */
  static async bulkBuild(
    device: WeftDevice,
    csr: CsrArrays,
    options: Partial<DynamicGraphOptions>,
    where: string,
    hostOffsets?: Uint32Array,
  ): Promise<BulkBuild> {
    const n = csr.vertexCount;
    const m = csr.edgeCount;
    const weights = csr.weights;
    if (weights && weights.type !== 'u32' && weights.type !== 'i32' && weights.type !== 'f32') {
      throw new InputError(`edge weights of type ${weights.type} cannot be values (u32, i32 or f32)`, where);
    }
    const values = options.values ?? (weights?.type as ValueType | undefined);
    if (values !== undefined && weights === undefined) {
      throw new InputError(`values: '${values}' needs edge weights, and the CSR has none`, where);
    }
    if (values !== undefined && weights !== undefined && weights.type !== values) {
      throw new InputError(`the weights are ${weights.type} but values: '${values}' was asked for`, where);
    }
    const offsets = hostOffsets ?? (await csr.offsets.download(0, n + 1));
    const hints =
      options.degreeHints ?? Uint32Array.from({ length: n }, (_, v) => offsets[v + 1]! - offsets[v]!);
    const loadFactor = options.loadFactor ?? DEFAULT_LOAD_FACTOR;
    // Room for the worst case of the placement: a bucket of c keys takes ceil(c / KEY_SLOTS) - 1 collision
    // slabs, at most m / KEY_SLOTS in all, so the pool never grows during the build.
    const chains = Math.ceil(m / KEY_SLOTS);
    let baseSlabs = 0;
    if (loadFactor > 0 && loadFactor <= 1 && hints.length === n) {
      for (let v = 0; v < n; v++) baseSlabs += bucketsFor(hints[v]!, loadFactor);
    }
    const maxSlabs = Math.floor(device.limits.maxStorageBufferBindingSize / (SLAB_WORDS * 4));
    const g = await DynamicGraph.create(device, {
      ...options,
      vertexCount: n,
      directed: csr.directed,
      degreeHints: hints,
      slabCapacity: Math.max(options.slabCapacity ?? 0, Math.min(maxSlabs, baseSlabs + chains + MIN_SLABS)),
      ...(values ? { values } : {}),
    });
    const base = g.#baseSlabs;
    const withValues = values !== undefined;
    const kernels = async () => {
      if (m > 0) await g.#store.reserve(Math.min(chains, g.slabCapacity - base), undefined, true);
      return Promise.all([
        device.kernel(tileStartsKernel()),
        device.kernel(countKeysKernel()),
        device.kernel(placeKeysKernel(withValues)),
        device.kernel(linkChainsKernel()),
        device.kernel(arcSourcesKernel()),
      ]);
    };
    const [tileStarts, countKeys, placeKeys, linkChains, arcSources] = await kernels().catch((e) => {
      g.destroy();
      throw e;
    });
    const status = device.array('u32', STATUS_WORDS, { label: 'bulk build status' });
    const arcParams = { m, vertex_count: n };
    const arcGroups = Math.ceil(m / WORKGROUP);
    /** Each arc tile's first row, found once for the passes over the arcs. */
    const tileRows = (rec: Recorder) => {
      const tile_rows = rec.scratch('u32', arcGroups + 1, 'bulk build tile rows');
      rec.dispatch(tileStarts, {
        bindings: { offsets: csr.offsets, tile_rows },
        params: arcParams,
        workgroups: Math.ceil((arcGroups + 1) / WORKGROUP),
      });
      return tile_rows;
    };
    let finished = false;
    return {
      graph: g,
      async record(rec) {
        if (m === 0) return;
        const counts = rec.scratch('u32', base, 'bulk build bucket counts');
        const rank = rec.scratch('u32', m, 'bulk build ranks');
        const first = rec.scratch('u32', base, 'bulk build first collision slabs');
        rec.clear(counts);
        rec.clear(status);
        const tile_rows = tileRows(rec);
        const { offsets, targets } = csr;
        rec.dispatch(countKeys, {
          bindings: {
            offsets,
            targets,
            vertices: g.vertices,
            alloc: g.alloc,
            tile_rows,
            counts,
            rank,
            status,
          },
          params: arcParams,
          workgroups: arcGroups,
        });
        await transformScan(
          rec,
          base,
          wgsl`(s: u32) -> u32 { return (max(${counts}[s], 1u) - 1u) / ${u32(KEY_SLOTS)}; }`,
          first,
          { total: { array: status, index: S_TOTAL } },
        );
        const capacity = { slab_capacity: g.slabCapacity };
        rec.dispatch(placeKeys, {
          bindings: {
            slabs: g.slabs,
            vertices: g.vertices,
            offsets,
            targets,
            tile_rows,
            rank,
            first,
            status,
            ...(withValues ? { values: g.values, weights: weights! } : {}),
          },
          params: { ...arcParams, ...capacity },
          workgroups: arcGroups,
        });
        rec.dispatch(linkChains, {
          bindings: { slabs: g.slabs, alloc: g.alloc, counts, first, status },
          params: { buckets: base, ...capacity },
          workgroups: Math.ceil(base / WORKGROUP),
        });
      },
      async finish() {
        if (finished) throw new InputError('finish() was called twice', where);
        finished = true;
        let src: DeviceArray<'u32'> | undefined;
        try {
          const s = m === 0 ? undefined : await status.download();
          if (!s || (s[S_BAD] === 0 && s[S_BUMP]! + s[S_TOTAL]! <= g.slabCapacity)) return 'placed';
          const out_src = device.array('u32', m, { label: 'bulk build sources' });
          src = out_src;
          await onTarget(device, 'dynamic bulk build sources', async (rec) => {
            rec.dispatch(arcSources, {
              bindings: { offsets: csr.offsets, tile_rows: tileRows(rec), out_src },
              params: arcParams,
              workgroups: arcGroups,
            });
          });
          await g.#insert(out_src, csr.targets, withValues ? weights : undefined, false, {});
          return 'inserted';
        } finally {
          src?.destroy();
          status.destroy();
        }
      },
    };
  }

  /**
   * Bulk build from arcs already on the GPU (or on the host), inserted as given: for an undirected graph
   * the arcs must list both directions, as a CSR does. `options.degreeHints` (the out-degrees, when known)
   * size the tables. One insertion batch, no host copy of the arcs.
   */
  static async fromArcs(
    device: WeftDevice,
    arcs: { src: IdArray; dst: IdArray; values?: ValueArray },
    options: DynamicGraphOptions,
  ): Promise<DynamicGraph> {
    checkOptionsObject('DynamicGraph.fromArcs', options, true);
    const g = await DynamicGraph.create(device, options);
    try {
      await g.#insert(arcs.src, arcs.dst, arcs.values, false, {});
    } catch (e) {
      g.destroy();
      throw e;
    }
    return g;
  }

  /** Bulk build from an edge list (duplicates: the last one's value wins; self-loops dropped). */
  static async fromEdgeList(
    device: WeftDevice,
    edges: HostEdgeList,
    options: Partial<DynamicGraphOptions> = {},
  ): Promise<DynamicGraph> {
    checkOptionsObject('DynamicGraph.fromEdgeList', options);
    const where = 'DynamicGraph.fromEdgeList';
    const n = edges.vertexCount;
    if (!Number.isInteger(n) || n < 0 || n > MAX_VERTICES) {
      throw new InputError(`vertexCount must be an integer in [0, ${MAX_VERTICES}], got ${n}`, where);
    }
    const hints = new Uint32Array(n);
    for (let i = 0; i < edges.src.length; i++) {
      hints[edges.src[i]!]!++;
      if (!edges.directed) hints[edges.dst[i]!]!++;
    }
    const values = options.values ?? (edges.weights ? weightType(edges.weights) : undefined);
    const g = await DynamicGraph.create(device, {
      ...options,
      vertexCount: edges.vertexCount,
      directed: edges.directed,
      degreeHints: hints,
      ...(values ? { values } : {}),
    });
    try {
      await g.insertEdges(edges.src, edges.dst, values ? edges.weights : undefined);
    } catch (e) {
      g.destroy();
      throw e;
    }
    return g;
  }

  /**
   * Counts the batches that may have changed the graph (edge and vertex insertions and deletions), so
   * that state kept beside it can tell whether the graph changed behind its back.
   */
  get version(): number {
    return this.#version;
  }

  /**
   * How `parts()` cuts a vertex's list: where it averages more than this many keys a base bucket, a part is
   * one key slot of one bucket's chain (threads side by side read a slab's slots together), else a whole
   * bucket with its chain (one thread reads the slab). Default 60, two slabs' worth: only long chains are
   * cut by slot. 0 cuts every list by slot; at most 1024. Setting it starts a new `version`.
   */
  get slotPartsAbove(): number {
    return this.#slotPartsAbove;
  }
  set slotPartsAbove(keys: number) {
    if (!Number.isInteger(keys) || keys < 0 || keys > MAX_SLOT_PARTS_ABOVE) {
      throw new InputError(
        `slotPartsAbove must be an integer in [0, ${MAX_SLOT_PARTS_ABOVE}], got ${keys}`,
        'DynamicGraph.slotPartsAbove',
      );
    }
    this.#slotPartsAbove = keys;
    this.#version++;
  }

  /** Vertex ids are below this (deleted and never-inserted ids included). */
  get vertexCount(): number {
    return this.#vertexCount;
  }
  get vertexCapacity(): number {
    return this.#store.vertexCapacity;
  }
  /** Slabs in the pool (base buckets and collision slabs). */
  get slabCapacity(): number {
    return this.#store.slabCapacity;
  }
  /** @internal */
  get slabs(): DeviceArray<'u32'> {
    return this.#store.slabs;
  }
  /** The edge values (map variant), indexed by the slot `forEachNeighbor` passes as `edge`. */
  get values(): DeviceArray<'u32'> {
    return this.#store.values;
  }
  /** @internal */
  get vertices(): DeviceArray<'u32'> {
    return this.#store.vertices;
  }
  /** @internal */
  get freeList(): DeviceArray<'u32'> {
    return this.#store.freeList;
  }
  /** @internal */
  get alloc(): DeviceArray<'u32'> {
    return this.#store.alloc;
  }
  /** @internal Test knob: slabs per key assumed when the pool grows for a batch that may not fit. */
  set slabsPerKeyEstimate(value: number) {
    this.#store.slabsPerKeyEstimate = value;
  }
  /**
   * `(v: u32)`: calls `visit(src: u32, dst: u32, edge: u32)` for each out-edge of `v`, walking its
   * buckets and slab chains; `edge` is the key's slot in the slab pool, so the edge's value is
   * `values[edge]`. Captures the tables as they are now: build it again after a batch.
   */
  forEachNeighbor(visit: Functor): Functor {
    return forEachSlabNeighbor(this, visit);
  }

  /** `(v: u32) -> u32`: the out-degree of `v`. */
  degree(): Functor {
    return slabDegree(this);
  }

  /** `(u: u32, v: u32) -> bool`: whether `u -> v` is an edge (a hash probe of one bucket's chain). */
  hasEdge(): Functor {
    return hasEdgeFunctor(this);
  }

  /**
   * The out-edges cut into parts for load balance: a vertex's parts are its base buckets, each walked
   * with its chain by one thread (a hub's table has buckets in proportion to its degree once built with
   * hints or rehashed); vertices without edges have none.
   */
  parts(): NeighborParts {
    return slabParts(this);
  }

  /** Every edge by slab: a thread per slab of the pool visits its live keys, `src` being the slab's owner. */
  edgeBlocks(): NeighborBlocks {
    return { count: this.slabCapacity, forEach: (visit) => forEachSlabEdge(this, visit) };
  }

  /** The values as edge weights (map variant; undefined without values). */
  weights(): NeighborWeights | undefined {
    const type = this.valueType;
    if (type === undefined) return undefined;
    return { type, bits: wgsl`(edge: u32) -> u32 { return ${this.values}[edge]; }` };
  }

  /**
   * Whether vertex `v` exists (inserted and not deleted). After {@link deleteVertices} with ids on the GPU,
   * call {@link refreshVertices} first (the host copy is not read back per batch).
   */
  hasVertex(v: number): boolean {
    this.#check();
    if (this.#aliveStale) {
      throw new InputError(
        'vertices were deleted by ids on the GPU: await refreshVertices() before hasVertex()',
        'DynamicGraph.hasVertex',
      );
    }
    return v < this.#vertexCount && this.#alive[v] === 1;
  }

  /**
   * Inserts edges src[i] -> dst[i] (both directions when undirected). An existing edge keeps one copy and
   * takes the new value; within a batch the last occurrence wins (for an undirected edge, in either
   * orientation). Self-loops and edges touching a vertex that does not exist are ignored.
   */
  async insertEdges(src: IdArray, dst: IdArray, values?: ValueArray, options: BatchOptions = {}) {
    checkOptionsObject('DynamicGraph.insertEdges', options);
    this.#version++;
    const words = await this.#insert(src, dst, values, !this.directed, options);
    await this.#afterBatch(src.length, options, true, words);
  }

  /** Deletes edges src[i] -> dst[i] (both directions when undirected); absent edges are ignored. */
  async deleteEdges(src: IdArray, dst: IdArray, options: BatchOptions = {}) {
    checkOptionsObject('DynamicGraph.deleteEdges', options);
    this.#version++;
    this.#check();
    const n = this.#batchLength(src, dst, 'deleteEdges');
    const m = this.directed ? n : 2 * n;
    if (m === 0) return;
    const thread = this.#kernelFor('thread', 'subgroup', 'subgroup') === 'thread';
    const kernels = await Promise.all(
      thread
        ? [this.device.kernel(deleteKernel('locate')), this.device.kernel(deleteKernel('apply'))]
        : [this.device.kernel(coopDeleteKernel(this.deleteClaims))],
    );
    await onTarget(options.recorder ?? this.device, 'dynamic delete edges', async (rec) => {
      const bindings = {
        slabs: this.slabs,
        vertices: this.vertices,
        src: this.#onDevice(rec, src, 'batch sources'),
        dst: this.#onDevice(rec, dst, 'batch targets'),
      };
      const params = { n: m, mirror: this.directed ? 0 : 1, ...this.#tableParams() };
      const workgroups = Math.ceil(m / WORKGROUP);
      if (!thread) {
        rec.dispatch(kernels[0]!, { bindings, params, workgroups });
        return;
      }
      const positions = rec.scratch('u32', m, 'deleted key positions');
      for (const kernel of kernels)
        rec.dispatch(kernel, { bindings: { ...bindings, positions }, params, workgroups });
    });
    await this.#afterBatch(n, options);
  }

  /**
   * Counts a batch's keys and rehashes when {@link autoRehash} says so: after changes worth half the nominal
   * room, or after an insertion batch that lengthened a table past `LONG_TABLE_LOAD` keys a base slot (a
   * flag the insert kernels set, read back here unless the insertion already read the allocator's `words`).
   */
  async #afterBatch(edges: number, options: BatchOptions, inserted = false, words?: Uint32Array) {
    // Insertions sorted by source grow their tables on the GPU under autoRehash: only deletions count here.
    const grown = inserted && this.autoRehash && this.insertionOrder === 'by-source';
    if (!grown) this.#changedKeys += this.directed ? edges : 2 * edges;
    if (!this.autoRehash || options.recorder) return;
    const room = (this.#baseSlabs * KEY_SLOTS * this.loadFactor) / 2;
    const longTables = async () =>
      (words ? words[A_LONG_TABLES] : (await this.alloc.download(A_LONG_TABLES, 1))[0]) !== 0;
    if (this.#changedKeys > room || (inserted && (await longTables()))) await this.rehash();
  }

  /** Whether each edge src[i] -> dst[i] exists, and its value in the map variant. */
  async queryEdges(src: IdArray, dst: IdArray): Promise<EdgeQueryResult> {
    this.#check();
    const n = this.#batchLength(src, dst, 'queryEdges');
    if (n === 0)
      return this.valueType
        ? { found: new Uint32Array(0), values: hostValues(this.valueType, new Uint32Array(0)) }
        : { found: new Uint32Array(0) };
    const found = this.device.array('u32', n, { label: 'edge query found' });
    const out = this.valueType ? this.device.array('u32', n, { label: 'edge query values' }) : found;
    try {
      await this.queryEdgesOnDevice(this.device, src, dst, found, this.valueType ? out : undefined);
      const result: EdgeQueryResult = { found: await found.download() };
      if (this.valueType) result.values = hostValues(this.valueType, await out.download());
      return result;
    } finally {
      found.destroy();
      out.destroy();
    }
  }

  /** 1 where edge src[i] -> dst[i] exists, 0 elsewhere. */
  async edgeExists(src: IdArray, dst: IdArray): Promise<Uint32Array> {
    return (await this.queryEdges(src, dst)).found;
  }

  /** Records edge queries: `found[i]` (u32) and, in the map variant, `values[i]` (value bits) on the GPU. */
  async queryEdgesOnDevice(
    target: WeftDevice | Recorder,
    src: IdArray,
    dst: IdArray,
    found: DeviceArray<'u32'>,
    values?: DeviceArray,
  ) {
    this.#check();
    const n = this.#batchLength(src, dst, 'queryEdges');
    if (found.length < n)
      throw new InputError(`found has ${found.length} elements, needs ${n}`, 'queryEdges');
    if (found.type !== 'u32') throw new InputError(`found must be u32, got ${found.type}`, 'queryEdges');
    if (values !== undefined && values.length < n) {
      throw new InputError(`values has ${values.length} elements, needs ${n}`, 'queryEdges');
    }
    const type = values?.type;
    if (type !== undefined && this.valueType !== undefined && type !== 'u32' && type !== this.valueType) {
      throw new InputError(`values are ${type}: give u32 (bits) or ${this.valueType}`, 'queryEdges');
    }
    if (n === 0) return;
    const withValues = this.valueType !== undefined && values !== undefined;
    const kernel = await this.device.kernel(
      this.#kernelFor(queryKernel(withValues), coopQueryKernel(withValues), 'thread'),
    );
    await onTarget(target, 'dynamic edge queries', async (rec) => {
      rec.dispatch(kernel, {
        bindings: {
          slabs: this.slabs,
          values: this.values,
          vertices: this.vertices,
          src: this.#onDevice(rec, src, 'query sources'),
          dst: this.#onDevice(rec, dst, 'query targets'),
          found,
          out_values: values ?? rec.scratch('u32', 1, 'no values'),
        },
        params: { n, ...this.#tableParams() },
        workgroups: Math.ceil(n / WORKGROUP),
      });
    });
  }

  /**
   * Adds vertices (ids may be beyond the current count: the dictionary grows). New ids get base buckets from
   * `degreeHints[i]`; an id deleted earlier gets its old (emptied) buckets back. Existing vertices are ignored.
   */
  async insertVertices(ids: ArrayLike<number>, degreeHints?: ArrayLike<number>) {
    this.#version++;
    this.#check();
    const where = 'insertVertices';
    if (degreeHints !== undefined && degreeHints.length !== ids.length) {
      throw new InputError(`degreeHints has ${degreeHints.length} entries for ${ids.length} ids`, where);
    }
    await this.#refreshAlive();
    const list: number[] = [];
    const buckets: number[] = [];
    const seen = new Set<number>();
    let maxId = -1;
    for (let i = 0; i < ids.length; i++) {
      const v = ids[i]!;
      if (!Number.isInteger(v) || v < 0 || v >= MAX_VERTICES) {
        throw new InputError(`ids[${i}] = ${v} is not a vertex id below ${MAX_VERTICES}`, where);
      }
      maxId = Math.max(maxId, v);
    }
    if (maxId >= this.vertexCapacity) await this.#growVertices(Math.max(maxId + 1, this.vertexCapacity * 2));
    for (let i = 0; i < (degreeHints?.length ?? 0); i++) checkHint(degreeHints![i]!, i, where);
    let baseSlabs = 0;
    for (let i = 0; i < ids.length; i++) {
      const v = ids[i]!;
      if (seen.has(v) || this.hasVertex(v)) continue;
      seen.add(v);
      list.push(v);
      const b = this.#buckets[v] ? 0 : bucketsFor(degreeHints?.[i] ?? 0, this.loadFactor);
      buckets.push(b);
      baseSlabs += b;
    }
    this.#vertexCount = Math.max(this.#vertexCount, maxId + 1);
    if (list.length === 0) return;
    await this.#store.reserve(baseSlabs, undefined, true);
    await this.#vertexOps(['insert_vertices'], list, buckets);
    for (let i = 0; i < list.length; i++) {
      const v = list[i]!;
      this.#alive[v] = 1;
      if (buckets[i]! > 0) this.#buckets[v] = buckets[i]!;
      this.#baseSlabs += buckets[i]!;
    }
  }

  /**
   * Deletes vertices and all their edges, in-edges included, and frees their collision slabs. Undirected
   * graphs remove each reverse key from the neighbour's table found through the vertex's own adjacency (work
   * in proportion to the deleted vertices' degrees); directed graphs keep no in-edges, so every table is
   * swept once for keys naming a deleted vertex. Ids that do not exist (or repeat) are ignored. A deleted id
   * keeps its base buckets for re-insertion. With `recorder`, the work is recorded there (the graph treats
   * the vertices as deleted from then on). Ids on the GPU are taken as they are (no read-back); the host
   * copy of which vertices exist is then read back at the next call that needs it (see {@link hasVertex}).
   */
  async deleteVertices(ids: ArrayLike<number> | DeviceArray<'u32'>, options: { recorder?: Recorder } = {}) {
    checkOptionsObject('DynamicGraph.deleteVertices', options);
    this.#version++;
    this.#check();
    if (this.vertexDeletion === 'host') {
      const host = ids instanceof DeviceArray ? await ids.download() : ids;
      await this.#refreshAlive();
      await this.#deleteOnHost(host, options.recorder);
      return;
    }
    if (this.vertexDeletion !== 'device') {
      throw new InputError(
        `vertexDeletion must be 'device' or 'host', got ${String(this.vertexDeletion)}`,
        'deleteVertices',
      );
    }
    if (ids instanceof DeviceArray && ids.type !== 'u32') {
      throw new InputError(`ids must be u32, got ${ids.type}`, 'deleteVertices');
    }
    if (ids.length === 0 || this.#vertexCount === 0) return;
    if (ids instanceof DeviceArray) {
      await this.#deleteOnDevice(ids, options.recorder);
      this.#aliveStale = true;
      return;
    }
    // Anything that is not a vertex id becomes one beyond every vertex (the kernels skip it), not its u32 cast.
    const n = this.#vertexCount;
    const words =
      ids instanceof Uint32Array
        ? ids
        : Uint32Array.from(ids, (v) => (Number.isInteger(v) && v >= 0 && v < n ? v : NOT_A_VERTEX));
    await this.#deleteOnDevice(words, options.recorder);
    for (const v of words) if (v < n) this.#alive[v] = 0;
  }

  /** The earlier path: ids de-duplicated and filtered on the host, offsets from the host bucket counts. */
  async #deleteOnHost(ids: ArrayLike<number>, recorder: Recorder | undefined) {
    const list = [...new Set(Array.from(ids))].filter((v) => this.hasVertex(v));
    if (list.length === 0) return;
    if (this.directed) {
      await this.#vertexOps(['mark', 'sweep', 'finish'], list, undefined, recorder);
    } else {
      // The batch's base slabs end to end: unlink and clear take one thread per word of them.
      await this.#syncBuckets();
      const offsets = new Uint32Array(list.length + 1);
      for (let i = 0; i < list.length; i++) offsets[i + 1] = offsets[i]! + this.#buckets[list[i]!]!;
      await this.#vertexOps(['mark', 'unlink', 'clear'], list, offsets, recorder);
    }
    for (const v of list) this.#alive[v] = 0;
  }

  /**
   * Claims the batch on the GPU (repeats and dead ids drop out there), then, undirected, scans the claimed
   * vertices' bucket counts (the scan's last item writes the total and the per-word grid's dispatch
   * arguments), locates their keys' reverse keys and tombstones them; directed, sweeps the pool. Four
   * dispatches, no read-back.
   */
  async #deleteOnDevice(ids: Uint32Array | DeviceArray<'u32'>, recorder: Recorder | undefined) {
    const n = ids.length;
    const d = this.device;
    const entries = this.directed ? (['claim', 'finish'] as const) : (['claim', 'locate', 'apply'] as const);
    const [claim, ...rest] = await Promise.all(entries.map((e) => d.kernel(vertexBatchKernel(e))));
    const sweep = this.directed ? await d.kernel(vertexKernel('sweep')) : undefined;
    await onTarget(recorder ?? d, 'dynamic delete vertices', async (rec) => {
      const idArr = ids instanceof DeviceArray ? ids : rec.upload('u32', ids, 'vertex ids');
      const counts = rec.scratch('u32', n, 'vertex bucket counts');
      const starts = rec.scratch('u32', n, 'vertex slab starts');
      // The claimed vertices' slab total, then the per-word grid's dispatch arguments.
      const status = rec.scratch('u32', 4, 'vertex slab total', true);
      const tables = {
        slabs: this.slabs,
        free_list: this.#store.freeList,
        alloc: this.alloc,
        vertices: this.vertices,
      };
      const lists = { ids: idArr, starts, status };
      const bindings = { ...tables, ...lists };
      const params = { batch: n, ...this.#tableParams() };
      const perId = Math.ceil(n / WORKGROUP);
      rec.dispatch(claim!, { entry: 'claim', bindings: { ...bindings, counts }, params, workgroups: perId });
      if (sweep) {
        const slabs = this.#store.slabCapacity;
        rec.dispatch(sweep, {
          entry: 'sweep',
          bindings: { ...tables, ids: idArr, buckets: idArr },
          params: { n: slabs, ...params },
          workgroups: Math.ceil(slabs / WORKGROUP),
        });
        rec.dispatch(rest[0]!, { entry: 'finish', bindings, params, workgroups: perId });
        return;
      }
      // A workgroup covers WORKGROUP / SLAB_WORDS slabs, one thread per word.
      const grid = writeDispatchArgs(status, 1, WORKGROUP / SLAB_WORDS);
      await transformScanTo(
        rec,
        n,
        wgsl`(i: u32) -> u32 { return ${counts}[i]; }`,
        wgsl`(i: u32, start: u32, count: u32) {
  ${rw(starts)}[i] = start;
  if (i + 1u == ${u32(n)}) {
    ${rw(status)}[0] = start + count;
    ${grid.write}(start + count);
  }
}`,
        { monoid: plus('u32') },
      );
      const words = { indirect: status, index: 1 };
      const locate = { slabs: this.slabs, vertices: this.vertices, ...lists };
      rec.dispatch(rest[0]!, { entry: 'locate', bindings: locate, params, workgroups: words });
      rec.dispatch(rest[1]!, { entry: 'apply', bindings, params, workgroups: words });
    });
  }

  /** Reads the ALIVE flags back after a deletion batch whose ids were on the GPU. */
  async #refreshAlive() {
    if (!this.#aliveStale) return;
    this.#aliveStale = false;
    const words = await this.vertices.download(0, this.#vertexCount * VERTEX_WORDS);
    for (let v = 0; v < this.#vertexCount; v++) {
      this.#alive[v] = words[v * VERTEX_WORDS + V_FLAGS] === ALIVE ? 1 : 0;
    }
  }

  /** Brings the host copy of which vertices exist up to date (after deletions by ids on the GPU). */
  async refreshVertices() {
    this.#check();
    await this.#refreshAlive();
  }

  /**
   * Rebuilds, on the GPU, the table of every live vertex whose keys per base slot lie outside
   * `[low, high]` or whose longest bucket chain exceeds `maxChain`: its live keys (and values) move into
   * `max(1, ceil(degree / (30 * loadFactor)))` buckets, tombstones are dropped, and the slabs it no longer
   * needs go onto the allocator's free list, where later insertions take them. A table whose rebuild would
   * give the same buckets and no collision slabs is left alone. The edge set and values do not change, but
   * the keys' slots do (a new `version`; functors capturing the tables must be built again, as after a batch
   * that may grow the pool). Two plan passes and a scan, one read-back of four totals, then a move, a
   * release and an insertion pass, and a read-back of the allocator's four words for the result.
   */
  async rehash(options: RehashOptions = {}): Promise<RehashResult> {
    checkOptionsObject('DynamicGraph.rehash', options);
    this.#check();
    const where = 'DynamicGraph.rehash';
    const low = options.low ?? this.loadFactor / 2;
    const high = options.high ?? this.loadFactor * 2;
    const maxChain = options.maxChain ?? DEFAULT_MAX_CHAIN;
    if (!(low >= 0) || !(high >= low) || !Number.isFinite(high)) {
      throw new InputError(
        `low and high must satisfy 0 <= low <= high < Infinity, got [${low}, ${high}]`,
        where,
      );
    }
    if (!Number.isInteger(maxChain) || maxChain < 1 || maxChain > 0xffffffff) {
      throw new InputError(`maxChain must be a positive integer, got ${maxChain}`, where);
    }
    const n = this.#vertexCount;
    if (n === 0) return { verticesRebuilt: 0, slabsFreed: 0 };
    // The rebuilt tables hold at most loadFactor keys a base slot: the long-table flag starts again.
    this.alloc.upload([0], A_LONG_TABLES);
    const d = this.device;
    const planKernel = await d.kernel(rehashPlanKernel());
    const stageKernel = await d.kernel(rehashStageKernel(this.valueType !== undefined));
    const releaseKernel = await d.kernel(rehashReleaseKernel());
    const plan = d.array('u32', 2 * n, { label: 'rehash plan' });
    const offsets = d.array('u32', n, { label: 'rehash offsets' });
    const totals = d.array('u32', TOTAL_WORDS + 4, { label: 'rehash totals' });
    const staged: DeviceArray<'u32'>[] = [];
    try {
      await onTarget(d, 'dynamic rehash plan', async (rec) => {
        rec.clear(plan);
        rec.clear(totals);
        rec.copy(this.alloc, totals, 4, 0, TOTAL_WORDS);
        const bindings = {
          slabs: this.slabs,
          vertices: this.vertices,
          alloc: this.alloc,
          plan,
          totals,
        };
        const params = {
          ...this.#tableParams(),
          low,
          high,
          max_chain: maxChain,
          keys_per_bucket: KEY_SLOTS * this.loadFactor,
        };
        const slabs = this.#store.slabCapacity;
        rec.dispatch(planKernel, {
          entry: 'measure',
          bindings,
          params: { ...params, n: slabs },
          workgroups: Math.ceil(slabs / WORKGROUP),
        });
        rec.dispatch(planKernel, {
          entry: 'decide',
          bindings,
          params: { ...params, n },
          workgroups: Math.ceil(n / WORKGROUP),
        });
        await transformScan(
          rec,
          n,
          wgsl`(v: u32) -> u32 { if (${plan}[v * 2u] == 0u) { return 0u; } return ${this.vertices}[v * ${u32(VERTEX_WORDS)} + ${u32(V_DEGREE)}]; }`,
          offsets,
          { total: { array: totals, index: T_KEYS } },
        );
      });
      const t = await totals.download();
      this.#changedKeys = 0;
      const rebuilt = t[T_REBUILT]!;
      const liveBefore = t[TOTAL_WORDS + A_BUMP]! - t[TOTAL_WORDS + A_FREE]!;
      if (t[TOTAL_WORDS + A_OVERFLOW] !== 0) {
        throw new WeftError('the slab pool overflowed during an earlier recorded batch');
      }
      if (rebuilt === 0) return { verticesRebuilt: 0, slabsFreed: 0 };
      this.#version++;
      const keys = t[T_KEYS]!;
      // Growing tables take contiguous base slabs. The keys' collision slabs come from the free list, which
      // holds every slab the rebuilt tables gave up, before the bump pointer: reserving the worst case (one
      // slab per key) could double the pool for nothing, so an overflow is caught after the fact instead.
      await this.#store.reserve(t[T_GROWTH]!, undefined, true);
      const size = Math.max(keys, 1);
      const src = d.array('u32', size, { label: 'rehash sources' });
      const dst = d.array('u32', size, { label: 'rehash targets' });
      const val = d.array('u32', this.valueType ? size : 1, { label: 'rehash values' });
      const idx = d.array('u32', size, { label: 'rehash order' });
      staged.push(src, dst, val, idx);
      const insert = await d.kernel(
        this.#kernelFor(
          insertKernel(this.valueType !== undefined),
          coopInsertKernel(this.valueType !== undefined),
          'thread',
        ),
      );
      const fixup = await d.kernel(allocFixupKernel());
      const reinsert = async (rec: Recorder) => {
        if (keys === 0) return;
        rec.dispatch(insert, {
          bindings: {
            slabs: this.slabs,
            values: this.values,
            free_list: this.#store.freeList,
            alloc: this.alloc,
            vertices: this.vertices,
            src,
            dst,
            vals: this.valueType ? val : dst,
            keys: src,
            idx,
          },
          params: { n: keys, mirror: 0, vertex_count: n, slab_capacity: this.#store.slabCapacity },
          workgroups: Math.ceil(keys / WORKGROUP),
        });
        this.#fixAllocator(rec, fixup);
      };
      await onTarget(d, 'dynamic rehash', async (rec) => {
        const slabs = this.#store.slabCapacity;
        const params = { ...this.#tableParams(), n: slabs };
        const workgroups = Math.ceil(slabs / WORKGROUP);
        rec.dispatch(stageKernel, {
          bindings: {
            slabs: this.slabs,
            values: this.values,
            vertices: this.vertices,
            alloc: this.alloc,
            plan,
            offsets,
            out_src: src,
            out_dst: dst,
            out_val: val,
            out_idx: idx,
          },
          params: { ...params, staged: keys },
          workgroups,
        });
        const bindings = {
          slabs: this.slabs,
          free_list: this.#store.freeList,
          alloc: this.alloc,
          vertices: this.vertices,
          plan,
        };
        rec.dispatch(releaseKernel, { entry: 'release', bindings, params, workgroups });
        rec.dispatch(releaseKernel, {
          entry: 'assign',
          bindings,
          params: { ...params, n },
          workgroups: Math.ceil(n / WORKGROUP),
        });
        await reinsert(rec);
      });
      // Keys left out by an overflowing pool go in again on a larger one (insertion is idempotent).
      let a = await this.alloc.download();
      while (!(await this.#store.afterCheckedBatch(a))) {
        await onTarget(d, 'dynamic rehash (checked)', reinsert);
        a = await this.alloc.download();
      }
      this.#takeBaseGrowth(a);
      this.#bucketsStale = true;
      this.#baseSlabs += t[T_BUCKET_CHANGE]! | 0;
      return { verticesRebuilt: rebuilt, slabsFreed: liveBefore - (a[A_BUMP]! - a[A_FREE]!) };
    } finally {
      for (const arr of [plan, offsets, totals, ...staged]) arr.destroy();
    }
  }

  /** Out-degree of every vertex (0 for deleted ones), read back. */
  async degrees(): Promise<Uint32Array> {
    this.#check();
    const words = await this.vertices.download(0, this.#vertexCount * VERTEX_WORDS);
    const out = new Uint32Array(this.#vertexCount);
    for (let v = 0; v < out.length; v++) out[v] = words[v * VERTEX_WORDS + 2]!;
    return out;
  }

  /** A CSR snapshot on the GPU (adjacency sorted by target, values as weights) for static algorithms. */
  async toDeviceGraph(): Promise<DeviceGraph> {
    this.#check();
    return exportSnapshot(this);
  }

  /** A CSR snapshot on the host. */
  async toHostCsr(): Promise<HostCsr> {
    const graph = await this.toDeviceGraph();
    try {
      return await graph.toHost();
    } finally {
      graph.destroy();
    }
  }

  /** Reads the raw tables back and checks their invariants (for tests and debugging). */
  async inspect(): Promise<TableSnapshot> {
    this.#check();
    return readTables(this);
  }

  /** Makes room for `slabs` more slabs from the bump pointer (e.g. before recording batches). */
  async reserveSlabs(slabs: number) {
    this.#check();
    // A negative count would lower the pool's bound, and later batches would overflow it unchecked.
    checkSlabCount(slabs, 'slabs', 'DynamicGraph.reserveSlabs');
    await this.#store.reserve(slabs, undefined, true);
  }

  /** Throws if a kernel ever ran out of slabs (an edge insertion was lost); reads the allocator state back. */
  async check() {
    this.#check();
    await this.#store.checkOverflow();
  }

  destroy() {
    if (this.#destroyed) return;
    this.#destroyed = true;
    releaseNeighborParts(this);
    this.#store.destroy();
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  [Symbol.dispose]() {
    this.destroy();
  }

  /** @internal Params every table-walking kernel takes. */
  tableParams() {
    return this.#tableParams();
  }

  #tableParams() {
    return { vertex_count: this.#vertexCount, slab_capacity: this.#store.slabCapacity };
  }

  /**
   * The kernel of the current probing (the subgroup one needs the feature); under `'auto'`, `preferred`
   * says which this operation runs faster with.
   */
  #kernelFor<T extends KernelDefinition | string>(
    thread: T,
    subgroup: T,
    preferred: 'thread' | 'subgroup',
  ): T {
    if (this.probing === 'auto')
      return preferred === 'subgroup' && this.device.hasSubgroups ? subgroup : thread;
    if (this.probing !== 'subgroup' && this.probing !== 'thread') {
      throw new InputError(
        `probing must be 'auto', 'thread' or 'subgroup', got ${String(this.probing)}`,
        'DynamicGraph.probing',
      );
    }
    if (this.probing === 'thread') return thread;
    if (!this.device.hasSubgroups) {
      throw new WeftError(`probing: 'subgroup' needs subgroups: ${this.device.missingFeature('subgroups')}`);
    }
    return subgroup;
  }

  #check() {
    if (this.#destroyed) throw new InputError('the graph was destroyed', 'DynamicGraph');
  }

  #batchLength(src: IdArray, dst: IdArray, where: string): number {
    return checkIdBatch(src, dst, this.#vertexCount, where);
  }

  #onDevice(rec: Recorder, data: IdArray | ValueArray, label: string): DeviceArray {
    if (!ArrayBuffer.isView(data)) return data;
    const words = new Uint32Array(data.buffer, data.byteOffset, data.length);
    return rec.upload('u32', words, label);
  }

  /** Inserts a batch; returns the allocator's words when it read them back (a batch the pool might not hold). */
  async #insert(
    src: IdArray,
    dst: IdArray,
    values: ValueArray | undefined,
    mirror: boolean,
    options: BatchOptions,
  ): Promise<Uint32Array | undefined> {
    this.#check();
    const where = 'insertEdges';
    const n = this.#batchLength(src, dst, where);
    if (this.valueType !== undefined && values === undefined) {
      throw new InputError('this graph stores edge values (map variant): give values', where);
    }
    if (this.valueType === undefined && values !== undefined) {
      throw new InputError(
        'this graph stores no edge values (set variant): create it with `values` to keep them',
        where,
      );
    }
    if (values !== undefined && values.length !== n) {
      throw new InputError(`values has ${values.length} entries for ${n} edges`, where);
    }
    if (
      ArrayBuffer.isView(values) &&
      !(values instanceof Uint32Array || values instanceof Int32Array || values instanceof Float32Array)
    ) {
      // Any other typed array would be read as u32 words: other values, or a RangeError.
      throw new InputError(
        `values must be a Uint32Array, Int32Array, Float32Array or DeviceArray, got ${(values as object).constructor.name}`,
        where,
      );
    }
    checkSlabCount(options.maxNewSlabs, 'maxNewSlabs', where);
    if (values !== undefined && this.valueType !== undefined) {
      const type = ArrayBuffer.isView(values) ? weightType(values) : values.type;
      if (type !== this.valueType) {
        throw new InputError(`values are ${type} but the graph stores ${this.valueType}`, where);
      }
    }
    const m = mirror ? 2 * n : n;
    if (m === 0) return;
    const reserved = Math.min(m, options.maxNewSlabs ?? m);
    const guaranteed = await this.#store.reserve(reserved, options.recorder, false);
    // Where growing tables may take base slabs up to. A recorded batch has no read-back after it: growth only
    // takes the room the host's bound of the bump pointer already counts, less what the batch's insertions
    // may take, so the bound stays true. Otherwise the batch is checked after it ran, and growth takes the
    // pool's room less the batch's likely need (a batch that still overflows runs again on a larger pool).
    const likely = this.#store.likelyNeed(reserved);
    const growLimit = options.recorder
      ? Math.max(0, this.#store.bumpBound - Math.max(reserved, likely))
      : this.#store.slabCapacity - likely;
    const d = this.device;
    const dedup = await d.kernel(batchDedupKernel());
    const withValues = this.valueType !== undefined;
    const order = this.insertionOrder;
    if (order !== 'by-source' && order !== 'batch') {
      throw new InputError(`insertionOrder must be 'by-source' or 'batch', got ${String(order)}`, where);
    }
    const insert = await d.kernel(
      this.#kernelFor(insertKernel(withValues, order), coopInsertKernel(withValues, order), 'thread'),
    );
    const fixup = await d.kernel(allocFixupKernel());
    // With autoRehash, tables the batch would make long grow first, on the GPU (recorded batches too).
    const grow =
      this.autoRehash && order === 'by-source'
        ? await Promise.all([
            d.kernel(growTablesKernel(withValues, 'plan')),
            d.kernel(growTablesKernel(withValues, 'relocate_small')),
            d.kernel(growTablesKernel(withValues, 'relocate')),
          ])
        : undefined;
    const bits = Math.max(1, Math.ceil(Math.log2(Math.max(this.#vertexCount, 2))));
    // The dedup table hashes each batch edge once (both directions of a mirrored edge share its pair).
    const tableSize = pairTableSize(n, this.device.limits['maxStorageBufferBindingSize'] ?? 2 ** 27);
    const record = async (rec: Recorder) => {
      const srcArr = this.#onDevice(rec, src, 'batch sources');
      const dstArr = this.#onDevice(rec, dst, 'batch targets');
      const valArr = values === undefined ? srcArr : this.#onDevice(rec, values, 'batch values');
      const keys = rec.scratch('u32', m, 'batch sort keys');
      const idx = rec.scratch('u32', m, 'batch order');
      const slotOf = rec.scratch('u32', n, 'batch pair slots');
      const table = rec.scratch('u32', tableSize, 'batch pair table');
      const params = { n: m, mirror: mirror ? 1 : 0, vertex_count: this.#vertexCount };
      const workgroups = Math.ceil(m / WORKGROUP);
      // Duplicates resolved by a hash table of pairs (the newest wins); by source, one stable sort then groups
      // the winners by source, so a vertex's insertions run side by side (its handle and slabs stay in cache).
      const dedupBindings = { src: srcArr, dst: dstArr, keys, idx, slot_of: slotOf, table };
      const dedupParams = {
        ...params,
        table_mask: tableSize - 1,
        loser: 2 ** bits,
        with_order: order === 'by-source' ? 1 : 0,
      };
      rec.clear(table);
      rec.dispatch(dedup, { entry: 'dedup', bindings: dedupBindings, params: dedupParams, workgroups });
      // Sorted into arrays of their own: three passes in place would end with a copy back.
      const sorted =
        order === 'by-source'
          ? {
              keys: rec.scratch('u32', m, 'batch sorted keys'),
              idx: rec.scratch('u32', m, 'batch sorted order'),
            }
          : { keys: slotOf, idx: table };
      if (order === 'by-source') {
        rec.dispatch(dedup, { entry: 'sort_keys', bindings: dedupBindings, params: dedupParams, workgroups });
        await sortPairs(rec, keys, idx, {
          count: m,
          bits: bits + 1,
          outputKeys: sorted.keys,
          outputValues: sorted.idx,
        });
        if (grow) this.#growTables(rec, grow, sorted.keys, m, growLimit);
      }
      rec.dispatch(insert, {
        bindings: {
          slabs: this.slabs,
          values: this.values,
          free_list: this.#store.freeList,
          alloc: this.alloc,
          vertices: this.vertices,
          src: srcArr,
          dst: dstArr,
          vals: valArr,
          ...sorted,
        },
        params: { ...params, slab_capacity: this.#store.slabCapacity },
        workgroups,
      });
      this.#fixAllocator(rec, fixup);
    };
    if (grow) this.#bucketsStale = true;
    if (guaranteed && (!grow || options.recorder)) {
      // Batches recorded into one submit share one batch's scratch (an incremental build held all of them).
      await onTargetReusingScratch(options.recorder ?? d, 'dynamic insert edges', record);
      return;
    }
    // The pool may run out: an edge whose slab allocation fails is left out and flags the overflow. Insertion
    // is idempotent (present edges only get their value again), so the whole batch runs again on a larger pool.
    for (;;) {
      await onTarget(d, 'dynamic insert edges (checked)', record);
      const words = await this.alloc.download();
      if (await this.#store.afterCheckedBatch(words)) {
        if (grow) {
          this.#takeBaseGrowth(words);
          // Tables left long for lack of room grow in the next batch, on the larger pool.
          await this.#store.afterDeniedGrowth(words);
        }
        return words;
      }
    }
  }

  /**
   * Grows the tables that the batch (sorted by source into `keys`, `items` of them) would lengthen past
   * twice the load factor, with base slabs below `limit` (see {@link growTablesKernel}).
   */
  #growTables(
    rec: Recorder,
    [plan, relocateSmall, relocate]: Kernel[],
    keys: DeviceArray<'u32'>,
    items: number,
    limit: number,
  ) {
    const listCapacity = Math.min(items, MAX_GROWN_TABLES);
    const grownCount = rec.scratch('u32', 4, 'grown table count');
    rec.clear(grownCount);
    const bindings = {
      slabs: this.slabs,
      values: this.values,
      free_list: this.#store.freeList,
      alloc: this.alloc,
      vertices: this.vertices,
      keys,
      // Small tables' records from 0, large ones' from listCapacity.
      grown: rec.scratch('u32', 2 * GROWN_WORDS * listCapacity, 'grown tables'),
      grown_count: grownCount,
    };
    const params = {
      n: items,
      ...this.#tableParams(),
      grow_limit: limit,
      list_capacity: listCapacity,
      grow_above: KEY_SLOTS * 2 * this.loadFactor,
      keys_per_bucket: KEY_SLOTS * this.loadFactor,
    };
    rec.dispatch(plan!, { entry: 'plan', bindings, params, workgroups: Math.ceil(items / WORKGROUP) });
    rec.dispatch(relocateSmall!, {
      entry: 'relocate_small',
      bindings,
      params,
      workgroups: Math.min(Math.ceil(listCapacity / 8), 4 * RELOCATING_WORKGROUPS),
    });
    rec.dispatch(relocate!, {
      entry: 'relocate',
      bindings,
      params,
      workgroups: Math.min(listCapacity, RELOCATING_WORKGROUPS),
    });
  }

  /** Adds the base buckets that tables grown on the GPU took (read back in `words`) to the host's total. */
  #takeBaseGrowth(words: Uint32Array) {
    const grown = words[A_BASE_GROWTH]!;
    if (grown === 0) return;
    this.#baseSlabs += grown;
    this.alloc.upload([0], A_BASE_GROWTH);
  }

  /** After an insert pass: the spare slabs onto the free list, and the allocator's counters settled. */
  #fixAllocator(rec: Recorder, fixup: Kernel) {
    rec.dispatch(fixup, {
      bindings: { alloc: this.alloc, free_list: this.#store.freeList },
      params: { slab_capacity: this.#store.slabCapacity },
      workgroups: 1,
    });
  }

  /** Reads the bucket counts back after a rehash changed them (one download of the vertex dictionary). */
  async #syncBuckets() {
    if (!this.#bucketsStale) return;
    this.#bucketsStale = false;
    const words = await this.vertices.download(0, this.#vertexCount * VERTEX_WORDS);
    for (let v = 0; v < this.#vertexCount; v++) this.#buckets[v] = words[v * VERTEX_WORDS + V_BUCKETS]!;
  }

  /** Grows the vertex dictionary and its host mirrors. */
  async #growVertices(capacity: number) {
    await this.#store.growVertices(capacity);
    const alive = new Uint8Array(capacity);
    alive.set(this.#alive);
    const buckets = new Uint32Array(capacity);
    buckets.set(this.#buckets);
    this.#alive = alive;
    this.#buckets = buckets;
  }

  /**
   * Vertex kernels over `ids`, in order, in one submit (`sweep` runs over every slab instead; `unlink` and
   * `clear` over every word of the vertices' base slabs, `buckets` then being the scan of their counts).
   */
  async #vertexOps(
    entries: readonly VertexEntry[],
    ids: ArrayLike<number>,
    buckets?: ArrayLike<number>,
    recorder?: Recorder,
  ) {
    const kernels = await Promise.all(entries.map((e) => this.device.kernel(vertexKernel(e))));
    await onTarget(recorder ?? this.device, `dynamic ${entries.join(', ')}`, async (rec) => {
      const idArr = rec.upload('u32', ids, 'vertex ids');
      const bucketArr = buckets ? rec.upload('u32', buckets, 'vertex buckets') : idArr;
      for (const [e, entry] of entries.entries()) {
        const n =
          entry === 'sweep'
            ? this.#store.slabCapacity
            : entry === 'unlink' || entry === 'clear'
              ? buckets![ids.length]! * SLAB_WORDS
              : ids.length;
        rec.dispatch(kernels[e]!, {
          entry,
          bindings: {
            slabs: this.slabs,
            free_list: this.#store.freeList,
            alloc: this.alloc,
            vertices: this.vertices,
            ids: idArr,
            buckets: bucketArr,
          },
          params: { n, batch: ids.length, ...this.#tableParams() },
          workgroups: Math.ceil(n / WORKGROUP),
        });
      }
    });
  }
}

/**
 * The dedup table's slots: a power of two at least twice the batch (load <= 1/2, short probes), or the
 * largest one a binding holds if that is smaller but still has room for every item.
 */
export function pairTableSize(items: number, maxBindingBytes: number): number {
  const wanted = 2 ** Math.ceil(Math.log2(2 * Math.max(items, 1)));
  const size = Math.min(wanted, 2 ** Math.floor(Math.log2(maxBindingBytes / 4)));
  if (size <= items) {
    throw new DeviceLimitError(
      `a batch of ${items} edges (its dedup table of u32 x ${wanted})`,
      wanted * 4,
      'maxStorageBufferBindingSize',
      maxBindingBytes,
      'insert the edges in smaller batches',
    );
  }
  return size;
}

/**
 * @internal The length of a batch of edges `src[i] -> dst[i]` after checking it on the host: host ids must be a
 * `Uint32Array` below `vertexCount` (any other typed array would be read as u32 words), ids on the GPU
 * a `DeviceArray<'u32'>` (taken as they are: the kernels skip ids out of range).
 */
export function checkIdBatch(src: IdArray, dst: IdArray, vertexCount: number, where: string): number {
  if (src.length !== dst.length) {
    throw new InputError(`src has ${src.length} entries but dst has ${dst.length}`, where);
  }
  for (const [name, ids] of [
    ['src', src],
    ['dst', dst],
  ] as const) {
    if (ids instanceof DeviceArray) {
      if (ids.type !== 'u32')
        throw new InputError(`${name} must be a DeviceArray<'u32'>, got ${ids.type}`, where);
      continue;
    }
    if (!(ids instanceof Uint32Array)) {
      const kind = (ids as unknown as object | null)?.constructor?.name ?? String(ids);
      throw new InputError(`${name} must be a Uint32Array or a DeviceArray<'u32'>, got ${kind}`, where);
    }
    for (let i = 0; i < ids.length; i++) {
      if (ids[i]! >= vertexCount) {
        throw new InputError(
          `${name}[${i}] = ${ids[i]} is not a vertex id (vertexCount is ${vertexCount})`,
          where,
        );
      }
    }
  }
  return src.length;
}

/** @internal `sweepMin` of the algorithms, when given: a u32 count of vertices. */
export function checkSweepMin(sweepMin: number | undefined, where: string) {
  if (sweepMin !== undefined && !(Number.isInteger(sweepMin) && sweepMin >= 0 && sweepMin <= 0xffffffff)) {
    throw new InputError(`sweepMin must be an integer in [0, 2^32 - 1], got ${sweepMin}`, where);
  }
}

/** degreeHints[index], checked: a non-negative finite number (the message is built only on failure). */
function checkHint(hint: number, index: number, where: string): number {
  if (!(hint >= 0 && Number.isFinite(hint))) {
    throw new InputError(`degreeHints[${index}] = ${hint} is not a degree (a finite number >= 0)`, where);
  }
  return hint;
}

/** A count of slabs, when given: a non-negative integer. */
function checkSlabCount(slabs: number | undefined, name: string, where: string) {
  if (slabs !== undefined && !(Number.isInteger(slabs) && slabs >= 0)) {
    throw new InputError(`${name} must be a non-negative integer, got ${slabs}`, where);
  }
}

/** A one-element array of `data`'s type: it stands in for an empty one (a binding is never empty). */
function oneZero(data: Uint32Array | Int32Array | Float32Array): Uint32Array | Int32Array | Float32Array {
  if (data instanceof Float32Array) return new Float32Array(1);
  return data instanceof Int32Array ? new Int32Array(1) : new Uint32Array(1);
}

function weightType(w: Uint32Array | Int32Array | Float32Array): ValueType {
  return w instanceof Float32Array ? 'f32' : w instanceof Int32Array ? 'i32' : 'u32';
}

/** Value bits read back as the graph's value type. */
export function hostValues(type: ValueType, bits: Uint32Array): Uint32Array | Int32Array | Float32Array {
  if (type === 'u32') return bits;
  return type === 'i32'
    ? new Int32Array(bits.buffer, bits.byteOffset, bits.length)
    : new Float32Array(bits.buffer, bits.byteOffset, bits.length);
}
