import {
  bfs,
  componentsReference,
  ssspDelta,
  ssspReference,
  connectedComponents as staticComponents,
  pageRank as staticPageRank,
  sssp as staticSssp,
  triangleCount as staticTriangles,
  verifyPageRank,
} from '@weft/algorithms';
import {
  type BulkBuild,
  DynamicComponents,
  DynamicGraph,
  DynamicPageRank,
  DynamicSssp,
  dynamicTriangleCount,
  KEY_SLOTS,
  type Probing,
} from '@weft/dynamic';
import type { DeviceArray, Recorder, WeftDevice } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker, randomGeometric } from '@weft/graph/generators';
import { releaseNeighborParts } from '@weft/operators';
import { mulberry32 } from '@weft/testing/random';
import type { BenchCase, BenchInstance } from '../types.ts';
import { firstMismatch } from '../validate.ts';

/*
 * Dynamic graphs, after Awad et al., "Dynamic Graphs on the GPU" (IPDPS 2020), §VI. `n` is the batch size
 * (edges per insertion or deletion batch; vertices per vertex batch are n / 16), 2^16..2^22 on a GPU, any
 * of them chosen by `--sizes` (cases independent of `n` run once, at the smallest size chosen). The cases
 * reproducing a row of the paper's evaluation name it (`paperRow`), state their setup, and are compared
 * with the paper's figure (anchors/awad2020.json) at the paper's batch size. Every timed region holds GPU
 * work only, on GPU-resident inputs, timed by GPU timestamps; tables are allocated before it (their
 * allocation is its own case). Workloads:
 *
 * - edge insertion / deletion / query rates into a loaded undirected Kronecker graph, both probing paths;
 * - vertex deletion rate;
 * - bulk build time and incremental build rate (tables sized from the final degrees, as in the paper) for
 *   a Kronecker and a road-like random geometric graph;
 * - triangle counting, static and after each of five insertion batches;
 * - incremental SSSP after an insertion batch, against recomputation from scratch;
 * - incremental connected components after an insertion or a deletion batch, against recomputation;
 * - PageRank warm-started from the ranks before an insertion batch, against a cold start.
 * - BFS, SSSP, PageRank, connected components and triangle counting straight on the tables, beside the
 *   same run on a CSR snapshot.
 *
 * On a GPU the graphs are soc-LiveJournal1-sized (Kronecker scale 22, edge factor 10: 4.2 M vertices, about
 * 80 M arcs; a random geometric graph of 5 M points, average degree 17: about 85 M arcs); on software
 * adapters small (the default run stays within seconds). Every measurement is validated: degrees in full,
 * edges by samples of a few thousand per state (exact by construction: batches are distinct new edges).
 */

interface Scale {
  kronScale: number;
  kronEdgeFactor: number;
  rggPoints: number;
  rggDegree: number;
  /** Triangle counting runs on a smaller Kronecker graph (hub pairs make it the slowest workload). */
  triangleScale: number;
  /** New edges prepared per rate case: each timed submit's runs take distinct batches from them. */
  poolEdges: number;
  /** The size at which the cases that do not depend on `n` (bulk build, triangles) run. */
  onlyAt: number;
}

const GPU_SCALE: Scale = {
  kronScale: 22,
  kronEdgeFactor: 10,
  rggPoints: 5_000_000,
  rggDegree: 17,
  triangleScale: 20,
  // A submit holds about 20 ms of runs: 8 batches of 2^22 edges cover up to 1.7 G edges/s per run.
  poolEdges: 2 ** 25,
  onlyAt: 2 ** 16,
};

const SOFTWARE_SCALE: Scale = {
  kronScale: 10,
  kronEdgeFactor: 10,
  rggPoints: 2048,
  rggDegree: 10,
  triangleScale: 8,
  poolEdges: 2 ** 13,
  onlyAt: 2 ** 10,
};

function scaleOf(device: WeftDevice): Scale {
  return device.adapter.software ? SOFTWARE_SCALE : GPU_SCALE;
}

/** Samples per validated set of edges. */
const SAMPLES = 2048;

// ---- host graphs and batches (cached across cases: generating a LiveJournal-sized graph takes seconds) ----

const hostCache = new Map<string, unknown>();
function cached<T>(key: string, make: () => T): T {
  if (!hostCache.has(key)) hostCache.set(key, make());
  return hostCache.get(key) as T;
}

type GraphName = 'kronecker' | 'rgg';

/** Undirected CSR (both directions listed, no self-loops or duplicates), with u32 weights in [1, 255]. */
function hostGraph(scale: Scale, name: GraphName | 'triangles'): HostCsr {
  return cached(`${name}/${scale.kronScale}/${scale.rggPoints}`, () => {
    if (name === 'rgg') {
      const g = randomGeometric({ n: scale.rggPoints, avgDegree: scale.rggDegree, seed: 1 });
      return hostCsrFromEdgeList({ vertexCount: g.vertexCount, src: g.src, dst: g.dst, directed: false }).csr;
    }
    const s = name === 'triangles' ? scale.triangleScale : scale.kronScale;
    return hostCsrFromEdgeList(
      kronecker({ scale: s, edgeFactor: scale.kronEdgeFactor, seed: 1, weights: true }),
    ).csr;
  });
}

/** The graph as the setup lines state it. */
function describeGraph(scale: Scale, name: GraphName | 'triangles', csr: HostCsr): string {
  const shape =
    name === 'rgg'
      ? `random geometric graph, ${scale.rggPoints} points, average degree ${scale.rggDegree}`
      : `Kronecker scale ${name === 'triangles' ? scale.triangleScale : scale.kronScale}, edge factor ${scale.kronEdgeFactor}`;
  return `${shape}: ${csr.vertexCount} vertices, ${csr.edgeCount} arcs, undirected`;
}

/** Tables as `DynamicGraph.fromCsr` sizes them. */
const HINTED_TABLES = 'tables sized from the degrees (degree hints), load factor 0.7';

function unweighted(csr: HostCsr): HostCsr {
  const { vertexCount, edgeCount, offsets, targets, directed } = csr;
  return { vertexCount, edgeCount, offsets, targets, directed };
}

function degreesOf(csr: HostCsr): Uint32Array {
  return Uint32Array.from({ length: csr.vertexCount }, (_, v) => csr.offsets[v + 1]! - csr.offsets[v]!);
}

function hasArc(csr: HostCsr, u: number, v: number): boolean {
  let lo = csr.offsets[u]!;
  const end = csr.offsets[u + 1]!;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (csr.targets[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && csr.targets[lo] === v;
}

interface Edges {
  src: Uint32Array;
  dst: Uint32Array;
}

/**
 * `count` distinct undirected edges absent from `csr` (no self-loops), in random order: every batch cut
 * from them inserts only new edges, and the expected graph after any set of batches is known exactly.
 */
function newEdges(csr: HostCsr, count: number, seed: number, connectedOnly = false): Edges {
  const rand = mulberry32(seed);
  const n = csr.vertexCount;
  let size = 1;
  while (size < 2 * count) size *= 2;
  const mask = size - 1;
  // Open addressing over (min, max) pairs: a JS Set of 16 M keys would be far larger.
  const ka = new Uint32Array(size).fill(0xffffffff);
  const kb = new Uint32Array(size);
  const src = new Uint32Array(count);
  const dst = new Uint32Array(count);
  for (let i = 0; i < count; ) {
    const u = Math.floor(rand() * n);
    const v = Math.floor(rand() * n);
    if (u === v || hasArc(csr, u, v)) continue;
    if (connectedOnly && (csr.offsets[u] === csr.offsets[u + 1] || csr.offsets[v] === csr.offsets[v + 1])) {
      continue;
    }
    const a = Math.min(u, v);
    const b = Math.max(u, v);
    let h = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b + 0x632be5ab, 0x85ebca77)) & mask;
    let seen = false;
    while (ka[h] !== 0xffffffff) {
      if (ka[h] === a && kb[h] === b) {
        seen = true;
        break;
      }
      h = (h + 1) & mask;
    }
    if (seen) continue;
    ka[h] = a;
    kb[h] = b;
    src[i] = u;
    dst[i] = v;
    i++;
  }
  return { src, dst };
}

