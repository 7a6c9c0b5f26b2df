import { load, plus, requestDevice, type WeftDevice, wgsl } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { GasLoop } from './gas.ts';
import { gatherOrder, hasGatherOrder } from './gather-order.ts';
import { neighborhoodReduce } from './neighborhood.ts';

function csrOf(n: number, src: number[], dst: number[], directed: boolean): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(src),
    dst: Uint32Array.from(dst),
    directed,
  }).csr;
}

function randomCsr(n: number, m: number, seed: number, directed: boolean, skew = false): HostCsr {
  const r = mulberry32(seed);
  // Skewed: most arcs touch a few low ids, as a power law's hubs do.
  const pick = () => Math.floor((skew ? r() ** 4 : r()) * n);
  const src = Array.from({ length: m }, pick);
  const dst = Array.from({ length: m }, pick);
  return csrOf(n, src, dst, directed);
}

/** The view's column on the host: in-edges' sources (directed 'in') or the CSR's targets. */
function columnOf(csr: HostCsr, direction: 'out' | 'in'): { offsets: number[]; column: number[] } {
  if (direction === 'out' || !csr.directed) return { offsets: [...csr.offsets], column: [...csr.targets] };
  const n = csr.vertexCount;
  const lists: number[][] = Array.from({ length: n }, () => []);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) lists[csr.targets[e]!]!.push(u);
  }
  const offsets = [0];
  for (const l of lists) offsets.push(offsets.at(-1)! + l.length);
  return { offsets, column: lists.flat() };
}

/** Checks `position` is the order by reads (most first, ties by id) and `column` the view's column renumbered. */
function checkOrder(
  csr: HostCsr,
  direction: 'out' | 'in',
  position: Uint32Array,
  column: Uint32Array,
  what: string,
) {
  const n = csr.vertexCount;
  const view = columnOf(csr, direction);
  const reads = new Array<number>(n).fill(0);
  for (const u of view.column) reads[u]!++;
  const want = Array.from({ length: n }, (_, v) => v).sort((a, b) => reads[b]! - reads[a]! || a - b);
  const wantPosition = new Uint32Array(n);
  want.forEach((v, i) => {
    wantPosition[v] = i;
  });
  expectArrayEqual(position.subarray(0, n), wantPosition, `${what} positions`);
  expectArrayEqual(
    column.subarray(0, view.column.length),
    Uint32Array.from(view.column, (u) => wantPosition[u]!),
    `${what} column`,
  );
}

