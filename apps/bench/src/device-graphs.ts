import { type FileHandle, mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import {
  atomic,
  type DeviceArray,
  type Functor,
  rw,
  transform,
  u32,
  type WeftDevice,
  WeftError,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph, PartitionedGraph } from '@weft/graph';
import { kroneckerMultigraphOnDevice } from '@weft/graph/generators';
import type { GraphStats } from './graphs.ts';
import { pageRankStepError } from './validate.ts';

/*
 * Kronecker graphs too large for the host (`--kron SCALE` whose arcs exceed one storage binding, or every
 * scale with `--kron-on-device`): generated and built on the GPU by the scatter build, targets and weights in
 * chunks, never copied to the host whole. Validators stream the arcs back one chunk at a time beside
 * vertex-sized host arrays (offsets, the result), so they check Graph500's and GAP's rules instead of
 * comparing with a TypeScript reference run on a host copy of the graph (docs/decisions/device-generators.md).
 */

/** A Kronecker multigraph built on the GPU for the bench: built once, shared by every case run on it. */
export interface DeviceBenchGraph {
  /** `kron-26`: the same word a host-generated graph of this scale would have. */
  name: string;
  scale: number;
  seed: number;
  stats: GraphStats;
  graph: DeviceGraph;
  /** The CSR offsets on the host (vertex-sized), for sources, TEPS edges and the validators. */
  offsets: Uint32Array;
}

/** Undirected edges of a Kronecker graph at edge factor 16: `--kron`'s and Graph500's. */
const EDGE_FACTOR = 16;

/**
 * Whether `--kron scale` is built on the GPU: its arcs (both directions of every edge, before self-loops are
 * dropped) would exceed one storage binding, which the host build's upload needs, or `always` is set.
 */
export function kronOnDevice(device: WeftDevice, scale: number, always: boolean): boolean {
  return always || 2 * EDGE_FACTOR * 2 ** scale * 4 > device.limits.maxStorageBufferBindingSize;
}

/**
 * Generates and builds the weighted (1-255) Kronecker multigraph of `scale` on the GPU and checks its
 * structure by streaming it back (see {@link checkStructure}); throws a one-line error when the GPU lacks
 * the memory or a check fails.
 */
export async function buildKronOnDevice(
  device: WeftDevice,
  scale: number,
  seed: number,
): Promise<DeviceBenchGraph> {
  const start = performance.now();
  const graph = await kroneckerMultigraphOnDevice(device, {
    scale,
    edgeFactor: EDGE_FACTOR,
    seed,
    weights: true,
  });
  await device.idle();
  const loadMs = performance.now() - start;
  try {
    const offsets = await graph.offsets.download();
    const problem = await checkStructure(graph, offsets);
    if (problem !== null) throw new WeftError(`kron-${scale} built on the GPU is malformed: ${problem}`);
    let maxDegree = 0;
    let isolated = 0;
    for (let v = 0; v < graph.vertexCount; v++) {
      const d = offsets[v + 1]! - offsets[v]!;
      if (d > maxDegree) maxDegree = d;
      if (d === 0) isolated++;
    }
    const name = `kron-${scale}`;
    const stats: GraphStats = {
      name,
      generator: `kronecker scale ${scale} edge factor ${EDGE_FACTOR} (Graph500 initiator, Philox) seed ${seed}, built on the GPU: self-loops dropped, duplicates kept`,
      vertices: graph.vertexCount,
      arcs: graph.edgeCount,
      directed: false,
      maxDegree,
      isolated,
      weights: 'generator',
      loadMs,
    };
    return { name, scale, seed, stats, graph, offsets };
  } catch (e) {
    graph.destroy();
    throw e;
  }
}

/** One chunk of a graph's arcs on the host: arcs `start .. start + targets.length`. */
interface ArcChunk {
  start: number;
  targets: Uint32Array;
  weights: Uint32Array | undefined;
}

/** The graph's arcs, one chunk of targets (and weights) read back at a time. */
async function* arcChunks(graph: DeviceGraph, withWeights: boolean): AsyncGenerator<ArcChunk> {
  const t = graph.chunkedTargets.chunks;
  const w = withWeights ? graph.chunkedWeights?.chunks : undefined;
  let start = 0;
  for (const [c, chunk] of t.entries()) {
    const targets = await chunk.download();
    const weights = w ? ((await w[c]!.download()) as Uint32Array) : undefined;
    yield { start, targets, weights };
    start += targets.length;
  }
}

/** The vertex whose out-arcs include arc `e`: the last `u` with `offsets[u] <= e` (ties: the non-empty one). */
function sourceOf(offsets: Uint32Array, e: number): number {
  let [lo, hi] = [0, offsets.length - 1];
  while (hi - lo > 1) {
    const mid = (lo + hi) >>> 1;
    if (offsets[mid]! <= e) lo = mid;
    else hi = mid;
  }
  return lo;
}

/**
 * Walks every arc `(u, v, w)` (w 0 without weights), chunk by chunk. `visit` returns a problem to stop at, or
 * undefined.
 */
async function walkArcs(
  graph: DeviceGraph,
  offsets: Uint32Array,
  withWeights: boolean,
  visit: (u: number, v: number, w: number) => string | undefined,
): Promise<string | null> {
  for await (const { start, targets, weights } of arcChunks(graph, withWeights)) {
    if (targets.length === 0) continue;
    let u = sourceOf(offsets, start);
    let end = offsets[u + 1]!;
    for (let i = 0; i < targets.length; i++) {
      const e = start + i;
      while (e >= end) end = offsets[++u + 1]!;
      const problem = visit(u, targets[i]!, weights ? weights[i]! : 0);
      if (problem !== undefined) return problem;
    }
  }
  return null;
}

const mix = (a: number, b: number, c: number) => {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b, 0xc2b2ae35) ^ Math.imul(c, 0x27d4eb2f);
  h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d);
  return (h ^ (h >>> 13)) >>> 0;
};