/** `count` new edges of the named graph, cached (the rate cases at every size share one pool). */
function edgePool(scale: Scale, csr: HostCsr, name: string, seed: number, count: number): Edges {
  return cached(`pool/${name}/${scale.kronScale}/${scale.rggPoints}/${seed}/${count}`, () =>
    newEdges(csr, count, seed),
  );
}

function slice(e: Edges, from: number, to: number): Edges {
  return { src: e.src.subarray(from, to), dst: e.dst.subarray(from, to) };
}

function concat(parts: Edges[]): Edges {
  const total = parts.reduce((s, p) => s + p.src.length, 0);
  const out = { src: new Uint32Array(total), dst: new Uint32Array(total) };
  let at = 0;
  for (const p of parts) {
    out.src.set(p.src, at);
    out.dst.set(p.dst, at);
    at += p.src.length;
  }
  return out;
}

/** Up to SAMPLES evenly spread items of `e`. */
function sample(e: Edges): Edges {
  const step = Math.max(1, Math.floor(e.src.length / SAMPLES));
  const idx = Array.from({ length: Math.min(SAMPLES, e.src.length) }, (_, i) => i * step);
  return { src: Uint32Array.from(idx, (i) => e.src[i]!), dst: Uint32Array.from(idx, (i) => e.dst[i]!) };
}

/** Checks that the sampled edges of `e` exist (or not) in both directions. */
async function expectEdges(graph: DynamicGraph, e: Edges, present: boolean, what: string) {
  if (e.src.length === 0) return null;
  const s = sample(e);
  const want = new Uint32Array(s.src.length).fill(present ? 1 : 0);
  const forward = firstMismatch(await graph.edgeExists(s.src, s.dst), want);
  if (forward) return `${what} (${present ? 'present' : 'absent'}): ${forward}`;
  const backward = firstMismatch(await graph.edgeExists(s.dst, s.src), want);
  return backward ? `${what} reversed: ${backward}` : null;
}

/** Arcs of the CSR as an edge list (both directions, as listed). */
function arcsOf(csr: HostCsr): Edges {
  const src = new Uint32Array(csr.edgeCount);
  for (let v = 0; v < csr.vertexCount; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  return { src, dst: csr.targets };
}

/** The graph's degrees equal `csr`'s plus one per endpoint of `extra` edges (both known distinct). */
async function expectDegrees(graph: DynamicGraph, csr: HostCsr, extra: Edges[]): Promise<string | null> {
  const want = degreesOf(csr);
  for (const e of extra) {
    for (let i = 0; i < e.src.length; i++) {
      want[e.src[i]!]!++;
      want[e.dst[i]!]!++;
    }
  }
  const m = firstMismatch(await graph.degrees(), want);
  return m ? `degrees: ${m}` : null;
}

async function firstProblem(checks: (() => Promise<string | null>)[]): Promise<string | null> {
  for (const c of checks) {
    const problem = await c();
    if (problem !== null) return problem;
  }
  return null;
}

// ---- edge insertion, deletion and query rates ----

const MAX_RUNS_PER_SUBMIT = 400;

/**
 * A case whose runs each need their own prepared batch. `maxRunsPerSubmit` asks the harness to record at
 * most that many runs into one timed submit (the batches are undone between submits, untimed); a harness
 * that ignores it may pack more, and `validate` then fails the measurement rather than time repeats.
 */
type SlotInstance = BenchInstance & { readonly maxRunsPerSubmit: number };

/**
 * Insert (or delete) batches of n new edges into the loaded Kronecker graph. The harness records several
 * runs into one timed submit; each run takes its own batch of distinct new edges, so every run claims (or
 * tombstones) n keys per direction. When a new submit begins, the batches of the previous one are undone
 * in a separate, untimed submit. Before timing, every batch was inserted once (and, for insertion, deleted
 * again), so the chains the batches need exist: timed runs need no new slabs, as in the paper's runs into
 * a loaded graph. `variant` times an alternative beside the default: insertion in batch order
 * (`DynamicGraph.insertionOrder`), or the subgroup deletion kernel that claims in each round (`deleteClaims`).
 */
function edgeRateCase(
  op: 'insert' | 'delete',
  probing: Probing,
  variant?: 'batch order' | 'claims each round',
): BenchCase {
  return {
    name: `dynamic ${op} edges (${probing} probing${variant ? `, ${variant}` : ''})`,
    family: 'dynamic',
    ...(variant ? {} : { paperRow: op === 'insert' ? 'edge insertion' : 'edge deletion' }),
    maxItems: (device) => scaleOf(device).poolEdges / 2,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, 'kronecker'));
      const slots = Math.max(2, Math.min(MAX_RUNS_PER_SUBMIT, Math.floor(scale.poolEdges / n)));
      const pool = edgePool(scale, csr, 'kronecker', seed, slots * n);
      const graph = await DynamicGraph.fromCsr(device, csr, { probing });
      if (variant === 'batch order') graph.insertionOrder = 'batch';
      if (variant === 'claims each round') graph.deleteClaims = 'each-round';
      const batches = Array.from({ length: slots }, (_, k) => slice(pool, k * n, (k + 1) * n));
      const onGpu = uploadBatches(device, pool, n);
      await graph.insertEdges(pool.src, pool.dst);
      if (op === 'insert') await graph.deleteEdges(pool.src, pool.dst);
      // done[k]: batch k was inserted (deleted) by a run since the last undo.
      const done = new Uint8Array(slots);
      let current: Recorder | undefined;
      let runsInSubmit = 0;
      let mostRuns = 0;
      // One submit from the batches already on the GPU. Re-inserting deleted edges needs no new slabs (their
      // tombstones are still in the chains).
      const undo = async () => {
        const rec = device.recorder({ label: 'dynamic bench undo' });
        for (let k = 0; k < slots; k++) {
          if (done[k] !== 1) continue;
          const b = onGpu[k]!;
          if (op === 'insert') await graph.deleteEdges(b.src, b.dst, { recorder: rec });
          else await graph.insertEdges(b.src, b.dst, undefined, { recorder: rec, maxNewSlabs: 0 });
        }
        await rec.submit();
        done.fill(0);
      };
      const instance: SlotInstance = {
        items: n,
        // Per edge and direction: the batch ids read (8 B), one key slot written (4 B), the degree (4 B).
        bytes: n * 2 * 16,
        setup: `${describeGraph(scale, 'kronecker', csr)}, built from its CSR, ${HINTED_TABLES}; batches of ${n} ${op === 'insert' ? 'new' : 'present'} edges (${2 * n} arcs) on the GPU, ${probing} probing${variant ? `, ${variant}` : ''}, chains pre-grown (no allocation in the timed batches)`,
        async run(rec) {
          if (rec !== current) {
            await undo();
            current = rec;
            runsInSubmit = 0;
          }
          const k = runsInSubmit++ % slots;
          mostRuns = Math.max(mostRuns, runsInSubmit);
          if (op === 'insert') {
            await graph.insertEdges(onGpu[k]!.src, onGpu[k]!.dst, undefined, {
              recorder: rec,
              maxNewSlabs: 0,
            });
          } else {
            await graph.deleteEdges(onGpu[k]!.src, onGpu[k]!.dst, { recorder: rec });
          }
          done[k] = 1;
        },
        async validate() {
          if (mostRuns > slots) {
            return `a timed submit held ${mostRuns} runs but ${slots} distinct batches were prepared (maxRunsPerSubmit): later runs repeated a batch`;
          }
          await graph.check();
          const present = batches.filter((_, k) => (done[k] === 1) === (op === 'insert'));
          const absent = batches.filter((_, k) => (done[k] === 1) !== (op === 'insert'));
          return firstProblem([
            () => expectDegrees(graph, csr, present),
            () => expectEdges(graph, concat(present.slice(0, 4)), true, 'batch edges'),
            () => expectEdges(graph, concat(absent.slice(0, 4)), false, 'batch edges'),
            () => expectEdges(graph, arcsOf(csr), true, 'graph edges'),
          ]);
        },
        destroy() {
          destroyBatches(onGpu);
          graph.destroy();
        },
        maxRunsPerSubmit: slots,
      };
      return instance;
    },
  };
}

