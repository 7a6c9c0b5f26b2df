import { DeviceLimitError, requestDevice, type WeftDevice } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { betweennessCentrality } from './betweenness.ts';
import { bfs } from './bfs/bfs.ts';
import { bfsReference } from './bfs/reference.ts';
import { graphColoring } from './coloring.ts';
import { modularityReference } from './community-reference.ts';
import { connectedComponents } from './components.ts';
import { componentsReference } from './components-reference.ts';
import { coreNumber } from './kcore.ts';
import { labelPropagation } from './label-propagation.ts';
import { leiden } from './leiden.ts';
import { louvain } from './louvain.ts';
import { maximalIndependentSet } from './mis.ts';
import { minimumSpanningForest } from './mst.ts';
import { pageRank } from './pagerank.ts';
import { stronglyConnectedComponents } from './scc.ts';
import { jaccardAll } from './similarity.ts';
import { jaccardAllReference } from './similarity-reference.ts';
import { sssp } from './sssp/sssp.ts';
import { testGraphs } from './test-graphs.ts';
import { triangleCount } from './triangles.ts';
import { trianglesReference } from './triangles-reference.ts';
import {
  verifyBetweenness,
  verifyBfs,
  verifyColoring,
  verifyCoreNumbers,
  verifyIndependentSet,
  verifyPageRank,
  verifyScc,
  verifySpanningForest,
  verifySssp,
} from './verify.ts';

