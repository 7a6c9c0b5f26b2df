import { rmSync } from 'node:fs';
import { mkdtemp, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DeviceGraph, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { loadGraph, writeGraphFile } from '@weft/graph/node';
import type { BenchCase } from '../types.ts';
import { firstMismatch } from '../validate.ts';

/**
 * Loading a graph file and uploading it: parse (streaming, on the CPU), build the CSR where the format holds
 * an edge list (.mtx: hostCsrFromEdgeList), then uploadGraph. `n` is the number of generated edges
 * (Kronecker, edge factor 16, scale = log2(n / 16) rounded, as in the build cases); items are the CSR's arcs,
 * bytes the file's size. The file is written once per size in setup.
 */
function loadCase(extension: 'mtx' | 'wcsr'): BenchCase {
  return {
    name: `load kronecker ef16 .${extension}`,
    family: 'load',
    // The symmetrized targets (about 2 arcs per edge) must fit one binding.
    maxItems: (device) => Math.floor(device.limits.maxStorageBufferBindingSize / 8),
    async setup(device, n, seed) {
      const scale = Math.max(1, Math.round(Math.log2(Math.max(1, n / 16))));
      const reference = hostCsrFromEdgeList(kronecker({ scale, seed })).csr;
      const dir = await mkdtemp(join(tmpdir(), 'weft-bench-load-'));
      const path = join(dir, `kronecker-${scale}.${extension}`);
      await writeGraphFile(path, reference, extension === 'mtx' ? { symmetric: true } : {});
      const { size } = await stat(path);
      let loaded: DeviceGraph | undefined;
      return {
        items: reference.edgeCount,
        bytes: size,
        // Parsing runs on the CPU: wall time of the load and the upload (the submit waits for it to land).
        hostTimed: true,
        async run() {
          const { csr } = await loadGraph(path);
          loaded?.destroy();
          loaded = uploadGraph(device, csr);
        },
        async validate() {
          if (loaded === undefined) return 'nothing was loaded';
          const csr = await loaded.toHost();
          if (csr.vertexCount !== reference.vertexCount) {
            return `${csr.vertexCount} vertices, expected ${reference.vertexCount}`;
          }
          if (csr.directed !== reference.directed) return `directed is ${csr.directed}`;
          if (csr.weights !== undefined) return 'unexpected weights';
          const offsets = firstMismatch(csr.offsets, reference.offsets);
          if (offsets !== null) return `offsets: ${offsets}`;
          const targets = firstMismatch(csr.targets, reference.targets);
          if (targets !== null) return `targets: ${targets}`;
          return null;
        },
        destroy() {
          loaded?.destroy();
          loaded = undefined;
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  };
}

export const cases: BenchCase[] = [loadCase('mtx'), loadCase('wcsr')];