/** Edge queries: half of them edges of the graph, half new edges. */
function queryCase(probing: Probing): BenchCase {
  return {
    name: `dynamic edge queries (${probing} probing)`,
    family: 'dynamic',
    maxItems: (device) => scaleOf(device).poolEdges,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, 'kronecker'));
      const graph = await DynamicGraph.fromCsr(device, csr, { probing });
      const q = edgePool(scale, csr, 'kronecker', seed, n);
      const query = { src: q.src.slice(), dst: q.dst.slice() };
      const want = new Uint32Array(n);
      const arcs = arcsOf(csr);
      const rand = mulberry32(seed + 1);
      for (let i = 0; i < n && arcs.src.length > 0; i += 2) {
        const e = Math.floor(rand() * arcs.src.length);
        query.src[i] = arcs.src[e]!;
        query.dst[i] = arcs.dst[e]!;
        want[i] = 1;
      }
      const src = device.upload(query.src);
      const dst = device.upload(query.dst);
      const found = device.array('u32', n, { label: 'query found' });
      return {
        items: n,
        bytes: n * 12,
        run: (rec) => graph.queryEdgesOnDevice(rec, src, dst, found),
        validate: async () => firstMismatch(await found.download(), want),
        destroy() {
          for (const a of [src, dst, found]) a.destroy();
          graph.destroy();
        },
      };
    },
  };
}

// ---- vertex deletion ----

/**
 * Deleting batches of n / 16 random vertices (every edge touching them: in this undirected graph, the reverse
 * keys found through the deleted vertices' own tables) from the loaded Kronecker graph. Like the edge cases, each run of a submit takes its own
 * batch of vertices, and the vertices and their edges come back in an untimed submit before the next one.
 * `how` picks `DynamicGraph.vertexDeletion`: the batch prepared on the GPU (the paper's row) or on the host.
 */
const vertexDeletionCase = (how: 'device' | 'host'): BenchCase => ({
  name: `dynamic delete vertices${how === 'host' ? ' (host batches)' : ''}`,
  family: 'dynamic',
  ...(how === 'device' ? { paperRow: 'vertex deletion' } : {}),
  // n / 16 vertices a batch, at least 8 disjoint batches within half of the vertices on a GPU.
  maxItems: (device) => 2 ** scaleOf(device).kronScale * (device.adapter.software ? 8 : 1),
  async setup(device, n, seed): Promise<BenchInstance> {
    const scale = scaleOf(device);
    const csr = unweighted(hostGraph(scale, 'kronecker'));
    const per = Math.max(1, n >> 4);
    const slots = Math.max(1, Math.min(MAX_RUNS_PER_SUBMIT, Math.floor(csr.vertexCount / 2 / per)));
    // Disjoint random vertex sets.
    const rand = mulberry32(seed);
    const order = Uint32Array.from({ length: csr.vertexCount }, (_, v) => v);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [order[i], order[j]] = [order[j]!, order[i]!];
    }
    const batches = Array.from({ length: slots }, (_, k) =>
      Array.from(order.subarray(k * per, (k + 1) * per)),
    );
    const graph = await DynamicGraph.fromCsr(device, csr);
    graph.vertexDeletion = how;
    const done = new Uint8Array(slots);
    let current: Recorder | undefined;
    let runsInSubmit = 0;
    let mostRuns = 0;
    const rowsOf = (ids: number[]): Edges => {
      const parts = ids.map((v) => {
        const row = csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!);
        return { src: new Uint32Array(row.length).fill(v), dst: row };
      });
      return concat(parts);
    };
    const undo = async () => {
      const ids = batches.filter((_, k) => done[k] === 1).flat();
      if (ids.length === 0) return;
      await graph.insertVertices(ids);
      const back = rowsOf(ids);
      await graph.insertEdges(back.src, back.dst);
      done.fill(0);
    };
    const instance: SlotInstance = {
      items: per,
      // The deleted vertices' base slabs, read twice (unlink, clear); collision slabs and probes not counted.
      bytes: 0,
      setup: `${describeGraph(scale, 'kronecker', csr)}, built from its CSR, ${HINTED_TABLES}; batches of ${per} random vertices (ids written before the submit, batches prepared ${how === 'device' ? 'on the GPU' : 'on the host'}), their edges and reverse edges removed`,
      async run(rec) {
        if (rec !== current) {
          await undo();
          current = rec;
          runsInSubmit = 0;
        }
        const k = runsInSubmit++ % slots;
        mostRuns = Math.max(mostRuns, runsInSubmit);
        await graph.deleteVertices(batches[k]!, { recorder: rec });
        done[k] = 1;
      },
      async validate() {
        if (mostRuns > slots) {
          return `a timed submit held ${mostRuns} runs but ${slots} disjoint vertex batches were prepared (maxRunsPerSubmit)`;
        }
        await graph.check();
        const gone = new Uint8Array(csr.vertexCount);
        for (let k = 0; k < slots; k++) if (done[k]) for (const v of batches[k]!) gone[v] = 1;
        const want = degreesOf(csr);
        for (let v = 0; v < csr.vertexCount; v++) {
          if (!gone[v]) continue;
          want[v] = 0;
          for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
            const w = csr.targets[e]!;
            if (!gone[w]) want[w]!--;
          }
        }
        const degrees = firstMismatch(await graph.degrees(), want);
        if (degrees) return `degrees: ${degrees}`;
        for (let v = 0; v < csr.vertexCount; v++) {
          if (graph.hasVertex(v) === (gone[v] === 1))
            return `vertex ${v}: hasVertex is ${graph.hasVertex(v)}`;
        }
        return null;
      },
      destroy: () => graph.destroy(),
      maxRunsPerSubmit: slots,
    };
    return instance;
  },
});

// ---- allocation, bulk and incremental build ----

/** Each undirected edge of `csr` once (u < v): in CSR order, or shuffled (typed arrays: 40 M edges on a GPU). */
function edgesOnce(scale: Scale, csr: HostCsr, name: GraphName, seed: number, shuffled: boolean): Edges {
  const key = `edges/${name}/${scale.kronScale}/${scale.rggPoints}/${shuffled ? seed : 'csr'}`;
  return cached(key, () => {
    const src = new Uint32Array(csr.edgeCount >> 1);
    const dst = new Uint32Array(csr.edgeCount >> 1);
    let m = 0;
    for (let u = 0; u < csr.vertexCount; u++) {
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const v = csr.targets[e]!;
        if (u < v) {
          src[m] = u;
          dst[m] = v;
          m++;
        }
      }
    }
    if (shuffled) {
      const rand = mulberry32(seed);
      for (let i = m - 1; i > 0; i--) {
        const j = Math.floor(rand() * (i + 1));
        const u = src[i]!;
        const v = dst[i]!;
        src[i] = src[j]!;
        dst[i] = dst[j]!;
        src[j] = u;
        dst[j] = v;
      }
    }
    return { src: src.subarray(0, m), dst: dst.subarray(0, m) };
  });
}

