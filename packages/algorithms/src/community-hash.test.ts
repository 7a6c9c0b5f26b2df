import { atomic, type WeftDevice, wgsl } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { grid, kronecker } from '@weft/graph/generators';
import { gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { CommunityWeights } from './community-hash.ts';
import type { LouvainOptions } from './community-reference.ts';
import { leiden } from './leiden.ts';
import { communityLevels, type LevelProbe, louvain } from './louvain.ts';

/** An undirected host CSR from edge pairs, loops and duplicates kept, weights when given. */
function csrOf(n: number, src: number[], dst: number[], weights?: number[]): HostCsr {
  return hostCsrFromEdgeList(
    {
      vertexCount: n,
      src: Uint32Array.from(src),
      dst: Uint32Array.from(dst),
      ...(weights ? { weights: Float32Array.from(weights) } : {}),
      directed: false,
    },
    { keepSelfLoops: true, dedupe: 'none' },
  ).csr;
}

/**
 * Random edges around `hubs` high-degree vertices (each joined to `hubDegree` random others), with loops and
 * duplicates; the first hub of a `star` graph is joined to every other vertex.
 */
function skewed(n: number, m: number, hubs: number, hubDegree: number, seed: number, weighted: boolean) {
  const random = mulberry32(seed);
  const src: number[] = [];
  const dst: number[] = [];
  const pick = () => Math.floor(random() * n);
  for (let h = 0; h < hubs; h++) {
    for (let i = 0; i < hubDegree; i++) {
      src.push(h);
      dst.push(pick());
    }
  }
  for (let i = 0; i < m; i++) {
    const u = pick();
    src.push(u);
    dst.push(i % 9 === 8 ? u : i % 5 === 4 ? dst[dst.length - 1]! : pick());
  }
  const weights = weighted ? src.map(() => Math.round(random() * 64) / 8 + 0.125) : undefined;
  return csrOf(n, src, dst, weights);
}

/** `csr` with random f32 weights in (0, 10], the same on both arcs of an edge. */
function withRandomWeights(csr: HostCsr, seed: number): HostCsr {
  const random = mulberry32(seed);
  const src: number[] = [];
  const dst: number[] = [];
  const weights: number[] = [];
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      if (csr.targets[e]! < v) continue;
      src.push(v);
      dst.push(csr.targets[e]!);
      weights.push(10 * (1 - random()));
    }
  }
  return csrOf(csr.vertexCount, src, dst, weights);
}

function star(leaves: number): HostCsr {
  return csrOf(
    leaves + 1,
    Array.from({ length: leaves }, () => 0),
    Array.from({ length: leaves }, (_, i) => i + 1),
  );
}

/** Per vertex, community -> summed weight of its arcs to other vertices of that community. */
function referenceSums(csr: HostCsr, comm: Uint32Array, weighted: boolean): Map<number, number>[] {
  return Array.from({ length: csr.vertexCount }, (_, v) => {
    const out = new Map<number, number>();
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const u = csr.targets[e]!;
      if (u === v) continue;
      const w = weighted ? Math.fround(csr.weights![e]!) : 1;
      out.set(comm[u]!, (out.get(comm[u]!) ?? 0) + w);
    }
    return out;
  });
}

