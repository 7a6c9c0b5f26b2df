import { gpuTest, randomU32, testDevice } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import {
  atomic,
  type DeviceArray,
  DeviceLimitError,
  DeviceLostError,
  DeviceMismatchError,
  GpuValidationError,
  InputError,
  MAX_TIMED_DISPATCHES,
  requestDevice,
  rw,
  ShaderCompileError,
  sizeClass,
  transform,
  u32,
  wgsl,
  wrapDevice,
} from './index.ts';

describe('device', () => {
  it('requests the adapter maxima and reports the adapter', async () => {
    const device = await testDevice();
    const r = device.adapter;
    // Deno (wgpu) and browsers have navigator.gpu; Node takes Dawn from the webgpu package.
    const engine = (globalThis as { navigator?: { gpu?: unknown } }).navigator?.gpu;
    expect(r.source).toBe(engine ? 'navigator.gpu' : 'node-webgpu');
    expect(r.limits['maxStorageBufferBindingSize']).toBeGreaterThanOrEqual(128 * 2 ** 20);
    expect(r.limits['maxStorageBuffersPerShaderStage']).toBeGreaterThanOrEqual(8);
    expect(r.vendor.length + r.architecture.length).toBeGreaterThan(0);
    expect(device.hasSubgroups).toBe(r.features.includes('subgroups'));
    if (process.env['CI']) expect(r.software).toBe(true);
  });

  it('caps limits on request and names a kernel that binds more storage buffers than the device allows', async () => {
    const device = await requestDevice({ label: 'capped', limits: { maxStorageBuffersPerShaderStage: 8 } });
    try {
      expect(device.limits.maxStorageBuffersPerShaderStage).toBe(8);
      const arrays = Array.from({ length: 9 }, () => device.array('u32', 4));
      const sum = arrays.slice(1).map((a) => wgsl`${a}[i]`);
      const body = sum.reduce((acc, term) => wgsl`${acc} + ${term}`);
      const nine = wgsl`(i: u32) { ${rw(arrays[0]!)}[i] = ${body}; }`;
      await expect(transform(device, 4, nine)).rejects.toThrow(
        /kernel 'transform' \(storage buffers\) needs 9 but maxStorageBuffersPerShaderStage is 8/,
      );
      await expect(transform(device, 4, nine)).rejects.toThrow(DeviceLimitError);
      const eight = wgsl`(i: u32) { ${rw(arrays[0]!)}[i] = ${arrays[1]!}[i]; }`;
      await arrays[1]!.upload([1, 2, 3, 4]);
      await transform(device, 4, eight);
      expect([...(await arrays[0]!.download())]).toEqual([1, 2, 3, 4]);
      await expect(requestDevice({ limits: { noSuchLimit: 1 } })).rejects.toThrow(InputError);
    } finally {
      device.destroy();
    }
  });

  it('round-trips typed arrays and rejects out-of-range uploads', async () => {
    await gpuTest(async (device) => {
      const i = device.upload(new Int32Array([-5, 0, 2 ** 31 - 1]));
      expect([...(await i.download())]).toEqual([-5, 0, 2 ** 31 - 1]);
      const f = device.upload(new Float32Array([1.5, -0, Number.POSITIVE_INFINITY]));
      expect([...(await f.download())]).toEqual([1.5, -0, Number.POSITIVE_INFINITY]);
      const u = device.array('u32', 10).upload([7, 8], 8);
      expect([...(await u.download(8, 2))]).toEqual([7, 8]);
      expect(() => u.upload([1, 2, 3], 8)).toThrow(InputError);
      await expect(u.download(5, 6)).rejects.toThrow(InputError);
      const empty = device.array('u32', 0);
      expect((await empty.download()).length).toBe(0);
      u.destroy();
      expect(() => u.upload([1])).toThrow(/destroyed/);
      await (await device.array('f32', 300).fill(2.5))
        .download()
        .then((x) => expect(x.every((v) => v === 2.5)).toBe(true));
    });
  });

  it('hands mapped bytes of any 4-aligned range to a callback, and readBytes copies them', async () => {
    await gpuTest(async (device) => {
      const data = randomU32(37, 5);
      const a = device.upload(data, { label: 'words' });
      const bytes = new Uint8Array(data.buffer);
      for (const [offset, size] of [
        [0, 148],
        [0, 0],
        [4, 1],
        [8, 6],
        [144, 4],
        [20, 101],
      ] as const) {
        const want = [...bytes.subarray(offset, offset + size)];
        expect(await device.readMapped(a.buffer, offset, size, (v) => [...v]), `${offset}+${size}`).toEqual(
          want,
        );
        const copy = await device.readBytes(a.buffer, offset, size);
        expect([...new Uint8Array(copy)], `readBytes ${offset}+${size}`).toEqual(want);
      }
      const kept = await device.readMapped(a.buffer, 0, 8, (v) => v);
      expect(kept.length).toBe(0);
      // Named by the buffer's label, whatever the engine kept of it (wgpu keeps a pooled buffer's first).
      const label = a.buffer.label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      await expect(device.readMapped(a.buffer, 0, 8, async () => 0)).rejects.toThrow(
        new RegExp(`buffer '${label}'.*Promise`),
      );
      await expect(device.readMapped(a.buffer, 0, 8, async () => 0, 'the ranks')).rejects.toThrow(
        /^the ranks: /,
      );
      a.destroy();
    });
  });

  it('reuses pooled buffers by size class', async () => {
    const device = await testDevice();
    const a = device.array('u32', 1000);
    const buffer = a.buffer;
    a.destroy();
    const b = device.array('u32', 1001);
    expect(b.buffer).toBe(buffer);
    b.destroy();
    expect(sizeClass(1)).toBe(256);
    expect(sizeClass(1025)).toBeGreaterThanOrEqual(1025);
    expect(sizeClass(1025)).toBeLessThanOrEqual(1025 * 1.25 + 256);
  });

  it('raises WGSL compile errors with the generated source line', async () => {
    const device = await testDevice();
    const out = device.array('u32', 4);
    const bad = wgsl`(i: u32) { ${out}[i] = undefined_name; }`;
    const err = await transform(device, 4, bad).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ShaderCompileError);
    expect((err as Error).message).toMatch(/undefined_name/);
    expect((err as Error).message).toMatch(/line \d+/);
  });

  it('turns validation errors into exceptions', async () => {
    const device = await testDevice();
    const a = device.array('u32', 16);
    // Binding one array as atomic and another view as plain read_write in one kernel: writable aliasing.
    const rec = device.recorder({ label: 'aliasing' });
    const k = await device.kernel({
      label: 'alias',
      bindings: {
        x: { type: 'array<u32>', access: 'read_write' },
        y: { type: 'array<u32>', access: 'read_write' },
      },
      code: '@compute @workgroup_size(1) fn main() { x[0] = y[0]; }',
    });
    rec.dispatch(k, { bindings: { x: a, y: a }, workgroups: 1 });
    await expect(rec.submit()).rejects.toThrow(GpuValidationError);
  });

  it('rejects an array bound read-only beside a writable binding of itself, and allows two read-only ones', async () => {
    const device = await testDevice();
    const a = device.upload(new Uint32Array([5, 6]));
    const out = device.array('u32', 1);
    const k = await device.kernel({
      label: 'alias read',
      bindings: {
        x: { type: 'array<u32>', access: 'read' },
        y: { type: 'array<u32>', access: 'read' },
        z: { type: 'array<u32>', access: 'read_write' },
      },
      code: '@compute @workgroup_size(1) fn main() { z[0] = x[0] + y[1]; }',
    });
    // Dawn and wgpu must agree: the spec forbids it, Dawn checks it, wgpu does not.
    const bad = device.recorder({ label: 'read beside write' });
    bad.dispatch(k, { bindings: { x: a, y: out, z: out }, workgroups: 1 });
    await expect(bad.submit()).rejects.toThrow(/bound to both 'y' and 'z'/);
    const ok = device.recorder({ label: 'two reads' });
    ok.dispatch(k, { bindings: { x: a, y: a, z: out }, workgroups: 1 });
    await ok.submit();
    expect(await out.download()).toEqual(new Uint32Array([11]));
  });

  it('rejects numbers interpolated into functors and conflicting captures', async () => {
    const device = await testDevice();
    const a = device.array('u32', 4);
    expect(() => wgsl`(i: u32) { ${a}[i] = ${3 as never}; }`).toThrow(/u32\(\)/);
    const conflict = wgsl`(i: u32) { ${a}[i] = 1u; atomicAdd(&${atomic(a)}[0], 1u); }`;
    await expect(transform(device, 4, conflict)).rejects.toThrow(/atomic and as plain/);
  });

  it('shares one pipeline between functors of the same shape', async () => {
    const device = await testDevice();
    const a = device.upload(randomU32(10, 1));
    const b = device.upload(randomU32(10, 2));
    const f = (x: typeof a, v: number) => ({
      weft_op: wgsl`(i: u32) -> u32 { return ${x}[i] + ${u32(v)}; }`,
    });
    const code = 'fn main() {}';
    const k1 = await device.kernel({
      label: 't',
      functors: f(a, 1),
      code: `@compute @workgroup_size(1) ${code}`,
    });
    const k2 = await device.kernel({
      label: 't',
      functors: f(b, 2),
      code: `@compute @workgroup_size(1) ${code}`,
    });
    expect(k1.pipeline()).toBe(k2.pipeline());
    expect(k1.paramFields[0]?.value).toBe(1);
    expect(k2.paramFields[0]?.value).toBe(2);
  });

  it('keeps per-dispatch parameters apart within one submit', async () => {
    await gpuTest(async (device) => {
      const out = device.array('u32', 64);
      await out.fill(0);
      const rec = device.recorder();
      const k = await device.kernel({
        label: 'write one',
        bindings: { out: { type: 'array<u32>', access: 'read_write' } },
        params: { index: 'u32', value: 'u32' },
        code: '@compute @workgroup_size(1) fn main() { out[params.index] = out[params.index] + params.value; }',
      });
      for (let i = 0; i < 64; i++)
        rec.dispatch(k, { bindings: { out }, params: { index: i, value: i * 10 + 1 }, workgroups: 1 });
      const r = await rec.submit();
      expect(r.dispatches).toBe(64);
      expect([...(await out.download())]).toEqual(Array.from({ length: 64 }, (_, i) => i * 10 + 1));
      await expect(rec.submit()).rejects.toThrow(/already submitted/);
    });
  });

  it('lets a primitive reuse the scratch of one recorded before it, and only then', async () => {
    await gpuTest(async (device) => {
      const fill = await device.kernel({
        label: 'fill then copy',
        bindings: {
          tmp: { type: 'array<u32>', access: 'read_write' },
          out: { type: 'array<u32>', access: 'read_write' },
        },
        params: { mul: 'u32', add: 'u32', phase: 'u32' },
        code: `@compute @workgroup_size(64) fn main(@builtin(global_invocation_id) g: vec3<u32>) {
          if (params.phase == 0u) { tmp[g.x] = g.x * params.mul + params.add; } else { out[g.x] = tmp[g.x]; }
        }`,
      });
      const outs = [device.array('u32', 256), device.array('u32', 256)];
      const rec = device.recorder();
      const reusing = { reuseScratch: true };
      const taken: DeviceArray[] = [];
      // Two primitives in turn, each filling its scratch and copying it out in separate dispatches.
      for (const [i, out] of outs.entries()) {
        await rec.recordPrimitive(async () => {
          const tmp = rec.scratch('u32', 256, `tmp ${i}`);
          taken.push(tmp);
          for (const phase of [0, 1])
            rec.dispatch(fill, {
              bindings: { tmp, out },
              params: { mul: i + 2, add: 7 * i, phase },
              workgroups: 4,
            });
        }, reusing);
      }
      expect(taken[1]).toBe(taken[0]);
      // Host data recorded after them is not written into the spare scratch, whose writers run after the upload.
      const uploaded = rec.upload(
        'u32',
        Array.from({ length: 256 }, (_, k) => k + 1),
        'uploaded',
      );
      expect(uploaded).not.toBe(taken[0]);
      const keep = device.array('u32', 256);
      rec.copy(uploaded, keep);
      // Another length or an indirect one: new arrays. Scratch outside primitives is never freed.
      expect(rec.scratch('u32', 255, 'other length')).not.toBe(taken[0]);
      expect(rec.scratch('u32', 256, 'indirect', true)).not.toBe(taken[0]);
      const outside = rec.scratch('u32', 256, 'outside');
      expect(outside).toBe(taken[0]);
      // Nested, or awaited in parallel: nothing is freed until the last primitive ends.
      const slow = async () => {
        taken.push(rec.scratch('u32', 64, 'slow'));
        await new Promise((r) => setTimeout(r, 10));
        expect(rec.scratch('u32', 64, 'slow, later')).not.toBe(taken.at(-1));
      };
      const fast = async () => {
        await rec.recordPrimitive(async () => {
          taken.push(rec.scratch('u32', 64, 'nested'));
        }, reusing);
      };
      await Promise.all([rec.recordPrimitive(slow, reusing), rec.recordPrimitive(fast, reusing)]);
      expect(rec.scratch('u32', 64, 'after')).toBe(taken.at(-2));
      // A primitive that may hand its scratch out keeps all scratch taken while it records.
      let handedOut: DeviceArray | undefined;
      await rec.recordPrimitive(async () => {
        handedOut = rec.scratch('u32', 32, 'handed out');
      });
      expect(rec.scratch('u32', 32, 'next')).not.toBe(handedOut);
      await rec.submit();
      for (const [i, out] of outs.entries()) {
        expect([...(await out.download())]).toEqual(
          Array.from({ length: 256 }, (_, k) => k * (i + 2) + 7 * i),
        );
        out.destroy();
      }
      expect(taken[0]!.destroyed).toBe(true);
      expect(uploaded.destroyed).toBe(true);
      expect([...(await keep.download())]).toEqual(Array.from({ length: 256 }, (_, k) => k + 1));
      keep.destroy();
    });
  });

  it('reads an array back in the submit, and queues work without waiting that later work sees', async () => {
    const device = await testDevice();
    for (const [type, length] of [
      ['u32', 1],
      ['i32', 255],
      ['f32', 257],
      ['u32', 0],
    ] as const) {
      const a = device.array(type, length);
      const first = device.recorder({ label: 'no wait' });
      await transform(first, length, wgsl`(i: u32) { ${rw(a)}[i] = ${type}(i) - ${type}(3); }`);
      await first.submit({ wait: false });
      const second = device.recorder();
      await transform(second, length, wgsl`(i: u32) { ${rw(a)}[i] = ${rw(a)}[i] * ${type}(2); }`);
      const r = await second.submit({ download: a });
      const expected = Array.from({ length }, (_, i) => (type === 'u32' ? ((i - 3) * 2) >>> 0 : (i - 3) * 2));
      expect(r.downloaded).toBeInstanceOf(
        type === 'u32' ? Uint32Array : type === 'i32' ? Int32Array : Float32Array,
      );
      expect([...r.downloaded]).toEqual(expected);
      expect([...(await a.download())]).toEqual(expected);
      a.destroy();
    }
    const timed = device.recorder({ timing: true });
    if (device.hasTimestamps) await expect(timed.submit({ wait: false })).rejects.toThrow(InputError);
    const other = await requestDevice({ label: 'other' });
    try {
      const foreign = other.array('u32', 4);
      await expect(device.recorder().submit({ download: foreign })).rejects.toThrow(DeviceMismatchError);
    } finally {
      other.destroy();
    }
  });

  it('measures GPU time with timestamp queries when the adapter has them', async () => {
    const device = await testDevice();
    const out = device.array('u32', 1 << 16);
    const rec = device.recorder({ timing: true });
    await transform(rec, out.length, wgsl`(i: u32) { ${rw(out)}[i] = i; }`);
    const r = await rec.submit();
    expect(r.wallMs).toBeGreaterThan(0);
    if (device.hasTimestamps) expect(r.gpuNs).toBeGreaterThan(0);
  });

  it('times every dispatch on its own with timing: dispatches, in recorded order', async () => {
    const device = await testDevice();
    expect(device.hasTimestamps).toBe(true);
    const out = device.array('u32', 1 << 16);
    const rec = device.recorder({ timing: 'dispatches' });
    await transform(rec, out.length, wgsl`(i: u32) { ${rw(out)}[i] = i; }`);
    await rec.fill(out, 7);
    await transform(rec, out.length, wgsl`(i: u32) { ${rw(out)}[i] += 2u; }`, { label: 'add two' });
    const r = await rec.submit();
    // The fill is a kernel too: three dispatches, each with its own interval and its kernel's label.
    expect(r.dispatchNs?.map((d) => d.label)).toEqual(['transform', 'fill', 'add two']);
    for (const d of r.dispatchNs!) expect(d.ns).toBeGreaterThan(0);
    expect(r.gpuNs).toBeGreaterThanOrEqual(r.dispatchNs![2]!.ns);
    const host = await out.download();
    expect(host[0]).toBe(9);
    expect(host[out.length - 1]).toBe(9);
  });

  it('times dispatches past one query set, across several, and refuses more than it can time', async () => {
    const device = await testDevice();
    const out = device.array('u32', 1);
    const k = await device.kernel({
      label: 'count',
      bindings: { out: { type: 'array<u32>', access: 'read_write' } },
      code: '@compute @workgroup_size(1) fn main() { out[0] = out[0] + 1u; }',
    });
    // A set holds 2,048 dispatches: the last set's first and last dispatch, and a set boundary, are covered.
    for (const n of [2047, 2048, 2049, 2 * 2048 + 3]) {
      const rec = device.recorder({ timing: 'dispatches' });
      rec.clear(out);
      for (let i = 0; i < n; i++) rec.dispatch(k, { bindings: { out }, workgroups: 1 });
      const r = await rec.submit();
      expect(r.dispatchNs).toHaveLength(n);
      expect(r.dispatchNs!.every((d) => d.label === 'count')).toBe(true);
      // The passes run one after another: stamps resolved into the wrong slots would not add up so.
      expect(r.gpuNs).toBeGreaterThan(0);
      const sum = r.dispatchNs!.reduce((a, d) => a + d.ns, 0);
      expect(sum).toBeLessThanOrEqual(r.gpuNs!);
      expect((await out.download())[0]).toBe(n);
    }
    const rec = device.recorder({ timing: 'dispatches' });
    for (let i = 0; i <= MAX_TIMED_DISPATCHES; i++) rec.dispatch(k, { bindings: { out }, workgroups: 1 });
    await expect(rec.submit()).rejects.toThrow(DeviceLimitError);
  });

  it('names an array of another device instead of passing on a WebGPU validation error', async () => {
    const home = await testDevice();
    const other = await requestDevice();
    const foreign = other.upload(new Uint32Array([1, 2, 3]));
    const out = home.array('u32', 3);
    try {
      await expect(transform(home, 3, wgsl`(i: u32) { ${rw(out)}[i] = ${foreign}[i]; }`)).rejects.toThrow(
        DeviceMismatchError,
      );
      await expect(home.recorder().clear(foreign).submit()).rejects.toThrow(
        /array 'u32\[3\]' belongs to another device/,
      );
      await expect(other.recorder().copy(out, foreign).submit()).rejects.toThrow(DeviceMismatchError);
    } finally {
      out.destroy();
      foreign.destroy();
      other.destroy();
    }
  });

  it('rejects pending work when the device is lost, instead of hanging', async () => {
    const own = await requestDevice();
    const out = own.array('u32', 1 << 20);
    const rec = own.recorder();
    for (let r = 0; r < 20; r++)
      await transform(rec, out.length, wgsl`(i: u32) { ${rw(out)}[i] = i * ${u32(r)}; }`);
    const pending = rec.submit();
    own.destroy();
    const outcome = await pending.then(
      () => 'completed',
      (e: unknown) => e,
    );
    // Either the work finished before the loss, or it was rejected with DeviceLostError; never a hang.
    if (outcome !== 'completed') expect(outcome).toBeInstanceOf(DeviceLostError);
    await expect(own.idle()).rejects.toThrow(DeviceLostError);
  });

  it('creates a device without an optional feature, and says why it lacks one', async () => {
    const plain = await requestDevice({ features: { subgroups: false, 'timestamp-query': false } });
    try {
      expect(plain.hasSubgroups).toBe(false);
      expect(plain.hasTimestamps).toBe(false);
      const offered = plain.adapter.adapterFeatures ?? [];
      expect(plain.missingFeature('subgroups')).toMatch(
        offered.includes('subgroups')
          ? /created without .*'subgroups'.*which its adapter offers/
          : /does not offer/,
      );
      expect(wrapDevice(plain.device).missingFeature('subgroups')).toMatch(/created without/);
    } finally {
      plain.destroy();
    }
    const home = await testDevice();
    if (!home.adapter.adapterFeatures?.includes('shader-f16')) {
      await expect(requestDevice({ features: { 'shader-f16': true } })).rejects.toThrow(
        /does not offer the 'shader-f16' feature/,
      );
    }
  });

  it('leaves a caller-owned device alone and reports loss of an owned one', async () => {
    const owned = await requestDevice();
    const borrowed = wrapDevice(owned.device);
    borrowed.destroy();
    const a = owned.array('u32', 8).upload([1, 2, 3, 4, 5, 6, 7, 8]);
    expect([...(await a.download(0, 3))]).toEqual([1, 2, 3]);
    owned.destroy();
    await new Promise((r) => setTimeout(r, 50));
    expect(borrowed.lostError).toBeInstanceOf(DeviceLostError);
    expect(() => borrowed.array('u32', 1)).toThrow(DeviceLostError);
  });
});

