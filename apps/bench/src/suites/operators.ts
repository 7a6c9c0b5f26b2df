import { type DeviceArray, max, rw, u32, type WeftDevice, wgsl } from '@weft/gpu';
import { type DeviceGraph, FrontierBitmap, type HostCsr, uploadGraph } from '@weft/graph';
import {
  advancePull,
  advancePush,
  compute,
  filter,
  intersectionCount,
  neighborhoodReduce,
} from '@weft/operators';
import type { BenchGraph } from '../graphs.ts';
import type { BenchCase, BenchInstance } from '../types.ts';
import { firstMismatch } from '../validate.ts';
import { type GraphInput, makeGraph, selectedInput } from './algorithms.ts';

/*
 * Gunrock's operators one call at a time, on the algorithms suite's Kronecker (skewed degrees) and grid (degree
 * <= 4) graphs of about `n` arcs, or on chosen graphs. Each run is one operator call on a fixed input, validated
 * against a TypeScript reference. Items are what the operator walks: edges for advances, neighborhood
 * reductions and intersections (the shorter list of each pair), vertices for pull, filter and compute. The
 * advance frontier is every even vertex (about half the edges).
 */

const frontierOf = (csr: HostCsr) => {
  const vs: number[] = [];
  for (let v = 0; v < csr.vertexCount; v += 2) vs.push(v);
  return Uint32Array.from(vs);
};

const degree = (csr: HostCsr, v: number) => csr.offsets[v + 1]! - csr.offsets[v]!;

/** Host reference and GPU arrays of one case; `run` records one operator call. */
interface OperatorSetup {
  items: number;
  run: BenchInstance['run'];
  validate(): Promise<string | null>;
  arrays: { destroy(): void }[];
}

function operatorCase(
  op: string,
  input: GraphInput,
  make: (device: WeftDevice, csr: HostCsr, graph: DeviceGraph) => OperatorSetup,
): BenchCase {
  return {
    name: `${op} ${input.label}`,
    family: 'operators',
    maxItems: (device) => Math.min(input.maxItems, Math.floor(device.limits.maxStorageBufferBindingSize / 4)),
    async setup(device, n, seed) {
      const csr = input.get(n, seed);
      const graph = uploadGraph(device, csr, { csc: csr.directed });
      const s = make(device, csr, graph);
      return {
        items: s.items,
        bytes: 0,
        ...(input.stats ? { graph: input.stats } : {}),
        run: s.run,
        validate: s.validate,
        destroy() {
          for (const a of s.arrays) a.destroy();
          graph.destroy();
        },
      };
    },
  };
}

/**
 * advancePush from the even vertices: the functor stores `dst + 1` at the edge's slot (non-atomic, one write
 * per edge) and keeps neighbors with an even id, which are appended to the output frontier.
 */
