import type { DeviceArray } from '@weft/gpu';
import { bucketBaseWgsl, bucketTableWgsl } from './bucketed-wgsl.ts';
import {
  BUCKET_TABLE,
  type Bucketed,
  downsweepWgsl,
  RADIX,
  RADIX_PARAMS,
  TILE_OUT_WGSL,
  tileKernelCode,
  tileSize,
} from './radix-wgsl.ts';
import {
  countingKernels,
  defaultTilesPerChunk,
  defaultTilesPerWorkgroup,
  type PassContext,
  read,
  write,
} from './sort-passes.ts';

/** Words of padding a top-digit-first sort may add: each of the 256 buckets rounds up to whole tiles. */
export function bucketPadding(tile: number): number {
  return RADIX * tile;
}

/**
 * A keys-only sort of 32-bit u32 / i32 keys by the top digit first (`tuning.topDigitFirst`): one pass sorts
 * by the top digit, unstably, into 256 buckets whose starts are rounded up to whole tiles (the padding
 * holds each bucket's largest key); then three reduce-then-scan passes sort by the low three digits inside
 * the buckets, the first of them unstably, the last closing up the padding as it writes `output`. Every
 * pass but the last two can rank unstably (against the plain LSD sort's one), because a key's bucket, not
 * the order of equal digits, keeps what the earlier passes sorted. Equal keys are the same bits here, so no
 * caller can tell which order they took.
 *
 * Scratch: two padded key arrays (count + 256 x tile u32 each), the reduce-then-scan scratch over the
 * padded tiles, 256 x 256 u32 of bucket bases and a bucket table of 769 + padded tiles u32.
 */
export async function prepareBucketed(
  ctx: PassContext,
): Promise<(keys: DeviceArray, output: DeviceArray) => void> {
  const { rec, config, countArray } = ctx;
  const device = rec.device;
  const tile = tileSize(config);
  const capacity = ctx.params['n']!;
  const paddedCapacity = capacity + bucketPadding(tile);
  const topTiles = Math.ceil(capacity / tile);
  const paddedTiles = Math.ceil(paddedCapacity / tile);
  const tilesPerChunk = ctx.tuning.tilesPerChunk ?? defaultTilesPerChunk(paddedTiles);
  const perWorkgroup = ctx.tuning.tilesPerWorkgroup ?? defaultTilesPerWorkgroup(paddedTiles, false);
  const bucketBindings = { buckets: read, bucket_base: read };
  const downsweep = (bucketed: Bucketed, stable: boolean) =>
    device.kernel({
      label: `radix downsweep ${bucketed}${stable ? '' : ' unstable'}`,
      bindings: {
        keys_in: read,
        keys_out: write,
        row_prefix: read,
        tile_prefix: read,
        digit_total: read,
        count: read,
        ...(bucketed === 'top' ? {} : bucketBindings),
      },
      params: RADIX_PARAMS,
      code: tileKernelCode(
        config,
        downsweepWgsl(config, false, ctx.order, { stable, tilesPerWorkgroup: perWorkgroup, bucketed }),
      ),
      subgroups: config.subgroups,
    });
  const [[upsweep, rowScan], top, firstInner, inner, last, table, base] = await Promise.all([
    countingKernels(rec, config, ctx.order),
    downsweep('top', false),
    downsweep('inner', false),
    downsweep('inner', true),
    downsweep('last', true),
    device.kernel({
      label: 'radix bucket table',
      bindings: { digit_total: read, buckets: write, padded_count: write, keys: write },
      code: bucketTableWgsl(config, ctx.order),
    }),
    device.kernel({
      label: 'radix bucket bases',
      bindings: { row_prefix: read, tile_prefix: read, digit_total: read, buckets: read, bucket_base: write },
      params: RADIX_PARAMS,
      code: bucketBaseWgsl(config, TILE_OUT_WGSL),
    }),
  ]);
  const rowPrefix = rec.scratch('u32', RADIX * Math.ceil(paddedTiles / tilesPerChunk), 'sort chunk prefixes');
  const tilePrefix = rec.scratch('u32', tilesPerChunk > 1 ? RADIX * paddedTiles : 4, 'sort tile prefixes');
  const digitTotal = rec.scratch('u32', RADIX, 'sort digit totals');
  const buckets = rec.scratch('u32', BUCKET_TABLE.tileBucket + paddedTiles, 'sort bucket table');
  const bucketBase = rec.scratch('u32', RADIX * RADIX, 'sort bucket bases');
  const paddedCount = rec.scratch('u32', 1, 'sort padded count');
  const a = rec.scratch('u32', paddedCapacity, 'sort padded keys');
  const b = rec.scratch('u32', paddedCapacity, 'sort padded keys (2)');

  // The top pass reads the caller's count; the inner passes the padded length the bucket table wrote.
  const topParams = {
    ...ctx.params,
    num_tiles: topTiles,
    tiles_per_chunk: tilesPerChunk,
    num_chunks: Math.ceil(topTiles / tilesPerChunk),
  };
  const innerParams = {
    n: paddedCapacity,
    gpu_count: 1,
    count_index: 0,
    sort_bits: 32,
    num_tiles: paddedTiles,
    tiles_per_chunk: tilesPerChunk,
    num_chunks: Math.ceil(paddedTiles / tilesPerChunk),
  };
  const shared = { row_prefix: rowPrefix, tile_prefix: tilePrefix, digit_total: digitTotal };
  return (keys, output) => {
    const pass = (
      digit: number,
      src: DeviceArray,
      dst: DeviceArray,
      kernel: typeof top,
      params: Record<string, number>,
      count: DeviceArray,
      numTiles: number,
    ) => {
      const p = { ...params, shift: 8 * digit, digit_mask: 0xff };
      const chunks = params['num_chunks']!;
      rec.dispatch(upsweep, {
        bindings: { keys_in: src, row_prefix: rowPrefix, tile_prefix: tilePrefix, count },
        params: p,
        workgroups: chunks,
      });
      rec.dispatch(rowScan, {
        bindings: { row_prefix: rowPrefix, digit_total: digitTotal, count },
        params: p,
        workgroups: [RADIX, 1, 1],
      });
      if (kernel !== top) {
        rec.dispatch(base, {
          bindings: { ...shared, buckets, bucket_base: bucketBase },
          params: p,
          workgroups: [RADIX, 1, 1],
        });
      }
      rec.dispatch(kernel, {
        bindings: {
          keys_in: src,
          keys_out: dst,
          ...shared,
          count,
          ...(kernel === top ? {} : { buckets, bucket_base: bucketBase }),
        },
        params: p,
        workgroups: Math.ceil(numTiles / perWorkgroup),
      });
    };
    pass(3, keys, a, top, topParams, countArray, topTiles);
    rec.dispatch(table, {
      bindings: { digit_total: digitTotal, buckets, padded_count: paddedCount, keys: a },
      workgroups: [RADIX, 1, 1],
    });
    pass(0, a, b, firstInner, innerParams, paddedCount, paddedTiles);
    pass(1, b, a, inner, innerParams, paddedCount, paddedTiles);
    pass(2, a, output, last, innerParams, paddedCount, paddedTiles);
  };
}
