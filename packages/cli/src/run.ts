import { parseArgs } from 'node:util';
import {
  bfs,
  connectedComponents,
  edgesFrom,
  eigenvectorCentrality,
  graphColoring,
  hits,
  katzCentrality,
  maximalIndependentSet,
  pageRank,
  personalizedPageRank,
  sssp,
  triangleCount,
} from '@weft/algorithms';
import { InputError, requestDevice } from '@weft/gpu';
import { type DeviceGraph, type HostCsr, uploadGraph } from '@weft/graph';
import { detectGraphFormat } from '@weft/graph/node';
import { countOption, GRAPH_FILE_HELP, GRAPH_OPTIONS, GRAPH_OPTIONS_HELP, vertexIdOption } from './args.ts';
import { type Io, processIo } from './io.ts';
import { fileName, loadCsr, undirectedCsr } from './load.ts';
import { checkOutputPath, writeResultJson } from './output.ts';

const ALGORITHMS = [
  'bfs',
  'sssp',
  'pagerank',
  'cc',
  'triangles',
  'coloring',
  'mis',
  'ppr',
  'hits',
  'katz',
  'eigenvector',
] as const;
type Algorithm = (typeof ALGORITHMS)[number];

/** Algorithms defined on undirected graphs only: a directed file runs on its undirected graph. */
const UNDIRECTED_ONLY: readonly Algorithm[] = ['triangles', 'coloring', 'mis'];

export const RUN_USAGE = `usage: weft run <algorithm> <graph-file> [options]

  algorithm         ${ALGORITHMS.join(', ')}
  graph-file        ${GRAPH_FILE_HELP}
  --source N        source vertex for bfs, sssp and ppr (0-based; default 0)
  --sources A,B,..  ppr: personalize to these vertices (instead of --source)
  --out FILE        write the result as JSON (values indexed by 0-based vertex id)
  --repeat N        warm runs timed after the first (cold) run; prints their median and min (default 1)
${GRAPH_OPTIONS_HELP}`;

/** One run's result: scalars and per-vertex arrays for the JSON, and what the summary prints. */
interface RunResult {
  scalars: Record<string, unknown>;
  arrays: Record<string, ArrayLike<number>>;
  iterations?: number;
  /** Graph500 TEPS edges traversed, for traversals. */
  edges?: number;
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
  const source = vertexIdOption(values.source, '--source');
  const sources =
    values.sources === undefined
      ? [source]
      : values.sources.split(',').map((t) => vertexIdOption(t.trim(), '--sources'));
  const repeat = countOption(values.repeat, '--repeat');
  // A missing file, a directory or an unwritable --out is reported before a device starts.
  await detectGraphFormat(file);
  if (values.out !== undefined) await checkOutputPath(values.out);

  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const device = await requestDevice();
  try {
    const loaded = await loadCsr(file, {
      undirected: values.undirected,
      oneBased: values['one-based'],
      // A graph the device cannot hold is refused before the host builds per-vertex arrays for it.
      maxVertexCount: Math.floor(device.limits.maxStorageBufferBindingSize / 4) - 1,
    });
    let csr = loaded.csr;
    let notice = '';
    if (UNDIRECTED_ONLY.includes(algorithm as Algorithm) && csr.directed) {
      csr = undirectedCsr(csr);
      notice = `, run on its undirected graph (${csr.edgeCount} arcs): ${algorithm} needs an undirected graph`;
    }
    if ((algorithm === 'bfs' || algorithm === 'sssp') && source >= csr.vertexCount) {
      throw new InputError(
        `source ${source} is not a vertex of ${fileName(file)} (it has ${csr.vertexCount})`,
        '--source',
      );
    }
    const outside = algorithm === 'ppr' ? sources.find((s) => s >= csr.vertexCount) : undefined;
    if (outside !== undefined) {
      throw new InputError(
        `source ${outside} is not a vertex of ${fileName(file)} (it has ${csr.vertexCount})`,
        values.sources === undefined ? '--source' : '--sources',
      );
    }
    const graph = uploadGraph(device, csr, { csc: csr.directed });
    try {
      let start = performance.now();
      let result = await runAlgorithm(algorithm as Algorithm, graph, csr, sources);
      const coldMs = performance.now() - start;
      const warm: number[] = [];
      for (let k = 0; k < repeat; k++) {
        start = performance.now();
        result = await runAlgorithm(algorithm as Algorithm, graph, csr, sources);
        warm.push(performance.now() - start);
      }
      warm.sort((a, b) => a - b);
      const ms = median(warm);
      const { iterations, edges } = result;
      const teps =
        edges !== undefined
          ? `, ${(edges / (ms / 1e3) / 1e6).toFixed(1)} MTEPS (Graph500: ${csr.directed ? 'arcs' : 'undirected edges'} traversed)`
          : '';
      const runs = repeat === 1 ? 'warm run' : `median of ${repeat} warm runs, min ${warm[0]!.toFixed(2)} ms`;
      io.out(
        `${algorithm} on ${fileName(file)} (${loaded.csr.vertexCount} vertices, ${loaded.csr.edgeCount} arcs${notice}, loaded in ${loaded.loadMs.toFixed(0)} ms) ` +
          `on ${device.adapter.vendor} ${device.adapter.architecture}${device.adapter.software ? ' [software adapter]' : ''}: ` +
          `compile ${Math.max(0, coldMs - ms).toFixed(0)} ms (first run ${coldMs.toFixed(2)} ms), ` +
          `run ${ms.toFixed(2)} ms (${runs})` +
          `${iterations !== undefined ? `, ${iterations} iteration${iterations === 1 ? '' : 's'}` : ''}${teps}\n`,
      );
      if (values.out !== undefined) {
        await writeResultJson(
          values.out,
          {
            algorithm,
            graph: fileName(file),
            ...(notice ? { undirected: true } : {}),
            ...result.scalars,
          },
          result.arrays,
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

function median(sorted: number[]): number {
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Graph500's TEPS edges: arcs out of reached vertices, halved on undirected graphs. */
function traversedEdges(csr: HostCsr, reached: (v: number) => boolean): number {
  const arcs = edgesFrom(csr, reached);
  return csr.directed ? arcs : arcs / 2;
}

async function runAlgorithm(
  algorithm: Algorithm,
  graph: DeviceGraph,
  csr: HostCsr,
  sources: number[],
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
  }
}
