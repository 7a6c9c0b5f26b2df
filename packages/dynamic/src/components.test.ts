import { componentsReference } from '@weft/algorithms';
import { InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  DynamicComponents,
  type DynamicComponentsOptions,
  dynamicConnectedComponents,
} from './components.ts';
import { DynamicGraph } from './dynamic-graph.ts';
import { HostDynamicGraph } from './reference.ts';
import { modelCsr } from './test-support.ts';

function snapshot(model: HostDynamicGraph): HostCsr {
  const { offsets, targets } = modelCsr(model, undefined);
  return {
    vertexCount: model.vertexCount,
    edgeCount: targets.length,
    offsets,
    targets,
    directed: model.directed,
  };
}

async function expectLabels(c: DynamicComponents, model: HostDynamicGraph, what: string) {
  expectArrayEqual(await c.result(), componentsReference(snapshot(model)).labels, what);
}

/** The model's edges (each undirected edge once), for picking deletions. */
function edgesOf(model: HostDynamicGraph): [number, number][] {
  const out: [number, number][] = [];
  model.adjacency.forEach((adj, u) => {
    for (const v of adj.keys()) if (model.directed || u < v) out.push([u, v]);
  });
  return out;
}

function componentSizes(labels: Uint32Array): number[] {
  const sizes = new Map<number, number>();
  for (const l of labels) sizes.set(l, (sizes.get(l) ?? 0) + 1);
  return [...sizes.values()];
}

function pick<T>(items: T[], count: number, rand: () => number): T[] {
  return Array.from(
    { length: Math.min(count, items.length) },
    () => items[Math.floor(rand() * items.length)]!,
  );
}

const N = 160;
/** A path (every edge a bridge) over the last vertices, so deleting its edges splits components. */
const PATH_FROM = 120;
/** Vertex 0 is a hub with one base bucket: its neighbours fill a long slab chain. */
const HUB_DEGREE = 100;

const MODES: DynamicComponentsOptions[] = [{ relink: 'vertex' }, { relink: 'slab' }, {}];