/** Fills the tables of `csr`'s arcs under `comm`; returns what they hold, per vertex, and the arc slots. */
async function tableSums(device: WeftDevice, csr: HostCsr, comm: Uint32Array, weighted: boolean) {
  const graph = uploadGraph(device, csr);
  const n = csr.vertexCount;
  const count = csr.edgeCount;
  const src = new Uint32Array(count);
  for (let v = 0; v < n; v++) src.fill(v, csr.offsets[v]!, csr.offsets[v + 1]!);
  const arcs = {
    count,
    src: device.array('u32', Math.max(1, count)).upload(src),
    dst: graph.targets,
    share: device
      .array('f32', Math.max(1, count))
      .upload(weighted ? Float32Array.from(csr.weights!) : new Float32Array(count).fill(1)),
  };
  const commArr = device.array('u32', Math.max(1, n)).upload(comm);
  const total = weighted ? Array.from(csr.weights!).reduce((a, b) => a + b, 0) : 0;
  const table = new CommunityWeights(device, count, weighted ? total : undefined);
  const rec = device.recorder();
  await table.recordSums(rec, arcs, graph.offsets, commArr);
  await rec.submit();
  const [keys, bits, high, slots, status] = await Promise.all([
    table.keys.download(),
    table.sums.download(),
    table.high ? table.high.download() : new Uint32Array(0),
    table.slots.download(),
    table.status.download(),
  ]);
  // Fixed-point words (low, high) scaled by 2^S, S as FixedPointSums picks it from the total.
  const scale = 2 ** (62 - Math.ceil(Math.log2(Math.max(total, 2 ** -126))));
  const sumAt = (s: number) => (weighted ? (bits[s]! + high[s]! * 2 ** 32) / scale : bits[s]!);
  const got = Array.from({ length: n }, (_, v) => {
    const out = new Map<number, number>();
    for (let s = 2 * csr.offsets[v]!; s < 2 * csr.offsets[v + 1]!; s++) {
      if (keys[s] === 0) continue;
      expect(out.has(keys[s]! - 1), `vertex ${v}: community ${keys[s]! - 1} in two slots`).toBe(false);
      out.set(keys[s]! - 1, sumAt(s));
    }
    return out;
  });
  // Score and pick each slot (marking the owners), which must leave the tables cleared for the next sweep.
  const marks = device.array('u32', Math.max(1, n));
  const rec2 = device.recorder();
  rec2.clear(marks);
  await table.recordScore(rec2, arcs, wgsl`(sum: f32, v: u32, c: u32) -> u32 { return 7u; }`);
  await table.recordPick(rec2, arcs, wgsl`(g: u32, v: u32, c: u32) { atomicAdd(&${atomic(marks)}[v], g); }`);
  await rec2.submit();
  const [keysAfter, sumsAfter, highAfter, marked] = await Promise.all([
    table.keys.download(),
    table.sums.download(),
    table.high ? table.high.download() : new Uint32Array(0),
    marks.download(),
  ]);
  for (const a of [arcs.src, arcs.share, commArr, table, marks, graph]) a.destroy();
  return { got, slots, status: status[0]!, keysAfter, sumsAfter: [...sumsAfter, ...highAfter], marked };
}

