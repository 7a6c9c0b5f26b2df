import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  BfsProblem,
  bfs,
  connectedComponents,
  connectedComponentsPartitioned,
  type DistanceDecode,
  PartitionedBfs,
  type PartitionedKernelTime,
  type PartitionedTiming,
  pageRank,
  pageRankPartitioned,
  sssp,
  ssspPartitioned,
  verifyBfs,
} from '@weft/algorithms';
import { requestDevices, type WeftDevice } from '@weft/gpu';
import {
  type DeviceGraph,
  type HostCsr,
  PartitionedGraph,
  type PartitionOptions,
  uploadGraph,
} from '@weft/graph';
import { kroneckerMultigraphPartitioned, kroneckerOnDevice, pairWeightFunctor } from '@weft/graph/generators';
import { readGraphFile } from '@weft/graph/node';
import { enact } from '@weft/operators';
import { verifyBfsPartitionedOnGpu, verifySsspPartitionedOnGpu } from './device-graphs.ts';
import { pickSources } from './suites/algorithms.ts';

export const PARTITIONED_USAGE = `usage: weft partitioned (--graph FILE.wcsr | --kron SCALE) [--devices 2] [--sources 4] [--repeat 3]
  [--algorithms bfs,sssp,pagerank,cc] [--share] [--no-validation] [--breakdown] [--exchange boundary|full]
  [--chunks K[,K...]] [--decode device|host] [--profile] [--json OUT]
       weft partitioned --kron SCALE --multigraph [--parts P] [--max-arcs-per-part N] [--devices 1] ...

  BFS on one GPU against BFS on a graph partitioned across --devices GPUs (one device per GPU through
  requestDevices; --share opens them on one adapter), from the same sources: wall-clock per source of the
  search, each with its own read-backs (the enactor's status, the partitioned levels' exchange) and without
  the depths' read-back; the speed-up is over the one-GPU BFS whose problem is kept across sources, as the
  partitioned one keeps its state. bfs() (a new problem and the depths read back) is shown beside it.
  Every partitioned result is checked against the one-GPU BFS, the first against the graph itself.
  --kron generates a Graph500 Kronecker graph (edge factor 16) on the first GPU; --no-validation opens the
  devices without Dawn's validation (requestDevice's validation: false).
  --algorithms (default bfs) also times sssp (from the same sources), pagerank and cc (once a repeat) on
  one GPU and partitioned, each with its read-back, and checks every partitioned result against the one-GPU
  one (distances and labels equal, ranks within 1e-3 relative). A directed graph is uploaded with its CSC.
  --multigraph generates the Kronecker multigraph (edge factor 16, duplicates kept) in parts on the GPUs
  (kroneckerMultigraphPartitioned: at least --parts parts, none above --max-arcs-per-part arcs (default:
  defaultArcsPerPart, 2^31 on a 2 GiB binding), round-robin
  over the devices), for graphs past one GPU or 2^32 arcs (scale 27): no one-GPU run, every source's depths
  checked on the GPUs by Graph500's rules instead; with sssp in --algorithms also SSSP (weights 1-255 computed
  from each vertex pair) from the same sources, checked by GAP's rules on the GPUs.
  --against-one (with --multigraph) also builds the same multigraph as one part on the first GPU and runs
  bfs (direction-optimizing, its problem kept), sssp, pagerank and cc there: the speed-up of the parts over
  one GPU, each partitioned result checked against the one-GPU one (depths, distances and labels equal, ranks
  within 1e-3 relative). pagerank and cc run in --multigraph mode only so, where they have a result to match.
  Every partitioned row reports each timed run's iterations (levels, PageRank iterations, exchange rounds)
  and where its wall time went, from host timestamps around the waits: compute (submit to done; with the
  copies to and from staging buffers), read-back (mapping what came back), host (merging and copying on the
  host), upload (unmapping and writing uploads), printed for the median run. --breakdown runs BFS and PageRank
  with the copies in submits and waits of their own, so compute is the kernels alone and read-back and upload
  include the copies; those extra waits slow the run, so read speed-ups from a run without it.
  --exchange (default boundary) picks the exchanges: boundary moves only the values other parts read in
  PageRank, SSSP's and CC's changes as pairs, a changed bitmap with values or the whole vector, whichever
  is smallest, and has each device OR BFS's found bitmaps; full, the exchanges before them, moves every
  owned contribution (undirected) or the whole partial-sum vector (directed) in PageRank, pairs or the whole
  vector past n / 2 changes in SSSP and CC, and ORs BFS's bitmaps on the host. PageRank prints the bytes an
  iteration of both.
  --chunks K (undirected, boundary exchange, without --breakdown; default: pageRankPartitioned's, 4 where a
  part sends at least 4 MiB an iteration, else 1) runs each PageRank iteration in K chunks of owned rows,
  each read back in a submit of its own, so the host copies a chunk's values while the GPU computes the
  next; --chunks 1 is the path before chunks. Several counts (--chunks 1,4,8) time PageRank once a count on
  the same graph, a row each; each row records the chunks its runs used.
  --decode (default device) picks where SSSP's distances become f64 values, on one GPU and partitioned:
  device, a kernel writes their f64 words, read straight into the result; host, the JS loop over the words
  read back, as before (the result phase shows the difference).
  --profile times every BFS dispatch (a timestamp pass each, so slower) and prints each part's kernels under
  the median run, their GPU time summed over its levels (also in the JSON's runs, as kernels).
`;
const ALGORITHMS = ['bfs', 'sssp', 'pagerank', 'cc'] as const;
type Algorithm = (typeof ALGORITHMS)[number];

