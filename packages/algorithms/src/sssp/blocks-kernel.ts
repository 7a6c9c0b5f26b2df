import { type BindingDecl, unrolled } from '@weft/gpu';
import { UNREACHED_F32, UNREACHED_U32 } from './decode.ts';

// The round kernel of block-local SSSP (`./blocks.ts`): one workgroup a block, its distances in workgroup memory.

/** The shape of block-local SSSP's round kernel, as `SsspBlocks.shape` reports it for prepared blocks. */
export interface BlockKernelShape {
  /** Threads of a workgroup. */
  workgroupSize: number;
  /** Vertices a thread holds: a block has at most `workgroupSize * verticesPerThread`. */
  verticesPerThread: number;
  /** Intra-block arcs a thread keeps in registers: a block has at most `workgroupSize * arcsPerThread`. */
  arcsPerThread: number;
  /**
   * Most passes a round: after pushing across its boundary, a block reloads its distances and, where another
   * block has lowered one meanwhile, sweeps and pushes again instead of waiting for the next round.
   */
  passes: number;
  /**
   * Most sweeps a pass (0: until none changes anything): a block stopped by it pushes what it has and flags
   * itself for the next round, so a slow block does not hold a round back from its neighbours.
   */
  maxSweeps: number;
  /** f32 distance words (bits of non-negative floats) instead of saturating u32 sums. */
  float: boolean;
}

export const BLOCK_BINDINGS: Record<string, BindingDecl> = {
  block_meta: { type: 'array<u32>', access: 'read' },
  arcs: { type: 'array<vec2<u32>>', access: 'read' },
  cross_offsets: { type: 'array<u32>', access: 'read' },
  cross: { type: 'array<u32>', access: 'read' },
  dist: { type: 'array<atomic<u32>>', access: 'read_write' },
  relaxed: { type: 'array<u32>', access: 'read_write' },
  state: { type: 'array<atomic<u32>>', access: 'read_write' },
};

export const BLOCK_PARAMS = {
  blocks: 'u32',
  flags_in: 'u32',
  flags_out: 'u32',
  count_out: 'u32',
  count_clear: 'u32',
} as const;

function addWgsl(float: boolean): string {
  return float
    ? `fn weft_add(d: u32, w: u32) -> u32 {
  let s = bitcast<u32>(bitcast<f32>(d) + bitcast<f32>(w));
  return select(s, 0x7f7fffffu, s >= UNREACHED);
}`
    : `fn weft_add(d: u32, w: u32) -> u32 {
  let s = d + w;
  return select(s, 0xfffffffeu, s < d || s == 0xffffffffu);
}`;
}

/**
 * One round. A thread's consecutive arcs mostly chain (see `chainSlots`): the distance an arc's `atomicMin`
 * leaves at its target is carried to the next arc when that one leaves from there, saving a dependent load a
 * hop. A carried value may be stale within a sweep, but only while some other relaxation lowers it, which
 * marks the sweep as changed; the last sweep, where nothing changes, sees every distance as it is. Loads
 * that do not depend on each other are issued together (the block's bounds with its flag, a vertex's cross
 * range with its last relaxed distance): a round's fixed cost is its chain of global round trips.
 *
 * `block_meta` holds `[block start, arc start]` per block and one pair past the last; `state` holds
 * three rotating counts of blocks activated for the next round, then two sets of per-block active flags
 * (`flags_in`, `flags_out` are their offsets). An active block takes its flag back to 0, loads its
 * distances, sweeps its intra-block arcs (held in registers) with workgroup atomics until a sweep changes
 * nothing, lowers the global distances it improved, and relaxes the cross arcs of every vertex whose
 * distance fell below the one its cross arcs were last relaxed from (`relaxed`), flagging each block whose
 * vertex it improved. Blocks wait on no other workgroup.
 */
