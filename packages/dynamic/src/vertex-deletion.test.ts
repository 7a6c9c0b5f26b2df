import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { expectExportMatches, expectTablesMatch } from './test-support.ts';

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

describe('DynamicGraph vertex deletion', () => {
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

  it('recorded batches, every vertex, and the empty graph (undirected)', async () => {
    await gpuTest(async (device) => {
      const n = 70;
      const rand = mulberry32(5);
      const e = skewedEdges(rand, n);
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false });
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
      await none.deleteVertices([0, 1]);
      expect(none.vertexCount).toBe(0);
      none.destroy();
    });
  });
});