/**
 * A fresh empty graph for one build, allocated and initialized outside the timed region: with `hints`, tables
 * sized from the final degrees; without, one base bucket per vertex and room in the pool for the chains the
 * build will link. The collision slabs the build may take are reserved up front, so the recorded batches
 * never need the pool to grow (an overflow would still be caught by `check()`).
 */
async function emptyGraph(
  device: WeftDevice,
  csr: HostCsr,
  hints: boolean,
  grow = false,
): Promise<DynamicGraph> {
  if (grow) {
    // Tables grown as edges arrive take new base slabs (twice the final ones over the doublings, about
    // arcs / 28 at the end) and a spare slab a 30 keys moved; old tables return to the free list.
    const room = Math.ceil(0.12 * csr.edgeCount);
    const most = Math.floor(device.limits.maxStorageBufferBindingSize / 128);
    const g = await DynamicGraph.create(device, {
      vertexCount: csr.vertexCount,
      directed: false,
      autoRehash: true,
      slabCapacity: Math.min(csr.vertexCount + room + 64, most),
    });
    // Recorded batches grow tables only into room reserved beforehand.
    await g.reserveSlabs(Math.min(room, most - csr.vertexCount - 64));
    return g;
  }
  // Without hints a vertex of degree d links about d / KEY_SLOTS slabs; twice that covers partly filled ones.
  const chains = hints
    ? Math.ceil(csr.edgeCount / (2 * KEY_SLOTS))
    : Math.ceil((2 * csr.edgeCount) / KEY_SLOTS);
  const g = await DynamicGraph.create(device, {
    vertexCount: csr.vertexCount,
    directed: false,
    ...(hints ? { degreeHints: degreesOf(csr) } : { slabCapacity: csr.vertexCount + chains + 64 }),
  });
  await g.reserveSlabs(chains);
  return g;
}

/**
 * A build case: each timed submit holds one build (every edge of the graph inserted, in `batch`-edge batches
 * recorded back to back) into a graph allocated just before, untimed; the previous build is freed then.
 */
function buildInstance(
  device: WeftDevice,
  csr: HostCsr,
  edges: Edges,
  batch: number,
  hints: boolean,
  setup: string,
  grow = false,
): SlotInstance {
  const batches = uploadBatches(device, edges, batch);
  let built: DynamicGraph | undefined;
  let current: Recorder | undefined;
  let mostRuns = 0;
  let runsInSubmit = 0;
  return {
    items: edges.src.length,
    // Per edge and direction: the batch ids read (8 B), one key slot written (4 B), the degree (4 B).
    bytes: edges.src.length * 2 * 16,
    setup,
    async run(rec) {
      if (rec !== current) {
        current = rec;
        runsInSubmit = 0;
        built?.destroy();
        built = await emptyGraph(device, csr, hints, grow);
      }
      mostRuns = Math.max(mostRuns, ++runsInSubmit);
      for (const b of batches) {
        await built!.insertEdges(b.src, b.dst, undefined, { recorder: rec, maxNewSlabs: 0 });
      }
    },
    async validate() {
      const g = built;
      if (!g) return 'nothing was built';
      if (mostRuns > 1)
        return `a timed submit held ${mostRuns} builds into one graph (maxRunsPerSubmit is 1)`;
      return builtGraphProblem(g, csr);
    },
    destroy() {
      built?.destroy();
      destroyBatches(batches);
    },
    maxRunsPerSubmit: 1,
  };
}

type DeviceBatch = { src: DeviceArray<'u32'>; dst: DeviceArray<'u32'> };

/** The edges uploaded in consecutive batches of `batch`. */
function uploadBatches(device: WeftDevice, edges: Edges, batch: number): DeviceBatch[] {
  const batches: DeviceBatch[] = [];
  for (let at = 0; at < edges.src.length; at += batch) {
    const b = slice(edges, at, Math.min(at + batch, edges.src.length));
    batches.push({ src: device.upload(b.src), dst: device.upload(b.dst) });
  }
  return batches;
}

function destroyBatches(batches: DeviceBatch[]) {
  for (const b of batches) {
    b.src.destroy();
    b.dst.destroy();
  }
}

/** Null when a build's tables are sound and hold exactly the graph's edges, else the first difference. */
async function builtGraphProblem(g: DynamicGraph, csr: HostCsr): Promise<string | null> {
  await g.check();
  return firstProblem([
    () => expectDegrees(g, csr, []),
    () => expectEdges(g, arcsOf(csr), true, 'graph edges'),
  ]);
}

/**
 * Allocation and initialization of an empty graph's tables sized from the Kronecker graph's degrees (what the
 * bulk build's timed region leaves out): buffers created, slabs filled, base buckets handed out. Wall time.
 */
const allocationCase: BenchCase = {
  name: 'dynamic allocate tables kronecker',
  family: 'dynamic',
  once: true,
  async setup(device): Promise<BenchInstance> {
    const scale = scaleOf(device);
    const csr = unweighted(hostGraph(scale, 'kronecker'));
    let built: DynamicGraph | undefined;
    return {
      items: csr.vertexCount,
      bytes: 0,
      hostTimed: true,
      setup: `${describeGraph(scale, 'kronecker', csr)}; ${HINTED_TABLES}, room for the bulk build's chains; wall time of DynamicGraph.create and reserveSlabs`,
      async run() {
        built?.destroy();
        built = await emptyGraph(device, csr, true);
      },
      async validate() {
        if (!built) return 'nothing was allocated';
        const degrees = await built.degrees();
        return degrees.some((d) => d !== 0) ? 'a fresh graph has edges' : null;
      },
      destroy() {
        built?.destroy();
      },
    };
  },
};

/**
 * A placement build (`DynamicGraph.fromDeviceGraph`'s path) from the CSR on the GPU: each timed submit holds
 * the recorded passes (count, scan, place, link) into tables allocated just before, untimed; the status is
 * read back afterwards, untimed, and a build that fell back to insertion fails validation.
 */
function placementInstance(device: WeftDevice, csr: HostCsr, setup: string): SlotInstance {
  const graph = uploadGraph(device, csr);
  const arrays = {
    vertexCount: graph.vertexCount,
    edgeCount: graph.edgeCount,
    directed: graph.directed,
    offsets: graph.offsets,
    targets: graph.targets,
  };
  let build: BulkBuild | undefined;
  let outcome: Promise<'placed' | 'inserted'> | undefined;
  let current: Recorder | undefined;
  const finish = () => {
    outcome ??= build?.finish();
    return outcome;
  };
  return {
    // Arcs, as the paper's bulk-build figure counts them.
    items: csr.edgeCount,
    // Per arc: the target read twice (8 B), its rank written and read (8 B), one key slot written (4 B).
    bytes: csr.edgeCount * 20,
    setup,
    async run(rec) {
      if (rec === current) throw new Error('a timed submit held two builds (maxRunsPerSubmit is 1)');
      current = rec;
      await finish();
      build?.graph.destroy();
      outcome = undefined;
      build = await DynamicGraph.bulkBuild(device, arrays, {}, 'bench');
      await build.record(rec);
    },
    async validate() {
      const b = build;
      if (!b) return 'nothing was built';
      if ((await finish()) !== 'placed') return 'the build fell back to insertion';
      await b.graph.check();
      return firstProblem([
        () => expectDegrees(b.graph, csr, []),
        () => expectEdges(b.graph, arcsOf(csr), true, 'graph edges'),
      ]);
    },
    destroy() {
      build?.graph.destroy();
      graph.destroy();
    },
    maxRunsPerSubmit: 1,
  };
}

