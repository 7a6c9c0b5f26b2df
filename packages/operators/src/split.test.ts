import { InputError, wgsl } from '@weft/gpu';
import { FrontierQueue } from '@weft/graph';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { splitFrontier } from './filter.ts';

/** The priority both sides compute: a hash of the vertex id below 1000. */
const hostPriority = (v: number) => (Math.imul(v, 2654435761) >>> 0) % 1000;

describe('splitFrontier (near / far)', () => {
  for (const length of [0, 1, 255, 256, 257, 5000, 70_000]) {
    it(`${length} vertices (duplicates included), host and GPU thresholds, four rounds (stale sinks)`, () =>
      gpuTest(async (device) => {
        const n = 100_000;
        const r = mulberry32(length + 1);
        const sized = (label: string) =>
          new FrontierQueue(device, n, { sizeMultiplier: Math.max(1, length) / n, label });
        const input = sized('input');
        const near = sized('near');
        const far = sized('far');
        const threshold = device.upload(Uint32Array.of(0));
        const priority = wgsl`(v: u32) -> u32 { return (v * 2654435761u) % 1000u; }`;
        for (const [round, t] of [
          [0, 300],
          [1, 0],
          [2, 1000],
          [3, 731],
        ] as const) {
          const vertices = Array.from({ length }, () => Math.floor(r() * n));
          if (length > 3) vertices[3] = vertices[1]!;
          input.set(vertices);
          threshold.upload([t]);
          // Rounds alternate a host threshold and one read on the GPU.
          const limit = round % 2 === 0 ? t : { array: threshold, index: 0 };
          await splitFrontier(device, input.current, priority, limit, near.next, far.next);
          near.swap();
          far.swap();
          const wantNear = vertices.filter((v) => hostPriority(v) < t);
          const wantFar = vertices.filter((v) => hostPriority(v) >= t);
          expectArrayEqual(await near.toArray(), wantNear, `near, threshold ${t}`);
          expectArrayEqual(await far.toArray(), wantFar, `far, threshold ${t}`);
        }
        for (const a of [input, near, far, threshold]) a.destroy();
      }));
  }

  it('splits by f32 priorities through their bits; refuses one sink twice and a small sink', () =>
    gpuTest(async (device) => {
      const dist = Float32Array.from({ length: 600 }, (_, i) => (i % 7) * 0.75);
      const values = device.upload(dist);
      const input = new FrontierQueue(device, 600);
      input.set(Array.from({ length: 600 }, (_, i) => 599 - i));
      const near = new FrontierQueue(device, 600);
      const far = new FrontierQueue(device, 600);
      const threshold = new Uint32Array(Float32Array.of(2.5).buffer)[0]!;
      const priority = wgsl`(v: u32) -> u32 { return bitcast<u32>(${values}[v]); }`;
      await splitFrontier(device, input.current, priority, threshold, near.next, far.next);
      near.swap();
      far.swap();
      const order = Array.from({ length: 600 }, (_, i) => 599 - i);
      expectArrayEqual(
        await near.toArray(),
        order.filter((v) => dist[v]! < 2.5),
        'near',
      );
      expectArrayEqual(
        await far.toArray(),
        order.filter((v) => dist[v]! >= 2.5),
        'far',
      );
      await expect(splitFrontier(device, input.current, priority, 1, near.next, near.next)).rejects.toThrow(
        InputError,
      );
      const small = new FrontierQueue(device, 10);
      await expect(splitFrontier(device, input.current, priority, 1, small.next, far.next)).rejects.toThrow(
        /cannot hold/,
      );
      for (const a of [values, input, near, far, small]) a.destroy();
    }));
});
