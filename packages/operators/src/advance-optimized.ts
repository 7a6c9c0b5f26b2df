import {
  checkOptionsObject,
  type Functor,
  functorBindingCount,
  InputError,
  load,
  onTarget,
  rw,
  type Target,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import {
  type DeviceGraph,
  type FrontierBitmap,
  type FrontierSink,
  type FrontierView,
  queueToBitmap,
} from '@weft/graph';
import { transformLbs } from '@weft/lbs';
import { transformScan } from '@weft/scan';
import {
  type AdvanceWorkspace,
  appendFunctor,
  edgeIdFunctor,
  edgeView,
  LBS_TILE_BINDINGS,
} from './advance.ts';

export interface DirectionFunctors {
  /** Push: `(src: u32, dst: u32, edge: u32) -> bool`, as for {@link advancePush} (atomics where racing). */
  push: Functor;
  /** Pull: `(src, dst, edge) -> bool` for an in-neighbor `src` in the frontier; only `dst`'s thread runs it. */
  pull: Functor;
  /** `(v: u32) -> bool`: vertices that pull (e.g. the unvisited ones). */
  candidate: Functor;
}

export interface DirectionOptions {
  /** Pull when frontier vertices + their out-edges exceed `threshold x edgeCount` (Ligra: 1/20). */
  threshold?: number;
  /** `'auto'` (default): push or pull chosen per call on the GPU by the threshold rule; or force one. */
  direction?: 'auto' | 'push' | 'pull';
  /** Scratch bitmap for the pull frontier (`vertexCount` bits). */
  bitmap: FrontierBitmap;
  workspace: AdvanceWorkspace;
  /**
   * Whether `pull` reads its edge id (default true). With false it gets `0xffffffff` and a directed graph's
   * pull binds no CSC edge-id array: one storage buffer fewer where a device allows few.
   */
  edgeIds?: boolean;
  /** Count of pull iterations is added to `pulls[0]` when given (for reports). */
  pulls?: FrontierSink['count'];
}

/**
 * Direction-optimizing advance (Beamer; Ligra's `edgeMap` with its threshold): the frontier's degrees are
 * scanned, and a one-thread kernel picks push or pull from the frontier's size and edge total, writing
 * the chosen direction's dispatch sizes to the GPU (the other direction gets zero). Push is
 * {@link advancePush}'s load-balanced search; pull converts the queue to a bitmap and lets every candidate
 * walk its in-edges until one parent accepts. No read-back: the choice is made per iteration on the GPU.
 * Needs in-edges (an undirected graph, or a directed one uploaded with `csc`).
 */
export async function advanceDirectionOptimized(
  target: Target,
  graph: DeviceGraph,
  input: FrontierView,
  functors: DirectionFunctors,
  output: FrontierSink,
  options: DirectionOptions,
): Promise<void> {
  checkOptionsObject('advanceDirectionOptimized', options, true);
  const who = 'advanceDirectionOptimized';
  const threshold = options.threshold ?? 1 / 20;
  if (!(threshold >= 0))
    throw new InputError(`threshold must be >= 0, got ${threshold}`, 'options.threshold');
  const out = edgeView(graph, 'out', who);
  const inn = edgeView(graph, 'in', who);
  const { bitmap, workspace } = options;
  if (workspace.segmentStarts.length < input.items.length) {
    throw new InputError('the workspace is smaller than the frontier', 'options.workspace');
  }
  const gates = workspace.gates;
  const append = appendFunctor(output, undefined);
  const n = graph.vertexCount;
  const m = graph.edgeCount;
  const force = options.direction ?? 'auto';
  const limit =
    force === 'push' ? 0xffffffff : force === 'pull' ? 0 : Math.min(0xffffffff, Math.floor(threshold * m));
  await onTarget(target, who, async (rec) => {
    rec.clear(output.count);
    if (m === 0) return;
    const items = input.items;
    const total = workspace.total;
    await transformScan(
      rec,
      input.length,
      wgsl`(i: u32) -> u32 { let v = ${items}[i]; return ${out.offsets}[v + 1u] - ${out.offsets}[v]; }`,
      workspace.segmentStarts,
      { total: { array: total, index: 0 } },
    );
    const len = input.length;
    const length =
      typeof len === 'number'
        ? wgsl`() -> u32 { return ${u32(len)}; }`
        : wgsl`() -> u32 { return ${len.array}[${u32(len.index)}]; }`;
    const pulls = options.pulls;
    const note = pulls
      ? wgsl`(pull: bool) { ${rw(pulls)}[0] += select(0u, 1u, pull); }`
      : wgsl`(pull: bool) {}`;
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  let len = ${length}();
  let edges = ${total}[0];
  // Saturating sum: a frontier of 2^31 vertices with 2^31 edges must not wrap to "small".
  let work = select(len + edges, 0xffffffffu, len + edges < len);
  let pull = len > 0u && work > ${u32(limit)};
  ${rw(gates)}[0] = select(edges, 0u, pull);
  ${rw(gates)}[1] = select(len, 0u, pull);
  ${rw(gates)}[2] = select(0u, ${u32(n)}, pull);
  ${rw(gates)}[3] = select(0u, len, pull);
  ${note}(pull);
}`,
    );
    const pushVisit = wgsl`(index: u32, seg: u32, rank: u32) {
  let src = ${items}[seg];
  let k = ${out.offsets}[src] + rank;
  let dst = ${load(out.column, 'k')};
  if (${functors.push}(src, dst, k)) { ${append}(dst); }
}`;
    // Where the merge-path tile's bindings and the functors' exceed the device's storage buffers (browsers
    // grant 8 or 10), a thread per frontier vertex walks its out-edges instead, as advancePush does. Both
    // of the tile's counts live in `gates`, which it binds once.
    if (
      LBS_TILE_BINDINGS - 1 + functorBindingCount(pushVisit) >
      graph.device.limits.maxStorageBuffersPerShaderStage
    ) {
      const pushWalk = wgsl`(i: u32) {
  let src = ${items}[i];
  let end = ${out.offsets}[src + 1u];
  for (var k = ${out.offsets}[src]; k < end; k++) {
    let dst = ${load(out.column, 'k')};
    if (${functors.push}(src, dst, k)) { ${append}(dst); }
  }
}`;
      await transform(rec, { array: gates, index: 1 }, pushWalk, { itemsPerThread: 1 });
    } else {
      await transformLbs(
        rec,
        { array: gates, index: 0 },
        workspace.segmentStarts,
        { array: gates, index: 1 },
        pushVisit,
        { maxCount: m },
      );
    }
    await queueToBitmap(rec, { items, length: { array: gates, index: 3 } }, bitmap);
    const pullEdgeId =
      options.edgeIds === false
        ? wgsl`(k: u32) -> u32 { return ${u32(0xffffffff)}; }`
        : edgeIdFunctor(inn.edgeIds);
    const pullVisit = wgsl`(dst: u32) {
  if (!${functors.candidate}(dst)) { return; }
  let end = ${inn.offsets}[dst + 1u];
  for (var k = ${inn.offsets}[dst]; k < end; k++) {
    let src = ${load(inn.column, 'k')};
    if ((${bitmap.words}[src >> 5u] & (1u << (src & 31u))) != 0u) {
      if (${functors.pull}(src, dst, ${pullEdgeId}(k))) {
        ${append}(dst);
        return;
      }
    }
  }
}`;
    await transform(rec, { array: gates, index: 2 }, pullVisit);
  });
}
