import {
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  type GpuCount,
  InputError,
  onTarget,
  rw,
  type Target,
  transform,
  u32,
  type WeftDevice,
  type Workgroups,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph, FrontierView } from '@weft/graph';
import { edgeIdFunctor, edgeView, neighborFunctor } from './advance.ts';

/** Why a small-frontier dispatch stopped (`SmallFrontierState` word `exit`). */
export const SMALL_FRONTIER_EXIT = {
  /** The frontier became empty: the traversal is over. */
  empty: 0,
  /** A level's output outgrew the workgroup's capacity: the bulk path takes the frontier. */
  overflow: 1,
  /** `maxLevels` levels ran; the frontier (at most `capacity` vertices) is left for the next call. */
  levelBound: 2,
  /** The input frontier was larger than the capacity: no level ran, the frontier is untouched. */
  tooLarge: 3,
} as const;

/**
 * Storage buffers a stage must allow for the engine's kernels (its own state plus the graph's arrays and
 * the caller's functors); browsers that grant fewer (8 or 10) run the bulk path alone.
 */
export const SMALL_FRONTIER_MIN_STORAGE_BUFFERS = 16;

/** Whether `'auto'` may run the small-frontier engine on `device` (see {@link SMALL_FRONTIER_MIN_STORAGE_BUFFERS}). */
export function smallFrontierFits(device: WeftDevice): boolean {
  return device.limits.maxStorageBuffersPerShaderStage >= SMALL_FRONTIER_MIN_STORAGE_BUFFERS;
}

/** Most levels one dispatch may run, so every dispatch ends in bounded time. */
export const MAX_LEVELS_PER_DISPATCH = 1 << 20;

/** Workgroup memory the kernel needs beside the frontier's two buffers: the list of high-degree vertices. */
const BIG_LIST = 256;
const RESERVED_BYTES = BIG_LIST * 4 + 64;
/** Frontier capacities are a multiple of this; 4096 is the most the engine asks for. */
const CAPACITY_STEP = 256;
const MAX_CAPACITY = 4096;
/** Workgroup memory per unit of capacity: two sides of a vertex and its row bounds (offsets[v], offsets[v + 1]). */
const BYTES_PER_ENTRY = 2 * 3 * 4;
/**
 * A vertex with more out-edges than this is walked by the whole workgroup together, not by one thread (road
 * graphs never reach it; a hub would otherwise serialise a level on one thread).
 */
const COOPERATIVE_DEGREE = 64;
/** Most threads that walk one frontier vertex's edges together (at most a warp). */
const MAX_LANES = 32;

/** Threads of the engine's workgroup on `device`: its limits, at most `wanted` (default 1024). */
export function smallFrontierWorkgroupSize(device: WeftDevice, wanted = 1024): number {
  if (!Number.isInteger(wanted) || wanted < 1) {
    throw new InputError(`workgroupSize must be a positive integer, got ${wanted}`, 'options.workgroupSize');
  }
  const limits = device.limits;
  return Math.min(wanted, limits.maxComputeInvocationsPerWorkgroup, limits.maxComputeWorkgroupSizeX);
}

/**
 * The most frontier vertices one workgroup holds per level on `device`: two ping-pong buffers of this many
 * vertices and their row bounds fit in `maxComputeWorkgroupStorageSize` beside the kernel's other workgroup
 * memory (at most 4096).
 */
export function smallFrontierCapacity(device: WeftDevice): number {
  const bytes = device.limits.maxComputeWorkgroupStorageSize - RESERVED_BYTES;
  const fit = Math.floor(bytes / BYTES_PER_ENTRY / CAPACITY_STEP) * CAPACITY_STEP;
  return Math.max(CAPACITY_STEP, Math.min(MAX_CAPACITY, fit));
}

export interface SmallFrontierStateOptions {
  /**
   * Items per workgroup of the bulk-path dispatches to size: for each entry `p`, every call writes the
   * indirect arguments `[x, y, 1]` (x * y >= ceil(frontier / p), split beyond maxComputeWorkgroupsPerDimension
   * as `Recorder.indirectArgs` does) for the frontier it leaves. Default `[256]`.
   */
  itemsPerWorkgroup?: readonly number[];
  label?: string;
}