/**
 * Bulk build: every edge of the graph into empty tables sized from the degrees, as the paper's bulk build
 * from a CSR. `placement`: the CSR's arcs placed straight into their slots (what `fromCsr` and
 * `fromDeviceGraph` run on rows of distinct keys); `insertion`: one insertion batch of every edge (CSR
 * order, each undirected edge once, both directions inserted), what the bulk build was before.
 */
function bulkBuildCase(name: GraphName, path: 'placement' | 'insertion'): BenchCase {
  return {
    name: `dynamic bulk build ${name}${path === 'insertion' ? ' by insertion' : ''}`,
    family: 'dynamic',
    once: true,
    ...(name === 'kronecker' && path === 'placement' ? { paperRow: 'bulk build' } : {}),
    async setup(device, _n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, name));
      if (path === 'placement') {
        const setup = `${describeGraph(scale, name, csr)}; placement of the ${csr.edgeCount} arcs from the CSR on the GPU, ${HINTED_TABLES}; allocation untimed (dynamic allocate tables)`;
        return placementInstance(device, csr, setup);
      }
      const edges = edgesOnce(scale, csr, name, seed, false);
      const setup = `${describeGraph(scale, name, csr)}; one insertion batch of ${edges.src.length} edges (${csr.edgeCount} arcs) in CSR order on the GPU, ${HINTED_TABLES}; allocation untimed (dynamic allocate tables)`;
      return buildInstance(device, csr, edges, edges.src.length, true, setup);
    },
  };
}

/**
 * Incremental build: the graph's edges (each once, in random order) inserted in batches of n into an empty
 * graph, all batches of a build in one timed submit; with degree hints (tables sized from the final degrees,
 * as in the paper) or without (one base bucket per vertex, chains linked as edges arrive).
 * Rate = edges per second.
 */
function incrementalBuildCase(name: GraphName, hints: boolean, grow = false): BenchCase {
  return {
    name: `dynamic incremental build ${name}${hints ? '' : ' without hints'}${grow ? ' (grown on the GPU)' : ''}`,
    family: 'dynamic',
    ...(name === 'kronecker' ? { paperRow: 'incremental build' } : {}),
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, name));
      const edges = edgesOnce(scale, csr, name, seed, true);
      const tables = hints
        ? HINTED_TABLES
        : `no degree hints (one base bucket per vertex${grow ? ', autoRehash: tables grown on the GPU before each batch' : ''})`;
      const setup = `${describeGraph(scale, name, csr)}; ${edges.src.length} edges in random order, batches of ${n} on the GPU, ${tables}; allocation untimed`;
      return buildInstance(device, csr, edges, n, hints, setup, grow);
    },
  };
}

/**
 * Incremental build without hints as an application runs it: each batch submitted on its own, with
 * `autoRehash` growing the tables whose chains the batches lengthened (the rehash reads its plan back, so
 * this is wall time, and it includes allocating the empty graph).
 */
const autoRehashBuildCase: BenchCase = {
  name: 'dynamic incremental build kronecker without hints (autoRehash)',
  family: 'dynamic',
  async setup(device, n, seed): Promise<BenchInstance> {
    const scale = scaleOf(device);
    const csr = unweighted(hostGraph(scale, 'kronecker'));
    const edges = edgesOnce(scale, csr, 'kronecker', seed, true);
    const batches = uploadBatches(device, edges, n);
    let built: DynamicGraph | undefined;
    return {
      items: edges.src.length,
      bytes: 0,
      hostTimed: true,
      setup: `${describeGraph(scale, 'kronecker', csr)}; ${edges.src.length} edges in random order, batches of ${n} each submitted alone, one base bucket per vertex, autoRehash on; allocation inside the wall time`,
      async run() {
        built?.destroy();
        built = await emptyGraph(device, csr, false);
        built.autoRehash = true;
        for (const b of batches) await built.insertEdges(b.src, b.dst);
      },
      async validate() {
        return built ? builtGraphProblem(built, csr) : 'nothing was built';
      },
      destroy() {
        built?.destroy();
        destroyBatches(batches);
      },
    };
  },
};

// ---- triangle counting, static and after insertion batches ----

/**
 * One graph shared by the six triangle cases (run in order): case k inserts the k-th batch of new edges
 * (n, at most 5 % of the graph's edges) and times a count from the hash tables.
 */
let triangleState: { device: WeftDevice; n: number; graph: DynamicGraph; batches: number } | undefined;

function triangleCase(batch: number): BenchCase {
  const last = 5;
  return {
    name: batch === 0 ? 'dynamic triangles static' : `dynamic triangles after insertion batch ${batch}`,
    family: 'dynamic',
    maxItems: (device) => scaleOf(device).onlyAt,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, 'triangles'));
      const pool = edgePool(scale, csr, 'triangles', seed, last * n);
      let state = triangleState;
      if (
        !state ||
        state.device !== device ||
        state.n !== n ||
        state.batches > batch ||
        state.graph.destroyed
      ) {
        state?.graph.destroy();
        state = { device, n, graph: await DynamicGraph.fromCsr(device, csr), batches: 0 };
        triangleState = state;
      }
      // Batches of n edges, at most 5 % of the graph's edges each (on small graphs n would swamp it).
      const per = Math.max(1, Math.min(n, Math.floor(csr.edgeCount / 40)));
      for (; state.batches < batch; state.batches++) {
        const b = slice(pool, state.batches * per, (state.batches + 1) * per);
        await state.graph.insertEdges(b.src, b.dst);
      }
      const graph = state.graph;
      const edges = (csr.edgeCount >> 1) + batch * per;
      let count = -1;
      return {
        items: edges,
        bytes: 0,
        // The count is read back (two words).
        hostTimed: true,
        async run() {
          count = await dynamicTriangleCount(graph);
        },
        async validate() {
          const snapshot = await graph.toDeviceGraph();
          try {
            const want = (await staticTriangles(snapshot)).count;
            return count === want ? null : `${count} triangles, expected ${want}`;
          } finally {
            snapshot.destroy();
          }
        },
        destroy() {
          if (batch === last) {
            graph.destroy();
            triangleState = undefined;
          }
        },
      };
    },
  };
}

// ---- incremental SSSP ----

/**
 * SSSP on the weighted Kronecker graph (u32 weights in [1, 255]) after inserting a batch of n new edges:
 * incrementally (the batch seeds the frontier; each run starts from the distances before the batch, copied
 * back first) or recomputed from scratch. Validated against Dijkstra on the host on small graphs, against
 * the static GPU SSSP of @weft/algorithms on a CSR snapshot on large ones.
 */
function ssspCase(mode: 'incremental' | 'recompute'): BenchCase {
  return {
    name: `dynamic sssp ${mode} after a batch`,
    family: 'dynamic',
    maxItems: (device) => scaleOf(device).poolEdges,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = hostGraph(scale, 'kronecker');
      const graph = await DynamicGraph.fromCsr(device, csr);
      const rand = mulberry32(seed);
      let source = 0;
      do source = Math.floor(rand() * csr.vertexCount);
      while (csr.offsets[source + 1] === csr.offsets[source]);
      const s = await DynamicSssp.create(graph, source);
      const before = device.array('u32', s.distances.length, { label: 'distances before the batch' });
      const copy = device.recorder({ label: 'save distances' });
      copy.copy(s.distances, before);
      await copy.submit();
      const b = edgePool(scale, unweighted(csr), 'kronecker', seed, n);
      const weights = Uint32Array.from({ length: n }, () => 1 + Math.floor(rand() * 255));
      await graph.insertEdges(b.src, b.dst, weights);
      const src = device.upload(b.src);
      const dst = device.upload(b.dst);
      return {
        items: n,
        bytes: 0,
        // A loop with a status read-back per submit: wall time.
        hostTimed: true,
        async run() {
          if (mode === 'recompute') {
            await s.recompute();
            return;
          }
          const rec = device.recorder({ label: 'restore distances' });
          rec.copy(before, s.distances);
          await rec.submit();
          await s.afterInsert(src, dst);
        },
        async validate() {
          if (!s.lastRun.converged) return 'did not converge';
          const got = await s.result();
          let want: Float64Array;
          if (csr.edgeCount + 2 * n <= 2 ** 22) {
            want = ssspReference(await graph.toHostCsr(), source);
          } else {
            const snapshot = await graph.toDeviceGraph();
            try {
              want = (await staticSssp(snapshot, source)).distances;
            } finally {
              snapshot.destroy();
            }
          }
          return firstMismatch(got, want);
        },
        destroy() {
          for (const a of [before, src, dst]) a.destroy();
          s.destroy();
          graph.destroy();
        },
      };
    },
  };
}