/** `weft partitioned`: one GPU against several on one graph file. */
export async function partitionedCommand(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      graph: { type: 'string' },
      kron: { type: 'string' },
      devices: { type: 'string', default: '2' },
      sources: { type: 'string', default: '4' },
      repeat: { type: 'string', default: '3' },
      algorithms: { type: 'string', default: 'bfs' },
      json: { type: 'string' },
      share: { type: 'boolean', default: false },
      'no-validation': { type: 'boolean', default: false },
      multigraph: { type: 'boolean', default: false },
      parts: { type: 'string' },
      'max-arcs-per-part': { type: 'string' },
      'against-one': { type: 'boolean', default: false },
      breakdown: { type: 'boolean', default: false },
      exchange: { type: 'string', default: 'boundary' },
      chunks: { type: 'string' },
      profile: { type: 'boolean', default: false },
      decode: { type: 'string', default: 'device' },
    },
  });
  const decode = values.decode as DistanceDecode;
  if (decode !== 'device' && decode !== 'host') {
    process.stderr.write(`--decode must be device or host, got ${values.decode}\n${PARTITIONED_USAGE}`);
    return 2;
  }
  const exchange = values.exchange as PageRankExchange;
  if (exchange !== 'boundary' && exchange !== 'full') {
    process.stderr.write(`--exchange must be boundary or full, got ${values.exchange}\n${PARTITIONED_USAGE}`);
    return 2;
  }
  const chunks = values.chunks === undefined ? [undefined] : values.chunks.split(',').map(Number);
  if (!chunks.every((c) => c === undefined || (Number.isSafeInteger(c) && c >= 1))) {
    process.stderr.write(`--chunks must be positive integers, got ${values.chunks}\n${PARTITIONED_USAGE}`);
    return 2;
  }
  if (!values.graph === !values.kron || (values.multigraph && !values.kron)) {
    process.stderr.write(PARTITIONED_USAGE);
    return 2;
  }
  const algorithms = values.algorithms.split(',') as Algorithm[];
  const unknown = algorithms.filter((a) => !ALGORITHMS.includes(a));
  if (unknown.length > 0) {
    process.stderr.write(`unknown algorithm ${unknown.join(', ')}\n${PARTITIONED_USAGE}`);
    return 2;
  }
  if (values.multigraph && !values['against-one'] && algorithms.some((a) => a === 'pagerank' || a === 'cc')) {
    process.stderr.write(
      `weft partitioned --multigraph: pagerank and cc need --against-one (the one-GPU result they are checked against)\n`,
    );
    return 2;
  }
  const count = Number(values.devices);
  const devices = await requestDevices({
    count,
    shareAdapter: values.share,
    ...(values['no-validation'] ? { validation: false } : {}),
  });
  if (values.multigraph) {
    const split = {
      parts: values.parts === undefined ? undefined : Number(values.parts),
      maxArcsPerPart:
        values['max-arcs-per-part'] === undefined ? undefined : Number(values['max-arcs-per-part']),
    };
    const options = { devices, scale: Number(values.kron), split, sources: Number(values.sources) };
    await multigraphRun({
      ...options,
      repeat: Number(values.repeat),
      json: values.json,
      args,
      algorithms,
      againstOne: values['against-one'],
      breakdown: values.breakdown,
      exchange,
      chunks,
      profile: values.profile,
      decode,
    });
    for (const d of devices) d.destroy();
    return 0;
  }
  let csr: HostCsr;
  if (values.graph) {
    const file = await readGraphFile(values.graph);
    if (file.kind !== 'csr') throw new Error(`${values.graph}: not a .wcsr file`);
    csr = file.csr;
  } else {
    const t = performance.now();
    const g = await kroneckerOnDevice(devices[0]!, { scale: Number(values.kron), seed: 1 });
    csr = {
      vertexCount: g.vertexCount,
      edgeCount: g.edgeCount,
      offsets: await g.offsets.download(0, g.vertexCount + 1),
      targets: await g.targets.download(0, g.edgeCount),
      directed: false,
    };
    g.destroy();
    console.log(
      `kronecker ${values.kron}: ${csr.vertexCount} vertices, ${csr.edgeCount} arcs, ${(performance.now() - t).toFixed(0)} ms on the GPU and back`,
    );
  }
  const repeat = Number(values.repeat);
  const sources = pickSources(csr, 1, Number(values.sources));
  const rows: Record<string, unknown>[] = [];
  const time = (run: () => Promise<unknown>) => medianWallMs(run, repeat);
  const csc = { csc: csr.directed };
  const single = uploadGraph(devices[0]!, csr, csc);
  const others = algorithms.filter((a) => a !== 'bfs');
  const oneGpu = await timeOthersOnOne(others, single, sources, time, decode);
  const onOne: Record<string, number[]> = { push: [], auto: [] };
  // The same BFS with its problem kept across sources, as the partitioned one keeps its state.
  const reused: Record<string, number[]> = { push: [], auto: [] };
  const problems = {
    push: new BfsProblem(single, { direction: 'push' }),
    auto: new BfsProblem(single, { direction: 'auto' }),
  };
  const runReused = async (problem: BfsProblem, source: number) => {
    const rec = single.device.recorder({ label: 'bfs reset' });
    await problem.reset(rec, source);
    await rec.submit();
    return enact(single.device, problem, {});
  };
  const want: Uint32Array[] = [];
  for (const [i, source] of algorithms.includes('bfs') ? sources.entries() : []) {
    const r = await bfs(single, source, { direction: 'auto' });
    const depths = asSignedDepths(r.depths);
    if (i === 0) {
      const bad = verifyBfs(csr, source, depths);
      if (bad) throw new Error(`one-GPU BFS from ${source}: ${bad}`);
    }
    want.push(new Uint32Array(r.depths));
    for (const direction of ['push', 'auto'] as const) {
      onOne[direction]!.push(await time(() => bfs(single, source, { direction })));
      reused[direction]!.push(await time(() => runReused(problems[direction], source)));
    }
  }
  problems.push.destroy();
  problems.auto.destroy();
  single.destroy();
  for (const k of [...new Set([1, count])]) {
    const graph = PartitionedGraph.upload(devices.slice(0, k), csr, csc);
    for (const direction of algorithms.includes('bfs') ? (['push', 'auto'] as const) : []) {
      const problem = new PartitionedBfs(graph, {
        direction,
        breakdown: values.breakdown,
        merge: bfsMerge(exchange),
        profile: values.profile,
      });
      const ms: number[] = [];
      const levelCount: number[] = [];
      const perSource: PartitionedRun[][] = [];
      let exchanged = 0;
      for (const [i, source] of sources.entries()) {
        const got = await problem.run(source);
        exchanged = got.exchangedBytes;
        levelCount.push(got.iterations);
        if (!got.depths.every((d, v) => d === want[i]![v])) {
          throw new Error(
            `partitioned BFS (${k} devices, ${direction}) from ${source} differs from one GPU's`,
          );
        }
        const runs = await timedRuns(
          () => problem.search(source),
          repeat,
          (r) => r.iterations,
        );
        perSource.push(runs.map((r) => ({ source, ...r })));
        ms.push(medianRun(runs).wallMs);
      }
      problem.destroy();
      const one = median(onOne[direction]!);
      const kept = median(reused[direction]!);
      const row = {
        devices: k,
        direction,
        medianMs: median(ms),
        oneGpuMs: one,
        oneGpuReusedMs: kept,
        speedup: kept / median(ms),
        exchangedBytesLastSource: exchanged,
        levels: levelCount,
        pinned: devices.slice(0, k).map((d) => d.adapter.pciBusId ?? 'default'),
        breakdown: values.breakdown,
        medianRun: medianRun(perSource.map(medianRun)),
        runs: perSource.flat(),
      };
      rows.push(row);
      console.log(
        `bfs ${direction} on ${k} device(s): ${row.medianMs.toFixed(2)} ms; one GPU ${kept.toFixed(2)} ms with its problem kept (${row.speedup.toFixed(2)}x), bfs() ${one.toFixed(2)} ms`,
      );
      console.log(timingLine(perSource.map(medianRun)));
    }
    // PageRank a row a chunk count, the others once.
    const runsOf = others.flatMap((a): [Algorithm, number | undefined][] =>
      a === 'pagerank' ? chunks.map((c) => [a, c]) : [[a, undefined]],
    );
    for (const [algorithm, count] of runsOf) {
      const { ms, result } = oneGpu[algorithm]!;
      const run = await timeOthersPartitioned(algorithm, graph, sources, repeat, result, {
        breakdown: values.breakdown,
        exchange,
        chunks: count,
        decode,
      });
      const row = {
        devices: k,
        algorithm,
        ...(algorithm === 'pagerank' ? { chunks: run.chunks } : {}),
        medianMs: median(run.ms),
        oneGpuMs: median(ms),
        speedup: median(ms) / median(run.ms),
        exchangedBytesLastSource: run.exchanged,
        rounds: run.rounds,
        pinned: devices.slice(0, k).map((d) => d.adapter.pciBusId ?? 'default'),
        breakdown: values.breakdown,
        medianRun: medianRun(run.runs.map(medianRun)),
        runs: run.runs.flat(),
      };
      rows.push(row);
      console.log(
        `${algorithm} on ${k} device(s): ${row.medianMs.toFixed(2)} ms; one GPU ${row.oneGpuMs.toFixed(2)} ms (${row.speedup.toFixed(2)}x)`,
      );
      console.log(timingLine(run.runs.map(medianRun)));
    }
    graph.destroy();
  }
  if (values.json) {
    await writeFile(
      values.json,
      JSON.stringify(
        {
          command: `weft partitioned ${args.join(' ')}`,
          graph: { vertices: csr.vertexCount, arcs: csr.edgeCount },
          adapter: devices[0]!.adapter,
          sources,
          rows,
        },
        null,
        1,
      ),
    );
  }
  for (const d of devices) d.destroy();
  return 0;
}