/**
 * What the small-frontier engine reports on the GPU, never read back by the engine itself: indirect
 * arguments for the bulk path, the levels run, and why the last call stopped. One array (usable as indirect
 * arguments): entry `i` of `itemsPerWorkgroup` at words `3i .. 3i + 3`, then the words below.
 */
export class SmallFrontierState {
  readonly words: DeviceArray<'u32'>;
  readonly itemsPerWorkgroup: readonly number[];
  /** Word index: levels run by every call since the last `recordReset` (or creation). */
  readonly levelsTotal: number;
  /** Word index: levels run by the last call. */
  readonly levelsLast: number;
  /** Word index: the last call's `SMALL_FRONTIER_EXIT` value. */
  readonly exit: number;
  /** Word index: the length of the frontier the last call left (also in the frontier's own count). */
  readonly frontierLength: number;

  constructor(
    readonly device: WeftDevice,
    options: SmallFrontierStateOptions = {},
  ) {
    checkOptionsObject('new SmallFrontierState', options);
    const sizes = options.itemsPerWorkgroup ?? [256];
    for (const p of sizes) {
      if (!Number.isInteger(p) || p < 1 || p > 0xffffffff) {
        throw new InputError(`items per workgroup must be positive integers, got ${p}`, 'itemsPerWorkgroup');
      }
    }
    this.itemsPerWorkgroup = [...sizes];
    const base = 3 * sizes.length;
    this.levelsTotal = base;
    this.levelsLast = base + 1;
    this.exit = base + 2;
    this.frontierLength = base + 3;
    this.words = device.array('u32', base + 4, {
      label: options.label ?? 'small frontier state',
      indirect: true,
    });
    this.words.upload(new Uint32Array(base + 4));
  }

  /** Indirect workgroups for a bulk dispatch of `itemsPerWorkgroup[i]` items per workgroup. */
  dispatchArgs(i = 0): Workgroups {
    if (!Number.isInteger(i) || i < 0 || i >= this.itemsPerWorkgroup.length) {
      throw new InputError(`no dispatch size ${i} (have ${this.itemsPerWorkgroup.length})`, 'dispatchArgs');
    }
    return { indirect: this.words, index: 3 * i };
  }

  /** The cumulative level count as a GPU count. */
  get levels(): GpuCount {
    return { array: this.words, index: this.levelsTotal };
  }

  /** Records: the cumulative level count back to zero. */
  recordReset(target: Target): Promise<void> {
    return onTarget(target, 'small frontier reset', async (rec) => {
      rec.clear(this.words);
    });
  }

  /**
   * Records, after the bulk level that follows a call: `levels[0]` counts that bulk level if the call left
   * it a frontier, and `levels[1]` becomes the traversal's levels so far (bulk and engine), on the GPU.
   * With `intoLevelIndex` the bulk level also joins `levelsTotal`, so the next call's `withLevel` index is
   * the frontier's depth (a BFS claims `level + 1`).
   */
  recordLevelCount(
    target: Target,
    levels: DeviceArray<'u32'>,
    options: { intoLevelIndex?: boolean } = {},
  ): Promise<void> {
    const total = u32(this.levelsTotal);
    if (options.intoLevelIndex) {
      return transform(
        target,
        1,
        wgsl`(i: u32) {
  if (${this.words}[${u32(this.frontierLength)}] > 0u) {
    ${rw(levels)}[0] += 1u;
    ${rw(this.words)}[${total}] += 1u;
  }
  ${rw(levels)}[1] = ${this.words}[${total}];
}`,
      );
    }
    return transform(
      target,
      1,
      wgsl`(i: u32) {
  if (${this.words}[${u32(this.frontierLength)}] > 0u) { ${rw(levels)}[0] += 1u; }
  ${rw(levels)}[1] = ${rw(levels)}[0] + ${this.words}[${total}];
}`,
    );
  }

  /** Reads the state back (one round trip; not for inner loops). */
  async read(): Promise<{ levelsTotal: number; levelsLast: number; exit: number; frontierLength: number }> {
    const w = await this.words.download();
    return {
      levelsTotal: w[this.levelsTotal]!,
      levelsLast: w[this.levelsLast]!,
      exit: w[this.exit]!,
      frontierLength: w[this.frontierLength]!,
    };
  }

  destroy(): void {
    this.words.destroy();
  }
}

