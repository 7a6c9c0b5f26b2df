import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeGraphFile } from '@weft/graph/node';
import { parseSizes } from './sizes.ts';
import { makeGraph, pickSources, type Shape } from './suites/algorithms.ts';

export const GRAPHS_USAGE = `usage: weft graphs --out DIR [--sizes 22,24] [--shapes kronecker,grid,geometric] [--seed 1]

  Writes the algorithms suite's generated graphs (same sizes, seed and the 64 BFS/SSSP sources) as .wcsr files and a
  manifest.json, so CPU anchors (anchors/scipy_anchors.py) run on exactly the graphs Weft runs on.
`;

/** `weft graphs`: the algorithms suite's inputs, written for other tools. */
export async function graphsCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: 'string' },
      sizes: { type: 'string', default: '22,24,26' },
      shapes: { type: 'string', default: 'kronecker,grid,geometric' },
      seed: { type: 'string', default: '1' },
    },
  });
  if (!values.out) {
    process.stderr.write(GRAPHS_USAGE);
    return 2;
  }
  await mkdir(values.out, { recursive: true });
  const seed = Number(values.seed);
  const manifest: { graph: string; n: number; file: string; sources: number[] }[] = [];
  for (const shape of values.shapes.split(',') as Shape[]) {
    for (const n of parseSizes(values.sizes)) {
      const csr = makeGraph(shape, n, seed, true);
      const file = `${shape}-${n}.wcsr`;
      await writeGraphFile(join(values.out, file), csr);
      manifest.push({ graph: shape, n, file, sources: pickSources(csr, seed, 64) });
      console.log(`${file}: ${csr.vertexCount} vertices, ${csr.edgeCount} arcs`);
    }
  }
  await writeFile(join(values.out, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return 0;
}
