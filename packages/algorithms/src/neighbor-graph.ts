import {
  atomic,
  type DeviceArray,
  type Functor,
  f32,
  functorBindingCount,
  InputError,
  lit,
  load,
  max,
  plus,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { FrontierBitmap, FrontierQueue } from '@weft/graph';
import {
  AdvanceWorkspace,
  advancePush,
  computeReduce,
  DisjointSets,
  enact,
  gatherNeighbors,
  type LoadBalance,
  type NeighborGraph,
  type NeighborWeights,
  neighborhoodReduce,
  prepareNeighborParts,
  THREAD_MAPPED_MAX_DEGREE,
} from '@weft/operators';
import { reduce } from '@weft/scan';
import { transformSegreduce } from '@weft/segreduce';
import type { BfsOptions, BfsResult } from './bfs/options.ts';
import type { ComponentsOptions, ComponentsResult } from './components.ts';
import {
  checkRankOptions,
  nextRankFunctor,
  type PageRankOptions,
  type PageRankResult,
  rankChangeFunctor,
} from './pagerank.ts';
import { countRoots } from './roots.ts';
import { readDistances } from './sssp/encode.ts';
import { checkDelta, davidsonDelta, NearFarStep } from './sssp/near-far.ts';
import type { SsspOptions, SsspResult } from './sssp/sssp.ts';
import type { TrianglesResult } from './triangles.ts';
import { SATURATED_F32, SATURATED_U32 } from './weights.ts';

const NONE = 0xffffffff;

/** Throws where an option asks for what only a CSR offers. */
function needsCsr(what: string, option: string): never {
  throw new InputError(`${what} needs a CSR (a DeviceGraph): not available on a NeighborGraph`, option);
}

/** A run's arrays, freed together. */
function arrays(device: WeftDevice) {
  const made: { destroy(): void }[] = [];
  return {
    u32: (n: number, label: string) => {
      const a = device.array('u32', Math.max(1, n), { label });
      made.push(a);
      return a;
    },
    f32: (n: number, label: string) => {
      const a = device.array('f32', Math.max(1, n), { label });
      made.push(a);
      return a;
    },
    keep: <T extends { destroy(): void }>(x: T) => {
      made.push(x);
      return x;
    },
    destroy: () => {
      for (const a of made) a.destroy();
    },
  };
}

const asInt32 = (a: Uint32Array) => new Int32Array(a.buffer, a.byteOffset, a.length);

/** `claim: 'auto'` takes bitmap claims from this average out-degree up, as the CSR BFS does. */
const BITMAP_CLAIM_MIN_DEGREE = 8;

/** Degree statistics measured, kept per graph while its `version` stays (a read-back costs a round trip). */
const measured = new WeakMap<NeighborGraph, { version: number; largest: number; total: number }>();

/** The largest out-degree and the out-degrees' sum, from `degree()` on the GPU (two words read back). */
async function degreeStats(
  graph: NeighborGraph,
  degree: Functor,
): Promise<{ largest: number; total: number }> {
  const known = measured.get(graph);
  if (known && graph.version !== undefined && known.version === graph.version) return known;
  const stats = graph.device.array('u32', 2, { label: 'out-degree statistics' });
  try {
    await stats.fill(0);
    await transform(
      graph.device,
      graph.vertexCount,
      wgsl`(v: u32) {
  let d = ${degree}(v);
  atomicMax(&${atomic(stats)}[0], d);
  atomicAdd(&${atomic(stats)}[1], d);
}`,
    );
    const [largest, total] = await stats.download();
    const result = { largest: largest!, total: total! };
    if (graph.version !== undefined) measured.set(graph, { version: graph.version, ...result });
    return result;
  } finally {
    stats.destroy();
  }
}

/**
 * `loadBalance` as the static runs read it: `'auto'` walks each list in one thread when the largest
 * out-degree is at most `THREAD_MAPPED_MAX_DEGREE`, as on road networks where a level's scan would cost
 * more than its edges; else, and for the other values but `'thread-mapped'`, the graph's parts are balanced.
 */
async function balanceOf(
  graph: NeighborGraph,
  loadBalance: LoadBalance | undefined,
): Promise<'thread-mapped' | 'merge-path'> {
  const chosen = loadBalance ?? 'auto';
  if (chosen !== 'auto') return chosen === 'thread-mapped' ? chosen : 'merge-path';
  if (!graph.parts || !graph.degree || graph.vertexCount === 0) return 'thread-mapped';
  const { largest } = await degreeStats(graph, graph.degree());
  return largest <= THREAD_MAPPED_MAX_DEGREE ? 'thread-mapped' : 'merge-path';
}

/**
 * BFS on a {@link NeighborGraph}: a push level per step. Claims as the CSR BFS's: `'bitmap'` tests a
 * snapshot of the visited bits taken as the level began (a plain load, mostly cache hits) before an
 * `atomicOr`, the winner storing the depth; `'depth'` claims by `atomicMin` on the depth; `'auto'` takes
 * the bitmap from an average out-degree of 8 (where `degree()` tells it), the depth otherwise.
 */
export async function bfsOnNeighbors(
  graph: NeighborGraph,
  source: number,
  options: BfsOptions,
): Promise<BfsResult> {
  if ((options.direction ?? 'push') !== 'push') needsCsr(`direction '${options.direction}'`, 'direction');
  if (options.idempotent) needsCsr('idempotent BFS', 'idempotent');
  if (options.trace) needsCsr('a traced BFS', 'trace');
  const mode = options.smallFrontier ?? 'auto';
  if (mode !== 'auto' && mode !== 'off') needsCsr('the small-frontier engine', 'smallFrontier');
  const claimOption = options.claim ?? 'auto';
  if (claimOption !== 'auto' && claimOption !== 'bitmap' && claimOption !== 'depth') {
    throw new InputError(`claim must be 'auto', 'bitmap' or 'depth', got '${claimOption}'`, 'claim');
  }
  const { device, vertexCount: n } = graph;
  const run = arrays(device);
  try {
    const depths = run.u32(n, 'bfs depths');
    const parents = options.parents ? run.u32(n, 'bfs parents') : undefined;
    await depths.fill(NONE);
    await parents?.fill(NONE);
    depths.upload([0], source);
    const queue = run.keep(new FrontierQueue(device, n, { label: 'bfs frontier' }));
    const workspace = run.keep(new AdvanceWorkspace(device, queue.capacity));
    queue.set([source]);
    const loadBalance = await balanceOf(graph, options.loadBalance);
    const dense =
      claimOption === 'auto' && graph.degree
        ? (await degreeStats(graph, graph.degree())).total >= BITMAP_CLAIM_MIN_DEGREE * n
        : false;
    const bitmap = claimOption === 'bitmap' || dense;
    const seen = bitmap ? run.keep(new FrontierBitmap(device, n, 'bfs visited')) : undefined;
    const before = bitmap
      ? run.keep(new FrontierBitmap(device, n, 'bfs visited before the level'))
      : undefined;
    seen?.words.upload([2 ** (source & 31)], source >>> 5);
    const record = parents ? wgsl`(v: u32, u: u32) { ${rw(parents)}[v] = u; }` : wgsl`(v: u32, u: u32) {}`;
    const claimOf = (level: number) =>
      seen && before
        ? wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let word = dst >> 5u;
  let bit = 1u << (dst & 31u);
  if ((${before.words}[word] & bit) != 0u) { return false; }
  if ((atomicLoad(&${atomic(seen.words)}[word]) & bit) != 0u) { return false; }
  if ((atomicOr(&${atomic(seen.words)}[word], bit) & bit) != 0u) { return false; }
  ${rw(depths)}[dst] = ${u32(level + 1)};
  ${record}(dst, src);
  return true;
}`
        : wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicMin(&${atomic(depths)}[dst], ${u32(level + 1)}) != ${lit(`${NONE}u`)}) { return false; }
  ${record}(dst, src);
  return true;
}`;
    const { iterations } = await enact(
      device,
      {
        async step(rec, level) {
          if (seen && before) rec.copy(seen.words, before.words);
          await advancePush(rec, graph, queue.current, claimOf(level), {
            output: queue.next,
            workspace,
            loadBalance,
          });
          queue.swap();
        },
        active: () => queue.length,
        capacity: queue.capacity,
      },
      options,
    );
    const read = async (a: DeviceArray<'u32'>) => asInt32(await a.download(0, n));
    return {
      depths: await read(depths),
      ...(parents ? { parents: await read(parents) } : {}),
      iterations,
      steps: iterations,
      pullIterations: 0,
    };
  } finally {
    run.destroy();
  }
}

