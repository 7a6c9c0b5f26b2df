import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { expectExportMatches, expectTablesMatch } from './test-support.ts';
import { vertexBatchKernel } from './vertex-kernels.ts';

/**
 * A skewed random graph over n vertices: hubs 0 and 1 joined to most vertices (long chains without hints,
 * many base buckets with them), a path through every vertex, random edges, self-loops and duplicates.
 */
function skewedEdges(rand: () => number, n: number) {
  const src: number[] = [];
  const dst: number[] = [];
  const add = (u: number, v: number) => {
    src.push(u);
    dst.push(v);
  };
  for (let v = 2; v < n; v++) {
    if (rand() < 0.9) add(0, v);
    if (rand() < 0.5) add(v, 1);
  }
  for (let v = 0; v + 1 < n; v++) add(v, v + 1);
  for (let i = 0; i < 3 * n; i++) add(Math.floor(rand() * n), Math.floor(rand() * n));
  for (let i = 0; i < 20; i++) {
    const v = Math.floor(rand() * n);
    add(v, v);
    add(src[i]!, dst[i]!);
  }
  const val = Uint32Array.from(src, () => Math.floor(rand() * 2 ** 32) >>> 0);
  return { src: Uint32Array.from(src), dst: Uint32Array.from(dst), val };
}

function hintsOf(n: number, src: Uint32Array, dst: Uint32Array, directed: boolean): Uint32Array {
  const hints = new Uint32Array(n);
  for (let i = 0; i < src.length; i++) {
    hints[src[i]!]!++;
    if (!directed) hints[dst[i]!]!++;
  }
  return hints;
}

const MODES = ['device', 'host'] as const;

