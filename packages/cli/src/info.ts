import { parseArgs } from 'node:util';
import { connectedComponents } from '@weft/algorithms';
import { InputError, requestDevice } from '@weft/gpu';
import { uploadGraph } from '@weft/graph';
import { detectGraphFormat } from '@weft/graph/node';
import { GRAPH_FILE_HELP, GRAPH_OPTIONS, GRAPH_OPTIONS_HELP } from './args.ts';
import { type Io, processIo } from './io.ts';
import { fileName, loadCsr } from './load.ts';

export const INFO_USAGE = `usage: weft info <graph-file> [options]

  graph-file        ${GRAPH_FILE_HELP}
  --json            print the statistics as one JSON object
${GRAPH_OPTIONS_HELP}`;

/** What `weft info` reports about a graph (degrees are out-degrees; components are weak on directed graphs). */
export interface GraphInfo {
  graph: string;
  vertices: number;
  arcs: number;
  directed: boolean;
  weighted: boolean;
  degree: { min: number; mean: number; max: number };
  components: number;
}

/** `weft info`: a graph file's size, degrees and connected components (counted on the GPU). */
export async function infoCommand(args: string[], io: Io = processIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { json: { type: 'boolean', default: false }, ...GRAPH_OPTIONS },
  });
  if (values.help) {
    io.out(INFO_USAGE);
    return 0;
  }
  const [file] = positionals;
  if (!file || positionals.length > 1) throw new InputError('expected one graph file', 'weft info');
  await detectGraphFormat(file);

  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const device = await requestDevice();
  try {
    const { csr } = await loadCsr(file, {
      undirected: values.undirected,
      oneBased: values['one-based'],
      renumber: values.renumber,
      maxVertexCount: Math.floor(device.limits.maxStorageBufferBindingSize / 4) - 1,
    });
    let min = csr.vertexCount > 0 ? Number.POSITIVE_INFINITY : 0;
    let max = 0;
    for (let v = 0; v < csr.vertexCount; v++) {
      const d = csr.offsets[v + 1]! - csr.offsets[v]!;
      if (d < min) min = d;
      if (d > max) max = d;
    }
    let components = 0;
    if (csr.vertexCount > 0) {
      const graph = uploadGraph(device, csr, { csc: csr.directed });
      try {
        components = (await connectedComponents(graph)).count;
      } finally {
        graph.destroy();
      }
    }
    const info: GraphInfo = {
      graph: fileName(file),
      vertices: csr.vertexCount,
      arcs: csr.edgeCount,
      directed: csr.directed,
      weighted: csr.weights !== undefined,
      degree: { min, mean: csr.vertexCount > 0 ? csr.edgeCount / csr.vertexCount : 0, max },
      components,
    };
    if (values.json) {
      io.out(`${JSON.stringify(info)}\n`);
    } else {
      io.out(
        `${info.graph}: ${info.vertices} vertices, ${info.arcs} arcs, ${info.directed ? 'directed' : 'undirected'}` +
          `${info.weighted ? ', weighted' : ''}\n` +
          `out-degree: min ${min}, mean ${info.degree.mean.toFixed(2)}, max ${max}\n` +
          `connected components: ${components}${info.directed ? ' (weak)' : ''}\n`,
      );
    }
    return 0;
  } finally {
    device.destroy();
  }
}