// ---- incremental connected components ----

/** `count` distinct existing undirected edges of `csr` (u < v), in random order. */
function existingEdges(csr: HostCsr, count: number, seed: number): Edges {
  const rand = mulberry32(seed);
  const src = new Uint32Array(count);
  const dst = new Uint32Array(count);
  const seen = new Set<number>();
  for (let i = 0; i < count && seen.size < csr.edgeCount >> 1; ) {
    const e = Math.floor(rand() * csr.edgeCount);
    let u = 0;
    let hi = csr.vertexCount;
    while (u + 1 < hi) {
      const mid = (u + hi) >>> 1;
      if (csr.offsets[mid]! <= e) u = mid;
      else hi = mid;
    }
    const v = csr.targets[e]!;
    const key = Math.min(u, v) * csr.vertexCount + Math.max(u, v);
    if (u === v || seen.has(key)) continue;
    seen.add(key);
    src[i] = u;
    dst[i] = v;
    i++;
  }
  return { src: src.subarray(0, seen.size), dst: dst.subarray(0, seen.size) };
}

/** Labels equal (both name a component by its smallest vertex) to a from-scratch CC of the graph. */
async function expectComponents(graph: DynamicGraph, c: DynamicComponents): Promise<string | null> {
  const got = await c.result();
  if (graph.vertexCount <= 2 ** 16)
    return firstMismatch(got, componentsReference(await graph.toHostCsr()).labels);
  const snapshot = await graph.toDeviceGraph();
  try {
    return firstMismatch(got, (await staticComponents(snapshot)).labels);
  } finally {
    snapshot.destroy();
  }
}

/**
 * Connected components of the Kronecker graph after a batch of n edges: inserted (new edges; incremental:
 * the state before the batch copied back, then one union per batch edge and a compression) or deleted
 * (existing edges; each run first re-inserts the batch, which needs no new slabs, and copies the state of
 * the whole graph back (labels and spanning forest), then deletes it: incrementally, resetting and
 * re-linking only the components that lost a forest edge, or by `graph.deleteEdges` and a recomputation).
 * Recomputation unions every edge over all slabs. GPU-timed: every step is recorded into the timed submit.
 */
function componentsCase(op: 'insert' | 'delete', mode: 'incremental' | 'recompute'): BenchCase {
  return {
    name: `dynamic cc ${mode} after ${op === 'insert' ? 'an insertion' : 'a deletion'} batch`,
    family: 'dynamic',
    maxItems: (device) => scaleOf(device).poolEdges,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, 'kronecker'));
      const graph = await DynamicGraph.fromCsr(device, csr);
      const b =
        op === 'insert'
          ? edgePool(scale, csr, 'kronecker', seed, n)
          : cached(`existing/${scale.kronScale}/${seed}/${n}`, () => existingEdges(csr, n, seed));
      const c = await DynamicComponents.create(graph);
      const before = c.state.map((a) =>
        device.array('u32', a.length, { label: 'cc state before the batch' }),
      );
      const copy = device.recorder({ label: 'save cc state' });
      for (const [i, a] of c.state.entries()) copy.copy(a, before[i]!);
      await copy.submit();
      const src = device.upload(b.src);
      const dst = device.upload(b.dst);
      if (op === 'insert') await graph.insertEdges(src, dst);
      return {
        items: b.src.length,
        bytes: 0,
        async run(rec) {
          if (op === 'delete') {
            await graph.insertEdges(src, dst, undefined, { recorder: rec, maxNewSlabs: 0 });
          }
          if (mode === 'recompute') {
            if (op === 'delete') await graph.deleteEdges(src, dst, { recorder: rec });
            await c.recompute({ recorder: rec });
            return;
          }
          for (const [i, a] of c.state.entries()) rec.copy(before[i]!, a);
          if (op === 'insert') await c.afterInsert(src, dst, { recorder: rec });
          else await c.deleteEdges(src, dst, { recorder: rec });
        },
        async validate() {
          await graph.check();
          return firstProblem([
            () => expectEdges(graph, b, op === 'insert', 'batch edges'),
            () => expectComponents(graph, c),
          ]);
        },
        destroy() {
          for (const a of [...before, src, dst]) a.destroy();
          c.destroy();
          graph.destroy();
        },
      };
    },
  };
}

// ---- warm-started PageRank ----

/**
 * PageRank of the Kronecker graph after inserting a batch of n new edges: warm (`DynamicPageRank.insertEdges`
 * from the push state before the batch: the batch's sources' shares taken out, the batch inserted, the new
 * shares put in, push rounds) or cold (`recompute()` power iteration from the uniform vector, on the graph
 * with the batch). A warm run first restores the state before the batch (the batch deleted from the graph,
 * the scores and residuals copied back), which its time includes. The batch joins random vertices, or
 * (`connected`) only vertices that had edges: an edge between two isolated vertices makes a new two-vertex
 * component whose residual fades by alpha a round (a tail of rounds over a few vertices each). `deleted`:
 * a batch of n existing edges deleted (`DynamicPageRank.deleteEdges`; compare with the cold rows). `plain`:
 * warm with `extrapolate: false` (each residual pushed as it is, no shortcuts through geometric tails).
 * `atomics per thread`: warm with the earlier push kernels (`DynamicPageRank.pushAtomics`), whose every
 * pushing vertex and reached key adds to the push's counters with its own global atomic. `no recheck`: warm
 * without the full residual computed again after a score collapsed (`DynamicPageRank.recheckResiduals`), the
 * earlier runs, which may end off by more than the tolerance; it costs a pass over the slabs when it happens.
 * Validated against the f64 reference on small graphs, against `@weft/algorithms`' PageRank on a CSR
 * snapshot on large ones (both within 1e-4 of the fixed point).
 */
