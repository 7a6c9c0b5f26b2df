import type { DeviceArray, ElementType, WeftDevice } from '@weft/gpu';
import { expectArrayEqual, randomU32, recordShaders, testDevice, wgslSnapshotFile } from '@weft/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { type SortOptions, sortedSearch, sortKeys, sortPairs } from './index.ts';
import { permute, referencePermutation } from './reference.ts';

function uploadAs(device: WeftDevice, type: ElementType, raw: Uint32Array): DeviceArray {
  const copy = raw.slice();
  if (type === 'u32') return device.upload(copy);
  if (type === 'i32') return device.upload(new Int32Array(copy.buffer));
  return device.upload(new Float32Array(copy.buffer));
}

async function bits(a: DeviceArray): Promise<Uint32Array> {
  const h = await a.download();
  return new Uint32Array(h.buffer, h.byteOffset, h.length);
}

// The WGSL of sorts (keys and pairs, both algorithms, the top-digit-first path, partial bits, f32 and
// descending order) and of sorted search, so a change to a shared helper shows in review. Snapshots are for
// the CI adapter (lavapipe): the tile shape depends on its subgroup sizes and workgroup memory. Update them
// with `pnpm exec vitest run -u`. One test per configuration (each compiles its own kernels); the last
// compares every module recorded.
describe('WGSL snapshot of sorts and sorted search', () => {
  let shaders: ReturnType<typeof recordShaders> | undefined;
  beforeAll(async () => {
    shaders = recordShaders(await testDevice());
  });
  const n = 20_000;
  const raw = randomU32(n, 8);
  const configs: { type: ElementType; options: SortOptions }[] = [
    { type: 'u32', options: { algorithm: 'onesweep' } },
    { type: 'u32', options: { algorithm: 'reduce-then-scan' } },
    { type: 'u32', options: { algorithm: 'reduce-then-scan', tuning: { topDigitFirst: true } } },
    { type: 'u32', options: { algorithm: 'onesweep', bits: 12 } },
    { type: 'f32', options: { algorithm: 'onesweep', descending: true } },
  ];
  for (const { type, options } of configs) {
    const what = `${type} ${JSON.stringify(options)}`;
    it(`sorts keys and pairs: ${what}`, async () => {
      const device = await testDevice();
      const perm = referencePermutation(type, raw, options.descending, options.bits);
      const keys = uploadAs(device, type, raw);
      await sortKeys(device, keys, options);
      expectArrayEqual(await bits(keys), permute(raw, perm), `${what}: keys`);
      const pairKeys = uploadAs(device, type, raw);
      const values = device.upload(Uint32Array.from(perm.keys()));
      await sortPairs(device, pairKeys, values, options);
      expectArrayEqual(await bits(pairKeys), permute(raw, perm), `${what}: pair keys`);
      expectArrayEqual(await bits(values), Uint32Array.from(perm), `${what}: pair values`);
      for (const a of [keys, pairKeys, values]) a.destroy();
    });
  }

  it('searches sorted arrays', async () => {
    const device = await testDevice();
    const hay = Uint32Array.from(randomU32(5000, 9)).sort();
    const needles = Uint32Array.from(randomU32(3000, 10)).sort();
    const lower = (x: number) => hay.findIndex((h) => h >= x);
    const out = device.array('u32', needles.length);
    for (const needlesSorted of [false, true]) {
      await sortedSearch(device, device.upload(needles), device.upload(hay), out, { needlesSorted });
      const want = Uint32Array.from(needles, (x) => (lower(x) < 0 ? hay.length : lower(x)));
      expectArrayEqual(await out.download(), want, `needlesSorted=${needlesSorted}`);
    }
  });

  it('generated the committed WGSL', async () => {
    await expect(shaders?.text()).toMatchFileSnapshot(wgslSnapshotFile('sort'));
  });
});
