import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';

/** Trailing zero bits of a u32, 32 for 0 (WGSL's countTrailingZeros). */
function trailingZeros(x: number): number {
  return x === 0 ? 32 : 31 - Math.clz32(x & -x);
}

describe('PRELUDE weft_trailing_zeros', () => {
  it('matches countTrailingZeros on 0, every single bit, every low mask, and random words', async () => {
    await gpuTest(async (device) => {
      const inputs: number[] = [0, 0xffffffff, 0x80000000, 0x7fffffff];
      for (let b = 0; b < 32; b++) inputs.push(2 ** b, 2 ** 32 - 2 ** b, (2 ** b) | 0x80000000);
      let s = 12345;
      for (let i = 0; i < 1000; i++) {
        s = (Math.imul(s, 1103515245) + 12345) >>> 0;
        // Clear a random number of low bits so every answer 0..31 appears often.
        inputs.push((s >>> 0) & (~(2 ** (i % 32) - 1) >>> 0));
      }
      const words = device.upload(new Uint32Array(inputs));
      const out = device.array('u32', inputs.length);
      const k = await device.kernel({
        label: 'trailing zeros',
        bindings: {
          words: { type: 'array<u32>', access: 'read' },
          out: { type: 'array<u32>', access: 'read_write' },
        },
        params: { n: 'u32' },
        code: /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x < params.n) { out[gid.x] = weft_trailing_zeros(words[gid.x]); }
}`,
      });
      const rec = device.recorder();
      rec.dispatch(k, {
        bindings: { words, out },
        params: { n: inputs.length },
        workgroups: Math.ceil(inputs.length / 64),
      });
      await rec.submit();
      const got = await out.download();
      const want = inputs.map((x) => trailingZeros(x >>> 0));
      expect(Array.from(got)).toEqual(want);
      words.destroy();
      out.destroy();
    });
  });

  it('weft_trailing_zeros4 gives the lowest set bit of 128-bit masks, 128 for none', async () => {
    await gpuTest(async (device) => {
      // Masks with their lowest set bit in each word at every position, beside zero words and noise above.
      const masks: number[][] = [[0, 0, 0, 0]];
      for (let bit = 0; bit < 128; bit++) {
        const m = [0, 0, 0, 0];
        const w = bit >> 5;
        m[w] = (2 ** (bit & 31)) >>> 0;
        for (let above = w + 1; above < 4; above++) m[above] = (0xdeadbeef * (bit + 1)) >>> 0;
        if (bit % 3 === 0) m[w] = (m[w]! | 0x80000000) >>> 0;
        masks.push(m);
      }
      const words = device.upload(new Uint32Array(masks.flat()));
      const out = device.array('u32', masks.length);
      const k = await device.kernel({
        label: 'trailing zeros of vec4 masks',
        bindings: {
          words: { type: 'array<vec4<u32>>', access: 'read' },
          out: { type: 'array<u32>', access: 'read_write' },
        },
        params: { n: 'u32' },
        code: /* wgsl */ `
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  if (gid.x < params.n) { out[gid.x] = weft_trailing_zeros4(words[gid.x]); }
}`,
      });
      const rec = device.recorder();
      rec.dispatch(k, {
        bindings: { words, out },
        params: { n: masks.length },
        workgroups: Math.ceil(masks.length / 64),
      });
      await rec.submit();
      const got = await out.download();
      const want = masks.map((m) => {
        const w = m.findIndex((x) => x !== 0);
        return w < 0 ? 128 : 32 * w + trailingZeros(m[w]!);
      });
      expect(Array.from(got)).toEqual(want);
      words.destroy();
      out.destroy();
    });
  });
});
