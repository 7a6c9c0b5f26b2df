import { describe, expect, it } from 'vitest';
import { driPrimeTag, normalizePciBusId, pinnedTo } from './gpu-placement.ts';
import {
  InputError,
  listGpus,
  NoAdapterError,
  requestDevice,
  requestDevices,
  rw,
  transform,
  u32,
  wgsl,
} from './index.ts';

describe('requestDevices', () => {
  it('opens separate devices on one adapter where asked, each running its own kernels', async () => {
    const devices = await requestDevices({ count: 3, shareAdapter: true, label: 'part' });
    try {
      expect(devices).toHaveLength(3);
      expect(new Set(devices.map((d) => d.device)).size).toBe(3);
      expect(devices.map((d) => d.device.label)).toEqual(['part 0', 'part 1', 'part 2']);
      const n = 1000;
      const outs = await Promise.all(
        devices.map(async (d, i) => {
          const input = d.upload(Uint32Array.from({ length: n }, (_, k) => k * (i + 1)));
          const out = d.array('u32', n);
          await transform(d, n, wgsl`(k: u32) { ${rw(out)}[k] = ${input}[k] + ${u32(i)}; }`);
          return out.download();
        }),
      );
      outs.forEach((got, i) => {
        expect(got).toEqual(Uint32Array.from({ length: n }, (_, k) => k * (i + 1) + i));
      });
    } finally {
      for (const d of devices) d.destroy();
    }
  });

  it('refuses more devices than GPUs without shareAdapter, and bad counts', async () => {
    const gpus = listGpus();
    await expect(requestDevices({ count: gpus.length + 1 })).rejects.toThrow(NoAdapterError);
    await expect(requestDevices({ count: gpus.length + 1 })).rejects.toThrow(/shareAdapter/);
    for (const count of [0, -1, 1.5, Number.NaN]) {
      await expect(requestDevices({ count, shareAdapter: true })).rejects.toThrow(InputError);
    }
  });

  it('lists GPUs as normalized PCI addresses', () => {
    for (const id of listGpus()) expect(id).toBe(normalizePciBusId(id));
  });
});

describe('PCI addresses', () => {
  it('normalizes the forms nvidia-smi and lspci print', () => {
    expect(normalizePciBusId('00000000:00:07.0')).toBe('0000:00:07.0');
    expect(normalizePciBusId('0000:3B:00.1')).toBe('0000:3b:00.1');
    expect(normalizePciBusId('07:00.0')).toBe('0000:07:00.0');
    expect(normalizePciBusId(' 1:2:3.4 ')).toBe('0001:02:03.4');
    expect(driPrimeTag('0000:3b:00.1')).toBe('pci-0000_3b_00_1');
  });

  it('refuses malformed addresses in one line', () => {
    for (const bad of [
      '',
      'gpu0',
      '0000:00:07',
      '0000:00:07.8',
      '100000000:00:07.0',
      '1ffff:00:00.0',
      '0:0:0:0.0',
    ]) {
      expect(() => normalizePciBusId(bad)).toThrow(InputError);
    }
  });

  it('refuses to pin to a GPU the host does not have, leaving DRI_PRIME as it was', async () => {
    const absent = 'ffff:ff:1f.7';
    process.env['DRI_PRIME'] = 'kept';
    try {
      await expect(pinnedTo(absent, async () => 1)).rejects.toThrow(/no GPU at PCI address ffff:ff:1f.7/);
      await expect(requestDevice({ pciBusId: absent })).rejects.toThrow(InputError);
      await expect(requestDevices({ pciBusIds: [absent] })).rejects.toThrow(InputError);
      await expect(requestDevice({ pciBusId: 'nonsense' })).rejects.toThrow(InputError);
      expect(process.env['DRI_PRIME']).toBe('kept');
    } finally {
      delete process.env['DRI_PRIME'];
    }
    expect(await pinnedTo(undefined, async () => 7)).toBe(7);
  });
});

describe('validation: false', () => {
  it("adds Dawn's skip_validation to the options it was given (Node), and is refused on navigator.gpu", async () => {
    // Deno (wgpu) and browsers have navigator.gpu, which always validates: there the option is refused.
    if ((globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu) {
      await expect(requestDevice({ validation: false })).rejects.toThrow(InputError);
      return;
    }
    const device = await requestDevice({
      validation: false,
      dawnOptions: ['enable-dawn-features=disable_workgroup_init'],
    });
    try {
      expect(device.adapter.toggles).toEqual(['enable-dawn-features=disable_workgroup_init,skip_validation']);
      const out = device.array('u32', 300);
      await transform(device, 300, wgsl`(k: u32) { ${rw(out)}[k] = k * 3u; }`);
      expect(await out.download()).toEqual(Uint32Array.from({ length: 300 }, (_, k) => k * 3));
    } finally {
      device.destroy();
    }
    const plain = await requestDevice({ validation: false });
    try {
      expect(plain.adapter.toggles).toEqual(['enable-dawn-features=skip_validation']);
    } finally {
      plain.destroy();
    }
  });
});

describe('WeftDevice.bindGroup', () => {
  it('keeps one bind group per layout and buffer ranges, and drops the least recently used past its bound', async () => {
    const device = await requestDevice({ label: 'bind groups' });
    try {
      const layout = device.device.createBindGroupLayout({
        entries: [{ binding: 0, visibility: GPUShaderStage.COMPUTE, buffer: { type: 'storage' } }],
      });
      const [a, b] = [device.array('u32', 64), device.array('u32', 64)];
      const bind = (x: typeof a, size = x.bindingSize) =>
        device.bindGroup(layout, [{ binding: 0, buffer: x.buffer, offset: 0, size }], 'test');
      const first = bind(a);
      expect(bind(a)).toBe(first);
      expect(bind(b)).not.toBe(first);
      expect(bind(a, 128)).not.toBe(first);
      // Past the bound the oldest goes: `first` was used last before the flood, so it is made again.
      const others = Array.from({ length: 4100 }, () => device.array('u32', 4));
      for (const o of others) bind(o);
      expect(bind(a)).not.toBe(first);
    } finally {
      device.destroy();
    }
  });
});
