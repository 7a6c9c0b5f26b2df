import { rw, wgsl } from '@weft/gpu';
import { expectArrayEqual, randomU32, recordShaders, testDevice, wgslSnapshotFile } from '@weft/testing';
import { expect, it } from 'vitest';
import { compactArray, compactDownsweep, compactFused, compactUpsweep } from './index.ts';

// The WGSL of fused and two-phase compaction (host and GPU counts), so a change to a shared helper shows in
// review. Snapshots are for the CI adapter (lavapipe). Update them with `pnpm exec vitest run -u`.
it('generates the committed WGSL for compaction', async () => {
  const device = await testDevice();
  const shaders = recordShaders(device);
  const n = 50_000;
  const host = randomU32(n, 4);
  const input = device.upload(host);
  const out = device.array('u32', n);
  const kept = device.array('u32', 1);
  const keep = wgsl`(i: u32) -> bool { return ${input}[i] >= 0x80000000u; }`;
  const scatter = wgsl`(dest: u32, source: u32) { ${rw(out)}[dest] = source; }`;
  const want = Uint32Array.from(host.keys()).filter((i) => host[i]! >= 0x80000000);

  const plan = await compactUpsweep(device, n, keep);
  await compactDownsweep(device, plan, scatter);
  expectArrayEqual((await out.download()).subarray(0, want.length), want, 'two-phase');
  plan.destroy();

  await compactFused(device, n, keep, scatter, { array: kept, index: 0 });
  expect((await kept.download())[0]).toBe(want.length);
  expectArrayEqual((await out.download()).subarray(0, want.length), want, 'fused');

  const count = device.upload(new Uint32Array([n]));
  for (const fused of [false, true]) {
    await compactArray(
      device,
      input,
      out,
      keep,
      { array: kept, index: 0 },
      { count: { array: count, index: 0 }, fused },
    );
    const values = host.filter((x) => x >= 0x80000000);
    expectArrayEqual(
      (await out.download()).subarray(0, values.length),
      values,
      `compactArray fused=${fused}`,
    );
  }
  await expect(shaders.text()).toMatchFileSnapshot(wgslSnapshotFile('compact', device));
});