export interface SmallFrontierOptions {
  /** Where the engine reports (levels, exit, bulk-path dispatch arguments). */
  state: SmallFrontierState;
  /** Most levels this dispatch runs (a uniform: changing it reuses the pipeline). Default 4096. */
  maxLevels?: number;
  /** Threads of the one workgroup (default: the device's limit, at most 1024). */
  workgroupSize?: number;
  /**
   * Frontier vertices the workgroup holds per level, a multiple of 256 (default and maximum:
   * `smallFrontierCapacity(device)`). Smaller values only serve tests of the hand-off.
   */
  capacity?: number;
  /**
   * Walk in-edges (the graph's CSC; an undirected graph's CSR) instead of out-edges, or `'both'`: each
   * frontier vertex's out-edges, then its in-edges (`src` is the frontier vertex either way, `edge` the
   * arc's CSR edge id); on an undirected graph `'both'` walks the CSR once, as `'out'`.
   */
  direction?: 'out' | 'in' | 'both';
  /**
   * The functor takes a fourth argument, `(src, dst, edge, level) -> bool`: the running level's index
   * counted over every call since the state's last reset (the state's `levelsTotal` plus the levels of
   * this call before it), so a functor can stamp `dst` with `level + 1` to add it to a level once.
   */
  withLevel?: boolean;
  /**
   * Called by every thread of the workgroup, in uniform control flow, whenever the frontier is empty
   * (before the first level too): `(lid: u32, threads: u32, calls: u32)`, where `lid` is the thread's index
   * in the workgroup, `threads` the workgroup's size and `calls` how many times this dispatch called it
   * before. It may refill the frontier by `weft_frontier_append(v: u32)` (any thread, once per vertex),
   * use `weft_hook_words: array<atomic<u32>, 4>` of workgroup memory as scratch and call barriers in
   * uniform control flow (read values that decide loops or returns with `workgroupUniformLoad`). After it
   * returns the workgroup continues with the appended vertices as the next frontier (more than the capacity
   * ends the dispatch as an overflowing level does), or stops with `exit` empty if it appended none: a
   * phase change of a multi-phase traversal without leaving the kernel.
   */
  onEmpty?: Functor;
  /**
   * Called by every thread of the workgroup, in uniform control flow, after each level whose output is not
   * empty (an overflowing one included): `(lid: u32, threads: u32, len: u32, level: u32)`, with
   * `weft_frontier_item(i: u32) -> u32` reading the output's vertex `i < len`; `level` is the index of the
   * level that ran, counted as `withLevel` counts it. A traversal that keeps its levels (betweenness' BFS
   * order) records them here. Its global writes are visible to the following calls, not to the next level's
   * functor calls. Each thread's `weft_level_private: vec4<u32>` is zero when the dispatch starts and keeps
   * what the hook leaves there from call to call (a running offset without a global load a level).
   */
  onLevel?: Functor;
}

/**
 * Multi-level push advance in one workgroup, for phases where the frontier is small (road networks, meshes:
 * hundreds of levels of a few hundred vertices each, where one dispatch per level costs far more than the
 * level's work). One dispatch of one workgroup runs level after level with the frontier in workgroup memory:
 * for every out-edge (src, dst) of the frontier it calls `functor(src, dst, edge) -> bool` (`edge` is the
 * CSR edge id), and each `dst` for which it returns true joins the next level's frontier. The functor must
 * claim `dst` itself (e.g. BFS's `atomicMin` on a depth) if a vertex should join a level once.
 *
 * The frontier lives in one buffer, read at the start and rewritten at the end (pass a `FrontierQueue`'s
 * `current`): `frontier.items[0 .. count)` with `count` at `frontier.length`. The dispatch stops when
 * - the frontier is empty (`exit` empty, count 0);
 * - a level's output exceeds the capacity (`exit` overflow): that whole level's output is left in the
 *   buffer (entries past `items.length` are dropped, as `FrontierQueue` drops them) for the bulk path;
 * - `maxLevels` levels ran (`exit` levelBound): the frontier is left in the buffer;
 * - the input frontier exceeds the capacity (`exit` tooLarge): nothing runs, the buffer is untouched.
 * Every level's output is complete when the next level starts (the levels are separated by storage and
 * workgroup barriers), so work alternates with bulk levels (`advancePush` from the buffer into the queue's
 * `next`, then `swap()`) with no vertex lost and no read-back: a call on a large frontier does nothing.
 * `options.state` receives the levels run and the bulk path's indirect dispatch arguments. With
 * `withLevel` the functor also receives the level's index, which grows from call to call (see the option).
 */
