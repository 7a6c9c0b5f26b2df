import {
  checkOptionsObject,
  type DeviceArray,
  type GpuCount,
  InputError,
  onTargetReusingScratch,
  type Recorder,
  type Target,
} from '@weft/gpu';

import { recordMergePathSearch } from './merge-path-search.ts';

const THREADS = 256;

export interface SortedSearchOptions {
  /**
   * `lower` (default): the first index whose element is >= the needle (moderngpu `bounds_lower`);
   * `upper`: the first index whose element is > the needle.
   */
  bound?: 'lower' | 'upper';
  /**
   * The needles are ascending too: use moderngpu's merge-path search (coalesced, O(needles + haystack)).
   * Default false: one binary search per needle, any needle order. Unsorted needles with `true` give
   * unspecified results.
   */
  needlesSorted?: boolean;
}

/** WGSL binary searches over a sorted `array<T>` binding, for T's own `<` (f32: NaNs unordered). */
function boundsWgsl(name: string, type: string): string {
  return /* wgsl */ `
// First index in [lo, hi) of ${name} whose element is >= x (lower) or > x (upper).
fn ${name}_lower(x: ${type}, lo0: u32, hi0: u32) -> u32 {
  var lo = lo0; var hi = hi0;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (${name}[mid] < x) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}
fn ${name}_upper(x: ${type}, lo0: u32, hi0: u32) -> u32 {
  var lo = lo0; var hi = hi0;
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (${name}[mid] <= x) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}`;
}

/**
 * moderngpu's sorted search: for every needle, its insertion index in the ascending `haystack`, written to
 * `output[i]` (u32). By default each needle is one binary search, so needles need not be sorted
 * (O(needles * log haystack)); with `needlesSorted`, a merge-path search.
 */
export async function sortedSearch(
  target: Target,
  needles: DeviceArray,
  haystack: DeviceArray,
  output: DeviceArray,
  options: SortedSearchOptions = {},
) {
  checkOptionsObject('sortedSearch', options);
  const bound = options.bound ?? 'lower';
  if (bound !== 'lower' && bound !== 'upper') {
    throw new InputError(`bound must be 'lower' or 'upper', got '${String(bound)}'`, 'sortedSearch options');
  }
  if (needles.type !== haystack.type) {
    throw new InputError(`needles are ${needles.type} but haystack is ${haystack.type}`, 'sortedSearch');
  }
  if (output.type !== 'u32' || output.length < needles.length) {
    throw new InputError(
      `output must be u32 with at least ${needles.length} elements, got ${output.type}[${output.length}]`,
      'sortedSearch output',
    );
  }
  if (needles.length === 0) return;
  await onTargetReusingScratch(target, 'sortedSearch', async (rec) => {
    if (options.needlesSorted) {
      await recordMergePathSearch(rec, needles, haystack, output, bound === 'upper');
      return;
    }
    const type = haystack.type;
    const kernel = await rec.device.kernel({
      label: `sorted search ${type}`,
      bindings: {
        needles: { type: `array<${type}>`, access: 'read' },
        haystack: { type: `array<${type}>`, access: 'read' },
        output: { type: 'array<u32>', access: 'read_write' },
      },
      params: { n: 'u32', m: 'u32', upper: 'u32' },
      code: /* wgsl */ `
${boundsWgsl('haystack', type)}
@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let i = weft_workgroup_index(wid, nwg) * ${THREADS}u + lid;
  if (i >= params.n) { return; }
  let x = needles[i];
  if (params.upper != 0u) { output[i] = haystack_upper(x, 0u, params.m); }
  else { output[i] = haystack_lower(x, 0u, params.m); }
}`,
    });
    rec.dispatch(kernel, {
      bindings: { needles, haystack, output },
      params: { n: needles.length, m: haystack.length, upper: bound === 'upper' ? 1 : 0 },
      workgroups: Math.ceil(needles.length / THREADS),
    });
  });
}

export interface IntersectCountOptions {
  /** Where to write the count (a u32 on the GPU); default: a new one-element array the caller owns. */
  output?: GpuCount;
}

/**
 * Counts the elements two ascending arrays have in common, as a multiset (a value present 3 times in `a`
 * and twice in `b` counts 2), without reading anything back: the count is written to `output` on the GPU.
 * Each element of the shorter array is binary-searched in the longer one: O(short * log long).
 */
export async function intersectCount(
  target: Target,
  a: DeviceArray,
  b: DeviceArray,
  options: IntersectCountOptions = {},
): Promise<GpuCount> {
  checkOptionsObject('intersectCount', options);
  if (a.type !== b.type) {
    throw new InputError(`a is ${a.type} but b is ${b.type}`, 'intersectCount');
  }
  const out = options.output;
  if (out && (out.index < 0 || out.index >= out.array.length || out.array.type !== 'u32')) {
    throw new InputError(
      `output index ${out.index} is not a u32 element of '${out.array.label}'`,
      'intersectCount output',
    );
  }
  let result: GpuCount | undefined = out;
  await onTargetReusingScratch(target, 'intersectCount', async (rec) => {
    result ??= { array: rec.device.array('u32', 1, { label: 'intersect count' }), index: 0 };
    await recordIntersectCount(rec, a, b, result);
  });
  return result!;
}

async function recordIntersectCount(rec: Recorder, a: DeviceArray, b: DeviceArray, out: GpuCount) {
  const [few, many] = a.length <= b.length ? [a, b] : [b, a];
  const type = a.type;
  const kernel = await rec.device.kernel({
    label: `intersect count ${type}`,
    bindings: {
      few: { type: `array<${type}>`, access: 'read' },
      many: { type: `array<${type}>`, access: 'read' },
      result: { type: 'array<atomic<u32>>', access: 'read_write' },
    },
    params: { n: 'u32', m: 'u32', index: 'u32' },
    entryPoints: ['clear', 'main'],
    code: /* wgsl */ `
${boundsWgsl('few', type)}
${boundsWgsl('many', type)}
var<workgroup> hits: atomic<u32>;

@compute @workgroup_size(1)
fn clear() { atomicStore(&result[params.index], 0u); }

@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) { atomicStore(&hits, 0u); }
  workgroupBarrier();
  let i = weft_workgroup_index(wid, nwg) * ${THREADS}u + lid;
  if (i < params.n) {
    let x = few[i];
    // The k-th copy of x in few matches iff many holds more than k copies of x.
    let k = i - few_lower(x, 0u, i);
    let lo = many_lower(x, 0u, params.m);
    if (lo + k < params.m && many[lo + k] == x) { atomicAdd(&hits, 1u); }
  }
  workgroupBarrier();
  if (lid == 0u) {
    let h = atomicLoad(&hits);
    if (h != 0u) { atomicAdd(&result[params.index], h); }
  }
}`,
  });
  const params = { n: few.length, m: many.length, index: out.index };
  rec.dispatch(kernel, { entry: 'clear', bindings: { few, many, result: out.array }, params, workgroups: 1 });
  if (few.length === 0) return;
  rec.dispatch(kernel, {
    entry: 'main',
    bindings: { few, many, result: out.array },
    params,
    workgroups: Math.ceil(few.length / THREADS),
  });
}
