import {
  bfs,
  betweennessCentrality as deviceBetweenness,
  connectedComponents as deviceComponents,
  pageRank,
  sssp,
} from '@weft/algorithms';
import { ConvergenceError, checkOptionsObject, InputError, requestDevice, type WeftDevice } from '@weft/gpu';
import type { AbstractGraph } from 'graphology-types';
import { type EdgeWeightGetter, fromGraphology, type ToDeviceOptions, toDevice } from './from-graphology.ts';
import { assignAttributes, toKeyed } from './results.ts';

export interface DeviceOption {
  /**
   * The WebGPU device to run on. Left out, each call creates one with `requestDevice()` and destroys it
   * after: adapter and device creation plus shader compilation on every call (tens to hundreds of
   * milliseconds); pass one device to every call when calling more than once.
   */
  device?: WeftDevice;
}

export interface PagerankOptions extends DeviceOption {
  /** Damping factor (default 0.85). */
  alpha?: number;
  /** Iterations before giving up with a `ConvergenceError` (default 100). */
  maxIterations?: number;
  /** Converged once an iteration's summed absolute change is below `graph.order * tolerance` (default 1e-6). */
  tolerance?: number;
  /** Edge weights (default `'weight'`; missing or non-numeric weigh 1); `null`: every edge weighs 1. */
  getEdgeWeight?: EdgeWeightGetter | null;
}

export interface PagerankAssignOptions extends PagerankOptions {
  /** The node attribute written (default `'pagerank'`). */
  nodePagerankAttribute?: string;
}

export interface BetweennessCentralityOptions extends DeviceOption {
  /** Divide by `(order - 1) * (order - 2)` (default true); unnormalized undirected graphs are halved. */
  normalized?: boolean;
  /**
   * `null` counts hops. Left as graphology's default `'weight'`, the graph must weigh 1 on every edge and have
   * no parallel edges (weighted betweenness does not run on the GPU yet): anything else is an `InputError`.
   */
  getEdgeWeight?: EdgeWeightGetter | null;
}

export interface BetweennessCentralityAssignOptions extends BetweennessCentralityOptions {
  /** The node attribute written (default `'betweennessCentrality'`). */
  nodeCentralityAttribute?: string;
}

export interface DijkstraOptions extends DeviceOption {
  /** Edge weights (default `'weight'`; missing or non-numeric weigh 1); `null`: every edge weighs 1. */
  getEdgeWeight?: EdgeWeightGetter | null;
}

/** Throws unless `graph` looks like a graphology graph (any version: checked by shape). */
function checkGraphology(graph: unknown, who: string): asserts graph is AbstractGraph {
  const g = graph as { order?: unknown; forEachEdge?: unknown } | null | undefined;
  if (
    typeof g !== 'object' ||
    g === null ||
    typeof g.order !== 'number' ||
    typeof g.forEachEdge !== 'function'
  ) {
    throw new InputError(
      `${who} takes a graphology graph; for Weft's own graphs use @weft/algorithms directly`,
      'graph',
    );
  }
}

/** Runs `fn` on the given device, or on one made for this call and destroyed after it. */
async function withDevice<T>(
  device: WeftDevice | undefined,
  fn: (device: WeftDevice) => Promise<T>,
): Promise<T> {
  if (device !== undefined) return fn(device);
  const own = await requestDevice({ label: '@weft/graphology' });
  try {
    return await fn(own);
  } finally {
    own.destroy();
  }
}

/** Converts, runs `fn` on the device graph, and frees the graph (and a device made for the call). */
function onDevice<T>(
  graph: AbstractGraph,
  options: DeviceOption,
  convert: ToDeviceOptions,
  fn: (g: ReturnType<typeof toDevice>) => Promise<T>,
): Promise<T> {
  return withDevice(options.device, async (device) => {
    const converted = toDevice(device, graph, convert);
    try {
      return await fn(converted);
    } finally {
      converted.graph.destroy();
    }
  });
}

/** `getEdgeWeight` as graphology resolves it: left out means the `'weight'` attribute. */
const weightOption = (getEdgeWeight: EdgeWeightGetter | null | undefined) =>
  getEdgeWeight === undefined ? 'weight' : getEdgeWeight;

