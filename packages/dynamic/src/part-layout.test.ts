import { pageRank } from '@weft/algorithms';
import { atomic, Recorder, type SubmitResult, type Target, type WeftDevice, wgsl } from '@weft/gpu';
import type { DeviceGraph } from '@weft/graph';
import { advancePush, type NeighborGraph, neighborhoodReduce, prepareNeighborParts } from '@weft/operators';
import { expectArrayEqual, expectClose, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';

const N = 260;

/** The tables without edge blocks, so that an advance over all vertices takes the parts (one object, kept). */
function partsOnly(g: DynamicGraph): NeighborGraph {
  return {
    device: g.device,
    get vertexCount() {
      return g.vertexCount;
    },
    directed: g.directed,
    get version() {
      return g.version;
    },
    forEachNeighbor: (visit) => g.forEachNeighbor(visit),
    parts: () => g.parts(),
  };
}

/** Per vertex: the sum over its out-edges of `dst * 3 + 1`, by neighborhood reduction. */
async function neighborSums(target: Target, device: WeftDevice, graph: NeighborGraph | DeviceGraph) {
  const out = device.array('u32', graph.vertexCount);
  try {
    const f = wgsl`(src: u32, dst: u32, edge: u32) -> u32 { return dst * 3u + 1u; }`;
    await neighborhoodReduce(target, graph, 'all', f, out);
    if (target !== device) await (target as ReturnType<WeftDevice['recorder']>).submit();
    return await out.download(0, graph.vertexCount);
  } finally {
    out.destroy();
  }
}

/** Per vertex: how many edges reach it, by an advance over all vertices. */
async function inDegrees(device: WeftDevice, graph: NeighborGraph | DeviceGraph) {
  const hits = device.array('u32', graph.vertexCount);
  try {
    await hits.fill(0);
    await advancePush(
      device,
      graph,
      'all',
      wgsl`(src: u32, dst: u32, edge: u32) -> bool { atomicAdd(&${atomic(hits)}[dst], 1u); return false; }`,
    );
    return await hits.download(0, graph.vertexCount);
  } finally {
    hits.destroy();
  }
}

/** The tables' answers equal the snapshot's, on the device and inside a recorder. */
async function expectSameAsSnapshot(device: WeftDevice, g: DynamicGraph, view: NeighborGraph, what: string) {
  const snap = await g.toDeviceGraph();
  try {
    const want = await neighborSums(device, device, snap);
    // Recorded first: a layout kept from an earlier version must not be taken.
    expectArrayEqual(await neighborSums(device.recorder(), device, g), want, `${what}: sums, recorded`);
    expectArrayEqual(await neighborSums(device, device, g), want, `${what}: sums`);
    expectArrayEqual(await inDegrees(device, view), await inDegrees(device, snap), `${what}: advance`);
    const ranks = (await pageRank(snap, { weight: null, tolerance: 1e-6 })).ranks;
    const got = await pageRank(g, { tolerance: 1e-6 });
    expect(got.converged, `${what}: converged`).toBe(true);
    expectClose(got.ranks, ranks, (v) => 1e-4 * ranks[v]!);
  } finally {
    snap.destroy();
  }
}

describe('the part layout kept per version of the tables', () => {
  it('follows every batch: insertions, deletions, a rehash, new vertices', () =>
    gpuTest(async (device) => {
      const rand = mulberry32(32);
      const pick = () => Math.floor(rand() * N);
      const hints = new Uint32Array(N);
      hints[0] = 200;
      const g = await DynamicGraph.create(device, { vertexCount: N, directed: false, degreeHints: hints });
      const view = partsOnly(g);
      try {
        // A hub with many buckets, a path (high diameter), random edges with duplicates among 0 .. 119,
        // and vertices 120 .. 179 isolated.
        const src: number[] = [];
        const dst: number[] = [];
        const edge = (u: number, v: number) => {
          src.push(u);
          dst.push(v);
        };
        for (let v = 1; v < 120; v++) edge(0, v);
        for (let v = 180; v + 1 < N; v++) edge(v, v + 1);
        for (let i = 0; i < 200; i++) edge(pick() % 120, pick() % 120);
        await g.insertEdges(Uint32Array.from(src), Uint32Array.from(dst));
        await expectSameAsSnapshot(device, g, view, 'built');
        // A pageRank call leaves the layout kept: every pass over all vertices reuses it.
        await prepareNeighborParts(g);
        // Stale part counts would misplace every later vertex: the hub's leaves that had no other edge
        // lose all theirs, isolated vertices gain some, and vertex 150 gains a long chain (a part per slot).
        const gone = Array.from({ length: 119 }, (_, i) => i + 1);
        await g.deleteEdges(
          Uint32Array.from(gone, () => 0),
          Uint32Array.from(gone),
        );
        const far = Array.from({ length: 70 }, (_, i) => 180 + i);
        await g.insertEdges(
          Uint32Array.from([...far.map(() => 150), 121, 122, 179]),
          Uint32Array.from([...far, 130, 140, 0]),
        );
        await expectSameAsSnapshot(device, g, view, 'after deletions and insertions');
        await g.rehash();
        await expectSameAsSnapshot(device, g, view, 'after a rehash');
        await g.insertVertices([N, N + 5], [4, 1]);
        await g.insertEdges(Uint32Array.from([N, N, N + 5, 3]), Uint32Array.from([1, 2, N, N + 5]));
        await expectSameAsSnapshot(device, g, view, 'after new vertices');
      } finally {
        g.destroy();
      }
    }));

  it('cuts lists by key slot from slotPartsAbove keys a bucket, a new version each setting', () =>
    gpuTest(async (device) => {
      const rand = mulberry32(7);
      const hints = new Uint32Array(N);
      hints[3] = 100;
      hints[4] = 64;
      const g = await DynamicGraph.create(device, { vertexCount: N, directed: false, degreeHints: hints });
      const view = partsOnly(g);
      try {
        // A hinted hub (several buckets), an unhinted one (a long chain), a star and a path edge or two,
        // self-loops and duplicates; vertices from 200 up isolated.
        const src: number[] = [];
        const dst: number[] = [];
        const edge = (u: number, v: number) => {
          src.push(u);
          dst.push(v);
        };
        for (let v = 0; v < 200; v++) edge(3, v);
        for (let v = 5; v < 150; v++) edge(4, v);
        for (let i = 0; i < 250; i++) edge(Math.floor(rand() * 200), Math.floor(rand() * 200));
        await g.insertEdges(Uint32Array.from(src), Uint32Array.from(dst));
        expect(() => {
          g.slotPartsAbove = -1;
        }).toThrow(/slotPartsAbove/);
        for (const keys of [0, 8, 60, 0]) {
          // The layout kept for the last setting no longer holds: the version moves on.
          await prepareNeighborParts(g);
          const before = g.version;
          g.slotPartsAbove = keys;
          expect(g.version).toBe(before + 1);
          await expectSameAsSnapshot(device, g, view, `slot parts above ${keys} keys`);
        }
      } finally {
        g.destroy();
      }
    }));

  it('skips the scan: a pass over all vertices records as many dispatches as on the CSR', () =>
    gpuTest(async (device) => {
      const g = await DynamicGraph.create(device, { vertexCount: 70, directed: false });
      try {
        const src = Uint32Array.from({ length: 69 }, () => 0);
        const dst = Uint32Array.from({ length: 69 }, (_, i) => i + 1);
        await g.insertEdges(src, dst);
        const snap = await g.toDeviceGraph();
        const out = device.array('f32', 70);
        const f = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return f32(u); }`;
        const count = async (graph: NeighborGraph | DeviceGraph) => {
          const rec = device.recorder();
          await neighborhoodReduce(rec, graph, 'all', f, out);
          await rec.submit();
          return rec.dispatchCount;
        };
        try {
          const csr = await count(snap);
          const unscanned = await count(g);
          await prepareNeighborParts(g);
          expect(await count(g)).toBe(csr);
          expect(unscanned).toBeGreaterThan(csr);
          await g.insertEdges(Uint32Array.from([5]), Uint32Array.from([6]));
          // A new version: the kept layout no longer applies, so the recorder scans again.
          expect(await count(g)).toBe(unscanned);
        } finally {
          out.destroy();
          snap.destroy();
        }
      } finally {
        g.destroy();
      }
    }));
  it('PageRank on the tables dispatches as much per iteration as on the CSR', () =>
    gpuTest(async (device) => {
      const n = 300;
      const src = Uint32Array.from({ length: 2 * (n - 1) }, (_, i) => (i % 2 === 0 ? 0 : (i - 1) / 2));
      const dst = Uint32Array.from({ length: 2 * (n - 1) }, (_, i) =>
        i % 2 === 0 ? i / 2 + 1 : (i + 1) / 2,
      );
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false });
      await g.insertEdges(src, dst);
      const snap = await g.toDeviceGraph();
      let dispatches = 0;
      const submit = Recorder.prototype.submit;
      // Forwards the options: the enactor reads its status through submit({ download }).
      Recorder.prototype.submit = async function (this: Recorder, ...args: unknown[]) {
        const result = await (submit as (...a: unknown[]) => Promise<SubmitResult>).apply(this, args);
        dispatches += result.dispatches;
        return result;
      } as Recorder['submit'];
      try {
        // Iterations 9 to 16 of a run: what one more batch of steps records, set-up excluded.
        const perIteration = async (graph: DynamicGraph | DeviceGraph) => {
          const counts: number[] = [];
          for (const maxIterations of [8, 16]) {
            await pageRank(graph, { weight: null, tolerance: 0, maxIterations });
            dispatches = 0;
            await pageRank(graph, { weight: null, tolerance: 0, maxIterations });
            counts.push(dispatches);
          }
          return (counts[1]! - counts[0]!) / 8;
        };
        expect(await perIteration(g)).toBe(await perIteration(snap));
      } finally {
        Recorder.prototype.submit = submit;
        snap.destroy();
        g.destroy();
      }
    }));
});