/**
 * `--multigraph`: the Kronecker multigraph generated in parts on the GPUs, then partitioned BFS from each
 * source, checked on the GPUs, timed without the depths' read-back.
 */
async function multigraphRun(o: {
  devices: WeftDevice[];
  scale: number;
  split: PartitionOptions;
  sources: number;
  repeat: number;
  json: string | undefined;
  args: string[];
  algorithms: Algorithm[];
  againstOne: boolean;
  breakdown: boolean;
  exchange: PageRankExchange;
  chunks: (number | undefined)[];
  profile: boolean;
  decode: DistanceDecode;
}): Promise<void> {
  const start = performance.now();
  const graph = await kroneckerMultigraphPartitioned(o.devices, { scale: o.scale, seed: 1 }, o.split);
  for (const d of o.devices) await d.idle();
  const buildMs = performance.now() - start;
  const parts = graph.parts.map((p) => ({
    lo: p.lo,
    hi: p.hi,
    base: p.base,
    arcs: p.graph.edgeCount,
    chunks: p.graph.chunkedTargets.chunks.length,
    device: o.devices.indexOf(p.graph.device),
  }));
  console.log(
    `kronecker multigraph ${o.scale}: ${graph.vertexCount} vertices, ${graph.edgeCount} arcs in ${parts.length} parts, ${buildMs.toFixed(0)} ms`,
  );
  for (const p of parts)
    console.log(`  part [${p.lo}, ${p.hi}) base ${p.base}: ${p.arcs} arcs, device ${p.device}`);
  // Sources need only which rows are non-empty: a count of non-empty rows before each vertex stands for offsets.
  const n = graph.vertexCount;
  const nonEmpty = new Uint32Array(n + 1);
  for (const p of graph.parts) {
    const offsets = await p.graph.offsets.download();
    for (let v = p.lo; v < p.hi; v++) nonEmpty[v + 1] = offsets[v + 1]! > offsets[v]! ? 1 : 0;
  }
  for (let v = 0; v < n; v++) nonEmpty[v + 1]! += nonEmpty[v]!;
  const sources = pickSources({ vertexCount: n, offsets: nonEmpty }, 1, o.sources);
  const rows: Record<string, unknown>[] = [];
  const breakdown = o.breakdown;
  for (const direction of ['push', 'auto'] as const) {
    const problem = new PartitionedBfs(graph, {
      direction,
      breakdown,
      merge: bfsMerge(o.exchange),
      profile: o.profile,
    });
    const perSource: PartitionedRun[][] = [];
    for (const source of sources) {
      const got = await problem.run(source);
      const depths = asSignedDepths(got.depths);
      const bad = await verifyBfsPartitionedOnGpu(graph, source, depths);
      if (bad) throw new Error(`partitioned BFS (${direction}) from ${source}: ${bad}`);
      const runs = await timedRuns(
        () => problem.search(source),
        o.repeat,
        (r) => r.iterations,
      );
      perSource.push(runs.map((r) => ({ source, ...r })));
    }
    problem.destroy();
    const ms = perSource.map((r) => medianRun(r).wallMs);
    const middle = median(ms);
    const runs = perSource.map(medianRun);
    rows.push({
      direction,
      medianMs: middle,
      perSourceMs: ms,
      breakdown,
      exchange: o.exchange,
      medianRun: medianRun(runs),
      runs: perSource.flat(),
    });
    console.log(
      `bfs ${direction} over ${parts.length} parts: ${middle.toFixed(2)} ms (median over sources, checked)`,
    );
    console.log(timingLine(runs));
  }
  if (o.algorithms.includes('sssp')) {
    // Weights 1-255 computed from each arc's vertex pair: no weight chunks beside a part's target chunks.
    const weight = pairWeightFunctor({ seed: 1, weights: true });
    const perSource: PartitionedRun[][] = [];
    for (const source of sources) {
      const got = await ssspPartitioned(graph, source, {
        weight,
        exchange: minMerge(o.exchange),
        decode: o.decode,
      });
      const bad = await verifySsspPartitionedOnGpu(graph, source, got.distances, weight);
      if (bad) throw new Error(`partitioned SSSP from ${source}: ${bad}`);
      // The checked run above is the untimed first one.
      const run = () =>
        ssspPartitioned(graph, source, { weight, exchange: minMerge(o.exchange), decode: o.decode });
      const runs = await timedRuns(run, o.repeat, (r) => r.rounds, { warm: false });
      perSource.push(runs.map((r) => ({ source, ...r })));
    }
    const ms = perSource.map((r) => medianRun(r).wallMs);
    const middle = median(ms);
    const runs = perSource.map(medianRun);
    rows.push({
      algorithm: 'sssp',
      medianMs: middle,
      perSourceMs: ms,
      exchange: o.exchange,
      medianRun: medianRun(runs),
      runs: perSource.flat(),
    });
    console.log(
      `sssp (weights 1-255 by vertex pair) over ${parts.length} parts: ${middle.toFixed(2)} ms (median over sources, with the read-back, checked)`,
    );
    console.log(timingLine(runs));
  }
  if (o.againstOne) rows.push(...(await againstOneGpu(o, graph, sources)));
  graph.destroy();
  if (o.json) {
    const out = {
      command: `weft partitioned ${o.args.join(' ')}`,
      graph: { vertices: n, arcs: graph.edgeCount, buildMs, parts },
      adapter: o.devices[0]!.adapter,
      sources,
      rows,
    };
    await writeFile(o.json, JSON.stringify(out, null, 1));
  }
}

