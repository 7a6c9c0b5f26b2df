/**
 * Merge-path partitioning: the WGSL search that splits work items and segments evenly across workgroups.
 *
 * @module @weft/lbs/merge-path
 */
import {
  type BindingDecl,
  type Count,
  type DeviceArray,
  type ElementType,
  InputError,
  isGpuCount,
  type Recorder,
  type Workgroups,
} from '@weft/gpu';

/** Threads per tile workgroup. */
export const WORKGROUP = 256;
/**
 * Merge steps (items plus segment starts) each thread of a transformLbs tile walks serially. Odd, as in
 * moderngpu: inside a long segment each thread's items sit ITEMS_PER_THREAD words apart in workgroup memory,
 * and an odd stride spreads a subgroup's accesses over all banks (a stride of 8 would serialize them 8
 * ways). 9 measured fastest of the odd values tried (docs/decisions/merge-path-tiles.md).
 * Other tile kernels on merge path choose their own (segreduce: 11) and pass their tile to the planner.
 */
export const ITEMS_PER_THREAD = 9;
/**
 * Merge-path elements per transformLbs tile. The tile's workgroup memory holds its segment starts and its
 * items' segments in one array of TILE + 1 u32 (9 KiB): within WebGPU's 16 KiB default
 * maxComputeWorkgroupStorageSize.
 */
export const TILE = WORKGROUP * ITEMS_PER_THREAD;

/** Largest merge length (items + segments): diagonals are u32. */
const MAX_MERGE = 0xffffffff;

/**
 * Where kernels read the item and segment counts from: uniform params for host counts, a storage array for
 * GPU-resident counts (never read back). Declares `fn lbs_item_count() -> u32` and `fn lbs_segment_count()`.
 */
export interface CountSource {
  readonly wgsl: string;
  readonly paramTypes: Record<string, ElementType>;
  readonly params: Record<string, number>;
  readonly bindingDecls: Record<string, BindingDecl>;
  readonly bindings: Record<string, DeviceArray>;
  /** True when a count lives on the GPU: grids then come from indirect arguments. */
  readonly onGpu: boolean;
}

/** `tile`: merge steps per tile of the kernels that will use it. */
export function countSource(count: Count, numSegments: Count, maxMerge: number, tile: number): CountSource {
  const onGpu = isGpuCount(count) || isGpuCount(numSegments);
  const paramTypes: Record<string, ElementType> = {};
  const params: Record<string, number> = {};
  const bindingDecls: Record<string, BindingDecl> = {};
  const bindings: Record<string, DeviceArray> = {};
  // Both counts in one array bind it once: a storage buffer fewer where a stage's limit is tight.
  const shared = isGpuCount(count) && isGpuCount(numSegments) && count.array === numSegments.array;
  const fn = (name: string, c: Count): string => {
    if (isGpuCount(c)) {
      const buffer = shared ? 'counts_buf' : `${name}_buf`;
      paramTypes[`${name}_index`] = 'u32';
      params[`${name}_index`] = c.index;
      bindingDecls[buffer] = { type: 'array<u32>', access: 'read' };
      bindings[buffer] = c.array;
      return `fn lbs_${name}() -> u32 { return ${buffer}[params.${name}_index]; }`;
    }
    paramTypes[name] = 'u32';
    params[name] = c;
    return `fn lbs_${name}() -> u32 { return params.${name}; }`;
  };
  // GPU counts are clamped to the merge length the scratch was sized for: items past it are dropped
  // rather than written out of bounds.
  if (onGpu) {
    paramTypes['max_merge'] = 'u32';
    params['max_merge'] = maxMerge;
  }
  const merge = onGpu
    ? 'min(lbs_item_count() + lbs_segment_count(), params.max_merge)'
    : 'lbs_item_count() + lbs_segment_count()';
  const wgsl = `${fn('item_count', count)}\n${fn('segment_count', numSegments)}
// Tiles cover the merge of items [0, count) with segment starts [0, segments).
fn lbs_merge_length() -> u32 { return ${merge}; }
// Rounded up without adding TILE - 1, which would wrap for merges near 2^32.
fn lbs_tile_count() -> u32 {
  let merge = lbs_merge_length();
  return merge / ${tile}u + select(0u, 1u, merge % ${tile}u != 0u);
}`;
  return {
    wgsl,
    paramTypes,
    params,
    bindingDecls,
    bindings,
    onGpu,
  };
}

/**
 * WGSL for tile kernels of `tile` merge steps with bindings `offsets` and `partitions` and a workgroup
 * array `sh`:
 * - `fn lbs_tile_bounds(tile) -> LbsTile`: the tile's items [a0, a0 + na) and segment starts [b0, b0 + nb),
 *   from the partitions alone (so loads that need only the items can be issued before the starts arrive);
 * - `fn lbs_load_starts(range, lid)`: the starts into sh[1 + j], and sh[0] = the start of the segment open
 *   when the tile begins;
 * - `fn lbs_tile_range(tile, lid) -> LbsTile`: both.
 * The caller puts a barrier after the starts are loaded.
 */