describe('DynamicComponents', () => {
  for (const directed of [false, true]) {
    for (const options of MODES) {
      it(`matches a from-scratch CC after every random batch (${directed ? 'directed' : 'undirected'}, relink ${options.relink ?? 'auto'})`, async () => {
        await gpuTest(async (device) => {
          const rand = mulberry32(directed ? 7 : 8);
          const g = await DynamicGraph.create(device, { vertexCount: N, directed });
          const model = new HostDynamicGraph(N, directed);
          const insert = async (src: number[], dst: number[]) => {
            const s = Uint32Array.from(src);
            const t = Uint32Array.from(dst);
            await g.insertEdges(s, t);
            model.insertEdges(s, t);
            await c.afterInsert(s, t);
          };
          const remove = async (pairs: [number, number][]) => {
            const s = Uint32Array.from(pairs, (p) => p[0]);
            const t = Uint32Array.from(pairs, (p) => p[1]);
            await c.deleteEdges(s, t);
            model.deleteEdges(s, t);
          };
          const c = await DynamicComponents.create(g, options);
          await expectLabels(c, model, 'empty graph');
          // The hub, the path, and sparse random edges (many small components).
          const hub = Array.from({ length: HUB_DEGREE }, (_, k) => 1 + ((k * 37) % (N - 1)));
          await insert(new Array(HUB_DEGREE).fill(0), hub);
          const path = Array.from({ length: N - PATH_FROM - 1 }, (_, k) => PATH_FROM + k);
          await insert(
            path,
            path.map((v) => v + 1),
          );
          await expectLabels(c, model, 'hub and path');
          await remove([[0, hub[5]!]]);
          await expectLabels(c, model, 'one hub edge deleted');
          for (let batch = 0; batch < 10; batch++) {
            if (batch % 2 === 0) {
              // Random edges with self-loops and duplicates (the same edge twice, or reversed).
              const src: number[] = [];
              const dst: number[] = [];
              for (let i = 0; i < 12 + batch * 3; i++) {
                const r = rand();
                if (r < 0.1) {
                  const v = Math.floor(rand() * N);
                  src.push(v);
                  dst.push(v);
                } else if (r < 0.25 && i > 0) {
                  const j = Math.floor(rand() * i);
                  src.push(dst[j]!);
                  dst.push(src[j]!);
                } else {
                  src.push(Math.floor(rand() * PATH_FROM));
                  dst.push(Math.floor(rand() * PATH_FROM));
                }
              }
              await insert(src, dst);
            } else {
              // Existing edges (hub edges, bridges of the path, random ones), absent edges, self-loops.
              const pairs = pick(edgesOf(model), 6 + batch, rand);
              const p = PATH_FROM + Math.floor(rand() * (N - PATH_FROM - 1));
              pairs.push([p, p + 1], [p, p + 1], [3, 3], [Math.floor(rand() * N), Math.floor(rand() * N)]);
              pairs.push([0, hub[Math.floor(rand() * HUB_DEGREE)]!]);
              await remove(pairs);
            }
            await expectLabels(c, model, `batch ${batch}`);
          }
          await c.afterInsert(new Uint32Array(0), new Uint32Array(0));
          await c.deleteEdges(new Uint32Array(0), new Uint32Array(0));
          expect(await c.touched()).toBe(0);
          await expectLabels(c, model, 'empty batches');
          // A deletion of absent edges and self-loops touches nothing.
          await remove([
            [5, 5],
            [N - 1, 0],
          ]);
          if (!model.adjacency[N - 1]!.has(0)) expect(await c.touched()).toBe(0);
          // Vertex deletion (the hub: its component splits), then new vertices beyond the capacity.
          await c.deleteVertices([0, PATH_FROM + 5]);
          model.deleteVertices([0, PATH_FROM + 5]);
          await expectLabels(c, model, 'vertices deleted');
          const ids = Array.from({ length: 40 }, (_, k) => N + k);
          await g.insertVertices(ids);
          model.insertVertices(ids);
          await insert([N, N + 1, N + 2, 0, 7], [N + 1, 9, N + 39, N + 3, 8]);
          await expectLabels(c, model, 'new vertices');
          // Every edge deleted: every vertex alone.
          await remove(edgesOf(model));
          await expectLabels(c, model, 'all edges deleted');
          expect(model.edgeCount()).toBe(0);
          await c.recompute();
          await expectLabels(c, model, 'recomputed');
          c.destroy();
          g.destroy();
        });
      });
    }
  }

  it('keeps up on a larger graph with mixed batches; from scratch on the set variant; bad input', async () => {
    await gpuTest(async (device) => {
      const rand = mulberry32(21);
      const n = 600;
      const g = await DynamicGraph.create(device, { vertexCount: n, directed: false, values: 'u32' });
      const model = new HostDynamicGraph(n, false);
      const c = await DynamicComponents.create(g);
      for (let round = 0; round < 6; round++) {
        const m = 250;
        const s = Uint32Array.from({ length: m }, () => Math.floor(rand() * n));
        const t = Uint32Array.from({ length: m }, () => Math.floor(rand() * n));
        const w = Uint32Array.from({ length: m }, () => 1);
        await g.insertEdges(s, t, w);
        model.insertEdges(s, t, w);
        await c.afterInsert(s, t);
        await expectLabels(c, model, `round ${round} insertions`);
        const del = pick(edgesOf(model), 120, rand);
        const ds = Uint32Array.from(del, (p) => p[0]);
        const dt = Uint32Array.from(del, (p) => p[1]);
        await c.deleteEdges(ds, dt);
        model.deleteEdges(ds, dt);
        expect(await c.touched()).toBeGreaterThan(0);
        await expectLabels(c, model, `round ${round} deletions`);
      }
      const scratch = await dynamicConnectedComponents(g);
      const want = componentsReference(snapshot(model));
      expectArrayEqual(scratch.labels, want.labels, 'from scratch');
      expect(scratch.count).toBe(want.count);
      await expect(c.deleteEdges(Uint32Array.of(1), Uint32Array.of(n))).rejects.toThrow(InputError);
      await expect(c.afterInsert(Uint32Array.of(1), new Uint32Array(0))).rejects.toThrow(InputError);
      await expect(c.afterInsert(Float32Array.of(1) as never, Uint32Array.of(2))).rejects.toThrow(
        /src must be/,
      );
      c.destroy();
      await expect(c.result()).rejects.toThrow(InputError);
      await expect(DynamicComponents.create(g, { relink: 'sideways' as 'slab' })).rejects.toThrow(InputError);
      await expect(DynamicComponents.create(g, { sweepMin: Number.NaN })).rejects.toThrow(/sweepMin/);
      g.destroy();
    });
  });

  for (const directed of [false, true]) {
    it(`re-links edge by edge only the cut-off pieces of a giant component (${directed ? 'directed' : 'undirected'})`, async () => {
      await gpuTest(async (device) => {
        const rand = mulberry32(directed ? 31 : 32);
        // Kronecker: a giant component with hubs, leaves that deletions cut off, isolated ids.
        const edges = kronecker({ scale: 9, edgeFactor: 6, seed: 4 });
        const g = await DynamicGraph.fromEdgeList(device, { ...edges, directed });
        const model = new HostDynamicGraph(edges.vertexCount, directed);
        model.insertEdges(edges.src, edges.dst);
        const c = await DynamicComponents.create(g);
        const giant = Math.max(...componentSizes(componentsReference(snapshot(model)).labels));
        for (let batch = 0; batch < 6; batch++) {
          const del = pick(edgesOf(model), batch === 5 ? 400 : 1 + Math.floor(rand() * 60), rand);
          const ds = Uint32Array.from(del, (p) => p[0]);
          const dt = Uint32Array.from(del, (p) => p[1]);
          await c.deleteEdges(ds, dt);
          model.deleteEdges(ds, dt);
          await expectLabels(c, model, `batch ${batch}`);
          const reset = await c.touched();
          const relinked = await c.relinked();
          if (directed) {
            expect(relinked, `batch ${batch}`).toBeLessThanOrEqual(reset);
            // The giant stays mostly in one set after its kept forest edges and a few edges a vertex.
            if (batch < 5 && reset > 0)
              expect(relinked, `batch ${batch}: ${relinked} of ${reset}`).toBeLessThan(reset / 2);
          } else {
            // Only the pieces cut off from the spanning trees are reset, never the giant component.
            expect(relinked, `batch ${batch}`).toBe(reset);
            if (batch < 5) expect(reset, `batch ${batch}: ${reset} of ${giant}`).toBeLessThan(giant / 8);
          }
        }
        // Every edge of a path cut: each piece on its own (splits into many big and small pieces).
        const path = Array.from({ length: 64 }, (_, i) => i + 300);
        const ps = Uint32Array.from(path.slice(0, -1));
        const pt = Uint32Array.from(path.slice(1));
        await g.insertEdges(ps, pt);
        model.insertEdges(ps, pt);
        await c.afterInsert(ps, pt);
        const cut = Uint32Array.from([310, 340, 341]);
        await c.deleteEdges(
          cut,
          Uint32Array.from(cut, (v) => v + 1),
        );
        model.deleteEdges(
          cut,
          Uint32Array.from(cut, (v) => v + 1),
        );
        await expectLabels(c, model, 'path cut');
        c.destroy();
        g.destroy();
      });
    });
  }
});