type Timer = (run: () => Promise<unknown>) => Promise<number>;
/** Per source (one entry for pagerank and cc): the one-GPU result the partitioned one must match. */
type Expected = (Float64Array | Float32Array | Uint32Array)[];

/** The one-GPU runs of `algorithms` (not BFS): median wall times and results per source. */
async function timeOthersOnOne(
  algorithms: Algorithm[],
  graph: DeviceGraph,
  sources: number[],
  time: Timer,
  decode: DistanceDecode,
): Promise<Partial<Record<Algorithm, { ms: number[]; result: Expected }>>> {
  const out: Partial<Record<Algorithm, { ms: number[]; result: Expected }>> = {};
  for (const algorithm of algorithms) {
    const ms: number[] = [];
    const result: Expected = [];
    if (algorithm === 'sssp') {
      for (const source of sources) {
        result.push((await sssp(graph, source, { decode })).distances);
        ms.push(await time(() => sssp(graph, source, { decode })));
      }
    } else if (algorithm === 'pagerank') {
      result.push((await pageRank(graph)).ranks);
      ms.push(await time(() => pageRank(graph)));
    } else {
      result.push((await connectedComponents(graph)).labels);
      ms.push(await time(() => connectedComponents(graph)));
    }
    out[algorithm] = { ms, result };
  }
  return out;
}