function advancePushCase(input: GraphInput, loadBalance: 'merge-path' | 'thread-mapped'): BenchCase {
  return operatorCase(`advancePush ${loadBalance}`, input, (device, csr, graph) => {
    const vertices = frontierOf(csr);
    let edges = 0;
    let kept = 0;
    const marks = new Uint32Array(csr.edgeCount);
    for (const v of vertices) {
      for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
        const dst = csr.targets[e]!;
        marks[e] = dst + 1;
        edges++;
        if ((dst & 1) === 0) kept++;
      }
    }
    const items = device.upload(vertices, { label: 'advance frontier' });
    const slot = device.array('u32', Math.max(1, csr.edgeCount), { label: 'advance marks' });
    const out = device.array('u32', Math.max(1, kept), { label: 'advance output' });
    const count = device.array('u32', 1, { label: 'advance output length' });
    const functor = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
      ${rw(slot)}[edge] = dst + 1u;
      return (dst & 1u) == 0u;
    }`;
    return {
      items: edges,
      async run(rec) {
        rec.clear(slot);
        await advancePush(rec, graph, { items, length: vertices.length }, functor, {
          output: { items: out, count },
          loadBalance,
        });
      },
      async validate() {
        const m = firstMismatch((await slot.download()).subarray(0, csr.edgeCount), marks);
        if (m !== null) return `edge marks: ${m}`;
        const got = (await count.download())[0]!;
        if (got !== kept) return `${got} vertices appended, expected ${kept}`;
        return null;
      },
      arrays: [items, slot, out, count],
    };
  });
}

/**
 * advancePull: every odd vertex walks its in-edges until one comes from the (even-vertex) frontier bitmap,
 * then joins the output. Items are the candidate (odd) vertices.
 */
function advancePullCase(input: GraphInput): BenchCase {
  return operatorCase('advancePull', input, (device, csr, graph) => {
    const n = csr.vertexCount;
    const bitmap = new FrontierBitmap(device, n, 'pull frontier');
    const words = new Uint32Array(bitmap.words.length);
    for (let v = 0; v < n; v += 2) words[v >>> 5]! |= 1 << (v & 31);
    bitmap.words.upload(words);
    // On an undirected graph in-edges are the CSR's; on a directed one, u -> v with u even reaches odd v.
    const expected = new Uint8Array(n);
    for (let u = 0; u < n; u += 2) {
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const v = csr.targets[e]!;
        if (v & 1) expected[v] = 1;
      }
    }
    const want = expected.reduce((s, x) => s + x, 0);
    const out = device.array('u32', Math.max(1, n), { label: 'pull output' });
    const count = device.array('u32', 1, { label: 'pull output length' });
    return {
      items: n >>> 1,
      run: (rec) =>
        advancePull(rec, graph, bitmap, wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`, {
          candidate: wgsl`(v: u32) -> bool { return (v & 1u) == 1u; }`,
          output: { items: out, count },
        }),
      async validate() {
        const got = (await count.download())[0]!;
        if (got !== want) return `${got} vertices pulled, expected ${want}`;
        const vs = (await out.download(0, got)).sort();
        const wanted = Uint32Array.from([...expected.keys()].filter((v) => expected[v] === 1));
        const m = firstMismatch(vs, wanted);
        return m === null ? null : `pulled vertices: ${m}`;
      },
      arrays: [bitmap, out, count],
    };
  });
}

/** filter: of every vertex, keep those of degree at least the average (in order, by compaction). */
function filterCase(input: GraphInput): BenchCase {
  return operatorCase('filter', input, (device, csr, graph) => {
    const n = csr.vertexCount;
    const threshold = Math.ceil(csr.edgeCount / Math.max(1, n));
    const all = Uint32Array.from({ length: n }, (_, v) => v);
    const want = all.filter((v) => degree(csr, v) >= threshold);
    const items = device.upload(all, { label: 'filter input' });
    const out = device.array('u32', Math.max(1, n), { label: 'filter output' });
    const count = device.array('u32', 1, { label: 'filter output length' });
    const predicate = wgsl`(v: u32) -> bool {
      return ${graph.offsets}[v + 1u] - ${graph.offsets}[v] >= ${u32(threshold)};
    }`;
    return {
      items: n,
      run: (rec) => filter(rec, { items, length: n }, predicate, { items: out, count }),
      async validate() {
        const got = (await count.download())[0]!;
        if (got !== want.length) return `${got} vertices kept, expected ${want.length}`;
        const m = firstMismatch(await out.download(0, got), want);
        return m === null ? null : `kept vertices: ${m}`;
      },
      arrays: [items, out, count],
    };
  });
}

/** neighborhoodReduce over all vertices: the largest neighbor id (max monoid; 0 without neighbors). */
function neighborhoodCase(input: GraphInput): BenchCase {
  return operatorCase('neighborhoodReduce max', input, (device, csr, graph) => {
    const n = csr.vertexCount;
    const want = new Uint32Array(n);
    for (let v = 0; v < n; v++) {
      for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
        want[v] = Math.max(want[v]!, csr.targets[e]!);
      }
    }
    const out = device.array('u32', Math.max(1, n), { label: 'neighborhood maxima' });
    const f = wgsl`(v: u32, u: u32, edge: u32) -> u32 { return u; }`;
    return {
      items: csr.edgeCount,
      run: (rec) => neighborhoodReduce(rec, graph, 'all', f, out, { monoid: max('u32') }),
      async validate() {
        const m = firstMismatch((await out.download()).subarray(0, n), want);
        return m === null ? null : `maxima: ${m}`;
      },
      arrays: [out],
    };
  });
}

