import { InputError, type WeftDevice } from '@weft/gpu';
import {
  type BuildOptions,
  type HostCsr,
  type HostWeights,
  hostCsrFromEdgeList,
  uploadGraph,
} from '@weft/graph';
import { testDevice } from '@weft/testing';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { graphColoring } from './coloring.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { maximalIndependentSet } from './mis.ts';
import { minimumSpanningForest } from './mst.ts';
import { mstReference } from './mst-reference.ts';
import { pageRank } from './pagerank.ts';
import { ssspReference } from './sssp/reference.ts';
import { sssp } from './sssp/sssp.ts';
import { undirectedSimple } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';
import { trianglesReference } from './triangles-reference.ts';
import {
  verifyBfs,
  verifyColoring,
  verifyComponents,
  verifyIndependentSet,
  verifyPageRank,
} from './verify.ts';

/*
 * Property-based fuzzing of the algorithms (#28): small random edge lists with random weights (u32, i32, f32:
 * zeros, ties, huge and negative values), ids past the vertex count, self-loops and duplicates kept or merged,
 * directed or not. Every outcome is the TypeScript reference's answer or a one-line InputError where the input
 * is one the algorithm refuses; never a wrong answer or another exception. Graphs stay tiny and one device
 * serves every case, so pipelines are compiled once. WEFT_FUZZ_RUNS sets the case count (CI keeps the default).
 */

const RUNS = Number(process.env.WEFT_FUZZ_RUNS ?? 50);
/** A fixed seed keeps CI reproducible; WEFT_FUZZ_SEED explores others (a failure prints the seed to replay). */
const SEED = Number(process.env.WEFT_FUZZ_SEED ?? 20261127);
const U32_BOUND = 2 ** 32 - 2;
const F32_MAX = 3.4028234663852886e38;

type WeightKind = 'none' | 'u32' | 'i32' | 'f32';

const weightOf: Record<WeightKind, fc.Arbitrary<number>> = {
  none: fc.constant(0),
  u32: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(0, 1, 2, 7) },
    { weight: 4, arbitrary: fc.nat(300) },
    { weight: 1, arbitrary: fc.integer({ min: 2 ** 31, max: 2 ** 32 - 1 }) },
  ),
  i32: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(0, 1, 3) },
    { weight: 4, arbitrary: fc.integer({ min: -2, max: 300 }) },
    { weight: 1, arbitrary: fc.constantFrom(2 ** 31 - 1, 2 ** 30, -(2 ** 31)) },
  ),
  f32: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(0, -0, 0.5, 1, 2.25) },
    { weight: 4, arbitrary: fc.float({ min: 0, max: 100, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(-1.5, 1e38, 3e38, F32_MAX, 1e-40) },
  ),
};

interface Case {
  n: number;
  directed: boolean;
  kind: WeightKind;
  edges: [number, number, number][];
  build: BuildOptions;
  /** One edge's id or weight overwritten with a value the builder must refuse. */
  poison: { at: number; field: 'src' | 'dst' | 'weight'; value: number } | null;
  /** Picks the source and each algorithm's variant. */
  pick: number;
}

const caseArb: fc.Arbitrary<Case> = fc
  .record({
    n: fc.oneof(fc.constantFrom(0, 1, 2), fc.integer({ min: 3, max: 40 })),
    directed: fc.boolean(),
    kind: fc.constantFrom<WeightKind>('none', 'u32', 'i32', 'f32'),
  })
  .chain(({ n, directed, kind }) =>
    fc.record({
      n: fc.constant(n),
      directed: fc.constant(directed),
      kind: fc.constant(kind),
      edges: fc.array(fc.tuple(fc.nat(Math.max(0, n - 1)), fc.nat(Math.max(0, n - 1)), weightOf[kind]), {
        // With no vertices, any edge names one that does not exist.
        maxLength: n === 0 ? 1 : 3 * n,
      }),
      build: fc.record(
        { dedupe: fc.constantFrom('min', 'max', 'first', 'none'), keepSelfLoops: fc.boolean() },
        { requiredKeys: [] },
      ) as fc.Arbitrary<BuildOptions>,
      pick: fc.nat(),
      poison: fc.oneof(
        { weight: 8, arbitrary: fc.constant(null) },
        {
          weight: 1,
          arbitrary: fc.record({
            at: fc.nat(),
            field: fc.constantFrom<'src' | 'dst'>('src', 'dst'),
            value: fc.constantFrom(n, n + 1, 2 ** 32 - 1),
          }),
        },
        {
          weight: 1,
          arbitrary: fc.record({
            at: fc.nat(),
            field: fc.constant<'weight'>('weight'),
            value: fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY),
          }),
        },
      ),
    }),
  )
  .map((c) => {
    const poison = c.poison;
    if (poison === null || c.edges.length === 0) return { ...c, poison: null };
    if (poison.field === 'weight' && c.kind !== 'f32') return { ...c, poison: null };
    const edges = c.edges.map((e) => [...e] as [number, number, number]);
    const e = edges[poison.at % edges.length]!;
    e[poison.field === 'src' ? 0 : poison.field === 'dst' ? 1 : 2] = poison.value;
    return { ...c, edges, poison };
  });

