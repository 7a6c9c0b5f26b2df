import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  type BetweennessOptions,
  betweennessCentrality,
  bfs,
  connectedComponents,
  coreNumber,
  edgesFrom,
  eigenvectorCentrality,
  graphColoring,
  hits,
  jaccard,
  jaccardAll,
  katzCentrality,
  labelPropagation,
  leiden,
  louvain,
  maximalIndependentSet,
  minimumSpanningForest,
  pageRank,
  personalizedPageRank,
  sssp,
  stronglyConnectedComponents,
  triangleCount,
} from '@weft/algorithms';
import { InputError, requestDevice } from '@weft/gpu';
import { type DeviceGraph, uploadGraph } from '@weft/graph';
import { detectGraphFormat } from '@weft/graph/node';
import { countOption, GRAPH_FILE_HELP, GRAPH_OPTIONS, GRAPH_OPTIONS_HELP, vertexIdOption } from './args.ts';
import { type Io, processIo } from './io.ts';
import { fileName, type HostView, loadCsr, sourceVertex, streamWcsr, undirectedCsr } from './load.ts';
import { checkOutputPath, type Rows, writeResultJson } from './output.ts';

const ALGORITHMS = [
  'bfs',
  'sssp',
  'pagerank',
  'cc',
  'triangles',
  'coloring',
  'mis',
  'bc',
  'scc',
  'kcore',
  'louvain',
  'leiden',
  'ppr',
  'hits',
  'katz',
  'eigenvector',
  'lpa',
  'mst',
  'jaccard',
] as const;
type Algorithm = (typeof ALGORITHMS)[number];

/** Algorithms defined on undirected graphs only: a directed file runs on its undirected graph. */
const UNDIRECTED_ONLY: readonly Algorithm[] = [
  'triangles',
  'coloring',
  'mis',
  'kcore',
  'louvain',
  'leiden',
  'lpa',
  'mst',
  'jaccard',
];

export const RUN_USAGE = `usage: weft run <algorithm> <graph-file> [options]

  algorithm         ${ALGORITHMS.join(', ')}
  graph-file        ${GRAPH_FILE_HELP}
  --source N        source vertex for bfs, sssp and ppr (0-based; default 0)
  --sources A,B,..  ppr: personalize to these vertices (instead of --source)
  --pairs FILE      jaccard: score the vertex pairs of FILE (two ids a line)
  --vertices A,B,.. jaccard: score these vertices against their 2-hop neighbours
  --top K           jaccard --vertices: keep the K best per vertex (default all)
  --out FILE        write the result as JSON (values indexed by 0-based vertex id)
  --repeat N        warm runs timed after the first (cold) run; prints their median and min (default 1)
  --samples K       bc: sample K source vertices (default: every vertex)
  --seed S          bc: the sampling's seed (default 0)
  --no-validation   turn Dawn's API validation off (requestDevice({ validation: false })): traversals that
                    size their levels on the GPU run several times faster in wall-clock time
${GRAPH_OPTIONS_HELP}`;

/** One run's result: scalars and per-vertex arrays for the JSON, and what the summary prints. */
interface RunResult {
  scalars: Record<string, unknown>;
  arrays: Record<string, ArrayLike<number> | Rows>;
  iterations?: number;
  /** Graph500 TEPS edges traversed, for traversals. */
  edges?: number;
  /** What the summary line adds after the iterations (e.g. a count). */
  summary?: string;
}

/**
 * `weft run`: loads one graph file, runs one algorithm on the best adapter once cold (pipelines compile)
 * and `--repeat` times warm, prints a one-line summary and streams the result JSON to `--out`.
 */