/**
 * The checks a graph built on the GPU must pass, streamed: offsets start at 0 and end at the arc count, every
 * target is a vertex other than its source, weights lie in [1, 255], and the arcs are symmetric as a
 * multiset with weights (an order-free hash sum of (u, v, w) equals that of (v, u, w)). Null when it passes.
 */
export async function checkStructure(graph: DeviceGraph, offsets: Uint32Array): Promise<string | null> {
  const n = graph.vertexCount;
  if (offsets[0] !== 0 || offsets[n] !== graph.edgeCount) {
    return `offsets run from ${offsets[0]} to ${offsets[n]}, expected 0 to ${graph.edgeCount}`;
  }
  let forward = 0;
  let backward = 0;
  const problem = await walkArcs(graph, offsets, true, (u, v, w) => {
    if (v >= n) return `arc ${u} -> ${v} leaves the ${n} vertices`;
    if (v === u) return `self-loop at ${u}`;
    if (w < 1 || w > 255) return `arc ${u} -> ${v} has weight ${w}, outside 1-255`;
    forward = (forward + mix(u, v, w)) >>> 0;
    backward = (backward + mix(v, u, w)) >>> 0;
    return undefined;
  });
  if (problem !== null) return problem;
  if (forward !== backward) return 'the arcs are not symmetric (hash sums differ)';
  return null;
}

/**
 * Graph500's BFS validation, exact for depths: the source at 0, every arc joins two reached vertices at most
 * one level apart or two unreached ones, and every other reached vertex has a neighbour one level up.
 */
export async function verifyBfsStreamed(
  g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>,
  source: number,
  depths: Int32Array,
): Promise<string | null> {
  const n = g.graph.vertexCount;
  if (depths.length !== n) return `${depths.length} depths for ${n} vertices`;
  if (depths[source] !== 0) return `the source ${source} has depth ${depths[source]}`;
  const parented = new Uint8Array(n);
  const problem = await walkArcs(g.graph, g.offsets, false, (u, v) => {
    const du = depths[u]!;
    const dv = depths[v]!;
    if (du < 0 !== dv < 0) return `arc ${u} -> ${v} joins depths ${du} and ${dv} (one unreached)`;
    if (du >= 0 && Math.abs(du - dv) > 1) return `arc ${u} -> ${v} joins depths ${du} and ${dv}`;
    if (du >= 0 && du === dv - 1) parented[v] = 1;
    return undefined;
  });
  if (problem !== null) return problem;
  for (let v = 0; v < n; v++) {
    if (v !== source && depths[v]! >= 0 && parented[v] === 0) {
      return `vertex ${v} at depth ${depths[v]} has no neighbour at depth ${depths[v]! - 1}`;
    }
  }
  return null;
}