function weightsOf(c: Case): HostWeights | undefined {
  const w = c.edges.map((e) => e[2]);
  if (c.kind === 'u32') return Uint32Array.from(w);
  if (c.kind === 'i32') return Int32Array.from(w);
  if (c.kind === 'f32') return Float32Array.from(w);
  return undefined;
}

/** The error the builder must give, if any: an id past the vertex count, or a weight that is not finite. */
function buildRefusal(c: Case): RegExp | undefined {
  const bad = c.edges.findIndex(([s, d]) => s >= c.n || d >= c.n);
  if (bad >= 0) return /edges\.(src|dst)\[\d+\] = \d+ is not a vertex id/;
  if (c.kind === 'f32' && c.edges.some(([, , w]) => !Number.isFinite(Math.fround(w)))) {
    return /edges\.weights\[\d+\] = \S+ is not a finite number/;
  }
  return undefined;
}

/** Per check, how often it ran and how often it was refused: both must occur for most. */
const tally = new Map<string, { ran: number; refused: number }>();

/** Runs `fn`; an InputError whose one-line message matches `refusal` passes, any other outcome is checked. */
async function expectOutcome<T>(
  what: string,
  fn: () => Promise<T>,
  refusal: RegExp | undefined,
  check: (result: T) => string | null,
): Promise<void> {
  const name = what.split(' ')[0]!;
  const counts = tally.get(name) ?? { ran: 0, refused: 0 };
  tally.set(name, counts);
  if (refusal === undefined) counts.ran++;
  else counts.refused++;
  let result: T;
  try {
    result = await fn();
  } catch (e) {
    if (!(e instanceof InputError)) throw new Error(`${what}: threw ${String(e)}, not an InputError`);
    if (refusal === undefined) throw new Error(`${what}: refused a valid input: ${e.message}`);
    if (!refusal.test(e.message) || e.message.includes('\n')) {
      throw new Error(`${what}: message '${e.message}' does not match ${refusal}`);
    }
    return;
  }
  if (refusal !== undefined) throw new Error(`${what}: ran where ${refusal} was expected`);
  const problem = check(result);
  if (problem !== null) throw new Error(`${what}: ${problem}`);
}

/** Is the graph simple (no loops, no parallel arcs)? Triangles are defined only there. */
function simple(csr: HostCsr): boolean {
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const t = csr.targets[e]!;
      if (t === v || (e > csr.offsets[v]! && csr.targets[e - 1] === t)) return false;
    }
  }
  return true;
}

/** Has an edge a negative weight (self-loops too, unless `skipLoops`: the spanning forest never looks at them)? */
function negativeWeight(csr: HostCsr, skipLoops = false): boolean {
  const w = csr.weights;
  if (w === undefined || w instanceof Uint32Array) return false;
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      if (w[e]! < 0 && !(skipLoops && csr.targets[e] === v)) return true;
    }
  }
  return false;
}

const BALANCES = ['merge-path', 'thread-mapped', 'per-advance'] as const;

