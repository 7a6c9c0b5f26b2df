import { parseArgs } from 'node:util';
import { InputError } from '@weft/gpu';
import { detectGraphFormat, graphFormatOf, writeGraphFile } from '@weft/graph/node';
import { GRAPH_FILE_HELP, GRAPH_OPTIONS, GRAPH_OPTIONS_HELP } from './args.ts';
import { type Io, processIo } from './io.ts';
import { fileName, loadCsr } from './load.ts';
import { checkOutputPath } from './output.ts';

export const CONVERT_USAGE = `usage: weft convert <input> <output> [options]

  input, output     ${GRAPH_FILE_HELP}; the extensions pick the formats
  --out-one-based   write edge-list ids starting at 1
${GRAPH_OPTIONS_HELP}`;

/**
 * `weft convert`: reads a graph as `weft run` does (self-loops dropped, parallel edges merged) and writes it
 * in the output's format. An undirected graph becomes a symmetric Matrix Market file (read back as
 * undirected); other text formats list both arcs of each edge.
 */
export async function convertCommand(args: string[], io: Io = processIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { 'out-one-based': { type: 'boolean', default: false }, ...GRAPH_OPTIONS },
  });
  if (values.help) {
    io.out(CONVERT_USAGE);
    return 0;
  }
  const [input, output] = positionals;
  if (!input || !output || positionals.length > 2) {
    throw new InputError('expected an input and an output graph file', 'weft convert');
  }
  await detectGraphFormat(input);
  const format = graphFormatOf(output);
  await checkOutputPath(output, output);
  const { csr, loadMs } = await loadCsr(input, {
    undirected: values.undirected,
    oneBased: values['one-based'],
    renumber: values.renumber,
  });
  const start = performance.now();
  await writeGraphFile(output, csr, {
    ...(format === 'mtx' ? { symmetric: !csr.directed } : {}),
    ...(format === 'edgelist' ? { oneBased: values['out-one-based'] } : {}),
  });
  io.out(
    `${fileName(input)} -> ${fileName(output)}: ${csr.vertexCount} vertices, ${csr.edgeCount} arcs, ` +
      `${csr.directed ? 'directed' : 'undirected'} (read in ${loadMs.toFixed(0)} ms, written in ${(performance.now() - start).toFixed(0)} ms)\n`,
  );
  return 0;
}
