import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { expectExportMatches, expectTablesMatch } from './test-support.ts';

type Batch = { src: Uint32Array; dst: Uint32Array; val: Float32Array };

/** Edges with skewed sources (about half from the first `hubs` vertices), repeats and self-loops included. */
function skewedEdges(rand: () => number, n: number, count: number, hubs: number): Batch {
  const pick = () => Math.floor(rand() < 0.5 ? rand() * hubs : rand() * n);
  const src = Uint32Array.from({ length: count }, pick);
  const dst = Uint32Array.from({ length: count }, () => Math.floor(rand() * n));
  const val = Float32Array.from({ length: count }, () => Math.fround(rand() * 100 - 50));
  return { src, dst, val };
}

/** The tables' key hash (lowbias32), as the kernels compute it. */
function keyHash(k: number): number {
  let x = k >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Base buckets a table grown to `keys` at the default load factor gets. */
const fitFor = (keys: number) => Math.ceil(keys / 21);

describe('tables grown on the GPU before an insertion batch (autoRehash)', () => {
  for (const directed of [true, false]) {
    const kind = directed ? 'directed' : 'undirected';
    it(`keeps every edge and value while skewed batches grow the tables (${kind})`, async () => {
      await gpuTest(async (device) => {
        const n = 600;
        const rand = mulberry32(directed ? 5 : 6);
        const g = await DynamicGraph.create(device, {
          vertexCount: n,
          directed,
          values: 'f32',
          autoRehash: true,
        });
        const model = new HostDynamicGraph(n, directed);
        let grew = false;
        for (let round = 0; round < 6; round++) {
          const e = skewedEdges(rand, n, 700 + 300 * round, 8);
          await g.insertEdges(e.src, e.dst, e.val);
          model.insertEdges(e.src, e.dst, e.val);
          const snap = await expectTablesMatch(g, model, `round ${round}`);
          const degrees = model.degrees();
          for (let v = 0; v < n; v++) {
            // A grown table holds at most twice the load factor's keys, and is never grown for nothing.
            expect(degrees[v]! <= snap.buckets[v]! * 42, `vertex ${v}: ${degrees[v]} keys`).toBe(true);
            if (snap.buckets[v]! > 1) grew = true;
          }
          // Deletions leave tombstones in the tables the next round grows again.
          if (round % 2 === 1) {
            const del = skewedEdges(rand, n, 800, 8);
            await g.deleteEdges(del.src, del.dst);
            model.deleteEdges(del.src, del.dst);
          }
        }
        expect(grew, 'some table grew').toBe(true);
        await expectExportMatches(g, model, 'final');
        g.destroy();
      });
    });
  }

  it('grows in recorded batches with nothing read back, within the reserved room', async () => {
    await gpuTest(async (device) => {
      const n = 400;
      const rand = mulberry32(17);
      const g = await DynamicGraph.create(device, {
        vertexCount: n,
        directed: false,
        autoRehash: true,
        slabCapacity: 4096,
      });
      const model = new HostDynamicGraph(n, false);
      await g.reserveSlabs(1024);
      const rec = device.recorder({ label: 'recorded batches' });
      for (let round = 0; round < 5; round++) {
        const e = skewedEdges(rand, n, 600, 4);
        await g.insertEdges(e.src, e.dst, undefined, { recorder: rec, maxNewSlabs: 0 });
        model.insertEdges(e.src, e.dst);
      }
      // Growth took only reserved room: a batch with the default reservation can still be recorded.
      const tail = skewedEdges(rand, n, 100, 4);
      await g.insertEdges(tail.src, tail.dst, undefined, { recorder: rec });
      model.insertEdges(tail.src, tail.dst);
      await rec.submit();
      await g.check();
      const snap = await expectTablesMatch(g, model, 'recorded');
      expect(Math.max(...snap.buckets), 'a hub grew').toBeGreaterThan(1);
      await g.reserveSlabs(512);
      const rec2 = device.recorder({ label: 'recorded again' });
      const e = skewedEdges(rand, n, 600, 4);
      await g.insertEdges(e.src, e.dst, undefined, { recorder: rec2, maxNewSlabs: 0 });
      model.insertEdges(e.src, e.dst);
      await rec2.submit();
      await g.check();
      await expectTablesMatch(g, model, 'recorded again');
      g.destroy();
    });
  });

  it('moves a hub of more buckets than one pass places, and skips deleted vertices', async () => {
    await gpuTest(async (device) => {
      // The hub's second growth moves 24,999 keys into fitFor(65,000) = 3,096 buckets: four passes of 1,024.
      const n = 65_002;
      const g = await DynamicGraph.create(device, {
        vertexCount: n,
        directed: true,
        values: 'u32',
        autoRehash: true,
      });
      const model = new HostDynamicGraph(n, true);
      const star = (from: number, to: number, value: number) => {
        const dst = Uint32Array.from({ length: to - from }, (_, i) => from + i);
        return { src: new Uint32Array(dst.length), dst, val: new Uint32Array(dst.length).fill(value) };
      };
      const apply = async (e: { src: Uint32Array; dst: Uint32Array; val: Uint32Array }) => {
        await g.insertEdges(e.src, e.dst, e.val);
        model.insertEdges(e.src, e.dst, e.val);
      };
      await apply(star(1, 25_001, 3));
      expect((await g.inspect()).buckets[0], 'grown from its batch alone').toBe(fitFor(25_000));
      // Vertex 1 is deleted: its batch items are skipped, and its table is not grown.
      await g.deleteVertices([1]);
      model.deleteVertices([1]);
      const second = star(25_001, 65_001, 5);
      second.src.fill(1, 30_000);
      // Deleting vertex 1 took the hub's edge to it: 24,999 keys move.
      let degree = model.degrees()[0]!;
      await apply(second);
      const snap = await expectTablesMatch(g, model, 'hub moved');
      expect(snap.buckets[0], 'hub buckets').toBe(fitFor(degree + 30_000));
      expect(snap.buckets[1], 'deleted vertex').toBeLessThanOrEqual(1);
      // Every key again with new values: the run counts present keys too, so the hub wants 119,999 keys' room,
      // which the pool does not have beside the batch (its table stays, the pool doubles).
      await apply(star(1, 65_001, 7));
      expect((await expectTablesMatch(g, model, 'no room')).buckets[0]).toBe(snap.buckets[0]);
      // The next such batch finds room: 64,999 keys move into 6,191 buckets (seven passes).
      degree = model.degrees()[0]!;
      await apply(star(2, 65_001, 9));
      const third = await expectTablesMatch(g, model, 'hub moved again');
      expect(third.buckets[0]).toBe(fitFor(2 * degree));
      g.destroy();
    });
  });

  // 8 buckets: a tile of threads moves the table; 130: a workgroup (more than 128 buckets).
  for (const { buckets, crowds, n } of [
    { buckets: 8, crowds: [70, 40], n: 4000 },
    { buckets: 130, crowds: [100], n: 20_000 },
  ]) {
    it(`lays out collision chains when moved keys crowd into a few of ${buckets} new buckets`, async () => {
      await gpuTest(async (device) => {
        const g = await DynamicGraph.create(device, { vertexCount: n, directed: true, values: 'u32' });
        const model = new HostDynamicGraph(n, true);
        // Keys of new buckets 0, 1, ... once the table has `buckets` buckets, put in while it has one.
        const crowd = crowds.flatMap((count, b) =>
          Array.from({ length: n }, (_, k) => k)
            .filter((k) => k > 0 && keyHash(k) % buckets === b)
            .slice(0, count),
        );
        const old = Uint32Array.from(crowd);
        const apply = async (dst: Uint32Array, value: number) => {
          const src = new Uint32Array(dst.length);
          const val = new Uint32Array(dst.length).fill(value);
          await g.insertEdges(src, dst, val);
          model.insertEdges(src, dst, val);
        };
        await apply(old, 1);
        g.autoRehash = true;
        // Fresh keys up to `buckets` tables' worth at the load factor: the moved keys need every spare slab.
        const taken = new Set(old);
        const fresh = Uint32Array.from(
          Array.from({ length: n }, (_, k) => k)
            .filter((k) => k > 0 && !taken.has(k) && keyHash(k) % buckets >= crowds.length)
            .slice(0, buckets * 21 - old.length),
        );
        await apply(fresh, 2);
        const snap = await expectTablesMatch(g, model, 'crowded');
        expect(snap.buckets[0]).toBe(buckets);
        await expectExportMatches(g, model, 'crowded');
        g.destroy();
      });
    });
  }

  it("counts grown tables' base buckets in the room that deletions may use before a rehash", async () => {
    await gpuTest(async (device) => {
      const n = 3000;
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: true, autoRehash: true });
      const model = new HostDynamicGraph(n, true);
      const hub = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
      await g.insertEdges(new Uint32Array(hub.length), hub);
      model.insertEdges(new Uint32Array(hub.length), hub);
      const fit = fitFor(n - 1);
      expect((await g.inspect()).buckets[0]).toBe(fit);
      // Room: half of (n - 1 + fit) base buckets at 21 keys each = 32,991 deleted directions; the hub's own
      // n - 1 buckets more than one base bucket a vertex would have given.
      const room = ((n - 1 + fit) * 21) / 2;
      const absent = room - hub.length - 500;
      const src = new Uint32Array(hub.length + absent);
      const dst = new Uint32Array(hub.length + absent);
      dst.set(hub);
      for (let i = hub.length; i < src.length; i++) {
        src[i] = 1 + (i % (n - 1));
        dst[i] = 1 + ((i * 7) % (n - 1));
      }
      await g.deleteEdges(src, dst);
      model.deleteEdges(src, dst);
      expect((await expectTablesMatch(g, model, 'within the room')).buckets[0], 'no rehash yet').toBe(fit);
      // 1,000 more deleted directions pass the room: the rehash shrinks the empty hub's table.
      await g.deleteEdges(src.subarray(0, 1000), dst.subarray(0, 1000));
      expect((await expectTablesMatch(g, model, 'past the room')).buckets[0], 'rehashed').toBe(1);
      g.destroy();
    });
  });

  it('leaves tables as they are when the pool has no room beside the batch, then grows them', async () => {
    await gpuTest(async (device) => {
      const n = 300;
      const rand = mulberry32(41);
      const g = await DynamicGraph.create(device, {
        vertexCount: n,
        directed: true,
        autoRehash: true,
        slabCapacity: n + 305,
      });
      const model = new HostDynamicGraph(n, true);
      const hub = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
      // Recorded, growth may only take reserved room the batch's own (a slab an edge, 299) leaves: the pool
      // of 605 holds 300 base slabs and that reservation, nothing more.
      const rec = device.recorder({ label: 'no room' });
      await g.insertEdges(new Uint32Array(hub.length), hub, undefined, { recorder: rec });
      model.insertEdges(new Uint32Array(hub.length), hub);
      await rec.submit();
      await g.check();
      expect((await expectTablesMatch(g, model, 'no room')).buckets[0]).toBe(1);
      // Submitted on its own, the next batch grows the pool and the hub's table first.
      const e = skewedEdges(rand, n, 400, 1);
      await g.insertEdges(e.src, e.dst);
      model.insertEdges(e.src, e.dst);
      const snap = await expectTablesMatch(g, model, 'room');
      expect(snap.buckets[0]).toBeGreaterThan(1);
      expect(model.degrees()[0]! <= snap.buckets[0]! * 42).toBe(true);
      g.destroy();
    });
  });
});