// Browsers grant 10 (Chromium) or 8 (WebGPU's default) storage buffers a stage: the default paths must fit.
for (const limit of [10, 8]) {
  describe(`with maxStorageBuffersPerShaderStage = ${limit}`, () => {
    let shared: Promise<WeftDevice> | undefined;
    const device = () => {
      process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
      shared ??= requestDevice({
        label: `limit ${limit}`,
        limits: { maxStorageBuffersPerShaderStage: limit },
      });
      return shared;
    };
    afterAll(async () => (await shared)?.destroy());
    const graphs = () => [
      ...testGraphs(false, 4).filter((g) => !g.csr.directed),
      { name: 'kronecker 2^8', csr: hostCsrFromEdgeList(kronecker({ scale: 8, seed: 1 })).csr },
    ];

    // Bitmap claims and the merge-path tile need more; 'auto' picks depth claims and a thread per vertex.
    it('bfs push and direction-optimizing, with and without parents, match the reference', async () => {
      const d = await device();
      expect(d.limits.maxStorageBuffersPerShaderStage).toBe(limit);
      const all = [
        ...graphs(),
        {
          name: 'directed kronecker 2^8',
          csr: hostCsrFromEdgeList({ ...kronecker({ scale: 8, seed: 3 }), directed: true }).csr,
        },
      ];
      for (const { name, csr } of all) {
        const graph = uploadGraph(d, csr, { csc: csr.directed });
        const want = bfsReference(csr, 0).depths;
        for (const direction of ['push', 'auto'] as const) {
          for (const parents of [false, true]) {
            const got = await bfs(graph, 0, { direction, parents });
            expectArrayEqual(got.depths, want, `${name} ${direction}${parents ? ' parents' : ''}`);
            if (parents) expect(verifyBfs(csr, 0, got.depths, got.parents), name).toBeNull();
          }
        }
        graph.destroy();
      }
    });

    it('explicit bitmap claims refuse with a DeviceLimitError where they do not fit', async () => {
      const d = await device();
      const graph = uploadGraph(d, hostCsrFromEdgeList(kronecker({ scale: 8, seed: 1 })).csr);
      const withParents = bfs(graph, 0, { claim: 'bitmap', parents: true, smallFrontier: 'off' });
      await expect(withParents).rejects.toThrow(DeviceLimitError);
      graph.destroy();
    });

    // 'auto' leaves the small-level path (16 storage buffers) to devices that grant them; the bulk path's
    // backward reduction needs 12 today, so a run that needs it must refuse, never answer wrongly.
    // At 10 the dependency sums fold a vertex per thread where the segreduce tile would not fit.
    it('betweenness matches the reference; below 10 it may refuse in the bulk path, never in the small-level path', async () => {
      const d = await device();
      for (const { name, csr } of graphs()) {
        const graph = uploadGraph(d, csr);
        const options = { k: Math.min(2, csr.vertexCount), seed: 1 };
        const got = await betweennessCentrality(graph, options).catch((e: unknown) => e);
        graph.destroy();
        if (got instanceof DeviceLimitError) {
          expect(limit, `${name}: ${got.message}`).toBeLessThan(10);
          expect(got.message, name).not.toMatch(/small frontier|levels down/);
          continue;
        }
        const { centrality } = got as Awaited<ReturnType<typeof betweennessCentrality>>;
        expect(verifyBetweenness(csr, centrality, options), name).toBeNull();
      }
    });

    it('sssp, connected components and pagerank match the references', async () => {
      const d = await device();
      for (const { name, csr } of graphs()) {
        const graph = uploadGraph(d, csr);
        expect(verifySssp(csr, 0, (await sssp(graph, 0)).distances), `${name} sssp`).toBeNull();
        const cc = await connectedComponents(graph);
        expectArrayEqual(cc.labels, componentsReference(csr).labels, `${name} labels`);
        const pr = await pageRank(graph);
        expect(verifyPageRank(csr, pr.ranks, { relTolerance: 1e-4 }), name).toBeNull();
        graph.destroy();
      }
      // Weighted, directed and not: at 8 the frontier push sets visited bits and appends them in a second pass.
      for (const directed of [false, true]) {
        const edges = kronecker({ scale: 8, seed: 7 });
        const weights = Uint32Array.from({ length: edges.src.length }, (_, i) => 1 + ((i * 7) % 13));
        const csr = hostCsrFromEdgeList({ ...edges, weights, directed }).csr;
        const graph = uploadGraph(d, csr);
        for (const parents of [false, true]) {
          const got = await sssp(graph, 0, { parents, delta: 'off' });
          expect(verifySssp(csr, 0, got.distances), `weighted sssp, directed ${directed}`).toBeNull();
        }
        graph.destroy();
      }
    });

    // SCC walks in- and out-edges in one cascade; weak components and k-core use cascades too.
    it('directed scc, weak components and core numbers match the references or refuse below 10', async () => {
      const d = await device();
      let refused = 0;
      const directed = [
        ...testGraphs(false, 3).filter((g) => g.csr.directed),
        {
          name: 'directed kronecker 2^8',
          csr: hostCsrFromEdgeList({ ...kronecker({ scale: 8, seed: 2 }), directed: true }).csr,
        },
      ];
      expect(directed.length).toBeGreaterThan(1);
      for (const { name, csr } of directed) {
        const graph = uploadGraph(d, csr, { csc: true });
        const runs: [string, () => Promise<string | null>][] = [
          ['scc', async () => verifyScc(csr, (await stronglyConnectedComponents(graph)).labels)],
          [
            'weak components',
            async () => {
              const cc = await connectedComponents(graph, { algorithm: 'label-propagation' });
              const want = componentsReference(csr).labels;
              return cc.labels.every((l, v) => l === want[v]) ? null : 'labels differ';
            },
          ],
          ['core numbers', async () => verifyCoreNumbers(csr, (await coreNumber(graph)).core)],
        ];
        for (const [what, run] of runs) {
          try {
            expect(await run(), `${name} ${what}`).toBeNull();
          } catch (e) {
            if (!(e instanceof DeviceLimitError)) throw e;
            refused++;
          }
        }
        graph.destroy();
      }
      if (limit >= 10) expect(refused).toBe(0);
    });

    // Chromium's 10 runs every exported algorithm; at 8 some refuse, never answer wrongly.
    it('communities, spanning forest, MIS, colouring, triangles and 2-hop similarity verify or refuse below 10', async () => {
      const d = await device();
      const edges = kronecker({ scale: 8, seed: 5 });
      const weights = Uint32Array.from({ length: edges.src.length }, (_, i) => 1 + (i % 7));
      const csr = hostCsrFromEdgeList({ ...edges, weights }).csr;
      const graph = uploadGraph(d, csr);
      const q = (communities: Uint32Array) => modularityReference(csr, communities);
      const runs: [string, () => Promise<string | null>][] = [
        [
          'louvain',
          async () =>
            ((r) => (Math.abs(r.modularity - q(r.communities)) < 1e-4 ? null : 'modularity'))(
              await louvain(graph),
            ),
        ],
        [
          'leiden',
          async () =>
            ((r) => (Math.abs(r.modularity - q(r.communities)) < 1e-4 ? null : 'modularity'))(
              await leiden(graph),
            ),
        ],
        [
          'label propagation',
          async () =>
            ((r) => (r.labels.length === csr.vertexCount ? null : 'labels'))(await labelPropagation(graph)),
        ],
        [
          'spanning forest',
          async () =>
            ((r) => verifySpanningForest(csr, r.edges, r.weight, r.trees))(
              await minimumSpanningForest(graph),
            ),
        ],
        [
          'independent set',
          async () => verifyIndependentSet(csr, (await maximalIndependentSet(graph)).inSet),
        ],
        ['colouring', async () => verifyColoring(csr, (await graphColoring(graph)).colors)],
        [
          'triangles',
          async () =>
            ((c) => (c === trianglesReference(csr) ? null : `count ${c}`))(
              (await triangleCount(graph)).count,
            ),
        ],
        [
          '2-hop jaccard',
          async () => {
            const vertices = Uint32Array.of(0, 3, 17);
            const got = await jaccardAll(graph, vertices, { topK: 4 });
            const want = jaccardAllReference(csr, vertices, { topK: 4 });
            const same =
              got.first.join() === want.first.join() &&
              got.second.join() === want.second.join() &&
              got.common.join() === want.common.join() &&
              got.score.every((x, i) => Math.abs(x - want.score[i]!) <= 1e-6);
            return same ? null : 'pairs or scores differ';
          },
        ],
      ];
      let refused = 0;
      for (const [what, run] of runs) {
        try {
          expect(await run(), what).toBeNull();
        } catch (e) {
          if (!(e instanceof DeviceLimitError)) throw e;
          refused++;
        }
      }
      graph.destroy();
      if (limit >= 10) expect(refused).toBe(0);
    });
  });
}