/**
 * GAP's SSSP validation, exact for positive integer weights: the source at 0, no arc `(u, v, w)` with
 * `d[v] > d[u] + w`, and every other reached vertex with a tight incoming arc (`d[u] + w = d[v]`).
 */
export async function verifySsspStreamed(
  g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>,
  source: number,
  distances: Float64Array,
): Promise<string | null> {
  const n = g.graph.vertexCount;
  if (distances.length !== n) return `${distances.length} distances for ${n} vertices`;
  if (distances[source] !== 0) return `the source ${source} has distance ${distances[source]}`;
  const tight = new Uint8Array(n);
  const problem = await walkArcs(g.graph, g.offsets, true, (u, v, w) => {
    const du = distances[u]!;
    const dv = distances[v]!;
    if (du === Number.POSITIVE_INFINITY) {
      return dv === Number.POSITIVE_INFINITY ? undefined : `arc ${u} -> ${v}: ${u} unreached, ${v} at ${dv}`;
    }
    if (dv > du + w) return `arc ${u} -> ${v} (weight ${w}) relaxes ${dv} to ${du + w}`;
    if (dv === du + w) tight[v] = 1;
    return undefined;
  });
  if (problem !== null) return problem;
  for (let v = 0; v < n; v++) {
    if (v !== source && Number.isFinite(distances[v]) && tight[v] === 0) {
      return `vertex ${v} at distance ${distances[v]} has no tight incoming arc`;
    }
  }
  return null;
}

/**
 * Connected components, exact: labels equal across every arc, and as many distinct labels (and `count`) as
 * a host union-find over the streamed arcs finds components.
 */
export async function verifyComponentsStreamed(
  g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>,
  labels: Uint32Array,
  count: number,
): Promise<string | null> {
  const n = g.graph.vertexCount;
  if (labels.length !== n) return `${labels.length} labels for ${n} vertices`;
  const parent = new Int32Array(n);
  for (let v = 0; v < n; v++) parent[v] = v;
  const find = (x: number) => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  let components = n;
  const problem = await walkArcs(g.graph, g.offsets, false, (u, v) => {
    if (labels[u] !== labels[v]) return `arc ${u} -> ${v} joins labels ${labels[u]} and ${labels[v]}`;
    // Each edge once: the structure check found the arcs symmetric.
    if (u > v) return undefined;
    const [a, b] = [find(u), find(v)];
    if (a !== b) {
      parent[Math.max(a, b)] = Math.min(a, b);
      components--;
    }
    return undefined;
  });
  if (problem !== null) return problem;
  // Sorted, not a Set: a V8 Set holds at most 2^24 entries, and scale 26 has tens of millions of components.
  const sorted = labels.slice().sort();
  let distinct = n > 0 ? 1 : 0;
  for (let v = 1; v < n; v++) if (sorted[v] !== sorted[v - 1]) distinct++;
  if (distinct !== components || count !== components) {
    return `${distinct} distinct labels (count ${count}), the graph has ${components} components`;
  }
  return null;
}

/** PageRank by a one-step residual (`pageRankStepError`) over the arcs streamed back chunk by chunk. */
export async function verifyPageRankStreamed(
  g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>,
  ranks: Float32Array,
  alpha = 0.85,
  relTolerance = 1e-3,
): Promise<string | null> {
  const n = g.graph.vertexCount;
  const { offsets } = g;
  if (ranks.length !== n) return `${ranks.length} ranks for ${n} vertices`;
  return pageRankStepError(
    ranks,
    (v) => offsets[v + 1]! - offsets[v]!,
    async (visit) => {
      await walkArcs(g.graph, offsets, false, (u, v) => {
        visit(u, v);
        return undefined;
      });
    },
    alpha,
    relTolerance,
  );
}

/**
 * The gapbs command lines that run the same kernels on a Kronecker graph of the same scale (gapbs generates
 * its own graph with `-g`: the same distribution, not the same graph; see docs/decisions/device-generators.md).
 */
