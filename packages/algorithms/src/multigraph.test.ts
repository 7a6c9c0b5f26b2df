import { DeviceLimitError, requestDevice, type WeftDevice } from '@weft/gpu';
import {
  kroneckerMultigraphOnDevice,
  pairWeightFunctor,
  philoxKroneckerMultigraph,
  philoxUniformMultigraph,
  uniformMultigraphOnDevice,
} from '@weft/graph/generators';
import { expectArrayEqual } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { pageRank } from './pagerank.ts';
import { sssp, ssspDelta } from './sssp/sssp.ts';
import { verifyPageRank, verifySssp } from './verify.ts';

// 64 arcs a chunk: the graphs below span 2 to 4 chunks, targets and weights within 16 bindings, the limit
// asked for so that every engine has it (Dawn grants lavapipe's 16, wgpu more).
let shared: Promise<WeftDevice> | undefined;
const device = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({
    label: 'multigraphs in chunks',
    bindingBudget: 256,
    limits: { maxStorageBuffersPerShaderStage: 16 },
  });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

const CASES = [
  { kind: 'kronecker', o: { scale: 4, edgeFactor: 8, seed: 1, weights: true } },
  { kind: 'kronecker', o: { scale: 5, edgeFactor: 4, seed: 2, weights: true } },
  { kind: 'kronecker', o: { scale: 3, edgeFactor: 10, seed: 3, weights: [1, 3] as const } },
  // A skewed initiator: one hub holds most arcs, its list across every boundary; many vertices isolated.
  { kind: 'kronecker', o: { scale: 6, edgeFactor: 2, seed: 4, a: 0.8, b: 0.1, c: 0.05, weights: true } },
  { kind: 'uniform', o: { scale: 5, edgeFactor: 3, seed: 5, weights: true } },
] as const;

describe('algorithms on multigraphs built on the GPU in chunks', () => {
  it('bfs, connected components, sssp and pagerank match the references on the host twin', async () => {
    const d = await device();
    const chunkCounts = new Set<number>();
    for (const { kind, o } of CASES) {
      const name = `${kind} ${JSON.stringify(o)}`;
      const [graph, twin] =
        kind === 'kronecker'
          ? [await kroneckerMultigraphOnDevice(d, o), philoxKroneckerMultigraph(o)]
          : [await uniformMultigraphOnDevice(d, o), philoxUniformMultigraph(o)];
      try {
        chunkCounts.add(graph.chunkedTargets.chunks.length);
        expect(graph.chunkedWeights!.chunks.length, name).toBe(graph.chunkedTargets.chunks.length);
        // Sources: the largest-degree vertex and a low one with edges.
        let hub = 0;
        let low = -1;
        for (let v = 0; v < twin.vertexCount; v++) {
          const deg = twin.offsets[v + 1]! - twin.offsets[v]!;
          if (deg > twin.offsets[hub + 1]! - twin.offsets[hub]!) hub = v;
          if (deg > 0 && (low < 0 || deg < twin.offsets[low + 1]! - twin.offsets[low]!)) low = v;
        }
        for (const s of [hub, low]) {
          expectArrayEqual((await bfs(graph, s)).depths, bfsReference(twin, s).depths, `${name} bfs ${s}`);
          expect(verifySssp(twin, s, (await sssp(graph, s)).distances), `${name} sssp ${s}`).toBeNull();
        }
        // Davidson's delta, summed chunk by chunk: exact here (small integer sums in f32).
        const mean = Array.from(twin.weights!).reduce((a, b) => a + b, 0) / twin.edgeCount;
        const delta = Math.ceil((32 * mean) / (twin.edgeCount / twin.vertexCount));
        expect(await ssspDelta(graph), `${name} delta`).toBe(delta);
        expect(
          verifySssp(twin, hub, (await sssp(graph, hub, { delta })).distances),
          `${name} near-far`,
        ).toBeNull();
        const cc = await connectedComponents(graph);
        expectArrayEqual(cc.labels, componentsReference(twin).labels, `${name} cc`);
        const pr = await pageRank(graph, { weight: null });
        expect(verifyPageRank(twin, pr.ranks, { weight: null }), `${name} pagerank`).toBeNull();
      } finally {
        graph.destroy();
      }
    }
    expect([...chunkCounts].sort()).toEqual([2, 3, 4]);
  });

  it('sssp with computed pair weights binds no weight array and matches the stored weights', async () => {
    const d = await device();
    // 8 chunks of targets: with their weights in 8 more a relaxation needs more than the device's 16 bindings.
    const o = { scale: 4, edgeFactor: 8, seed: 6, weights: true } as const;
    d.bindingBudget = 128;
    const graph = await kroneckerMultigraphOnDevice(d, o);
    d.bindingBudget = 256;
    const twin = philoxKroneckerMultigraph(o);
    try {
      expect(graph.chunkedTargets.chunks.length).toBeGreaterThanOrEqual(7);
      await expect(sssp(graph, 0)).rejects.toThrow(DeviceLimitError);
      const weight = pairWeightFunctor(o);
      for (const s of [0, 9, 15]) {
        for (const options of [{ weight }, { weight, delta: 64, parents: true }] as const) {
          const got = await sssp(graph, s, options);
          expect(verifySssp(twin, s, got.distances), `from ${s} ${Object.keys(options)}`).toBeNull();
        }
      }
      const plain = await kroneckerMultigraphOnDevice(d, { ...o, weights: false });
      const got = await sssp(plain, 9, { weight });
      expect(verifySssp(twin, 9, got.distances), 'unweighted graph').toBeNull();
      plain.destroy();
    } finally {
      graph.destroy();
    }
  });
});
