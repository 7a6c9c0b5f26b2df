import { DeviceLimitError, InputError, requestDevice, requestDevices, type WeftDevice } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostCsr } from '../host-graph.ts';
import { defaultArcsPerPart, MAX_ARCS_PER_PART, type PartitionedGraph } from '../partition.ts';
import {
  type KroneckerOnDeviceOptions,
  philoxKroneckerMultigraph,
  philoxUniformMultigraph,
} from './counter-based.ts';
import {
  kroneckerMultigraphOnDevice,
  kroneckerMultigraphPartitioned,
  uniformMultigraphPartitioned,
} from './device-multigraph.ts';

// 256 bytes a chunk everywhere: 64 arcs, so parts of a few hundred arcs span several chunks (weights as many
// again), within lavapipe's 16 storage buffers a kernel.
let chunked: WeftDevice;
let devices: WeftDevice[] = [];
beforeAll(async () => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  chunked = await requestDevice({ label: 'partitioned multigraph', bindingBudget: 256 });
  devices = await requestDevices({
    count: 3,
    shareAdapter: true,
    label: 'partitioned multigraph',
    bindingBudget: 256,
  });
});
afterAll(() => {
  chunked?.destroy();
  for (const d of devices) d.destroy();
});

/** Row `v`'s arcs as sorted (target, weight) pairs. */
function row(csr: HostCsr, v: number): [number, number][] {
  const arcs: [number, number][] = [];
  for (let i = csr.offsets[v]!; i < csr.offsets[v + 1]!; i++)
    arcs.push([csr.targets[i]!, csr.weights?.[i] ?? 0]);
  return arcs.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
}

/** `target`, raised to the most arcs a 32-vertex block of `csr` holds (parts hold whole blocks). */
function budgetFor(csr: HostCsr, target: number): number {
  let most = target;
  for (let v = 0; v < csr.vertexCount; v += 32) {
    most = Math.max(most, csr.offsets[Math.min(v + 32, csr.vertexCount)]! - csr.offsets[v]!);
  }
  return most;
}

/**
 * Checks the parts against the host twin: contiguous ranges cut at multiples of 32, each within `budget`
 * arcs, bases adding up, and every vertex's arcs (as a multiset, with weights) in its owner only.
 */
async function expectParts(graph: PartitionedGraph, twin: HostCsr, budget: number): Promise<void> {
  try {
    const n = twin.vertexCount;
    expect(graph.vertexCount).toBe(n);
    expect(graph.edgeCount).toBe(twin.edgeCount);
    expect(graph.directed).toBe(false);
    let base = 0;
    const got: [number, number][] = [];
    const want: [number, number][] = [];
    for (const [i, p] of graph.parts.entries()) {
      expect(p.lo).toBe(i === 0 ? 0 : graph.parts[i - 1]!.hi);
      if (p.lo < n) expect(p.lo % 32).toBe(0);
      expect(p.base).toBe(base);
      expect(p.graph.edgeCount).toBeLessThanOrEqual(budget);
      base += p.graph.edgeCount;
      const host = await p.graph.toHost();
      expect(host.edgeCount).toBe(p.graph.edgeCount);
      expect(host.weights === undefined).toBe(twin.weights === undefined);
      for (let v = 0; v < n; v++) {
        const own = v >= p.lo && v < p.hi;
        if (!own) expect(host.offsets[v + 1]! - host.offsets[v]!, `part ${i} row ${v}`).toBe(0);
        else {
          got.push(...row(host, v));
          want.push(...row(twin, v));
        }
      }
    }
    expect(graph.parts[graph.parts.length - 1]!.hi).toBe(n);
    expect(base).toBe(twin.edgeCount);
    expectArrayEqual(got.flat(), want.flat(), 'arcs');
  } finally {
    graph.destroy();
  }
}