export function gapbsCommands(scale: number, sources: number): string[] {
  const g = `-g ${scale} -k ${EDGE_FACTOR}`;
  return [
    // As anchors/gapbs_anchors.py builds them (shared/anchors/gapbs has no benchmark/bench.mk for make).
    'for k in bfs sssp pr cc; do g++ -std=c++11 -O3 -Wall -fopenmp "$GAPBS"/src/$k.cc -o "$GAPBS"/$k; done   # GAPBS: e.g. shared/anchors/gapbs',
    `"$GAPBS"/bfs ${g} -n ${sources}`,
    `"$GAPBS"/sssp ${g} -n ${sources} -d 2`,
    `"$GAPBS"/pr ${g} -n 16 -i 100 -t 1e-4`,
    `"$GAPBS"/cc ${g} -n 16`,
  ];
}

const NONE = 0xffffffff;

/**
 * Runs `rule` on the GPU over every arc, one kernel per chunk of targets (its weights chunk beside it when
 * `withWeights`), and returns the first arc it flags (or undefined). `rule` is WGSL
 * `(a: u32, u: u32, v: u32, w: u32) -> bool` (true: arc a from u to v of weight w breaks the rule); it may
 * mark per-vertex flags it captures. An arc's source comes from a binary search of the offsets.
 */
async function firstBadArc(
  g: Pick<DeviceBenchGraph, 'graph'>,
  withWeights: boolean,
  rule: Functor,
): Promise<number | undefined> {
  const { graph } = g;
  const device = graph.device;
  const offsets = graph.offsets;
  const bad = device.array('u32', 1, { label: 'first bad arc' });
  try {
    const rec = device.recorder({ label: 'arc rule check' });
    await rec.fill(bad, NONE);
    const sourceOf = wgsl`(a: u32) -> u32 {
  var lo = 0u;
  var hi = ${u32(graph.vertexCount)};
  loop {
    if (hi - lo <= 1u) { break; }
    let mid = (lo + hi) >> 1u;
    if (${offsets}[mid] <= a) { lo = mid; } else { hi = mid; }
  }
  return lo;
}`;
    const size = 2 ** graph.chunkedTargets.shift;
    for (const [c, chunk] of graph.chunkedTargets.chunks.entries()) {
      const weights = withWeights ? graph.chunkedWeights!.chunks[c]! : undefined;
      if (chunk.length === 0) continue;
      const w = weights
        ? wgsl`(i: u32) -> u32 { return u32(${weights}[i]); }`
        : wgsl`(i: u32) -> u32 { return 0u; }`;
      await transform(
        rec,
        chunk.length,
        wgsl`(i: u32) {
  let a = ${u32(c * size)} + i;
  if (${rule}(a, ${sourceOf}(a), ${chunk}[i], ${w}(i))) { atomicMin(&${atomic(bad)}[0], a); }
}`,
      );
    }
    await rec.submit();
    const first = (await bad.download())[0]!;
    return first === NONE ? undefined : first;
  } finally {
    bad.destroy();
  }
}

/** Arc `a` as text for a validator's message: `u -> v` (read back: one target and one offset search). */
async function describeArc(g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>, a: number): Promise<string> {
  const v = (await g.graph.chunkedTargets.download(a, 1))[0]!;
  return `arc ${a} (${sourceOf(g.offsets, a)} -> ${v})`;
}

/**
 * {@link verifyBfsStreamed}'s rules checked on the GPU (the result uploaded, one kernel per chunk, a flag per
 * vertex read back): the same verdicts in a fraction of the host's time, so every source can be validated.
 */
export async function verifyBfsOnGpu(
  g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>,
  source: number,
  depths: Int32Array,
): Promise<string | null> {
  return verifyBfsParts([{ graph: g.graph, offsets: async () => g.offsets }], source, depths);
}

/**
 * {@link verifyBfsOnGpu} on a graph in vertex-range parts (any devices): each part checks its arcs, and a
 * vertex's neighbour one level up may be found in any part, so the parts' flags are ORed on the host.
 */
export async function verifyBfsPartitionedOnGpu(
  graph: PartitionedGraph,
  source: number,
  depths: Int32Array,
): Promise<string | null> {
  const parts = graph.parts.map((p) => ({ graph: p.graph, offsets: () => p.graph.offsets.download() }));
  return verifyBfsParts(parts, source, depths);
}

type CheckedPart = { graph: DeviceGraph; offsets: () => Promise<Uint32Array> };

