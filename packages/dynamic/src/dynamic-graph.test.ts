import { DeviceLimitError, InputError, requestDevice, WeftError } from '@weft/gpu';
import { hostCsrFromEdgeList } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph, type Probing, pairTableSize } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { expectExportMatches, expectTablesMatch } from './test-support.ts';

/** Every edge test runs with both probing kernels, and with the default mix (insert thread, the rest subgroup). */
const PROBINGS: Probing[] = ['thread', 'subgroup', 'auto'];

/** A random batch over `n` vertices: `dupFraction` of the items repeat an earlier item (either orientation). */
function randomBatch(rand: () => number, n: number, size: number, dupFraction = 0.3) {
  const src = new Uint32Array(size);
  const dst = new Uint32Array(size);
  const val = new Uint32Array(size);
  for (let i = 0; i < size; i++) {
    if (i > 0 && rand() < dupFraction) {
      const j = Math.floor(rand() * i);
      const flip = rand() < 0.5;
      src[i] = flip ? dst[j]! : src[j]!;
      dst[i] = flip ? src[j]! : dst[j]!;
    } else {
      src[i] = Math.floor(rand() * n);
      dst[i] = Math.floor(rand() * n);
    }
    // Values >= 2^30 and up to 2^32 - 1: every bit of the value array is used.
    val[i] = (2 ** 30 + Math.floor(rand() * 3 * 2 ** 30)) >>> 0;
  }
  return { src, dst, val };
}

