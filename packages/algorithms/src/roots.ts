import { type DeviceArray, plus, rw, u32, wgsl } from '@weft/gpu';
import { transformScanTo } from '@weft/scan';

/**
 * How many of the first `n` labels are their own vertex's (the components), counted on the GPU: on the GPU
 * machines' hosts a JS loop over 33 M labels took 260-340 ms, as long as the whole search.
 */
export async function countRoots(labels: DeviceArray<'u32'>, n: number): Promise<number> {
  if (n === 0) return 0;
  const device = labels.device;
  const total = device.array('u32', 1, { label: 'component count' });
  try {
    const rec = device.recorder({ label: 'count components' });
    await transformScanTo(
      rec,
      n,
      wgsl`(i: u32) -> u32 { return select(0u, 1u, ${labels}[i] == i); }`,
      wgsl`(i: u32, start: u32, count: u32) {
  if (i + 1u == ${u32(n)}) { ${rw(total)}[0] = start + count; }
}`,
      { monoid: plus('u32') },
    );
    await rec.submit({ wait: false });
    return (await total.download())[0]!;
  } finally {
    total.destroy();
  }
}