export function tileRangeWgsl(tile: number): string {
  return /* wgsl */ `
struct LbsTile { a0: u32, na: u32, b0: u32, nb: u32 }

fn lbs_tile_bounds(tile: u32) -> LbsTile {
  let total = lbs_merge_length();
  let d0 = tile * ${tile}u;
  let d1 = select(d0 + ${tile}u, total, total - d0 < ${tile}u);
  let a0 = partitions[tile];
  let na = partitions[tile + 1u] - a0;
  return LbsTile(a0, na, d0 - a0, d1 - d0 - na);
}

fn lbs_load_starts(range: LbsTile, lid: u32) {
  for (var j = lid; j <= range.nb; j += ${WORKGROUP}u) {
    sh[j] = select(0u, offsets[range.b0 + j - 1u], range.b0 + j > 0u);
  }
}

fn lbs_tile_range(tile: u32, lid: u32) -> LbsTile {
  let range = lbs_tile_bounds(tile);
  lbs_load_starts(range, lid);
  return range;
}`;
}

/**
 * WGSL `fn lbs_assign_segments(diag, end, a_start, a0, na, b0, nb)` for tile kernels whose workgroup array
 * `sh` holds sh[1 + j] = the tile's segment starts: walks merge steps [diag, end) from `a_start` items (a
 * start opens a segment, an item takes the open one) and writes each item's segment to sh[nb + 1 + item];
 * 0xffffffff for items before offsets[0], which belong to no segment.
 */
export const ASSIGN_SEGMENTS_WGSL = /* wgsl */ `
fn lbs_assign_segments(diag: u32, end: u32, a_start: u32, a0: u32, na: u32, b0: u32, nb: u32) {
  var a = a_start;
  var b = diag - a_start;
  for (var k = diag; k < end; k++) {
    if (b < nb && (a >= na || sh[1u + b] <= a0 + a)) {
      b++;
    } else {
      sh[nb + 1u + a] = b0 + b - 1u;
      a++;
    }
  }
}`;

/**
 * Merge-path search on diagonal `diag` of the merge of items 0, 1, 2, ... (`a_count` of them, the first
 * numbered `a_base`) with segment starts `start(j)`: returns how many items precede the diagonal. A start equal
 * to an item's index goes first, so item i lands in the segment whose start is the last one <= i.
 * Declared per kernel with `start` reading global or workgroup memory.
 */
export function mergePathSearch(name: string, start: string): string {
  return /* wgsl */ `
fn ${name}(diag: u32, a_base: u32, a_count: u32, b_count: u32) -> u32 {
  var lo = select(0u, diag - b_count, diag > b_count);
  var hi = min(diag, a_count);
  while (lo < hi) {
    let mid = lo + ((hi - lo) >> 1u);
    if (a_base + mid < ${start.replace('$J', 'diag - 1u - mid')}) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}`;
}

const partitionWgsl = (tile: number) => /* wgsl */ `
${mergePathSearch('lbs_search', 'offsets[$J]')}

// partitions[t] = items before tile t's first diagonal; one more entry closes the last tile.
@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = weft_workgroup_index(wid, nwg) * ${WORKGROUP}u + lid;
  let tiles = lbs_tile_count();
  if (p > tiles) { return; }
  // p * TILE wraps for the closing entry of a merge near 2^32; that one is the whole length.
  let diag = select(p * ${tile}u, lbs_merge_length(), p == tiles);
  partitions[p] = lbs_search(diag, 0u, lbs_item_count(), lbs_segment_count());
}`;

const ARGS_WGSL = /* wgsl */ `
fn lbs_grid(groups: u32, at: u32) {
  // x * y >= groups within the per-dimension limit; kernels bound-check their linear index.
  let x = min(groups, params.max_dim);
  args[at] = x;
  args[at + 1u] = select(1u, (groups + x - 1u) / max(x, 1u), x > 0u);
  args[at + 2u] = 1u;
}

@compute @workgroup_size(1)
fn main() {
  let tiles = lbs_tile_count();
  lbs_grid((tiles + ${WORKGROUP}u) / ${WORKGROUP}u, 0u);
  lbs_grid(tiles, 3u);
  lbs_grid((tiles + ${WORKGROUP - 1}u) / ${WORKGROUP}u, 6u);
}`;