/**
 * Checks an arc rule over every part: `values` (one word a vertex) uploaded to each part's device, `rule(values,
 * flags)` a {@link firstBadArc} rule that may set a vertex's flag; returns the first broken arc as text (`what`
 * names the rules) or the vertices flagged by any part, since a vertex's witness arc may lie in any part.
 */
async function checkArcsOverParts(
  parts: readonly CheckedPart[],
  values: Int32Array | Uint32Array,
  withWeights: boolean,
  rule: (values: DeviceArray, flags: DeviceArray<'u32'>) => Functor,
  what: string,
): Promise<string | Uint8Array> {
  const n = parts[0]!.graph.vertexCount;
  const flagged = new Uint8Array(n);
  for (const part of parts) {
    const device = part.graph.device;
    const d = device.upload(values, { label: `${what} values to check` });
    const flags = device.array('u32', Math.max(1, n), { label: `${what} vertices with a witness arc` });
    try {
      await flags.fill(0);
      const bad = await firstBadArc(part, withWeights, rule(d, flags));
      if (bad !== undefined) {
        const arc = await describeArc({ graph: part.graph, offsets: await part.offsets() }, bad);
        return `${arc} breaks the ${what} rules`;
      }
      const got = await flags.download(0, n);
      for (let v = 0; v < n; v++) flagged[v]! |= got[v]!;
    } finally {
      d.destroy();
      flags.destroy();
    }
  }
  return flagged;
}

async function verifyBfsParts(
  parts: readonly CheckedPart[],
  source: number,
  depths: Int32Array,
): Promise<string | null> {
  const n = parts[0]!.graph.vertexCount;
  if (depths.length !== n) return `${depths.length} depths for ${n} vertices`;
  if (depths[source] !== 0) return `the source ${source} has depth ${depths[source]}`;
  const parented = await checkArcsOverParts(
    parts,
    depths,
    false,
    (d, flags) => wgsl`(a: u32, u: u32, v: u32, w: u32) -> bool {
  let du = ${d}[u];
  let dv = ${d}[v];
  if (du >= 0i && du + 1i == dv) { ${rw(flags)}[v] = 1u; }
  return (du < 0i) != (dv < 0i) || (du >= 0i && abs(du - dv) > 1i);
}`,
    'BFS depth',
  );
  if (typeof parented === 'string') return parented;
  for (let v = 0; v < n; v++) {
    if (v !== source && depths[v]! >= 0 && parented[v] === 0) {
      return `vertex ${v} at depth ${depths[v]} has no neighbour at depth ${depths[v]! - 1}`;
    }
  }
  return null;
}

/** {@link verifySsspStreamed}'s rules checked on the GPU, as {@link verifyBfsOnGpu}; integer distances. */
export async function verifySsspOnGpu(
  g: Pick<DeviceBenchGraph, 'graph' | 'offsets'>,
  source: number,
  distances: Float64Array,
): Promise<string | null> {
  return verifySsspParts([{ graph: g.graph, offsets: async () => g.offsets }], source, distances, undefined);
}

/**
 * {@link verifySsspOnGpu} on a partitioned graph whose weights `weight` computes (an edge functor, as
 * `ssspPartitioned`'s option): a vertex's tight arc may lie in any part.
 */
export async function verifySsspPartitionedOnGpu(
  graph: PartitionedGraph,
  source: number,
  distances: Float64Array,
  weight: Functor,
): Promise<string | null> {
  const parts = graph.parts.map((p) => ({ graph: p.graph, offsets: () => p.graph.offsets.download() }));
  return verifySsspParts(parts, source, distances, weight);
}