/** Mean edge weights measured, kept per graph while its `version` stays (a read-back costs a round trip). */
const meanWeights = new WeakMap<NeighborGraph, { version: number; mean: number }>();

/**
 * The mean of `weight` over every edge (`total` edges), as f32 sums: one neighborhood reduction and one
 * reduction on the GPU, then one word read back.
 */
async function meanWeight(
  graph: NeighborGraph,
  weight: Functor,
  type: 'u32' | 'i32' | 'f32',
  total: number,
): Promise<number> {
  const known = meanWeights.get(graph);
  if (known && graph.version !== undefined && known.version === graph.version) return known.mean;
  if (total === 0) return 1;
  const { device, vertexCount: n } = graph;
  const value =
    type === 'f32'
      ? wgsl`(w: u32) -> f32 { return bitcast<f32>(w); }`
      : wgsl`(w: u32) -> f32 { return f32(w); }`;
  const sums = device.array('f32', Math.max(1, n), { label: 'sssp weight sums' });
  const sum = device.array('f32', 1, { label: 'sssp weight sum' });
  try {
    const rec = device.recorder({ label: 'sssp mean weight' });
    const each = wgsl`(src: u32, dst: u32, edge: u32) -> f32 { return ${value}(${weight}(src, dst, edge)); }`;
    await neighborhoodReduce(rec, graph, 'all', each, sums);
    await reduce(rec, sums, sum, { monoid: plus('f32'), count: n });
    await rec.submit();
    const mean = (await sum.download())[0]! / total;
    if (graph.version !== undefined) meanWeights.set(graph, { version: graph.version, mean });
    return mean;
  } finally {
    sums.destroy();
    sum.destroy();
  }
}

