import { type DeviceArray, InputError, type Recorder } from '@weft/gpu';
import {
  CONTROL_WORDS,
  globalHistWgsl,
  HIST_WORKGROUPS,
  ONESWEEP_PARAMS,
  onesweepWgsl,
} from './onesweep-wgsl.ts';
import type { KeyOrder } from './order-key.ts';
import {
  downsweepWgsl,
  RADIX,
  RADIX_BITS,
  RADIX_PARAMS,
  type RadixTileConfig,
  rowScanWgsl,
  THREADS,
  tileKernelCode,
  unorderedFirstPass,
  upsweepWgsl,
} from './radix-wgsl.ts';

/** Knobs for benchmarks and tests; the defaults are the tuned values. */
export interface SortTuning {
  /**
   * Keys per thread of a tile (tile = workgroup size x this; default the largest of 16, 12, 8 that fits
   * in workgroup memory, or without subgroups of 8, 4).
   */
  keysPerThread?: number;
  /**
   * Threads per workgroup of the ranking kernels: 256, 128 or 64 (default the largest that fits: each
   * subgroup keeps its own 256-digit histogram, so adapters with 4-lane subgroups need fewer threads).
   */
  workgroupSize?: number;
  /**
   * Rank with 128-lane (vec4) ballot masks even on adapters whose subgroups have at most 32 lanes, where
   * one-word masks are the default (a test hook: keeps the wide path covered on such adapters).
   */
  wideMasks?: boolean;
  /**
   * Reduce-then-scan: consecutive tiles the upsweep counts in one workgroup (default: as many as keep at
   * least 2048 chunks, 1 to 8). More tiles a chunk shorten the rows the row scan walks.
   */
  tilesPerChunk?: number;
  /**
   * Rank the first pass of a keys-only u32 / i32 sort with ballots, keeping input order, like every other
   * pass (a benchmark and test hook: by default that pass takes the cheaper unstable ranking, which no
   * caller can tell apart; see `unorderedFirstPass`).
   */
  stableFirstPass?: boolean;
  /**
   * Reduce-then-scan: tiles each downsweep workgroup ranks in turn, loading the next tile's keys while the
   * current one scatters (default: up to 4 for keys-only sorts while at least 2048 workgroups remain, 1 for
   * pairs). Workgroups launched = tiles / this.
   */
  tilesPerWorkgroup?: number;
  /**
   * Reduce-then-scan, keys-only u32 / i32 sorts over 32 bits whose padded arrays (count + 256 tiles) fit a
   * storage binding (elsewhere ignored): sort by the top digit first into tile-aligned buckets, then by the
   * low digits inside them, so two passes rank unstably instead of one (see `prepareBucketed`; it ranks
   * them so whatever `stableFirstPass` says). Default: on from `AUTO_TOP_DIGIT_FIRST_FROM` keys (2^26)
   * unless `stableFirstPass` is set; below that its 256 tiles of padding and bucket kernels cost more than
   * the unstable pass saves.
   */
  topDigitFirst?: boolean;
  /** OneSweep: polls of a predecessor's status before counting its keys itself (default 64). */
  maxSpin?: number;
  /** OneSweep test hook: never trust odd tiles' published counts, so the fallback path always runs. */
  distrustOddTiles?: boolean;
}

/**
 * Throws InputError for a tuning knob out of range, whichever algorithm runs (a knob of the other algorithm
 * is ignored, but never silently wrong). `keysPerThread` and `workgroupSize` are checked with the tile shape.
 */
export function checkSortTuning(tuning: SortTuning): void {
  const ranges = [
    ['tilesPerChunk', tuning.tilesPerChunk, 1, 1024],
    ['tilesPerWorkgroup', tuning.tilesPerWorkgroup, 1, 1024],
    ['maxSpin', tuning.maxSpin, 0, 2 ** 32 - 1],
  ] as const;
  for (const [name, value, min, max] of ranges) {
    if (value !== undefined && (!Number.isInteger(value) || value < min || value > max)) {
      throw new InputError(`${name} must be an integer in [${min}, ${max}], got ${value}`, 'sort tuning');
    }
  }
}

/** Tiles a chunk has at most by default: rows 8x shorter, still 2^27 keys in 4096 upsweep workgroups. */
const MAX_TILES_PER_CHUNK = 8;
/** Chunks to keep at least, so every SM of a large GPU has several to take in turn. */
const MIN_CHUNKS = 2048;

/** Tiles per chunk when the caller does not choose: as many as keep {@link MIN_CHUNKS} chunks, 1 to 8. */
export function defaultTilesPerChunk(numTiles: number): number {
  return Math.max(1, Math.min(MAX_TILES_PER_CHUNK, Math.floor(numTiles / MIN_CHUNKS)));
}

/** Downsweep workgroups to keep at least when they take several tiles: a large GPU's SMs take many in turn. */
const MIN_DOWNSWEEP_WORKGROUPS = 2048;
const MAX_TILES_PER_WORKGROUP = 4;

