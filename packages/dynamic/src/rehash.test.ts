import { InputError } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { expectExportMatches, expectTablesMatch } from './test-support.ts';

/** Slabs the allocator has handed out and not taken back. */
function liveSlabs(snap: { bumpSlabs: number; freeSlabs: number }): number {
  return snap.bumpSlabs - snap.freeSlabs;
}

/** Random edges among `n` vertices with values (repeats and self-loops included). */
function randomEdges(rand: () => number, n: number, count: number) {
  const src = Uint32Array.from({ length: count }, () => Math.floor(rand() * n));
  const dst = Uint32Array.from({ length: count }, () => Math.floor(rand() * n));
  const val = Float32Array.from({ length: count }, () => Math.fround(rand() * 1000 - 500));
  return { src, dst, val };
}

/** Queries every model edge and as many random pairs, and compares found flags and values with the model. */
async function expectQueriesMatch(
  g: DynamicGraph,
  model: HostDynamicGraph,
  rand: () => number,
  what: string,
) {
  const src: number[] = [];
  const dst: number[] = [];
  model.adjacency.forEach((adj, v) => {
    for (const k of adj.keys()) {
      src.push(v);
      dst.push(k);
    }
  });
  const edges = src.length;
  for (let i = 0; i < edges + 64; i++) {
    src.push(Math.floor(rand() * model.vertexCount));
    dst.push(Math.floor(rand() * model.vertexCount));
  }
  const got = await g.queryEdges(Uint32Array.from(src), Uint32Array.from(dst));
  const found = Uint32Array.from(src, (s, i) => (model.adjacency[s]!.has(dst[i]!) ? 1 : 0));
  expectArrayEqual(got.found, found, `${what}: found`);
  const values = Float32Array.from(src, (s, i) => model.adjacency[s]!.get(dst[i]!) ?? 0);
  expectArrayEqual(got.values as Float32Array, values, `${what}: values`);
}

