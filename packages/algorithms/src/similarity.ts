import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  InputError,
  inline,
  load,
  map,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph, deviceGraphFromEdgeList } from '@weft/graph';
import { intersectionCount } from '@weft/operators';
import { transformScan } from '@weft/scan';
import { sortPairs } from '@weft/sort';
import { edgeSource, idBits, orderKey, recordRows, recordRuns } from './community-gpu.ts';
import {
  checkTopK,
  checkVertices,
  type JaccardAllOptions,
  pairColumns,
  type SimilarityMetric,
  type SimilarityResult,
  type VertexPairs,
} from './similarity-reference.ts';

/**
 * The undirected simple graph of `graph`: itself when it is undirected with strictly increasing rows (no loops,
 * no duplicates, sorted for the intersections' binary search; one pass and one read-back to check), else built
 * on the GPU (symmetrized, loops dropped, duplicates merged, rows sorted).
 */
async function simpleUndirected(graph: DeviceGraph): Promise<DeviceGraph> {
  const device = graph.device;
  const m = graph.edgeCount;
  const source = edgeSource(graph);
  if (!graph.directed) {
    const flag = device.array('u32', 1, { label: 'similarity simple check' });
    try {
      flag.upload([0]);
      const rec = device.recorder({ label: 'similarity simple check' });
      await transform(
        rec,
        m,
        wgsl`(e: u32) {
  let u = ${source}(e);
  let t = ${load(graph.chunkedTargets, 'e')};
  if (t == u || (e > ${graph.offsets}[u] && ${load(graph.chunkedTargets, 'e - 1u')} >= t)) { atomicStore(&${atomic(flag)}[0], 1u); }
}`,
      );
      await rec.submit();
      if ((await flag.download())[0] === 0) return graph;
    } finally {
      flag.destroy();
    }
  }
  const src = device.array('u32', m, { label: 'similarity sources' });
  const dst = device.array('u32', m, { label: 'similarity targets' });
  try {
    const rec = device.recorder({ label: 'similarity sources' });
    await transform(
      rec,
      m,
      wgsl`(e: u32) { ${rw(src)}[e] = ${source}(e); ${rw(dst)}[e] = ${load(graph.chunkedTargets, 'e')}; }`,
    );
    await rec.submit();
    const built = await deviceGraphFromEdgeList(device, {
      src,
      dst,
      vertexCount: graph.vertexCount,
      directed: false,
    });
    return built.graph;
  } finally {
    src.destroy();
    dst.destroy();
  }
}

/** `(a: u32, b: u32, c: u32) -> f32`: the metric of vertices a and b with c common neighbours in `simple`. */
function scoreOf(simple: DeviceGraph, metric: SimilarityMetric): Functor {
  const { offsets } = simple;
  // Reducing the fraction first makes equal ratios bit-equal scores, so ties order by id on every GPU.
  return wgsl`(a: u32, b: u32, c: u32) -> f32 {
  let da = ${offsets}[a + 1u] - ${offsets}[a];
  let db = ${offsets}[b + 1u] - ${offsets}[b];
  var below = min(da, db);
  if (${u32(metric === 'jaccard' ? 1 : 0)} == 1u) { below = da + db - c; }
  if (below == 0u) { return 0.0; }
  var x = c;
  var y = below;
  for (var i = 0u; i < 64u && y != 0u; i++) {
    let r = x % y;
    x = y;
    y = r;
  }
  return f32(c / x) / f32(below / x);
}`;
}

/** Records `common[i]` and `score[i]` of the first `count` pairs (first[i], second[i]) of `simple`. */
async function recordScores(
  rec: Recorder,
  simple: DeviceGraph,
  metric: SimilarityMetric,
  count: number,
  first: DeviceArray<'u32'>,
  second: DeviceArray<'u32'>,
  common: DeviceArray<'u32'>,
  score: DeviceArray<'f32'>,
): Promise<void> {
  await intersectionCount(rec, simple, first, second, count, common);
  const f = scoreOf(simple, metric);
  await map(
    rec,
    count,
    wgsl`(i: u32) -> f32 { return ${f}(${first}[i], ${second}[i], ${common}[i]); }`,
    score,
  );
}