/**
 * Tiles per downsweep workgroup when the caller does not choose: a keys-only sort takes up to 4 while
 * {@link MIN_DOWNSWEEP_WORKGROUPS} remain, the fastest count measured; pairs keep one (their workgroups hold
 * the values too and lose occupancy; docs/decisions/sort-algorithm.md).
 */
export function defaultTilesPerWorkgroup(numTiles: number, pairs: boolean): number {
  if (pairs) return 1;
  return Math.max(1, Math.min(MAX_TILES_PER_WORKGROUP, Math.floor(numTiles / MIN_DOWNSWEEP_WORKGROUPS)));
}

export interface PassContext {
  readonly rec: Recorder;
  readonly config: RadixTileConfig;
  readonly passes: number;
  readonly pairs: boolean;
  readonly numTiles: number;
  readonly countArray: DeviceArray<'u32'>;
  readonly order: KeyOrder;
  /** n, gpu_count, count_index, sort_bits. */
  readonly params: Readonly<Record<string, number>>;
  readonly tuning: SortTuning;
}

export interface PassArrays {
  keys: DeviceArray;
  values: DeviceArray | undefined;
}

/** Records digit pass `p` from `src` into `dst`. */
export type RecordPass = (p: number, src: PassArrays, dst: PassArrays) => void;

export const read = { type: 'array<u32>', access: 'read' } as const;
export const write = { type: 'array<u32>', access: 'read_write' } as const;
const atomics = { type: 'array<atomic<u32>>', access: 'read_write' } as const;

/**
 * The reduce-then-scan kernels that count: the upsweep (chunk digit counts, tile prefixes) and the row scan
 * (each digit's row over chunks, and the digit totals).
 */
export function countingKernels(rec: Recorder, config: RadixTileConfig, order: KeyOrder) {
  return Promise.all([
    rec.device.kernel({
      label: 'radix upsweep',
      bindings: { keys_in: read, row_prefix: write, tile_prefix: write, count: read },
      params: RADIX_PARAMS,
      code: upsweepWgsl(config, order),
    }),
    rec.device.kernel({
      label: 'radix row scan',
      bindings: { row_prefix: write, digit_total: write, count: read },
      params: RADIX_PARAMS,
      code: tileKernelCode(config, rowScanWgsl(config)),
      subgroups: config.subgroups,
    }),
  ]);
}

/** Whether pass 0 ranks unstably: where no caller can tell (see `unorderedFirstPass`) and not turned off. */
function unstableFirstPass(ctx: PassContext): boolean {
  return !ctx.tuning.stableFirstPass && unorderedFirstPass(ctx.order, ctx.pairs, ctx.params['sort_bits']!);
}

/** Pass `p`'s digit: its shift and bits (the last pass of a `sort_bits` not a multiple of 8 has fewer). */
function digitParams(ctx: PassContext, p: number): { shift: number; digit_mask: number } {
  const shift = p * RADIX_BITS;
  const bits = Math.min(RADIX_BITS, ctx.params['sort_bits']! - shift);
  return { shift, digit_mask: (1 << bits) - 1 };
}

function passBindings(src: PassArrays, dst: PassArrays): Record<string, DeviceArray> {
  const b: Record<string, DeviceArray> = { keys_in: src.keys, keys_out: dst.keys };
  if (src.values && dst.values) {
    b['values_in'] = src.values;
    b['values_out'] = dst.values;
  }
  return b;
}

/**
 * Reduce-then-scan: per pass an upsweep (chunk digit counts and each tile's prefix in its chunk), a scan of
 * each digit's row over chunks, and a downsweep. Reads the keys twice per pass. Scratch: 256 x (chunks + 1)
 * u32, plus 256 x tiles u32 of tile prefixes when a chunk has more than one tile.
 */
