import { InputError } from '@weft/gpu';
import { expectArrayEqual } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { kronecker } from '../generators/kronecker.ts';
import { hostCsrFromEdgeList } from '../host-build.ts';
import type { HostCsr } from '../host-graph.ts';
import { readBinaryCsr, writeBinaryCsr } from './binary-csr.ts';
import { crc32 } from './crc32.ts';
import { bytesSource } from './lines.ts';

const read = (bytes: Uint8Array, chunk = 1 << 20, byteLength?: number) =>
  readBinaryCsr(
    bytesSource(bytes, chunk),
    byteLength === undefined ? { name: 'g.wcsr' } : { name: 'g.wcsr', byteLength },
  );

function expectSameCsr(a: HostCsr, b: HostCsr) {
  expect(a.vertexCount).toBe(b.vertexCount);
  expect(a.edgeCount).toBe(b.edgeCount);
  expect(a.directed).toBe(b.directed);
  expectArrayEqual(a.offsets, b.offsets, 'offsets');
  expectArrayEqual(a.targets, b.targets, 'targets');
  if (b.weights === undefined) expect(a.weights).toBeUndefined();
  else {
    expect(a.weights?.constructor).toBe(b.weights.constructor);
    expectArrayEqual(a.weights!, b.weights, 'weights');
  }
}

/** Rewrites the trailing checksum so that only structural validation can catch an edit. */
function resealed(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  new DataView(out.buffer).setUint32(out.length - 4, crc32(0, out.subarray(0, out.length - 4)), true);
  return out;
}

const small: HostCsr = {
  vertexCount: 3,
  edgeCount: 3,
  offsets: new Uint32Array([0, 2, 2, 3]),
  targets: new Uint32Array([1, 2, 0]),
  weights: new Float32Array([0.5, -1, 3]),
  directed: true,
};

describe('binary CSR', () => {
  it('round-trips weighted (f32, u32, i32), unweighted and empty graphs for any chunking', async () => {
    const { csr: kron } = hostCsrFromEdgeList(kronecker({ scale: 10, seed: 5, weights: true }));
    const graphs: HostCsr[] = [
      small,
      { ...small, weights: new Int32Array([-5, 0, 2 ** 31 - 1]), directed: false },
      kron,
      {
        vertexCount: 0,
        edgeCount: 0,
        offsets: new Uint32Array(1),
        targets: new Uint32Array(0),
        directed: true,
      },
      {
        vertexCount: 4,
        edgeCount: 0,
        offsets: new Uint32Array(5),
        targets: new Uint32Array(0),
        directed: false,
      },
    ];
    const { weights: _, ...unweighted } = small;
    graphs.push(unweighted);
    for (const g of graphs) {
      const bytes = writeBinaryCsr(g);
      expect(bytes.length).toBe(32 + 4 * (g.vertexCount + 1) + 4 * g.edgeCount * (g.weights ? 2 : 1) + 4);
      for (const chunk of g.edgeCount > 1000 ? [4093, 1 << 20] : [1, 3, 1 << 20]) {
        expectSameCsr(await read(bytes, chunk, bytes.length), g);
      }
    }
  });

  it('detects every single-byte corruption of a small file', async () => {
    const bytes = writeBinaryCsr(small);
    for (let i = 0; i < bytes.length; i++) {
      const bad = bytes.slice();
      bad[i]! ^= 0x10;
      const err = await read(bad, 7).catch((e: unknown) => e);
      expect(err, `byte ${i}`).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(/g\.wcsr: byte \d+: /);
    }
  });

  const bytes = writeBinaryCsr(small);
  const edit = (at: number, value: number) => {
    const b = bytes.slice();
    new DataView(b.buffer).setUint32(at, value, true);
    return resealed(b);
  };
  const cases: [string, () => Uint8Array, RegExp][] = [
    ['bad magic', () => resealed(new Uint8Array([0x58, ...bytes.subarray(1)])), /byte 0: bad magic/],
    ['a newer version', () => edit(8, 2), /byte 8: unsupported version 2/],
    ['unknown flags', () => edit(12, 0x31), /byte 12: bad flags 0x31/],
    ['checksum mismatch', () => bytes.map((b, i) => (i === 40 ? b + 1 : b)), /byte 72: checksum mismatch/],
    ['decreasing offsets', () => edit(36, 3), /byte 40: offsets\[2\] = 2 is below offsets\[1\] = 3/],
    ['wrong last offset', () => edit(44, 2), /byte 44: offsets\[3\] is 2, expected the edge count 3/],
    ['first offset', () => edit(32, 1), /byte 32: offsets\[0\] is 1/],
    ['target out of range', () => edit(52, 3), /byte 52: targets\[1\] = 3 is not below the vertex count 3/],
    [
      'truncation',
      () => bytes.subarray(0, 50),
      /byte 50: the file ends at byte 50 but the header implies 76 bytes/,
    ],
    ['truncated header', () => bytes.subarray(0, 20), /byte 20: the file ends inside the 32-byte header/],
    ['trailing bytes', () => new Uint8Array([...bytes, 0]), /byte 76: extra bytes after the checksum/],
    [
      'a huge edge count',
      () => edit(24, 0xffffffff),
      /byte 16: the header implies \d+ bytes but the file has 76/,
    ],
  ];
  for (const [what, make, message] of cases) {
    it(`rejects ${what} naming the byte`, async () => {
      const b = make();
      const err = await read(b, 5, what === 'a huge edge count' ? 76 : undefined).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(message);
    });
  }
});