describe('gatherOrder', () => {
  it('renumbers vertices by reads, most first, and rewrites the column, for every view', () =>
    gpuTest(async (device) => {
      const graphs: [string, HostCsr][] = [
        ['empty', csrOf(0, [], [], true)],
        ['one vertex', csrOf(1, [], [], false)],
        ['no arcs', csrOf(5, [], [], true)],
        ['star', csrOf(6, [0, 0, 0, 0, 0], [1, 2, 3, 4, 5], false)],
        ['in-star', csrOf(6, [1, 2, 3, 4, 5], [0, 0, 0, 0, 0], true)],
      ];
      for (let seed = 1; seed <= 6; seed++) {
        graphs.push([`random ${seed}`, randomCsr(40 + 37 * seed, 300 * seed, seed, seed % 2 === 0)]);
        graphs.push([`skewed ${seed}`, randomCsr(300, 2000 + 500 * seed, seed, seed % 2 === 1, true)]);
      }
      for (const [name, csr] of graphs) {
        // A directed graph without its CSC counts an 'out' view's reads by atomics over the column.
        for (const csc of csr.directed ? [true, false] : [false]) {
          const graph = uploadGraph(device, csr, { csc });
          for (const direction of csc || !csr.directed ? (['out', 'in'] as const) : (['out'] as const)) {
            const order = await gatherOrder(graph, direction);
            expect(hasGatherOrder(graph, direction), name).toBe(true);
            expect(await gatherOrder(graph, direction), `${name} kept`).toBe(order);
            const [position, column] = await Promise.all([
              order.position.download(),
              order.column.download(),
            ]);
            checkOrder(csr, direction, position, column, `${name} ${direction} csc ${csc}`);
          }
          graph.destroy();
        }
      }
    }));

  it('feeds neighborhoodReduce the renumbered neighbors, and is refused where it does not apply', () =>
    gpuTest(async (device) => {
      for (let seed = 1; seed <= 4; seed++) {
        const csr = randomCsr(500, 4000 * seed, seed, seed % 2 === 0, true);
        const n = csr.vertexCount;
        const graph = uploadGraph(device, csr, { csc: csr.directed });
        const x = Float32Array.from({ length: n }, (_, v) => (v % 13) + 0.25);
        const direction = 'in' as const;
        const order = await gatherOrder(graph, direction);
        const position = await order.position.download();
        const byPosition = new Float32Array(n);
        for (let v = 0; v < n; v++) byPosition[position[v]!] = x[v]!;
        const values = device.upload(byPosition);
        const out = device.array('f32', n);
        const f = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${values}[u]; }`;
        await neighborhoodReduce(device, graph, 'all', f, out, {
          direction,
          ignoresVertex: true,
          gatherOrder: order,
        });
        const view = columnOf(csr, direction);
        const want = Float32Array.from({ length: n }, (_, v) => {
          let sum = 0;
          for (let k = view.offsets[v]!; k < view.offsets[v + 1]!; k++) sum += x[view.column[k]!]!;
          return sum;
        });
        const got = await out.download();
        for (let v = 0; v < n; v++) expect(got[v], `seed ${seed} vertex ${v}`).toBeCloseTo(want[v]!, 3);
        await expect(
          neighborhoodReduce(device, graph, 'all', f, out, { direction, gatherOrder: order }),
        ).rejects.toThrow(/gatherOrder needs ignoresVertex/);
        if (csr.directed) {
          await expect(
            neighborhoodReduce(device, graph, 'all', f, out, { ignoresVertex: true, gatherOrder: order }),
          ).rejects.toThrow(/renumbers the 'in' view, the reduction reads 'out'/);
        }
        const other = uploadGraph(device, csr, { csc: csr.directed });
        await expect(
          neighborhoodReduce(device, other, 'all', f, out, {
            direction,
            ignoresVertex: true,
            gatherOrder: order,
          }),
        ).rejects.toThrow(/built for another graph/);
        for (const a of [values, out]) a.destroy();
        other.destroy();
        graph.destroy();
      }
    }));
});

/**
 * Sums `x[u] * w(edge)` over each vertex's `direction` neighbors through `order` (the functor reads the
 * graph's weights by edge id) and compares with the host.
 */
async function checkWeightedGather(device: WeftDevice, csr: HostCsr, direction: 'out' | 'in', what: string) {
  const n = csr.vertexCount;
  const weights = Float32Array.from({ length: csr.edgeCount }, (_, e) => 1 + ((e * 7) % 11));
  const graph = uploadGraph(device, { ...csr, weights }, { csc: csr.directed });
  const order = await gatherOrder(graph, direction);
  const position = await order.position.download();
  const x = Float32Array.from({ length: n }, (_, v) => (v % 5) + 0.5);
  const byPosition = new Float32Array(n);
  for (let v = 0; v < n; v++) byPosition[position[v]!] = x[v]!;
  const values = device.upload(byPosition);
  const w = graph.chunkedWeights!;
  const out = device.array('f32', n);
  const f = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${values}[u] * ${load(w, 'edge')}; }`;
  await neighborhoodReduce(device, graph, 'all', f, out, {
    direction,
    ignoresVertex: true,
    gatherOrder: order,
  });
  const want = new Float32Array(n);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const t = csr.targets[e]!;
      // An arc u -> t is in t's in-view ('in' on a directed graph) and in u's row otherwise.
      if (direction === 'in' && csr.directed) want[t]! += x[u]! * weights[e]!;
      else want[u]! += x[t]! * weights[e]!;
    }
  }
  const got = await out.download();
  for (let v = 0; v < n; v++) expect(got[v], `${what} vertex ${v}`).toBeCloseTo(want[v]!, 2);
  for (const a of [values, out]) a.destroy();
  graph.destroy();
}

describe('gatherOrder with per-edge data', () => {
  it("gives the functor each arc's edge id, for every view", () =>
    gpuTest(async (device) => {
      for (let seed = 1; seed <= 4; seed++) {
        const csr = randomCsr(200, 1500 * seed, seed, seed % 2 === 1, true);
        const views = csr.directed ? (['out', 'in'] as const) : (['in'] as const);
        for (const direction of views)
          await checkWeightedGather(device, csr, direction, `seed ${seed} ${direction}`);
      }
    }));
});

describe('gatherOrder in a GAS program', () => {
  it('is refused where the gather cannot read through it', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, randomCsr(50, 300, 9, true), { csc: true });
      const order = await gatherOrder(graph, 'in');
      const x = device.array('f32', 50);
      const program = {
        gather: wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${x}[u]; }`,
        sum: plus('f32'),
        apply: wgsl`(v: u32, total: f32) -> f32 { return 0.0; }`,
        gatherOrder: order,
      };
      expect(() => new GasLoop(graph, program)).toThrow(/gatherOrder needs gatherIgnoresVertex/);
      const all = { ...program, gatherIgnoresVertex: true, gatherEdges: 'all' as const };
      expect(() => new GasLoop(graph, all)).toThrow(/one view of the edges/);
      new GasLoop(graph, { ...program, gatherIgnoresVertex: true }).destroy();
      x.destroy();
      graph.destroy();
    }));
});

describe('gatherOrder on chunked columns', () => {
  let shared: Promise<WeftDevice> | undefined;
  afterAll(async () => (await shared)?.destroy());

  it('renumbers columns split into 2 to 5 chunks', async () => {
    process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
    shared ??= requestDevice({ label: 'chunked gather order' });
    const device = await shared;
    // 32 arcs a chunk: the columns below span 2 to 5 chunks while the vertex arrays fit one.
    device.bindingBudget = 128;
    for (const [m, directed] of [
      [60, true],
      [90, false],
      [160, true],
      [220, false],
    ] as const) {
      const csr = randomCsr(30, directed ? m : m / 2, m, directed);
      const graph = uploadGraph(device, csr, { csc: directed });
      expect(graph.chunkedTargets.chunks.length, `${m} arcs`).toBeGreaterThan(1);
      for (const direction of ['out', 'in'] as const) {
        const order = await gatherOrder(graph, direction);
        if (direction === 'out') expect(order.column.chunks.length, `${m} arcs`).toBeGreaterThan(1);
        const [position, column] = await Promise.all([order.position.download(), order.column.download()]);
        checkOrder(csr, direction, position, column, `${m} arcs ${direction}`);
        // Weighted, the tile's bindings and the functor's exceed the adapter's: one thread folds a vertex.
        await checkWeightedGather(device, csr, direction, `${m} arcs ${direction} weighted`);
      }
      graph.destroy();
    }
  });
});
