import { bfs, connectedComponents, pageRank, sssp, triangleCount } from '@weft/algorithms';
import { atomic, type DeviceArray, min, type WeftDevice, wgsl } from '@weft/gpu';
import { type DeviceGraph, FrontierQueue } from '@weft/graph';
import { advancePush, intersectionCount, type NeighborGraph, neighborhoodReduce } from '@weft/operators';
import { expectArrayEqual, expectClose, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';

const N = 300;

/**
 * Seeded batches on a dynamic graph and its host model: a hub with degree hints (many buckets) and one
 * without (a long chain), self-loops and duplicates, deletions of present and absent edges, reinsertion
 * of deleted edges with new values, a rehash, an emptied vertex, a deleted vertex and a long path.
 */
async function* batches(device: WeftDevice, directed: boolean, seed: number) {
  const hints = new Uint32Array(N);
  hints[0] = 300;
  const g = await DynamicGraph.create(device, {
    vertexCount: N,
    directed,
    values: 'u32',
    degreeHints: hints,
  });
  const model = new HostDynamicGraph(N, directed);
  const rand = mulberry32(seed);
  const pick = () => Math.floor(rand() * N);
  const inserted: [number, number][] = [];
  const insert = async (src: number[], dst: number[]) => {
    const values = src.map(() => 1 + Math.floor(rand() * 100));
    await g.insertEdges(Uint32Array.from(src), Uint32Array.from(dst), Uint32Array.from(values));
    model.insertEdges(src, dst, values);
    src.forEach((s, i) => {
      inserted.push([s, dst[i]!]);
    });
  };
  const remove = async (src: number[], dst: number[]) => {
    await g.deleteEdges(Uint32Array.from(src), Uint32Array.from(dst));
    model.deleteEdges(src, dst);
  };
  try {
    for (let batch = 0; batch < 5; batch++) {
      if (batch === 0) {
        const src = [0, 0, 5, 5, 5];
        const dst = [0, 1, 6, 6, 6];
        for (let i = 0; i < 260; i++) {
          src.push(0);
          dst.push(pick());
        }
        for (let i = 0; i < 900; i++) {
          src.push(pick());
          dst.push(pick());
        }
        await insert(src, dst);
      } else if (batch === 1) {
        const gone = Array.from({ length: 250 }, () => inserted[Math.floor(rand() * inserted.length)]!);
        for (let i = 0; i < 20; i++) gone.push([pick(), pick()]);
        await remove(
          gone.map((e) => e[0]),
          gone.map((e) => e[1]),
        );
        // Half of them back, with new values; a second hub grows a chain without hints.
        const back = gone.slice(0, 125);
        const src = back.map((e) => e[0]);
        const dst = back.map((e) => e[1]);
        for (let i = 0; i < 200; i++) {
          src.push(1);
          dst.push(pick());
        }
        await insert(src, dst);
      } else if (batch === 2) {
        await g.rehash();
        const src: number[] = [];
        const dst: number[] = [];
        for (let i = 0; i < 400; i++) {
          src.push(pick());
          dst.push(pick());
        }
        await insert(src, dst);
      } else if (batch === 3) {
        const seven = [...model.adjacency[7]!.keys()];
        await remove(
          seven.map(() => 7),
          seven,
        );
        await g.deleteVertices([9]);
        model.deleteVertices([9]);
        const path = Array.from({ length: 99 }, (_, i) => 100 + i);
        await insert(
          path,
          path.map((v) => v + 1),
        );
      } else {
        const src: number[] = [];
        const dst: number[] = [];
        for (let i = 0; i < 300; i++) {
          src.push(pick());
          dst.push(pick());
        }
        await remove(src.slice(0, 150), dst.slice(0, 150));
        await insert(src.slice(150), dst.slice(150));
      }
      const snapshot = await g.toDeviceGraph();
      try {
        yield { g, snapshot, model, batch, rand };
      } finally {
        snapshot.destroy();
      }
    }
  } finally {
    g.destroy();
  }
}

/** The same operator calls on the tables and on the snapshot give the same answers. */
async function expectOperatorsMatch(
  device: WeftDevice,
  g: DynamicGraph,
  snap: DeviceGraph,
  rand: () => number,
) {
  const values = (graph: DynamicGraph | DeviceGraph) => (graph === g ? g.values : snap.weights!);
  const f = (graph: DynamicGraph | DeviceGraph) =>
    wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return dst * 7u + src + ${values(graph)}[edge] % 5u; }`;
  const picks = Array.from({ length: 120 }, (_, i) => (i === 0 ? 0 : i === 1 ? 1 : Math.floor(rand() * N)));
  const queue = new FrontierQueue(device, N);
  queue.set(picks);
  const a = Uint32Array.from({ length: 200 }, (_, i) => (i % 4 === 0 ? 0 : Math.floor(rand() * N)));
  const b = Uint32Array.from({ length: 200 }, (_, i) => (i % 9 === 0 ? a[i]! : Math.floor(rand() * N)));
  const first = device.upload(a);
  const second = device.upload(b);
  const results: Uint32Array[][] = [];
  for (const graph of [snap, g] as (DeviceGraph | NeighborGraph)[]) {
    const out: Uint32Array[] = [];
    const read = async (x: DeviceArray<'u32'>, n: number) => {
      out.push(await x.download(0, n));
      x.destroy();
    };
    const key = graph === g ? g : snap;
    for (const input of ['all', queue.current] as const) {
      const len = input === 'all' ? N : picks.length;
      const sum = device.array('u32', N);
      const least = device.array('u32', N);
      await neighborhoodReduce(device, graph, input, f(key), sum);
      await neighborhoodReduce(device, graph, input, f(key), least, { monoid: min('u32') });
      await read(sum, len);
      await read(least, len);
      // Every edge of the input once: in-degrees and value sums per target.
      const hits = device.array('u32', N);
      const weight = device.array('u32', N);
      await hits.fill(0);
      await weight.fill(0);
      await advancePush(
        device,
        graph,
        input,
        wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  atomicAdd(&${atomic(hits)}[dst], 1u);
  atomicAdd(&${atomic(weight)}[dst], ${values(key)}[edge]);
  return false;
}`,
      );
      await read(hits, N);
      await read(weight, N);
    }
    const common = device.array('u32', a.length);
    await intersectionCount(device, graph, first, second, a.length, common, {
      accept: wgsl`(a: u32, b: u32, w: u32) -> bool { return w != b; }`,
    });
    await read(common, a.length);
    results.push(out);
  }
  const names = ['sum', 'min', 'visits', 'value sums'];
  results[0]!.forEach((want, i) => {
    const what = i === 8 ? 'common neighbors' : `${names[i % 4]} (${i < 4 ? 'all' : 'frontier'})`;
    expectArrayEqual(results[1]![i]!, want, what);
  });
  for (const x of [queue, first, second]) x.destroy();
}

