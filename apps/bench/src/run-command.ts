import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import {
  bfs,
  connectedComponents,
  graphColoring,
  maximalIndependentSet,
  pageRank,
  sssp,
  triangleCount,
} from '@weft/algorithms';
import { InputError, requestDevice } from '@weft/gpu';
import { type HostCsr, uploadGraph } from '@weft/graph';
import { detectGraphFormat, loadGraph } from '@weft/graph/node';
import { vertexIdOption } from './cli-errors.ts';
import { traversedEdges } from './suites/algorithms.ts';

const ALGORITHMS = ['bfs', 'sssp', 'pagerank', 'cc', 'triangles', 'coloring', 'mis'] as const;
type Algorithm = (typeof ALGORITHMS)[number];

export const RUN_USAGE = `usage: weft run <algorithm> <graph-file> [options]

  algorithm         ${ALGORITHMS.join(', ')}
  graph-file        .mtx, .gr (DIMACS), .el/.txt/.wel/.tsv/.csv/.edges (edge lists), .wcsr (Weft binary CSR)
  --source N        source vertex for bfs and sssp (0-based; default 0)
  --out FILE        write the result as JSON (values indexed by 0-based vertex id)
  --undirected      read an edge list as undirected (Matrix Market and DIMACS say so themselves)
  --one-based       edge-list ids start at 1
`;

/** Result JSON as the issue specifies: per-vertex values, or a scalar `value`. */
type RunJson = Record<string, unknown>;

/**
 * `weft run`: loads one graph file, runs one algorithm on the best adapter, prints a one-line summary and
 * writes JSON. Inputs are cleaned as users expect (self-loops dropped, parallel edges merged keeping the
 * smallest weight, undirected edges as two arcs).
 */
export async function runCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      source: { type: 'string', default: '0' },
      out: { type: 'string' },
      undirected: { type: 'boolean', default: false },
      'one-based': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  const [algorithm, file] = positionals;
  if (!algorithm || !file || positionals.length > 2) {
    process.stderr.write(`weft run: expected an algorithm and a graph file\n${RUN_USAGE}`);
    return 2;
  }
  if (!(ALGORITHMS as readonly string[]).includes(algorithm)) {
    throw new InputError(`unknown algorithm '${algorithm}' (known: ${ALGORITHMS.join(', ')})`, 'weft run');
  }
  const source = vertexIdOption(values.source, '--source');
  // A missing file or a directory is reported before a device starts.
  await detectGraphFormat(file);

  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const device = await requestDevice();
  try {
    const loadStart = performance.now();
    const { csr } = await loadGraph(file, {
      directed: !values.undirected,
      oneBased: values['one-based'],
      // A graph the device cannot hold is refused before the host builds per-vertex arrays for it.
      build: { maxVertexCount: Math.floor(device.limits.maxStorageBufferBindingSize / 4) - 1 },
    });
    const loadMs = performance.now() - loadStart;
    if ((algorithm === 'bfs' || algorithm === 'sssp') && source >= csr.vertexCount) {
      throw new InputError(
        `source ${source} is not a vertex of ${basename(file)} (it has ${csr.vertexCount})`,
        '--source',
      );
    }
    const graph = uploadGraph(device, csr, { csc: csr.directed });
    try {
      const start = performance.now();
      const { json, iterations, edges } = await runAlgorithm(algorithm as Algorithm, graph, csr, source);
      const ms = performance.now() - start;
      const out: RunJson = { algorithm, graph: basename(file), ...json };
      const teps =
        edges !== undefined
          ? `, ${(edges / (ms / 1e3) / 1e6).toFixed(1)} MTEPS (Graph500: ${csr.directed ? 'arcs' : 'undirected edges'} traversed)`
          : '';
      console.log(
        `${algorithm} on ${basename(file)} (${csr.vertexCount} vertices, ${csr.edgeCount} arcs, loaded in ${loadMs.toFixed(0)} ms) ` +
          `on ${device.adapter.vendor} ${device.adapter.architecture}${device.adapter.software ? ' [software adapter]' : ''}: ` +
          `${ms.toFixed(2)} ms${iterations !== undefined ? `, ${iterations} iteration${iterations === 1 ? '' : 's'}` : ''}${teps}`,
      );
      if (values.out) {
        await writeFile(values.out, JSON.stringify(out));
        console.log(`result: ${values.out}`);
      }
      return 0;
    } finally {
      graph.destroy();
    }
  } finally {
    device.destroy();
  }
}

async function runAlgorithm(
  algorithm: Algorithm,
  graph: ReturnType<typeof uploadGraph>,
  csr: HostCsr,
  source: number,
): Promise<{ json: RunJson; iterations?: number; edges?: number }> {
  switch (algorithm) {
    case 'bfs': {
      const r = await bfs(graph, source, { parents: true });
      return {
        json: { source, values: [...r.depths], parents: r.parents ? [...r.parents] : null },
        iterations: r.iterations,
        edges: traversedEdges(csr, (v) => r.depths[v]! >= 0),
      };
    }
    case 'sssp': {
      const r = await sssp(graph, source);
      return {
        json: { source, values: [...r.distances].map((d) => (Number.isFinite(d) ? d : null)) },
        iterations: r.iterations,
        edges: traversedEdges(csr, (v) => Number.isFinite(r.distances[v]!)),
      };
    }
    case 'pagerank': {
      const r = await pageRank(graph);
      return { json: { values: [...r.ranks], converged: r.converged }, iterations: r.iterations };
    }
    case 'cc': {
      const r = await connectedComponents(graph);
      return { json: { values: [...r.labels], components: r.count }, iterations: r.iterations };
    }
    case 'triangles': {
      const r = await triangleCount(graph);
      return { json: { value: r.count } };
    }
    case 'coloring': {
      const r = await graphColoring(graph);
      return { json: { values: [...r.colors], colors: r.colorCount }, iterations: r.iterations };
    }
    case 'mis': {
      const r = await maximalIndependentSet(graph);
      return { json: { values: [...r.inSet], size: r.size }, iterations: r.iterations };
    }
  }
}
