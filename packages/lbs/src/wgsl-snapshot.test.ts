import { rw, wgsl } from '@weft/gpu';
import { expectArrayEqual, randomU32, recordShaders, skewedLengths, testDevice } from '@weft/testing';
import { expect, it } from 'vitest';
import { intervalExpand, loadBalancedSearch, transformLbs } from './index.ts';
import { forEachItem, offsetsOf } from './reference.ts';

// The WGSL of load-balanced search, interval expand and transformLbs (host and GPU counts), so a change to
// the merge-path helpers shows in review. Snapshots are for the CI adapter (lavapipe). Update them with
// `pnpm exec vitest run -u`.
it('generates the committed WGSL for load-balanced search', async () => {
  const device = await testDevice();
  const shaders = recordShaders(device);
  const lengths = skewedLengths(2000, 30_000, 5);
  lengths[3] = 0;
  const { offsets, count } = offsetsOf(lengths);
  const segments = lengths.length;
  const off = device.upload(offsets);
  const wantSeg = new Uint32Array(count);
  const wantRank = new Uint32Array(count);
  forEachItem(count, offsets, segments, (i, s, r) => {
    wantSeg[i] = s;
    wantRank[i] = r;
  });

  const out = device.array('u32', count);
  await loadBalancedSearch(device, count, off, segments, out);
  expectArrayEqual(await out.download(), wantSeg, 'host counts');
  const counts = device.upload(new Uint32Array([count, segments]));
  await loadBalancedSearch(device, { array: counts, index: 0 }, off, { array: counts, index: 1 }, out);
  expectArrayEqual(await out.download(), wantSeg, 'GPU counts');

  const segValues = randomU32(segments, 9);
  const values = device.upload(segValues);
  await intervalExpand(device, count, off, segments, values, out);
  expectArrayEqual(
    await out.download(),
    Uint32Array.from(wantSeg, (s) => segValues[s]!),
  );

  await transformLbs(
    device,
    count,
    off,
    segments,
    wgsl`(index: u32, seg: u32, rank: u32) { ${rw(out)}[index] = rank; }`,
  );
  expectArrayEqual(await out.download(), wantRank);
  await expect(shaders.text()).toMatchFileSnapshot('./__snapshots__/lbs.wgsl');
});
