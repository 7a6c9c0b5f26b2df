import { DynamicGraph } from '@weft/dynamic';
import type { WeftDevice } from '@weft/gpu';
import { csrFromEdgeList, type HostCsr, kronecker } from '@weft/graph';
import { mulberry32 } from '@weft/testing/random';
import type { BenchCase, BenchInstance } from '../types.ts';
import { firstMismatch } from '../validate.ts';

/**
 * Dynamic graph operation rates (Awad et al., IPDPS 2020, §VI): batches of edges into a loaded undirected
 * Kronecker graph (scale 20, 16 edges per vertex where a binding holds its slab pool; scale 14 on small
 * adapters). `n` is the batch size (2^10 .. 2^20); items count edges (one direction).
 */
const MAX_BATCH = 2 ** 20;

/** Small adapters (lavapipe: 128 MiB bindings, 1 M slabs) hold a smaller graph and smaller batches. */
function maxBatch(device: WeftDevice): number {
  return device.limits.maxStorageBufferBindingSize >= 2 ** 30 ? MAX_BATCH : 2 ** 16;
}

function baseScale(device: WeftDevice): number {
  // Scale 20: 2^25 directed edges at load factor 0.7 need about 1.6 M slabs (200 MB) plus the batch headroom.
  return device.limits.maxStorageBufferBindingSize >= 2 ** 30 ? 20 : 14;
}

let cachedBase: { scale: number; csr: HostCsr } | undefined;

function baseGraph(scale: number): HostCsr {
  if (cachedBase?.scale !== scale)
    cachedBase = { scale, csr: csrFromEdgeList(kronecker({ scale, seed: 1 })).csr };
  return cachedBase.csr;
}

function hasEdge(csr: HostCsr, u: number, v: number): boolean {
  let lo = csr.offsets[u]!;
  let hi = csr.offsets[u + 1]!;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (csr.targets[mid]! < v) lo = mid + 1;
    else hi = mid;
  }
  return lo < csr.offsets[u + 1]! && csr.targets[lo] === v;
}

/** `size` random edges absent from the base graph (and no self-loops), so an insert adds every one. */
function newEdges(csr: HostCsr, size: number, seed: number) {
  const rand = mulberry32(seed);
  const n = csr.vertexCount;
  const src = new Uint32Array(size);
  const dst = new Uint32Array(size);
  for (let i = 0; i < size; ) {
    const u = Math.floor(rand() * n);
    const v = Math.floor(rand() * n);
    if (u === v || hasEdge(csr, u, v)) continue;
    src[i] = u;
    dst[i] = v;
    i++;
  }
  return { src, dst };
}

function degreesOf(csr: HostCsr): Uint32Array {
  return Uint32Array.from({ length: csr.vertexCount }, (_, v) => csr.offsets[v + 1]! - csr.offsets[v]!);
}

async function loadedGraph(device: WeftDevice): Promise<{ graph: DynamicGraph; csr: HostCsr }> {
  const csr = baseGraph(baseScale(device));
  return { graph: await DynamicGraph.fromCsr(device, csr), csr };
}

/**
 * Insert a batch of new edges, then delete it: each run claims and tombstones 2 * n keys (both directions),
 * and leaves the graph as it found it. Rate = edges inserted + deleted per second.
 */
export const insertDeleteCase: BenchCase = {
  name: 'dynamic insert+delete batch',
  family: 'dynamic',
  maxItems: maxBatch,
  async setup(device, n, seed): Promise<BenchInstance> {
    const { graph, csr } = await loadedGraph(device);
    const batch = newEdges(csr, n, seed);
    const src = device.upload(batch.src, { label: 'batch sources' });
    const dst = device.upload(batch.dst, { label: 'batch targets' });
    // A first cycle grows the pool as needed; later cycles refill the same chains (and recycle spare slabs),
    // so a reserve of one slab per edge covers any stragglers without counting each run.
    await graph.insertEdges(src, dst);
    await graph.deleteEdges(src, dst);
    await graph.reserveSlabs(2 * n);
    const expected = degreesOf(csr);
    return {
      items: 2 * n,
      // Per edge and direction: the batch ids read (8 B), one key slot written (4 B), the degree updated (4 B).
      bytes: 2 * n * 2 * 16,
      run: async (rec) => {
        await graph.insertEdges(src, dst, undefined, { recorder: rec, maxNewSlabs: 0 });
        await graph.deleteEdges(src, dst, { recorder: rec });
      },
      validate: async () => {
        await graph.check();
        const degrees = firstMismatch(await graph.degrees(), expected);
        if (degrees) return `degrees after insert+delete: ${degrees}`;
        const some = Math.min(n, 4096);
        const found = await graph.edgeExists(batch.src.subarray(0, some), batch.dst.subarray(0, some));
        return firstMismatch(found, new Uint32Array(some));
      },
      destroy: () => {
        src.destroy();
        dst.destroy();
        graph.destroy();
      },
    };
  },
};

/** Edge queries: half the batch are edges of the graph, half are not. */
export const queryCase: BenchCase = {
  name: 'dynamic edge queries',
  family: 'dynamic',
  maxItems: maxBatch,
  async setup(device, n, seed): Promise<BenchInstance> {
    const { graph, csr } = await loadedGraph(device);
    const absent = newEdges(csr, n, seed);
    const rand = mulberry32(seed + 1);
    const want = new Uint32Array(n);
    for (let i = 0; i < n; i += 2) {
      const u = Math.floor(rand() * csr.vertexCount);
      const deg = csr.offsets[u + 1]! - csr.offsets[u]!;
      if (deg === 0) continue;
      absent.src[i] = u;
      absent.dst[i] = csr.targets[csr.offsets[u]! + Math.floor(rand() * deg)]!;
      want[i] = 1;
    }
    const src = device.upload(absent.src, { label: 'query sources' });
    const dst = device.upload(absent.dst, { label: 'query targets' });
    const found = device.array('u32', n, { label: 'query found' });
    return {
      items: n,
      bytes: n * 12,
      run: (rec) => graph.queryEdgesOnDevice(rec, src, dst, found),
      validate: async () => firstMismatch(await found.download(), want),
      destroy: () => {
        for (const a of [src, dst, found]) a.destroy();
        graph.destroy();
      },
    };
  },
};

export const cases: BenchCase[] = [insertDeleteCase, queryCase];