/** The partitioned runs of one algorithm (per source for SSSP), each checked against the one-GPU result. */
async function timeOthersPartitioned(
  algorithm: Algorithm,
  graph: PartitionedGraph,
  sources: number[],
  repeat: number,
  want: Expected,
  {
    breakdown,
    exchange,
    chunks,
    decode,
  }: {
    breakdown: boolean;
    exchange: PageRankExchange;
    chunks: number | undefined;
    decode: DistanceDecode;
  },
): Promise<{ ms: number[]; exchanged: number; rounds: number[]; runs: PartitionedRun[][]; chunks: number }> {
  const runs: PartitionedRun[][] = [];
  const rounds: number[] = [];
  let exchanged = 0;
  let used = 1;
  const k = graph.parts.length;
  const differs = (what: string) => new Error(`partitioned ${what} (${k} devices) differs from one GPU's`);
  if (algorithm === 'sssp') {
    for (const [i, source] of sources.entries()) {
      const got = await ssspPartitioned(graph, source, { exchange: minMerge(exchange), decode });
      if (!got.distances.every((d, v) => d === want[i]![v])) throw differs(`SSSP from ${source}`);
      exchanged = got.exchangedBytes;
      rounds.push(got.rounds);
      const timed = await timedRuns(
        () => ssspPartitioned(graph, source, { exchange: minMerge(exchange), decode }),
        repeat,
        (r) => r.rounds,
      );
      runs.push(timed.map((r) => ({ source, ...r })));
    }
  } else if (algorithm === 'pagerank') {
    const got = await pageRankPartitioned(graph, { exchange, ...chunksOption(chunks) });
    console.log(exchangeLine(exchange, got));
    const one = want[0]!;
    if (!got.ranks.every((r, v) => Math.abs(r - one[v]!) <= 1e-3 * Math.max(r, one[v]!))) {
      throw differs('PageRank');
    }
    exchanged = got.exchangedBytes;
    used = got.chunks;
    rounds.push(got.iterations);
    runs.push(
      await timedRuns(
        () => pageRankPartitioned(graph, { breakdown, exchange, ...chunksOption(chunks) }),
        repeat,
        (r) => r.iterations,
      ),
    );
  } else {
    const got = await connectedComponentsPartitioned(graph, { exchange: minMerge(exchange) });
    if (!got.labels.every((l, v) => l === want[0]![v])) throw differs('components');
    exchanged = got.exchangedBytes;
    rounds.push(got.rounds);
    runs.push(
      await timedRuns(
        () => connectedComponentsPartitioned(graph, { exchange: minMerge(exchange) }),
        repeat,
        (r) => r.rounds,
      ),
    );
  }
  return { ms: runs.map((r) => medianRun(r).wallMs), exchanged, rounds, runs, chunks: used };
}

