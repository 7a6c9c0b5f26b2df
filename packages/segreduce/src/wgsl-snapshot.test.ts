import { bitOr, type DeviceArray, type Monoid, max, min, plus, wgsl } from '@weft/gpu';
import {
  expectArrayEqual,
  randomU32,
  recordShaders,
  skewedLengths,
  testDevice,
  wgslSnapshotFile,
} from '@weft/testing';
import { expect, it } from 'vitest';
import { segmentedReduce, transformSegreduce } from './index.ts';
import { type HostMonoid, hostMonoids, offsetsOf, segreduceReference } from './reference.ts';

// The WGSL of segmented reductions (each tile path, atomic and compare-exchange fix-ups, both value sources),
// so a change to a shared helper (merge path, a monoid's identity) shows in review. Snapshots are for the CI
// adapter (lavapipe). Update them with `pnpm exec vitest run -u`.
it('generates the committed WGSL for segmented reductions', async () => {
  const device = await testDevice();
  const shaders = recordShaders(device);
  const lengths = skewedLengths(3000, 40_000, 7);
  lengths[5] = 0;
  const { offsets, count } = offsetsOf(lengths);
  const segments = lengths.length;
  const u = Uint32Array.from(randomU32(count, 1), (x) => x % 1000);
  const f = Float32Array.from(u, (x) => x - 500);
  const off = device.upload(offsets);
  const values = { u32: device.upload(u), f32: device.upload(f) };
  const hostValues = { u32: u, f32: f };
  const cases: { m: Monoid; host: HostMonoid; paths: { subgroups?: boolean; prefixSums?: boolean }[] }[] = [
    {
      m: plus('u32'),
      host: hostMonoids['plus u32'],
      paths: [{}, { prefixSums: false }, { subgroups: false, prefixSums: false }],
    },
    { m: plus('f32'), host: hostMonoids['plus f32'], paths: [{}] },
    { m: min('f32'), host: hostMonoids['min f32'], paths: [{}] },
    { m: max('f32'), host: hostMonoids['max f32'], paths: [{}] },
    { m: max('u32'), host: hostMonoids['max u32'], paths: [{}] },
    { m: bitOr('u32'), host: { identity: 0, combine: (a, b) => (a | b) >>> 0 }, paths: [{}] },
  ];
  for (const { m, host, paths } of cases) {
    const type = m.type as 'u32' | 'f32';
    const want = segreduceReference(count, offsets, segments, (i) => hostValues[type][i]!, host);
    for (const path of paths) {
      const out = device.array(type, segments) as DeviceArray;
      await segmentedReduce(device, values[type] as never, off, segments, out as never, {
        monoid: m as never,
        ...path,
      });
      expectArrayEqual(await out.download(), want, `${type} ${JSON.stringify(path)}`);
      out.destroy();
    }
  }
  const out = device.array('u32', segments);
  await transformSegreduce(
    device,
    count,
    off,
    segments,
    wgsl`(index: u32, seg: u32, rank: u32) -> u32 { return ${values.u32}[index] + rank; }`,
    out,
  );
  const want = segreduceReference(count, offsets, segments, (i, _s, r) => u[i]! + r, hostMonoids['plus u32']);
  expectArrayEqual(await out.download(), want);
  await expect(shaders.text()).toMatchFileSnapshot(wgslSnapshotFile('segreduce', device));
});