describe.each(MODES)('DynamicGraph vertex deletion (%s batches)', (mode) => {
  for (const directed of [false, true]) {
    for (const hinted of [false, true]) {
      const kind = `${directed ? 'directed' : 'undirected'}, ${hinted ? 'degree hints' : 'no hints'}`;
      it(`random batches match the host model (${kind})`, async () => {
        await gpuTest(async (device) => {
          const n = 300;
          const rand = mulberry32((directed ? 11 : 13) + (hinted ? 100 : 0));
          const e = skewedEdges(rand, n);
          const g = await DynamicGraph.create(device, {
            vertexCount: n,
            directed,
            values: 'u32',
            ...(hinted ? { degreeHints: hintsOf(n, e.src, e.dst, directed) } : {}),
          });
          g.vertexDeletion = mode;
          const model = new HostDynamicGraph(n, directed);
          await g.insertEdges(e.src, e.dst, e.val);
          model.insertEdges(e.src, e.dst, e.val);
          await expectTablesMatch(g, model, `${kind}: built`);
          for (let round = 0; round < 6; round++) {
            const what = `${kind} round ${round}`;
            // Random ids (neighbours of each other, repeats, already deleted ones), a hub every other round,
            // ids that never existed.
            const gone = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => Math.floor(rand() * n));
            if (round % 2 === 0) gone.push(round % 4 === 0 ? 0 : 1, gone[0]!);
            gone.push(n + 3);
            await g.deleteVertices(gone);
            model.deleteVertices(gone.filter((v) => v < n));
            const after = await expectTablesMatch(g, model, `${what}: deleted`);
            if (round === 0 && !hinted) {
              // The hub's collision chain went back to the free list.
              expect(after.freeSlabs, `${what}: freed slabs`).toBeGreaterThan(0);
            }
            // Some come back with new edges (taking freed slabs), then random edges everywhere.
            const back = gone.filter((v) => v < n && rand() < 0.6);
            await g.insertVertices(back);
            model.insertVertices(back);
            const more = skewedEdges(rand, n);
            const keep = Math.floor(more.src.length / 3);
            const src = more.src.subarray(0, keep);
            const dst = more.dst.subarray(0, keep);
            const val = more.val.subarray(0, keep);
            await g.insertEdges(src, dst, val);
            model.insertEdges(src, dst, val);
            await expectTablesMatch(g, model, `${what}: re-inserted`);
          }
          await expectExportMatches(g, model, `${kind}: final`);
          g.destroy();
        });
      });
    }
  }

  for (const hinted of [false, true]) {
    it(`hubs deleted with leaves and with all their neighbours (undirected, ${hinted ? 'degree hints' : 'no hints'})`, async () => {
      await gpuTest(async (device) => {
        // Hub 0 joins every other vertex, hub 1 every third (thousands of keys: many base buckets with
        // hints, a long collision chain without), plus a path and random edges between the leaves.
        const n = 3000;
        const rand = mulberry32(hinted ? 41 : 43);
        const src: number[] = [];
        const dst: number[] = [];
        for (let v = 1; v < n; v++) {
          src.push(0);
          dst.push(v);
          if (v % 3 === 0) {
            src.push(v);
            dst.push(1);
          }
          if (v + 1 < n) {
            src.push(v);
            dst.push(v + 1);
          }
        }
        for (let i = 0; i < n; i++) {
          src.push(1 + Math.floor(rand() * (n - 1)));
          dst.push(1 + Math.floor(rand() * (n - 1)));
        }
        const e = { src: Uint32Array.from(src), dst: Uint32Array.from(dst) };
        const g = await DynamicGraph.create(device, {
          vertexCount: n,
          directed: false,
          ...(hinted ? { degreeHints: hintsOf(n, e.src, e.dst, false) } : {}),
        });
        g.vertexDeletion = mode;
        const model = new HostDynamicGraph(n, false);
        await g.insertEdges(e.src, e.dst);
        model.insertEdges(e.src, e.dst);
        // Both hubs in a batch of random leaves.
        const leaves = Array.from({ length: 200 }, () => 2 + Math.floor(rand() * (n - 2)));
        const first = [...leaves.slice(0, 100), 0, ...leaves.slice(100), 1];
        await g.deleteVertices(first);
        model.deleteVertices(first);
        await expectTablesMatch(g, model, 'hubs with leaves');
        await g.insertVertices(first);
        model.insertVertices(first);
        await g.insertEdges(e.src, e.dst);
        model.insertEdges(e.src, e.dst);
        await expectTablesMatch(g, model, 'hubs back');
        // Hub 0 and every neighbour of it (all vertices but hub 1, whose table loses a third of its keys).
        const star = Array.from({ length: n }, (_, v) => v).filter((v) => v !== 1);
        await g.deleteVertices(star);
        model.deleteVertices(star);
        const after = await expectTablesMatch(g, model, 'hub and its neighbours');
        expect(after.degrees[1], 'hub 1 keeps no edges').toBe(0);
        g.destroy();
      });
    });
  }

  it('recorded batches, every vertex, and the empty graph (undirected)', async () => {
    await gpuTest(async (device) => {
      const n = 70;
      const rand = mulberry32(5);
      const e = skewedEdges(rand, n);
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false });
      g.vertexDeletion = mode;
      const model = new HostDynamicGraph(n, false);
      await g.insertEdges(e.src, e.dst);
      model.insertEdges(e.src, e.dst);
      // Two batches in one submit: the second one's neighbours include the first one's vertices.
      const rec = device.recorder({ label: 'two vertex batches' });
      await g.deleteVertices([0, 5, 6], { recorder: rec });
      await g.deleteVertices([1, 4, 7, 0], { recorder: rec });
      await rec.submit();
      model.deleteVertices([0, 5, 6]);
      model.deleteVertices([1, 4, 7]);
      await expectTablesMatch(g, model, 'recorded');
      const all = Array.from({ length: n }, (_, v) => v);
      await g.deleteVertices(all);
      model.deleteVertices(all);
      const empty = await expectTablesMatch(g, model, 'all deleted');
      expect(empty.degrees.every((d) => d === 0)).toBe(true);
      await g.insertVertices(all);
      model.insertVertices(all);
      await g.insertEdges(e.src, e.dst);
      model.insertEdges(e.src, e.dst);
      await expectTablesMatch(g, model, 'all back');
      g.destroy();
      const none = await DynamicGraph.create(device, { vertexCount: 0, directed: false });
      none.vertexDeletion = mode;
      await none.deleteVertices([0, 1]);
      expect(none.vertexCount).toBe(0);
      none.destroy();
    });
  });

  for (const directed of [false, true]) {
    for (const hinted of [false, true]) {
      const kind = `${directed ? 'directed' : 'undirected'}, ${hinted ? 'degree hints' : 'no hints'}`;
      it(`adversarial batches: repeats, neighbours, hubs, invalid and empty (${kind})`, async () => {
        await gpuTest(async (device) => {
          // Hub 0 joins 3/4 of the vertices (a chain of collision slabs without hints); 10..19 form a clique
          // (every deleted vertex is a neighbour of the others); hub 1 points at the clique; random edges.
          const n = 400;
          const rand = mulberry32(7 + (directed ? 1 : 0) + (hinted ? 2 : 0));
          const src: number[] = [];
          const dst: number[] = [];
          for (let v = 2; v < n; v++) {
            if (v % 4 !== 0) {
              src.push(0);
              dst.push(v);
            }
          }
          for (let a = 10; a < 20; a++) {
            src.push(1);
            dst.push(a);
            for (let b = 10; b < 20; b++) {
              src.push(a);
              dst.push(b);
            }
          }
          for (let i = 0; i < 2 * n; i++) {
            src.push(Math.floor(rand() * n));
            dst.push(Math.floor(rand() * n));
          }
          const e = { src: Uint32Array.from(src), dst: Uint32Array.from(dst) };
          const g = await DynamicGraph.create(device, {
            vertexCount: n,
            directed,
            ...(hinted ? { degreeHints: hintsOf(n, e.src, e.dst, directed) } : {}),
          });
          g.vertexDeletion = mode;
          const model = new HostDynamicGraph(n, directed);
          const insertAll = async () => {
            await g.insertEdges(e.src, e.dst);
            model.insertEdges(e.src, e.dst);
          };
          await insertAll();
          const built = await expectTablesMatch(g, model, `${kind}: built`);
          if (!hinted) expect(built.bumpSlabs, 'the hub has collision slabs').toBeGreaterThan(n);
          const batches: number[][] = [
            [],
            [0, 5, 0, 0, 6, n, 0, n + 100, 2 ** 31 - 2, 0xffffffff, -1, 2.5, 0],
            [10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 19, 18, 10],
            [0, 10, n + 1],
          ];
          for (const [b, ids] of batches.entries()) {
            const version = g.version;
            await g.deleteVertices(ids);
            model.deleteVertices(ids.filter((v) => Number.isInteger(v) && v >= 0 && v < n));
            expect(g.version, 'a batch starts a new version').toBe(version + 1);
            await expectTablesMatch(g, model, `${kind}: batch ${b}`);
            for (let v = 0; v < n; v++) expect(g.hasVertex(v), `vertex ${v}`).toBe(model.alive[v]);
            await g.check();
          }
          // Everything back, then deleted again: re-inserted edges take the freed slabs.
          const gone = [0, 5, 6, ...Array.from({ length: 10 }, (_, i) => 10 + i)];
          await g.insertVertices(gone);
          model.insertVertices(gone);
          await insertAll();
          await expectTablesMatch(g, model, `${kind}: back`);
          await g.deleteVertices(gone);
          model.deleteVertices(gone);
          await expectTablesMatch(g, model, `${kind}: deleted again`);
          await expectExportMatches(g, model, `${kind}: final`);
          g.destroy();
        });
      });
    }

    it(`takes ids on the GPU (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        const n = 200;
        const rand = mulberry32(directed ? 31 : 37);
        const e = skewedEdges(rand, n);
        const g = await DynamicGraph.create(device, { vertexCount: n, directed });
        g.vertexDeletion = mode;
        const model = new HostDynamicGraph(n, directed);
        await g.insertEdges(e.src, e.dst);
        model.insertEdges(e.src, e.dst);
        const ids = [3, 1, 3, 0xffffffff, n, 7, 8, 9, 1];
        const onGpu = device.upload(Uint32Array.from(ids));
        const rec = device.recorder({ label: 'vertex batch on the GPU' });
        await g.deleteVertices(onGpu, { recorder: rec });
        await rec.submit();
        model.deleteVertices(ids.filter((v) => v < n));
        if (mode === 'device') {
          // The host copy of ALIVE is not read back per batch: asking before a refresh is an error.
          expect(() => g.hasVertex(3)).toThrow(/refreshVertices/);
          await g.refreshVertices();
        }
        for (let v = 0; v < n; v++) expect(g.hasVertex(v), `vertex ${v}`).toBe(model.alive[v]);
        await expectTablesMatch(g, model, 'ids on the GPU');
        // A second GPU batch, then insertVertices (which reads the flags back itself).
        const more = device.upload(Uint32Array.of(7, 20, 21, 20));
        await g.deleteVertices(more);
        model.deleteVertices([7, 20, 21]);
        await g.insertVertices([1, 20, 50]);
        model.insertVertices([1, 20, 50]);
        await g.insertEdges(e.src, e.dst);
        model.insertEdges(e.src, e.dst);
        await expectTablesMatch(g, model, 'after re-insertion');
        for (let v = 0; v < n; v++) expect(g.hasVertex(v), `vertex ${v}`).toBe(model.alive[v]);
        onGpu.destroy();
        more.destroy();
        g.destroy();
      });
    });
  }
});

describe('vertex batch claim', () => {
  it('gives each live vertex of a batch to one id, however often it repeats', async () => {
    await gpuTest(async (device) => {
      // Serially the later copies of a repeated id would find nothing left to do: only the counts show
      // whether a vertex's slabs would be unlinked and freed twice where the copies run side by side.
      const n = 50;
      const hints = Array.from({ length: n }, (_, v) => (v === 1 ? 100 : 0));
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false, degreeHints: hints });
      await g.deleteVertices([4]);
      const rand = mulberry32(3);
      const ids = Uint32Array.from({ length: 3000 }, () => Math.floor(rand() * (n + 10)));
      const idArr = device.upload(ids);
      const counts = device.array('u32', ids.length, { label: 'counts' });
      const spare = device.array('u32', ids.length, { label: 'starts' });
      const kernel = await device.kernel(vertexBatchKernel('claim'));
      const rec = device.recorder({ label: 'claim' });
      rec.dispatch(kernel, {
        entry: 'claim',
        bindings: {
          slabs: g.slabs,
          free_list: g.freeList,
          alloc: g.alloc,
          vertices: g.vertices,
          ids: idArr,
          counts,
          starts: spare,
          status: spare,
        },
        params: { batch: ids.length, vertex_count: n, slab_capacity: g.slabCapacity },
        workgroups: Math.ceil(ids.length / 256),
      });
      await rec.submit();
      const got = await counts.download();
      const claimed = new Map<number, number>();
      for (let i = 0; i < ids.length; i++) {
        if (got[i] === 0) continue;
        expect(claimed.has(ids[i]!), `vertex ${ids[i]} claimed twice`).toBe(false);
        claimed.set(ids[i]!, got[i]!);
      }
      const want = new Map<number, number>();
      for (const v of ids) if (v < n && v !== 4) want.set(v, v === 1 ? 5 : 1);
      expect(new Map([...claimed].sort((a, b) => a[0] - b[0]))).toEqual(
        new Map([...want].sort((a, b) => a[0] - b[0])),
      );
      for (const a of [idArr, counts, spare]) a.destroy();
      g.destroy();
    });
  });
});