/**
 * Depths with unreached (0xffffffff) as -1, the verifiers' convention: the same bits read as i32. A view, not
 * `Int32Array.from(depths, fn)`, which lists every element in a JS array first (past V8's limit at scale 27).
 */
function asSignedDepths(depths: Uint32Array | Int32Array): Int32Array {
  return new Int32Array(depths.buffer, depths.byteOffset, depths.length);
}

/**
 * `--against-one`: the same multigraph as one part on the first GPU, each algorithm timed there (the
 * single-GPU functions, not the partitioned ones on one part) and on the parts, whose results must match.
 */
async function againstOneGpu(
  o: {
    devices: WeftDevice[];
    scale: number;
    repeat: number;
    algorithms: Algorithm[];
    breakdown: boolean;
    exchange: PageRankExchange;
    chunks: (number | undefined)[];
    profile: boolean;
    decode: DistanceDecode;
  },
  graph: PartitionedGraph,
  sources: number[],
): Promise<Record<string, unknown>[]> {
  const first = o.devices[0]!;
  const whole = await kroneckerMultigraphPartitioned([first], { scale: o.scale, seed: 1 }, { parts: 1 });
  const one = whole.parts[0]!.graph;
  const k = new Set(graph.parts.map((p) => p.graph.device)).size;
  const timed = (run: () => Promise<unknown>) => medianWallMs(run, o.repeat);
  const differs = (what: string) =>
    new Error(`partitioned ${what} (${graph.parts.length} parts on ${k} devices) differs from one GPU's`);
  const rows: Record<string, unknown>[] = [];
  const breakdown = o.breakdown;
  const report = (algorithm: string, oneMs: number[], runs: (PartitionedRun & { source?: number })[][]) => {
    const partsMs = runs.map((r) => medianRun(r).wallMs);
    const row = {
      algorithm,
      devices: k,
      parts: graph.parts.length,
      oneGpuMs: median(oneMs),
      medianMs: median(partsMs),
      speedup: median(oneMs) / median(partsMs),
      breakdown,
      exchange: o.exchange,
      medianRun: medianRun(runs.map(medianRun)),
      runs: runs.flat(),
    };
    rows.push(row);
    console.log(
      `${algorithm}: one GPU ${row.oneGpuMs.toFixed(2)} ms, ${row.parts} parts on ${k} device(s) ${row.medianMs.toFixed(2)} ms: ${row.speedup.toFixed(2)}x (checked against one GPU)`,
    );
    console.log(timingLine(runs.map(medianRun)));
  };
  try {
    if (o.algorithms.includes('bfs')) {
      // Both keep their problem across sources and leave the depths on the GPUs while timed.
      const single = new BfsProblem(one, { direction: 'auto' });
      const parted = new PartitionedBfs(graph, {
        direction: 'auto',
        breakdown,
        merge: bfsMerge(o.exchange),
        profile: o.profile,
      });
      const search = async (source: number) => {
        const rec = first.recorder({ label: 'bfs reset' });
        await single.reset(rec, source);
        await rec.submit();
        return enact(first, single, {});
      };
      const oneMs: number[] = [];
      const partsRuns: PartitionedRun[][] = [];
      for (const source of sources) {
        await search(source);
        const want = await single.depths.download(0, one.vertexCount);
        const got = await parted.run(source);
        if (!got.depths.every((d, v) => d === want[v])) throw differs(`BFS from ${source}`);
        oneMs.push(await timed(() => search(source)));
        const runs = await timedRuns(
          () => parted.search(source),
          o.repeat,
          (r) => r.iterations,
        );
        partsRuns.push(runs.map((r) => ({ source, ...r })));
      }
      single.destroy();
      parted.destroy();
      report('bfs direction-optimizing', oneMs, partsRuns);
    }
    if (o.algorithms.includes('sssp')) {
      const weight = pairWeightFunctor({ seed: 1, weights: true });
      const oneMs: number[] = [];
      const partsRuns: PartitionedRun[][] = [];
      for (const source of sources) {
        const want = (await sssp(one, source, { weight, decode: o.decode })).distances;
        const got = await ssspPartitioned(graph, source, {
          weight,
          exchange: minMerge(o.exchange),
          decode: o.decode,
        });
        if (!got.distances.every((d, v) => d === want[v])) throw differs(`SSSP from ${source}`);
        oneMs.push(await timed(() => sssp(one, source, { weight, decode: o.decode })));
        const run = () =>
          ssspPartitioned(graph, source, { weight, exchange: minMerge(o.exchange), decode: o.decode });
        const runs = await timedRuns(run, o.repeat, (r) => r.rounds);
        partsRuns.push(runs.map((r) => ({ source, ...r })));
      }
      report('sssp (weights 1-255 by vertex pair)', oneMs, partsRuns);
    }
    if (o.algorithms.includes('pagerank')) {
      const want = (await pageRank(one)).ranks;
      const oneMs = [await timed(() => pageRank(one))];
      // A row a chunk count, on the same graph and against the same one-GPU time.
      for (const chunks of o.chunks) {
        const options = { exchange: o.exchange, ...chunksOption(chunks) };
        const result = await pageRankPartitioned(graph, options);
        console.log(exchangeLine(o.exchange, result));
        const got = result.ranks;
        if (!got.every((r, v) => Math.abs(r - want[v]!) <= 1e-3 * Math.max(r, want[v]!)))
          throw differs('PageRank');
        const runs = await timedRuns(
          () => pageRankPartitioned(graph, { breakdown, ...options }),
          o.repeat,
          (r) => r.iterations,
        );
        report('pagerank', oneMs, [runs]);
        const bytes = {
          bytesPerIteration: result.bytesPerIteration,
          fullBytesPerIteration: result.fullBytesPerIteration,
          chunks: result.chunks,
        };
        Object.assign(rows.at(-1)!, bytes);
      }
    }
    if (o.algorithms.includes('cc')) {
      const want = (await connectedComponents(one)).labels;
      const got = (await connectedComponentsPartitioned(graph, { exchange: minMerge(o.exchange) })).labels;
      if (!got.every((l, v) => l === want[v])) throw differs('components');
      const runs = await timedRuns(
        () => connectedComponentsPartitioned(graph, { exchange: minMerge(o.exchange) }),
        o.repeat,
        (r) => r.rounds,
      );
      report('cc', [await timed(() => connectedComponents(one))], [runs]);
    }
  } finally {
    whole.destroy();
  }
  return rows;
}

