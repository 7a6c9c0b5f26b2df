import { expectArrayEqual, recordShaders, testDevice } from '@weft/testing';
import { expect, it } from 'vitest';
import { copy, f32, map, rw, transform, u32, wgsl } from './index.ts';

// The WGSL of transform, map and copy, so a change to the prelude or the kernel generator shows in review.
// Snapshots are for the CI adapter (lavapipe); update them with `pnpm exec vitest run -u`.
it('generates the committed WGSL for transform, map and copy', async () => {
  const device = await testDevice();
  const shaders = recordShaders(device);
  const n = 1000;
  const a = device.upload(Uint32Array.from({ length: n }, (_, i) => i));
  const out = device.array('u32', n);
  await transform(device, n, wgsl`(i: u32) { ${rw(out)}[i] = ${a}[i] * 3u + ${u32(7)}; }`);
  expectArrayEqual(
    await out.download(),
    Uint32Array.from({ length: n }, (_, i) => i * 3 + 7),
  );

  const f = device.array('f32', n);
  await map(device, n, wgsl`(i: u32) -> f32 { return f32(i) * ${f32(0.5)}; }`, f);
  expectArrayEqual(
    await f.download(),
    Float32Array.from({ length: n }, (_, i) => i * 0.5),
  );
  const count = device.upload(new Uint32Array([10]));
  await map(device, { array: count, index: 0 }, wgsl`(i: u32) -> u32 { return i + 1u; }`, out);
  expectArrayEqual(
    (await out.download()).subarray(0, 10),
    Uint32Array.from({ length: 10 }, (_, i) => i + 1),
  );

  const b = device.array('u32', n);
  await copy(device, a, b);
  expectArrayEqual(await b.download(), await a.download());
  await expect(shaders.text()).toMatchFileSnapshot('./__snapshots__/transform.wgsl');
});