export function blockRoundWgsl(shape: BlockKernelShape): string {
  const { workgroupSize, verticesPerThread, arcsPerThread, passes, maxSweeps, float } = shape;
  return /* wgsl */ `
const WG = ${workgroupSize}u;
const VPT = ${verticesPerThread}u;
const APT = ${arcsPerThread}u;
const PASSES = ${passes}u;
const MAX_SWEEPS = ${maxSweeps}u;
const CAP = ${workgroupSize * verticesPerThread}u;
const UNREACHED = ${float ? UNREACHED_F32 : UNREACHED_U32}u;
const NONE = 0xffffffffu;

var<workgroup> local_dist: array<atomic<u32>, CAP>;
var<workgroup> changed: array<atomic<u32>, 2>;
var<workgroup> reloaded: atomic<u32>;
var<workgroup> uniform_word: u32;

${addWgsl(float)}

fn relax_cross(v: u32, d: u32) {
  let first = cross_offsets[v];
  let last = cross_offsets[v + 1u];
  let relaxed_from = relaxed[v];
  if (first == last || d >= relaxed_from) { return; }
  relaxed[v] = d;
  for (var c = first; c < last; c++) {
    let t = cross[3u * c];
    let to_block = cross[3u * c + 1u];
    let nd = weft_add(d, cross[3u * c + 2u]);
    if (nd < atomicMin(&dist[t], nd)) {
      let flag = params.flags_out + to_block;
      if (atomicLoad(&state[flag]) == 0u && atomicExchange(&state[flag], 1u) == 0u) {
        atomicAdd(&state[params.count_out], 1u);
      }
    }
  }
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wid: vec3<u32>,
        @builtin(num_workgroups) nwg: vec3<u32>) {
  let b = weft_workgroup_index(wid, nwg);
  if (b == 0u && lid == 0u) { atomicStore(&state[params.count_clear], 0u); }
  if (b >= params.blocks) { return; }
  let start = block_meta[2u * b];
  let size = block_meta[2u * b + 2u] - start;
  let arc_first = block_meta[2u * b + 1u];
  let arc_count = block_meta[2u * b + 3u] - arc_first;
  if (lid == 0u) {
    uniform_word = atomicExchange(&state[params.flags_in + b], 0u);
    atomicStore(&changed[0], 0u);
    atomicStore(&reloaded, 0u);
  }
  if (workgroupUniformLoad(&uniform_word) == 0u) { return; }
  var before: array<u32, VPT>;
${unrolled(
  verticesPerThread,
  (j) => `
    let i = lid + ${j} * WG;
    var d = UNREACHED;
    if (i < size) { d = atomicLoad(&dist[start + i]); }
    before[${j}] = d;
    atomicStore(&local_dist[i], d);`,
)}
  var ends: array<u32, APT>;
  var weights: array<u32, APT>;
${unrolled(
  arcsPerThread,
  (k) => `
    let a = lid + ${k} * WG;
    ends[${k}] = NONE;
    if (a < arc_count) {
      let arc = arcs[arc_first + a];
      ends[${k}] = arc.x;
      weights[${k}] = arc.y;
    }`,
)}
  workgroupBarrier();
  var sweep = 0u;
  var unfinished = false;
  for (var round_pass = 0u; round_pass < PASSES; round_pass++) {
  var pass_sweeps = 0u;
  loop {
    let slot = sweep & 1u;
    if (lid == 0u) { atomicStore(&changed[slot ^ 1u], 0u); }
    var moved = false;
    var carried = UNREACHED;
    var carried_at = NONE;
${unrolled(
  arcsPerThread,
  (k) => `
    let e = ends[${k}];
    if (e != NONE) {
      let src = e & 0xffffu;
      var d = carried;
      if (src != carried_at) { d = atomicLoad(&local_dist[src]); }
      carried_at = NONE;
      if (d != UNREACHED) {
        let nd = weft_add(d, weights[${k}]);
        let t = e >> 16u;
        let was = atomicMin(&local_dist[t], nd);
        moved = moved || nd < was;
        carried = min(was, nd);
        carried_at = t;
      }
    }`,
)}
    if (moved) { atomicStore(&changed[slot], 1u); }
    if (workgroupUniformLoad(&changed[slot]) == 0u) { break; }
    sweep++;
    pass_sweeps++;
    if (pass_sweeps == MAX_SWEEPS) {
      unfinished = true;
      break;
    }
  }
${unrolled(
  verticesPerThread,
  (j) => `
    let i = lid + ${j} * WG;
    if (i < size) {
      let d = atomicLoad(&local_dist[i]);
      if (d < before[${j}]) { atomicMin(&dist[start + i], d); }
      relax_cross(start + i, d);
    }`,
)}
    if (unfinished) {
      if (lid == 0u && atomicExchange(&state[params.flags_out + b], 1u) == 0u) {
        atomicAdd(&state[params.count_out], 1u);
      }
      break;
    }
    if (round_pass + 1u == PASSES) { break; }
${unrolled(
  verticesPerThread,
  (j) => `
    let i = lid + ${j} * WG;
    if (i < size) {
      let g = atomicLoad(&dist[start + i]);
      before[${j}] = g;
      if (g < atomicMin(&local_dist[i], g)) { atomicStore(&reloaded, 1u); }
    }`,
)}
    if (workgroupUniformLoad(&reloaded) == 0u) { break; }
    if (lid == 0u) { atomicStore(&reloaded, 0u); }
    sweep++;
  }
}`;
}
