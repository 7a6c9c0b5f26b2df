import { checkOptionsObject, InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { rng } from './community-reference.ts';

// A plain TypeScript reference on a host CSR: the test oracle and the bench's CPU baseline.

/** The options `betweennessCentrality` and `betweennessReference` share (networkx's names). */
export interface BetweennessSampling {
  /** Sample this many distinct sources (1 to the vertex count) with `seed`; default: every vertex. */
  k?: number;
  /** Seed of the sampling (mulberry32, then a partial Fisher-Yates shuffle of the ids); default 0. */
  seed?: number;
  /** Explicit distinct sources instead of `k` (scaled as a sample of `sources.length`). */
  sources?: readonly number[];
  /** Divide by the number of (s, t) pairs, as networkx does (default true). */
  normalized?: boolean;
  /** Count the endpoints s and t as on the path (default false). */
  endpoints?: boolean;
}

/**
 * The sources a run takes: `sources` (checked), `k` sampled with `seed`, or undefined for every vertex
 * (networkx's `k == n` included: the sample is then the whole graph and scales as such).
 */
export function betweennessSources(n: number, options: BetweennessSampling): number[] | undefined {
  const { k, sources } = options;
  if (k !== undefined && sources !== undefined) {
    throw new InputError('give k (sampled sources) or sources, not both', 'sources');
  }
  if (sources !== undefined) {
    if (sources.length === 0) throw new InputError('sources is empty', 'sources');
    const seen = new Set<number>();
    for (const [i, s] of sources.entries()) {
      if (!Number.isInteger(s) || s < 0 || s >= n) {
        throw new InputError(`sources[${i}] = ${s} is not a vertex (the graph has ${n})`, 'sources');
      }
      if (seen.has(s)) throw new InputError(`sources[${i}] = ${s} repeats an earlier source`, 'sources');
      seen.add(s);
    }
    return sources.length === n ? undefined : [...sources];
  }
  if (k === undefined) return undefined;
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new InputError(`k must be an integer in [1, ${n}] (the vertex count), got ${k}`, 'k');
  }
  if (k === n) return undefined;
  const seed = options.seed ?? 0;
  if (!Number.isInteger(seed)) throw new InputError(`seed must be an integer, got ${seed}`, 'seed');
  const words = rng(seed);
  const random = () => words() / 4294967296;
  const ids = Uint32Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(random() * (n - i));
    const t = ids[i]!;
    ids[i] = ids[j]!;
    ids[j] = t;
  }
  return Array.from(ids.subarray(0, k));
}

/**
 * networkx's `_rescale` in place: the raw sums over `sampled` sources (undefined: all of them) divided by the
 * pairs counted. With a sample and without endpoints, sampled vertices scale by k - 1 sources (NaN for k = 1,
 * as networkx gives), the others by k.
 */
export function rescaleBetweenness(
  values: Float32Array | Float64Array,
  directed: boolean,
  options: Pick<BetweennessSampling, 'normalized' | 'endpoints'>,
  sampled: readonly number[] | undefined,
): void {
  const n = values.length;
  const endpoints = options.endpoints ?? false;
  const pairsEnd = endpoints ? n : n - 1;
  if (pairsEnd < 2) return;
  const k = sampled ? sampled.length : pairsEnd;
  const scaleFor = (sources: number) =>
    sources < 1
      ? Number.NaN
      : (options.normalized ?? true)
        ? 1 / (sources * (pairsEnd - 1))
        : pairsEnd / (sources * (directed ? 1 : 2));
  const other = scaleFor(k);
  const source = sampled && !endpoints ? scaleFor(k - 1) : other;
  const isSource = new Uint8Array(n);
  for (const s of sampled ?? []) isSource[s] = 1;
  for (let v = 0; v < n; v++) values[v] = values[v]! * (isSource[v] ? source : other);
}

/**
 * Betweenness centrality by Brandes (f64), as networkx's `betweenness_centrality` computes it on an
 * unweighted graph: duplicate edges count once, self-loops never. Weights are ignored.
 */
export function betweennessReference(csr: HostCsr, options: BetweennessSampling = {}): Float64Array {
  checkOptionsObject('betweennessReference', options);
  const n = csr.vertexCount;
  const sampled = betweennessSources(n, options);
  const sources = sampled ?? Array.from({ length: n }, (_, i) => i);
  const endpoints = options.endpoints ?? false;
  const bc = new Float64Array(n);
  const depth = new Int32Array(n);
  const sigma = new Float64Array(n);
  const delta = new Float64Array(n);
  const order = new Uint32Array(n);
  // The walk (one stamp per vertex walked) that last reached each target, so a duplicate edge counts once.
  const seen = new Float64Array(n).fill(-1);
  let stamp = 0;
  for (const s of sources) {
    depth.fill(-1);
    sigma.fill(0);
    depth[s] = 0;
    sigma[s] = 1;
    order[0] = s;
    let tail = 1;
    for (let head = 0; head < tail; head++) {
      const u = order[head]!;
      stamp++;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const w = csr.targets[e]!;
        if (seen[w] === stamp) continue;
        seen[w] = stamp;
        if (depth[w] === -1) {
          depth[w] = depth[u]! + 1;
          order[tail++] = w;
        }
        if (depth[w] === depth[u]! + 1) sigma[w] = sigma[w]! + sigma[u]!;
      }
    }
    if (endpoints) bc[s] = bc[s]! + tail - 1;
    for (let i = tail - 1; i > 0; i--) {
      const u = order[i]!;
      let sum = 0;
      stamp++;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const w = csr.targets[e]!;
        if (seen[w] === stamp) continue;
        seen[w] = stamp;
        if (depth[w] === depth[u]! + 1) sum += (1 + delta[w]!) / sigma[w]!;
      }
      delta[u] = sigma[u]! * sum;
      bc[u] = bc[u]! + delta[u]! + (endpoints ? 1 : 0);
    }
  }
  rescaleBetweenness(bc, csr.directed, options, sampled);
  return bc;
}