type PageRankExchange = 'boundary' | 'full';

/** `--chunks` as PageRank's option: absent where not given, so the library picks. */
function chunksOption(chunks: number | undefined): { chunks?: number } {
  return chunks === undefined ? {} : { chunks };
}

/** BFS's merge for `--exchange`: full ORs dense levels' bitmaps on the host, as before the devices did. */
function bfsMerge(exchange: PageRankExchange): 'device' | 'host' {
  return exchange === 'full' ? 'host' : 'device';
}

/** SSSP's and CC's exchange for `--exchange`: full sends pairs or whole vectors only, as before bitmaps. */
function minMerge(exchange: PageRankExchange): 'compact' | 'pairs' {
  return exchange === 'full' ? 'pairs' : 'compact';
}

/** PageRank's bytes an iteration with the exchange run and with the full one. */
function exchangeLine(
  exchange: PageRankExchange,
  r: { bytesPerIteration: number; fullBytesPerIteration: number; chunks: number },
): string {
  const mb = (b: number) => `${b} B (${(b / 2 ** 20).toFixed(2)} MiB)`;
  return `  pagerank exchange ${exchange}: ${mb(r.bytesPerIteration)} an iteration (full: ${mb(r.fullBytesPerIteration)}), in ${r.chunks} chunk(s)`;
}

