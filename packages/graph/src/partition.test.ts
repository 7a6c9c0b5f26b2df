import { DeviceLimitError, InputError, requestDevices, type WeftDevice } from '@weft/gpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DeviceGraph, uploadGraph } from './device-graph.ts';
import { philoxUniformMultigraph } from './generators/counter-based.ts';
import { grid } from './generators/grid.ts';
import { kronecker } from './generators/kronecker.ts';
import { hostCsrFromEdgeList } from './host-build.ts';
import type { HostCsr } from './host-graph.ts';
import { PartitionedGraph, partitionCsr } from './partition.ts';

let devices: WeftDevice[] = [];
beforeAll(async () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  devices = await requestDevices({ count: 2, shareAdapter: true, label: 'partition test' });
});
afterAll(() => {
  for (const d of devices) d.destroy();
});

const range = (n: number) => Uint32Array.from({ length: n }, (_, i) => i);
const path = (n: number) => ({
  vertexCount: n,
  src: range(n - 1),
  dst: range(n).subarray(1),
  directed: false,
});

/** Small graphs at the cutter's edges: empty, one vertex, a star, a path, a grid, skewed and duplicated arcs. */
function graphs(): { name: string; csr: HostCsr }[] {
  const star = 300;
  return [
    {
      name: 'empty',
      csr: {
        vertexCount: 0,
        edgeCount: 0,
        offsets: Uint32Array.of(0),
        targets: new Uint32Array(0),
        directed: false,
      },
    },
    {
      name: 'one vertex, a self-loop',
      csr: {
        vertexCount: 1,
        edgeCount: 1,
        offsets: Uint32Array.of(0, 1),
        targets: Uint32Array.of(0),
        directed: true,
      },
    },
    {
      name: 'star',
      csr: hostCsrFromEdgeList({
        vertexCount: star,
        src: new Uint32Array(star - 1),
        dst: range(star).subarray(1),
        directed: false,
      }).csr,
    },
    {
      name: 'path',
      csr: hostCsrFromEdgeList(path(700)).csr,
    },
    { name: 'grid', csr: hostCsrFromEdgeList(grid({ width: 16, height: 20 })).csr },
    {
      name: 'kronecker',
      csr: hostCsrFromEdgeList({ ...kronecker({ scale: 8, seed: 3 }), directed: true }).csr,
    },
    {
      name: 'uniform multigraph',
      csr: philoxUniformMultigraph({ scale: 8, edgeFactor: 2, seed: 2, weights: true }),
    },
  ];
}

function blockArcs(csr: HostCsr): number[] {
  const n = csr.vertexCount;
  const out: number[] = [];
  for (let v = 0; v < n; v += 32) out.push(csr.offsets[Math.min(n, v + 32)]! - csr.offsets[v]!);
  return out;
}

/** The fewest parts of whole 32-vertex blocks within `budget` arcs each. */
function fewestParts(csr: HostCsr, budget: number): number {
  let parts = 1;
  let arcs = 0;
  for (const a of blockArcs(csr)) {
    if (arcs + a > budget) {
      parts++;
      arcs = 0;
    }
    arcs += a;
  }
  return parts;
}

