import { type Count, isGpuCount, type Recorder, type Workgroups } from '@weft/gpu';

const GRID_WGSL = /* wgsl */ `
@compute @workgroup_size(1)
fn main() {
  let n = count[params.count_index];
  // At least one tile, so that a total is written even for n = 0.
  let tiles = max(1u, (n + params.tile - 1u) / params.tile);
  let x = min(tiles, params.max_dim);
  args[0] = x;
  args[1] = (tiles + x - 1u) / x;
  args[2] = 1u;
}`;

/**
 * Workgroups for one workgroup per tile of `count` items, at least one. A GPU-resident count becomes
 * indirect arguments written by a one-invocation kernel; kernels skip the spare workgroups of an x * y grid.
 */
export async function tileGrid(rec: Recorder, count: Count, tile: number): Promise<Workgroups> {
  if (!isGpuCount(count)) return Math.max(1, Math.ceil(count / tile));
  const kernel = await rec.device.kernel({
    label: 'scan tile grid',
    bindings: {
      count: { type: 'array<u32>', access: 'read' },
      args: { type: 'array<u32>', access: 'read_write' },
    },
    params: { count_index: 'u32', tile: 'u32', max_dim: 'u32' },
    code: GRID_WGSL,
  });
  const args = rec.scratch('u32', 3, 'scan tile grid', true);
  rec.dispatch(kernel, {
    bindings: { count: count.array, args },
    params: {
      count_index: count.index,
      tile,
      max_dim: rec.device.limits.maxComputeWorkgroupsPerDimension,
    },
    workgroups: [1, 1, 1],
  });
  return { indirect: args };
}