function pageRankCase(
  mode: 'warm' | 'plain' | 'cold',
  among: 'random' | 'connected' | 'deleted',
  variant?: 'atomics per thread' | 'no recheck',
): BenchCase {
  const what = { random: '', connected: ' among connected vertices', deleted: ' of deletions' }[among];
  return {
    name: `dynamic pagerank ${mode} after a batch${what}${variant ? ` (${variant})` : ''}`,
    family: 'dynamic',
    maxItems: (device) => scaleOf(device).poolEdges,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, 'kronecker'));
      const graph = await DynamicGraph.fromCsr(device, csr);
      const b =
        among === 'deleted'
          ? cached(`existing/${scale.kronScale}/${seed}/${n}`, () => existingEdges(csr, n, seed))
          : cached(`pagerank/${among}/${scale.kronScale}/${seed}/${n}`, () =>
              newEdges(csr, n, seed, among === 'connected'),
            );
      // Deletions: the batch's edges are in the graph before it.
      const before = among === 'deleted' ? graph.insertEdges : graph.deleteEdges;
      const apply = among === 'deleted' ? graph.deleteEdges : graph.insertEdges;
      const p = await DynamicPageRank.create(graph, { extrapolate: mode !== 'plain' });
      if (variant === 'atomics per thread') p.pushAtomics = 'per-thread';
      if (variant === 'no recheck') p.recheckResiduals = false;
      const src = device.array('u32', n, { label: 'pagerank batch sources' }).upload(b.src);
      const dst = device.array('u32', n, { label: 'pagerank batch targets' }).upload(b.dst);
      // An empty batch computes the residual of the cold start's scores once: the state a stream keeps.
      await p.insertEdges(new Uint32Array(0), new Uint32Array(0));
      const scores = device.array('f32', p.scores.length, { label: 'scores before the batch' });
      const residuals = device.array('f32', p.residuals.length, { label: 'residuals before the batch' });
      const save = device.recorder({ label: 'save the push state' });
      save.copy(p.scores, scores);
      save.copy(p.residuals, residuals);
      await save.submit();
      if (mode === 'cold') await apply.call(graph, src, dst);
      return {
        items: n,
        bytes: 0,
        // A loop with a status read-back per submit: wall time.
        hostTimed: true,
        get setup() {
          const r = p.lastRun;
          return `Kronecker ${scale.kronScale}, batch ${n}; last run: ${r.iterations} ${mode === 'cold' ? 'iterations' : 'rounds'}, ${r.submits} submits`;
        },
        async run() {
          if (mode === 'cold') {
            await p.recompute();
            return;
          }
          await before.call(graph, src, dst);
          const rec = device.recorder({ label: 'restore the push state' });
          rec.copy(scores, p.scores);
          rec.copy(residuals, p.residuals);
          await rec.submit();
          if (among === 'deleted') await p.deleteEdges(src, dst);
          else await p.insertEdges(src, dst);
        },
        async validate() {
          if (!p.lastRun.converged) return 'did not converge';
          const got = await p.result();
          if (csr.edgeCount + 2 * n <= 2 ** 22) return verifyPageRank(await graph.toHostCsr(), got);
          const snapshot = await graph.toDeviceGraph();
          try {
            const want = (await staticPageRank(snapshot)).ranks;
            for (let v = 0; v < want.length; v++) {
              if (!(Math.abs(got[v]! - want[v]!) <= 3e-4 * want[v]!)) {
                return `rank of vertex ${v} is ${got[v]}, the snapshot's ${want[v]} (relative tolerance 3e-4)`;
              }
            }
            return null;
          } finally {
            snapshot.destroy();
          }
        },
        destroy() {
          for (const a of [src, dst, scores, residuals]) a.destroy();
          p.destroy();
          graph.destroy();
        },
      };
    },
  };
}

// ---- table maintenance ----

/**
 * `rehash()` after deleting half the edges (a shuffled half, both directions) of the Kronecker graph: tables
 * built from the degrees are left at about half their load factor, tables built without hints (one bucket a
 * vertex, filled edge batch by edge batch) with long chains half tombstones. Each run first restores the
 * tables as they were after the deletion by buffer copies (one submit, inside the wall time), then rehashes
 * (wall time: the rehash reads back its plan's totals and the rebuilt bucket counts).
 */
function rehashCase(hints: boolean): BenchCase {
  return {
    name: `dynamic rehash after deleting half the edges kronecker${hints ? '' : ' without hints'}`,
    family: 'dynamic',
    once: true,
    async setup(device, _n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const csr = unweighted(hostGraph(scale, 'kronecker'));
      const edges = edgesOnce(scale, csr, 'kronecker', seed, true);
      const half = edges.src.length >> 1;
      const gone = slice(edges, 0, half);
      const kept = slice(edges, half, edges.src.length);
      const graph = hints ? await DynamicGraph.fromCsr(device, csr) : await emptyGraph(device, csr, false);
      if (!hints) {
        for (let at = 0; at < edges.src.length; at += scale.poolEdges) {
          const b = slice(edges, at, Math.min(at + scale.poolEdges, edges.src.length));
          await graph.insertEdges(b.src, b.dst);
        }
      }
      await graph.deleteEdges(gone.src, gone.dst);
      const tables = () => [graph.slabs, graph.values, graph.freeList, graph.alloc, graph.vertices];
      const clone = async () => {
        const copies = tables().map((a) => device.array('u32', a.length, { label: `saved ${a.label}` }));
        const rec = device.recorder({ label: 'dynamic rehash tables save' });
        for (const [i, a] of tables().entries()) rec.copy(a, copies[i]!);
        await rec.submit();
        return copies;
      };
      // Slabs past a saved pool's end are fresh (all ones) in a pool that grew since.
      const restore = async (from: DeviceArray<'u32'>[]) => {
        const rec = device.recorder({ label: 'dynamic rehash tables restore' });
        if (from[0]!.length < graph.slabs.length) await rec.fill(graph.slabs, 0xffffffff);
        for (const [i, a] of tables().entries()) rec.copy(from[i]!, a);
        await rec.submit();
      };
      let saved = await clone();
      const liveSlabs = async () => {
        const a = await graph.alloc.download();
        return a[0]! - a[1]!;
      };
      const liveBefore = await liveSlabs();
      const first = await graph.rehash();
      const liveAfter = await liveSlabs();
      if (saved[0]!.length < graph.slabs.length) {
        // The first rehash grew the pool: save the state again at the new size, so runs copy without fills.
        await restore(saved);
        for (const a of saved) a.destroy();
        saved = await clone();
      }
      const capacity = graph.slabCapacity;
      let last = first;
      const restoredBytes = saved.reduce((sum, a) => sum + a.length * 4, 0);
      return {
        items: kept.src.length * 2,
        bytes: 0,
        hostTimed: true,
        setup: `${describeGraph(scale, 'kronecker', csr)}, ${hints ? HINTED_TABLES : 'one base bucket a vertex (no hints), edges inserted in batches'}; ${half} edges (a shuffled half) deleted, then rehash() with the default bounds: ${first.verticesRebuilt} tables rebuilt, ${first.slabsFreed} slabs freed (${liveBefore} live before, ${liveAfter} after); each run restores the tables first (${restoredBytes} bytes of buffer copies, in the wall time)`,
        async run() {
          await restore(saved);
          last = await graph.rehash();
        },
        async validate() {
          if (graph.slabCapacity !== capacity) return 'the slab pool grew during a timed rehash';
          if (last.verticesRebuilt !== first.verticesRebuilt) {
            return `a run rebuilt ${last.verticesRebuilt} tables, the first ${first.verticesRebuilt}`;
          }
          if (last.slabsFreed <= 0) return `a run freed ${last.slabsFreed} slabs`;
          await graph.check();
          const want = degreesOf(csr);
          for (let i = 0; i < gone.src.length; i++) {
            want[gone.src[i]!]!--;
            want[gone.dst[i]!]!--;
          }
          const degrees = firstMismatch(await graph.degrees(), want);
          if (degrees) return `degrees: ${degrees}`;
          return firstProblem([
            () => expectEdges(graph, kept, true, 'kept edges'),
            () => expectEdges(graph, gone, false, 'deleted edges'),
            async () => {
              const again = await graph.rehash();
              return again.verticesRebuilt === 0
                ? null
                : `a second rehash rebuilt ${again.verticesRebuilt} tables`;
            },
          ]);
        },
        destroy() {
          graph.destroy();
          for (const a of saved) a.destroy();
        },
      };
    },
  };
}

// ---- static algorithms straight on the tables, beside the same algorithm on a CSR snapshot ----

type TableAlgorithm = 'bfs' | 'sssp' | 'sssp near-far' | 'pagerank' | 'components' | 'triangles';