async function pagerankValues(
  graph: AbstractGraph,
  options: PagerankOptions,
): Promise<{ keys: string[]; ranks: Float32Array }> {
  checkGraphology(graph, 'pagerank');
  if (graph.order === 0) return { keys: [], ranks: new Float32Array(0) };
  const tolerance = options.tolerance ?? 1e-6;
  // Parallel edges and self-loops stay, as graphology-metrics' WeightedNeighborhoodIndex counts them.
  const convert: ToDeviceOptions = {
    weight: weightOption(options.getEdgeWeight),
    dedupe: 'none',
    keepSelfLoops: true,
    csc: graph.type !== 'undirected',
  };
  return onDevice(graph, options, convert, async ({ graph: g, keys }) => {
    const run = await pageRank(g, {
      ...(options.alpha === undefined ? {} : { alpha: options.alpha }),
      maxIterations: options.maxIterations ?? 100,
      tolerance,
      convergence: 'l1',
    });
    if (!run.converged) {
      throw new ConvergenceError(
        'pagerank',
        run.iterations,
        run.residual ?? Number.NaN,
        graph.order * tolerance,
      );
    }
    return { keys, ranks: run.ranks };
  });
}

/**
 * graphology-metrics' `pagerank` on the GPU: `{ [node]: rank }`, weighted by `getEdgeWeight` (default
 * `'weight'`), stopping by graphology's rule; ranks are f32. `pagerank.assign` writes them to nodes instead.
 */
export const pagerank = Object.assign(
  async (graph: AbstractGraph, options: PagerankOptions = {}): Promise<Record<string, number>> => {
    checkOptionsObject('pagerank', options);
    const { keys, ranks } = await pagerankValues(graph, options);
    return toKeyed(keys, ranks);
  },
  {
    /** Writes each node's rank to `nodePagerankAttribute` (default `'pagerank'`). */
    async assign(graph: AbstractGraph, options: PagerankAssignOptions = {}): Promise<void> {
      checkOptionsObject('pagerank.assign', options);
      const { keys, ranks } = await pagerankValues(graph, options);
      assignAttributes(graph, keys, ranks, options.nodePagerankAttribute ?? 'pagerank');
    },
  },
);

/**
 * graphology-components' `connectedComponents` on the GPU (union-find; edge directions ignored): the nodes of
 * each component. Components come in the order of their first node in graphology's node order (as
 * graphology's), and each lists its nodes in graphology's node order (graphology's own lists them in DFS
 * order: the same sets, the same first node).
 */
export async function connectedComponents(
  graph: AbstractGraph,
  options: DeviceOption = {},
): Promise<string[][]> {
  checkOptionsObject('connectedComponents', options);
  checkGraphology(graph, 'connectedComponents');
  if (graph.order === 0) return [];
  return onDevice(graph, options, {}, async ({ graph: g, keys }) => {
    const { labels } = await deviceComponents(g);
    // Labels are each component's smallest vertex, so first appearances come in graphology's order.
    const components = new Map<number, string[]>();
    for (let v = 0; v < keys.length; v++) {
      const label = labels[v]!;
      const members = components.get(label);
      if (members === undefined) components.set(label, [keys[v]!]);
      else members.push(keys[v]!);
    }
    return [...components.values()];
  });
}

/** An `InputError` unless `source` is a node (graphology throws a plain Error here). */
function checkSourceNode(graph: AbstractGraph, source: unknown): void {
  if (!graph.hasNode(source)) {
    throw new InputError(`source node '${String(source)}' is not in the graph`, 'source');
  }
}

/** `{ [keys[v]]: values[v] }` for the reachable vertices, nearest first (ties in graphology's node order). */
function reachable(
  keys: readonly string[],
  values: ArrayLike<number>,
  unreached: number,
): Record<string, number> {
  const order: number[] = [];
  for (let v = 0; v < keys.length; v++) if (values[v] !== unreached) order.push(v);
  order.sort((a, b) => values[a]! - values[b]! || a - b);
  return toKeyed(
    order.map((v) => keys[v]!),
    order.map((v) => values[v]!),
  );
}

