import { InputError, requestDevice, type WeftDevice } from '@weft/gpu';
import { expectArrayEqual, mulberry32 } from '@weft/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { uploadGraph } from './device-graph.ts';
import { kronecker } from './generators/kronecker.ts';
import { hostCsrFromEdgeList } from './host-build.ts';
import type { HostCsr } from './host-graph.ts';
import { readBinaryCsr, writeBinaryCsr } from './io/binary-csr.ts';
import { bytesSource } from './io/lines.ts';
import { uploadBinaryCsr } from './upload-binary-csr.ts';

// 256 bytes a binding: 64 edges a chunk, so the Kronecker graphs below span several chunks.
const devices: Promise<WeftDevice>[] = [];
const device = (bindingBudget?: number) => {
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  const d = requestDevice({ label: 'wcsr upload', ...(bindingBudget ? { bindingBudget } : {}) });
  devices.push(d);
  return d;
};
afterAll(async () => {
  for (const d of devices) (await d).destroy();
});

function graphs(): [string, HostCsr][] {
  const kron = (seed: number, directed: boolean, weights?: 'u32' | 'f32' | 'i32') => {
    const e = kronecker({ scale: 6, seed, ...(weights ? { weights: true } : {}) });
    const w =
      weights === 'f32'
        ? Float32Array.from(e.weights!, (x) => x / 7)
        : weights === 'i32'
          ? Int32Array.from(e.weights!, (x) => x - 100)
          : e.weights;
    return hostCsrFromEdgeList({ ...e, directed, ...(w ? { weights: w } : {}) }).csr;
  };
  return [
    [
      'empty',
      hostCsrFromEdgeList({
        vertexCount: 0,
        src: new Uint32Array(0),
        dst: new Uint32Array(0),
        directed: false,
      }).csr,
    ],
    [
      'edgeless',
      hostCsrFromEdgeList({
        vertexCount: 5,
        src: new Uint32Array(0),
        dst: new Uint32Array(0),
        directed: true,
      }).csr,
    ],
    ['kronecker 6', kron(1, false)],
    ['kronecker 6, u32 weights, directed', kron(2, true, 'u32')],
    ['kronecker 6, f32 weights', kron(3, false, 'f32')],
    ['kronecker 6, i32 weights, directed', kron(4, true, 'i32')],
  ];
}

describe('uploadBinaryCsr', () => {
  it('streams every graph to the GPU as uploadGraph puts it there, in one binding or in chunks', async () => {
    for (const budget of [undefined, 256]) {
      const d = await device(budget);
      for (const [name, csr] of graphs()) {
        const bytes = writeBinaryCsr(csr);
        // Odd source chunks and a 12-byte stage split words and sections at every boundary.
        for (const [chunk, stageBytes] of [
          [7, 12],
          [1 << 20, undefined],
        ] as const) {
          const what = `${name}, budget ${budget ?? 'default'}, chunks of ${chunk}`;
          const live = d.pool.stats.liveBytes;
          const { graph, offsets } = await uploadBinaryCsr(d, bytesSource(bytes, chunk), {
            // A chunked directed graph has no GPU-built in-edge view (the last test checks the refusal).
            csc: !(budget !== undefined && csr.directed && csr.edgeCount > 64),
            ...(stageBytes ? { stageBytes } : {}),
          });
          expectArrayEqual(offsets, csr.offsets, `${what}: host offsets`);
          const back = await graph.toHost();
          expect(back.directed, what).toBe(csr.directed);
          expectArrayEqual(back.offsets, csr.offsets, `${what}: offsets`);
          expectArrayEqual(back.targets, csr.targets, `${what}: targets`);
          if (csr.weights) {
            expect(back.weights?.constructor, what).toBe(csr.weights.constructor);
            expectArrayEqual(back.weights!, csr.weights, `${what}: weights`);
          } else expect(back.weights, what).toBeUndefined();
          expect(graph.chunked, what).toBe(budget !== undefined && csr.edgeCount > 64);
          if (csr.directed && !graph.chunked) {
            // The in-edge view built on the GPU equals the host-built one.
            const want = uploadGraph(d, csr, { csc: true });
            for (const k of ['inOffsets', 'sources', 'inEdgeIds'] as const) {
              const n = k === 'inOffsets' ? csr.vertexCount + 1 : csr.edgeCount;
              if (n === 0) continue;
              expectArrayEqual(
                await graph.csc![k].download(0, n),
                await want.csc![k].download(0, n),
                `${what}: ${k}`,
              );
            }
            want.destroy();
          } else if (!csr.directed) expect(graph.csc, what).toBeUndefined();
          graph.destroy();
          expect(d.pool.stats.liveBytes, `${what}: freed`).toBe(live);
        }
      }
    }
  });

  it('refuses what readBinaryCsr refuses, with the same message, leaving nothing allocated', async () => {
    const d = await device(256);
    const csr = graphs()[3]![1];
    const good = writeBinaryCsr(csr);
    const n = csr.vertexCount;
    const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
    const targetsAt = 32 + 4 * (n + 1);
    const random = mulberry32(5);
    const corrupt: [string, (b: Uint8Array) => Uint8Array][] = [
      [
        'a flipped byte',
        (b) => {
          b[40 + Math.floor(random() * 100)]! ^= 0x10;
          return b;
        },
      ],
      ['truncated', (b) => b.subarray(0, b.length - 9)],
      ['extra bytes', (b) => Uint8Array.from([...b, 0])],
      [
        'bad magic',
        (b) => {
          b[0] = 0;
          return b;
        },
      ],
    ];
    // Values the checksum agrees with: rewrite them and the CRC, as a buggy writer would.
    const rewritten = (edit: (c: HostCsr) => void) => () => {
      const copy = { ...csr, offsets: csr.offsets.slice(), targets: csr.targets.slice() };
      edit(copy);
      return writeBinaryCsr(copy);
    };
    const valueErrors: [string, () => Uint8Array][] = [
      ['a target past the vertices', rewritten((c) => (c.targets[c.edgeCount - 3] = n + 4))],
      ['offsets going down', rewritten((c) => (c.offsets[5] = c.offsets[6]! + 1))],
    ];
    expect(view(good).getUint32(targetsAt, true)).toBe(csr.targets[0]);
    const cases = [...corrupt.map(([what, f]) => [what, () => f(good.slice())] as const), ...valueErrors];
    for (const [what, make] of cases) {
      const bytes = make();
      const want = await readBinaryCsr(bytesSource(bytes, 13), { name: 'g.wcsr' }).catch((e: unknown) => e);
      expect(want, what).toBeInstanceOf(InputError);
      const live = d.pool.stats.liveBytes;
      const got = await uploadBinaryCsr(d, bytesSource(bytes, 13), { name: 'g.wcsr', stageBytes: 16 }).catch(
        (e: unknown) => e,
      );
      expect(got, what).toBeInstanceOf(InputError);
      expect((got as Error).message, what).toBe((want as Error).message);
      expect(d.pool.stats.liveBytes, `${what}: nothing left`).toBe(live);
    }
    // A directed graph past one binding has no GPU-built in-edge view: refused before allocating.
    const live = d.pool.stats.liveBytes;
    await expect(uploadBinaryCsr(d, bytesSource(good), { csc: true })).rejects.toThrow(/in-edge view/);
    await expect(uploadBinaryCsr(d, bytesSource(good), { stageBytes: 6 })).rejects.toThrow(/stageBytes/);
    expect(d.pool.stats.liveBytes).toBe(live);
  });
});
