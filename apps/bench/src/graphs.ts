import { type HostCsr, hostCsrFromEdgeList } from '@weft/graph';
import { grid, kronecker, randomGeometric, uniformRandom } from '@weft/graph/generators';

/**
 * Graphs chosen on the command line (`--graph FILE`, `--kron SCALE`, `--urand SCALE`, `--rgg N`,
 * `--grid WxH`): the algorithms and operators suites run on these instead of their default shapes and sizes.
 * Loading and generation happen once, before any suite, and are never inside a timed run.
 */
export interface BenchGraph {
  /** Short, without spaces (it is a word of every case name): `kron-20`, `grid-1000x1000`, `roadNet-CA.mtx`. */
  name: string;
  csr: HostCsr;
  stats: GraphStats;
}

/** What the JSON records of each graph. */
export interface GraphStats {
  name: string;
  /** The file it was read from, or the generator and its parameters. */
  file?: string;
  generator?: string;
  vertices: number;
  /** CSR edges (an undirected edge is two arcs), after self-loops were dropped and duplicates merged. */
  arcs: number;
  directed: boolean;
  maxDegree: number;
  /** Vertices with out-degree 0 (never picked as sources). */
  isolated: number;
  /** Weights from the file or generator, or `'generated'` (seeded 1-255, symmetric) for SSSP on an unweighted file. */
  weights: 'file' | 'generator' | 'generated' | 'none';
  /** Host time to read or generate and build the CSR (ms); never part of a measurement. */
  loadMs: number;
}

function graphStats(
  name: string,
  csr: HostCsr,
  origin: { file?: string; generator?: string },
  weights: GraphStats['weights'],
  loadMs: number,
): GraphStats {
  let maxDegree = 0;
  let isolated = 0;
  for (let v = 0; v < csr.vertexCount; v++) {
    const d = csr.offsets[v + 1]! - csr.offsets[v]!;
    if (d > maxDegree) maxDegree = d;
    if (d === 0) isolated++;
  }
  return {
    name,
    ...origin,
    vertices: csr.vertexCount,
    arcs: csr.edgeCount,
    directed: csr.directed,
    maxDegree,
    isolated,
    weights,
    loadMs,
  };
}

export interface GraphSelection {
  graph: readonly string[];
  kron: readonly string[];
  urand: readonly string[];
  rgg: readonly string[];
  grid: readonly string[];
}

export const hasSelection = (s: GraphSelection) =>
  s.graph.length + s.kron.length + s.urand.length + s.rgg.length + s.grid.length > 0;

const integer = (text: string, option: string, min: number, max: number): number => {
  const v = Number(text);
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new Error(`${option}: '${text}' is not an integer in [${min}, ${max}]`);
  }
  return v;
};

/** A `--kron` scale (those past 26 exceed the u32 arc indices of a GPU build: its builder refuses them). */
export const parseKronScale = (text: string): number => integer(text, '--kron', 1, 30);

/**
 * Generates or loads every selected graph (weighted: generators draw u32 weights 1-255, files keep theirs or get
 * seeded symmetric ones, so SSSP runs on every graph). `load` reads a file as `weft run` does.
 */
export async function selectGraphs(
  s: GraphSelection,
  seed: number,
  load: (path: string) => Promise<HostCsr>,
): Promise<BenchGraph[]> {
  const out: BenchGraph[] = [];
  const timed = (f: () => HostCsr) => {
    const start = performance.now();
    const csr = f();
    return { csr, ms: performance.now() - start };
  };
  for (const text of s.kron) {
    const scale = parseKronScale(text);
    const { csr, ms } = timed(
      () => hostCsrFromEdgeList(kronecker({ scale, edgeFactor: 16, seed, weights: true })).csr,
    );
    const name = `kron-${scale}`;
    const generator = `kronecker scale ${scale} edge factor 16 (Graph500 initiator) seed ${seed}`;
    out.push({ name, csr, stats: graphStats(name, csr, { generator }, 'generator', ms) });
  }
  for (const text of s.urand) {
    const scale = integer(text, '--urand', 1, 30);
    const { csr, ms } = timed(
      () => hostCsrFromEdgeList(uniformRandom({ scale, edgeFactor: 16, seed, weights: true })).csr,
    );
    const name = `urand-${scale}`;
    const generator = `uniform random scale ${scale} edge factor 16 (GAP -u) seed ${seed}`;
    out.push({ name, csr, stats: graphStats(name, csr, { generator }, 'generator', ms) });
  }
  for (const text of s.rgg) {
    const n = integer(text, '--rgg', 2, 2 ** 30);
    const { csr, ms } = timed(
      () => hostCsrFromEdgeList(randomGeometric({ n, avgDegree: 8, seed, weights: true })).csr,
    );
    const name = `rgg-${n}`;
    const generator = `random geometric ${n} points average degree 8 seed ${seed}`;
    out.push({ name, csr, stats: graphStats(name, csr, { generator }, 'generator', ms) });
  }
  for (const text of s.grid) {
    const m = /^(\d+)x(\d+)$/.exec(text);
    if (!m) throw new Error(`--grid: '${text}' is not WIDTHxHEIGHT (e.g. 1000x1000)`);
    const width = integer(m[1]!, '--grid width', 1, 2 ** 16);
    const height = integer(m[2]!, '--grid height', 1, 2 ** 16);
    const { csr, ms } = timed(() => hostCsrFromEdgeList(grid({ width, height, seed, weights: true })).csr);
    const name = `grid-${width}x${height}`;
    const generator = `4-neighbour grid ${width} x ${height}, weights seed ${seed}`;
    out.push({ name, csr, stats: graphStats(name, csr, { generator }, 'generator', ms) });
  }
  for (const file of s.graph) {
    const start = performance.now();
    let csr = await load(file);
    const ms = performance.now() - start;
    let weights: GraphStats['weights'] = 'file';
    if (csr.weights === undefined) {
      csr = withSymmetricWeights(csr, seed);
      weights = 'generated';
    }
    const base = file.split('/').pop() ?? file;
    // A word of every case name (anchors match cases by their second word).
    const name = base.replace(/\s+/g, '_');
    out.push({ name, csr, stats: graphStats(name, csr, { file }, weights, ms) });
  }
  const names = out.map((g) => g.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new Error(`graph '${twice}' selected twice`);
  return out;
}

/** Seeded u32 weights in [1, 255], the same for u -> v and v -> u (a hash of the unordered pair). */
export function withSymmetricWeights(csr: HostCsr, seed: number): HostCsr {
  const weights = new Uint32Array(csr.edgeCount);
  for (let u = 0; u < csr.vertexCount; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const v = csr.targets[e]!;
      const [a, b] = u < v ? [u, v] : [v, u];
      let h = Math.imul(a ^ Math.imul(seed, 0x9e3779b1), 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35);
      h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
      weights[e] = 1 + ((h >>> 0) % 255);
    }
  }
  return { ...csr, weights };
}