/**
 * graphology-shortest-path's unweighted `singleSourceLength` on the GPU (BFS over outbound edges: out-edges
 * and undirected edges): `{ [node]: hops }` for every node reachable from `source`, nearest first.
 */
export async function singleSourceLength(
  graph: AbstractGraph,
  source: unknown,
  options: DeviceOption = {},
): Promise<Record<string, number>> {
  checkOptionsObject('singleSourceLength', options);
  checkGraphology(graph, 'singleSourceLength');
  checkSourceNode(graph, source);
  return onDevice(graph, options, {}, async ({ graph: g, keys, indexOf }) => {
    const { depths } = await bfs(g, indexOf.get(String(source))!);
    return reachable(keys, depths, -1);
  });
}

/**
 * Dijkstra-style single-source distances on the GPU (Weft's SSSP over outbound edges, weights from
 * `getEdgeWeight`, default `'weight'`, stored as f32): `{ [node]: distance }` for every node reachable from
 * `source`, nearest first. Parallel edges count at their lightest; negative weights are an `InputError`.
 */
export async function dijkstraSingleSourceLength(
  graph: AbstractGraph,
  source: unknown,
  options: DijkstraOptions = {},
): Promise<Record<string, number>> {
  checkOptionsObject('dijkstraSingleSourceLength', options);
  checkGraphology(graph, 'dijkstra.singleSourceLength');
  checkSourceNode(graph, source);
  const convert = { weight: weightOption(options.getEdgeWeight) };
  return onDevice(graph, options, convert, async ({ graph: g, keys, indexOf }) => {
    const { distances } = await sssp(g, indexOf.get(String(source))!);
    return reachable(keys, distances, Number.POSITIVE_INFINITY);
  });
}

/** graphology-shortest-path's `dijkstra` namespace, with the lengths-only function it lacks. */
export const dijkstra = { singleSourceLength: dijkstraSingleSourceLength };

async function betweennessValues(
  graph: AbstractGraph,
  options: BetweennessCentralityOptions,
): Promise<{ keys: string[]; centrality: Float32Array }> {
  checkGraphology(graph, 'betweennessCentrality');
  if (graph.order === 0) return { keys: [], centrality: new Float32Array(0) };
  const weight = weightOption(options.getEdgeWeight);
  if (weight !== null) {
    // graphology counts parallel edges as distinct shortest paths when weighted; unit weights alone agree.
    const { csr, report } = fromGraphology(graph, { weight });
    const unit = csr.weights?.every((w) => w === 1) ?? true;
    if (!unit || report.duplicatesDropped > 0) {
      throw new InputError(
        `weighted betweenness does not run on the GPU yet (${unit ? 'parallel edges' : 'edge weights other than 1'}): ` +
          'pass getEdgeWeight: null to count hops',
        'options.getEdgeWeight',
      );
    }
  }
  return onDevice(graph, options, {}, async ({ graph: g, keys }) => {
    const { centrality } = await deviceBetweenness(g, { normalized: options.normalized ?? true });
    return { keys, centrality };
  });
}

/**
 * graphology-metrics' `betweennessCentrality` on the GPU (Brandes, hop counts): `{ [node]: centrality }`,
 * f32. `betweennessCentrality.assign` writes it to nodes instead.
 */
export const betweennessCentrality = Object.assign(
  async (
    graph: AbstractGraph,
    options: BetweennessCentralityOptions = {},
  ): Promise<Record<string, number>> => {
    checkOptionsObject('betweennessCentrality', options);
    const { keys, centrality } = await betweennessValues(graph, options);
    return toKeyed(keys, centrality);
  },
  {
    /** Writes each node's centrality to `nodeCentralityAttribute` (default `'betweennessCentrality'`). */
    async assign(graph: AbstractGraph, options: BetweennessCentralityAssignOptions = {}): Promise<void> {
      checkOptionsObject('betweennessCentrality.assign', options);
      const { keys, centrality } = await betweennessValues(graph, options);
      assignAttributes(graph, keys, centrality, options.nodeCentralityAttribute ?? 'betweennessCentrality');
    },
  },
);
