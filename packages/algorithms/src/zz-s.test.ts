import { requestDevice } from '@weft/gpu';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { it } from 'vitest';
import * as A from './index.ts';

it('s', async () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const d = await requestDevice({ limits: { maxStorageBuffersPerShaderStage: Number(process.env.LIM) } });
  const e = kronecker({ scale: 8, seed: 1 });
  const w = Uint32Array.from({ length: e.src.length }, (_, i) => 1 + (i % 7));
  const u = uploadGraph(d, hostCsrFromEdgeList({ ...e, weights: w }).csr);
  try {
    await (process.env.ALG === 'bc'
      ? A.betweennessCentrality(u, { sources: [0, 1] } as never)
      : process.env.ALG === 'jac'
        ? A.jaccardAll(u, Uint32Array.of(0, 1) as never)
        : A.sssp(u, 0));
  } catch (e) {
    console.log('ERR', (e as Error).message);
  }
}, 600000);