/**
 * BFS, SSSP, PageRank, connected components or triangle counting by `@weft/algorithms`' entry points on the loaded Kronecker graph after
 * a batch of n new edges: on the DynamicGraph itself (a NeighborGraph: operators over the slab lists,
 * balanced by bucket) or on a CSR snapshot of the same state (the snapshot taken untimed). The pair shows
 * the cost of running without a snapshot; each run is validated against the other's answer. `sssp near-far`
 * runs near-far with the snapshot's `ssspDelta` (measured untimed) on both, where `'auto'` would take
 * Bellman-Ford on this dense graph.
 */
function onTablesCase(algorithm: TableAlgorithm, on: 'tables' | 'slots' | 'fresh' | 'snapshot'): BenchCase {
  const where = {
    tables: 'hash tables',
    slots: 'hash tables, parts by key slot',
    fresh: 'hash tables, nothing kept between runs',
    snapshot: 'CSR snapshot',
  };
  return {
    name: `dynamic ${algorithm} on the ${where[on]}`,
    family: 'dynamic',
    maxItems: (device) => scaleOf(device).onlyAt,
    async setup(device, n, seed): Promise<BenchInstance> {
      const scale = scaleOf(device);
      const name = algorithm === 'triangles' ? 'triangles' : 'kronecker';
      const weighted = hostGraph(scale, name);
      const ssspLike = algorithm === 'sssp' || algorithm === 'sssp near-far';
      const csr = ssspLike ? weighted : unweighted(weighted);
      const graph = await DynamicGraph.fromCsr(device, csr);
      // A batch of n new edges, at most 5 % of the graph's edges (on small graphs n would swamp it).
      const per = Math.max(1, Math.min(n, Math.floor(csr.edgeCount / 40)));
      const b = edgePool(scale, unweighted(csr), name, seed, per);
      const rand = mulberry32(seed);
      const weights = Uint32Array.from({ length: per }, () => 1 + Math.floor(rand() * 255));
      await graph.insertEdges(b.src, b.dst, ssspLike ? weights : undefined);
      const snapshot = await graph.toDeviceGraph();
      const ssspOptions = algorithm === 'sssp near-far' ? { delta: await ssspDelta(snapshot) } : {};
      // Slot parts: every bucket's slab read by 30 threads side by side instead of one.
      if (on === 'slots') graph.slotPartsAbove = 0;
      const target = on === 'snapshot' ? snapshot : graph;
      let source = 0;
      do source = Math.floor(rand() * csr.vertexCount);
      while (csr.offsets[source + 1] === csr.offsets[source]);
      let answer: Int32Array | Float32Array | Float64Array | Uint32Array | number | undefined;
      const run = {
        bfs: async () => (await bfs(target, source)).depths,
        sssp: async () => (await staticSssp(target, source)).distances,
        'sssp near-far': async () => (await staticSssp(target, source, ssspOptions)).distances,
        pagerank: async () => (await staticPageRank(target, { weight: null })).ranks,
        components: async () => (await staticComponents(target)).labels,
        triangles: async () => (await staticTriangles(target)).count,
      }[algorithm];
      const other = on === 'snapshot' ? graph : snapshot;
      const setups = {
        bfs: `BFS from vertex ${source}`,
        sssp: `SSSP from vertex ${source} (u32 weights in [1, 255]; default delta: Bellman-Ford on this dense graph)`,
        'sssp near-far': `SSSP from vertex ${source} (u32 weights in [1, 255]; near-far, delta ${ssspOptions.delta})`,
        components: 'connected components (union-find)',
        pagerank: 'PageRank (pull, unweighted, tolerance 1e-5)',
        triangles: 'triangle count (degree-ordered, hash probes on the tables)',
      };
      return {
        items: csr.edgeCount + 2 * per,
        bytes: 0,
        // Loops with status read-backs, and the answer read back: wall time.
        hostTimed: true,
        setup: `${describeGraph(scale, name, csr)}, built from its CSR, ${HINTED_TABLES}, then ${per} new edges inserted; ${setups[algorithm]} on the ${on === 'snapshot' ? 'CSR snapshot (taken untimed)' : `DynamicGraph (no snapshot${on === 'slots' ? ', slotPartsAbove 0' : on === 'fresh' ? ', part layout and gathered lists made anew each run' : ''})`}`,
        async run() {
          // As the first run after a batch: the part layout and gathered lists are made again.
          if (on === 'fresh') releaseNeighborParts(graph);
          answer = await run();
        },
        async validate() {
          if (answer === undefined) return 'no run';
          if (algorithm === 'bfs') {
            const want = (await bfs(other, source)).depths;
            return firstMismatch(answer as Int32Array, want);
          }
          if (ssspLike) {
            const want = (await staticSssp(other, source, ssspOptions)).distances;
            return firstMismatch(answer as Float64Array, want);
          }
          if (algorithm === 'components') {
            const want = (await staticComponents(other)).labels;
            return firstMismatch(answer as Uint32Array, want);
          }
          if (algorithm === 'triangles') {
            const want = (await staticTriangles(other)).count;
            return answer === want ? null : `${answer} triangles, the other graph's ${want}`;
          }
          const got = answer as Float32Array;
          const want = (await staticPageRank(other, { weight: null })).ranks;
          for (let v = 0; v < want.length; v++) {
            if (!(Math.abs(got[v]! - want[v]!) <= 3e-4 * want[v]!)) {
              return `rank of vertex ${v} is ${got[v]}, the other graph's ${want[v]} (relative tolerance 3e-4)`;
            }
          }
          return null;
        },
        destroy() {
          snapshot.destroy();
          graph.destroy();
        },
      };
    },
  };
}

const PROBINGS: Probing[] = ['thread', 'subgroup'];

export const cases: BenchCase[] = [
  ...PROBINGS.flatMap((p) => [
    edgeRateCase('insert', p),
    edgeRateCase('insert', p, 'batch order'),
    edgeRateCase('delete', p),
    ...(p === 'subgroup' ? [edgeRateCase('delete', p, 'claims each round')] : []),
    queryCase(p),
  ]),
  vertexDeletionCase('device'),
  vertexDeletionCase('host'),
  allocationCase,
  bulkBuildCase('kronecker', 'placement'),
  bulkBuildCase('kronecker', 'insertion'),
  bulkBuildCase('rgg', 'placement'),
  bulkBuildCase('rgg', 'insertion'),
  incrementalBuildCase('kronecker', true),
  incrementalBuildCase('kronecker', false),
  incrementalBuildCase('kronecker', false, true),
  autoRehashBuildCase,
  incrementalBuildCase('rgg', true),
  ...[0, 1, 2, 3, 4, 5].map(triangleCase),
  ssspCase('incremental'),
  ssspCase('recompute'),
  componentsCase('insert', 'incremental'),
  componentsCase('insert', 'recompute'),
  componentsCase('delete', 'incremental'),
  componentsCase('delete', 'recompute'),
  pageRankCase('warm', 'random'),
  pageRankCase('warm', 'random', 'atomics per thread'),
  pageRankCase('cold', 'random'),
  pageRankCase('warm', 'connected'),
  pageRankCase('cold', 'connected'),
  pageRankCase('warm', 'deleted'),
  pageRankCase('warm', 'deleted', 'no recheck'),
  pageRankCase('warm', 'random', 'no recheck'),
  pageRankCase('plain', 'random'),
  pageRankCase('plain', 'connected'),
  pageRankCase('plain', 'deleted'),
  rehashCase(true),
  rehashCase(false),
  ...(['bfs', 'sssp', 'sssp near-far', 'pagerank', 'components', 'triangles'] as const).flatMap((a) => [
    onTablesCase(a, 'tables'),
    ...(a === 'bfs' || a === 'pagerank' || a === 'triangles' ? [onTablesCase(a, 'slots')] : []),
    ...(a === 'pagerank' ? [onTablesCase(a, 'fresh')] : []),
    onTablesCase(a, 'snapshot'),
  ]),
];
