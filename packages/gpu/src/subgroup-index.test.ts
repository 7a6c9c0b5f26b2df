import { gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { SUBGROUP_INDEX_WGSL } from './index.ts';

describe('SUBGROUP_INDEX_WGSL', () => {
  it('gives each subgroup its own dense index, the same in all its lanes, and counts the subgroups', async (context) => {
    await gpuTest(
      async (device) => {
        expect(device.hasSubgroups).toBe(true);
        const threads = 128;
        const workgroups = 3;
        const out = device.array('u32', workgroups * (2 * threads + 1));
        const k = await device.kernel({
          label: 'subgroup index',
          bindings: { out: { type: 'array<u32>', access: 'read_write' } },
          subgroups: true,
          code: /* wgsl */ `
${SUBGROUP_INDEX_WGSL}
@compute @workgroup_size(${threads})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) lid: u32,
        @builtin(subgroup_invocation_id) lane: u32) {
  if (lid == 0u) { atomicStore(&subgroup_ticket, 0u); }
  workgroupBarrier();
  let w = subgroup_index();
  workgroupBarrier();
  let base = wid.x * ${2 * threads + 1}u;
  out[base + lid] = w;
  out[base + ${threads}u + lid] = lane;
  if (lid == 0u) { out[base + ${2 * threads}u] = atomicLoad(&subgroup_ticket); }
}`,
        });
        const rec = device.recorder();
        rec.dispatch(k, { bindings: { out }, workgroups });
        await rec.submit();
        const got = await out.download();
        for (let g = 0; g < workgroups; g++) {
          const base = g * (2 * threads + 1);
          const count = got[base + 2 * threads]!;
          const lanes = new Map<number, Set<number>>();
          for (let i = 0; i < threads; i++) {
            const w = got[base + i]!;
            expect(w).toBeLessThan(count);
            const set = lanes.get(w) ?? new Set<number>();
            set.add(got[base + threads + i]!);
            lanes.set(w, set);
          }
          // Every index in [0, count) is used, and each by one whole subgroup (distinct lanes, equal sizes).
          expect(lanes.size).toBe(count);
          const size = threads / count;
          for (const set of lanes.values()) expect(set.size).toBe(size);
        }
        out.destroy();
      },
      { subgroups: true, context },
    );
  });
});
