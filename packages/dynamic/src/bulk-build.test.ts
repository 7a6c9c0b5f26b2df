import { onTarget, type WeftDevice } from '@weft/gpu';
import { type HostCsr, uploadGraph } from '@weft/graph';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DynamicGraph, type ValueType } from './dynamic-graph.ts';
import { KEY_SLOTS } from './layout.ts';
import { HostDynamicGraph } from './reference.ts';
import { expectExportMatches, expectTablesMatch } from './test-support.ts';
import { dynamicTriangleCount } from './triangle-count.ts';

type Weights = Uint32Array | Int32Array | Float32Array;

/** A CSR from per-vertex rows as given (unsorted, duplicates and loops kept), with weights of `type`. */
function csrOf(
  rows: number[][],
  directed: boolean,
  type?: ValueType,
  weightOf?: (v: number, k: number) => number,
) {
  const offsets = new Uint32Array(rows.length + 1);
  rows.forEach((r, v) => {
    offsets[v + 1] = offsets[v]! + r.length;
  });
  const targets = Uint32Array.from(rows.flat());
  const csr: HostCsr = { vertexCount: rows.length, edgeCount: targets.length, offsets, targets, directed };
  if (type) {
    const w = rows.flatMap((r, v) => r.map((k) => weightOf?.(v, k) ?? (v * 7919 + k * 31 + 1) % 1000));
    csr.weights =
      type === 'f32'
        ? Float32Array.from(w, (x) => x + 0.5)
        : type === 'i32'
          ? Int32Array.from(w, (x) => -x)
          : Uint32Array.from(w);
  }
  return csr;
}

/** The model after inserting the CSR's arcs one by one (the last duplicate's value wins; loops dropped). */
function modelOf(csr: HostCsr): HostDynamicGraph {
  const model = new HostDynamicGraph(csr.vertexCount, csr.directed);
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const k = csr.targets[e]!;
      if (k !== v) model.adjacency[v]!.set(k, csr.weights ? csr.weights[e]! : 0);
    }
  }
  return model;
}

/** Random sorted rows of distinct keys; undirected graphs list both directions with one weight per edge. */
function randomRows(rand: () => number, n: number, edges: number, directed: boolean, hub = -1) {
  const sets = Array.from({ length: n }, () => new Set<number>());
  for (let i = 0; i < edges; i++) {
    const u = hub >= 0 && rand() < 0.5 ? hub : Math.floor(rand() * n);
    const v = Math.floor(rand() * n);
    if (u === v) continue;
    sets[u]!.add(v);
    if (!directed) sets[v]!.add(u);
  }
  return sets.map((s) => [...s].sort((a, b) => a - b));
}

/** Triangles of an undirected model, each once. */
function triangles(model: HostDynamicGraph): number {
  let count = 0;
  model.adjacency.forEach((adj, u) => {
    for (const v of adj.keys()) {
      if (v <= u) continue;
      for (const w of model.adjacency[v]!.keys()) if (w > v && adj.has(w)) count++;
    }
  });
  return count;
}

const symmetric = (v: number, k: number) => (Math.min(v, k) * 7919 + Math.max(v, k) * 31 + 1) % 1000;

/** Builds by placement (which must be taken, or not), checks tables and export, and returns the graph. */
async function placed(device: WeftDevice, csr: HostCsr, want: 'placed' | 'inserted', options = {}) {
  const dg = uploadGraph(device, csr);
  try {
    const build = await DynamicGraph.bulkBuild(
      device,
      {
        vertexCount: dg.vertexCount,
        edgeCount: dg.edgeCount,
        directed: dg.directed,
        offsets: dg.offsets,
        targets: dg.targets,
        ...(dg.weights ? { weights: dg.weights } : {}),
      },
      options,
      'test',
    );
    await onTarget(device, 'test bulk build', (rec) => build.record(rec));
    expect(await build.finish(), 'build path').toBe(want);
    return build.graph;
  } finally {
    dg.destroy();
  }
}