export async function runCommand(args: string[], io: Io = processIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      source: { type: 'string', default: '0' },
      sources: { type: 'string' },
      out: { type: 'string' },
      repeat: { type: 'string', default: '1' },
      samples: { type: 'string' },
      seed: { type: 'string', default: '0' },
      pairs: { type: 'string' },
      vertices: { type: 'string' },
      top: { type: 'string' },
      'no-validation': { type: 'boolean', default: false },
      ...GRAPH_OPTIONS,
    },
  });
  if (values.help) {
    io.out(RUN_USAGE);
    return 0;
  }
  const [algorithm, file] = positionals;
  if (!algorithm || !file || positionals.length > 2) {
    throw new InputError('expected an algorithm and a graph file (weft run --help)', 'weft run');
  }
  if (!(ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new InputError(`unknown algorithm '${algorithm}' (known: ${ALGORITHMS.join(', ')})`, 'weft run');
  }
  // With --renumber sources are names, resolved once the file is read.
  if (!values.renumber) {
    vertexIdOption(values.source, '--source');
    for (const t of values.sources?.split(',') ?? []) vertexIdOption(t.trim(), '--sources');
    for (const t of values.vertices?.split(',') ?? []) vertexIdOption(t.trim(), '--vertices');
  }
  const repeat = countOption(values.repeat, '--repeat');
  const samples = values.samples === undefined ? undefined : countOption(values.samples, '--samples');
  if (!/^[0-9]+$/.test(values.seed) || !Number.isSafeInteger(Number(values.seed))) {
    throw new InputError(`'${values.seed}' is not a seed (a non-negative integer)`, '--seed');
  }
  const top = values.top === undefined ? undefined : countOption(values.top, '--top');
  if (algorithm === 'jaccard' && (values.pairs === undefined) === (values.vertices === undefined)) {
    throw new InputError('jaccard needs either --pairs FILE or --vertices A,B,..', 'weft run jaccard');
  }
  if (top !== undefined && values.vertices === undefined) {
    throw new InputError('--top needs --vertices', '--top');
  }
  const pairIds = values.pairs === undefined ? undefined : await pairTokens(values.pairs);
  const bcOptions: BetweennessOptions =
    samples === undefined ? {} : { k: samples, seed: Number(values.seed) };
  // A missing file, a directory or an unwritable --out is reported before a device starts.
  await detectGraphFormat(file);
  if (values.out !== undefined) await checkOutputPath(values.out);

  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const device = await requestDevice(values['no-validation'] ? { validation: false } : {});
  try {
    const streamed = await streamWcsr(device, file, {
      undirected: values.undirected,
      renumber: values.renumber,
      needsUndirected: UNDIRECTED_ONLY.includes(algorithm as Algorithm),
      needsHostEdges: algorithm === 'mst',
    });
    let loaded: { view: HostView; loadMs: number };
    let csr: HostView;
    let notice = '';
    let graph: DeviceGraph;
    if (streamed) {
      loaded = streamed;
      csr = streamed.view;
      graph = streamed.graph;
    } else {
      const host = await loadCsr(file, {
        undirected: values.undirected,
        oneBased: values['one-based'],
        renumber: values.renumber,
        // A graph the device cannot hold is refused before the host builds per-vertex arrays for it.
        maxVertexCount: Math.floor(device.limits.maxStorageBufferBindingSize / 4) - 1,
      });
      loaded = { view: host.csr, loadMs: host.loadMs };
      let full = host.csr;
      if (UNDIRECTED_ONLY.includes(algorithm as Algorithm) && full.directed) {
        full = undirectedCsr(full);
        notice = `, run on its undirected graph (${full.edgeCount} arcs): ${algorithm} needs an undirected graph`;
      }
      csr = full;
      graph = uploadGraph(device, full, { csc: full.directed });
    }
    let similarity: SimilarityInput = {};
    const sources =
      algorithm === 'ppr' && values.sources !== undefined
        ? values.sources.split(',').map((t) => sourceVertex(csr, t.trim(), file, '--sources'))
        : [
            algorithm === 'bfs' || algorithm === 'sssp' || algorithm === 'ppr'
              ? sourceVertex(csr, values.source, file)
              : 0,
          ];
    if (algorithm === 'jaccard') {
      const ids = (tokens: string[], option: string) => tokens.map((t) => sourceVertex(csr, t, file, option));
      similarity =
        pairIds !== undefined
          ? { pairs: ids(pairIds, '--pairs') }
          : {
              vertices: ids(
                values.vertices!.split(',').map((t) => t.trim()),
                '--vertices',
              ),
              top,
            };
    }
    try {
      if (samples !== undefined && samples > csr.vertexCount) {
        throw new InputError(
          `${samples} sources, but ${fileName(file)} has ${csr.vertexCount} vertices`,
          '--samples',
        );
      }
      let start = performance.now();
      let result = await runAlgorithm(algorithm as Algorithm, graph, csr, sources, bcOptions, similarity);
      const coldMs = performance.now() - start;
      const warm: number[] = [];
      for (let k = 0; k < repeat; k++) {
        start = performance.now();
        result = await runAlgorithm(algorithm as Algorithm, graph, csr, sources, bcOptions, similarity);
        warm.push(performance.now() - start);
      }
      warm.sort((a, b) => a - b);
      const ms = median(warm);
      const { iterations, edges, summary } = result;
      const teps =
        edges !== undefined
          ? `, ${(edges / (ms / 1e3) / 1e6).toFixed(1)} MTEPS (Graph500: ${csr.directed ? 'arcs' : 'undirected edges'} traversed)`
          : '';
      const runs = repeat === 1 ? 'warm run' : `median of ${repeat} warm runs, min ${warm[0]!.toFixed(2)} ms`;
      io.out(
        `${algorithm} on ${fileName(file)} (${loaded.view.vertexCount} vertices, ${loaded.view.edgeCount} arcs${notice}, ${streamed ? 'streamed to the GPU' : 'loaded'} in ${loaded.loadMs.toFixed(0)} ms) ` +
          `on ${device.adapter.vendor} ${device.adapter.architecture}${device.adapter.software ? ' [software adapter]' : ''}: ` +
          `compile ${Math.max(0, coldMs - ms).toFixed(0)} ms (first run ${coldMs.toFixed(2)} ms), ` +
          `run ${ms.toFixed(2)} ms (${runs})` +
          `${iterations !== undefined ? `, ${iterations} iteration${iterations === 1 ? '' : 's'}` : ''}` +
          `${summary ? `, ${summary}` : ''}${teps}\n`,
      );
      if (values.out !== undefined) {
        await writeResultJson(
          values.out,
          {
            algorithm,
            graph: fileName(file),
            ...(notice ? { undirected: true } : {}),
            ...result.scalars,
            ...(csr.ids !== undefined && 'source' in result.scalars ? { source: csr.ids[sources[0]!] } : {}),
            ...(csr.ids !== undefined && 'sources' in result.scalars
              ? { sources: sources.map((v) => csr.ids![v]) }
              : {}),
          },
          // Values are indexed like ids: the names come first so a reader can zip them.
          csr.ids === undefined ? result.arrays : { ids: csr.ids, ...result.arrays },
        );
        io.out(`result: ${values.out}\n`);
      }
      return 0;
    } finally {
      graph.destroy();
    }
  } finally {
    device.destroy();
  }
}

