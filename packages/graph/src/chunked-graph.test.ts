import { DeviceLimitError, requestDevice, type WeftDevice } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { uploadGraph } from './device-graph.ts';
import { kronecker } from './generators/kronecker.ts';
import { hostCsrFromEdgeList } from './host-build.ts';

// 256 bytes a chunk: 64 edges, so a Kronecker graph of a few hundred edges spans several chunks.
let shared: Promise<WeftDevice> | undefined;
const device = () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  shared ??= requestDevice({ label: 'chunked graph', bindingBudget: 256 });
  return shared;
};
afterAll(async () => (await shared)?.destroy());

describe('uploadGraph over the binding budget', () => {
  it('stores targets and weights in chunks and reads them back', async () => {
    const d = await device();
    const { csr } = hostCsrFromEdgeList(kronecker({ scale: 6, seed: 3, weights: true }));
    expect(csr.edgeCount).toBeGreaterThan(128);
    const graph = uploadGraph(d, csr);
    expect(graph.chunked).toBe(true);
    expect(graph.chunkedTargets.chunks.length).toBe(Math.ceil(csr.edgeCount / 64));
    expect(graph.chunkedWeights!.chunks.length).toBe(graph.chunkedTargets.chunks.length);
    const back = await graph.toHost();
    expectArrayEqual(back.offsets, csr.offsets, 'offsets');
    expectArrayEqual(back.targets, csr.targets, 'targets');
    expectArrayEqual(back.weights!, csr.weights!, 'weights');
    // Paths that read the targets as one array refuse, naming themselves.
    expect(() => graph.targets).toThrow(DeviceLimitError);
    expect(() => graph.weights).toThrow(DeviceLimitError);
    expect(() => graph.requireUnchunked('triangle counting')).toThrow(/triangle counting/);
    graph.destroy();
    expect(graph.chunkedTargets.destroyed).toBe(true);

    // Within the budget nothing changes: one chunk, the plain arrays.
    const small = hostCsrFromEdgeList(kronecker({ scale: 3, seed: 3 })).csr;
    expect(small.edgeCount).toBeLessThanOrEqual(64);
    const one = uploadGraph(d, small);
    expect(one.chunked).toBe(false);
    expect(one.targets).toBe(one.chunkedTargets.single);
    one.requireUnchunked('anything');
    one.destroy();
  });
});
