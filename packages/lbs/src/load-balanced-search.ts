import { type Count, type DeviceArray, InputError, isGpuCount, rw, type Target, wgsl } from '@weft/gpu';
import { transformLbs } from './transform-lbs.ts';

function checkOutput(what: string, count: Count, output: DeviceArray, name: string): void {
  if (!isGpuCount(count) && output.length < count) {
    throw new InputError(
      `${name} '${output.label}' has ${output.length} elements but count is ${count}`,
      what,
    );
  }
}

/**
 * moderngpu's `load_balance_search`: `output[i]` = the segment holding work item i, for i in [0, count).
 * Offsets as in {@link transformLbs}; a GPU-resident count is bounded by `output.length`.
 */
export async function loadBalancedSearch(
  target: Target,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  output: DeviceArray<'u32'>,
): Promise<void> {
  if (output.type !== 'u32')
    throw new InputError(`output must be u32, got ${output.type}`, 'loadBalancedSearch');
  checkOutput('loadBalancedSearch', count, output, 'output');
  await transformLbs(
    target,
    count,
    segmentOffsets,
    numSegments,
    wgsl`(index: u32, seg: u32, rank: u32) { ${rw(output)}[index] = seg; }`,
    { maxCount: output.length },
  );
}

/**
 * moderngpu's `interval_expand`: copies `values[seg]` into every item of segment `seg`, so
 * `output[i] = values[segment of i]` for i in [0, count). Offsets as in {@link transformLbs}.
 */
export async function intervalExpand(
  target: Target,
  count: Count,
  segmentOffsets: DeviceArray<'u32'>,
  numSegments: Count,
  values: DeviceArray,
  output: DeviceArray,
): Promise<void> {
  if (values.type !== output.type) {
    throw new InputError(
      `values '${values.label}' (${values.type}) and output '${output.label}' (${output.type}) differ in type`,
      'intervalExpand',
    );
  }
  if (!isGpuCount(numSegments) && values.length < numSegments) {
    throw new InputError(
      `values '${values.label}' has ${values.length} elements but numSegments is ${numSegments}`,
      'intervalExpand',
    );
  }
  checkOutput('intervalExpand', count, output, 'output');
  await transformLbs(
    target,
    count,
    segmentOffsets,
    numSegments,
    wgsl`(index: u32, seg: u32, rank: u32) { ${rw(output)}[index] = ${values}[seg]; }`,
    { maxCount: output.length },
  );
}
