import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  f32,
  InputError,
  load,
  map,
  plus,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { checkDeviceGraph, type DeviceGraph } from '@weft/graph';
import { DisjointSets } from '@weft/operators';
import { exclusiveScan, reduce } from '@weft/scan';
import { segmentedReduce, transformSegreduce } from '@weft/segreduce';
import { sortPairs } from '@weft/sort';
import {
  CommunitySums,
  edgeSource,
  edgeWeight,
  idBits,
  modularityFromParts,
  orderKey,
  recordModularityParts,
  recordRows,
  recordRuns,
} from './community-gpu.ts';
import { CommunityWeights, FixedPointSums } from './community-hash.ts';
import { checkLouvainOptions, type LouvainOptions, type LouvainResult } from './community-reference.ts';
import type { LeidenResult } from './leiden-reference.ts';

/** Sweeps of local moving a level may take at most. */
const MAX_SWEEPS = 64;
/**
 * A level stops after this many sweeps in a row gain no more than `threshold` or than {@link SWEEP_TOLERANCE}
 * of the level's gain so far (each moves a random half, so one idle sweep may be chance).
 */
const IDLE_SWEEPS = 3;
/**
 * A sweep gaining less than this fraction of its level's gain counts as idle: the long tail of tiny gains
 * costs full sweeps that later levels and the refinement pass mostly make up for.
 */
const SWEEP_TOLERANCE = 0.01;
/**
 * A sweep that lowers modularity is undone and the next lets half as many vertices move, down to one in
 * this mask + 1: simultaneous moves of neighbours conflict, fewer movers conflict less.
 */
const MAX_MASK = 15;
const NONE = 0xffffffff;
/** Rounds of Leiden's refinement a level may take at most; it ends sooner after `IDLE_SWEEPS` rounds without a merge. */
const MAX_REFINE_ROUNDS = 32;
/**
 * Leiden's iterations, as leidenalg's default: the second starts over on the original graph from the first's
 * communities, which recovers most of what parallel local moving loses against the sequential one.
 */
const ITERATIONS = 2;

/** Test seam: called with the local-moving state after each undone sweep and after each sweep's modularity. */
export interface LevelProbe {
  afterUndo?(state: {
    comm: DeviceArray<'u32'>;
    stot: DeviceArray<'f32'>;
    k: DeviceArray<'f32'>;
    n: number;
  }): Promise<void>;
  afterSweep?(state: {
    arcs: { count: number; src: DeviceArray<'u32'>; dst: DeviceArray<'u32'>; share: DeviceArray<'f32'> };
    comm: DeviceArray<'u32'>;
    n: number;
    total: number;
    resolution: number;
    modularity: number;
  }): Promise<void>;
}

/** One level's graph: `count` arcs grouped by source, each loop's weight doubled. */
interface Arcs {
  count: number;
  src: DeviceArray<'u32'>;
  dst: DeviceArray<'u32'>;
  share: DeviceArray<'f32'>;
}

/**
 * Louvain community detection on the GPU. Each sweep of local moving sums every vertex's weight to each
 * neighbouring community in per-vertex hash tables (or, with `localMoving: 'sort'`, from runs of the arcs
 * sorted by target community) and gives every vertex the neighbouring community of the largest modularity
 * gain (atomic max of the gain, then atomic min of the community id among equal gains). Only a seeded random
 * half of the vertices may move in a sweep, so two neighbours rarely swap communities forever; a sweep that
 * lowers modularity is undone. A level ends when sweeps stop gaining; its communities are renumbered with a
 * scan and become the vertices of the next level's graph, one arc per (community of source, community of
 * target) with the weights summed in per-community hash tables (or runs of the sorted arcs). Weighted,
 * undirected; a directed graph runs as its undirected graph (`undirected: true` in the result).
 */
export async function louvain(graph: DeviceGraph, options: LouvainOptions = {}): Promise<LouvainResult> {
  checkOptionsObject('louvain', options);
  const { refined: _, ...result } = await communityLevels(graph, options, false);
  return result;
}

/**
 * Louvain's levels, or Leiden's with `leiden`: then each level's communities are refined on the GPU (see
 * `leiden`), the level graph aggregates the refined partition and the next level starts from the unrefined
 * one, and a final union-find over intra-community arcs splits any community left disconnected.
 */