/** compute over all vertices: each writes its degree. */
function computeCase(input: GraphInput): BenchCase {
  return operatorCase('compute', input, (device, csr, graph) => {
    const n = csr.vertexCount;
    const want = Uint32Array.from({ length: n }, (_, v) => degree(csr, v));
    const out = device.array('u32', Math.max(1, n), { label: 'compute degrees' });
    const f = wgsl`(v: u32) { ${rw(out)}[v] = ${graph.offsets}[v + 1u] - ${graph.offsets}[v]; }`;
    return {
      items: n,
      run: (rec) => compute(rec, { all: n }, f),
      async validate() {
        const m = firstMismatch((await out.download()).subarray(0, n), want);
        return m === null ? null : `degrees: ${m}`;
      },
      arrays: [out],
    };
  });
}

/** Common neighbors of both ends of every arc (sorted CSR rows; items: the shorter list of each pair). */
function intersectionCase(input: GraphInput): BenchCase {
  return operatorCase('intersectionCount', input, (device, csr, graph) => {
    const m = csr.edgeCount;
    const first = new Uint32Array(m);
    for (let v = 0; v < csr.vertexCount; v++) {
      for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) first[e] = v;
    }
    const second = csr.targets.slice(0, m);
    const want = new Uint32Array(m);
    let walked = 0;
    for (let e = 0; e < m; e++) {
      const a = first[e]!;
      const b = second[e]!;
      walked += Math.min(degree(csr, a), degree(csr, b));
      want[e] = commonNeighbors(csr, a, b);
    }
    const firstGpu = device.upload(first.length > 0 ? first : new Uint32Array(1));
    const secondGpu = device.upload(second.length > 0 ? second : new Uint32Array(1));
    const out = device.array('u32', Math.max(1, m), { label: 'intersection counts' });
    return {
      items: walked,
      run: (rec) => intersectionCount(rec, graph, firstGpu, secondGpu, m, out),
      async validate() {
        const mm = firstMismatch((await out.download()).subarray(0, m), want);
        return mm === null ? null : `counts: ${mm}`;
      },
      arrays: [firstGpu, secondGpu, out] as DeviceArray<'u32'>[],
    };
  });
}

/** Size of the intersection of two sorted CSR rows (merge). */
function commonNeighbors(csr: HostCsr, a: number, b: number): number {
  let i = csr.offsets[a]!;
  let j = csr.offsets[b]!;
  const iEnd = csr.offsets[a + 1]!;
  const jEnd = csr.offsets[b + 1]!;
  let c = 0;
  while (i < iEnd && j < jEnd) {
    const x = csr.targets[i]!;
    const y = csr.targets[j]!;
    if (x === y) {
      c++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return c;
}

function operatorCases(input: GraphInput, directed: boolean): BenchCase[] {
  return [
    advancePushCase(input, 'merge-path'),
    advancePushCase(input, 'thread-mapped'),
    advancePullCase(input),
    filterCase(input),
    neighborhoodCase(input),
    computeCase(input),
    // Intersections of directed rows are well defined too, but triangle-style pairs assume undirected rows.
    ...(directed ? [] : [intersectionCase(input)]),
  ];
}

const shape = (s: 'kronecker' | 'grid'): GraphInput => ({
  label: s,
  get: (n, seed) => makeGraph(s, n, seed, true),
  // Kronecker to 2^27 arcs; intersections of the grid are cheap, its advances too.
  maxItems: 2 ** 27,
});

export const cases: BenchCase[] = [
  ...operatorCases(shape('kronecker'), false),
  ...operatorCases(shape('grid'), false),
];

/** The operators on a chosen graph. */
export function casesForGraph(g: BenchGraph): BenchCase[] {
  return operatorCases(selectedInput(g), g.csr.directed);
}