/** What the tile kernels need: the partitions and the grids to launch over. */
export interface MergePathPlan {
  readonly counts: CountSource;
  /** u32 per tile boundary: items before it. */
  readonly partitions: DeviceArray<'u32'>;
  /** One workgroup per tile. */
  readonly tileGrid: Workgroups;
  /** One thread per tile, WORKGROUP threads per workgroup. */
  readonly perTileGrid: Workgroups;
  /** Upper bound of the tile count (exact for host counts). */
  readonly maxTiles: number;
}

/** Checks the arguments every merge-path primitive shares; `what` names the caller in errors. */
export function checkSegments(
  what: string,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  maxCount?: number,
): void {
  if (segmentOffsets.type !== 'u32') {
    throw new InputError(`segmentOffsets must be u32, got ${segmentOffsets.type}`, what);
  }
  if (!isGpuCount(count) && (!Number.isInteger(count) || count < 0 || count > MAX_MERGE)) {
    throw new InputError(`count must be an integer in [0, 2^32), got ${count}`, what);
  }
  if (maxCount !== undefined && (!Number.isInteger(maxCount) || maxCount < 0 || maxCount > MAX_MERGE)) {
    throw new InputError(`maxCount must be an integer in [0, 2^32), got ${maxCount}`, what);
  }
  if (!isGpuCount(numSegments)) {
    if (!Number.isInteger(numSegments) || numSegments < 0) {
      throw new InputError(`numSegments must be a non-negative integer, got ${numSegments}`, what);
    }
    if (numSegments > segmentOffsets.length) {
      throw new InputError(
        `numSegments is ${numSegments} but segmentOffsets '${segmentOffsets.label}' has only ${segmentOffsets.length} entries`,
        what,
      );
    }
    if (!isGpuCount(count) && count > 0 && numSegments === 0) {
      throw new InputError(`${count} items but no segments to put them in`, what);
    }
    if (!isGpuCount(count) && count + numSegments > MAX_MERGE) {
      throw new InputError(`count + numSegments must be below 2^32, got ${count + numSegments}`, what);
    }
  }
}

/**
 * Records the partition kernel: a binary search along each tile's first diagonal of the merge of items with
 * segment starts, so every tile gets `tile` merge steps (default transformLbs's TILE) however skewed the
 * segment lengths are. `maxCount` bounds a GPU-resident item count (default: anything below 2^32), which
 * sizes the scratch.
 */
export async function planMergePath(
  rec: Recorder,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  maxCount = MAX_MERGE,
  tile = TILE,
): Promise<MergePathPlan> {
  // Host counts size everything exactly; GPU counts by their bounds.
  const itemBound = isGpuCount(count) ? maxCount : count;
  const segmentBound = isGpuCount(numSegments) ? segmentOffsets.length : numSegments;
  const maxMerge = Math.min(MAX_MERGE, itemBound + segmentBound);
  const maxTiles = Math.ceil(maxMerge / tile);
  const counts = countSource(count, numSegments, maxMerge, tile);
  const device = rec.device;
  const partitions = rec.scratch('u32', maxTiles + 1, 'lbs partitions');

  const partition = await device.kernel({
    label: 'lbs partition',
    bindings: {
      offsets: { type: 'array<u32>', access: 'read' },
      partitions: { type: 'array<u32>', access: 'read_write' },
      ...counts.bindingDecls,
    },
    params: counts.paramTypes,
    code: `${counts.wgsl}\n${partitionWgsl(tile)}`,
  });
  const bindings = { offsets: segmentOffsets, partitions, ...counts.bindings };

  if (!counts.onGpu) {
    rec.dispatch(partition, {
      bindings,
      params: counts.params,
      workgroups: Math.ceil((maxTiles + 1) / WORKGROUP),
    });
    return {
      counts,
      partitions,
      tileGrid: maxTiles,
      perTileGrid: Math.ceil(maxTiles / WORKGROUP),
      maxTiles,
    };
  }

  const argsKernel = await device.kernel({
    label: 'lbs indirect args',
    bindings: { args: { type: 'array<u32>', access: 'read_write' }, ...counts.bindingDecls },
    params: { ...counts.paramTypes, max_dim: 'u32' },
    code: `${counts.wgsl}\n${ARGS_WGSL}`,
  });
  const args = rec.scratch('u32', 9, 'lbs indirect args', true);
  rec.dispatch(argsKernel, {
    bindings: { args, ...counts.bindings },
    params: { ...counts.params, max_dim: device.limits.maxComputeWorkgroupsPerDimension },
    workgroups: [1, 1, 1],
  });
  rec.dispatch(partition, { bindings, params: counts.params, workgroups: { indirect: args, index: 0 } });
  return {
    counts,
    partitions,
    tileGrid: { indirect: args, index: 3 },
    perTileGrid: { indirect: args, index: 6 },
    maxTiles,
  };
}