/** `weft run jaccard`'s input: vertex pairs (flat) or vertices to score against their 2-hop neighbours. */
interface SimilarityInput {
  pairs?: number[];
  vertices?: number[];
  top?: number | undefined;
}

/** The ids of a pair file: two a line, split by spaces, tabs or commas; `#` and `%` lines are comments. */
async function pairTokens(path: string): Promise<string[]> {
  const tokens: string[] = [];
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new InputError(`cannot read ${path}`, '--pairs');
  }
  for (const [i, line] of text.split('\n').entries()) {
    const row = line.trim();
    if (row === '' || row.startsWith('#') || row.startsWith('%')) continue;
    const pair = row.split(/[\s,]+/);
    if (pair.length !== 2) {
      throw new InputError(`line ${i + 1} of ${fileName(path)} is not a pair of vertex ids`, '--pairs');
    }
    tokens.push(...pair);
  }
  return tokens;
}

function median(sorted: number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Graph500's TEPS edges: arcs out of reached vertices, halved on undirected graphs. */
function traversedEdges(csr: HostView, reached: (v: number) => boolean): number {
  const arcs = edgesFrom(csr, reached);
  return csr.directed ? arcs : arcs / 2;
}

async function runAlgorithm(
  algorithm: Algorithm,
  graph: DeviceGraph,
  csr: HostView,
  sources: number[],
  bcOptions: BetweennessOptions,
  similarity: SimilarityInput,
): Promise<RunResult> {
  const source = sources[0]!;
  switch (algorithm) {
    case 'bfs': {
      const r = await bfs(graph, source, { parents: true });
      return {
        scalars: { source },
        arrays: { values: r.depths, ...(r.parents ? { parents: r.parents } : {}) },
        iterations: r.iterations,
        edges: traversedEdges(csr, (v) => r.depths[v]! >= 0),
      };
    }
    case 'sssp': {
      const r = await sssp(graph, source);
      return {
        scalars: { source },
        arrays: { values: r.distances },
        iterations: r.iterations,
        edges: traversedEdges(csr, (v) => Number.isFinite(r.distances[v]!)),
      };
    }
    case 'pagerank': {
      const r = await pageRank(graph);
      return { scalars: { converged: r.converged }, arrays: { values: r.ranks }, iterations: r.iterations };
    }
    case 'cc': {
      const r = await connectedComponents(graph);
      return { scalars: { components: r.count }, arrays: { values: r.labels }, iterations: r.iterations };
    }
    case 'triangles': {
      const r = await triangleCount(graph);
      return { scalars: { value: r.count }, arrays: {} };
    }
    case 'coloring': {
      const r = await graphColoring(graph);
      return { scalars: { colors: r.colorCount }, arrays: { values: r.colors }, iterations: r.iterations };
    }
    case 'bc': {
      const r = await betweennessCentrality(graph, bcOptions);
      const sampled = bcOptions.k === undefined ? {} : { samples: bcOptions.k, seed: bcOptions.seed };
      return { scalars: sampled, arrays: { values: r.centrality }, iterations: r.iterations };
    }
    case 'ppr': {
      const r = await personalizedPageRank(graph, { sources });
      return { scalars: { sources }, arrays: { values: r.ranks }, iterations: r.iterations };
    }
    case 'hits': {
      const r = await hits(graph);
      return { scalars: {}, arrays: { hubs: r.hubs, authorities: r.authorities }, iterations: r.iterations };
    }
    case 'katz':
    case 'eigenvector': {
      const r = await (algorithm === 'katz' ? katzCentrality(graph) : eigenvectorCentrality(graph));
      return { scalars: {}, arrays: { values: r.centrality }, iterations: r.iterations };
    }
    case 'mis': {
      const r = await maximalIndependentSet(graph);
      return { scalars: { size: r.size }, arrays: { values: r.inSet }, iterations: r.iterations };
    }
    case 'scc': {
      const r = await stronglyConnectedComponents(graph);
      const summary = `${r.count} strongly connected component${r.count === 1 ? '' : 's'}`;
      return {
        scalars: { components: r.count },
        arrays: { values: r.labels },
        iterations: r.iterations,
        summary,
      };
    }
    case 'kcore': {
      const r = await coreNumber(graph);
      const summary = `max core ${r.maxCore}`;
      return {
        scalars: { maxCore: r.maxCore },
        arrays: { values: r.core },
        iterations: r.iterations,
        summary,
      };
    }
    case 'jaccard': {
      const r =
        similarity.pairs !== undefined
          ? await jaccard(graph, Uint32Array.from(similarity.pairs))
          : await jaccardAll(graph, similarity.vertices!, { topK: similarity.top });
      return {
        scalars: {},
        arrays: { first: r.first, second: r.second, score: r.score, common: r.common },
        summary: `${r.first.length} pair${r.first.length === 1 ? '' : 's'}`,
      };
    }
    case 'louvain': {
      const r = await louvain(graph);
      return {
        scalars: { modularity: r.modularity, communities: r.count },
        arrays: { values: r.communities },
      };
    }
    case 'leiden': {
      const r = await leiden(graph);
      return {
        scalars: { modularity: r.modularity, communities: r.count },
        arrays: { values: r.communities },
      };
    }
    case 'lpa': {
      const r = await labelPropagation(graph);
      return {
        scalars: { communities: r.count, converged: r.converged },
        arrays: { values: r.labels },
        iterations: r.iterations,
        summary: `${r.count} communit${r.count === 1 ? 'y' : 'ies'}`,
      };
    }
    case 'mst': {
      // A spanning forest's run loads the graph on the host, so its edges are at hand here.
      const targets = csr.targets!;
      const r = await minimumSpanningForest(graph);
      const u = new Uint32Array(r.edges.length);
      const w = new Float64Array(r.edges.length);
      // Forest edges come in increasing CSR order, so one walk over the rows finds their sources.
      let row = 0;
      for (const [i, e] of r.edges.entries()) {
        while (csr.offsets[row + 1]! <= e) row++;
        u[i] = row;
        w[i] = csr.weights === undefined ? 1 : csr.weights[e]!;
      }
      const v = r.edges.map((e) => targets[e]!);
      return {
        scalars: { value: r.weight, trees: r.trees },
        arrays: { edges: { columns: [u, v, w] } },
        summary: `total weight ${r.weight}, ${r.trees} tree${r.trees === 1 ? '' : 's'}`,
      };
    }
  }
}