/**
 * The near-far bucket width of a run, or undefined for Bellman-Ford: a number as given, `'off'` none, and
 * `'auto'` as `sssp()` resolves it on a CSR: Davidson's width on weighted graphs sparse enough for the
 * small-frontier engine (an average out-degree below 8), Bellman-Ford on denser ones and with `weight`.
 */
async function nearFarDelta(
  graph: NeighborGraph,
  options: SsspOptions,
  stored: NeighborWeights | undefined,
  float: boolean,
): Promise<number | undefined> {
  const delta = options.delta ?? 'auto';
  if (delta === 'off') return undefined;
  if (typeof delta === 'number') {
    checkDelta(delta, float);
    return delta;
  }
  if (delta !== 'auto')
    throw new InputError(`delta must be a number, 'auto' or 'off', got '${delta}'`, 'delta');
  if (!stored || options.weight || !graph.degree || graph.vertexCount === 0) return undefined;
  const { total } = await degreeStats(graph, graph.degree());
  if (total >= BITMAP_CLAIM_MIN_DEGREE * graph.vertexCount) return undefined;
  const weight = wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return ${stored.bits}(edge); }`;
  const mean = await meanWeight(graph, weight, stored.type, total);
  return davidsonDelta(mean, total / graph.vertexCount, float);
}

/**
 * SSSP on a {@link NeighborGraph}: Bellman-Ford over a frontier (each step relaxes the out-edges of the
 * vertices improved in the last) or near-far with `delta` (`./sssp/near-far.ts`: each step relaxes the
 * frontier's vertices below a threshold kept on the GPU). Distances are the weights' 32 bits under
 * `atomicMin` (non-negative f32 bits order as their values); an improved vertex joins the next frontier once.
 */
export async function ssspOnNeighbors(
  graph: NeighborGraph,
  source: number,
  options: SsspOptions,
): Promise<SsspResult> {
  if (options.trace) needsCsr('a traced SSSP', 'trace');
  const mode = options.smallFrontier ?? 'auto';
  if (mode !== 'auto' && mode !== 'off') needsCsr('the small-frontier engine', 'smallFrontier');
  const { device, vertexCount: n } = graph;
  const stored = options.weight ? undefined : graph.weights?.();
  const type = stored?.type ?? 'u32';
  const float = type === 'f32';
  const weight = options.weight
    ? options.weight
    : stored
      ? wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return ${stored.bits}(edge); }`
      : wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return 1u; }`;
  const run = arrays(device);
  try {
    if (stored && type !== 'u32') {
      // Negative weights would make the relaxation order decide the answer: refuse them up front.
      const negative = run.u32(1, 'sssp negative weight');
      await negative.fill(0);
      // f32 by its bits, as on a CSR: sign set (but -0), or NaN or infinite (exponent all ones).
      const sign =
        type === 'i32'
          ? wgsl`(w: u32) -> bool { return (w >> 31u) != 0u; }`
          : wgsl`(w: u32) -> bool { return w >= 0x7f800000u && w != 0x80000000u; }`;
      await advancePush(
        device,
        graph,
        'all',
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${sign}(${weight}(src, dst, edge))) { atomicMax(&${atomic(negative)}[0], edge + 1u); }
  return false;
}`,
      );
      const [bad] = await negative.download();
      if (bad) {
        const what = type === 'f32' ? 'a negative weight (or a NaN or infinite one)' : 'a negative weight';
        throw new InputError(`edge slot ${bad - 1} has ${what}`, 'graph weights');
      }
    }
    const delta = await nearFarDelta(graph, options, stored, float);
    const dist = run.u32(n, 'sssp distances');
    await dist.fill(NONE);
    dist.upload([0], source);
    const queue = run.keep(new FrontierQueue(device, n, { label: 'sssp frontier' }));
    const visited = run.keep(new FrontierBitmap(device, n));
    const workspace = run.keep(new AdvanceWorkspace(device, queue.capacity));
    queue.set([source]);
    const loadBalance = await balanceOf(graph, options.loadBalance);
    // Sums saturate below the unreached word, so an overflow reads as reached and is reported below.
    const add = float
      ? wgsl`(d: u32, w: u32) -> u32 {
  let s = bitcast<u32>(bitcast<f32>(d) + bitcast<f32>(w));
  return select(s, ${u32(SATURATED_F32)}, s >= 0x7f800000u);
}`
      : wgsl`(d: u32, w: u32) -> u32 { return select(d + w, ${u32(SATURATED_U32)}, d + w < d || d + w == ${lit(`${NONE}u`)}); }`;
    // A plain load first, as the CSR relaxation does: most edges improve nothing and skip the atomic.
    const relax = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let next = ${add}(atomicLoad(&${atomic(dist)}[src]), ${weight}(src, dst, edge));
  if (next >= atomicLoad(&${atomic(dist)}[dst])) { return false; }
  return next < atomicMin(&${atomic(dist)}[dst], next);
}`;
    const nearFar =
      delta === undefined
        ? undefined
        : run.keep(
            new NearFarStep(
              {
                graph,
                distances: dist,
                queue,
                improved: visited,
                workspace,
                loadBalance,
                log: undefined,
                float,
              },
              delta,
            ),
          );
    if (nearFar) {
      const rec = device.recorder({ label: 'sssp near-far threshold' });
      await nearFar.reset(rec);
      await rec.submit({ wait: false });
    }
    const { iterations } = await enact(
      device,
      {
        async step(rec, iteration) {
          rec.clear(visited.words);
          if (nearFar) {
            await nearFar.step(rec, iteration, relax);
          } else {
            await advancePush(rec, graph, queue.current, relax, {
              output: queue.next,
              visited,
              workspace,
              loadBalance,
            });
          }
          queue.swap();
        },
        active: () => queue.length,
        capacity: queue.capacity,
      },
      options,
    );
    let parents: Int32Array | undefined;
    if (options.parents) {
      const parent = run.u32(n, 'sssp parents');
      await parent.fill(NONE);
      // Any tight edge into v is a shortest-path tree edge; the source keeps none.
      await advancePush(
        device,
        graph,
        'all',
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let d = ${dist}[src];
  if (d != ${lit(`${NONE}u`)} && dst != ${u32(source)} && ${add}(d, ${weight}(src, dst, edge)) == ${dist}[dst]) {
    ${rw(parent)}[dst] = src;
  }
  return false;
}`,
      );
      parents = asInt32(await parent.download(0, n));
    }
    const distances = await readDistances(dist, n, float, { decode: options.decode, unreached: NONE });
    return { distances, ...(parents ? { parents } : {}), iterations, steps: iterations };
  } finally {
    run.destroy();
  }
}