async function verifySsspParts(
  parts: readonly CheckedPart[],
  source: number,
  distances: Float64Array,
  weight: Functor | undefined,
): Promise<string | null> {
  const n = parts[0]!.graph.vertexCount;
  if (distances.length !== n) return `${distances.length} distances for ${n} vertices`;
  if (distances[source] !== 0) return `the source ${source} has distance ${distances[source]}`;
  const words = new Uint32Array(n);
  for (let v = 0; v < n; v++) {
    const x = distances[v]!;
    if (x === Number.POSITIVE_INFINITY) words[v] = NONE;
    else if (Number.isInteger(x) && x >= 0 && x < NONE) words[v] = x;
    else return `vertex ${v} has distance ${x}, not an integer below 2^32 - 1`;
  }
  const arcWeight = weight
    ? wgsl`(a: u32, u: u32, v: u32, stored: u32) -> u32 { return ${weight}(u, v, a); }`
    : wgsl`(a: u32, u: u32, v: u32, stored: u32) -> u32 { return stored; }`;
  const tight = await checkArcsOverParts(
    parts,
    words,
    weight === undefined,
    (d, flags) => wgsl`(a: u32, u: u32, v: u32, stored: u32) -> bool {
  let du = ${d}[u];
  let dv = ${d}[v];
  if (du == ${u32(NONE)}) { return dv != ${u32(NONE)}; }
  let s = du + ${arcWeight}(a, u, v, stored);
  if (s < du) { return true; }
  if (dv == s) { ${rw(flags)}[v] = 1u; }
  return dv > s;
}`,
    'SSSP distance',
  );
  if (typeof tight === 'string') return tight;
  for (let v = 0; v < n; v++) {
    if (v !== source && words[v] !== NONE && tight[v] === 0) {
      return `vertex ${v} at distance ${distances[v]} has no tight incoming arc`;
    }
  }
  return null;
}

/** Largest piece of one `write` call: Node refuses a single write of 2 GiB or more. */
const WRITE_PIECE = 2 ** 28;

async function writeAll(file: FileHandle, bytes: Uint8Array): Promise<void> {
  for (let at = 0; at < bytes.length; at += WRITE_PIECE) {
    await file.write(bytes.subarray(at, Math.min(bytes.length, at + WRITE_PIECE)));
  }
}

/**
 * Writes the graph as gapbs's serialized graphs, `DIR/NAME.sg` (neighbours) and `DIR/NAME.wsg` (neighbour and
 * weight pairs): a directed flag byte (0), the arc and vertex counts and the offsets as int64, then int32s,
 * as gapbs's reader takes them and `anchors/gapbs_anchors.py` writes them. Streams one chunk at a time, so
 * gapbs runs on the very graph the bench ran on. Returns the two paths.
 */
export async function writeGapbsGraphs(g: DeviceBenchGraph, dir: string): Promise<[string, string]> {
  await mkdir(dir, { recursive: true });
  const paths: [string, string] = [join(dir, `${g.name}.sg`), join(dir, `${g.name}.wsg`)];
  const [sg, wsg] = await Promise.all(paths.map((p) => open(p, 'w')));
  try {
    const n = g.graph.vertexCount;
    const head = new DataView(new ArrayBuffer(17));
    head.setUint8(0, 0);
    head.setBigInt64(1, BigInt(g.graph.edgeCount), true);
    head.setBigInt64(9, BigInt(n), true);
    const offsets = new BigInt64Array(n + 1);
    for (let v = 0; v <= n; v++) offsets[v] = BigInt(g.offsets[v]!);
    for (const file of [sg!, wsg!]) {
      await writeAll(file, new Uint8Array(head.buffer));
      await writeAll(file, new Uint8Array(offsets.buffer));
    }
    for await (const { targets, weights } of arcChunks(g.graph, true)) {
      await writeAll(sg!, new Uint8Array(targets.buffer, targets.byteOffset, targets.byteLength));
      const pairs = new Uint32Array(2 * targets.length);
      for (let i = 0; i < targets.length; i++) {
        pairs[2 * i] = targets[i]!;
        pairs[2 * i + 1] = weights![i]!;
      }
      await writeAll(wsg!, new Uint8Array(pairs.buffer));
    }
  } finally {
    await Promise.all([sg!.close(), wsg!.close()]);
  }
  return paths;
}

/** gapbs on the files {@link writeGapbsGraphs} wrote, from the bench's own sources (`-r`, one trial each). */
export function gapbsFileCommands(paths: readonly [string, string], sources: readonly number[]): string[] {
  const list = sources.join(' ');
  return [
    `for s in ${list}; do "$GAPBS"/bfs -f ${paths[0]} -r $s -n 1; done`,
    `for s in ${list}; do "$GAPBS"/sssp -f ${paths[1]} -r $s -n 1 -d 2; done`,
    `"$GAPBS"/pr -f ${paths[0]} -n 16 -i 100 -t 1e-4`,
    `"$GAPBS"/cc -f ${paths[0]} -n 16`,
  ];
}