export async function prepareReduceThenScan(ctx: PassContext): Promise<RecordPass> {
  const { rec, config, numTiles, countArray } = ctx;
  const device = rec.device;
  const tilesPerChunk = ctx.tuning.tilesPerChunk ?? defaultTilesPerChunk(numTiles);
  const perWorkgroup = ctx.tuning.tilesPerWorkgroup ?? defaultTilesPerWorkgroup(numTiles, ctx.pairs);
  const numChunks = Math.ceil(numTiles / tilesPerChunk);
  const downsweepKernel = (stable: boolean) =>
    device.kernel({
      label: `radix downsweep${ctx.pairs ? ' pairs' : ''}${stable ? '' : ' unstable'}`,
      bindings: {
        keys_in: read,
        keys_out: write,
        ...(ctx.pairs ? { values_in: read, values_out: write } : {}),
        row_prefix: read,
        tile_prefix: read,
        digit_total: read,
        count: read,
      },
      params: RADIX_PARAMS,
      code: tileKernelCode(
        config,
        downsweepWgsl(config, ctx.pairs, ctx.order, { stable, tilesPerWorkgroup: perWorkgroup }),
      ),
      subgroups: config.subgroups,
    });
  const firstUnordered = unstableFirstPass(ctx);
  const [[upsweep, rowScan], downsweep, firstDownsweep] = await Promise.all([
    countingKernels(rec, config, ctx.order),
    // Every sort has a stable pass: an unstable first pass comes only with 32-bit keys (4 passes).
    downsweepKernel(true),
    firstUnordered ? downsweepKernel(false) : undefined,
  ]);
  const rowPrefix = rec.scratch('u32', RADIX * numChunks, 'sort chunk prefixes');
  // With one tile a chunk the kernels neither write nor read tile prefixes: a token binding, not n / 16 words.
  const tilePrefix = rec.scratch(
    'u32',
    tilesPerChunk > 1 ? RADIX * numTiles : 4,
    'sort tile prefixes in chunks',
  );
  const digitTotal = rec.scratch('u32', RADIX, 'sort digit totals');
  return (p, src, dst) => {
    const params = {
      ...ctx.params,
      num_tiles: numTiles,
      tiles_per_chunk: tilesPerChunk,
      num_chunks: numChunks,
      ...digitParams(ctx, p),
    };
    rec.dispatch(upsweep, {
      bindings: { keys_in: src.keys, row_prefix: rowPrefix, tile_prefix: tilePrefix, count: countArray },
      params,
      workgroups: numChunks,
    });
    rec.dispatch(rowScan, {
      bindings: { row_prefix: rowPrefix, digit_total: digitTotal, count: countArray },
      params,
      workgroups: [RADIX, 1, 1],
    });
    rec.dispatch(p === 0 && firstDownsweep ? firstDownsweep : downsweep, {
      bindings: {
        ...passBindings(src, dst),
        row_prefix: rowPrefix,
        tile_prefix: tilePrefix,
        digit_total: digitTotal,
        count: countArray,
      },
      params,
      workgroups: Math.ceil(numTiles / perWorkgroup),
    });
  };
}

/** Zeroes `array` (length a multiple of 4) with a vec4 store kernel. */
async function recordZero(rec: Recorder, array: DeviceArray) {
  const kernel = await rec.device.kernel({
    label: 'sort zero',
    bindings: { words: { type: 'array<vec4<u32>>', access: 'read_write' } },
    params: { n4: 'u32' },
    code: /* wgsl */ `
@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${THREADS}u + lid;
  if (i < params.n4) { words[i] = vec4<u32>(0u); }
}`,
  });
  const n4 = Math.ceil(array.length / 4);
  rec.dispatch(kernel, { bindings: { words: array }, params: { n4 }, workgroups: Math.ceil(n4 / THREADS) });
}

/**
 * OneSweep: one histogram kernel for all passes (recorded now, reading `keys`), then one kernel per pass.
 * Scratch: the status words (passes x 256 x tiles u32, about n / 4 bytes per pass) and 1028 control words,
 * both cleared here (stale flags from an earlier sort would be read as published counts).
 */
export async function prepareOneSweep(ctx: PassContext, keys: DeviceArray): Promise<RecordPass> {
  const { rec, config, numTiles, countArray, passes } = ctx;
  const device = rec.device;
  const maxSpin = ctx.tuning.maxSpin ?? 64;
  const passKernel = (stable: boolean) =>
    device.kernel({
      label: `onesweep pass${ctx.pairs ? ' pairs' : ''}${stable ? '' : ' unstable'}`,
      bindings: {
        keys_in: read,
        keys_out: write,
        ...(ctx.pairs ? { values_in: read, values_out: write } : {}),
        status: atomics,
        control: atomics,
        count: read,
      },
      params: ONESWEEP_PARAMS,
      code: tileKernelCode(config, onesweepWgsl(config, ctx.pairs, ctx.order, stable)),
      subgroups: config.subgroups,
    });
  const firstUnstable = unstableFirstPass(ctx);
  const [hist, pass, firstPass] = await Promise.all([
    device.kernel({
      label: 'onesweep histogram',
      bindings: { keys_in: read, control: atomics, count: read },
      params: ONESWEEP_PARAMS,
      code: globalHistWgsl(ctx.order),
    }),
    passKernel(true),
    firstUnstable ? passKernel(false) : undefined,
  ]);
  const control = rec.scratch('u32', CONTROL_WORDS, 'onesweep control');
  const status = rec.scratch('u32', passes * numTiles * RADIX, 'onesweep status');
  // Cleared by a kernel rather than clearBuffer: stays inside the compute pass (and its timing).
  await recordZero(rec, control);
  await recordZero(rec, status);
  const baseParams = {
    ...ctx.params,
    num_tiles: numTiles,
    passes,
    distrust_odd: ctx.tuning.distrustOddTiles ? 1 : 0,
    max_spin: maxSpin,
    shift: 0,
    digit_mask: 0,
    pass_index: 0,
  };
  rec.dispatch(hist, {
    bindings: { keys_in: keys, control, count: countArray },
    params: baseParams,
    workgroups: Math.min(HIST_WORKGROUPS, numTiles * 4),
  });
  return (p, src, dst) => {
    rec.dispatch(p === 0 && firstPass ? firstPass : pass, {
      bindings: { ...passBindings(src, dst), status, control, count: countArray },
      params: { ...baseParams, pass_index: p, ...digitParams(ctx, p) },
      workgroups: numTiles,
    });
  };
}