export async function advanceSmallFrontier(
  target: Target,
  graph: DeviceGraph,
  frontier: FrontierView & { readonly length: GpuCount },
  functor: Functor,
  options: SmallFrontierOptions,
): Promise<void> {
  checkOptionsObject('advanceSmallFrontier', options, true);
  const who = 'advanceSmallFrontier';
  const { state } = options;
  const device = graph.device;
  const direction = options.direction ?? 'out';
  const view = edgeView(graph, direction === 'in' ? 'in' : 'out', who);
  const { offsets, edgeIds } = view;
  const inEdges = direction === 'both' && graph.directed ? edgeView(graph, 'in', who) : undefined;
  // Neighbors in chunks are read through the chunk accessor (a binding a chunk); one array stays a binding.
  const chunked = !view.column.single || (inEdges !== undefined && !inEdges.column.single);
  const maxLevels = options.maxLevels ?? 4096;
  if (!Number.isInteger(maxLevels) || maxLevels < 0 || maxLevels > MAX_LEVELS_PER_DISPATCH) {
    throw new InputError(
      `maxLevels must be an integer in [0, ${MAX_LEVELS_PER_DISPATCH}], got ${maxLevels}`,
      'options.maxLevels',
    );
  }
  const wg = smallFrontierWorkgroupSize(device, options.workgroupSize);
  const most = smallFrontierCapacity(device);
  const cap = options.capacity ?? most;
  if (!Number.isInteger(cap) || cap < CAPACITY_STEP || cap > most || cap % CAPACITY_STEP !== 0) {
    throw new InputError(
      `capacity must be a multiple of ${CAPACITY_STEP} in [${CAPACITY_STEP}, ${most}], got ${cap}`,
      'options.capacity',
    );
  }
  if (state.device !== device) throw new InputError('the state belongs to another device', 'options.state');
  const { items, length } = frontier;
  if (length.array === items) {
    throw new InputError('the frontier count must not live in its items array', 'frontier.length');
  }
  // Hubs need the list only where a vertex may have more edges than one thread walks.
  const degreeBound =
    direction === 'both' || (direction === 'in' && graph.directed) ? undefined : graph.knownMaxOutDegree;
  const hubs = degreeBound === undefined || degreeBound > COOPERATIVE_DEGREE;
  const sizes = state.itemsPerWorkgroup;
  const argsWgsl = sizes.map((p, i) => `    write_args(${3 * i}u, keep_len, ${p}u);`).join('\n');
  const base = 3 * sizes.length;
  await onTarget(target, who, async (rec) => {
    const kernel = await rec.device.kernel({
      label: 'small frontier',
      params: { count_index: 'u32', capacity: 'u32', max_levels: 'u32', max_dim: 'u32' },
      bindings: {
        items: { type: 'array<u32>', access: 'read_write' },
        count: { type: 'array<u32>', access: 'read_write' },
        state: { type: 'array<u32>', access: 'read_write' },
        offsets: { type: 'array<u32>', access: 'read' },
        ...(chunked ? {} : { neighbors: { type: 'array<u32>', access: 'read' } }),
        ...(inEdges
          ? {
              in_offsets: { type: 'array<u32>', access: 'read' },
              ...(chunked ? {} : { in_neighbors: { type: 'array<u32>', access: 'read' } }),
            }
          : {}),
      },
      functors: {
        ...(chunked
          ? {
              weft_neighbor: neighborFunctor(view.column),
              ...(inEdges ? { weft_in_neighbor: neighborFunctor(inEdges.column) } : {}),
            }
          : {}),
        weft_edge: functor,
        weft_edge_id: edgeIdFunctor(edgeIds),
        ...(inEdges ? { weft_in_edge_id: edgeIdFunctor(inEdges.edgeIds) } : {}),
        ...(options.onEmpty ? { weft_on_empty: options.onEmpty } : {}),
        ...(options.onLevel ? { weft_on_level: options.onLevel } : {}),
      },
      code: smallFrontierWgsl(
        wg,
        cap,
        base,
        argsWgsl,
        options.withLevel ?? false,
        !!options.onEmpty,
        inEdges !== undefined,
        !!options.onLevel,
        chunked,
        hubs,
      ),
    });
    const inBindings = inEdges
      ? { in_offsets: inEdges.offsets, ...(chunked ? {} : { in_neighbors: inEdges.neighbors }) }
      : {};
    rec.dispatch(kernel, {
      bindings: {
        items,
        count: length.array,
        state: state.words,
        offsets,
        ...(chunked ? {} : { neighbors: view.neighbors }),
        ...inBindings,
      },
      params: {
        count_index: length.index,
        capacity: items.length,
        max_levels: maxLevels,
        max_dim: device.limits.maxComputeWorkgroupsPerDimension,
      },
      workgroups: [1, 1, 1],
    });
  });
}