describe('community hash tables', () => {
  it('sum each vertex’s weight to each neighbouring community as the reference does', () =>
    gpuTest(async (device) => {
      const random = mulberry32(11);
      const graphs: [string, HostCsr][] = [
        ['empty', csrOf(0, [], [])],
        ['one vertex with a loop', csrOf(1, [0, 0], [0, 0])],
        ['star of 5000 leaves', star(5000)],
        ['hubs above the workgroup size', skewed(700, 900, 3, 300, 1, false)],
        ['hubs, weighted', skewed(600, 1200, 2, 520, 2, true)],
        ['grid 20x13', hostCsrFromEdgeList(grid({ width: 20, height: 13 })).csr],
        ['kronecker 2^9', hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 8, seed: 3 })).csr],
        ['loops and duplicates', skewed(65, 257, 1, 64, 4, false)],
        ['loops and duplicates, weighted', skewed(257, 255, 1, 256, 5, true)],
        ['star of 300 leaves, random weights', withRandomWeights(star(300), 9)],
      ];
      let cases = 0;
      for (const [name, csr] of graphs) {
        const n = csr.vertexCount;
        const weighted = csr.weights !== undefined;
        // One community, every vertex alone, and random partitions of a few to many communities.
        for (const k of [1, n, 2, 17, Math.max(1, n >> 2)]) {
          const comm =
            k === n
              ? Uint32Array.from({ length: n }, (_, i) => i)
              : Uint32Array.from({ length: n }, () => Math.floor(random() * k));
          const what = `${name}, ${k} communities`;
          const { got, slots, status, keysAfter, sumsAfter, marked } = await tableSums(
            device,
            csr,
            comm,
            weighted,
          );
          expect(status, what).toBe(0);
          const want = referenceSums(csr, comm, weighted);
          // Mismatches gathered as text: one expect per case keeps thousands of vertices fast.
          const bad: string[] = [];
          for (let v = 0; v < n && bad.length < 5; v++) {
            const [g, w] = [got[v]!, want[v]!];
            if (g.size !== w.size) bad.push(`vertex ${v}: ${g.size} communities, want ${w.size}`);
            for (const [c, x] of w) {
              const y = g.get(c);
              // Eighths add exactly in fixed point; other f32 weights within its 2^-S steps.
              const ok = y !== undefined && Math.abs(y - x) <= 1e-9 * Math.max(1, x);
              if (!ok) bad.push(`vertex ${v}, community ${c}: ${y}, want ${x}`);
            }
            // One owner arc per (vertex, community): the pick pass ran once for each.
            if (marked[v] !== 7 * w.size) bad.push(`vertex ${v}: ${marked[v]! / 7} owners, want ${w.size}`);
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
              const s = slots[e]!;
              const row = (s & 0x7fffffff) >>> 1;
              const ok =
                csr.targets[e] === v ? s === 0xffffffff : row >= csr.offsets[v]! && row < csr.offsets[v + 1]!;
              if (!ok) bad.push(`arc ${e} of vertex ${v}: slot ${s}`);
            }
          }
          expect(bad, what).toEqual([]);
          expect(keysAfter.every((x) => x === 0) && sumsAfter.every((x) => x === 0), `${what}: cleared`).toBe(
            true,
          );
          cases++;
        }
      }
      expect(cases).toBe(graphs.length * 5);
    }));

  it('louvain and leiden by hash tables move as the sort path does on unweighted graphs', () =>
    gpuTest(async (device) => {
      const graphs: [string, HostCsr][] = [
        ['star of 1000 leaves', star(1000)],
        ['hubs with loops and duplicates', skewed(700, 1500, 3, 300, 6, false)],
        ['grid 16x16', hostCsrFromEdgeList(grid({ width: 16, height: 16 })).csr],
        ['kronecker 2^9', hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 8, seed: 5 })).csr],
      ];
      for (const [i, [name, csr]] of graphs.entries()) {
        const graph = uploadGraph(device, csr);
        for (const seed of [i + 1]) {
          const hash = await louvain(graph, { seed });
          const sort = await louvain(graph, { seed, localMoving: 'sort' });
          // Unweighted sums are whole numbers, exact in both paths, so both make the same moves.
          expect(hash.levels.length, `${name}, seed ${seed}`).toBe(sort.levels.length);
          expect(hash.communities, `${name}, seed ${seed}`).toEqual(sort.communities);
          expect(hash.modularity, `${name}, seed ${seed}`).toBeCloseTo(sort.modularity, 6);
        }
        if (i === 1) {
          // Leiden's refinement rounds use the tables too.
          const hash = await leiden(graph, { seed: 3 });
          const sort = await leiden(graph, { seed: 3, localMoving: 'sort' });
          expect(hash.refined, `${name}: Leiden's refined levels`).toEqual(sort.refined);
          expect(hash.communities, `${name}: Leiden`).toEqual(sort.communities);
        }
        graph.destroy();
      }
    }));

  it('louvain by hash tables reaches the sort path’s modularity on weighted graphs', () =>
    gpuTest(async (device) => {
      for (const [name, csr] of [
        ['hubs, weighted', skewed(600, 2400, 2, 520, 7, true)],
        [
          'kronecker 2^9, random weights',
          withRandomWeights(hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 8, seed: 8 })).csr, 8),
        ],
      ] as const) {
        const graph = uploadGraph(device, csr);
        const hash = await louvain(graph);
        const sort = await louvain(graph, { localMoving: 'sort' });
        expect(hash.modularity, name).toBeGreaterThanOrEqual(0.99 * sort.modularity);
        // Fixed-point sums do not depend on the order of the atomics: a seed gives one partition.
        expect((await louvain(graph)).communities, name).toEqual(hash.communities);
        graph.destroy();
      }
      const small = uploadGraph(device, star(3));
      await expect(louvain(small, { localMoving: 'heap' as 'hash' })).rejects.toThrow(/localMoving/);
      small.destroy();
    }));
});

