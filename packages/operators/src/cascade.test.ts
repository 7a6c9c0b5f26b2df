import { atomic, u32, wgsl } from '@weft/gpu';
import { type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { Cascade } from './cascade.ts';
import { enact } from './enactor.ts';

const NONE = 0xffffffff;

function edgeCsr(n: number, src: number[], dst: number[]): HostCsr {
  return hostCsrFromEdgeList({
    vertexCount: n,
    src: Uint32Array.from(src),
    dst: Uint32Array.from(dst),
    directed: true,
  }).csr;
}

function randomCsr(n: number, m: number, seed: number): HostCsr {
  const r = mulberry32(seed);
  const src = Array.from({ length: m }, () => Math.floor(r() * n));
  const dst = Array.from({ length: m }, () => Math.floor(r() * n));
  return edgeCsr(n, src, dst);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

/** Directed shapes: long chains (one cascade crossing many workgroups), hubs, and none at all. */
function graphs(): [string, HostCsr][] {
  const path = 1500;
  return [
    ['empty', edgeCsr(0, [], [])],
    ['one vertex', edgeCsr(1, [], [])],
    ['random 1000', randomCsr(1000, 2500, 3)],
    // Edges from high to low ids: the smallest label must travel the whole path back.
    [
      'path 1500, descending',
      edgeCsr(
        path,
        range(path - 1).map((i) => i + 1),
        range(path - 1),
      ),
    ],
    ['star 700 out of its hub, hub last', edgeCsr(701, range(700).fill(700), range(700))],
    [
      'kronecker 12',
      hostCsrFromEdgeList({ ...kronecker({ scale: 12, edgeFactor: 8, seed: 4 }), directed: true }).csr,
    ],
  ];
}

/**
 * Per vertex, the smallest id among the vertices that reach it (itself included) along out-edges, in-edges
 * (`in`) or either (`both`: its weak component), by a host fixed point.
 */
function minReaching(csr: HostCsr, direction: 'out' | 'in' | 'both'): Uint32Array {
  const label = Uint32Array.from(range(csr.vertexCount));
  const lower = (from: number, to: number) => {
    if (label[from]! >= label[to]!) return false;
    label[to] = label[from]!;
    return true;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (let u = 0; u < csr.vertexCount; u++) {
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const v = csr.targets[e]!;
        if (direction !== 'in' && lower(u, v)) changed = true;
        if (direction !== 'out' && lower(v, u)) changed = true;
      }
    }
  }
  return label;
}

function bfsDepths(csr: HostCsr, source: number): Uint32Array {
  const depth = new Uint32Array(csr.vertexCount).fill(NONE);
  depth[source] = 0;
  let frontier = [source];
  for (let d = 1; frontier.length > 0; d++) {
    const next: number[] = [];
    for (const u of frontier) {
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const v = csr.targets[e]!;
        if (depth[v] === NONE) {
          depth[v] = d;
          next.push(v);
        }
      }
    }
    frontier = next;
  }
  return depth;
}

describe('Cascade', () => {
  it('propagates the smallest label along out-, in- and both edges to the fixed point, queues of 5 and 2048', () =>
    gpuTest(async (device) => {
      for (const [name, csr] of graphs()) {
        const graph = uploadGraph(device, csr, { csc: true });
        const label = device.array('u32', Math.max(1, csr.vertexCount), { label: 'label' });
        for (const direction of ['out', 'in', 'both'] as const) {
          const want = minReaching(csr, direction);
          for (const queue of [5, 2048]) {
            label.upload(Uint32Array.from(range(Math.max(1, csr.vertexCount))));
            // The pool hands the last released word to the cascade's counter: a dirty one must not keep
            // an empty graph's run going.
            const dirty = device.array('u32', 1, { label: 'dirty' });
            dirty.upload([5]);
            dirty.destroy();
            const cascade = new Cascade(
              graph,
              wgsl`(v: u32) -> bool { return true; }`,
              wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let l = atomicLoad(&${atomic(label)}[src]);
  return l < atomicMin(&${atomic(label)}[dst], l);
}`,
              { direction, queue },
            );
            const run = await enact(device, cascade);
            cascade.destroy();
            const got = csr.vertexCount === 0 ? new Uint32Array(0) : await label.download(0, csr.vertexCount);
            expectArrayEqual(got, want, `${name}, ${direction}, queue ${queue}`);
            if (queue === 2048 && name.startsWith('random'))
              expect(run.iterations, name).toBeLessThanOrEqual(2);
          }
        }
        label.destroy();
        graph.destroy();
      }
    }));

  it('gives BFS depths from one seed when each improvement is pushed again (label correcting)', () =>
    gpuTest(async (device) => {
      for (const [name, csr] of graphs()) {
        if (csr.vertexCount === 0) continue;
        const graph = uploadGraph(device, csr);
        const depth = device.array('u32', csr.vertexCount, { label: 'depth' });
        const source = csr.vertexCount - 1;
        for (const queue of [3, undefined]) {
          await depth.fill(NONE);
          const cascade = new Cascade(
            graph,
            wgsl`(v: u32) -> bool {
  if (v != ${u32(source)}) { return false; }
  atomicStore(&${atomic(depth)}[v], 0u);
  return true;
}`,
            wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let d = atomicLoad(&${atomic(depth)}[src]) + 1u;
  return d < atomicMin(&${atomic(depth)}[dst], d);
}`,
            queue ? { queue } : {},
          );
          await enact(device, cascade);
          cascade.destroy();
          expectArrayEqual(
            await depth.download(),
            bfsDepths(csr, source),
            `${name}, queue ${queue ?? 'default'}`,
          );
        }
        depth.destroy();
        graph.destroy();
      }
    }));
});