/** Storage buffers a segreduce tile binds beside its functor's (as `neighborhoodReduce` counts them). */
const SEGREDUCE_TILE_BINDINGS = 6;

/**
 * PageRank on a {@link NeighborGraph} (power iteration as `pageRank`'s, unweighted): pulled by neighborhood
 * reduction where out-lists are in-lists (`directed: false`), else pushed with an f32 compare-exchange add.
 */
export async function pageRankOnNeighbors(
  graph: NeighborGraph,
  options: PageRankOptions,
): Promise<PageRankResult> {
  if (options.trace) needsCsr('a traced PageRank', 'trace');
  if (options.weight === 'weights') needsCsr('weighted PageRank', 'weight');
  // 'auto' is a hint the lists cannot take; asking for the order outright is an error.
  if (options.gatherOrder === true) needsCsr('a gather order', 'gatherOrder');
  const { alpha, tolerance, convergence } = checkRankOptions(options);
  const direction = options.direction ?? (graph.directed === false ? 'pull' : 'push');
  if (direction === 'pull' && graph.directed !== false) {
    throw new InputError('pull PageRank on a NeighborGraph needs its lists undirected', 'direction');
  }
  const { device, vertexCount: n } = graph;
  if (n === 0) return { ranks: new Float32Array(0), iterations: 0, converged: true };
  const run = arrays(device);
  try {
    const degree = run.u32(n, 'pagerank degrees');
    if (graph.degree) {
      await transform(device, n, wgsl`(v: u32) { ${rw(degree)}[v] = ${graph.degree()}(v); }`);
    } else {
      const one = wgsl`(v: u32, u: u32, edge: u32) -> u32 { return 1u; }`;
      await neighborhoodReduce(device, graph, 'all', one, degree);
    }
    const ranks = run.f32(n, 'pagerank ranks');
    const contrib = run.f32(n, 'pagerank contributions');
    const sums = run.f32(n, 'pagerank sums');
    const totals = run.f32(2, 'pagerank totals');
    const active = run.u32(1, 'pagerank active');
    await ranks.fill(1 / n);
    await active.fill(1);
    const l1 = convergence === 'l1';
    const delta = rankChangeFunctor(convergence);
    const pushed = atomic(direction === 'push' ? run.u32(n, 'pagerank pushed sums') : degree);
    // Every iteration pulls over the same lists: gathered once, they are read as a CSR's are.
    const lists = direction === 'pull' ? await gatherNeighbors(graph) : undefined;
    const gathered = lists
      ? wgsl`(index: u32, seg: u32, rank: u32) -> f32 { return ${contrib}[${load(lists.targets, 'index')}]; }`
      : undefined;
    const fits =
      gathered !== undefined &&
      SEGREDUCE_TILE_BINDINGS + functorBindingCount(gathered) <=
        device.limits.maxStorageBuffersPerShaderStage;
    // Without a fit, a pull reduces over the graph's own parts, their layout scanned once per version.
    if (direction === 'pull' && !fits) await prepareNeighborParts(graph);
    // `(v: u32, r: f32) -> f32`: stores v's share of rank r; returns r when v is dangling, else 0.
    const storeShare = wgsl`(v: u32, r: f32) -> f32 {
  let deg = ${degree}[v];
  ${rw(contrib)}[v] = select(0.0, r / f32(deg), deg > 0u);
  return select(r, 0.0, deg > 0u);
}`;
    const both = [plus('f32'), plus('f32')] as const;
    await computeReduce(
      device,
      n,
      wgsl`(v: u32) -> vec2<f32> { return vec2<f32>(0.0, ${storeShare}(v, ${ranks}[v])); }`,
      both,
      wgsl`(change: f32, dangling: f32) { ${rw(totals)}[0] = dangling; }`,
    );
    const bound = l1 ? n * tolerance : tolerance;
    const { iterations, converged } = await enact(
      device,
      {
        async step(rec) {
          if (lists && gathered && fits) {
            await transformSegreduce(rec, lists.edgeCount, lists.offsets, n, gathered, sums);
          } else if (direction === 'pull') {
            const share = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${contrib}[u]; }`;
            await neighborhoodReduce(rec, graph, 'all', share, sums);
          } else {
            rec.clear(pushed.array);
            // An f32 atomic add by compare-exchange: each failed exchange means another thread's add landed.
            await advancePush(
              rec,
              graph,
              'all',
              wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let add = ${contrib}[src];
  var old = atomicLoad(&${pushed}[dst]);
  loop {
    let r = atomicCompareExchangeWeak(&${pushed}[dst], old, bitcast<u32>(bitcast<f32>(old) + add));
    if (r.exchanged) { break; }
    old = r.old_value;
  }
  return false;
}`,
            );
          }
          const sum =
            direction === 'pull'
              ? wgsl`(v: u32) -> f32 { return ${sums}[v]; }`
              : wgsl`(v: u32) -> f32 { return bitcast<f32>(atomicLoad(&${pushed}[v])); }`;
          // One pass updates the ranks and the next shares and folds the change and the dangling rank.
          await computeReduce(
            rec,
            n,
            wgsl`(v: u32) -> vec2<f32> {
  let next = ${nextRankFunctor(alpha, n)}(${sum}(v), ${totals}[0]);
  let old = ${ranks}[v];
  let on = ${active}[0] != 0u;
  let r = select(old, next, on);
  ${rw(ranks)}[v] = r;
  return vec2<f32>(select(0.0, ${delta}(next, old), on), ${storeShare}(v, r));
}`,
            [l1 ? plus('f32') : max('f32'), plus('f32')],
            wgsl`(change: f32, dangling: f32) {
  ${rw(totals)}[0] = dangling;
  ${rw(totals)}[1] = change;
  if (change < ${f32(bound)}) { ${rw(active)}[0] = 0u; }
}`,
          );
        },
        active: () => ({ array: active, index: 0 }),
      },
      { batch: 8, maxBatch: 16, ...options, maxIterations: options.maxIterations ?? 100 },
    );
    const residual = l1 && !converged ? (await totals.download(1, 1))[0] : undefined;
    return {
      ranks: await ranks.download(0, n),
      iterations,
      converged,
      ...(residual === undefined ? {} : { residual }),
    };
  } finally {
    run.destroy();
  }
}

