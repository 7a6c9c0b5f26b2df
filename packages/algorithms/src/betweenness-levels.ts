import { type DeviceArray, type Functor, type GpuCount, onTarget, type Target } from '@weft/gpu';

/** A BFS order kept level by level: level d is `order[levelStart[d] .. levelStart[d] + levelCount[d])`. */
export interface BfsLevels {
  readonly order: DeviceArray<'u32'>;
  readonly levelStart: DeviceArray<'u32'>;
  readonly levelCount: DeviceArray<'u32'>;
}

/** What a backward level computes: a sum of f32 terms over each vertex's out-edges, then a store. */
export interface LevelSweep {
  /** `(v: u32, edge: u32) -> f32`: the term of `v`'s out-edge `edge` (a CSR edge id), 0 for none. */
  term: Functor;
  /** `(v: u32, sum: f32)`: stores `v`'s result from the sum of its terms. */
  finish: Functor;
}

/** Most threads that walk one vertex's edges together, as in the small-frontier engine. */
const MAX_LANES = 32;

/**
 * Records one dispatch of one workgroup that walks the levels of `levels` from the one in the word `cursor`
 * down to level 1: for each vertex `v` of a level, `finish(v, sum of term(v, edge) over v's out-edges)`,
 * with a storage barrier between levels so that a level reads what the level below it wrote. It stops before
 * level 0 or before a level of more than `threshold` vertices, and leaves that level's index in `cursor`.
 *
 * Brandes' backward sweep on roads and meshes: hundreds of levels of a few hundred vertices, where a dispatch
 * per level costs far more than the level's work. Only one workgroup, so the barriers order every level.
 */
export async function recordLevelsDown(
  target: Target,
  offsets: DeviceArray<'u32'>,
  levels: BfsLevels,
  cursor: GpuCount,
  sweep: LevelSweep,
  options: { threshold: number; workgroupSize: number },
): Promise<void> {
  await onTarget(target, 'betweenness levels down', async (rec) => {
    const kernel = await rec.device.kernel({
      label: 'betweenness levels down',
      params: { cursor_index: 'u32', threshold: 'u32' },
      bindings: {
        order: { type: 'array<u32>', access: 'read' },
        level_start: { type: 'array<u32>', access: 'read' },
        level_count: { type: 'array<u32>', access: 'read' },
        cursor: { type: 'array<u32>', access: 'read_write' },
        offsets: { type: 'array<u32>', access: 'read' },
      },
      functors: { weft_term: sweep.term, weft_finish: sweep.finish },
      code: levelsDownWgsl(options.workgroupSize),
    });
    rec.dispatch(kernel, {
      bindings: {
        order: levels.order,
        level_start: levels.levelStart,
        level_count: levels.levelCount,
        cursor: cursor.array,
        offsets,
      },
      params: { cursor_index: cursor.index, threshold: options.threshold },
      workgroups: [1, 1, 1],
    });
  });
}

/**
 * `info[l % 2]` holds level l's (count, start), written by thread 0 during level l - 1 (its inputs were final
 * before the dispatch), so a level costs one uniform load and one storage barrier. A small level gives each
 * vertex `lanes` threads that walk its edges side by side (shortening the level's chain of dependent loads)
 * and leave their partial sums in `partial` for the vertex's first lane, one workgroup barrier later.
 */
function levelsDownWgsl(wg: number): string {
  return /* wgsl */ `
const WG = ${wg}u;
const MAX_LANES = ${MAX_LANES}u;

var<workgroup> info: array<vec2<u32>, 2>;
var<workgroup> entry_level: u32;
var<workgroup> partial: array<f32, WG>;

fn vertex_sum(v: u32, first: u32, step: u32) -> f32 {
  let end = offsets[v + 1u];
  var sum = 0.0;
  for (var k = first; k < end; k += step) { sum += weft_term(v, k); }
  return sum;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    let d0 = cursor[params.cursor_index];
    entry_level = d0;
    info[0] = vec2<u32>(level_count[d0], level_start[d0]);
  }
  var d = workgroupUniformLoad(&entry_level);
  var levels = 0u;
  loop {
    if (d == 0u) { break; }
    let here = workgroupUniformLoad(&info[levels & 1u]);
    if (here.x > params.threshold) { break; }
    if (lid == 0u) {
      info[(levels + 1u) & 1u] = vec2<u32>(level_count[d - 1u], level_start[d - 1u]);
    }
    let lanes = clamp(WG / max(here.x, 1u), 1u, MAX_LANES);
    if (lanes == 1u) {
      for (var i = lid; i < here.x; i += WG) {
        let v = order[here.y + i];
        weft_finish(v, vertex_sum(v, offsets[v], 1u));
      }
    } else {
      // Here the level's count is at most WG / lanes: one round of groups covers it.
      let group = lid / lanes;
      let lane = lid % lanes;
      var v = 0u;
      var part = 0.0;
      if (group < here.x) {
        v = order[here.y + group];
        part = vertex_sum(v, offsets[v] + lane, lanes);
      }
      partial[lid] = part;
      workgroupBarrier();
      if (lane == 0u && group < here.x) {
        var sum = 0.0;
        for (var j = 0u; j < lanes; j++) { sum += partial[lid + j]; }
        weft_finish(v, sum);
      }
    }
    storageBarrier();
    d -= 1u;
    levels += 1u;
  }
  if (lid == 0u) { cursor[params.cursor_index] = d; }
}`;
}