export async function communityLevels(
  graph: DeviceGraph,
  options: LouvainOptions,
  leiden: boolean,
  probe?: LevelProbe,
): Promise<LeidenResult> {
  checkDeviceGraph(graph);
  const { resolution, maxLevels, threshold, seed, localMoving: moveBy } = checkLouvainOptions(options);
  const device = graph.device;
  const n0 = graph.vertexCount;
  const m = graph.edgeCount;
  const directed = graph.directed;
  const undirected = directed;
  if (n0 === 0 || m === 0) {
    return {
      communities: Uint32Array.from({ length: n0 }, (_, i) => i),
      levels: [],
      modularity: 0,
      count: n0,
      undirected,
      refined: [],
    };
  }
  const arcCount0 = directed ? 2 * m : m;
  const made: { destroy(): void }[] = [];
  const arr = <T extends 'u32' | 'f32'>(type: T, length: number, label: string) => {
    const a = device.array(type, Math.max(1, length), { label: `louvain ${label}` });
    made.push(a);
    return a;
  };
  const arcSet = (name: string): Omit<Arcs, 'count'> => ({
    src: arr('u32', arcCount0, `${name} sources`),
    dst: arr('u32', arcCount0, `${name} targets`),
    share: arr('f32', arcCount0, `${name} shares`),
  });
  try {
    const sets = [arcSet('level 0'), arcSet('odd levels'), arcSet('even levels')];
    const keys = arr('u32', arcCount0, 'keys');
    const keys2 = arr('u32', arcCount0, 'keys 2');
    const vals = arr('u32', arcCount0, 'values');
    // The tables need twice the arcs in one binding: beyond that, unless asked for, the sort path runs.
    const tablesFit = 2 * arcCount0 * 4 <= device.limits.maxStorageBufferBindingSize!;
    const byTables = moveBy === 'hash' || (moveBy === undefined && tablesFit);
    // Run starts serve the aggregation's sort; run scores only the sort path's moves.
    const starts = arr('u32', arcCount0, 'run starts');
    const runSum = arr('f32', Math.max(arcCount0, n0), 'run sums');
    const runScore = arr('u32', byTables ? 1 : arcCount0, 'run scores');
    const comm = arr('u32', n0, 'community');
    const prevComm = arr('u32', n0, 'previous community');
    const used = arr('u32', n0, 'used');
    const newId = arr('u32', n0, 'new id');
    const part = arr('u32', n0, 'partition');
    const k0 = arr('f32', n0, 'level 0 degrees');
    const kl = arr('f32', n0, 'degrees');
    const stot = arr('f32', n0, 'community degrees');
    const best = arr('u32', n0, 'best gain');
    const stay = arr('u32', n0, 'stay gain');
    const bestComm = arr('u32', n0, 'best community');
    const rows = arr('u32', n0 + 1, 'rows');
    const counts = arr('u32', 8, 'counts');
    const ref = arr('u32', n0, 'refined');
    const startComm = arr('u32', n0, 'start');
    const locked = arr('u32', n0, 'locked');
    const targeted = arr('u32', n0, 'targeted');
    const out = arr('u32', n0, 'level communities');
    const kc = arr('f32', n0, 'sub-community degrees');
    // [0], [1]: modularity's parts; [2]: the low bits of an exact intra-community weight (see `exactIntra`).
    const parts = arr('f32', 3, 'modularity parts');
    const totalArr = arr('f32', 1, 'total');
    const status = arr('u32', 1, 'status');
    const sums = new CommunitySums(device, n0);
    made.push(sums);
    const rows0 = arr('u32', n0 + 1, 'level 0 rows');
    // Unweighted levels have whole-number shares and degrees: their sums are exact in u32 atomics.
    const integral = !graph.chunkedWeights || options.weight === false;
    const stotSum = arr('u32', n0, 'community degree sums');
    const stotHigh = integral ? undefined : arr('u32', n0, 'community degree high sums');
    let table: CommunityWeights | undefined;

    // Level 0: the graph's arcs (a directed arc and its reverse), sorted by source, each loop's weight doubled.
    status.upload([0]);
    let rec = device.recorder({ label: 'louvain level 0' });
    const weightOf = edgeWeight(graph, options.weight, atomic(status));
    const sourceOf = edgeSource(graph);
    const first = directed ? sets[1]! : sets[0]!;
    await transform(
      rec,
      m,
      wgsl`(e: u32) {
  let u = ${sourceOf}(e);
  let v = ${load(graph.chunkedTargets, 'e')};
  let x = ${weightOf}(e);
  ${rw(first.src)}[e] = u;
  ${rw(first.dst)}[e] = v;
  if (${u32(directed ? 1 : 0)} == 1u) {
    let r = e + ${u32(m)};
    ${rw(first.src)}[r] = v;
    ${rw(first.dst)}[r] = u;
    ${rw(first.share)}[e] = x;
    ${rw(first.share)}[r] = x;
  } else {
    ${rw(first.share)}[e] = select(x, 2.0 * x, u == v);
  }
}`,
    );
    const a0: Arcs = { count: arcCount0, ...sets[0]! };
    if (directed) {
      await transform(
        rec,
        arcCount0,
        wgsl`(p: u32) { ${rw(keys)}[p] = ${first.src}[p]; ${rw(vals)}[p] = p; }`,
      );
      await sortPairs(rec, keys, vals, { count: arcCount0, bits: idBits(n0) });
      await transform(
        rec,
        arcCount0,
        wgsl`(p: u32) {
  let e = ${vals}[p];
  ${rw(a0.src)}[p] = ${keys}[p];
  ${rw(a0.dst)}[p] = ${first.dst}[e];
  ${rw(a0.share)}[p] = ${first.share}[e];
}`,
      );
    }
    await recordRows(rec, a0.src, arcCount0, n0, rows);
    rec.copy(rows, rows0, n0 + 1);
    await segmentedReduce(rec, a0.share, rows, n0, k0, { count: arcCount0 });
    await reduce(rec, k0, totalArr);
    await rec.submit();
    if ((await status.download())[0]) {
      throw new InputError('louvain needs finite non-negative weights', 'graph');
    }
    const total = (await totalArr.download())[0]!;
    const levels: Uint32Array[] = [];
    const refinedLevels: Uint32Array[] = [];
    let count = n0;
    if (total > 0) {
      // Weighted sums are fixed-point, scaled by the total, so they never depend on the order of atomics.
      const fixed = integral ? undefined : new FixedPointSums(total);
      if (byTables) {
        table = new CommunityWeights(device, arcCount0, integral ? undefined : total);
        made.push(table);
      }
      rec = device.recorder({ label: 'louvain start' });
      await map(rec, n0, wgsl`(v: u32) -> u32 { return v; }`, part);
      await rec.submit();
      const score = wgsl`(sum: f32, others: f32, k: f32) -> f32 { return sum - ${f32(resolution)} * others * k / ${f32(total)}; }`;
      const runsTotal = { array: counts, index: 0 };
      /**
       * Records `out[c]` = Σ k[v] over the vertices v with `part[v]` = c, for c < n, by atomics: u32 when
       * degrees are whole numbers, else fixed-point.
       */
      async function recordCommunityDegrees(
        r: Recorder,
        k: DeviceArray<'f32'>,
        n: number,
        part: DeviceArray<'u32'> = comm,
        out: DeviceArray<'f32'> = stot,
      ): Promise<void> {
        r.clear(stotSum);
        if (fixed && stotHigh) {
          r.clear(stotHigh);
          const add = fixed.add(atomic(stotSum), atomic(stotHigh));
          await transform(r, n, wgsl`(v: u32) { ${add}(${part}[v], ${k}[v]); }`);
          await map(
            r,
            n,
            wgsl`(c: u32) -> f32 { return ${fixed.value}(${stotSum}[c], ${stotHigh}[c]); }`,
            out,
          );
          return;
        }
        await transform(r, n, wgsl`(v: u32) { atomicAdd(&${atomic(stotSum)}[${part}[v]], u32(${k}[v])); }`);
        await map(r, n, wgsl`(c: u32) -> f32 { return f32(${stotSum}[c]); }`, out);
      }
      // Whole-number shares: a sweep corrects the intra-community weight, an exact u32, by the arcs of the
      // vertices that moved, instead of summing every arc again.
      const exactIntra = integral && total < 2 ** 31;
      const intra = arr('u32', 2, 'intra weight');
      const intraDelta = device.array('i32', n0, { label: 'louvain intra weight changes' });
      made.push(intraDelta);
      const deltaSum = device.array('i32', 1, { label: 'louvain intra weight change' });
      made.push(deltaSum);
      /** Records parts[1] = Σ stot[c]² over the n communities. */
      const recordExpected = async (r: Recorder, n: number) => {
        await map(r, n, wgsl`(c: u32) -> f32 { return ${stot}[c] * ${stot}[c]; }`, runSum);
        await reduce(r, runSum, { array: parts, index: 1 }, { count: n });
      };
      /** `(i: u32)`: writes the exact intra weight into parts[0] (high bits) and parts[2] (low bits). */
      const intraParts = wgsl`(i: u32) {
  let x = ${intra}[0];
  ${rw(parts)}[0] = f32(x & 0xfffff000u);
  ${rw(parts)}[2] = f32(x & 0xfffu);
}`;
      /** Records the modularity parts of `comm` from scratch (a level's start). */
      const recordStartParts = async (r: Recorder, arcs: Arcs, n: number) => {
        if (!exactIntra) {
          await recordModularityParts(r, arcs, comm, stot, stot, n, runSum, parts);
          return;
        }
        const { src, dst, share } = arcs;
        await map(
          r,
          arcs.count,
          wgsl`(e: u32) -> u32 { return select(0u, u32(${share}[e]), ${comm}[${src}[e]] == ${comm}[${dst}[e]]); }`,
          keys,
        );
        await reduce(r, keys, { array: intra, index: 0 }, { count: arcs.count });
        await transform(r, 1, intraParts);
        await recordExpected(r, n);
      };
      /** Records the modularity parts after a sweep's moves (`prevComm` before them). */
      const recordSweepParts = async (r: Recorder, arcs: Arcs, n: number) => {
        if (!exactIntra) {
          await recordModularityParts(r, arcs, comm, stot, stot, n, runSum, parts);
          return;
        }
        const { src, dst, share } = arcs;
        r.clear(intraDelta);
        // An arc changes the intra weight only if an end moved; a moved source counts its arc's reverse too
        // unless the target moved as well (then the target counts it).
        await transform(
          r,
          arcs.count,
          wgsl`(p: u32) {
  let u = ${src}[p];
  let cu = ${comm}[u];
  let pu = ${prevComm}[u];
  if (cu == pu) { return; }
  let v = ${dst}[p];
  let cv = ${comm}[v];
  let pv = ${prevComm}[v];
  let now = select(0, 1, cu == cv);
  let before = select(0, 1, pu == pv);
  if (now == before) { return; }
  atomicAdd(&${atomic(intraDelta)}[u], (now - before) * i32(${share}[p]) * select(2, 1, cv != pv));
}`,
        );
        await reduce(r, intraDelta, { array: deltaSum, index: 0 }, { count: n, monoid: plus('i32') });
        await transform(
          r,
          1,
          wgsl`(i: u32) {
  let x = ${rw(intra)}[0];
  ${rw(intra)}[1] = x;
  ${rw(intra)}[0] = u32(i32(x) + ${deltaSum}[0]);
}`,
        );
        await transform(r, 1, intraParts);
        await recordExpected(r, n);
      };
      // Submits `r` and reads the modularity parts in its wait: one round trip a sweep.
      const submitForQ = async (r: Recorder) => {
        const p = (await r.submit({ download: parts })).downloaded;
        return modularityFromParts([p[0]! + (exactIntra ? p[2]! : 0), p[1]!], total, resolution);
      };
      let qStart = Number.NaN;
      /**
       * Sweeps of local moving over `arcs` from `start` (default: every vertex alone) until they stop
       * gaining; leaves the partition in `comm` and returns its modularity (the start's in `qStart`).
       */
      async function localMoving(
        arcs: Arcs,
        n: number,
        k: DeviceArray<'f32'>,
        level: number,
        arcRows: DeviceArray<'u32'>,
        start?: DeviceArray<'u32'>,
      ): Promise<number> {
        rec = device.recorder({ label: 'louvain level start' });
        if (start && leiden) {
          // Each community takes the id of its smallest vertex, so a vertex whose id names no community may
          // leave its community for that empty one (Traag et al.'s move to an empty community).
          await map(rec, n, wgsl`(c: u32) -> u32 { return ${u32(NONE)}; }`, bestComm);
          await transform(rec, n, wgsl`(v: u32) { atomicMin(&${atomic(bestComm)}[${start}[v]], v); }`);
          await transform(rec, n, wgsl`(v: u32) { ${rw(comm)}[v] = ${bestComm}[${start}[v]]; }`);
          await recordCommunityDegrees(rec, k, n);
        } else if (start) {
          rec.copy(start, comm, n);
          await recordCommunityDegrees(rec, k, n);
        } else {
          await map(rec, n, wgsl`(v: u32) -> u32 { return v; }`, comm);
          rec.copy(k, stot, n);
        }
        await recordStartParts(rec, arcs, n);
        let q = await submitForQ(rec);
        qStart = q;
        let idle = 0;
        let mask = 1;
        for (let sweep = 0; sweep < MAX_SWEEPS && idle < IDLE_SWEEPS; sweep++) {
          rec = device.recorder({ label: 'louvain sweep' });
          await recordSweep(rec, sweepSalt(seed, level, sweep), mask, arcs, n, k, arcRows);
          const next = await submitForQ(rec);
          await probe?.afterSweep?.({ arcs, comm, n, total, resolution, modularity: next });
          if (next < q) {
            rec = device.recorder({ label: 'louvain undo' });
            rec.copy(prevComm, comm, n);
            // The sweep's totals are of the partition just undone: the next sweep's gains need the restored one's.
            await recordCommunityDegrees(rec, k, n);
            if (exactIntra) await transform(rec, 1, wgsl`(i: u32) { ${rw(intra)}[0] = ${intra}[1]; }`);
            // Setup for the next sweep, whose submit waits for both.
            await rec.submit({ wait: false });
            await probe?.afterUndo?.({ comm, stot, k, n });
            if (mask < MAX_MASK) mask = 2 * mask + 1;
            else idle++;
            continue;
          }
          idle = next - q <= Math.max(threshold, SWEEP_TOLERANCE * (next - qStart)) ? idle + 1 : 0;
          q = next;
        }
        return q;
      }

      /**
       * One sweep of local moving over the level's arcs, recorded: the weight from each vertex to each
       * neighbouring community by the hash tables (or by sorting the arcs by target community), each vertex's
       * best gain, then the seeded half's moves.
       */
      async function recordSweep(
        r: Recorder,
        salt: number,
        mask: number,
        arcs: Arcs,
        n: number,
        k: DeviceArray<'f32'>,
        arcRows: DeviceArray<'u32'>,
      ): Promise<void> {
        /** The seeded vertices that may move in this sweep. */
        const movable = wgsl`(v: u32) -> bool {
  var h = (v ^ ${u32(salt)}) * 0x9e3779b1u;
  h = (h ^ (h >> 16u)) * 0x85ebca6bu;
  h = h ^ (h >> 13u);
  return (h & ${u32(mask)}) == 1u;
}`;
        const bestA = atomic(best);
        await transform(
          r,
          n,
          wgsl`(v: u32) {
  let kv = ${k}[v];
  let g = ${orderKey}(${score}(0.0, ${stot}[${comm}[v]] - kv, kv));
  atomicStore(&${bestA}[v], g);
  ${rw(stay)}[v] = g;
  ${rw(bestComm)}[v] = ${u32(NONE)};
}`,
        );
        if (table) {
          // Only the vertices that may move need their communities' weights.
          await table.recordSums(r, arcs, arcRows, comm, movable);
          await table.recordScore(
            r,
            arcs,
            wgsl`(sum: f32, v: u32, c: u32) -> u32 {
  let kv = ${k}[v];
  let own = c == ${comm}[v];
  let g = ${orderKey}(${score}(sum, ${stot}[c] - select(0.0, kv, own), kv));
  if (own) { ${rw(stay)}[v] = g; }
  atomicMax(&${bestA}[v], g);
  return g;
}`,
          );
          await table.recordPick(
            r,
            arcs,
            wgsl`(g: u32, v: u32, c: u32) {
  if (c != ${comm}[v] && g == atomicLoad(&${bestA}[v])) { atomicMin(&${atomic(bestComm)}[v], c); }
}`,
          );
        } else {
          await recordSortedGains(r, arcs, n, k);
        }
        await transform(
          r,
          n,
          wgsl`(v: u32) {
  let c = ${rw(comm)}[v];
  ${rw(prevComm)}[v] = c;
  let to = ${bestComm}[v];
  let best = atomicLoad(&${bestA}[v]);
  if (${movable}(v) && to != ${u32(NONE)} && best > ${stay}[v]) { ${rw(comm)}[v] = to; }
  if (${u32(leiden ? 1 : 0)} == 1u && ${movable}(v) && c != v && ${stot}[v] == 0.0 && ${orderKey}(0.0) > best) {
    ${rw(comm)}[v] = v;
  }
}`,
        );
        await recordCommunityDegrees(r, k, n);
        await recordSweepParts(r, arcs, n);
      }

      /** The sort path of {@link recordSweep}: best gains and communities from runs of arcs sorted by target community. */
      async function recordSortedGains(
        r: Recorder,
        arcs: Arcs,
        n: number,
        k: DeviceArray<'f32'>,
      ): Promise<void> {
        const { src, dst, share } = arcs;
        const arcCount = arcs.count;
        await transform(
          r,
          arcCount,
          wgsl`(p: u32) { ${rw(keys)}[p] = ${comm}[${dst}[p]]; ${rw(vals)}[p] = p; }`,
        );
        await sortPairs(r, keys, vals, { count: arcCount, bits: idBits(n) });
        await recordRuns(
          r,
          arcCount,
          wgsl`(p: u32) -> bool { return ${keys}[p] != ${keys}[p - 1u] || ${src}[${vals}[p]] != ${src}[${vals}[p - 1u]]; }`,
          starts,
          runsTotal,
        );
        const bestA = atomic(best);
        await transformSegreduce(
          r,
          arcCount,
          starts,
          runsTotal,
          wgsl`(index: u32, seg: u32, rank: u32) -> f32 {
  let e = ${vals}[index];
  return select(${share}[e], 0.0, ${src}[e] == ${dst}[e]);
}`,
          runSum,
        );
        await transform(
          r,
          runsTotal,
          wgsl`(s: u32) {
  let p = ${starts}[s];
  let v = ${src}[${vals}[p]];
  let c = ${keys}[p];
  let kv = ${k}[v];
  let own = c == ${comm}[v];
  let g = ${orderKey}(${score}(${runSum}[s], ${stot}[c] - select(0.0, kv, own), kv));
  ${rw(runScore)}[s] = g;
  if (own) { ${rw(stay)}[v] = g; }
  atomicMax(&${bestA}[v], g);
}`,
        );
        await transform(
          r,
          runsTotal,
          wgsl`(s: u32) {
  let p = ${starts}[s];
  let v = ${src}[${vals}[p]];
  let c = ${keys}[p];
  if (c != ${comm}[v] && ${runScore}[s] == atomicLoad(&${bestA}[v])) { atomicMin(&${atomic(bestComm)}[v], c); }
}`,
        );
      }

      /**
       * Leiden's refinement of `comm` (dense) into `ref` (dense, its count in counts[3]): every vertex starts
       * alone; per round a seeded coin makes each unmerged singleton a joiner or a host, and a joiner joins the
       * sub-community of its own community with the largest positive gain whose founder is a host or already
       * merged (so never one that moves in the same round), the smallest id on ties. A joiner has an arc into
       * the sub-community it joins and its members never leave, so every sub-community stays connected.
       */
      async function refineLevel(
        arcs: Arcs,
        n: number,
        k: DeviceArray<'f32'>,
        level: number,
        arcRows: DeviceArray<'u32'>,
      ): Promise<void> {
        const { src, dst } = arcs;
        const arcCount = arcs.count;
        rec = device.recorder({ label: 'leiden refine start' });
        await map(rec, n, wgsl`(v: u32) -> u32 { return v; }`, ref);
        rec.clear(locked);
        await rec.submit({ wait: false });
        let idle = 0;
        for (let round = 0; round < MAX_REFINE_ROUNDS && idle < IDLE_SWEEPS; round++) {
          const salt = sweepSalt(seed ^ 0x5bd1e995, level, round);
          const coin = wgsl`(v: u32) -> bool {
  var h = (v ^ ${u32(salt)}) * 0x9e3779b1u;
  h = (h ^ (h >> 16u)) * 0x85ebca6bu;
  h = h ^ (h >> 13u);
  return (h & 1u) == 1u;
}`;
          rec = device.recorder({ label: 'leiden refine round' });
          rec.clear(targeted);
          counts.upload([0], 4);
          await recordCommunityDegrees(rec, k, n, ref, kc);
          const bestA = atomic(best);
          await transform(
            rec,
            n,
            wgsl`(v: u32) { atomicStore(&${bestA}[v], 0u); ${rw(bestComm)}[v] = ${u32(NONE)}; }`,
          );
          /** A joiner's gain key for sub-community c (0 when it may not join c), its atomic max taken. */
          const joinScore = wgsl`(sum: f32, v: u32, c: u32) -> u32 {
  var g = 0u;
  if (${locked}[v] == 0u && !${coin}(v) && c != v && ${comm}[c] == ${comm}[v] && (${locked}[c] == 1u || ${coin}(c))) {
    let gain = sum - ${f32(resolution)} * ${kc}[c] * ${k}[v] / ${f32(total)};
    if (gain > 0.0) {
      g = ${orderKey}(gain);
      atomicMax(&${bestA}[v], g);
    }
  }
  return g;
}`;
          if (table) {
            // Only joiners join: the others' sums would score 0.
            await table.recordSums(rec, arcs, arcRows, ref, wgsl`(v: u32) -> bool { return !${coin}(v); }`);
            await table.recordScore(rec, arcs, joinScore);
            await table.recordPick(
              rec,
              arcs,
              wgsl`(g: u32, v: u32, c: u32) {
  if (g != 0u && g == atomicLoad(&${bestA}[v])) { atomicMin(&${atomic(bestComm)}[v], c); }
}`,
            );
          } else {
            await transform(
              rec,
              arcCount,
              wgsl`(p: u32) { ${rw(keys)}[p] = ${ref}[${dst}[p]]; ${rw(vals)}[p] = p; }`,
            );
            await sortPairs(rec, keys, vals, { count: arcCount, bits: idBits(n) });
            await recordRuns(
              rec,
              arcCount,
              wgsl`(p: u32) -> bool { return ${keys}[p] != ${keys}[p - 1u] || ${src}[${vals}[p]] != ${src}[${vals}[p - 1u]]; }`,
              starts,
              runsTotal,
            );
            await transformSegreduce(
              rec,
              arcCount,
              starts,
              runsTotal,
              wgsl`(index: u32, seg: u32, rank: u32) -> f32 { return ${arcs.share}[${vals}[index]]; }`,
              runSum,
            );
            await transform(
              rec,
              runsTotal,
              wgsl`(s: u32) {
  let p = ${starts}[s];
  ${rw(runScore)}[s] = ${joinScore}(${runSum}[s], ${src}[${vals}[p]], ${keys}[p]);
}`,
            );
            await transform(
              rec,
              runsTotal,
              wgsl`(s: u32) {
  let p = ${starts}[s];
  let v = ${src}[${vals}[p]];
  let g = ${runScore}[s];
  if (g != 0u && g == atomicLoad(&${bestA}[v])) { atomicMin(&${atomic(bestComm)}[v], ${keys}[p]); }
}`,
            );
          }
          await transform(
            rec,
            n,
            wgsl`(v: u32) { let t = ${bestComm}[v]; if (t != ${u32(NONE)}) { ${rw(targeted)}[t] = 1u; } }`,
          );
          await transform(
            rec,
            n,
            wgsl`(v: u32) {
  let t = ${bestComm}[v];
  if (t != ${u32(NONE)}) {
    ${rw(ref)}[v] = t;
    ${rw(locked)}[v] = 1u;
    atomicAdd(&${atomic(counts)}[4], 1u);
  }
  if (${targeted}[v] == 1u) { ${rw(locked)}[v] = 1u; }
}`,
          );
          idle = (await rec.submit({ download: counts })).downloaded[4] === 0 ? idle + 1 : 0;
        }
        rec = device.recorder({ label: 'leiden refine renumber' });
        rec.clear(used);
        await transform(rec, n, wgsl`(v: u32) { ${rw(used)}[${ref}[v]] = 1u; }`);
        await exclusiveScan(rec, used, newId, { count: n, total: { array: counts, index: 3 } });
        const refRw = rw(ref);
        await transform(rec, n, wgsl`(v: u32) { ${refRw}[v] = ${newId}[${refRw}[v]]; }`);
        await rec.submit({ wait: false });
      }

      let arcs = a0;
      let n = n0;
      let k = k0;
      let nextSet = 1;
      let levelQ = Number.NaN;
      // Leiden's iterations: the second starts over on the original graph from the first's communities, as
      // Traag et al. iterate the algorithm.
      let iteration = 0;
      let salted = 0;
      let split: DisjointSets | undefined;
      for (;;) {
        let converged = false;
        while (levels.length < maxLevels) {
          const level = levels.length;
          const { src, dst, share } = arcs;
          const arcCount = arcs.count;
          const from = leiden && (level > 0 || iteration > 0) ? startComm : undefined;
          const q = await localMoving(arcs, n, k, salted++, rows, from);
          if (level === 0) levelQ = qStart;
          // Renumber the communities densely and build the community graph.
          const other = sets[nextSet]!;
          rec = device.recorder({ label: 'louvain aggregate' });
          rec.clear(used);
          await transform(rec, n, wgsl`(v: u32) { ${rw(used)}[${comm}[v]] = 1u; }`);
          await exclusiveScan(rec, used, newId, { count: n, total: { array: counts, index: 1 } });
          const commRw = rw(comm);
          await transform(rec, n, wgsl`(v: u32) { ${commRw}[v] = ${newId}[${commRw}[v]]; }`);
          if (leiden) {
            await rec.submit({ wait: false });
            await refineLevel(arcs, n, k, salted - 1, rows);
            rec = device.recorder({ label: 'leiden aggregate' });
          }
          // Leiden aggregates the refined partition; Louvain the communities.
          const by = leiden ? ref : comm;
          await transform(
            rec,
            arcCount,
            wgsl`(p: u32) { ${rw(keys)}[p] = ${by}[${dst}[p]]; ${rw(vals)}[p] = p; }`,
          );
          await sortPairs(rec, keys, vals, { count: arcCount, bits: idBits(n) });
          await transform(rec, arcCount, wgsl`(p: u32) { ${rw(keys2)}[p] = ${by}[${src}[${vals}[p]]]; }`);
          await sortPairs(rec, keys2, vals, { count: arcCount, bits: idBits(n) });
          const targetComm = wgsl`(p: u32) -> u32 { return ${by}[${dst}[${vals}[p]]]; }`;
          await recordRuns(
            rec,
            arcCount,
            wgsl`(p: u32) -> bool { return ${keys2}[p] != ${keys2}[p - 1u] || ${targetComm}(p) != ${targetComm}(p - 1u); }`,
            starts,
            { array: counts, index: 2 },
          );
          const runs = { array: counts, index: 2 };
          await transform(
            rec,
            runs,
            wgsl`(s: u32) {
  let p = ${starts}[s];
  ${rw(other.src)}[s] = ${keys2}[p];
  ${rw(other.dst)}[s] = ${targetComm}(p);
}`,
          );
          await transformSegreduce(
            rec,
            arcCount,
            starts,
            runs,
            wgsl`(index: u32, seg: u32, rank: u32) -> f32 { return ${share}[${vals}[index]]; }`,
            other.share,
          );
          const [, nNew, mNew, nRef] = (await rec.submit({ download: counts })).downloaded;
          // The aggregated graph (of `vertices` communities) becomes the next level's input.
          const nextLevel = async (vertices: number) => {
            arcs = { count: mNew!, ...other };
            n = vertices;
            k = kl;
            nextSet = 3 - nextSet;
            rec = device.recorder({ label: `${leiden ? 'leiden' : 'louvain'} next level` });
            await recordRows(rec, arcs.src, arcs.count, n, rows);
            await segmentedReduce(rec, arcs.share, rows, n, kl, { count: arcs.count });
            await rec.submit({ wait: false });
          };
          if (leiden) {
            if (level === 0 && iteration === 0 && nNew! >= n) {
              converged = true;
              break;
            }
            rec = device.recorder({ label: 'leiden level' });
            const partRw = rw(part);
            await transform(
              rec,
              n0,
              wgsl`(v: u32) { let p = ${partRw}[v]; ${rw(out)}[v] = ${comm}[p]; ${partRw}[v] = ${ref}[p]; }`,
            );
            await transform(rec, n, wgsl`(v: u32) { ${rw(startComm)}[${ref}[v]] = ${comm}[v]; }`);
            await rec.submit({ wait: false });
            const [outLevel, partLevel] = await Promise.all([out.download(), part.download()]);
            levels.push(outLevel);
            refinedLevels.push(partLevel);
            count = nNew!;
            if (nRef! >= n || (q - levelQ <= threshold && nRef === nNew)) {
              converged = true;
              break;
            }
            levelQ = Math.max(levelQ, q);
            await nextLevel(nRef!);
            continue;
          }
          if (nNew! >= n) {
            converged = true;
            break;
          }
          rec = device.recorder({ label: 'louvain level' });
          const partRw = rw(part);
          await transform(rec, n0, wgsl`(v: u32) { ${partRw}[v] = ${comm}[${partRw}[v]]; }`);
          await rec.submit();
          levels.push(await part.download());
          count = nNew!;
          if (q - levelQ <= threshold) {
            converged = true;
            break;
          }
          levelQ = q;
          await nextLevel(nNew!);
        }
        if (leiden && levels.length > 0) {
          // As Louvain's final pass: vertices of the original graph move between the final communities,
          // repairing moves that aggregation made final; the split below reconnects what this separates.
          await localMoving(a0, n0, k0, salted++, rows0, out);
          // A community left disconnected is split into its connected parts (never lowers modularity):
          // union-find over the arcs inside communities, roots renumbered densely.
          if (!split) {
            split = new DisjointSets(device, n0, { label: 'leiden split' });
            made.push(split);
          }
          const sets = split;
          rec = device.recorder({ label: 'leiden split' });
          rec.copy(comm, out, n0);
          await sets.recordReset(rec);
          await sets.recordUnion(
            rec,
            arcCount0,
            wgsl`(p: u32) -> vec2<u32> {
  let u = ${a0.src}[p];
  let v = ${a0.dst}[p];
  return select(vec2<u32>(u, u), vec2<u32>(u, v), ${out}[u] == ${out}[v]);
}`,
          );
          await sets.recordCompress(rec);
          rec.clear(used);
          await transform(rec, n0, wgsl`(v: u32) { ${rw(used)}[${sets.parents}[v]] = 1u; }`);
          await exclusiveScan(rec, used, newId, { count: n0, total: { array: counts, index: 1 } });
          await transform(rec, n0, wgsl`(v: u32) { ${rw(part)}[v] = ${newId}[${sets.parents}[v]]; }`);
          await rec.submit();
          if (!(await sets.finished())) throw new Error('leiden: union-find did not finish');
          count = (await counts.download(1, 1))[0]!;
        } else if (levels.length > 1) {
          // Refinement: vertices of the original graph move between the final communities, which repairs
          // moves that aggregation made final while the communities were still forming.
          await localMoving(a0, n0, k0, levels.length, rows0, part);
          rec = device.recorder({ label: 'louvain refine' });
          rec.clear(used);
          await transform(rec, n0, wgsl`(v: u32) { ${rw(used)}[${comm}[v]] = 1u; }`);
          await exclusiveScan(rec, used, newId, { count: n0, total: { array: counts, index: 1 } });
          await transform(rec, n0, wgsl`(v: u32) { ${rw(part)}[v] = ${newId}[${comm}[v]]; }`);
          await rec.submit();
          count = (await counts.download(1, 1))[0]!;
          levels[levels.length - 1] = await part.download();
        }
        if (!leiden || !converged || levels.length === 0 || iteration + 1 >= ITERATIONS) {
          if (levels.length > 0) {
            rec = device.recorder({ label: 'louvain modularity' });
            await sums.group(rec, part, n0, count);
            await sums.sum(rec, k0, n0, count, stot);
            await recordModularityParts(rec, a0, part, stot, stot, count, runSum, parts);
            await rec.submit();
          }
          break;
        }
        iteration++;
        rec = device.recorder({ label: 'leiden iteration' });
        rec.copy(part, startComm, n0);
        rec.copy(rows0, rows, n0 + 1);
        await map(rec, n0, wgsl`(v: u32) -> u32 { return v; }`, part);
        await rec.submit();
        arcs = a0;
        n = n0;
        k = k0;
        nextSet = 1;
        levels.length = 0;
        refinedLevels.length = 0;
      }
    }
    const communities =
      levels.length === 0
        ? Uint32Array.from({ length: n0 }, (_, i) => i)
        : leiden
          ? await part.download()
          : levels[levels.length - 1]!.slice();
    if (levels.length === 0) {
      rec = device.recorder({ label: 'louvain modularity' });
      await map(rec, n0, wgsl`(v: u32) -> u32 { return v; }`, part);
      await recordModularityParts(rec, a0, part, k0, k0, n0, runSum, parts);
      await rec.submit();
    }
    const q = total > 0 ? modularityFromParts(await parts.download(), total, resolution) : 0;
    if (table && (await table.status.download())[0]) {
      throw new Error('louvain: a community hash table probe ran past its bound');
    }
    return { communities, levels, refined: refinedLevels, modularity: q, count, undirected };
  } finally {
    for (const a of made) a.destroy();
  }
}

/** A per-sweep word that picks which half of the vertices may move. */
function sweepSalt(seed: number, level: number, sweep: number): number {
  return (
    (Math.imul(seed, 0x9e3779b1) ^ Math.imul(level + 1, 0x85ebca6b) ^ Math.imul(sweep + 1, 0xc2b2ae35)) >>> 0
  );
}