describe('kernel shape cache', () => {
  it('rebinds captures of a repeated functor shape exactly as a fresh generation would', async () => {
    await gpuTest(async (device) => {
      const a = device.upload(Uint32Array.of(1, 2, 3, 4));
      const b = device.upload(Uint32Array.of(10, 20, 30, 40));
      const out1 = device.array('u32', 4);
      const out2 = device.array('u32', 4);
      // A helper functor used twice, an array captured twice (one binding), scalars in and outside the helper.
      const make = (x: typeof a, y: typeof a, out: typeof a, k: number) => {
        const helper = wgsl`(i: u32) -> u32 { return ${x}[i] + ${u32(k)}; }`;
        return wgsl`(i: u32) { ${rw(out)}[i] = ${helper}(i) * 2u + ${helper}(i) + ${y}[i] + ${x}[0] * ${u32(k * 100)}; }`;
      };
      const want = (x: number[], y: number[], k: number) =>
        x.map((v, i) => (v + k) * 3 + y[i]! + x[0]! * k * 100);
      await transform(device, 4, make(a, b, out1, 1));
      await transform(device, 4, make(b, a, out2, 2)); // same shape: cached text, other arrays and values
      expect([...(await out1.download())]).toEqual(want([1, 2, 3, 4], [10, 20, 30, 40], 1));
      expect([...(await out2.download())]).toEqual(want([10, 20, 30, 40], [1, 2, 3, 4], 2));
      // Same call site, but aliasing changes the shape (x and y are one array): must not reuse the cached text.
      await transform(device, 4, make(a, a, out1, 3));
      expect([...(await out1.download())]).toEqual(want([1, 2, 3, 4], [1, 2, 3, 4], 3));
    });
  });
});