/** Weakly connected components of a {@link NeighborGraph}: one union-find pass over every edge. */
export async function componentsOnNeighbors(
  graph: NeighborGraph,
  options: ComponentsOptions,
): Promise<ComponentsResult> {
  if (options.algorithm !== undefined && options.algorithm !== 'union-find') {
    needsCsr(`algorithm '${options.algorithm}'`, 'algorithm');
  }
  if (options.trace) needsCsr('a traced components run', 'trace');
  const { device, vertexCount: n } = graph;
  const sets = new DisjointSets(device, n, { label: 'components' });
  try {
    const rec = device.recorder({ label: 'components on neighbors' });
    await sets.recordReset(rec);
    const link = wgsl`(src: u32, dst: u32, edge: u32) -> bool { ${sets.union()}(src, dst); return false; }`;
    await advancePush(rec, graph, 'all', link);
    await sets.recordCompress(rec);
    await rec.submit();
    if (!(await sets.finished())) {
      throw new InputError('a union gave up after its bounded retries; run again', 'connectedComponents');
    }
    const count = await countRoots(sets.parents, n);
    const labels = await sets.labels();
    return { labels, count, iterations: 1, steps: 1 };
  } finally {
    sets.destroy();
  }
}

/**
 * Triangles of an undirected {@link NeighborGraph} (`directed: false`, no self-loops or parallel edges,
 * as a `DynamicGraph`'s tables): `triangleCount`'s degree-ordered count, each edge's probes by `hasEdge`.
 */
