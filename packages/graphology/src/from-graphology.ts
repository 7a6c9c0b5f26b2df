import type { WeftDevice } from '@weft/gpu';
import { InputError } from '@weft/gpu';
import {
  type CsrBuildReport,
  csrFromEdgeList,
  type DeviceGraph,
  type HostCsr,
  type UploadGraphOptions,
  uploadGraph,
} from '@weft/graph';
import type { AbstractGraph, Attributes } from 'graphology-types';

/** graphology's `getEdgeWeight`: an edge attribute name, or a function of the edge key and its attributes. */
export type EdgeWeightGetter = string | ((edge: string, attributes: Attributes) => number);

export interface FromGraphologyOptions {
  /**
   * Where edge weights come from; left out, the CSR has no weights. With an attribute name, an edge whose
   * attribute is missing or not a number weighs 1 (graphology's rule); a function must return a finite number.
   */
  weight?: EdgeWeightGetter;
  /**
   * `'undirected'` turns every edge (directed ones too) into two arcs; `'directed'` keeps directed edges as one
   * arc (undirected edges are still two). Default: `'undirected'` for an undirected graph, else `'directed'`.
   */
  mode?: 'directed' | 'undirected';
}

export interface GraphologyCsr {
  csr: HostCsr;
  /** `keys[i]` is the graphology key of vertex `i`, in graphology's node order. */
  keys: string[];
  /** Vertex index of each key. */
  indexOf: Map<string, number>;
  /** Self-loops dropped and parallel arcs merged by the build. */
  report: CsrBuildReport;
}

/**
 * Converts a graphology graph to a host CSR: nodes become vertices 0..order-1 in graphology's iteration order,
 * undirected edges become two arcs, directed edges one (two in `'undirected'` mode). Parallel arcs (multi
 * graphs, or a mixed graph's directed edge beside an undirected one) merge into one keeping the smallest
 * weight, and self-loops are dropped, as `csrFromEdgeList` does by default.
 */
export function fromGraphology(graph: AbstractGraph, options: FromGraphologyOptions = {}): GraphologyCsr {
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
  graph.forEachEdge((edge, attributes, source, target, _sa, _ta, undirected) => {
    const s = indexOf.get(source)!;
    const t = indexOf.get(target)!;
    const w = weightOf?.(edge, attributes) ?? 0;
    src[arcs] = s;
    dst[arcs] = t;
    if (weights !== undefined) weights[arcs] = w;
    arcs++;
    if (undirected || mode === 'undirected') {
      src[arcs] = t;
      dst[arcs] = s;
      if (weights !== undefined) weights[arcs] = w;
      arcs++;
    }
  });

  // Both directions are listed explicitly, so the builder must not symmetrize again.
  const { csr, report } = csrFromEdgeList(
    {
      vertexCount: keys.length,
      src: src.subarray(0, arcs),
      dst: dst.subarray(0, arcs),
      ...(weights === undefined ? {} : { weights: weights.subarray(0, arcs) }),
      directed: true,
    },
    { symmetrize: false, dedupe: 'min' },
  );
  csr.directed = mode === 'directed';
  return { csr, keys, indexOf, report };
}

function weightGetter(
  weight: EdgeWeightGetter | undefined,
): ((edge: string, attributes: Attributes) => number) | undefined {
  if (weight === undefined) return undefined;
  if (typeof weight === 'string') {
    return (_edge, attributes) => {
      const w: unknown = attributes[weight];
      return typeof w === 'number' && !Number.isNaN(w) ? w : 1;
    };
  }
  if (typeof weight === 'function') {
    return (edge, attributes) => {
      const w = weight(edge, attributes);
      if (typeof w !== 'number' || !Number.isFinite(w)) {
        throw new InputError(
          `weight of edge '${edge}' is ${String(w)}, expected a finite number`,
          'options.weight',
        );
      }
      return w;
    };
  }
  throw new InputError(
    'weight must be an attribute name or a function (edge, attributes) => number',
    'options.weight',
  );
}

export interface ToDeviceOptions extends FromGraphologyOptions, UploadGraphOptions {}

export interface GraphologyDeviceGraph {
  graph: DeviceGraph;
  keys: string[];
  indexOf: Map<string, number>;
  report: CsrBuildReport;
}

/** {@link fromGraphology}, then `uploadGraph`: the graph on the GPU with its key <-> index map. */
export function toDevice(
  device: WeftDevice,
  graph: AbstractGraph,
  options: ToDeviceOptions = {},
): GraphologyDeviceGraph {
  const { csc, ...convert } = options;
  const { csr, keys, indexOf, report } = fromGraphology(graph, convert);
  return { graph: uploadGraph(device, csr, csc === undefined ? {} : { csc }), keys, indexOf, report };
}