describe('kroneckerMultigraphPartitioned', () => {
  it('cuts within the arc budget, parts also chunked, and equals the host twin', async () => {
    for (const [scale, edgeFactor, weights, target] of [
      [5, 4, false, 100],
      [6, 2, true, 200],
      [7, 1, false, 100],
      [7, 2, true, 150],
      [8, 1, false, 300],
      [9, 1, true, 250],
    ] as const) {
      const o = { scale, edgeFactor, seed: 11 * scale + edgeFactor, weights };
      const twin = philoxKroneckerMultigraph(o);
      const budget = budgetFor(twin, target);
      const graph = await kroneckerMultigraphPartitioned([chunked], o, { maxArcsPerPart: budget });
      expect(graph.parts.length).toBeGreaterThanOrEqual(Math.ceil(twin.edgeCount / budget));
      expect(graph.parts.some((p) => p.graph.chunked)).toBe(true);
      await expectParts(graph, twin, budget);
    }
  });

  it('spreads parts round-robin over several devices, or keeps them all on one', async () => {
    const o = { scale: 9, edgeFactor: 1, seed: 5, weights: true } as const;
    const twin = philoxKroneckerMultigraph(o);
    const budget = budgetFor(twin, 150);
    const three = await kroneckerMultigraphPartitioned(devices, o, { maxArcsPerPart: budget });
    expect(three.parts.length).toBeGreaterThan(3);
    expect(three.parts.map((p) => p.graph.device)).toEqual(three.parts.map((_, i) => devices[i % 3]));
    await expectParts(three, twin, budget);
    // Without a budget, a part's targets take at most half a stage's storage buffers of 64-arc chunks (8
    // under Dawn's 16, so this graph splits past one part a device there; wgpu grants more).
    const fit = defaultArcsPerPart(devices.slice(0, 2));
    expect(fit).toBe(Math.floor(devices[0]!.limits.maxStorageBuffersPerShaderStage / 2) * 64);
    const even = await kroneckerMultigraphPartitioned(devices.slice(0, 2), o);
    expect(even.parts.length).toBeGreaterThanOrEqual(Math.max(2, Math.ceil(twin.edgeCount / fit)));
    await expectParts(even, twin, fit);
    // A budget past the graph: one part a device; `parts` asks for more than the budget needs.
    const two = await kroneckerMultigraphPartitioned(devices.slice(0, 2), o, {
      maxArcsPerPart: MAX_ARCS_PER_PART,
    });
    expect(two.parts).toHaveLength(2);
    await expectParts(two, twin, twin.edgeCount);
    const one = await kroneckerMultigraphPartitioned([devices[0]!], o, { parts: 3 });
    expect(one.parts).toHaveLength(3);
    expect(one.parts.every((p) => p.graph.device === devices[0])).toBe(true);
    await expectParts(one, twin, twin.edgeCount);
  });

  it('as one part is the unpartitioned build: the same offsets and rows', async () => {
    const o: KroneckerOnDeviceOptions = { scale: 6, edgeFactor: 5, seed: 2, weights: true };
    const whole = await kroneckerMultigraphOnDevice(chunked, o);
    const parted = await kroneckerMultigraphPartitioned([chunked], o, { maxArcsPerPart: MAX_ARCS_PER_PART });
    try {
      expect(parted.parts).toHaveLength(1);
      expect(parted.parts[0]).toMatchObject({ lo: 0, hi: 64, base: 0 });
      const [a, b] = [await whole.toHost(), await parted.parts[0]!.graph.toHost()];
      expectArrayEqual(b.offsets, a.offsets, 'offsets');
      for (let v = 0; v < 64; v++) expect(row(b, v)).toEqual(row(a, v));
    } finally {
      whole.destroy();
      parted.destroy();
    }
  });

  it('handles empty graphs, one vertex and hubs, and the uniform generator', async () => {
    for (const o of [
      { scale: 0, edgeFactor: 5, seed: 1 },
      { scale: 6, edgeFactor: 0, seed: 1 },
    ]) {
      const graph = await kroneckerMultigraphPartitioned(devices, o, { maxArcsPerPart: 1 });
      expect(graph.parts).toHaveLength(3);
      await expectParts(graph, philoxKroneckerMultigraph(o), 1);
    }
    // A skewed initiator without relabelling: vertex 0 is a hub of about a third of the arcs.
    const hub = { scale: 8, edgeFactor: 2, seed: 4, a: 0.7, b: 0.1, c: 0.1, permute: false };
    const twin = philoxKroneckerMultigraph(hub);
    const budget = budgetFor(twin, 100);
    const parted = await kroneckerMultigraphPartitioned(devices, hub, { maxArcsPerPart: budget });
    expect(parted.parts.length).toBeGreaterThan(1);
    await expectParts(parted, twin, budget);
    const u = { scale: 8, edgeFactor: 2, seed: 6, weights: [3, 9] as const };
    const uniform = await uniformMultigraphPartitioned([chunked], u, { maxArcsPerPart: 200 });
    expect(uniform.parts.length).toBeGreaterThan(4);
    await expectParts(uniform, philoxUniformMultigraph(u), 200);
  });

  it('refuses a 32-vertex block above the budget in one line, leaving nothing allocated', async () => {
    const hub = { scale: 6, edgeFactor: 4, seed: 4, a: 0.9, b: 0.05, c: 0.05, permute: false };
    const live = chunked.pool.stats.liveBytes;
    const err = await kroneckerMultigraphPartitioned([chunked], hub, { maxArcsPerPart: 100 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DeviceLimitError);
    expect((err as Error).message).toMatch(
      /^kroneckerMultigraphPartitioned: the arcs of vertices \[0, 32\) needs \d+ but maxArcsPerPart is 100/,
    );
    expect((err as Error).message).not.toMatch(/\n/);
    expect(chunked.pool.stats.liveBytes).toBe(live);
    for (const split of [{ maxArcsPerPart: 0 }, { maxArcsPerPart: 2 ** 32 }, { parts: 0 }, { parts: 1.5 }]) {
      await expect(kroneckerMultigraphPartitioned([chunked], hub, split)).rejects.toThrow(InputError);
    }
    await expect(kroneckerMultigraphPartitioned([], hub)).rejects.toThrow(/needs at least one device/);
  });
});
