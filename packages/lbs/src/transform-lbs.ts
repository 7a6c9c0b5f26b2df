import {
  type Count,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  onTargetReusingScratch,
  type Target,
} from '@weft/gpu';
import {
  ASSIGN_SEGMENTS_WGSL,
  checkSegments,
  ITEMS_PER_THREAD,
  mergePathSearch,
  planMergePath,
  TILE,
  tileRangeWgsl,
  WORKGROUP,
} from './merge-path.ts';

/**
 * The tile kernel. Workgroup memory `sh` holds, for a tile with `na` items and `nb` segment starts:
 * sh[0] = the start of the segment open when the tile begins, sh[1 + j] = offsets[b0 + j], then from
 * sh[nb + 1] the segment of each of the tile's items. na + nb <= TILE, so TILE + 1 words always suffice.
 */
const TILE_WGSL = /* wgsl */ `
var<workgroup> sh: array<u32, ${TILE + 1}>;

${mergePathSearch('tile_search', 'sh[1u + $J]')}
${ASSIGN_SEGMENTS_WGSL}
${tileRangeWgsl(TILE)}

@compute @workgroup_size(${WORKGROUP})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= lbs_tile_count()) { return; }
  let range = lbs_tile_range(tile, lid);
  let a0 = range.a0;
  let na = range.na;
  let b0 = range.b0;
  let nb = range.nb;
  workgroupBarrier();

  // Serial merge of this thread's ${ITEMS_PER_THREAD} steps: a start opens a segment, an item takes the open one.
  let diag = min(lid * ${ITEMS_PER_THREAD}u, na + nb);
  let end = min(diag + ${ITEMS_PER_THREAD}u, na + nb);
  lbs_assign_segments(diag, end, tile_search(diag, a0, na, nb), a0, na, b0, nb);
  workgroupBarrier();

  // Items in index order across threads, so the functor's reads and writes coalesce.
  for (var k = 0u; k < ${ITEMS_PER_THREAD}u; k++) {
    let local = k * ${WORKGROUP}u + lid;
    if (local < na) {
      let seg = sh[nb + 1u + local];
      if (seg != 0xffffffffu) {
        let index = a0 + local;
        lbs_op(index, seg, index - sh[seg + 1u - b0]);
      }
    }
  }
}`;

export interface TransformLbsOptions {
  /**
   * Upper bound of a GPU-resident `count`: sizes the scratch (by default for any count below 2^32, about
   * 6 MiB per call). Items past it are dropped. Ignored for host counts.
   */
  readonly maxCount?: number;
}

/**
 * moderngpu's `transform_lbs`: calls `f(index, seg, rank)` once for every work item `index` in [0, count),
 * where `seg` is the segment holding the item and `rank = index - segmentOffsets[seg]` its place in it.
 *
 * `segmentOffsets` holds the start of each segment: the exclusive scan of the segment lengths, so
 * `segmentOffsets[0] == 0`, non-decreasing, each entry <= count. Only the first `numSegments` entries are
 * read (moderngpu's convention): the last segment ends at `count`. A CSR row-pointer array of
 * `numSegments + 1` entries works as is. Empty segments get no calls; items before `segmentOffsets[0]`
 * (when it is not 0) belong to no segment and get none either.
 *
 * `count` and `numSegments` may live on the GPU (a scan total, a frontier length): the grids are then
 * computed on the GPU and nothing is read back; `segmentOffsets` must still hold `numSegments` entries, and
 * `options.maxCount` (when given) must bound `count`.
 * Work is split by merge path over (items, segment starts), so every workgroup does the same amount however
 * skewed the lengths: one segment of millions of items or millions of empty segments.
 *
 * ```ts
 * await transformLbs(device, edges, rowPtr, vertices,
 *   wgsl`(i: u32, seg: u32, rank: u32) { ${rw(src)}[i] = seg; }`);
 * ```
 */
export async function transformLbs(
  target: Target,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  f: Functor,
  options: TransformLbsOptions = {},
): Promise<void> {
  checkOptionsObject('transformLbs', options);
  checkSegments('transformLbs', count, segmentOffsets, numSegments, options.maxCount);
  await onTargetReusingScratch(target, 'transformLbs', async (rec) => {
    const plan = await planMergePath(rec, count, segmentOffsets, numSegments, options.maxCount);
    const { counts } = plan;
    const kernel = await rec.device.kernel({
      label: 'transformLbs tile',
      bindings: {
        offsets: { type: 'array<u32>', access: 'read' },
        partitions: { type: 'array<u32>', access: 'read' },
        ...counts.bindingDecls,
      },
      params: counts.paramTypes,
      functors: { lbs_op: f },
      code: `${counts.wgsl}\n${TILE_WGSL}`,
    });
    rec.dispatch(kernel, {
      bindings: { offsets: segmentOffsets, partitions: plan.partitions, ...counts.bindings },
      params: counts.params,
      workgroups: plan.tileGrid,
    });
  });
}