/**
 * The kernel: `wf` holds the current and next frontier (CAP each); `counts[s]` counts appends to side `s`,
 * past CAP straight into the global buffer at the same slot, so a level that overflows loses nothing.
 */
function smallFrontierWgsl(
  wg: number,
  cap: number,
  base: number,
  argsWgsl: string,
  withLevel: boolean,
  onEmpty: boolean,
  both: boolean,
  onLevel: boolean,
  chunked: boolean,
  hubs: boolean,
): string {
  // Without withLevel (or onLevel, which is told the level's index too) the text is the engine's original,
  // so its pipelines and snapshots do not change.
  const level =
    withLevel || onLevel
      ? {
          decl: `${withLevel ? '\nvar<private> level_index: u32;' : ''}\nvar<workgroup> entry_level: u32;`,
          arg: withLevel ? ', level_index' : '',
          load: '\n    entry_level = state[LEVELS_TOTAL];',
          first: '\n  let first_level = workgroupUniformLoad(&entry_level);',
          set: withLevel ? '\n      level_index = first_level + levels;' : '',
        }
      : { decl: '', arg: '', load: '', first: '', set: '' };
  // Without onEmpty likewise: an empty frontier ends the dispatch. With it, the hook appends the next
  // frontier through the input counter of the level about to run, which is zero when the frontier is empty.
  const hook = onEmpty
    ? {
        decl: `
var<workgroup> weft_hook_words: array<atomic<u32>, 4>;
var<private> append_counter: u32;
var<private> append_side: u32;

fn weft_frontier_append(v: u32) { push(v, append_counter, append_side); }`,
        vars: '\n  var hook_calls = 0u;',
        call: `
      if (len == 0u) {
        let hc = (levels + 2u) % 3u;
        append_counter = hc;
        append_side = side;
        weft_on_empty(lid, WG, hook_calls);
        hook_calls++;
        // The hook's global writes are visible to the levels after it.
        storageBarrier();
        len = workgroupUniformLoad(&counts[hc]);
      }`,
      }
    : { decl: '', vars: '', call: '' };
  // With both directions each vertex walks its in-edges after its out-edges; without, the text is unchanged.
  const inEdges = both
    ? {
        visit: `

fn visit_in(src: u32, k: u32, c: u32, s: u32) {
  let dst = ${chunked ? 'weft_in_neighbor(k)' : 'in_neighbors[k]'};
  if (weft_edge(src, dst, weft_in_edge_id(k)${level.arg})) { push(dst, c, s); }
}`,
        range: '\n        let in_first = in_offsets[src];\n        let in_end = in_offsets[src + 1u];',
        degree: 'end - first + in_end - in_first',
        alone: '\n              for (var k = in_first; k < in_end; k++) { visit_in(src, k, c, next); }',
        lanes:
          '\n          for (var k = in_first + lane; k < in_end; k += lanes) { visit_in(src, k, c, next); }',
        hub: `
        let hub_in_end = in_offsets[src + 1u];
        for (var k = in_offsets[src] + lid; k < hub_in_end; k += WG) { visit_in(src, k, c, next); }`,
      }
    : { visit: '', range: '', degree: 'end - first', alone: '', lanes: '', hub: '' };
  // A vertex joins a frontier with its row bounds, loaded beside the functor's claim rather than after the
  // next level's barrier: one fewer dependent round trip a level. Both directions keep two rows: no copy.
  const rows = !both;
  const pushRow = rows
    ? `
fn push(v: u32, c: u32, s: u32) { push_row(v, vec2<u32>(offsets[v], offsets[v + 1u]), c, s); }

fn push_row(v: u32, row: vec2<u32>, c: u32, s: u32) {
  let slot = atomicAdd(&counts[c], 1u);
  if (slot < CAP) {
    wf[s * CAP + slot] = v;
    wr[s * CAP + slot] = row;
  } else if (slot < params.capacity) {
    items[slot] = v;
  }
}`
    : `
fn push(v: u32, c: u32, s: u32) {
  let slot = atomicAdd(&counts[c], 1u);
  if (slot < CAP) {
    wf[s * CAP + slot] = v;
  } else if (slot < params.capacity) {
    items[slot] = v;
  }
}`;
  const visitOut = rows
    ? `
fn visit(src: u32, k: u32, c: u32, s: u32) {
  let dst = ${chunked ? 'weft_neighbor(k)' : 'neighbors[k]'};
  let row = vec2<u32>(offsets[dst], offsets[dst + 1u]);
  if (weft_edge(src, dst, weft_edge_id(k)${level.arg})) { push_row(dst, row, c, s); }
}`
    : `
fn visit(src: u32, k: u32, c: u32, s: u32) {
  let dst = ${chunked ? 'weft_neighbor(k)' : 'neighbors[k]'};
  if (weft_edge(src, dst, weft_edge_id(k)${level.arg})) { push(dst, c, s); }
}`;
  const load = rows
    ? 'for (var i = lid; i < len; i += WG) {\n      let v = items[i];\n      wf[i] = v;\n      wr[i] = vec2<u32>(offsets[v], offsets[v + 1u]);\n    }'
    : 'for (var i = lid; i < len; i += WG) { wf[i] = items[i]; }';
  const bounds = rows
    ? 'let row = wr[side * CAP + i];\n        let first = row.x;\n        let end = row.y;'
    : 'let first = offsets[src];\n        let end = offsets[src + 1u];';
  // Without onLevel likewise. An overflowing level's vertices past CAP are already in the global buffer.
  const after = onLevel
    ? {
        decl: `
var<private> level_side: u32;
var<private> weft_level_private: vec4<u32>;

fn weft_frontier_item(i: u32) -> u32 {
  if (i < CAP) { return wf[level_side * CAP + i]; }
  return items[i];
}`,
        call: `
      if (len > 0u) {
        level_side = next;
        weft_on_level(lid, WG, min(len, params.capacity), first_level + levels);
      }`,
      }
    : { decl: '', call: '' };
  // Where no vertex has more edges than COOPERATIVE_DEGREE, the hub list, its counters and its barrier are
  // left out, declarations included.
  const laneWalk = `for (var k = first + lane; k < end; k += lanes) { visit(src, k, c, next); }${inEdges.lanes}`;
  const walk = hubs
    ? `if (${inEdges.degree} > COOPERATIVE_DEGREE) {
          // A hub goes to the list the whole workgroup walks; lane 0 walks it alone if the list is full.
          if (lane == 0u) {
            let b = atomicAdd(&big_counts[hubs], 1u);
            if (b < BIG) {
              big[b] = src;
            } else {
              for (var k = first; k < end; k++) { visit(src, k, c, next); }${inEdges.alone}
            }
          }
        } else {
          ${laneWalk}
        }`
    : laneWalk;
  const hubWalk = hubs
    ? `
      workgroupBarrier();
      let nb = min(atomicLoad(&big_counts[hubs]), BIG);
      for (var b = 0u; b < nb; b++) {
        let src = big[b];
        let end = offsets[src + 1u];
        for (var k = offsets[src] + lid; k < end; k += WG) { visit(src, k, c, next); }${inEdges.hub}
      }`
    : '';
  return /* wgsl */ `
const WG = ${wg}u;
const CAP = ${cap}u;${hubs ? `\nconst BIG = ${BIG_LIST}u;` : ''}
const COOPERATIVE_DEGREE = ${COOPERATIVE_DEGREE}u;
const MAX_LANES = ${MAX_LANES}u;
const LEVELS_TOTAL = ${base}u;
const LEVELS_LAST = ${base + 1}u;
const EXIT = ${base + 2}u;
const FRONTIER_LENGTH = ${base + 3}u;

var<workgroup> wf: array<u32, ${2 * cap}>;${rows ? `\nvar<workgroup> wr: array<vec2<u32>, ${2 * cap}>;` : ''}
// Level l appends to counts[l % 3]${hubs ? ' and lists its hubs in big_counts[l % 2]' : ''}; thread 0 zeroes the next
// level's counters during level l, after every thread has read their previous use (two levels back).
var<workgroup> counts: array<atomic<u32>, 3>;${hubs ? '\nvar<workgroup> big: array<u32, BIG>;\nvar<workgroup> big_counts: array<atomic<u32>, 2>;' : ''}
var<workgroup> entry_len: u32;${level.decl}${hook.decl}${after.decl}

// Appends v to the output counted by counts[c] into side s: the first CAP in workgroup memory, the rest at
// their own slot of the global buffer.${pushRow}
${visitOut}${inEdges.visit}

// The indirect arguments of Recorder.indirectArgs: x * y >= ceil(n / per_group) workgroups.
fn write_args(at: u32, n: u32, per_group: u32) {
  let groups = (n + per_group - 1u) / per_group;
  let x = min(groups, params.max_dim);
  var y = 1u;
  if (x > 0u) { y = (groups + x - 1u) / x; }
  state[at] = x;
  state[at + 1u] = y;
  state[at + 2u] = 1u;
}

@compute @workgroup_size(WG)
fn main(@builtin(local_invocation_index) lid: u32) {
  if (lid == 0u) {
    entry_len = count[params.count_index];
    atomicStore(&counts[0], 0u);
    atomicStore(&counts[1], 0u);
    atomicStore(&counts[2], 0u);${hubs ? '\n    atomicStore(&big_counts[0], 0u);\n    atomicStore(&big_counts[1], 0u);' : ''}${level.load}
  }
  var len = workgroupUniformLoad(&entry_len);${level.first}
  var exit = ${SMALL_FRONTIER_EXIT.empty}u;
  var levels = 0u;
  var side = 0u;${hook.vars}
  if (len > CAP) {
    exit = ${SMALL_FRONTIER_EXIT.tooLarge}u;
  } else {
    ${load}
    workgroupBarrier();
    // Every exit condition is read through workgroupUniformLoad: the loop's barriers stay in uniform flow.
    loop {${hook.call}
      if (len == 0u) { exit = ${SMALL_FRONTIER_EXIT.empty}u; break; }
      if (len > CAP) { exit = ${SMALL_FRONTIER_EXIT.overflow}u; break; }
      if (levels >= params.max_levels) { exit = ${SMALL_FRONTIER_EXIT.levelBound}u; break; }
      let next = 1u - side;${level.set}
      let c = levels % 3u;
${hubs ? '      let hubs = levels & 1u;\n' : ''}      if (lid == 0u) {
        atomicStore(&counts[(levels + 1u) % 3u], 0u);${hubs ? '\n        atomicStore(&big_counts[1u - hubs], 0u);' : ''}
      }
      // Lanes per frontier vertex: as many as the workgroup has to spare, so a level's edges are walked
      // side by side rather than one after another by one thread.
      let lanes = clamp(WG / len, 1u, MAX_LANES);
      let group = lid / lanes;
      let lane = lid % lanes;
      for (var i = group; i < len; i += WG / lanes) {
        let src = wf[side * CAP + i];
        ${bounds}${inEdges.range}
        ${walk}
      }${hubWalk}
      // The functor's global writes of this level are visible to the next.
      storageBarrier();
      len = workgroupUniformLoad(&counts[c]);${after.call}
      side = next;
      levels++;
    }
  }
  // Leave the frontier in the buffer: the first CAP entries from workgroup memory (the rest of an
  // overflowing level is already there).
  let keep_len = min(len, params.capacity);
  if (exit != ${SMALL_FRONTIER_EXIT.tooLarge}u) {
    let stored = min(keep_len, CAP);
    for (var i = lid; i < stored; i += WG) { items[i] = wf[side * CAP + i]; }
  }
  if (lid == 0u) {
    count[params.count_index] = keep_len;
${argsWgsl}
    state[LEVELS_TOTAL] += levels;
    state[LEVELS_LAST] = levels;
    state[EXIT] = exit;
    state[FRONTIER_LENGTH] = keep_len;
  }
}`;
}