/** A graph, its host model and its components, updated together. */
async function harness(device: Parameters<Parameters<typeof gpuTest>[0]>[0], n: number, directed: boolean) {
  const g = await DynamicGraph.create(device, { vertexCount: n, directed });
  const model = new HostDynamicGraph(n, directed);
  const c = await DynamicComponents.create(g);
  const pairs = (list: [number, number][]) =>
    [Uint32Array.from(list, (p) => p[0]), Uint32Array.from(list, (p) => p[1])] as const;
  return {
    g,
    model,
    c,
    async insert(list: [number, number][]) {
      const [s, t] = pairs(list);
      await g.insertEdges(s, t);
      model.insertEdges(s, t);
      await c.afterInsert(s, t);
    },
    async remove(list: [number, number][]) {
      const [s, t] = pairs(list);
      await c.deleteEdges(s, t);
      model.deleteEdges(s, t);
    },
    check: (what: string) => expectLabels(c, model, what),
    destroy() {
      c.destroy();
      g.destroy();
    },
  };
}

const path = (from: number, to: number): [number, number][] =>
  Array.from({ length: to - from }, (_, k) => [from + k, from + k + 1]);

describe('DynamicComponents under adversarial deletions', () => {
  for (const directed of [false, true]) {
    const kind = directed ? 'directed' : 'undirected';

    it(`splits a path into many pieces, some larger than a piece gathered in one thread (${kind})`, async () => {
      await gpuTest(async (device) => {
        const h = await harness(device, 400, directed);
        await h.insert(path(0, 399));
        await h.check('path');
        // Every third edge, then the rest of the first half edge by edge in one batch.
        await h.remove(path(0, 399).filter((_, k) => k % 3 === 1));
        await h.check('every third edge cut');
        await h.remove(path(0, 200));
        await h.check('first half cut apart');
        // Pieces of 150 vertices cut off a root: larger than a piece one thread gathers.
        await h.insert(path(200, 399));
        await h.remove([
          [250, 251],
          [100, 101],
        ]);
        await h.check('long pieces cut off');
        h.destroy();
      });
    });

    it(`cuts pieces larger than one thread gathers off deep trees built from scratch (${kind})`, async () => {
      await gpuTest(async (device) => {
        // A path of 300 and a cycle of 300, built before the components (whole trees, 150 deep).
        const edges = [...path(0, 299), ...path(300, 599), [599, 300]] as [number, number][];
        const g = await DynamicGraph.fromEdgeList(device, {
          vertexCount: 640,
          src: Uint32Array.from(edges, (e) => e[0]),
          dst: Uint32Array.from(edges, (e) => e[1]),
          directed,
        });
        const model = new HostDynamicGraph(640, directed);
        model.insertEdges(
          Uint32Array.from(edges, (e) => e[0]),
          Uint32Array.from(edges, (e) => e[1]),
        );
        const c = await DynamicComponents.create(g);
        const cuts: [number, number][][] = [
          [[50, 51]],
          [
            [350, 351],
            [420, 421],
          ],
          [[10, 11]],
          [[500, 501]],
        ];
        for (const batch of cuts) {
          const s = Uint32Array.from(batch, (e) => e[0]);
          const t = Uint32Array.from(batch, (e) => e[1]);
          await c.deleteEdges(s, t);
          model.deleteEdges(s, t);
          await expectLabels(c, model, `${batch} cut`);
        }
        c.destroy();
        g.destroy();
      });
    });

    it(`splits a component after recomputing it from whole trees (${kind})`, async () => {
      await gpuTest(async (device) => {
        const edges = path(0, 99);
        const src = Uint32Array.from(edges, (e) => e[0]);
        const dst = Uint32Array.from(edges, (e) => e[1]);
        const g = await DynamicGraph.fromEdgeList(device, { vertexCount: 100, src, dst, directed });
        const model = new HostDynamicGraph(100, directed);
        model.insertEdges(src, dst);
        const c = await DynamicComponents.create(g);
        // The trees were whole; recomputing drops them, so the next split must re-link what it touches.
        await c.recompute();
        await c.deleteEdges(Uint32Array.of(50), Uint32Array.of(51));
        model.deleteEdges(Uint32Array.of(50), Uint32Array.of(51));
        await expectLabels(c, model, 'cut after recomputing');
        c.destroy();
        g.destroy();
      });
    });

    it(`deletes every edge of a star's centre, some leaves still linked among themselves (${kind})`, async () => {
      await gpuTest(async (device) => {
        const h = await harness(device, 64, directed);
        const spokes: [number, number][] = Array.from({ length: 50 }, (_, k) => [0, k + 1]);
        await h.insert([...spokes, [3, 4], [4, 5], [10, 20], [30, 60]]);
        await h.check('star');
        await h.remove(spokes);
        await h.check('centre cut off');
        h.destroy();
      });
    });

    it(`cuts a cycle once (no split), then twice (${kind})`, async () => {
      await gpuTest(async (device) => {
        const h = await harness(device, 40, directed);
        await h.insert([...path(0, 29), [29, 0]]);
        await h.remove([[10, 11]]);
        await h.check('cycle cut once');
        await h.insert([[10, 11]]);
        await h.remove([
          [5, 6],
          [20, 21],
        ]);
        await h.check('cycle cut twice');
        await h.remove([[0, 1]]);
        await h.check('one arc cut more');
        h.destroy();
      });
    });

    it(`deletes an edge and re-inserts it in the next batch, again and again (${kind})`, async () => {
      await gpuTest(async (device) => {
        const h = await harness(device, 48, directed);
        await h.insert([...path(0, 20), [5, 15], [30, 31], [31, 32]]);
        for (const e of [
          [7, 8],
          [0, 1],
          [19, 20],
          [5, 15],
          [31, 32],
          [7, 8],
        ] as [number, number][]) {
          await h.remove([e]);
          await h.check(`${e} deleted`);
          await h.insert([e]);
          await h.check(`${e} re-inserted`);
        }
        h.destroy();
      });
    });

    it(`takes both arcs of an edge, duplicates, absent edges and self-loops in one batch (${kind})`, async () => {
      await gpuTest(async (device) => {
        const h = await harness(device, 32, directed);
        await h.insert([...path(0, 12), [12, 3], [20, 21]]);
        await h.remove([
          [4, 5],
          [5, 4],
          [4, 5],
          [7, 7],
          [25, 26],
          [21, 20],
          [20, 21],
        ]);
        await h.check('both arcs');
        // Isolated vertices and empty batches change nothing.
        await h.remove([]);
        await h.c.afterInsert(new Uint32Array(0), new Uint32Array(0));
        await h.remove([
          [28, 29],
          [30, 30],
        ]);
        expect(await h.c.touched()).toBe(0);
        await h.check('isolated vertices');
        // A batch that deletes the whole graph.
        await h.remove(edgesOf(h.model));
        expect(h.model.edgeCount()).toBe(0);
        await h.check('whole graph deleted');
        h.destroy();
      });
    });

    it(`deletes edges outside the spanning forest without touching anything (${kind})`, async () => {
      await gpuTest(async (device) => {
        const rand = mulberry32(directed ? 41 : 42);
        const h = await harness(device, 16, directed);
        const clique: [number, number][] = [];
        for (let u = 0; u < 12; u++) for (let v = u + 1; v < 12; v++) clique.push([u, v]);
        await h.insert(clique);
        let untouched = 0;
        for (let batch = 0; batch < 20; batch++) {
          await h.remove(pick(edgesOf(h.model), 1, rand));
          await h.check(`batch ${batch}`);
          if ((await h.c.touched()) === 0) untouched++;
        }
        // The forest holds 11 of the 66 edges, so most single deletions miss it.
        expect(untouched).toBeGreaterThan(10);
        h.destroy();
      });
    });

    it(`keeps up when a merge leaves a deep tree to settle, then cuts it (${kind})`, async () => {
      await gpuTest(async (device) => {
        const h = await harness(device, 120, directed);
        // A long path rooted at 5; linking 0 to its middle makes 0 the root, too deep to settle at once.
        await h.insert(path(5, 100));
        await h.insert([[0, 60]]);
        await h.check('merged');
        for (const cut of [
          [30, 31],
          [80, 81],
          [59, 60],
          [60, 61],
        ] as [number, number][]) {
          await h.remove([cut]);
          await h.check(`${cut} cut`);
        }
        await h.insert([[10, 90]]);
        await h.remove([[40, 41]]);
        await h.check('linked again, then cut');
        // Recomputed from scratch: the trees are gone until deletions re-link the components.
        await h.c.recompute();
        for (const cut of [
          [20, 21],
          [85, 86],
          [10, 90],
        ] as [number, number][]) {
          await h.remove([cut]);
          await h.check(`${cut} cut after recomputing`);
        }
        h.destroy();
      });
    });

    it(`matches a from-scratch CC after random batches for many seeds (${kind})`, async () => {
      await gpuTest(async (device) => {
        for (let seed = 1; seed <= 12; seed++) {
          const rand = mulberry32(100 * seed + (directed ? 1 : 0));
          const n = 40;
          const h = await harness(device, n, directed);
          let previous: [number, number][] = [];
          for (let batch = 0; batch < 10; batch++) {
            if (batch % 2 === 0) {
              // Sparse random edges (components of many sizes), with the last deletions put back.
              const list: [number, number][] = Array.from({ length: 8 + Math.floor(rand() * 20) }, () => [
                Math.floor(rand() * n),
                Math.floor(rand() * n),
              ]);
              await h.insert([...list, ...previous.slice(0, 2)]);
            } else {
              previous = pick(edgesOf(h.model), 1 + Math.floor(rand() * 12), rand);
              await h.remove([...previous, [Math.floor(rand() * n), Math.floor(rand() * n)]]);
            }
            await h.check(`seed ${seed} batch ${batch}`);
          }
          h.destroy();
        }
      });
    });
  }
});