async function expectAlgorithmsMatch(g: DynamicGraph, snap: DeviceGraph, model: HostDynamicGraph) {
  for (const source of [0, 100, 7]) {
    const want = await bfs(snap, source);
    const got = await bfs(g, source, { parents: true });
    expectArrayEqual(got.depths, want.depths, `bfs depths from ${source}`);
    const mapped = await bfs(g, source, { loadBalance: 'thread-mapped', claim: 'depth' });
    expectArrayEqual(mapped.depths, want.depths, `thread-mapped bfs depths from ${source}`);
    const bitmap = await bfs(g, source, { claim: 'bitmap', parents: true });
    expectArrayEqual(bitmap.depths, want.depths, `bfs depths from ${source}, bitmap claims`);
    bitmap.parents!.forEach((p, v) => {
      if (v !== source && bitmap.depths[v] !== -1)
        expect(bitmap.depths[p], `parent of ${v}`).toBe(bitmap.depths[v]! - 1);
    });
    // Parents may differ between equally good trees: each must be a tight edge of the graph.
    got.parents!.forEach((p, v) => {
      if (v === source || got.depths[v] === -1) {
        expect(p, `bfs parent of ${v}`).toBe(-1);
        return;
      }
      expect(model.adjacency[p]!.has(v), `bfs parent edge ${p} -> ${v}`).toBe(true);
      expect(got.depths[p], `bfs parent depth of ${v}`).toBe(got.depths[v]! - 1);
    });
    const paths = await sssp(snap, source, { delta: 'off' });
    const gotPaths = await sssp(g, source, { parents: true });
    expectArrayEqual(gotPaths.distances, paths.distances, `sssp distances from ${source}`);
    gotPaths.parents!.forEach((p, v) => {
      if (p === -1) {
        expect(v === source || !Number.isFinite(gotPaths.distances[v]!)).toBe(true);
        return;
      }
      const w = model.adjacency[p]!.get(v)!;
      expect(gotPaths.distances[p]! + w, `sssp parent of ${v}`).toBe(gotPaths.distances[v]);
    });
  }
  const ranks = await pageRank(snap, {
    weight: null,
    tolerance: 1e-6,
    direction: g.directed ? 'push' : 'pull',
  });
  const gotRanks = await pageRank(g, { tolerance: 1e-6 });
  expect(gotRanks.converged).toBe(true);
  expectClose(gotRanks.ranks, ranks.ranks, (v) => 1e-4 * ranks.ranks[v]!);
  const components = await connectedComponents(snap);
  const gotComponents = await connectedComponents(g);
  expectArrayEqual(gotComponents.labels, components.labels, 'component labels');
  expect(gotComponents.count).toBe(components.count);
  if (!g.directed) {
    const triangles = await triangleCount(snap);
    const gotTriangles = await triangleCount(g);
    expect(gotTriangles.count, 'triangles').toBe(triangles.count);
    expectArrayEqual(gotTriangles.perVertex, triangles.perVertex, 'triangles per vertex');
  }
}