describe('undone sweeps', () => {
  it('leave the community degree totals of the restored partition', () =>
    gpuTest(async (device) => {
      let undos = 0;
      const probe: LevelProbe = {
        async afterUndo({ comm, stot, k, n }) {
          const [c, s, kv] = await Promise.all([comm.download(0, n), stot.download(0, n), k.download(0, n)]);
          const want = new Float64Array(n);
          for (let v = 0; v < n; v++) want[c[v]!]! += kv[v]!;
          for (let x = 0; x < n; x++) {
            expect(Math.abs(s[x]! - want[x]!), `undo ${undos}: total of community ${x}`).toBeLessThanOrEqual(
              1e-5 * Math.max(1, want[x]!),
            );
          }
          undos++;
        },
      };
      const runs: [HostCsr, LouvainOptions, boolean][] = [];
      const kron = hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 8, seed: 5 })).csr;
      const hubs = skewed(700, 1500, 3, 300, 6, false);
      runs.push([kron, { localMoving: 'hash' }, false], [kron, { localMoving: 'sort' }, false]);
      runs.push([hubs, {}, false], [hubs, {}, true]);
      const weighted = hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 8, seed: 8 })).csr;
      runs.push([withRandomWeights(weighted, 8), {}, false]);
      for (const [csr, options, isLeiden] of runs) {
        const graph = uploadGraph(device, csr);
        const before = undos;
        // The first seed that undoes a sweep, so that the check runs on every graph and path.
        for (let seed = 1; seed <= 8 && undos === before; seed++) {
          await communityLevels(graph, { ...options, seed }, isLeiden, probe);
        }
        expect(
          undos,
          `${csr.vertexCount} vertices, ${JSON.stringify(options)}, leiden ${isLeiden}`,
        ).toBeGreaterThan(before);
        graph.destroy();
      }
    }));
});

describe('sweep modularity', () => {
  it('equals the modularity of the sweep’s partition on the level graph, unweighted (exact) and weighted', () =>
    gpuTest(async (device) => {
      let sweeps = 0;
      const probe: LevelProbe = {
        async afterSweep({ arcs, comm, n, total, resolution, modularity }) {
          const m = arcs.count;
          const [src, dst, share, c] = await Promise.all([
            arcs.src.download(0, m),
            arcs.dst.download(0, m),
            arcs.share.download(0, m),
            comm.download(0, n),
          ]);
          const degree = new Float64Array(n);
          let inside = 0;
          for (let e = 0; e < m; e++) {
            degree[c[src[e]!]!]! += share[e]!;
            if (c[src[e]!] === c[dst[e]!]) inside += share[e]!;
          }
          const expected = degree.reduce((a, d) => a + d * d, 0);
          const want = inside / total - (resolution * expected) / (total * total);
          expect(Math.abs(modularity - want), `sweep ${sweeps}`).toBeLessThanOrEqual(1e-6);
          sweeps++;
        },
      };
      for (const [csr, options] of [
        [hostCsrFromEdgeList(kronecker({ scale: 9, edgeFactor: 8, seed: 5 })).csr, { resolution: 1.5 }],
        [skewed(700, 1500, 3, 300, 6, false), { localMoving: 'sort' }],
        [withRandomWeights(hostCsrFromEdgeList(kronecker({ scale: 8, edgeFactor: 8, seed: 8 })).csr, 8), {}],
      ] as const) {
        const graph = uploadGraph(device, csr);
        const before = sweeps;
        await communityLevels(graph, options, false, probe);
        expect(sweeps, `${csr.vertexCount} vertices`).toBeGreaterThan(before);
        graph.destroy();
      }
    }));
});
