import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { HostCsr } from '@weft/graph';
import { readGraphFile, writeGraphFile } from '@weft/graph/node';
import { parseSizes } from './sizes.ts';
import {
  kronDirected,
  makeGraph,
  pickSources,
  provideDirectedKronecker,
  provideGraph,
  type Shape,
} from './suites/algorithms.ts';

export const GRAPHS_USAGE = `usage: weft graphs --out DIR [--sizes 22,24] [--shapes kronecker,grid,geometric,road,kronecker-directed] [--seed 1] [--gr]

  Writes the algorithms suite's generated graphs (same sizes, seed and the 64 BFS/SSSP sources) as .wcsr files and a
  manifest.json, so CPU anchors (anchors/scipy_anchors.py) run on exactly the graphs Weft runs on, and
  \`weft bench --graphs-dir DIR\` reads them instead of generating them again. Road graphs, and with --gr every
  graph, are also written as DIMACS .gr (the manifest's "gr"), which gapbs reads (anchors/gapbs_anchors.sh).
  kronecker-directed is the directed Kronecker graph of the scc kronecker-directed case (SciPy's strong
  components anchor).
`;

/** The directed Kronecker graphs of the `scc kronecker-directed` case (not a shape of the other cases). */
const DIRECTED = 'kronecker-directed';

/** One graph of `manifest.json`: the suite's shape and size, the seed it was generated with, its file. */
interface GraphManifestEntry {
  graph: string;
  n: number;
  /** Absent in manifests written before `bench --graphs-dir` existed. */
  seed?: number;
  file: string;
  /** The same graph as DIMACS `.gr` (1-based arcs with their u32 weights), where written. */
  gr?: string;
  /** Whether every arc has its reverse (absent in older manifests). */
  directed?: boolean;
  sources: number[];
}

/** `weft graphs`: the algorithms suite's inputs, written for other tools. */
export async function graphsCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      out: { type: 'string' },
      sizes: { type: 'string', default: '22,24,26' },
      shapes: { type: 'string', default: 'kronecker,grid,geometric,road' },
      seed: { type: 'string', default: '1' },
      gr: { type: 'boolean', default: false },
    },
  });
  if (!values.out) {
    process.stderr.write(GRAPHS_USAGE);
    return 2;
  }
  await mkdir(values.out, { recursive: true });
  const seed = Number(values.seed);
  const manifest: GraphManifestEntry[] = [];
  for (const shape of values.shapes.split(',') as (Shape | typeof DIRECTED)[]) {
    for (const n of parseSizes(values.sizes)) {
      const csr = shape === DIRECTED ? kronDirected.get(n, seed) : makeGraph(shape, n, seed, true);
      const file = `${shape}-${n}.wcsr`;
      await writeGraphFile(join(values.out, file), csr);
      const entry: GraphManifestEntry = { graph: shape, n, seed, file, directed: csr.directed, sources: [] };
      if (values.gr || shape === 'road') {
        entry.gr = `${shape}-${n}.gr`;
        await writeGraphFile(join(values.out, entry.gr), csr);
      }
      entry.sources = pickSources(csr, seed, 64);
      manifest.push(entry);
      console.log(
        `${file}${entry.gr ? ` (and ${entry.gr})` : ''}: ${csr.vertexCount} vertices, ${csr.edgeCount} arcs`,
      );
    }
  }
  await writeFile(join(values.out, 'manifest.json'), JSON.stringify(manifest, null, 1));
  return 0;
}

/**
 * Hands the algorithms suite the graphs `weft graphs` wrote for this seed (its manifest names shape, size and
 * seed of each), so the suite reads them instead of generating them again.
 */
export async function provideWrittenGraphs(
  dir: string,
  seed: number,
): Promise<{ shape: Shape; n: number; csr: HostCsr }[]> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as GraphManifestEntry[];
  const provided: { shape: Shape; n: number; csr: HostCsr }[] = [];
  for (const entry of manifest) {
    if (entry.seed === undefined) {
      throw new Error(`${dir}/manifest.json names no seed: write it again with this version of weft graphs`);
    }
    if (entry.seed !== seed) continue;
    const start = performance.now();
    const file = await readGraphFile(join(dir, entry.file));
    if (file.kind !== 'csr') throw new Error(`${entry.file}: not a .wcsr file`);
    if (entry.graph === DIRECTED) {
      provideDirectedKronecker(entry.n, seed, file.csr);
    } else {
      const shape = entry.graph as Shape;
      provideGraph(shape, entry.n, seed, file.csr);
      provided.push({ shape, n: entry.n, csr: file.csr });
    }
    console.log(
      `graph ${entry.graph} n=${entry.n}: read ${entry.file} in ${(performance.now() - start).toFixed(0)} ms`,
    );
  }
  if (provided.length === 0) {
    console.log(`--graphs-dir ${dir}: no graph written with seed ${seed}; generating as usual`);
  }
  return provided;
}
