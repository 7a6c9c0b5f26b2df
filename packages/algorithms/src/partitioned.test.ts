import { requestDevices, type WeftDevice } from '@weft/gpu';
import { hostCsrFromEdgeList, PartitionedGraph, partitionCsr } from '@weft/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bfsReference } from './bfs/reference.ts';
import { bfsPartitioned } from './index.ts';
import { testGraphs, testSources } from './test-graphs.ts';

let devices: WeftDevice[] = [];
beforeAll(async () => {
  devices = await requestDevices({ count: 3, shareAdapter: true, label: 'partitioned test' });
});
afterAll(() => {
  for (const d of devices) d.destroy();
});

const UNREACHED = 0xffffffff;

describe('partitionCsr', () => {
  it('splits rows into ranges at multiples of 32 that together hold every edge once', () => {
    for (const { name, csr } of testGraphs(false, 12)) {
      for (const k of [1, 2, 3, 5]) {
        const parts = partitionCsr(csr, k);
        expect(parts).toHaveLength(k);
        expect(parts[0]!.lo).toBe(0);
        expect(parts[k - 1]!.hi).toBe(csr.vertexCount);
        let edges = 0;
        parts.forEach((p, i) => {
          if (i > 0) expect(p.lo, name).toBe(parts[i - 1]!.hi);
          if (p.lo < csr.vertexCount) expect(p.lo % 32, name).toBe(0);
          for (let v = 0; v < csr.vertexCount; v++) {
            const own = v >= p.lo && v < p.hi;
            const row = p.csr.targets.subarray(p.csr.offsets[v]!, p.csr.offsets[v + 1]!);
            const want = own
              ? csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!)
              : new Uint32Array(0);
            expect(Array.from(row), `${name} part ${i} row ${v}`).toEqual(Array.from(want));
          }
          edges += p.csr.edgeCount;
        });
        expect(edges, name).toBe(csr.edgeCount);
      }
    }
  });
});

describe('bfsPartitioned', () => {
  it('matches the reference over 1-3 devices, pushing, pulling and switching', async () => {
    // The 700-vertex path (700 levels, a host round trip each) is left to the shorter path below.
    for (const { name, csr } of testGraphs(false, 6).filter((g) => !g.name.startsWith('path'))) {
      for (const k of [1, 2, 3]) {
        const graph = PartitionedGraph.upload(devices.slice(0, k), csr);
        try {
          const all = csr.directed ? (['push', 'auto'] as const) : (['push', 'pull', 'auto'] as const);
          const directions = k === 3 ? all : (['auto'] as const);
          for (const source of testSources(csr).slice(0, 2)) {
            const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
            for (const direction of directions) {
              const got = await bfsPartitioned(graph, source, { direction });
              expect(Array.from(got.depths), `${name}, ${k} parts, ${direction}, source ${source}`).toEqual(
                want,
              );
              expect(got.iterations).toBe(Math.max(...want.filter((d) => d !== UNREACHED)) + 1);
            }
          }
        } finally {
          graph.destroy();
        }
      }
    }
  });

  it('handles a path longer than a level, a star across parts and refuses bad input', async () => {
    const n = 100;
    const path = hostCsrFromEdgeList({
      vertexCount: n,
      src: Uint32Array.from({ length: n - 1 }, (_, i) => i),
      dst: Uint32Array.from({ length: n - 1 }, (_, i) => i + 1),
      directed: false,
    }).csr;
    const star = hostCsrFromEdgeList({
      vertexCount: n,
      src: new Uint32Array(n - 1).fill(n - 1),
      dst: Uint32Array.from({ length: n - 1 }, (_, i) => i),
      directed: false,
    }).csr;
    for (const csr of [path, star]) {
      const graph = PartitionedGraph.upload(devices.slice(0, 2), csr);
      try {
        for (const source of [0, 50, n - 1]) {
          const want = Array.from(bfsReference(csr, source).depths, (d) => (d < 0 ? UNREACHED : d));
          const got = await bfsPartitioned(graph, source);
          expect(Array.from(got.depths)).toEqual(want);
          expect(got.exchangedBytes).toBeGreaterThan(0);
        }
        await expect(bfsPartitioned(graph, n)).rejects.toThrow(/source 100/);
        await expect(bfsPartitioned(graph, -1)).rejects.toThrow(/source -1/);
      } finally {
        graph.destroy();
      }
    }
    const directed = PartitionedGraph.upload(devices.slice(0, 2), { ...path, directed: true });
    try {
      await expect(bfsPartitioned(directed, 0, { direction: 'pull' })).rejects.toThrow(/undirected/);
    } finally {
      directed.destroy();
    }
  });
});