async function similarity(
  graph: DeviceGraph,
  pairs: VertexPairs,
  metric: SimilarityMetric,
): Promise<SimilarityResult> {
  checkDeviceGraph(graph);
  const { first, second } = pairColumns(pairs, graph.vertexCount);
  const count = first.length;
  const undirected = graph.directed;
  if (count === 0 || graph.edgeCount === 0) {
    return { first, second, score: new Float32Array(count), common: new Uint32Array(count), undirected };
  }
  const device = graph.device;
  const simple = await simpleUndirected(graph);
  const a = device.upload(first, { label: 'similarity first' });
  const b = device.upload(second, { label: 'similarity second' });
  const common = device.array('u32', count, { label: 'similarity common' });
  const score = device.array('f32', count, { label: 'similarity score' });
  try {
    const rec = device.recorder({ label: metric });
    await recordScores(rec, simple, metric, count, a, b, common, score);
    await rec.submit();
    return { first, second, score: await score.download(), common: await common.download(), undirected };
  } finally {
    for (const x of [a, b, common, score]) x.destroy();
    if (simple !== graph) simple.destroy();
  }
}

/**
 * networkx's `jaccard_coefficient` of each vertex pair, |N(u) ∩ N(v)| / |N(u) ∪ N(v)| (0 when the union
 * is empty), on the undirected simple graph (directed input runs on its undirected graph; self-loops are
 * ignored). `pairs` is two columns `{ src, dst }` or a flat `Uint32Array` of (u, v) pairs. The common
 * neighbours are counted by the segmented-intersection operator, one thread per pair.
 */
export function jaccard(graph: DeviceGraph, pairs: VertexPairs): Promise<SimilarityResult> {
  return similarity(graph, pairs, 'jaccard');
}

/** cuGraph's `overlap` coefficient of each pair, |N(u) ∩ N(v)| / min(|N(u)|, |N(v)|); as {@link jaccard}. */
export function overlap(graph: DeviceGraph, pairs: VertexPairs): Promise<SimilarityResult> {
  return similarity(graph, pairs, 'overlap');
}

/**
 * Records the exclusive scan of `length(i)` for i < count into `starts`, its total into `counts[0]`, and
 * 1 into `counts[1]` if the u32 sum wraps (it then holds no answer).
 */
async function recordScanChecked(
  rec: Recorder,
  count: number,
  length: Functor,
  starts: DeviceArray<'u32'>,
  counts: DeviceArray<'u32'>,
): Promise<void> {
  rec.clear(counts);
  await transformScan(rec, count, length, starts, { total: { array: counts, index: 0 } });
  await transform(
    rec,
    count,
    wgsl`(i: u32) {
  let s = ${starts}[i];
  if (s + ${length}(i) < s) { atomicStore(&${atomic(counts)}[1], 1u); }
}`,
  );
}

/** The total {@link recordScanChecked} left, or an error when it wrapped. */
async function checkedTotal(counts: DeviceArray<'u32'>, what: string): Promise<number> {
  const [total, wrapped] = await counts.download(0, 2);
  if (wrapped) throw new InputError(`the ${what} number 2^32 or more: give fewer vertices`, 'vertices');
  return total!;
}

/**
 * Jaccard similarity of each given vertex with its 2-hop neighbours (cuGraph's `jaccard` without pairs):
 * the paths u - w - v are expanded on the GPU and sorted into distinct (u, v) pairs, which are scored by
 * the segmented intersection, sorted by score and cut to the `topK` best per vertex. The result groups
 * the pairs by the order of `vertices`, each group by score descending, ties by the smaller id.
 */