async function runCase(device: WeftDevice, c: Case): Promise<void> {
  const edges = {
    vertexCount: c.n,
    src: Uint32Array.from(c.edges, (e) => e[0]),
    dst: Uint32Array.from(c.edges, (e) => e[1]),
    directed: c.directed,
    ...(c.kind === 'none' ? {} : { weights: weightsOf(c)! }),
  };
  const refusal = buildRefusal(c);
  let csr: HostCsr | undefined;
  await expectOutcome(
    'build',
    async () => hostCsrFromEdgeList(edges, c.build).csr,
    refusal,
    (built) => {
      csr = built;
      return null;
    },
  );
  if (csr === undefined) return;
  const g = csr;
  const n = g.vertexCount;
  const pick = c.pick;
  const graph = uploadGraph(device, g, { csc: c.directed });
  try {
    // A source past the last vertex must be refused; one in eight cases tries one.
    const source = pick % 8 === 7 || n === 0 ? n + (pick % 3) : pick % n;
    const badSource = source >= n ? /source: source \d+ is not a vertex/ : undefined;
    const reached = badSource ? undefined : bfsReference(g, source).depths;

    await expectOutcome(
      `bfs from ${source}`,
      () =>
        bfs(graph, source, {
          parents: pick % 2 === 0,
          loadBalance: BALANCES[pick % 3]!,
          ...(pick % 5 === 1 ? { direction: 'auto' as const } : {}),
          ...(pick % 5 === 2 ? { idempotent: true } : {}),
        }),
      badSource,
      (r) => verifyBfs(g, source, r.depths, r.parents),
    );

    let ssspRefusal = badSource;
    let want: Float64Array | undefined;
    if (ssspRefusal === undefined && negativeWeight(g))
      ssspRefusal = /SSSP needs finite non-negative weights/;
    if (ssspRefusal === undefined) {
      want = ssspReference(g, source);
      const bound = g.weights instanceof Float32Array ? F32_MAX : U32_BOUND;
      for (let v = 0; v < n; v++) {
        if (reached![v]! >= 0 && want[v]! >= bound) ssspRefusal = /distance of vertex \d+ reached/;
      }
    }
    await expectOutcome(
      `sssp from ${source}`,
      () =>
        sssp(graph, source, {
          parents: pick % 3 === 0,
          loadBalance: BALANCES[(pick >> 2) % 3]!,
          ...(pick % 4 === 1 ? { delta: 'off' as const } : pick % 4 === 2 ? { delta: 3 } : {}),
        }),
      ssspRefusal,
      (r) => {
        for (let v = 0; v < n; v++) {
          if (r.distances[v] !== want![v])
            return `distance of vertex ${v} is ${r.distances[v]}, expected ${want![v]}`;
        }
        return null;
      },
    );

    const direction = pick % 2 === 0 ? 'pull' : 'push';
    await expectOutcome(
      `pageRank ${direction}`,
      () => pageRank(graph, { direction }),
      negativeWeight(g) ? /PageRank needs finite non-negative weights/ : undefined,
      (r) => (r.converged ? verifyPageRank(g, r.ranks) : 'did not converge'),
    );

    const algorithm = pick % 3 === 0 ? 'label-propagation' : 'union-find';
    await expectOutcome(
      `components (${algorithm})`,
      () => connectedComponents(graph, { algorithm }),
      undefined,
      (r) => {
        const problem = verifyComponents(g, r.labels, r.count);
        if (problem !== null) return problem;
        const labels = componentsReference(g).labels;
        const v = labels.findIndex((l, i) => r.labels[i] !== l);
        return v < 0 ? null : `label of vertex ${v} is ${r.labels[v]}, expected ${labels[v]}`;
      },
    );

    await expectOutcome(
      'minimumSpanningForest',
      () => minimumSpanningForest(graph),
      negativeWeight(g, true) ? /minimumSpanningForest needs non-negative weights/ : undefined,
      (r) => {
        const ref = mstReference(g);
        if (r.trees !== ref.trees) return `${r.trees} trees, expected ${ref.trees}`;
        if (r.edges.length !== ref.edges.length || r.edges.some((e, i) => e !== ref.edges[i])) {
          return `forest edges ${[...r.edges]}, expected ${[...ref.edges]}`;
        }
        const weight = g.weights instanceof Float32Array ? Math.fround(ref.weight) : ref.weight;
        const got = g.weights instanceof Float32Array ? Math.fround(r.weight) : r.weight;
        return got === weight ? null : `weight ${r.weight}, expected ${ref.weight}`;
      },
    );

    // Triangles, MIS and colouring read a directed graph as the simple undirected graph of its arcs.
    const ug = c.directed ? undirectedSimple(g) : g;
    const said = (r: { undirected: boolean }) =>
      r.undirected === c.directed ? null : `undirected: ${r.undirected}, expected ${c.directed}`;
    if (simple(g) || c.directed) {
      await expectOutcome(
        'triangleCount',
        () => triangleCount(graph),
        undefined,
        (r) => {
          const want = trianglesReference(ug);
          return said(r) ?? (r.count === want ? null : `${r.count} triangles, expected ${want}`);
        },
      );
    }
    const seed = 1 + (pick % 7);
    await expectOutcome(
      `maximalIndependentSet (seed ${seed})`,
      () => maximalIndependentSet(graph, { seed }),
      undefined,
      (r) => said(r) ?? verifyIndependentSet(ug, r.inSet),
    );
    await expectOutcome(
      `graphColoring (seed ${seed})`,
      () => graphColoring(graph, { seed }),
      undefined,
      (r) => said(r) ?? verifyColoring(ug, r.colors),
    );
  } finally {
    graph.destroy();
  }
}

describe('algorithms under property-based random graphs', () => {
  it(`${RUNS} random graphs: every algorithm gives the reference's answer or a one-line InputError`, async () => {
    const device = await testDevice();
    tally.clear();
    await fc.assert(
      fc.asyncProperty(caseArb, (c) => device.scoped('fuzz case', () => runCase(device, c))),
      { numRuns: RUNS, seed: SEED },
    );
    if (process.env.WEFT_FUZZ_RUNS !== undefined) console.log(Object.fromEntries(tally));
    // Shrinking reruns cases, so the counts hold only for a passing run: most graphs build and run everything;
    // rare refusals (a negative weight for the spanning forest) need longer runs to show.
    const build = tally.get('build')!;
    expect(build.ran).toBeGreaterThan(RUNS / 2);
    expect(build.refused).toBeGreaterThan(0);
    for (const name of ['bfs', 'sssp']) {
      expect(tally.get(name)!.refused, name).toBeGreaterThan(0);
    }
  }, 600_000);
});