export async function trianglesOnNeighbors(graph: NeighborGraph): Promise<TrianglesResult> {
  if (graph.directed !== false) {
    throw new InputError('triangle counting on a NeighborGraph needs an undirected one', 'graph');
  }
  if (!graph.hasEdge || !graph.degree) {
    throw new InputError('triangle counting on a NeighborGraph needs its degree() and hasEdge()', 'graph');
  }
  const { device, vertexCount: n } = graph;
  if (n === 0) return { count: 0, perVertex: new Uint32Array(0), undirected: false };
  const degree = graph.degree();
  const contains = graph.hasEdge();
  const before = wgsl`(a: u32, b: u32) -> bool {
  let da = ${degree}(a);
  let db = ${degree}(b);
  return da < db || (da == db && a < b);
}`;
  // WGSL functions cannot see a caller's locals: the edge's far end and its count live in private
  // variables, declared beside an empty helper that the visit calls so that the linker emits them.
  const cell = wgsl`() {}
var<private> weft_triangle_far: u32;
var<private> weft_triangle_count: u32;`;
  const probe = graph.forEachNeighbor(wgsl`(u: u32, w: u32, edge: u32) {
  ${cell}();
  let v = weft_triangle_far;
  if (${before}(v, w) && ${contains}(v, w)) { weft_triangle_count++; }
}`);
  const count = wgsl`(u: u32, v: u32, edge: u32) -> u32 {
  if (!${before}(u, v)) { return 0u; }
  weft_triangle_far = v;
  weft_triangle_count = 0u;
  ${probe}(u);
  return weft_triangle_count;
}`;
  const perVertex = device.array('u32', n, { label: 'triangles per vertex' });
  try {
    await neighborhoodReduce(device, graph, 'all', count, perVertex);
    const counts = await perVertex.download(0, n);
    let total = 0;
    for (let v = 0; v < n; v++) total += counts[v]!;
    return { count: total, perVertex: counts, undirected: false };
  } finally {
    perVertex.destroy();
  }
}
