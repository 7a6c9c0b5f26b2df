import { bitOr, type DeviceArray, max, min, plus, rw, wgsl } from '@weft/gpu';
import {
  expectArrayEqual,
  randomI32,
  randomU32,
  recordShaders,
  testDevice,
  wgslSnapshotFile,
} from '@weft/testing';
import { expect, it } from 'vitest';
import {
  exclusiveScan,
  hostMonoids,
  hostReduce,
  hostScan,
  inclusiveScan,
  reduce,
  transformScan,
  transformScanTo,
} from './index.ts';

// The WGSL of scans and reductions over each built-in monoid and type, so a change to a shared helper (or a
// monoid's identity) shows in review. Snapshots are for the CI adapter (lavapipe): the code depends on its
// subgroup sizes. Update them with `pnpm exec vitest run -u`.
it('generates the committed WGSL for scans and reductions', async () => {
  const device = await testDevice();
  const shaders = recordShaders(device);
  const F32_MAX = Math.fround(3.40282347e38);
  const n = 20_000; // several tiles, so the spine runs too
  const u = randomU32(n, 1);
  const s = randomI32(n, 2);
  // Small integers: every f32 sum below is exact, whatever the order.
  const f = Float32Array.from(randomU32(n, 3), (x) => (x % 64) - 32);
  const inputs = { u32: device.upload(u), i32: device.upload(s), f32: device.upload(f) };
  const hosts = { u32: u, i32: s, f32: f };
  const cases = [
    { m: plus('u32'), host: hostMonoids.plus('u32'), identity: 0 },
    { m: plus('i32'), host: hostMonoids.plus('i32'), identity: 0 },
    { m: plus('f32'), host: hostMonoids.plus('f32'), identity: 0 },
    { m: min('u32'), host: hostMonoids.min(), identity: 0xffffffff },
    { m: min('f32'), host: hostMonoids.min(), identity: F32_MAX },
    { m: max('i32'), host: hostMonoids.max(), identity: -(2 ** 31) },
    { m: max('f32'), host: hostMonoids.max(), identity: -F32_MAX },
    { m: bitOr('u32'), host: hostMonoids.bitOr('u32'), identity: 0 },
  ];
  for (const { m, host, identity } of cases) {
    const input = inputs[m.type] as DeviceArray;
    const out = device.array(m.type, n) as DeviceArray;
    for (const inclusive of [false, true]) {
      const scan = inclusive ? inclusiveScan : exclusiveScan;
      await scan(device, input as never, out as never, { monoid: m as never });
      const want = hostScan(hosts[m.type], host, identity, inclusive);
      expectArrayEqual(await out.download(), want, `${m.type} ${m.subgroup?.reduce} inclusive=${inclusive}`);
    }
    const total = device.array(m.type, 1) as DeviceArray;
    await reduce(device, input as never, total as never, { monoid: m as never });
    expect((await total.download())[0], m.type).toBe(hostReduce(hosts[m.type], host, identity));
    out.destroy();
    total.destroy();
  }

  const lengths = device.array('u32', n);
  await transformScan(device, n, wgsl`(i: u32) -> u32 { return i % 7u; }`, lengths, { inclusive: true });
  const sevens = Uint32Array.from({ length: n }, (_, i) => i % 7);
  expectArrayEqual(await lengths.download(), hostScan(sevens, hostMonoids.plus('u32'), 0, true));
  const kept = device.array('u32', n);
  await transformScanTo(
    device,
    n,
    wgsl`(i: u32) -> u32 { return u32(i % 3u == 0u); }`,
    wgsl`(i: u32, scanned: u32, value: u32) { if (value != 0u) { ${rw(kept)}[scanned] = i; } }`,
    { monoid: plus('u32') },
  );
  const thirds = Uint32Array.from({ length: Math.ceil(n / 3) }, (_, i) => 3 * i);
  expectArrayEqual((await kept.download()).subarray(0, thirds.length), thirds);
  await expect(shaders.text()).toMatchFileSnapshot(wgslSnapshotFile('scan', device));
});