describe('partitionCsr with an arc budget', () => {
  it('cuts at multiples of 32 into the fewest parts within the budget, or at least `parts`', () => {
    for (const { name, csr } of graphs()) {
      const n = csr.vertexCount;
      const widest = Math.max(1, ...blockArcs(csr));
      for (const maxArcsPerPart of [widest, widest + 7, 3 * widest]) {
        for (const parts of [undefined, 1, 4, 9]) {
          const what = `${name}, budget ${maxArcsPerPart}, parts ${parts}`;
          const split = partitionCsr(csr, { parts, maxArcsPerPart });
          expect(split.length, what).toBe(Math.max(parts ?? 1, fewestParts(csr, maxArcsPerPart)));
          let edges = 0;
          for (const [i, p] of split.entries()) {
            expect(p.lo, what).toBe(i === 0 ? 0 : split[i - 1]!.hi);
            for (const at of [p.lo, p.hi]) if (at !== n) expect(at % 32, what).toBe(0);
            expect(p.csr.edgeCount, what).toBeLessThanOrEqual(maxArcsPerPart);
            for (let v = 0; v < n; v++) {
              const own = v >= p.lo && v < p.hi;
              const row = p.csr.targets.subarray(p.csr.offsets[v]!, p.csr.offsets[v + 1]!);
              const want = own ? csr.targets.subarray(csr.offsets[v]!, csr.offsets[v + 1]!) : [];
              expect(Array.from(row), `${what}, part ${i} row ${v}`).toEqual(Array.from(want));
            }
            if (csr.weights) expect(p.csr.weights?.length, what).toBe(p.csr.edgeCount);
            edges += p.csr.edgeCount;
          }
          expect(split[split.length - 1]!.hi, what).toBe(n);
          expect(edges, what).toBe(csr.edgeCount);
        }
      }
    }
  });

  it('refuses 32 vertices above the budget in one line, and bad options', () => {
    const star = graphs().find((g) => g.name === 'star')!.csr;
    const err = (() => {
      try {
        partitionCsr(star, { maxArcsPerPart: 298 });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(DeviceLimitError);
    expect((err as Error).message).toBe(
      'partitionCsr: the arcs of vertices [0, 32) needs 330 but maxArcsPerPart is 298: ' +
        'parts are cut at multiples of 32 vertices, so raise maxArcsPerPart',
    );
    for (const bad of [0, -1, 2.5, 2 ** 32, Number.NaN]) {
      expect(() => partitionCsr(star, { maxArcsPerPart: bad })).toThrow(InputError);
    }
    expect(() => partitionCsr(star, 0)).toThrow(/parts must be a positive integer, got 0/);
  });
});

describe('PartitionedGraph', () => {
  it('uploads several parts to one device or round-robin, with bases adding up', async () => {
    const csr = philoxUniformMultigraph({ scale: 8, edgeFactor: 2, seed: 2, weights: true });
    for (const [using, options, count] of [
      [devices.slice(0, 1), { parts: 3 }, 3],
      [devices, {}, 2],
      [devices, { maxArcsPerPart: 200 }, fewestParts(csr, 200)],
    ] as const) {
      const graph = PartitionedGraph.upload(using, csr, options);
      try {
        expect(graph.parts).toHaveLength(count);
        expect(graph.edgeCount).toBe(csr.edgeCount);
        let base = 0;
        for (const [i, p] of graph.parts.entries()) {
          expect(p.graph.device).toBe(using[i % using.length]);
          expect(p.base).toBe(base);
          base += p.graph.edgeCount;
          const host = await p.graph.toHost();
          const first = csr.offsets[p.lo]!;
          expect(Array.from(host.targets)).toEqual(
            Array.from(csr.targets.subarray(first, first + p.graph.edgeCount)),
          );
        }
      } finally {
        graph.destroy();
      }
    }
  });

  it('fromParts checks ranges, vertex counts and directedness in one line', () => {
    const device = devices[0]!;
    const csr = hostCsrFromEdgeList(path(100)).csr;
    const split = partitionCsr(csr, 3);
    const made: DeviceGraph[] = [];
    const up = (c: HostCsr) => {
      const g = uploadGraph(device, c);
      made.push(g);
      return g;
    };
    try {
      const [a, b, c] = split.map((p) => ({ lo: p.lo, hi: p.hi, graph: up(p.csr) }));
      const whole = PartitionedGraph.fromParts([a!, b!, c!]);
      expect(whole.parts.map((p) => [p.lo, p.hi, p.base])).toEqual([
        [0, 32, 0],
        [32, 64, split[0]!.csr.edgeCount],
        [64, 100, split[0]!.csr.edgeCount + split[1]!.csr.edgeCount],
      ]);
      const other = up(hostCsrFromEdgeList(path(4)).csr);
      const directed = up({ ...split[2]!.csr, directed: true });
      for (const [parts, message] of [
        [[], /at least one part/],
        [[a, c], /part 1 starts at 64, not at 32/],
        [[b, c], /part 0 starts at 32, not at 0/],
        [[a, b], /the parts end at 64, not at the vertex count 100/],
        [[a, { ...b!, hi: 70 }, { ...c!, lo: 70 }], /part 1 boundary 70 is neither a multiple of 32 nor 100/],
        [[a, b, { ...c!, hi: 101 }], /part 2 ends at 101, outside \[64, 100\]/],
        [[a, b, { ...c!, graph: other }], /part 2 has 4 vertices, part 0 has 100/],
        [[a, b, { ...c!, graph: directed }], /part 2 is directed, part 0 is not/],
        [[a, b, { ...c!, graph: csr }], /parts\[2\]\.graph.*host graph/],
      ] as const) {
        const err = (() => {
          try {
            PartitionedGraph.fromParts(parts as never);
          } catch (e) {
            return e;
          }
        })();
        expect(err).toBeInstanceOf(InputError);
        expect(`${(err as Error).message} ${(err as InputError).where ?? ''}`).toMatch(message);
      }
    } finally {
      for (const g of made) g.destroy();
    }
  });

  it('counts arcs past 2^32 as a number: bases of parts each near the u32 limit', () => {
    // Stand-ins carrying only what fromParts reads: no adapter here holds 2^32 arcs.
    const part = (lo: number, hi: number) => ({
      lo,
      hi,
      graph: {
        vertexCount: 96,
        edgeCount: 2 ** 32 - 1,
        directed: false,
        device: {},
      } as unknown as DeviceGraph,
    });
    const graph = PartitionedGraph.fromParts([part(0, 32), part(32, 64), part(64, 96)]);
    expect(graph.parts.map((p) => p.base)).toEqual([0, 2 ** 32 - 1, 2 ** 33 - 2]);
    expect(graph.edgeCount).toBe(3 * (2 ** 32 - 1));
  });
});

describe('PartitionedGraph.kept', () => {
  it('makes a thing once a key, makes again after a failure, and destroys what it kept with the graph', async () => {
    const csr = philoxUniformMultigraph({ scale: 6, edgeFactor: 2, seed: 3, weights: false });
    const graph = PartitionedGraph.upload(devices, csr);
    const destroyed: string[] = [];
    let made = 0;
    const make = async () => `thing ${++made}`;
    const keep = (key: string) => graph.kept(key, make, (t) => destroyed.push(t));
    expect(await keep('a')).toBe('thing 1');
    expect(await keep('a')).toBe('thing 1');
    expect(await keep('b')).toBe('thing 2');
    await expect(
      graph.kept(
        'c',
        () => Promise.reject(new Error('no')),
        () => undefined,
      ),
    ).rejects.toThrow('no');
    expect(await keep('c')).toBe('thing 3');
    // Still being made when the graph goes: destroyed once made.
    let finish: (v: string) => void = () => undefined;
    const pending = graph.kept(
      'd',
      () => new Promise<string>((r) => (finish = r)),
      (t) => destroyed.push(t),
    );
    graph.destroy();
    expect(destroyed).toEqual(['thing 1', 'thing 2', 'thing 3']);
    finish('late');
    expect(await pending).toBe('late');
    await Promise.resolve();
    expect(destroyed).toEqual(['thing 1', 'thing 2', 'thing 3', 'late']);
  });
});
