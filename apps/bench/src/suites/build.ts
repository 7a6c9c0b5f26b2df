import { DeviceBuildPlan, type HostEdgeList, hostCsrFromEdgeList } from '@weft/graph';
import { kronecker, uniformRandom } from '@weft/graph/generators';
import type { BenchCase } from '../types.ts';
import { firstMismatch } from '../validate.ts';

type Generator = (scale: number, seed: number) => HostEdgeList;

/**
 * GPU construction of a CSR (deviceGraphFromEdgeList's build: validate, drop self-loops, symmetrize, sort by
 * (source, target), merge duplicates by min weight, offsets) from an edge list already on the GPU.
 * `n` is the number of input edges: the graph has 2^scale vertices with scale = log2(n / 16) (edge factor
 * 16), rounded. Generation and upload stay out of the timed run; the copy of the results into exact-size
 * arrays (toGraph) is left out too.
 */
function buildCase(name: string, generate: Generator, weighted: boolean): BenchCase {
  return {
    name,
    family: 'build',
    // Mirrored entries (2 per input edge) must fit one binding.
    maxItems: (device) => Math.floor(device.limits.maxStorageBufferBindingSize / 8),
    async setup(device, n, seed) {
      const scale = Math.max(1, Math.round(Math.log2(Math.max(1, n / 16))));
      const edges = generate(scale, seed);
      if (!weighted) delete edges.weights;
      const m = edges.src.length;
      const src = device.upload(edges.src, { label: 'bench edge sources' });
      const dst = device.upload(edges.dst, { label: 'bench edge targets' });
      const weights = edges.weights === undefined ? undefined : device.upload(edges.weights);
      const plan = DeviceBuildPlan.create(device, {
        edgeCount: m,
        vertexCount: edges.vertexCount,
        directed: edges.directed,
        ...(weights === undefined ? {} : { weightType: weights.type }),
      });
      const reference = hostCsrFromEdgeList(edges);
      const out = reference.csr.edgeCount;
      return {
        items: m,
        // Read the edge list once, write the CSR once.
        bytes: (weighted ? 12 : 8) * m + (weighted ? 8 : 4) * out + 4 * (edges.vertexCount + 1),
        run: (rec) => plan.record(rec, { src, dst, ...(weights === undefined ? {} : { weights }) }),
        async validate() {
          const counts = await plan.readCounts();
          const report = plan.report(counts);
          const want = reference.report;
          if (JSON.stringify(report) !== JSON.stringify(want)) {
            return `report ${JSON.stringify(report)}, expected ${JSON.stringify(want)}`;
          }
          if (counts.groups !== out) return `${counts.groups} edges, expected ${out}`;
          const offsets = firstMismatch(await plan.offsets.download(), reference.csr.offsets);
          if (offsets !== null) return `offsets: ${offsets}`;
          const targets = firstMismatch(await plan.targets.download(0, out), reference.csr.targets);
          if (targets !== null) return `targets: ${targets}`;
          if (plan.weights !== undefined) {
            const w = firstMismatch(await plan.weights.download(0, out), reference.csr.weights!);
            if (w !== null) return `weights: ${w}`;
          }
          return null;
        },
        destroy() {
          plan.destroy();
          src.destroy();
          dst.destroy();
          weights?.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = [
  buildCase(
    'build kronecker ef16 weighted',
    (scale, seed) => kronecker({ scale, seed, weights: true }),
    true,
  ),
  buildCase('build kronecker ef16', (scale, seed) => kronecker({ scale, seed }), false),
  buildCase(
    'build uniform ef16 weighted',
    (scale, seed) => uniformRandom({ scale, seed, weights: true }),
    true,
  ),
];
