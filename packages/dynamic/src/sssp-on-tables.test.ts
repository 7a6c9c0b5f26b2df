import { type SsspOptions, sssp, ssspReference } from '@weft/algorithms';
import type { WeftDevice } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';

/** The default (`'auto'`: near-far on these sparse graphs), a width, and Bellman-Ford. */
const DELTAS: SsspOptions['delta'][] = [undefined, 5, 'off'];

/** Every delta's distances (and parents' tightness) equal Dijkstra's on the tables' own CSR. */
async function expectSsspMatches(g: DynamicGraph, sources: number[], what: string) {
  const csr = await g.toHostCsr();
  for (const source of sources) {
    const want = ssspReference(csr, source);
    for (const delta of DELTAS) {
      const options = delta === undefined ? {} : { delta };
      const got = await sssp(g, source, { ...options, parents: delta === 5 });
      expectArrayEqual(got.distances, want, `${what}: from ${source}, delta ${delta}`);
      got.parents?.forEach((p, v) => {
        if (p === -1) {
          expect(v === source || want[v] === Number.POSITIVE_INFINITY, `${what}: parent of ${v}`).toBe(true);
        } else {
          expect(want[p]! <= want[v]!, `${what}: parent ${p} of ${v}`).toBe(true);
        }
      });
    }
  }
}

/** Random weights: integral, a quarter of them zero; f32 ones in quarters (sums stay exact in f32). */
function weightsOf(type: 'u32' | 'f32', count: number, rand: () => number) {
  const w = Array.from({ length: count }, () => (rand() < 0.25 ? 0 : 1 + Math.floor(rand() * 60)));
  return type === 'f32' ? Float32Array.from(w, (x) => x / 4) : Uint32Array.from(w);
}

async function randomBatches(device: WeftDevice, type: 'u32' | 'f32', directed: boolean, seed: number) {
  const n = 200;
  const rand = mulberry32(seed);
  const pick = () => Math.floor(rand() * n);
  // Vertices from 150 up get no edges from the batches: unreachable from the others.
  const low = () => Math.floor(rand() * 150);
  const g = await DynamicGraph.create(device, { vertexCount: n, directed, values: type });
  try {
    const edges: [number, number][] = [];
    for (let batch = 0; batch < 3; batch++) {
      const src: number[] = [];
      const dst: number[] = [];
      for (let i = 0; i < 300; i++) {
        src.push(low());
        dst.push(low());
      }
      // A self-loop, a duplicate within the batch and a hub.
      src.push(3, 4, 4);
      dst.push(3, 5, 5);
      for (let i = 0; i < 70; i++) {
        src.push(7);
        dst.push(low());
      }
      await g.insertEdges(Uint32Array.from(src), Uint32Array.from(dst), weightsOf(type, src.length, rand));
      src.forEach((s, i) => {
        edges.push([s, dst[i]!]);
      });
      if (batch > 0) {
        const gone = Array.from({ length: 80 }, () => edges[Math.floor(rand() * edges.length)]!);
        await g.deleteEdges(
          Uint32Array.from(gone, (e) => e[0]),
          Uint32Array.from(gone, (e) => e[1]),
        );
      }
      await expectSsspMatches(
        g,
        [7, 160, pick()],
        `${type} ${directed ? 'directed' : 'undirected'} batch ${batch}`,
      );
    }
  } finally {
    g.destroy();
  }
}

describe('sssp on the tables: near-far and Bellman-Ford equal Dijkstra', () => {
  it('after batches of random insertions and deletions, u32 and f32 weights with zeros', () =>
    gpuTest(async (device) => {
      await randomBatches(device, 'u32', true, 1);
      await randomBatches(device, 'f32', false, 2);
    }));

  it('a weighted path (high diameter) and a star; bad deltas and sources throw', () =>
    gpuTest(async (device) => {
      const n = 140;
      const path = await DynamicGraph.create(device, { vertexCount: n, directed: false, values: 'u32' });
      const star = await DynamicGraph.create(device, { vertexCount: n, directed: true, values: 'f32' });
      try {
        const rand = mulberry32(3);
        const from = Uint32Array.from({ length: n - 1 }, (_, i) => i);
        await path.insertEdges(
          from,
          from.map((i) => i + 1),
          weightsOf('u32', n - 1, rand),
        );
        await expectSsspMatches(path, [0, 70], 'path');
        await star.insertEdges(
          new Uint32Array(n - 1),
          from.map((i) => i + 1),
          weightsOf('f32', n - 1, rand),
        );
        // Back from the leaves to a second hub, and a chain off it.
        await star.insertEdges(
          from.map((i) => i + 1),
          Uint32Array.from(from, (i) => (i < 10 ? i + 2 : 1)),
          weightsOf('f32', n - 1, rand),
        );
        await expectSsspMatches(star, [0, 5], 'star');
      } finally {
        path.destroy();
        star.destroy();
      }
      const g = await DynamicGraph.create(device, { vertexCount: 4, directed: true, values: 'u32' });
      const f = await DynamicGraph.create(device, { vertexCount: 4, directed: true, values: 'f32' });
      const empty = await DynamicGraph.create(device, { vertexCount: 0, directed: true, values: 'u32' });
      try {
        await g.insertEdges(Uint32Array.of(0, 1), Uint32Array.of(1, 2), Uint32Array.of(2, 3));
        await f.insertEdges(Uint32Array.of(0, 1), Uint32Array.of(1, 2), Float32Array.of(0.5, 0.25));
        for (const delta of [0, -1, 1.5, Number.POSITIVE_INFINITY, Number.NaN]) {
          await expect(sssp(g, 0, { delta }), `delta ${delta}`).rejects.toThrow(/delta must be/);
        }
        await expect(sssp(g, 0, { delta: 'near' as never })).rejects.toThrow(/delta must be/);
        expectArrayEqual((await sssp(f, 0, { delta: 5 })).distances, Float64Array.of(0, 0.5, 0.75, Infinity));
        expectArrayEqual(
          (await sssp(g, 3, { delta: 5 })).distances,
          Float64Array.of(Infinity, Infinity, Infinity, 0),
        );
        await expect(sssp(empty, 0)).rejects.toThrow(/not a vertex/);
        // Sums past the encoding's bound are an error, not a wrong distance; so is a NaN weight.
        await g.insertEdges(
          Uint32Array.of(2, 3),
          Uint32Array.of(3, 0),
          Uint32Array.of(0x7fffffff, 0x80000000),
        );
        await expect(sssp(g, 1, { delta: 'off' })).rejects.toThrow(/reached 2\^32 - 2/);
        await f.insertEdges(Uint32Array.of(2), Uint32Array.of(3), Float32Array.of(3e38));
        await f.insertEdges(Uint32Array.of(3), Uint32Array.of(0), Float32Array.of(3e38));
        await expect(sssp(f, 2)).rejects.toThrow(/largest finite f32/);
        await f.insertEdges(Uint32Array.of(3), Uint32Array.of(1), Float32Array.of(Number.NaN));
        await expect(sssp(f, 0)).rejects.toThrow(/negative weight \(or a NaN/);
      } finally {
        g.destroy();
        f.destroy();
        empty.destroy();
      }
    }));
});