describe('DynamicGraph.rehash', () => {
  for (const directed of [true, false]) {
    const kind = directed ? 'directed' : 'undirected';
    it(`keeps edges and values, frees slabs that later insertions reuse (${kind})`, async () => {
      await gpuTest(async (device) => {
        // No degree hints: every table starts with one bucket, so the hub's grows a chain of ~n/30 slabs.
        const n = directed ? 2500 : 700;
        const rand = mulberry32(directed ? 71 : 73);
        const g = await DynamicGraph.create(device, { vertexCount: n, directed, values: 'f32' });
        const model = new HostDynamicGraph(n, directed);
        const apply = async (e: { src: Uint32Array; dst: Uint32Array; val: Float32Array }) => {
          await g.insertEdges(e.src, e.dst, e.val);
          model.insertEdges(e.src, e.dst, e.val);
        };
        const hub = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
        await apply({ src: new Uint32Array(n - 1), dst: hub, val: Float32Array.from(hub, (v) => v / 2) });
        await apply(randomEdges(rand, n, 3 * n));
        // Vertices 1..64 in a dense block (a few hundred keys each): self-loops and repeats included.
        await apply(randomEdges(() => rand() * (64 / n), n, 64 * 40));

        const grown = await g.rehash();
        expect(grown.verticesRebuilt, 'hub and block tables grow').toBeGreaterThan(0);
        const grownTables = await expectTablesMatch(g, model, 'grown');
        expect(grownTables.buckets[0], 'hub buckets').toBe(Math.ceil(model.adjacency[0]!.size / 21));
        await expectQueriesMatch(g, model, rand, 'grown');
        expect((await g.rehash()).verticesRebuilt, 'a rebuilt table stays within bounds').toBe(0);

        // Heavy deletion: 90 % of the edges, every edge of vertices 1..16, the hub's but a few.
        const src: number[] = [];
        const dst: number[] = [];
        model.adjacency.forEach((adj, v) => {
          for (const k of adj.keys()) {
            if ((v >= 1 && v <= 16) || (v === 0 && k > 10) || rand() < 0.9) {
              src.push(v);
              dst.push(k);
            }
          }
        });
        await g.deleteEdges(Uint32Array.from(src), Uint32Array.from(dst));
        model.deleteEdges(src, dst);
        await g.deleteVertices([30, 31, 32]);
        model.deleteVertices([30, 31, 32]);
        const before = await expectTablesMatch(g, model, 'deleted');
        const versionBefore = g.version;
        const shrunk = await g.rehash();
        expect(g.version).toBe(versionBefore + 1);
        const after = await expectTablesMatch(g, model, 'shrunk');
        expect(shrunk.verticesRebuilt).toBeGreaterThan(0);
        expect(after.buckets[0], 'hub buckets').toBe(1);
        expect(shrunk.slabsFreed, 'slabs freed').toBe(liveSlabs(before) - liveSlabs(after));
        expect(liveSlabs(after), 'live slabs').toBeLessThan(liveSlabs(before));
        await expectQueriesMatch(g, model, rand, 'shrunk');

        // Insertions take the freed slabs before any from the bump pointer.
        await apply(randomEdges(rand, n, n));
        await apply({
          src: new Uint32Array(200),
          dst: hub.subarray(100, 300),
          val: new Float32Array(200).fill(7),
        });
        const refilled = await expectTablesMatch(g, model, 'refilled');
        expect(refilled.bumpSlabs, 'no slab from the bump pointer').toBe(after.bumpSlabs);
        expect(refilled.freeSlabs).toBeLessThan(after.freeSlabs);

        // A rebuilt vertex deleted and inserted again keeps its rebuilt buckets.
        await g.deleteVertices([0, 40]);
        model.deleteVertices([0, 40]);
        await g.insertVertices([0, 40]);
        model.insertVertices([0, 40]);
        await apply({ src: new Uint32Array(n - 1), dst: hub, val: Float32Array.from(hub, (v) => -v) });
        await g.rehash();
        await expectTablesMatch(g, model, 'hub back');
        await expectExportMatches(g, model, 'final');
        g.destroy();
      });
    });
  }

  it('subgroup probing rebuilds the same way', async (context) => {
    await gpuTest(
      async (device) => {
        const n = 400;
        const rand = mulberry32(17);
        const g = await DynamicGraph.create(device, {
          vertexCount: n,
          directed: false,
          values: 'f32',
          probing: 'subgroup',
        });
        const model = new HostDynamicGraph(n, false);
        const e = randomEdges(rand, n, 15 * n);
        await g.insertEdges(e.src, e.dst, e.val);
        model.insertEdges(e.src, e.dst, e.val);
        const hub = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
        await g.insertEdges(new Uint32Array(n - 1), hub, new Float32Array(n - 1).fill(3));
        model.insertEdges(new Uint32Array(n - 1), hub, new Float32Array(n - 1).fill(3));
        expect((await g.rehash()).verticesRebuilt).toBeGreaterThan(0);
        await expectTablesMatch(g, model, 'grown');
        const half = Math.floor(e.src.length / 2);
        await g.deleteEdges(e.src.subarray(0, half), e.dst.subarray(0, half));
        model.deleteEdges(e.src.subarray(0, half), e.dst.subarray(0, half));
        await g.deleteEdges(new Uint32Array(n - 1), hub);
        model.deleteEdges(new Uint32Array(n - 1), hub);
        const before = await expectTablesMatch(g, model, 'deleted');
        const r = await g.rehash();
        const after = await expectTablesMatch(g, model, 'shrunk');
        expect(r.slabsFreed).toBe(liveSlabs(before) - liveSlabs(after));
        expect(r.slabsFreed).toBeGreaterThan(0);
        await expectQueriesMatch(g, model, rand, 'shrunk');
        g.destroy();
      },
      { subgroups: true, context },
    );
  });

  it('autoRehash rebuilds after batches that changed half the nominal room', async () => {
    await gpuTest(async (device) => {
      const n = 200;
      const rand = mulberry32(23);
      const g = await DynamicGraph.create(device, {
        vertexCount: n,
        directed: true,
        values: 'f32',
        autoRehash: true,
      });
      const model = new HostDynamicGraph(n, true);
      const apply = async (b: { src: Uint32Array; dst: Uint32Array; val: Float32Array }) => {
        await g.insertEdges(b.src, b.dst, b.val);
        model.insertEdges(b.src, b.dst, b.val);
      };
      // The tables are sized for 21 keys a vertex (one bucket each): this batch and the next stay under half.
      const small = randomEdges(rand, n, Math.floor(0.45 * 21 * n));
      await apply(small);
      expect(
        (await g.inspect()).buckets.every((b) => b === 1),
        'no table grew',
      ).toBe(true);
      // A batch taking the hub past the bound (42 keys a bucket): its table grows before the keys go in, to
      // the batch's run (45 distinct keys) on top of its degree.
      const hub = Uint32Array.from({ length: 45 }, (_, i) => i + 1);
      const wanted = model.degrees()[0]! + hub.length;
      await apply({ src: new Uint32Array(hub.length), dst: hub, val: new Float32Array(hub.length).fill(1) });
      const fit = Math.ceil(wanted / 21);
      expect((await expectTablesMatch(g, model, 'hub grown')).buckets[0], 'hub buckets').toBe(fit);
      // Insertions that grow their tables do not count towards the room: no rehash, the hub keeps its table.
      await apply(randomEdges(rand, n, 250));
      expect((await expectTablesMatch(g, model, 'after more edges')).buckets[0]).toBe(fit);
      expect((await g.rehash()).verticesRebuilt, 'nothing left to rebuild').toBe(0);
      await g.deleteEdges(new Uint32Array(hub.length), hub);
      model.deleteEdges(new Uint32Array(hub.length), hub);
      await g.deleteEdges(small.src, small.dst);
      model.deleteEdges(small.src, small.dst);
      // Deleted batch items count, present or not: the repeat takes the count past half the room.
      expect((await g.inspect()).buckets[0], 'hub not shrunk yet').toBe(fit);
      await g.deleteEdges(small.src, small.dst);
      const shrunk = await expectTablesMatch(g, model, 'auto shrunk');
      expect(shrunk.buckets[0]).toBe(1);
      g.autoRehash = false;
      const all = Uint32Array.from({ length: n - 1 }, (_, i) => i + 1);
      await apply({ src: new Uint32Array(n - 1), dst: all, val: new Float32Array(n - 1).fill(3) });
      expect((await expectTablesMatch(g, model, 'manual')).buckets[0]).toBe(1);
      g.destroy();
    });
  });

  for (const probing of ['thread', 'subgroup'] as const) {
    it(`autoRehash grows a table an insertion batch would make long (${probing} probing)`, async (context) => {
      await gpuTest(
        async (device) => {
          const n = 200;
          const rand = mulberry32(29);
          const g = await DynamicGraph.create(device, {
            vertexCount: n,
            directed: false,
            autoRehash: true,
            probing,
          });
          const model = new HostDynamicGraph(n, false);
          const e = randomEdges(rand, n, n);
          await g.insertEdges(e.src, e.dst);
          model.insertEdges(e.src, e.dst);
          expect(
            (await g.inspect()).buckets.every((b) => b === 1),
            'one bucket a vertex',
          ).toBe(true);
          // Far under half the room, but vertex 7's table takes 199 keys in one batch: more than two slabs a
          // bucket.
          const hub = Uint32Array.from({ length: n }, (_, i) => i).filter((v) => v !== 7);
          const wanted = model.degrees()[7]! + hub.length;
          await g.insertEdges(new Uint32Array(hub.length).fill(7), hub);
          model.insertEdges(new Uint32Array(hub.length).fill(7), hub);
          const grown = await expectTablesMatch(g, model, 'grown before the batch');
          expect(grown.buckets[7]).toBe(Math.ceil(wanted / 21));
          expect((await g.rehash()).verticesRebuilt, 'nothing left to rebuild').toBe(0);
          // Short batches leave the flag clear: no rehash, tables unchanged.
          const before = await g.inspect();
          await g.insertEdges(Uint32Array.of(1, 2), Uint32Array.of(3, 4));
          model.insertEdges(Uint32Array.of(1, 2), Uint32Array.of(3, 4));
          const after = await expectTablesMatch(g, model, 'after a short batch');
          expectArrayEqual(after.buckets, before.buckets, 'buckets');
          g.destroy();
        },
        { subgroups: probing === 'subgroup', context },
      );
    });
  }

  it('all-deleted tables, the empty graph, bounds and errors', async () => {
    await gpuTest(async (device) => {
      const n = 300;
      const rand = mulberry32(7);
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false, values: 'u32' });
      const model = new HostDynamicGraph(n, false);
      const e = randomEdges(rand, n, 20 * n);
      const val = Uint32Array.from(e.val, (x) => Math.abs(x) * 1000);
      await g.insertEdges(e.src, e.dst, val);
      model.insertEdges(e.src, e.dst, val);
      const built = await expectTablesMatch(g, model, 'built');
      // Tight bounds leave the tables alone; the default ones rebuild them all.
      expect((await g.rehash({ low: 0, high: 1e9, maxChain: 1e6 })).verticesRebuilt).toBe(0);
      await g.rehash();
      await g.deleteEdges(e.src, e.dst);
      model.deleteEdges(e.src, e.dst);
      const before = await expectTablesMatch(g, model, 'every edge deleted');
      const r = await g.rehash();
      const after = await expectTablesMatch(g, model, 'every table rebuilt empty');
      expect(r.verticesRebuilt).toBeGreaterThan(0);
      expect(liveSlabs(after), 'one base slab a vertex').toBe(n);
      expect(r.slabsFreed).toBe(liveSlabs(before) - n);
      expect((await g.rehash()).verticesRebuilt).toBe(0);
      await g.insertEdges(e.src, e.dst, val);
      model.insertEdges(e.src, e.dst, val);
      const back = await expectTablesMatch(g, model, 'inserted again');
      // Racing threads each take a spare slab, so a few may come from the bump pointer.
      expect(back.bumpSlabs - after.bumpSlabs).toBeLessThan((built.bumpSlabs - n) / 4);
      const q = await g.queryEdges(e.src, e.dst);
      expectArrayEqual(
        q.values as Uint32Array,
        Uint32Array.from(e.src, (s, i) => model.adjacency[s]!.get(e.dst[i]!) ?? 0),
        'values',
      );

      await expect(g.rehash({ low: 0.5, high: 0.2 })).rejects.toThrow(InputError);
      await expect(g.rehash({ maxChain: 0 })).rejects.toThrow(InputError);
      g.destroy();
      await expect(g.rehash()).rejects.toThrow(InputError);
      const none = await DynamicGraph.create(device, { vertexCount: 0, directed: true });
      expect(await none.rehash()).toEqual({ verticesRebuilt: 0, slabsFreed: 0 });
      none.destroy();
    });
  });
});
