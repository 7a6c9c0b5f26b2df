import { type DeviceArray, type Functor, type GpuCount, onTarget, type Target } from '@weft/gpu';

/** A BFS order kept level by level: level d is `order[levelStart[d] .. levelStart[d] + levelCount[d])`. */
export interface BfsLevels {
  readonly order: DeviceArray<'u32'>;
  readonly levelStart: DeviceArray<'u32'>;
  readonly levelCount: DeviceArray<'u32'>;
}

/**
 * Records one dispatch of one workgroup that walks the levels of `levels` from the one in the word `cursor`
 * down to level 1, calling `vertex(v: u32)` for each vertex of a level (a thread a vertex), with a storage
 * and a workgroup barrier between levels so that a level reads what the level below it wrote. It stops before
 * level 0 or before a level of more than `threshold` vertices, and leaves that level's index in `cursor`.
 *
 * Brandes' backward sweep on roads and meshes: hundreds of levels of a few hundred vertices, where a dispatch
 * per level costs far more than the level's work. Only one workgroup, so the barriers order every level.
 */
export async function recordLevelsDown(
  target: Target,
  levels: BfsLevels,
  cursor: GpuCount,
  vertex: Functor,
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
      },
      functors: { weft_vertex: vertex },
      code: levelsDownWgsl(options.workgroupSize),
    });
    rec.dispatch(kernel, {
      bindings: {
        order: levels.order,
        level_start: levels.levelStart,
        level_count: levels.levelCount,
        cursor: cursor.array,
      },
      params: { cursor_index: cursor.index, threshold: options.threshold },
      workgroups: [1, 1, 1],
    });
  });
}

/**
 * `info[l % 2]` holds level l's (count, start), written by thread 0 during level l - 1 (its inputs were final
 * before the dispatch), so a level costs one uniform load and one storage barrier.
 */
function levelsDownWgsl(wg: number): string {
  return /* wgsl */ `
const WG = ${wg}u;

var<workgroup> info: array<vec2<u32>, 2>;
var<workgroup> entry_level: u32;

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
    for (var i = lid; i < here.x; i += WG) { weft_vertex(order[here.y + i]); }
    storageBarrier();
    d -= 1u;
    levels += 1u;
  }
  if (lid == 0u) { cursor[params.cursor_index] = d; }
}`;
}