/** Random batches on a graph and its model: inserts, deletes, queries, vertex deletions, a rehash. */
async function exercise(g: DynamicGraph, model: HostDynamicGraph, rand: () => number, what: string) {
  const n = g.vertexCount;
  const type = g.valueType;
  for (let round = 0; round < 3; round++) {
    const size = 1 + Math.floor(rand() * 300);
    const src = Uint32Array.from({ length: size }, () => Math.floor(rand() * n));
    const dst = Uint32Array.from({ length: size }, () => Math.floor(rand() * n));
    const raw = Array.from({ length: size }, () => Math.floor(rand() * 1000));
    const val: Weights | undefined =
      type === 'f32'
        ? Float32Array.from(raw)
        : type === 'i32'
          ? Int32Array.from(raw)
          : type
            ? Uint32Array.from(raw)
            : undefined;
    await g.insertEdges(src, dst, val);
    model.insertEdges(src, dst, val);
    const del = Math.floor(size / 2);
    await g.deleteEdges(dst.subarray(0, del), src.subarray(0, del));
    model.deleteEdges(dst.subarray(0, del), src.subarray(0, del));
    const q = await g.queryEdges(src, dst);
    expectArrayEqual(
      q.found,
      Array.from(src, (s, i) => (model.adjacency[s]!.has(dst[i]!) ? 1 : 0)),
      `${what} round ${round}: queries`,
    );
    if (round === 1) {
      const gone = [Math.floor(rand() * n)];
      await g.deleteVertices(gone);
      model.deleteVertices(gone);
    }
    if (round === 2) await g.rehash({ low: 0.3, high: 0.5, maxChain: 1 });
    await expectTablesMatch(g, model, `${what} round ${round}`);
  }
  await expectExportMatches(g, model, `${what} end`);
}