describe.each(PROBINGS)('DynamicGraph edges (%s probing)', (probing) => {
  it('set variant, directed: duplicates, self-loops, absent deletions', async (context) => {
    await gpuTest(
      async (device) => {
        const g = await DynamicGraph.create(device, { probing, vertexCount: 6, directed: true });
        const model = new HostDynamicGraph(6, true);
        const src = Uint32Array.of(0, 0, 0, 1, 2, 2, 5, 0, 3);
        const dst = Uint32Array.of(1, 1, 2, 1, 3, 3, 0, 1, 4);
        await g.insertEdges(src, dst);
        model.insertEdges(src, dst);
        await expectTablesMatch(g, model, 'first batch');
        await expectExportMatches(g, model, 'first batch');
        expectArrayEqual(await g.degrees(), [2, 0, 1, 1, 0, 1], 'degrees');
        // Inserting present edges changes nothing; deleting absent ones (and twice the same) neither.
        await g.insertEdges(src, dst);
        await g.deleteEdges(Uint32Array.of(1, 4, 0, 0, 5), Uint32Array.of(0, 3, 2, 2, 4));
        model.deleteEdges(Uint32Array.of(1, 4, 0, 0, 5), Uint32Array.of(0, 3, 2, 2, 4));
        await expectTablesMatch(g, model, 'after deletions');
        expectArrayEqual(
          await g.edgeExists(Uint32Array.of(0, 0, 2, 3, 1, 5), Uint32Array.of(1, 2, 3, 2, 1, 0)),
          [1, 0, 1, 0, 0, 1],
          'edgeExists',
        );
        await expectExportMatches(g, model, 'end');
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('undirected map: the last occurrence in the batch wins, in either orientation', async (context) => {
    await gpuTest(
      async (device) => {
        const g = await DynamicGraph.create(device, {
          probing,
          vertexCount: 4,
          directed: false,
          values: 'u32',
        });
        const model = new HostDynamicGraph(4, false);
        const batches = [
          { src: [1, 2, 0, 3, 3], dst: [2, 1, 3, 0, 0], val: [5, 7, 1, 2, 0xffffffff] },
          { src: [2, 0, 1], dst: [1, 3, 2], val: [9, 2 ** 31, 11] },
        ];
        for (const b of batches) {
          const src = Uint32Array.from(b.src);
          const dst = Uint32Array.from(b.dst);
          const val = Uint32Array.from(b.val);
          await g.insertEdges(src, dst, val);
          model.insertEdges(src, dst, val);
          await expectTablesMatch(g, model, 'batch');
        }
        expect(model.adjacency[1]!.get(2)).toBe(11);
        expect(model.adjacency[3]!.get(0)).toBe(2 ** 31);
        const q = await g.queryEdges(Uint32Array.of(2, 0, 1, 0), Uint32Array.of(1, 3, 3, 0));
        expectArrayEqual(q.found, [1, 1, 0, 0], 'found');
        expectArrayEqual(q.values!, [11, 2 ** 31, 0, 0], 'values');
        await expectExportMatches(g, model, 'end');
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('random interleavings of inserts, deletes, queries and vertex operations match the model', async (context) => {
    await gpuTest(
      async (device) => {
        for (const directed of [false, true]) {
          const rand = mulberry32(directed ? 7 : 8);
          let n = 200;
          const g = await DynamicGraph.create(device, { probing, vertexCount: n, directed, values: 'u32' });
          const model = new HostDynamicGraph(n, directed);
          for (let round = 0; round < 8; round++) {
            const what = `${directed ? 'directed' : 'undirected'} round ${round}`;
            const ins = randomBatch(rand, n, 1 + Math.floor(rand() * 3000));
            await g.insertEdges(ins.src, ins.dst, ins.val);
            model.insertEdges(ins.src, ins.dst, ins.val);
            await expectTablesMatch(g, model, `${what} insert`);
            // Half the deletions hit present edges (taken from the insert batch), half are random.
            const del = randomBatch(rand, n, Math.floor(rand() * 1500), 0.5);
            for (let i = 0; i < del.src.length; i += 2) {
              const j = Math.floor(rand() * ins.src.length);
              del.src[i] = ins.src[j]!;
              del.dst[i] = ins.dst[j]!;
            }
            await g.deleteEdges(del.src, del.dst);
            model.deleteEdges(del.src, del.dst);
            await expectTablesMatch(g, model, `${what} delete`);
            const q = randomBatch(rand, n, 500, 0.5);
            q.src.set(ins.src.subarray(0, 250));
            q.dst.set(ins.dst.subarray(0, 250));
            const res = await g.queryEdges(q.src, q.dst);
            const want = Array.from(q.src, (s, i) => (model.adjacency[s]!.has(q.dst[i]!) ? 1 : 0));
            expectArrayEqual(res.found, want, `${what} query found`);
            expectArrayEqual(
              res.values!,
              Array.from(q.src, (s, i) => model.adjacency[s]!.get(q.dst[i]!) ?? 0),
              `${what} query values`,
            );
            if (round % 3 === 2) {
              const gone = Array.from({ length: 10 }, () => Math.floor(rand() * n));
              await g.deleteVertices(gone);
              model.deleteVertices(gone);
              await expectTablesMatch(g, model, `${what} delete vertices`);
              // Edges touching deleted vertices are ignored until they come back.
              const touch = randomBatch(rand, n, 200);
              touch.src.fill(gone[0]!, 0, 100);
              await g.insertEdges(touch.src, touch.dst, touch.val);
              model.insertEdges(touch.src, touch.dst, touch.val);
              await expectTablesMatch(g, model, `${what} insert around deleted`);
              // Some come back, and new ids past the dictionary's capacity appear.
              const back = [gone[1]!, gone[2]!, n + 5, n + 300];
              const capacity = g.vertexCapacity;
              await g.insertVertices(back, [0, 50, 3, 0]);
              expect(g.vertexCapacity).toBeGreaterThan(capacity);
              model.insertVertices(back);
              // Deleting absent vertices (never inserted, out of range) changes nothing.
              await g.deleteVertices([n + 4, n + 10_000]);
              n += 301;
              await expectTablesMatch(g, model, `${what} insert vertices`);
            }
            if (round % 4 === 3) await expectExportMatches(g, model, what);
          }
          await expectExportMatches(g, model, 'final');
          g.destroy();
        }
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('insert then delete of the same new edges returns to the start, twice', async (context) => {
    await gpuTest(
      async (device) => {
        const edges = kronecker({ scale: 10, edgeFactor: 8, seed: 3, weights: true });
        const g = await DynamicGraph.fromEdgeList(device, edges, { probing });
        const model = new HostDynamicGraph(edges.vertexCount, false);
        model.insertEdges(edges.src, edges.dst, edges.weights);
        await expectTablesMatch(g, model, 'bulk build');
        await expectExportMatches(g, model, 'bulk build');
        const start = await g.inspect();
        const rand = mulberry32(5);
        for (let rep = 0; rep < 2; rep++) {
          const b = randomBatch(rand, edges.vertexCount, 5000, 0.2);
          const keep = Array.from(b.src.keys()).filter((i) => !model.adjacency[b.src[i]!]!.has(b.dst[i]!));
          const src = Uint32Array.from(keep, (i) => b.src[i]!);
          const dst = Uint32Array.from(keep, (i) => b.dst[i]!);
          const val = Uint32Array.from(keep, (i) => b.val[i]!);
          await g.insertEdges(src, dst, val);
          const grown = new HostDynamicGraph(edges.vertexCount, false);
          grown.insertEdges(edges.src, edges.dst, edges.weights);
          grown.insertEdges(src, dst, val);
          await expectTablesMatch(g, grown, `rep ${rep} inserted`);
          await g.deleteEdges(src, dst);
          const back = await expectTablesMatch(g, model, `rep ${rep} deleted`);
          expectArrayEqual(back.degrees, start.degrees, 'degrees back at the start');
        }
        await expectExportMatches(g, model, 'end');
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('bulk build from a CSR with f32 values equals the CSR', async (context) => {
    await gpuTest(
      async (device) => {
        const edges = kronecker({ scale: 9, seed: 9 });
        const { csr } = hostCsrFromEdgeList(edges);
        const weights = new Float32Array(csr.edgeCount);
        for (let v = 0; v < csr.vertexCount; v++) {
          for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
            // Symmetric: both directions of an edge carry the same value.
            const u = csr.targets[e]!;
            weights[e] = Math.min(u, v) * 0.5 - Math.max(u, v) * 1e-3;
          }
        }
        csr.weights = weights;
        const g = await DynamicGraph.fromCsr(device, csr, { probing });
        expect(g.valueType).toBe('f32');
        const back = await g.toHostCsr();
        expectArrayEqual(back.offsets, csr.offsets, 'offsets');
        expectArrayEqual(back.targets, csr.targets, 'targets');
        expect(back.weights).toBeInstanceOf(Float32Array);
        expectArrayEqual(back.weights!, weights, 'weights');
        const snapshot = await g.toDeviceGraph();
        expect(snapshot.edgeCount).toBe(csr.edgeCount);
        expect(snapshot.directed).toBe(false);
        snapshot.destroy();
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });
  it('an incremental build in batches equals the bulk build', async (context) => {
    await gpuTest(
      async (device) => {
        const edges = kronecker({ scale: 10, seed: 14, weights: true });
        const bulk = await DynamicGraph.fromEdgeList(device, edges, { probing });
        const incremental = await DynamicGraph.create(device, {
          probing,
          vertexCount: edges.vertexCount,
          directed: false,
          values: 'u32',
        });
        const m = edges.src.length;
        const step = Math.ceil(m / 8);
        for (let start = 0; start < m; start += step) {
          const end = Math.min(m, start + step);
          await incremental.insertEdges(
            edges.src.subarray(start, end),
            edges.dst.subarray(start, end),
            edges.weights!.subarray(start, end),
          );
        }
        const a = await bulk.toHostCsr();
        const b = await incremental.toHostCsr();
        expectArrayEqual(b.offsets, a.offsets, 'offsets');
        expectArrayEqual(b.targets, a.targets, 'targets');
        expectArrayEqual(b.weights!, a.weights!, 'values');
        // The degree hints gave the bulk build more base buckets, so shorter chains.
        const bulkTables = await bulk.inspect();
        const incTables = await incremental.inspect();
        expect(bulkTables.problems).toEqual([]);
        expect(incTables.problems).toEqual([]);
        expect(bulkTables.bumpSlabs).toBeGreaterThan(edges.vertexCount);
        bulk.destroy();
        incremental.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('one large batch without degree hints, then a batch of one edge repeated, then a different large batch', async (context) => {
    await gpuTest(
      async (device) => {
        // 2^16 Kronecker edges, 2^17 items once mirrored: many sort tiles, long chains on the hubs.
        const first = kronecker({ scale: 12, edgeFactor: 16, seed: 2, weights: true });
        const g = await DynamicGraph.create(device, {
          probing,
          vertexCount: 4096,
          directed: false,
          values: 'u32',
        });
        const model = new HostDynamicGraph(4096, false);
        await g.insertEdges(first.src, first.dst, first.weights);
        model.insertEdges(first.src, first.dst, first.weights);
        const snap = await expectTablesMatch(g, model, 'large batch');
        expect(Math.max(...snap.degrees)).toBeGreaterThan(300);
        const repeats = 5000;
        const same = new Uint32Array(repeats).fill(7);
        const other = new Uint32Array(repeats).fill(9);
        const values = Uint32Array.from({ length: repeats }, (_, i) => 0xffffffff - i);
        await g.insertEdges(same, other, values);
        model.insertEdges(same, other, values);
        await expectTablesMatch(g, model, 'one edge repeated');
        expect(model.adjacency[9]!.get(7)).toBe(0xffffffff - (repeats - 1));
        // The same shapes again with other data (stale scratch from the first batch must not leak in).
        await g.deleteEdges(first.src, first.dst);
        model.deleteEdges(first.src, first.dst);
        await expectTablesMatch(g, model, 'large batch deleted');
        const second = kronecker({ scale: 12, edgeFactor: 16, seed: 3, weights: [2 ** 30, 2 ** 31] });
        await g.insertEdges(second.src, second.dst, second.weights);
        model.insertEdges(second.src, second.dst, second.weights);
        await expectTablesMatch(g, model, 'second large batch');
        await expectExportMatches(g, model, 'second large batch');
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });
});

describe.each(PROBINGS)('DynamicGraph memory (%s probing)', (probing) => {
  it('grows the slab pool for very high degree vertices and reuses freed slabs', async (context) => {
    await gpuTest(
      async (device) => {
        const n = 6000;
        // No hints: one base bucket per vertex, so each hub's table is one chain of about n / 30 slabs, and
        // the 8 hubs need more than the quarter of spare room the pool starts with.
        const g = await DynamicGraph.create(device, { probing, vertexCount: n, directed: true });
        const model = new HostDynamicGraph(n, true);
        const initial = g.slabCapacity;
        const hubs = [0, 1, 2, 3, 4, 5, 6, 7];
        // Out-edges of every hub, and in-edges of hub 8 from everybody (one key each: no new slabs).
        const src: number[] = [];
        const dst: number[] = [];
        for (const h of hubs) {
          for (let v = n - 1; v >= 0; v--) {
            src.push(h);
            dst.push(v);
          }
        }
        for (let v = 0; v < n; v++) {
          src.push(v);
          dst.push(8);
        }
        const s = Uint32Array.from(src);
        const d = Uint32Array.from(dst);
        await g.insertEdges(s, d);
        model.insertEdges(s, d);
        expect(g.slabCapacity).toBeGreaterThan(initial);
        const full = await expectTablesMatch(g, model, 'hubs inserted');
        expect(full.degrees[0]).toBe(n - 1);
        expect(full.degrees[9]).toBe(1);
        await g.deleteVertices(hubs);
        model.deleteVertices(hubs);
        const freed = await expectTablesMatch(g, model, 'hubs deleted');
        // The hubs' chains (about (n - 1) / 30 collision slabs each) are back on the free list.
        expect(freed.freeSlabs).toBeGreaterThanOrEqual(hubs.length * (Math.floor((n - 1) / 30) - 1));
        await g.insertVertices(hubs);
        model.insertVertices(hubs);
        await g.insertEdges(s, d);
        model.insertEdges(s, d);
        const again = await expectTablesMatch(g, model, 'hubs again');
        // Re-inserting the same edges takes slabs from the free list, not the bump pointer (a few may still come
        // from there: threads racing to extend one chain each take a spare, and only one links it).
        const firstGrowth = freed.bumpSlabs - n;
        expect(again.bumpSlabs - freed.bumpSlabs).toBeLessThan(firstGrowth / 4);
        await expectExportMatches(g, model, 'hubs again');
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('recovers when a batch overflows a pool grown to a too small estimate', async (context) => {
    await gpuTest(
      async (device) => {
        const n = 500;
        const g = await DynamicGraph.create(device, {
          probing,
          vertexCount: n,
          directed: true,
          values: 'u32',
        });
        // No estimate at all: the pool only doubles, and 150 keys per one-bucket vertex need 5 slabs each.
        g.slabsPerKeyEstimate = 0;
        const before = g.slabCapacity;
        const per = 150;
        const src = new Uint32Array(n * per);
        const dst = new Uint32Array(n * per);
        for (let v = 0; v < n; v++) {
          for (let j = 0; j < per; j++) {
            src[v * per + j] = v;
            dst[v * per + j] = (v + 1 + j) % n;
          }
        }
        const val = Uint32Array.from(src, (s, i) => s * 7 + i);
        await g.insertEdges(src, dst, val);
        const model = new HostDynamicGraph(n, true);
        model.insertEdges(src, dst, val);
        expect(g.slabCapacity).toBeGreaterThan(2 * before);
        const snap = await expectTablesMatch(g, model, 'after overflow and retry');
        expect(snap.bumpSlabs).toBeLessThanOrEqual(g.slabCapacity);
        await g.check();
        await expectExportMatches(g, model, 'after overflow and retry');
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('handles empty graphs, empty batches and degree-0 vertices', async (context) => {
    await gpuTest(
      async (device) => {
        const empty = await DynamicGraph.create(device, { probing, vertexCount: 0, directed: false });
        const none = new Uint32Array(0);
        await empty.insertEdges(none, none);
        await empty.deleteEdges(none, none);
        expect((await empty.edgeExists(none, none)).length).toBe(0);
        const csr = await empty.toHostCsr();
        expect(csr.edgeCount).toBe(0);
        expectArrayEqual(csr.offsets, [0], 'offsets');
        await empty.insertVertices([3]);
        expect(empty.vertexCount).toBe(4);
        expect(empty.hasVertex(3)).toBe(true);
        expect(empty.hasVertex(0)).toBe(false);
        await expectExportMatches(
          empty,
          (() => {
            const m = new HostDynamicGraph(0, false);
            m.insertVertices([3]);
            return m;
          })(),
          'one vertex',
        );
        empty.destroy();

        const g = await DynamicGraph.create(device, {
          probing,
          vertexCount: 5,
          directed: false,
          values: 'i32',
        });
        await g.insertEdges(Uint32Array.of(1, 1), Uint32Array.of(1, 3), Int32Array.of(-5, -7));
        const model = new HostDynamicGraph(5, false);
        model.insertEdges([1, 1], [1, 3], [-5, -7]);
        await expectTablesMatch(g, model, 'self-loop dropped');
        await expectExportMatches(g, model, 'degree-0 rows');
        const q = await g.queryEdges(Uint32Array.of(3), Uint32Array.of(1));
        expect(q.values).toBeInstanceOf(Int32Array);
        expect(q.values![0]).toBe(-7);
        g.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('records many insertion batches of one size into one submit, from host arrays', async (context) => {
    await gpuTest(
      async (device) => {
        // Batches of one shape take the scratch the batch before them used; each host batch keeps its own upload.
        for (const directed of [false, true]) {
          const n = 300;
          const g = await DynamicGraph.create(device, { probing, vertexCount: n, directed, values: 'u32' });
          const model = new HostDynamicGraph(n, directed);
          await g.reserveSlabs(4_000);
          const rand = mulberry32(directed ? 11 : 12);
          const rec = device.recorder();
          for (let b = 0; b < 6; b++) {
            const { src, dst, val } = randomBatch(rand, n, 700);
            await g.insertEdges(src, dst, val, { recorder: rec, maxNewSlabs: 0 });
            model.insertEdges(src, dst, val);
          }
          await rec.submit();
          await expectTablesMatch(g, model, `six batches in one submit, directed ${directed}`);
          await g.check();
          g.destroy();
        }
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('takes device arrays, ignores ids out of range there, and records into a caller recorder', async (context) => {
    await gpuTest(
      async (device) => {
        const g = await DynamicGraph.create(device, { probing, vertexCount: 8, directed: true });
        const model = new HostDynamicGraph(8, true);
        const src = device.upload(Uint32Array.of(0, 9, 2, 0xffffffff, 3));
        const dst = device.upload(Uint32Array.of(1, 1, 99, 0, 4));
        await g.insertEdges(src, dst);
        model.insertEdges([0, 3], [1, 4]);
        await expectTablesMatch(g, model, 'device batch');
        await g.reserveSlabs(100);
        const rec = device.recorder();
        await g.insertEdges(Uint32Array.of(5, 6), Uint32Array.of(6, 7), undefined, {
          recorder: rec,
          maxNewSlabs: 2,
        });
        await g.deleteEdges(Uint32Array.of(0), Uint32Array.of(1), { recorder: rec });
        await g.deleteVertices([7], { recorder: rec });
        expect(g.hasVertex(7)).toBe(false);
        await rec.submit();
        model.insertEdges([5, 6], [6, 7]);
        model.deleteEdges([0], [1]);
        model.deleteVertices([7]);
        await expectTablesMatch(g, model, 'recorded');
        await g.check();
        g.destroy();
        // Bulk build from arcs on the GPU (undirected: both directions listed), values on the GPU too.
        const arcs = {
          src: Uint32Array.of(0, 1, 1, 2),
          dst: Uint32Array.of(1, 0, 2, 1),
          w: Uint32Array.of(5, 5, 7, 7),
        };
        const onGpu = {
          src: device.upload(arcs.src),
          dst: device.upload(arcs.dst),
          values: device.upload(arcs.w),
        };
        const built = await DynamicGraph.fromArcs(device, onGpu, {
          probing,
          vertexCount: 3,
          directed: false,
          values: 'u32',
          degreeHints: [1, 2, 1],
        });
        const builtModel = new HostDynamicGraph(3, false);
        builtModel.insertEdges([0, 1], [1, 2], [5, 7]);
        await expectTablesMatch(built, builtModel, 'fromArcs');
        built.destroy();
        for (const a of Object.values(onGpu)) a.destroy();
        src.destroy();
        dst.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('rejects bad arguments with InputError', async (context) => {
    await gpuTest(
      async (device) => {
        const set = await DynamicGraph.create(device, { probing, vertexCount: 4, directed: true });
        const map = await DynamicGraph.create(device, {
          probing,
          vertexCount: 4,
          directed: true,
          values: 'u32',
        });
        const a = Uint32Array.of(0, 1);
        await expect(set.insertEdges(a, Uint32Array.of(1))).rejects.toThrow(InputError);
        await expect(set.insertEdges(a, Uint32Array.of(1, 4))).rejects.toThrow(/dst\[1\] = 4/);
        await expect(set.insertEdges(a, a, a)).rejects.toThrow(/set variant/);
        await expect(map.insertEdges(a, a)).rejects.toThrow(/give values/);
        await expect(map.insertEdges(a, a, Uint32Array.of(1))).rejects.toThrow(/values has 1/);
        await expect(map.insertEdges(a, a, Float32Array.of(1, 2))).rejects.toThrow(/values are f32/);
        await expect(
          DynamicGraph.create(device, { probing, vertexCount: -1, directed: true }),
        ).rejects.toThrow(InputError);
        await expect(
          DynamicGraph.create(device, { probing, vertexCount: 2, directed: true, loadFactor: 0 }),
        ).rejects.toThrow(/loadFactor/);
        await expect(set.insertVertices([2 ** 31])).rejects.toThrow(/not a vertex id/);
        const rec = device.recorder();
        await expect(
          set.insertEdges(new Uint32Array(10_000), new Uint32Array(10_000), undefined, { recorder: rec }),
        ).rejects.toThrow(/reserveSlabs/);
        set.destroy();
        await expect(set.insertEdges(a, a)).rejects.toThrow(/destroyed/);
        map.destroy();
      },
      { subgroups: probing === 'subgroup', context },
    );
  });
});

describe('DynamicGraph input checks', () => {
  it('rejects ids that are not a Uint32Array or a DeviceArray<u32>, and other value arrays', async (context) => {
    await gpuTest(
      async (device) => {
        const g = await DynamicGraph.create(device, { vertexCount: 4, directed: true, values: 'u32' });
        const one = Uint32Array.of(1);
        const v = Uint32Array.of(5);
        // Each was read as u32 words: -1 and 2.0 became ids beyond the graph, 5 as f64 became 0.
        await expect(g.insertEdges(Int32Array.of(-1) as never, one, v)).rejects.toThrow(
          /src must be a Uint32Array.*Int32Array/,
        );
        await expect(g.insertEdges(Float32Array.of(2) as never, one, v)).rejects.toThrow(
          /src must be.*Float32Array/,
        );
        await expect(g.insertEdges([0] as never, one, v)).rejects.toThrow(/src must be.*Array/);
        await expect(g.insertEdges(device.upload(Float32Array.of(2)) as never, one, v)).rejects.toThrow(
          /src must be a DeviceArray<'u32'>, got f32/,
        );
        await expect(g.insertEdges(Uint32Array.of(7), device.upload(one), v)).rejects.toThrow(/src\[0\] = 7/);
        await expect(g.insertEdges(Uint32Array.of(0), one, Float64Array.of(5) as never)).rejects.toThrow(
          /values must be .*Float64Array/,
        );
        await expect(g.insertEdges(Uint32Array.of(0), one, Uint8Array.of(5) as never)).rejects.toThrow(
          InputError,
        );
        await expect(g.deleteEdges(Uint32Array.of(0), Int32Array.of(1) as never)).rejects.toThrow(
          /dst must be/,
        );
        await expect(g.queryEdges(Float32Array.of(0) as never, one)).rejects.toThrow(/src must be/);
        const found = device.array('f32', 1);
        await expect(g.queryEdgesOnDevice(device, Uint32Array.of(0), one, found as never)).rejects.toThrow(
          /found must be u32/,
        );
        const found2 = device.array('u32', 2);
        const short = device.array('u32', 1);
        const two = Uint32Array.of(0, 1);
        await expect(g.queryEdgesOnDevice(device, two, Uint32Array.of(1, 2), found2, short)).rejects.toThrow(
          /values has 1 elements, needs 2/,
        );
        await expect(g.deleteVertices(device.upload(Float32Array.of(1)) as never)).rejects.toThrow(
          /ids must be u32/,
        );
        expectArrayEqual(await g.degrees(), new Uint32Array(4), 'nothing inserted');
        expect(g.hasVertex(1)).toBe(true);
        for (const a of [found, found2, short]) a.destroy();
        g.destroy();
        expect(() => g.hasVertex(1)).toThrow(/destroyed/);
      },
      { context },
    );
  });

  it('rejects malformed options, hints and slab counts', async (context) => {
    await gpuTest(
      async (device) => {
        const create = (o: object) => DynamicGraph.create(device, { vertexCount: 4, directed: true, ...o });
        await expect(create({ values: 'f64' })).rejects.toThrow(
          /values must be 'u32', 'i32' or 'f32', got f64/,
        );
        await expect(create({ directed: undefined })).rejects.toThrow(/directed must be true or false/);
        await expect(create({ autoRehash: 'yes' })).rejects.toThrow(/autoRehash must be true or false/);
        for (const hint of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
          await expect(create({ degreeHints: [0, 0, hint, 0] })).rejects.toThrow(/degreeHints\[2\]/);
        }
        await expect(create({ slabCapacity: Number.NaN })).rejects.toThrow(/slabCapacity must be/);
        const edges = { vertexCount: -1, directed: true, src: new Uint32Array(0), dst: new Uint32Array(0) };
        await expect(DynamicGraph.fromEdgeList(device, edges)).rejects.toThrow(/fromEdgeList: vertexCount/);
        const arcs = { src: Float32Array.of(0) as never, dst: Uint32Array.of(1) };
        await expect(DynamicGraph.fromArcs(device, arcs, { vertexCount: 4, directed: true })).rejects.toThrow(
          /src must be/,
        );
        const g = await create({});
        await expect(g.insertVertices([9], [Number.NaN])).rejects.toThrow(/degreeHints\[0\] = NaN/);
        g.probing = 'threads' as never;
        await expect(g.edgeExists(Uint32Array.of(0), Uint32Array.of(1))).rejects.toThrow(/probing must be/);
        g.destroy();
      },
      { context },
    );
  });

  it('refuses a negative slab count, which let later batches overflow the pool unchecked', async (context) => {
    await gpuTest(
      async (device) => {
        const n = 200;
        const g = await DynamicGraph.create(device, { vertexCount: n, directed: true });
        await expect(g.reserveSlabs(-100_000)).rejects.toThrow(/slabs must be a non-negative integer/);
        const src = new Uint32Array(60 * 31);
        const dst = new Uint32Array(60 * 31);
        for (let i = 0; i < src.length; i++) {
          src[i] = Math.floor(i / 31);
          dst[i] = 100 + (i % 31);
        }
        for (const maxNewSlabs of [-1, Number.NaN, 0.5]) {
          await expect(g.insertEdges(src, dst, undefined, { maxNewSlabs })).rejects.toThrow(/maxNewSlabs/);
        }
        // Each of 60 vertices takes a collision slab: more than the initial pool has free, so it grows.
        await g.insertEdges(src, dst);
        await g.check();
        const degrees = await g.degrees();
        expect(degrees.subarray(0, 60).every((d) => d === 31)).toBe(true);
        g.destroy();
      },
      { context },
    );
  });
});

describe('pairTableSize', () => {
  it('gives a power of two of at least twice the batch, capped by the binding, and refuses what cannot fit', () => {
    expect(pairTableSize(0, 2 ** 27)).toBe(2);
    expect(pairTableSize(1, 2 ** 27)).toBe(2);
    expect(pairTableSize(3, 2 ** 27)).toBe(8);
    expect(pairTableSize(2 ** 21, 2 ** 30)).toBe(2 ** 22);
    // A 128 MiB binding holds 2^25 slots: a batch of 2^24 + 1 items still fits (load just over 1/2).
    expect(pairTableSize(2 ** 24 + 1, 2 ** 27)).toBe(2 ** 25);
    expect(() => pairTableSize(2 ** 25, 2 ** 27)).toThrow(DeviceLimitError);
    expect(() => pairTableSize(2 ** 25, 2 ** 27)).toThrow(/smaller batches/);
  });
});

describe('DynamicGraph probing', () => {
  it("without subgroups: 'auto' probes by thread, 'subgroup' throws naming the feature", async () => {
    const plain = await requestDevice({ label: 'weft test (no subgroups)', features: { subgroups: false } });
    try {
      const g = await DynamicGraph.create(plain, { vertexCount: 4, directed: true, values: 'u32' });
      const src = Uint32Array.of(0, 1, 2);
      const dst = Uint32Array.of(1, 2, 3);
      await g.insertEdges(src, dst, Uint32Array.of(7, 8, 9));
      await g.deleteEdges(src.subarray(0, 1), dst.subarray(0, 1));
      const res = await g.queryEdges(src, dst);
      expectArrayEqual(res.found, [0, 1, 1], 'found');
      expectArrayEqual(res.values!, [0, 8, 9], 'values');
      g.probing = 'subgroup';
      await expect(g.queryEdges(src, dst)).rejects.toThrow(WeftError);
      await expect(g.queryEdges(src, dst)).rejects.toThrow(
        /probing: 'subgroup' needs subgroups.*'subgroups'/,
      );
      g.destroy();
    } finally {
      plain.destroy();
    }
  });

  it('mixes thread and subgroup probing on one graph, batch by batch', async (context) => {
    await gpuTest(
      async (device) => {
        const rand = mulberry32(31);
        const n = 300;
        const g = await DynamicGraph.create(device, { vertexCount: n, directed: false, values: 'u32' });
        const model = new HostDynamicGraph(n, false);
        for (let round = 0; round < 6; round++) {
          g.probing = round % 2 === 0 ? 'subgroup' : 'thread';
          const ins = randomBatch(rand, n, 2000 + round * 500);
          // Hub rows: long chains probed slab by slab.
          ins.src.fill(round, 0, 600);
          await g.insertEdges(ins.src, ins.dst, ins.val);
          model.insertEdges(ins.src, ins.dst, ins.val);
          g.probing = round % 2 === 0 ? 'thread' : 'subgroup';
          const del = randomBatch(rand, n, 800, 0.4);
          del.src.set(ins.src.subarray(0, 400));
          del.dst.set(ins.dst.subarray(0, 400));
          await g.deleteEdges(del.src, del.dst);
          model.deleteEdges(del.src, del.dst);
          g.probing = round % 2 === 0 ? 'subgroup' : 'thread';
          const q = randomBatch(rand, n, 700, 0.3);
          q.src.set(ins.src.subarray(400, 800));
          q.dst.set(ins.dst.subarray(400, 800));
          const res = await g.queryEdges(q.src, q.dst);
          expectArrayEqual(
            res.found,
            Array.from(q.src, (s, i) => (model.adjacency[s]!.has(q.dst[i]!) ? 1 : 0)),
            `round ${round} found`,
          );
          expectArrayEqual(
            res.values!,
            Array.from(q.src, (s, i) => model.adjacency[s]!.get(q.dst[i]!) ?? 0),
            `round ${round} values`,
          );
          await expectTablesMatch(g, model, `round ${round}`);
        }
        g.destroy();
        await expect(
          DynamicGraph.create(device, { vertexCount: 2, directed: true, probing: 'warp' as Probing }),
        ).rejects.toThrow(/probing/);
      },
      { subgroups: true, context },
    );
  });
});

describe.each(PROBINGS)('DynamicGraph insertion in batch order (%s probing)', (probing) => {
  it('duplicates in both orientations, re-insertion over tombstones, hubs: the model, last value wins', async (context) => {
    await gpuTest(
      async (device) => {
        for (const directed of [false, true]) {
          const rand = mulberry32(directed ? 17 : 18);
          const n = 150;
          const g = await DynamicGraph.create(device, { probing, vertexCount: n, directed, values: 'u32' });
          g.insertionOrder = 'batch';
          const model = new HostDynamicGraph(n, directed);
          for (let round = 0; round < 6; round++) {
            const what = `${directed ? 'directed' : 'undirected'} round ${round}`;
            // Half the items repeat an earlier one (often flipped), a third of the rest leave hub 0 or 1.
            const ins = randomBatch(rand, n, 200 + Math.floor(rand() * 2500), 0.5);
            for (let i = 0; i < ins.src.length; i += 3) ins.src[i] = i % 2;
            // Self-loops are dropped.
            for (let i = 1; i < ins.src.length; i += 50) ins.dst[i] = ins.src[i]!;
            await g.insertEdges(ins.src, ins.dst, ins.val);
            model.insertEdges(ins.src, ins.dst, ins.val);
            await expectTablesMatch(g, model, `${what}: insert`);
            // Delete half of them and insert the batch again: its keys take their own tombstones back.
            const half = Math.floor(ins.src.length / 2);
            await g.deleteEdges(ins.src.subarray(0, half), ins.dst.subarray(0, half));
            model.deleteEdges(ins.src.subarray(0, half), ins.dst.subarray(0, half));
            ins.val.reverse();
            await g.insertEdges(ins.src, ins.dst, ins.val);
            model.insertEdges(ins.src, ins.dst, ins.val);
            await expectTablesMatch(g, model, `${what}: re-insert`);
          }
          await expectExportMatches(g, model, `${directed ? 'directed' : 'undirected'}: final`);
          await g.check();
          g.destroy();
        }
      },
      { subgroups: probing === 'subgroup', context },
    );
  });

  it('rejects an unknown order', async () => {
    await gpuTest(async (device) => {
      const g = await DynamicGraph.create(device, { vertexCount: 4, directed: true });
      (g as { insertionOrder: string }).insertionOrder = 'sorted';
      await expect(g.insertEdges(Uint32Array.of(0), Uint32Array.of(1))).rejects.toThrow(InputError);
      g.destroy();
    });
  });
});

describe.each(PROBINGS)('DynamicGraph edge deletion batches (%s probing)', (probing) => {
  for (const claims of ['after-rounds', 'each-round'] as const) {
    it(`repeats, both orientations, absent edges, hub chains, deleted sources (claims ${claims})`, async (context) => {
      await gpuTest(
        async (device) => {
          for (const directed of [false, true]) {
            const what = `${directed ? 'directed' : 'undirected'}, claims ${claims}`;
            const rand = mulberry32(directed ? 23 : 24);
            const n = 300;
            // Hub 0 holds most vertices in one bucket (a long chain: no hints), the rest random.
            const ins = randomBatch(rand, n, 1500, 0.2);
            for (let i = 0; i < ins.src.length; i += 2) ins.src[i] = 0;
            const g = await DynamicGraph.create(device, { probing, vertexCount: n, directed, values: 'u32' });
            g.deleteClaims = claims;
            const model = new HostDynamicGraph(n, directed);
            await g.insertEdges(ins.src, ins.dst, ins.val);
            model.insertEdges(ins.src, ins.dst, ins.val);
            await g.deleteVertices([7, 8]);
            model.deleteVertices([7, 8]);
            for (let round = 0; round < 4; round++) {
              // Present edges (some flipped, some twice in the batch), absent ones, edges of deleted vertices.
              const del = randomBatch(rand, n, 400 + Math.floor(rand() * 800), 0.4);
              for (let i = 0; i < del.src.length; i += 3) {
                const j = Math.floor(rand() * ins.src.length);
                const flip = rand() < 0.5;
                del.src[i] = flip ? ins.dst[j]! : ins.src[j]!;
                del.dst[i] = flip ? ins.src[j]! : ins.dst[j]!;
              }
              del.src[1] = 7;
              await g.deleteEdges(del.src, del.dst);
              model.deleteEdges(del.src, del.dst);
              await expectTablesMatch(g, model, `${what} round ${round}`);
            }
            await expectExportMatches(g, model, `${what}: final`);
            g.destroy();
          }
        },
        { subgroups: probing === 'subgroup', context },
      );
    });
  }
});
