import {
  ChunkedArray,
  checkOptionsObject,
  DeviceArray,
  DeviceLimitError,
  type ElementType,
  InputError,
  max,
  rw,
  transform,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { reduce } from '@weft/scan';
import { hostCscFromCsr } from './host-build.ts';
import type { HostCsr } from './host-graph.ts';
import { checkWeights, rejectGraphology, validateCsr } from './host-graph.ts';

/**
 * Named arrays of user data, one element per vertex (or per edge): structure of arrays, so a kernel binds
 * only the columns it touches. Arrays are created on first request and destroyed with the graph.
 */
export class PropertyColumns {
  readonly #columns = new Map<string, DeviceArray>();

  constructor(
    readonly device: WeftDevice,
    /** Elements per column: the vertex count or the edge count. */
    readonly length: number,
    /** `'vertex'` or `'edge'`, used in labels and errors. */
    readonly kind: 'vertex' | 'edge',
  ) {}

  /**
   * The column `name` of element type `type`, created (contents undefined) if it does not exist yet.
   * Asking for an existing name with a different type is an {@link InputError}.
   */
  get<T extends ElementType>(name: string, type: T): DeviceArray<T> {
    const existing = this.#columns.get(name);
    if (existing !== undefined) {
      if (existing.type !== type) {
        throw new InputError(
          `${this.kind} property '${name}' exists with type ${existing.type}, asked for ${type}`,
          `${this.kind}Property`,
        );
      }
      return existing as DeviceArray<T>;
    }
    const column = this.device.array(type, this.length, { label: `${this.kind} property '${name}'` });
    this.#columns.set(name, column);
    return column;
  }

  has(name: string): boolean {
    return this.#columns.has(name);
  }

  get names(): string[] {
    return [...this.#columns.keys()];
  }

  /** Destroys one column; false if there was none. */
  delete(name: string): boolean {
    const column = this.#columns.get(name);
    if (column === undefined) return false;
    column.destroy();
    return this.#columns.delete(name);
  }

  destroy(): void {
    for (const column of this.#columns.values()) column.destroy();
    this.#columns.clear();
  }
}

export class VertexData extends PropertyColumns {
  constructor(device: WeftDevice, vertexCount: number) {
    super(device, vertexCount, 'vertex');
  }
}

/** Per-edge columns, indexed by CSR edge position (in-edge views reach them through `inEdgeIds`). */
export class EdgeData extends PropertyColumns {
  constructor(device: WeftDevice, edgeCount: number) {
    super(device, edgeCount, 'edge');
  }
}

/** The in-edge (CSC) arrays of a {@link DeviceGraph}. */
export interface DeviceCsc {
  inOffsets: DeviceArray<'u32'>;
  sources: DeviceArray<'u32'>;
  inEdgeIds: DeviceArray<'u32'>;
}

export interface UploadGraphOptions {
  /** Also build (on the host) and upload the in-edge view. Default false. */
  csc?: boolean;
}

/** Element types of device edge weights: those of `HostWeights`. */
export type WeightElementType = 'u32' | 'i32' | 'f32';

/**
 * Throws a one-line {@link InputError} unless `graph` is a {@link DeviceGraph}: a graphology graph or a host
 * CSR given to an algorithm gets told how to convert it. Checked by shape, so a second copy of this package
 * still passes.
 */
export function checkDeviceGraph(graph: unknown, where = 'graph'): void {
  rejectGraphology(graph, where);
  const g = graph as Partial<DeviceGraph> | null | undefined;
  if (typeof g !== 'object' || g === null || typeof g.vertexCount !== 'number' || g.device === undefined) {
    const host = typeof g === 'object' && g !== null && ArrayBuffer.isView(g.offsets);
    throw new InputError(
      host
        ? 'this is a host graph: put it on the GPU with uploadGraph(device, csr) from @weft/graph'
        : `expected a DeviceGraph (from uploadGraph), got ${g === null ? 'null' : typeof g}`,
      where,
    );
  }
  if (g.destroyed === true) throw new InputError('the graph was destroyed', where);
}

/**
 * A graph in GPU memory: CSR out-edges (`offsets`, `targets`, optional `weights`), optional CSC in-edges,
 * and named vertex and edge data. Make one with {@link uploadGraph}; `destroy()` frees every array.
 */
export class DeviceGraph {
  readonly vertexData: VertexData;
  readonly edgeData: EdgeData;
  /** The CSR column indices as a {@link ChunkedArray}: one chunk unless they exceed one binding. */
  readonly chunkedTargets: ChunkedArray<'u32'>;
  /** The edge weights as a {@link ChunkedArray}, chunked as {@link chunkedTargets}. */
  readonly chunkedWeights: ChunkedArray<WeightElementType> | undefined;
  #destroyed = false;
  #maxOutDegree: number | undefined;
  readonly #derived = new Map<string, Promise<{ destroy(): void }>>();

  constructor(
    readonly device: WeftDevice,
    readonly vertexCount: number,
    readonly edgeCount: number,
    readonly directed: boolean,
    readonly offsets: DeviceArray<'u32'>,
    targets: DeviceArray<'u32'> | ChunkedArray<'u32'>,
    weights: DeviceArray<WeightElementType> | ChunkedArray<WeightElementType> | undefined,
    readonly csc: DeviceCsc | undefined,
    /** The largest out-degree, when the builder knows it (else measured on first request). */
    maxOutDegree?: number,
  ) {
    const chunked = <T extends ElementType>(a: DeviceArray<T> | ChunkedArray<T>) =>
      a instanceof DeviceArray ? new ChunkedArray([a], 31) : a;
    this.chunkedTargets = chunked(targets);
    this.chunkedWeights = weights === undefined ? undefined : chunked(weights);
    this.vertexData = new VertexData(device, vertexCount);
    this.edgeData = new EdgeData(device, edgeCount);
    this.#maxOutDegree = maxOutDegree;
  }

  /** Whether the targets (and weights) are stored in more than one chunk. */
  get chunked(): boolean {
    return this.chunkedTargets.single === undefined;
  }

  /**
   * The CSR column indices as one array. A graph stored in chunks has none: kernels that read it this way
   * throw a {@link DeviceLimitError} naming `what`; those that read {@link chunkedTargets} run.
   */
  get targets(): DeviceArray<'u32'> {
    return this.#single(this.chunkedTargets, 'targets');
  }

  /** The edge weights as one array (see {@link targets}), or undefined for an unweighted graph. */
  get weights(): DeviceArray<WeightElementType> | undefined {
    return this.chunkedWeights && this.#single(this.chunkedWeights, 'weights');
  }

  /** Throws a {@link DeviceLimitError} naming `what` (the path that needs it) unless the graph is unchunked. */
  requireUnchunked(what: string): void {
    if (this.chunked) this.#single(this.chunkedTargets, 'targets', what);
  }

  #single<T extends ElementType>(a: ChunkedArray<T>, name: string, what?: string): DeviceArray<T> {
    if (a.single) return a.single;
    const budget = this.device.bindingBudget;
    throw new DeviceLimitError(
      `${what ?? `graph.${name}`} (${this.edgeCount} edges in ${a.chunks.length} chunks)`,
      a.byteLength,
      'bindingBudget',
      budget,
      `${what ?? 'this path'} reads graph.${name} as one array and cannot run on a chunked graph yet`,
    );
  }

  /** The largest out-degree if known without GPU work (`uploadGraph` knows it; see {@link maxOutDegree}). */
  get knownMaxOutDegree(): number | undefined {
    return this.#maxOutDegree;
  }

  /** The largest out-degree: known from the build, or measured on the GPU once (one read-back) and kept. */
  async maxOutDegree(): Promise<number> {
    this.#check();
    if (this.#maxOutDegree !== undefined) return this.#maxOutDegree;
    const n = this.vertexCount;
    if (n === 0) {
      this.#maxOutDegree = 0;
      return 0;
    }
    const degrees = this.device.array('u32', n, { label: 'out-degrees' });
    const result = this.device.array('u32', 1, { label: 'max out-degree' });
    try {
      const rec = this.device.recorder({ label: 'max out-degree' });
      const offsets = this.offsets;
      await transform(rec, n, wgsl`(v: u32) { ${rw(degrees)}[v] = ${offsets}[v + 1u] - ${offsets}[v]; }`);
      await reduce(rec, degrees, result, { monoid: max('u32') });
      await rec.submit();
      this.#maxOutDegree = (await result.download())[0]!;
      return this.#maxOutDegree;
    } finally {
      degrees.destroy();
      result.destroy();
    }
  }

  get inOffsets(): DeviceArray<'u32'> | undefined {
    return this.csc?.inOffsets;
  }

  get sources(): DeviceArray<'u32'> | undefined {
    return this.csc?.sources;
  }

  get inEdgeIds(): DeviceArray<'u32'> | undefined {
    return this.csc?.inEdgeIds;
  }

  /** A per-vertex array named `name` (length `vertexCount`), created on first use. */
  vertexProperty<T extends ElementType>(name: string, type: T): DeviceArray<T> {
    this.#check();
    return this.vertexData.get(name, type);
  }

  /** A per-edge array named `name` (length `edgeCount`, CSR edge order), created on first use. */
  edgeProperty<T extends ElementType>(name: string, type: T): DeviceArray<T> {
    this.#check();
    return this.edgeData.get(name, type);
  }

  /** Reads the CSR back to the host. */
  async toHost(): Promise<HostCsr> {
    this.#check();
    const [offsets, targets] = await Promise.all([this.offsets.download(), this.chunkedTargets.download()]);
    const csr: HostCsr = {
      vertexCount: this.vertexCount,
      edgeCount: this.edgeCount,
      offsets,
      targets,
      directed: this.directed,
    };
    if (this.chunkedWeights !== undefined) csr.weights = await this.chunkedWeights.download();
    return csr;
  }

  /**
   * A structure built from this graph once and kept with it (say, an algorithm's preprocessing): the first
   * call for `key` builds it, later calls get the same one, and {@link destroy} frees it with the graph. A
   * failed build is not kept, so a later call tries again.
   */
  derived<T extends { destroy(): void }>(key: string, build: () => Promise<T>): Promise<T> {
    this.#check();
    let made = this.#derived.get(key) as Promise<T> | undefined;
    if (made === undefined) {
      made = build();
      this.#derived.set(key, made);
      made.catch(() => this.#derived.delete(key));
    }
    return made;
  }

  /** Whether {@link derived} holds a structure for `key` (built, or being built). */
  hasDerived(key: string): boolean {
    return this.#derived.has(key);
  }

  /** Frees the graph's arrays, all vertex and edge data, and what {@link derived} built from it. */
  destroy(): void {
    if (this.#destroyed) return;
    this.#destroyed = true;
    for (const made of this.#derived.values())
      made.then(
        (d) => d.destroy(),
        () => {},
      );
    this.#derived.clear();
    for (const a of this.#arrays()) a.destroy();
    this.vertexData.destroy();
    this.edgeData.destroy();
  }

  get destroyed(): boolean {
    return this.#destroyed;
  }

  [Symbol.dispose](): void {
    this.destroy();
  }

  #arrays(): DeviceArray[] {
    const out: DeviceArray[] = [this.offsets, ...this.chunkedTargets.chunks];
    if (this.chunkedWeights !== undefined) out.push(...this.chunkedWeights.chunks);
    if (this.csc !== undefined) out.push(this.csc.inOffsets, this.csc.sources, this.csc.inEdgeIds);
    return out;
  }

  #check(): void {
    if (this.#destroyed) throw new InputError('the graph was destroyed', 'DeviceGraph');
  }
}

/** The largest out-degree of a CSR, from its row offsets. */
export function hostMaxOutDegree(offsets: ArrayLike<number>, vertexCount: number): number {
  let most = 0;
  for (let v = 0; v < vertexCount; v++) most = Math.max(most, offsets[v + 1]! - offsets[v]!);
  return most;
}

/**
 * `csr` with Uint32Array offsets and targets and typed weights (a Float64Array narrowed to f32): JavaScript
 * callers pass other arrays too, whose upload would give kernels the wrong element type.
 */
function typedCsr(csr: HostCsr): HostCsr {
  const u32 = (a: Uint32Array) => (a instanceof Uint32Array ? a : Uint32Array.from(a));
  const w = csr.weights;
  // f32 weights go up as given: NaN and negative ones are each algorithm's to refuse, naming the edge.
  const weights = w === undefined || w instanceof Float32Array ? w : checkWeights(w, 'csr.weights');
  return { ...csr, offsets: u32(csr.offsets), targets: u32(csr.targets), ...(weights ? { weights } : {}) };
}

/**
 * Copies a host CSR to the GPU (and its in-edge view when `csc` is set). Targets and weights beyond the
 * device's binding budget are stored in chunks ({@link DeviceGraph.chunkedTargets}); every other array must
 * fit one storage binding: a larger one throws `DeviceLimitError` naming it (e.g. 'graph row offsets'), and
 * nothing stays allocated.
 */
export function uploadGraph(
  device: WeftDevice,
  given: HostCsr,
  options: UploadGraphOptions = {},
): DeviceGraph {
  checkOptionsObject('uploadGraph', options);
  validateCsr(given);
  const csr = typedCsr(given);
  const made: (DeviceArray | ChunkedArray)[] = [];
  const up = <A extends Uint32Array | Int32Array | Float32Array>(data: A, label: string) => {
    const arr = device.upload(data, { label });
    made.push(arr);
    return arr;
  };
  const upChunked = <A extends Uint32Array | Int32Array | Float32Array>(data: A, label: string) => {
    const arr = device.uploadChunked(data, { label });
    made.push(arr);
    return arr;
  };
  try {
    const offsets = up(csr.offsets, 'graph row offsets');
    const targets = upChunked(csr.targets, 'graph column indices');
    const weights =
      csr.weights === undefined
        ? undefined
        : (upChunked(csr.weights, 'graph edge weights') as ChunkedArray<WeightElementType>);
    let csc: DeviceCsc | undefined;
    if (options.csc) {
      const host = hostCscFromCsr(csr);
      csc = {
        inOffsets: up(host.inOffsets, 'graph in-edge offsets'),
        sources: up(host.sources, 'graph in-edge sources'),
        inEdgeIds: up(host.inEdgeIds, 'graph in-edge ids'),
      };
    }
    return new DeviceGraph(
      device,
      csr.vertexCount,
      csr.edgeCount,
      csr.directed,
      offsets as DeviceArray<'u32'>,
      targets as ChunkedArray<'u32'>,
      weights,
      csc,
      hostMaxOutDegree(csr.offsets, csr.vertexCount),
    );
  } catch (e) {
    for (const a of made) a.destroy();
    throw e;
  }
}