describe('algorithms on the tables: weights and options', () => {
  it('sssp reads f32 and i32 values as weights, refuses negative ones; CSR-only options throw', () =>
    gpuTest(async (device) => {
      const n = 120;
      const rand = mulberry32(11);
      const src = Uint32Array.from({ length: 600 }, () => Math.floor(rand() * n));
      const dst = Uint32Array.from({ length: 600 }, () => Math.floor(rand() * n));
      for (const values of ['f32', 'i32'] as const) {
        const g = await DynamicGraph.create(device, { vertexCount: n, directed: true, values });
        // Integral weights: every path length is exact in f32, so distances equal whichever path wins.
        const w = Array.from({ length: 600 }, () => Math.floor(rand() * 50));
        await g.insertEdges(src, dst, values === 'f32' ? Float32Array.from(w) : Int32Array.from(w));
        const snap = await g.toDeviceGraph();
        try {
          const want = await sssp(snap, src[0]!, { delta: 'off' });
          expectArrayEqual((await sssp(g, src[0]!)).distances, want.distances, `${values} distances`);
          await g.insertEdges(
            Uint32Array.of(src[1]!),
            Uint32Array.of(dst[1]!),
            values === 'f32' ? Float32Array.of(-2) : Int32Array.of(-2),
          );
          await expect(sssp(g, src[0]!)).rejects.toThrow(/negative weight/);
        } finally {
          snap.destroy();
        }
        await expect(bfs(g, 0, { direction: 'pull' })).rejects.toThrow(/needs a CSR/);
        await expect(pageRank(g, { direction: 'pull' })).rejects.toThrow(/undirected/);
        await expect(pageRank(g, { gatherOrder: true })).rejects.toThrow(/a gather order needs a CSR/);
        await expect(triangleCount(g)).rejects.toThrow(/undirected/);
        await expect(connectedComponents(g, { algorithm: 'label-propagation' })).rejects.toThrow(
          /needs a CSR/,
        );
        await expect(bfs(g, n, {})).rejects.toThrow(/not a vertex/);
        g.destroy();
      }
    }));
});

describe('operators and algorithms on the tables equal the static ones on the snapshot', () => {
  for (const directed of [true, false]) {
    it(`${directed ? 'directed' : 'undirected'}: after every batch of insertions and deletions`, () =>
      gpuTest(async (device) => {
        for await (const { g, snapshot, model, batch, rand } of batches(device, directed, directed ? 5 : 6)) {
          expect(snapshot.edgeCount, `batch ${batch}: snapshot edges`).toBe(model.edgeCount());
          await expectOperatorsMatch(device, g, snapshot, rand);
          await expectAlgorithmsMatch(g, snapshot, model);
        }
      }));
  }
});