function median(xs: number[]): number {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

/** The median wall time of `repeat` runs after an untimed one. */
async function medianWallMs(run: () => Promise<unknown>, repeat: number): Promise<number> {
  await run();
  const ms: number[] = [];
  for (let r = 0; r < repeat; r++) {
    const t = performance.now();
    await run();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

/** A timed partitioned run: its wall time, its iterations (levels, iterations or exchange rounds) and timing. */
interface PartitionedRun {
  wallMs: number;
  iterations: number;
  timing: PartitionedTiming;
  /** BFS: the levels whose new vertices went between devices as ids, not bitmaps. */
  queueLevels?: number;
  /** BFS with `--profile`: each part's kernels, GPU time summed over the levels. */
  kernels?: PartitionedKernelTime[];
}

/** `repeat` runs after an untimed one (unless not `warm`), each with what it reported; `iterations` reads
 * its count. */
async function timedRuns<
  R extends { timing: PartitionedTiming; queueLevels?: number; kernels?: PartitionedKernelTime[] },
>(
  run: () => Promise<R>,
  repeat: number,
  iterations: (result: R) => number,
  { warm = true } = {},
): Promise<PartitionedRun[]> {
  if (warm) await run();
  const runs: PartitionedRun[] = [];
  for (let r = 0; r < repeat; r++) {
    const t = performance.now();
    const got = await run();
    const wallMs = performance.now() - t;
    const queued = got.queueLevels === undefined ? {} : { queueLevels: got.queueLevels };
    const kernels = got.kernels === undefined ? {} : { kernels: got.kernels };
    runs.push({ wallMs, iterations: iterations(got), timing: got.timing, ...queued, ...kernels });
  }
  return runs;
}

/** The run of median wall time (the upper one of an even count, as `median`). */
function medianRun<T extends { wallMs: number }>(runs: T[]): T {
  return [...runs].sort((a, b) => a.wallMs - b.wallMs)[Math.floor(runs.length / 2)]!;
}

/** One line: the median run's iterations and where its time went; with `--profile`, each part's kernels. */
function timingLine(runs: PartitionedRun[]): string {
  const { wallMs, iterations, timing: t, queueLevels, kernels } = medianRun(runs);
  const ms = (x: number) => `${x.toFixed(2)} ms`;
  const ids = queueLevels === undefined ? '' : ` (${queueLevels} sent as ids)`;
  const line = `  median run ${ms(wallMs)}: ${iterations} iterations${ids}; setup ${ms(t.setupMs)}, compute ${ms(t.computeMs)}, read-back ${ms(t.readbackMs)}, host ${ms(t.hostMs)}, upload ${ms(t.uploadMs)}, result ${ms(t.resultMs)}`;
  const rows = (kernels ?? []).map(
    (k) => `    part ${k.part}: ${k.label.padEnd(44)} x${String(k.calls).padEnd(4)} ${k.ms.toFixed(3)} ms`,
  );
  return [line, ...rows].join('\n');
}
