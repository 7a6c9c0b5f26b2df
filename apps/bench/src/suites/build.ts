import { DeviceBuildPlan, type HostEdgeList, hostCsrFromEdgeList } from '@weft/graph';
import {
  checkDeviceBuildFits,
  kronecker,
  philoxKronecker,
  recordKroneckerEdges,
  uniformRandom,
} from '@weft/graph/generators';
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

const scaleFor = (n: number) => Math.max(1, Math.round(Math.log2(Math.max(1, n / 16))));

/** Edge lists up to this size are checked against the host twin edge by edge (the twin takes seconds). */
const MAX_TWIN_EDGES = 2 ** 22;

/**
 * Graph500 Kronecker generation and CSR build on the GPU (kroneckerOnDevice's work: Philox draws, one thread
 * per edge, then the device build), timed together. `n` is the number of generated edges, as for the build
 * cases. No size cap: a graph whose build exceeds one binding reports the DeviceLimitError.
 */
const deviceKroneckerCase: BenchCase = {
  name: 'generate+build kronecker ef16 device',
  family: 'build',
  async setup(device, n, seed) {
    const scale = scaleFor(n);
    const options = { scale, seed };
    const m = 16 * 2 ** scale;
    checkDeviceBuildFits(device, m, 'kronecker generation');
    const src = device.array('u32', m, { label: 'generated sources' });
    const dst = device.array('u32', m, { label: 'generated targets' });
    const plan = DeviceBuildPlan.create(device, { edgeCount: m, vertexCount: 2 ** scale, directed: false });
    return {
      items: m,
      // Write and read the edge list once, write the CSR (about 2 arcs per edge) once.
      bytes: 16 * m + 4 * (2 ** scale + 1),
      async run(rec) {
        await recordKroneckerEdges(rec, { src, dst }, options);
        await plan.record(rec, { src, dst });
      },
      async validate() {
        const counts = await plan.readCounts();
        const offsets = await plan.offsets.download();
        if (m <= MAX_TWIN_EDGES) {
          const { csr } = hostCsrFromEdgeList(philoxKronecker(options));
          if (counts.groups !== csr.edgeCount) return `${counts.groups} arcs, expected ${csr.edgeCount}`;
          const o = firstMismatch(offsets, csr.offsets);
          if (o !== null) return `offsets: ${o}`;
          const t = firstMismatch(await plan.targets.download(0, counts.groups), csr.targets);
          return t === null ? null : `targets: ${t}`;
        }
        // Too big for the twin: the CSR's shape must hold together.
        if (offsets[0] !== 0 || offsets[offsets.length - 1] !== counts.groups)
          return 'offsets do not span the arcs';
        for (let v = 1; v < offsets.length; v++) {
          if (offsets[v]! < offsets[v - 1]!) return `offsets fall at vertex ${v}`;
        }
        return counts.groups > 0 && counts.groups <= 2 * m ? null : `${counts.groups} arcs from ${m} edges`;
      },
      destroy() {
        plan.destroy();
        src.destroy();
        dst.destroy();
      },
    };
  },
};

/**
 * The host path it replaces: the host Kronecker generator and host CSR build, wall-timed. Small scales
 * only, since a run takes seconds from scale 18.
 */
const hostKroneckerCase: BenchCase = {
  name: 'generate+build kronecker ef16 host',
  family: 'build',
  maxItems: () => 2 ** 22,
  async setup(_device, n, seed) {
    const scale = scaleFor(n);
    let arcs = -1;
    return {
      items: 16 * 2 ** scale,
      bytes: 0,
      hostTimed: true,
      maxRunsPerSubmit: 1,
      async run() {
        arcs = hostCsrFromEdgeList(kronecker({ scale, seed })).csr.edgeCount;
      },
      async validate() {
        return arcs > 0 ? null : 'no arcs';
      },
      destroy() {},
    };
  },
};

export const cases: BenchCase[] = [
  deviceKroneckerCase,
  hostKroneckerCase,
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