export async function jaccardAll(
  graph: DeviceGraph,
  vertices: ArrayLike<number>,
  options: JaccardAllOptions = {},
): Promise<SimilarityResult> {
  checkOptionsObject('jaccardAll', options);
  checkDeviceGraph(graph);
  const sources = checkVertices(vertices, graph.vertexCount, 'vertices');
  const topK = checkTopK(options.topK);
  const k = sources.length;
  const undirected = graph.directed;
  const empty = {
    first: new Uint32Array(0),
    second: new Uint32Array(0),
    score: new Float32Array(0),
    common: new Uint32Array(0),
    undirected,
  };
  if (k === 0 || graph.edgeCount === 0) return empty;
  const device = graph.device;
  const simple = await simpleUndirected(graph);
  const made: DeviceArray[] = [];
  const arr = <T extends 'u32' | 'f32'>(type: T, length: number, label: string): DeviceArray<T> => {
    const x = device.array(type, Math.max(1, length), { label: `jaccardAll ${label}` });
    made.push(x);
    return x;
  };
  try {
    const { offsets, chunkedTargets: targets } = simple;
    const degree = wgsl`(v: u32) -> u32 { return ${offsets}[v + 1u] - ${offsets}[v]; }`;
    const vs = device.upload(sources, { label: 'jaccardAll vertices' });
    made.push(vs);
    const counts = arr('u32', 2, 'counts');
    // Hops u - w: the neighbours of each given vertex, then the paths w - v from each hop.
    const hopStart = arr('u32', k, 'hop starts');
    const hopLength = wgsl`(i: u32) -> u32 { return ${degree}(${vs}[i]); }`;
    let rec = device.recorder({ label: 'jaccardAll hops' });
    await recordScanChecked(rec, k, hopLength, hopStart, counts);
    await rec.submit();
    const hops = await checkedTotal(counts, 'hops from the given vertices');
    if (hops === 0) return empty;
    const segment = (starts: DeviceArray<'u32'>, length: number) => wgsl`(p: u32) -> u32 {
  var lo = 0u;
  var hi = ${u32(length - 1)};
  while (lo < hi) {
    let mid = (lo + hi + 1u) / 2u;
    if (${starts}[mid] <= p) { lo = mid; } else { hi = mid - 1u; }
  }
  return lo;
}`;
    const hopOf = segment(hopStart, k);
    const hopVertex = wgsl`(h: u32) -> u32 {
  let i = ${hopOf}(h);
  return ${load(targets, inline(wgsl`${offsets}[${vs}[i]] + h - ${hopStart}[i]`))};
}`;
    const pathStart = arr('u32', hops, 'path starts');
    const pathLength = wgsl`(h: u32) -> u32 { return ${degree}(${hopVertex}(h)); }`;
    rec = device.recorder({ label: 'jaccardAll paths' });
    await recordScanChecked(rec, hops, pathLength, pathStart, counts);
    await rec.submit();
    const paths = await checkedTotal(counts, '2-hop paths from the given vertices');
    // Each path's (given vertex index, end vertex), sorted by end then (stably) by index: distinct pairs are runs.
    const pathOf = segment(pathStart, hops);
    const keys = arr('u32', paths, 'keys');
    const ids = arr('u32', paths, 'ids');
    const ends = arr('u32', paths, 'ends');
    const starts = arr('u32', paths, 'run starts');
    rec = device.recorder({ label: 'jaccardAll pairs' });
    await transform(
      rec,
      paths,
      wgsl`(p: u32) {
  let h = ${pathOf}(p);
  let w = ${hopVertex}(h);
  ${rw(ends)}[p] = ${load(targets, inline(wgsl`${offsets}[w] + p - ${pathStart}[h]`))};
  ${rw(ids)}[p] = p;
}`,
    );
    await sortPairs(rec, ends, ids, { count: paths, bits: idBits(graph.vertexCount) });
    await transform(rec, paths, wgsl`(p: u32) { ${rw(keys)}[p] = ${hopOf}(${pathOf}(${ids}[p])); }`);
    await sortPairs(rec, keys, ids, { count: paths, bits: idBits(k) });
    // Each sorted path's end, stored once (the first sort's order is gone): the run test then binds two arrays.
    await transform(
      rec,
      paths,
      wgsl`(p: u32) {
  let path = ${ids}[p];
  let h = ${pathOf}(path);
  ${rw(ends)}[p] = ${load(targets, inline(wgsl`${offsets}[${hopVertex}(h)] + path - ${pathStart}[h]`))};
}`,
    );
    await recordRuns(
      rec,
      paths,
      wgsl`(p: u32) -> bool { return ${keys}[p] != ${keys}[p - 1u] || ${ends}[p] != ${ends}[p - 1u]; }`,
      starts,
      { array: counts, index: 1 },
    );
    await rec.submit();
    const pairCount = (await counts.download(1, 1))[0]!;
    // Distinct pairs, scored; the pair of a vertex with itself gets the lowest key so it sorts last.
    const index = arr('u32', pairCount, 'pair index');
    const first = arr('u32', pairCount, 'first');
    const second = arr('u32', pairCount, 'second');
    const common = arr('u32', pairCount, 'common');
    const score = arr('f32', pairCount, 'score');
    const order = arr('u32', pairCount, 'order');
    const rows = arr('u32', k + 1, 'rows');
    const kept = arr('u32', pairCount, 'kept');
    rec = device.recorder({ label: 'jaccardAll scores' });
    await transform(
      rec,
      pairCount,
      wgsl`(s: u32) {
  let p = ${starts}[s];
  let i = ${keys}[p];
  ${rw(index)}[s] = i;
  ${rw(first)}[s] = ${vs}[i];
  ${rw(second)}[s] = ${ends}[p];
}`,
    );
    await recordScores(rec, simple, 'jaccard', pairCount, first, second, common, score);
    await transform(
      rec,
      pairCount,
      wgsl`(s: u32) {
  ${rw(keys)}[s] = select(${orderKey}(${score}[s]), 0u, ${first}[s] == ${second}[s]);
  ${rw(order)}[s] = s;
}`,
    );
    await sortPairs(rec, keys, order, { count: pairCount, descending: true });
    await transform(rec, pairCount, wgsl`(s: u32) { ${rw(keys)}[s] = ${index}[${order}[s]]; }`);
    await sortPairs(rec, keys, order, { count: pairCount, bits: idBits(k) });
    // The first topK of each vertex's group, self excluded (it sorts last), compacted by a scan.
    await recordRows(rec, keys, pairCount, k, rows);
    const keep = wgsl`(s: u32) -> u32 {
  let t = ${order}[s];
  return u32(s - ${rows}[${keys}[s]] < ${u32(topK)} && ${first}[t] != ${second}[t]);
}`;
    await transformScan(rec, pairCount, keep, kept, { total: { array: counts, index: 0 } });
    const outFirst = arr('u32', pairCount, 'out first');
    const outSecond = arr('u32', pairCount, 'out second');
    const outCommon = arr('u32', pairCount, 'out common');
    const outScore = arr('f32', pairCount, 'out score');
    // A kept pair's slot is where the exclusive scan steps up; two scatters of two columns each keep the
    // bindings within what browsers grant.
    const kept1 = wgsl`(s: u32) -> bool {
  let next = select(${counts}[0], ${kept}[s + 1u], s + 1u < ${u32(pairCount)});
  return next > ${kept}[s];
}`;
    const scatter = <A extends 'u32' | 'f32', B extends 'u32' | 'f32'>(
      a: [DeviceArray<A>, DeviceArray<A>],
      b: [DeviceArray<B>, DeviceArray<B>],
    ) =>
      transform(
        rec,
        pairCount,
        wgsl`(s: u32) {
  if (!${kept1}(s)) { return; }
  let t = ${order}[s];
  let at = ${kept}[s];
  ${rw(a[1])}[at] = ${a[0]}[t];
  ${rw(b[1])}[at] = ${b[0]}[t];
}`,
      );
    await scatter([first, outFirst], [second, outSecond]);
    await scatter([common, outCommon], [score, outScore]);
    await rec.submit();
    const total = (await counts.download(0, 1))[0]!;
    if (total === 0) return empty;
    return {
      first: await outFirst.download(0, total),
      second: await outSecond.download(0, total),
      score: await outScore.download(0, total),
      common: await outCommon.download(0, total),
      undirected,
    };
  } finally {
    for (const x of made) x.destroy();
    if (simple !== graph) simple.destroy();
  }
}
