import type { DeviceArray, Recorder } from '@weft/gpu';

/**
 * moderngpu's merge-path sorted search, for sorted needles: the merge of needles (A) and haystack (B) is cut
 * into tiles of TILE items by a binary search on each tile's starting diagonal (the partition kernel); each
 * tile then loads its slices of A and B into workgroup memory and every thread merges ITEMS consecutive
 * items serially. A needle's bound is the number of haystack items merged before it. All reads are
 * coalesced: O(needles + haystack) instead of O(needles * log haystack).
 */
const THREADS = 128;
const ITEMS = 8;
const TILE = THREADS * ITEMS;

/** `a_first(a, b)`: does needle `a` come before haystack item `b` in the merge? */
function mergeOrderWgsl(type: string): string {
  return /* wgsl */ `
// Lower bound: a needle goes before equal haystack items (they do not count); upper: after them.
fn a_first(a: ${type}, b: ${type}) -> bool {
  if (params.upper != 0u) { return a < b; }
  return a <= b;
}
`;
}

const PARTITION_WGSL = /* wgsl */ `
@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let p = weft_workgroup_index(wid, nwg) * ${THREADS}u + lid;
  if (p > params.tiles) { return; }
  let diag = min(p * ${TILE}u, params.n + params.m);
  var lo = select(0u, diag - params.m, diag > params.m);
  var hi = min(diag, params.n);
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (a_first(needles[mid], haystack[diag - 1u - mid])) { lo = mid + 1u; } else { hi = mid; }
  }
  partitions[p] = lo;
}
`;

function tileWgsl(type: string): string {
  return /* wgsl */ `
// The tile's needles at [0, na), its haystack items at [na, na + nb).
var<workgroup> items: array<${type}, ${TILE}>;

@compute @workgroup_size(${THREADS})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
  let tile = weft_workgroup_index(wid, nwg);
  if (tile >= params.tiles) { return; }
  let a0 = partitions[tile];
  let a1 = partitions[tile + 1u];
  let d0 = tile * ${TILE}u;
  let d1 = min(d0 + ${TILE}u, params.n + params.m);
  let b0 = d0 - a0;
  let b1 = d1 - a1;
  let na = a1 - a0;
  let nb = b1 - b0;
  for (var k = lid; k < na + nb; k += ${THREADS}u) {
    if (k < na) { items[k] = needles[a0 + k]; } else { items[k] = haystack[b0 + k - na]; }
  }
  workgroupBarrier();
  // This thread's diagonal inside the tile, then a serial merge of up to ITEMS items.
  let diag = min(lid * ${ITEMS}u, na + nb);
  var lo = select(0u, diag - nb, diag > nb);
  var hi = min(diag, na);
  while (lo < hi) {
    let mid = (lo + hi) / 2u;
    if (a_first(items[mid], items[na + diag - 1u - mid])) { lo = mid + 1u; } else { hi = mid; }
  }
  var i = lo;
  var j = diag - lo;
  for (var step = 0u; step < ${ITEMS}u; step++) {
    if (i + j >= na + nb) { break; }
    if (i < na && (j >= nb || a_first(items[i], items[na + j]))) {
      output[a0 + i] = b0 + j;
      i++;
    } else {
      j++;
    }
  }
}
`;
}

/** Records a merge-path sorted search of sorted, non-empty `needles` in `haystack`. */
export async function recordMergePathSearch(
  rec: Recorder,
  needles: DeviceArray,
  haystack: DeviceArray,
  output: DeviceArray,
  upper: boolean,
) {
  const type = haystack.type;
  const read = (t: string) => ({ type: `array<${t}>`, access: 'read' }) as const;
  const params = { n: 'u32', m: 'u32', tiles: 'u32', upper: 'u32' } as const;
  const [partition, merge] = await Promise.all([
    rec.device.kernel({
      label: `merge-path partition ${type}`,
      bindings: {
        needles: read(type),
        haystack: read(type),
        partitions: { type: 'array<u32>', access: 'read_write' },
      },
      params,
      code: mergeOrderWgsl(type) + PARTITION_WGSL,
    }),
    rec.device.kernel({
      label: `merge-path sorted search ${type}`,
      bindings: {
        needles: read(type),
        haystack: read(type),
        partitions: read('u32'),
        output: { type: 'array<u32>', access: 'read_write' },
      },
      params,
      code: mergeOrderWgsl(type) + tileWgsl(type),
    }),
  ]);
  const n = needles.length;
  const m = haystack.length;
  const tiles = Math.ceil((n + m) / TILE);
  const partitions = rec.scratch('u32', tiles + 1, 'merge-path partitions');
  const values = { n, m, tiles, upper: upper ? 1 : 0 };
  rec.dispatch(partition, {
    bindings: { needles, haystack, partitions },
    params: values,
    workgroups: Math.ceil((tiles + 1) / THREADS),
  });
  rec.dispatch(merge, {
    bindings: { needles, haystack, partitions, output },
    params: values,
    workgroups: tiles,
  });
}