describe('DynamicGraph placement build', () => {
  it('random graphs: same tables as the model and as the insertion build, then random batches', async () => {
    await gpuTest(async (device) => {
      const rand = mulberry32(32);
      const shapes: { n: number; edges: number; directed: boolean; type?: ValueType; hub?: number }[] = [
        { n: 50, edges: 400, directed: true },
        { n: 300, edges: 3000, directed: false, type: 'u32' },
        { n: 200, edges: 2500, directed: true, type: 'f32', hub: 3 },
        { n: 64, edges: 2000, directed: false, type: 'i32', hub: 0 },
      ];
      for (const { n, edges, directed, type, hub } of shapes) {
        const what = `n ${n} ${directed ? 'directed' : 'undirected'} ${type ?? 'set'}`;
        const csr = csrOf(randomRows(rand, n, edges, directed, hub), directed, type, symmetric);
        const model = modelOf(csr);
        const g = await placed(device, csr, 'placed');
        await expectTablesMatch(g, model, what);
        await expectExportMatches(g, model, what);
        // The insertion build of the same arcs holds the same keys and values.
        const src = new Uint32Array(csr.edgeCount);
        for (let v = 0; v < n; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
        const inserted = await DynamicGraph.fromArcs(
          device,
          { src, dst: csr.targets, ...(csr.weights ? { values: csr.weights } : {}) },
          { vertexCount: n, directed, ...(type ? { values: type } : {}) },
        );
        const a = await g.inspect();
        const b = await inserted.inspect();
        for (let v = 0; v < n; v++) {
          expect(
            [...a.adjacency[v]!].sort((x, y) => x[0] - y[0]),
            `${what}: vertex ${v}`,
          ).toEqual([...b.adjacency[v]!].sort((x, y) => x[0] - y[0]));
        }
        if (!directed) {
          expect(await dynamicTriangleCount(g), `${what}: triangles on the tables`).toBe(triangles(model));
        }
        // The same random batches on both builds agree with the model.
        const seed = Math.floor(rand() * 2 ** 31);
        await exercise(g, model, mulberry32(seed), what);
        await exercise(inserted, modelOf(csr), mulberry32(seed), `${what} (insertion build)`);
        inserted.destroy();
        g.destroy();
      }
    });
  });

  it('chains: degrees around KEY_SLOTS in one bucket, a hub of thousands of keys in few buckets', async () => {
    await gpuTest(async (device) => {
      const degrees = [0, 1, KEY_SLOTS - 1, KEY_SLOTS, KEY_SLOTS + 1, 2 * KEY_SLOTS, 2 * KEY_SLOTS + 1, 3000];
      const n = 3100;
      const rows: number[][] = Array.from({ length: n }, () => []);
      degrees.forEach((d, v) => {
        rows[v] = Array.from({ length: d }, (_, i) => 10 + i);
      });
      for (const type of [undefined, 'u32'] as const) {
        const csr = csrOf(rows, true, type);
        // One base bucket each (hints of 0), and two for the hub: its chains run to about 50 slabs.
        const hints = new Uint32Array(n);
        hints[7] = 2 * KEY_SLOTS * 0.7 - 1;
        const g = await placed(device, csr, 'placed', { degreeHints: hints });
        const model = modelOf(csr);
        const snap = await expectTablesMatch(g, model, `chains ${type ?? 'set'}`);
        expect(Array.from(snap.buckets.subarray(0, 8))).toEqual([1, 1, 1, 1, 1, 1, 1, 2]);
        // Base slabs plus the collision slabs of each chain, and nothing else handed out.
        const collisions = degrees.reduce(
          (s, d, v) => s + (v === 7 ? 0 : Math.max(0, Math.ceil(d / KEY_SLOTS) - 1)),
          0,
        );
        expect(snap.bumpSlabs).toBeGreaterThanOrEqual(n + 1 + collisions + Math.ceil(3000 / KEY_SLOTS) - 2);
        expect(snap.bumpSlabs).toBeLessThanOrEqual(n + 1 + collisions + Math.ceil(3000 / KEY_SLOTS));
        await exercise(g, model, mulberry32(5), `chains ${type ?? 'set'}`);
        g.destroy();
      }
    });
  });

  it('arc counts around a tile (256 arcs), rows across tile boundaries, empty rows between', async () => {
    await gpuTest(async (device) => {
      for (const m of [1, 255, 256, 257, 513]) {
        // Rows of 1..40 keys with an empty row after every third: the tiles cut rows at varying places.
        const rows: number[][] = [];
        for (let left = m, v = 0; left > 0; v++) {
          const d = v % 3 === 2 ? 0 : Math.min(left, 1 + ((v * 17) % 40));
          rows.push(Array.from({ length: d }, (_, i) => i * 3 + (v % 2)));
          left -= d;
        }
        while (rows.length < 130) rows.push([]);
        // A key equal to its row (a loop) becomes 129, beyond every other key; rows sorted again.
        const sorted = rows.map((r, v) => r.map((k) => (k === v ? 129 : k)).sort((a, b) => a - b));
        const csr = csrOf(sorted, true, 'u32');
        expect(csr.edgeCount).toBe(m);
        const g = await placed(device, csr, 'placed');
        await expectTablesMatch(g, modelOf(csr), `${m} arcs`);
        g.destroy();
      }
    });
  });

  it('empty graphs, one vertex, no edges', async () => {
    await gpuTest(async (device) => {
      for (const rows of [[], [[]], [[], [], []]]) {
        const csr = csrOf(rows, false);
        const g = await placed(device, csr, 'placed');
        const model = modelOf(csr);
        await expectTablesMatch(g, model, `${rows.length} vertices`);
        await expectExportMatches(g, model, `${rows.length} vertices`);
        if (rows.length > 1) await exercise(g, model, mulberry32(1), 'no edges');
        g.destroy();
      }
      const g = await DynamicGraph.fromCsr(device, csrOf([], true));
      expect(g.vertexCount).toBe(0);
      g.destroy();
    });
  });

  it('rows with a duplicate, a self-loop or out of order fall back to insertion, same result', async () => {
    await gpuTest(async (device) => {
      const cases: [string, number[][]][] = [
        ['duplicate', [[1, 2, 2, 3], [0], [0, 3], [0, 2]]],
        ['self-loop', [[0, 1], [0, 1, 2], [1], []]],
        ['unsorted', [[3, 1], [0], [], [0]]],
        ['duplicate at a row start', [[1], [1, 2], [], []]],
      ];
      for (const [what, rows] of cases) {
        for (const type of [undefined, 'u32', 'f32'] as const) {
          const csr = csrOf(rows, true, type);
          const model = modelOf(csr);
          const g = await placed(device, csr, 'inserted');
          await expectTablesMatch(g, model, `${what} ${type ?? 'set'}`);
          await expectExportMatches(g, model, `${what} ${type ?? 'set'}`);
          g.destroy();
          const h = await DynamicGraph.fromCsr(device, csr);
          await expectTablesMatch(h, model, `${what} ${type ?? 'set'} fromCsr`);
          h.destroy();
        }
      }
    });
  });

  it('fromDeviceGraph: checks its input, builds the same graph as fromCsr', async () => {
    await gpuTest(async (device) => {
      const csr = csrOf(randomRows(mulberry32(3), 80, 600, false), false, 'u32', symmetric);
      const dg = uploadGraph(device, csr);
      const g = await DynamicGraph.fromDeviceGraph(device, dg);
      expect(g.valueType).toBe('u32');
      await expectTablesMatch(g, modelOf(csr), 'fromDeviceGraph');
      g.destroy();
      await expect(DynamicGraph.fromDeviceGraph(device, dg, { values: 'f32' })).rejects.toThrow(
        /weights are u32/,
      );
      await expect(DynamicGraph.fromDeviceGraph(device, csr as never)).rejects.toThrow(/uploadGraph/);
      dg.destroy();
      const { weights: _, ...unweighted } = csr;
      const plain = uploadGraph(device, unweighted);
      await expect(DynamicGraph.fromDeviceGraph(device, plain, { values: 'u32' })).rejects.toThrow(
        /needs edge weights/,
      );
      const set = await DynamicGraph.fromDeviceGraph(device, plain);
      expect(set.valueType).toBeUndefined();
      set.destroy();
      plain.destroy();
      await expect(
        DynamicGraph.fromCsr(device, { ...csr, offsets: csr.offsets.subarray(0, 5) }),
      ).rejects.toThrow(/expected vertexCount \+ 1/);
    });
  });
});
