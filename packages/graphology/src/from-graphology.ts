import type { WeftDevice } from '@weft/gpu';
import { checkOptionsObject, InputError } from '@weft/gpu';
import {
  type BuildReport,
  type DedupeRule,
  type DeviceGraph,
  type HostCsr,
  hostCsrFromEdgeList,
  type UploadGraphOptions,
  uploadGraph,
} from '@weft/graph';
import type { AbstractGraph, Attributes } from 'graphology-types';

/**
 * graphology's `getEdgeWeight`: an edge attribute name, or a function called like graphology's edge callbacks,
 * `(edge, attributes, source, target, sourceAttributes, targetAttributes, undirected)`.
 */
export type EdgeWeightGetter =
  | string
  | ((
      edge: string,
      attributes: Attributes,
      source: string,
      target: string,
      sourceAttributes: Attributes,
      targetAttributes: Attributes,
      undirected: boolean,
    ) => number | undefined);

export interface FromGraphologyOptions {
  /**
   * Where edge weights come from. As in graphology, a weight that is not a number, or is NaN (a missing
   * attribute, a function returning `undefined`), counts as 1; other numbers are kept, stored as f32 (rounded
   * to the nearest f32). An infinite weight, or one beyond f32's range, is an `InputError` naming the edge.
   * Left out or `null`: the CSR has no weights (graphology's unweighted).
   */
  weight?: EdgeWeightGetter | null;
  /**
   * `'undirected'` turns every edge (directed ones too) into two arcs; `'directed'` keeps directed edges as one
   * arc (undirected edges are still two). Default: `'undirected'` for an undirected graph, else `'directed'`.
   */
  mode?: 'directed' | 'undirected';
  /**
   * How parallel arcs merge (`hostCsrFromEdgeList`'s rule): default `'min'` keeps the smallest weight;
   * `'none'` keeps every parallel arc, as graphology's multi-graphs count them.
   */
  dedupe?: DedupeRule;
  /** Keep self-loops (an undirected one as a single arc, as graphology lists it); default false. */
  keepSelfLoops?: boolean;
}

export interface GraphologyCsr {
  csr: HostCsr;
  /** `keys[i]` is the graphology key of vertex `i`, in graphology's node order. */
  keys: string[];
  /** Vertex index of each key. */
  indexOf: Map<string, number>;
  /** Self-loops dropped and parallel arcs merged by the build. */
  report: BuildReport;
}

/**
 * Converts a graphology graph to a host CSR: nodes become vertices 0..order-1 in graphology's iteration order,
 * undirected edges become two arcs, directed edges one (two in `'undirected'` mode). Parallel arcs (multi
 * graphs, or a mixed graph's directed edge beside an undirected one) merge into one keeping the smallest
 * weight, and self-loops are dropped, as `hostCsrFromEdgeList` does by default (`dedupe` and `keepSelfLoops`
 * change both).
 */
export function fromGraphology(graph: AbstractGraph, options: FromGraphologyOptions = {}): GraphologyCsr {
  checkOptionsObject('fromGraphology', options);
  const mode = options.mode ?? (graph.type === 'undirected' ? 'undirected' : 'directed');
  if (mode !== 'directed' && mode !== 'undirected') {
    throw new InputError(`mode must be 'directed' or 'undirected', got '${String(mode)}'`, 'options.mode');
  }
  const weightOf = weightGetter(options.weight);

  const keys: string[] = [];
  const indexOf = new Map<string, number>();
  graph.forEachNode((key) => {
    indexOf.set(key, keys.length);
    keys.push(key);
  });

  // Upper bound on arcs: every edge doubled.
  const capacity = 2 * graph.size;
  const src = new Uint32Array(capacity);
  const dst = new Uint32Array(capacity);
  const weights = weightOf === undefined ? undefined : new Float32Array(capacity);
  let arcs = 0;
  graph.forEachEdge((edge, attributes, source, target, sourceAttributes, targetAttributes, undirected) => {
    const s = indexOf.get(source)!;
    const t = indexOf.get(target)!;
    const w =
      weightOf?.(edge, attributes, source, target, sourceAttributes, targetAttributes, undirected) ?? 0;
    if (!Number.isFinite(Math.fround(w))) {
      throw new InputError(
        `edge '${edge}' (${source} -> ${target}) weighs ${w}: Weft's graphs take finite f32 weights`,
        'options.weight',
      );
    }
    src[arcs] = s;
    dst[arcs] = t;
    if (weights !== undefined) weights[arcs] = w;
    arcs++;
    if ((undirected || mode === 'undirected') && s !== t) {
      src[arcs] = t;
      dst[arcs] = s;
      if (weights !== undefined) weights[arcs] = w;
      arcs++;
    }
  });

  // Both directions are listed explicitly, so the builder must not symmetrize again.
  const { csr, report } = hostCsrFromEdgeList(
    {
      vertexCount: keys.length,
      src: src.subarray(0, arcs),
      dst: dst.subarray(0, arcs),
      ...(weights === undefined ? {} : { weights: weights.subarray(0, arcs) }),
      directed: true,
    },
    { symmetrize: false, dedupe: options.dedupe ?? 'min', keepSelfLoops: options.keepSelfLoops ?? false },
  );
  csr.directed = mode === 'directed';
  return { csr, keys, indexOf, report };
}

/** A weight getter after coercion: always a number. */
type WeightOf = (...entry: Parameters<Exclude<EdgeWeightGetter, string>>) => number;

/** graphology-utils' `coerceWeight`: anything but a number that is not NaN weighs 1. */
const coerceWeight = (w: unknown): number => (typeof w === 'number' && !Number.isNaN(w) ? w : 1);

function weightGetter(weight: EdgeWeightGetter | null | undefined): WeightOf | undefined {
  if (weight === undefined || weight === null) return undefined;
  if (typeof weight === 'string') return (_edge, attributes) => coerceWeight(attributes[weight]);
  if (typeof weight === 'function') return (...entry) => coerceWeight(weight(...entry));
  throw new InputError(
    `weight must be an attribute name, a function (edge, attributes, source, target, ...) => number, or null; got ${typeof weight}`,
    'options.weight',
  );
}

export interface ToDeviceOptions extends FromGraphologyOptions, UploadGraphOptions {}

export interface GraphologyDeviceGraph {
  graph: DeviceGraph;
  keys: string[];
  indexOf: Map<string, number>;
  report: BuildReport;
}

/** {@link fromGraphology}, then `uploadGraph`: the graph on the GPU with its key <-> index map. */
export function toDevice(
  device: WeftDevice,
  graph: AbstractGraph,
  options: ToDeviceOptions = {},
): GraphologyDeviceGraph {
  checkOptionsObject('toDevice', options);
  const { csc, ...convert } = options;
  const { csr, keys, indexOf, report } = fromGraphology(graph, convert);
  return { graph: uploadGraph(device, csr, csc === undefined ? {} : { csc }), keys, indexOf, report };
}
