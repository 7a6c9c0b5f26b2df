import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { testDevice } from '@weft/testing';
import { expect, it } from 'vitest';
import { bfs } from './bfs/bfs.ts';
import { connectedComponents } from './components.ts';
import { pageRank } from './pagerank.ts';
import { randomEdges } from './test-graphs.ts';

// `--expose-gc` set at run time: a fresh context then sees `gc`, so the test needs no worker flags.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const CALLS = Number(process.env.WEFT_HEAP_CALLS ?? 5000);

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return process.memoryUsage().heapUsed;
}

it(`keeps the heap and the GPU buffer pool flat over ${CALLS} algorithm calls`, async () => {
  const device = await testDevice();
  // Tiny, so that the calls, not the graph, take the time.
  const { csr } = hostCsrFromEdgeList(randomEdges(24, 60, 3, false));
  const graph = uploadGraph(device, csr);
  try {
    const calls = async (count: number) => {
      for (let i = 0; i < count; i++) {
        const k = i % 3;
        if (k === 0) await bfs(graph, i % csr.vertexCount);
        else if (k === 1) await connectedComponents(graph);
        else await pageRank(graph, { maxIterations: 3 });
      }
    };
    await calls(300);
    const pool = device.pool.stats;
    const before = await heapAfterGc();
    await calls(CALLS);
    const after = await heapAfterGc();
    // The guard leak of #28 kept about 2.7 KB a BFS (over 4 MB here); GC noise stays well below 1.5 MB.
    expect(after - before).toBeLessThan(1_500_000);
    // Every run returns what it took and takes again what it returned: the pool holds the same buffers.
    expect(device.pool.stats).toEqual(pool);
  } finally {
    graph.destroy();
  }
  // Room for wgpu in Deno, where each of the calls' few GPU round trips waits for a device poll timer.
}, 300_000);
