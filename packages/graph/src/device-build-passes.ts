import {
  atomic,
  type DeviceArray,
  type Functor,
  type GpuCount,
  type Literal,
  lit,
  plus,
  type Recorder,
  rw,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import { transformScanTo } from '@weft/scan';
import { sortPairs } from '@weft/sort';
import type { WeightElementType } from './device-graph.ts';
import type { DedupeRule } from './host-build.ts';

/*
 * The passes of a GPU CSR build, in the host builder's terms (host-build.ts). Every entry carries its code:
 * `2 * i` for input edge i as given, `2 * i + 1` for its reverse. Entries are laid out in code order and
 * both sorts are stable, so within one (source, target) group the codes ascend: the group's first entry is
 * the host's 'first', its last the host's 'last', and both directions of an edge see the same weights in the
 * same order (symmetric weights under every rule).
 */

/** The arrays one build writes, sized for the largest entry count (`capacity`). */
export interface BuildArrays {
  /** Sort keys: targets, or `source << bits | target` when both fit 32 bits; after the sorts, targets. */
  keys: DeviceArray<'u32'>;
  /** Codes, permuted with the keys. */
  codes: DeviceArray<'u32'>;
  /** Sorted sources (unpacked keys only). */
  sources: DeviceArray<'u32'> | undefined;
  /** Position of each (source, target) group's first entry. */
  groupStart: DeviceArray<'u32'>;
  /** 1 where a group holds an input edge as given (symmetrizing only: the others were added). */
  hasOriginal: DeviceArray<'u32'> | undefined;
  /** Per group: source, target and chosen weight. */
  groupSource: DeviceArray<'u32'>;
  groupTarget: DeviceArray<'u32'>;
  groupWeight: DeviceArray<WeightElementType> | undefined;
  /** `vertexCount + 1` row offsets. */
  offsets: DeviceArray<'u32'>;
  /** 'missing' mirroring: 1 for input edges whose reverse is missing from the input. */
  needsReverse: DeviceArray<'u32'> | undefined;
  /**
   * One-element counts: entries after self-loop removal and mirroring, groups, groups with an input edge,
   * and ('missing' mirroring) input edges that are not dropped self-loops.
   */
  entryCount: DeviceArray<'u32'>;
  groupCount: DeviceArray<'u32'>;
  distinctCount: DeviceArray<'u32'>;
  originalCount: DeviceArray<'u32'>;
  /** First input index whose source (element 0) or target (element 1) is out of range; 0xffffffff if none. */
  firstBad: DeviceArray<'u32'>;
}

export interface BuildInput {
  src: DeviceArray<'u32'>;
  dst: DeviceArray<'u32'>;
  weights: DeviceArray<WeightElementType> | undefined;
}

export interface BuildShape {
  edgeCount: number;
  vertexCount: number;
  /**
   * Reverse entries: none; 'all' (symmetrize, then merge duplicates); 'missing' (symmetrize with dedupe
   * 'none': only the reverse of (u, v) where the input has no (v, u)).
   */
  mirror: 'none' | 'all' | 'missing';
  keepSelfLoops: boolean;
  dedupe: DedupeRule;
  /** Bits of a vertex id: ceil(log2(vertexCount)). */
  idBits: number;
  /** Source and target share one 32-bit key (2 * idBits <= 32): one sort instead of two. */
  packed: boolean;
  /** Entries the arrays hold: edgeCount, doubled when mirroring. */
  capacity: number;
}

/** Bits needed for ids below `vertexCount`. */
export function idBitsFor(vertexCount: number): number {
  return vertexCount <= 1 ? 0 : Math.ceil(Math.log2(vertexCount));
}

/** Records the whole build: expand, sort, group, pick weights, offsets. Counts stay on the GPU. */
export async function recordBuild(
  rec: Recorder,
  shape: BuildShape,
  input: BuildInput,
  a: BuildArrays,
): Promise<void> {
  const entries = { array: a.entryCount, index: 0 };
  const groups = { array: a.groupCount, index: 0 };

  // Counts start at zero: a scan over nothing writes no total.
  rec.clear(a.entryCount);
  rec.clear(a.groupCount);
  rec.clear(a.distinctCount);
  rec.clear(a.originalCount);
  await rec.fill(a.firstBad, 0xffffffff);
  if (a.hasOriginal) rec.clear(a.hasOriginal);

  const loopEntries = lit(shape.keepSelfLoops ? '1u' : '0u');
  let edgeEntries: Functor;
  if (shape.mirror === 'missing') {
    // 'none' keeps multi-edges, so only reverses the input lacks are added: sort the input as given first; the
    // k-th (s, t) of a group (the sort is stable: input order) needs a reverse when fewer than k + 1 (t, s)
    // exist; then build again with those reverses.
    const needsReverse = a.needsReverse!;
    rec.clear(needsReverse);
    const originals = { array: a.originalCount, index: 0 };
    const once = wgsl`(i: u32) -> u32 { return 1u; }`;
    const sorted = await expandAndSort(rec, shape, input, a, loopEntries, once, originals);
    const before = pairLowerBound(sorted, a.originalCount);
    await transform(
      rec,
      originals,
      wgsl`(k: u32) {
  let s = ${sorted.sourceAt}(k);
  let t = ${sorted.targetAt}(k);
  if (s != t && k - ${before}(s, t) >= ${before}(t, s + 1u) - ${before}(t, s)) {
    ${rw(needsReverse)}[${a.codes}[k] >> 1u] = 1u;
  }
}`,
    );
    edgeEntries = wgsl`(i: u32) -> u32 { return 1u + ${needsReverse}[i]; }`;
  } else {
    edgeEntries = wgsl`(i: u32) -> u32 { return ${lit(shape.mirror === 'all' ? '2u' : '1u')}; }`;
  }
  const { sourceAt, targetAt } = await expandAndSort(rec, shape, input, a, loopEntries, edgeEntries, entries);

  // 3. Groups: an entry starts one where (source, target) changes ('none': every entry is its own group).
  const isHead =
    shape.dedupe === 'none'
      ? wgsl`(k: u32) -> u32 { return 1u; }`
      : wgsl`(k: u32) -> u32 {
  if (k == 0u) { return 1u; }
  return select(0u, 1u, ${sourceAt}(k) != ${sourceAt}(k - 1u) || ${targetAt}(k) != ${targetAt}(k - 1u));
}`;
  const markOriginal = a.hasOriginal
    ? wgsl`(g: u32, k: u32) {
  if ((${a.codes}[k] & 1u) == 0u) { atomicStore(&${atomic(a.hasOriginal)}[g], 1u); }
}`
    : wgsl`(g: u32, k: u32) {}`;
  const groupEmit = wgsl`(k: u32, before: u32, head: u32) {
  let g = before + head - 1u;
  if (head == 1u) { ${rw(a.groupStart)}[g] = k; }
  ${markOriginal}(g, k);
}`;
  await transformScanTo(rec, entries, isHead, groupEmit, {
    monoid: plus('u32'),
    total: groups,
    maxCount: shape.capacity,
  });

  // 4. One thread per group: its source, target and weight by the rule.
  const weightStore = a.groupWeight
    ? pickWeight(shape.dedupe, input.weights!, a.codes, a.groupWeight)
    : undefined;
  const store = weightStore ?? wgsl`(g: u32, start: u32, end: u32) {}`;
  const perGroup = wgsl`(g: u32) {
  let start = ${a.groupStart}[g];
  var end = ${a.entryCount}[0];
  if (g + 1u < ${a.groupCount}[0]) { end = ${a.groupStart}[g + 1u]; }
  ${rw(a.groupSource)}[g] = ${sourceAt}(start);
  ${rw(a.groupTarget)}[g] = ${targetAt}(start);
  ${store}(g, start, end);
}`;
  if (a.hasOriginal) {
    // The scan's total counts groups holding an input edge; the emit does the group's work.
    await transformScanTo(
      rec,
      groups,
      wgsl`(g: u32) -> u32 { return ${a.hasOriginal}[g]; }`,
      wgsl`(g: u32, before: u32, flag: u32) { ${perGroup}(g); }`,
      { monoid: plus('u32'), total: { array: a.distinctCount, index: 0 }, maxCount: shape.capacity },
    );
  } else {
    await transform(rec, groups, perGroup);
  }

  // 5. Row offsets: the lower bound of each vertex id among the group sources (n + 1 searches).
  await transform(
    rec,
    shape.vertexCount + 1,
    wgsl`(v: u32) { ${rw(a.offsets)}[v] = ${lowerBound(a.groupSource, a.groupCount)}(v); }`,
  );
}

interface SortedEntries {
  /** `(k: u32) -> u32`: source and target of sorted entry k. */
  sourceAt: Functor;
  targetAt: Functor;
}

/**
 * Step 1 and 2 of a build. 1: one scan over the input edges validates ids and lets each edge emit
 * `loopEntries` (a self-loop) or `edgeEntries(i)` entries (1, or 2 with its reverse) at its scanned position.
 * 2: sort the entries by (source, target): one packed sort, or target then source (stable LSD, two keys).
 */
async function expandAndSort(
  rec: Recorder,
  shape: BuildShape,
  input: BuildInput,
  a: BuildArrays,
  loopEntries: Literal,
  edgeEntries: Functor,
  entries: GpuCount,
): Promise<SortedEntries> {
  const { src, dst } = input;
  const b = shape.idBits;
  const key = shape.packed
    ? wgsl`(s: u32, t: u32) -> u32 { return (s << ${u32(b)}) | t; }`
    : wgsl`(s: u32, t: u32) -> u32 { return t; }`;
  const entriesOf = wgsl`(i: u32) -> u32 {
  if (${src}[i] == ${dst}[i]) { return ${loopEntries}; }
  return ${edgeEntries}(i);
}`;
  const emit = wgsl`(i: u32, p: u32, c: u32) {
  let s = ${src}[i];
  let d = ${dst}[i];
  if (s >= ${u32(shape.vertexCount)}) { atomicMin(&${atomic(a.firstBad)}[0], i); }
  if (d >= ${u32(shape.vertexCount)}) { atomicMin(&${atomic(a.firstBad)}[1], i); }
  if (c == 0u) { return; }
  ${rw(a.keys)}[p] = ${key}(s, d);
  ${rw(a.codes)}[p] = 2u * i;
  if (c == 2u) {
    ${rw(a.keys)}[p + 1u] = ${key}(d, s);
    ${rw(a.codes)}[p + 1u] = 2u * i + 1u;
  }
}`;
  await transformScanTo(rec, shape.edgeCount, entriesOf, emit, { monoid: plus('u32'), total: entries });

  if (shape.packed) {
    await sortPairs(rec, a.keys, a.codes, { count: entries, bits: Math.max(1, 2 * b) });
    const mask = b === 0 ? 0 : 2 ** b - 1;
    return {
      sourceAt: wgsl`(k: u32) -> u32 { return ${a.keys}[k] >> ${u32(b)}; }`,
      targetAt: wgsl`(k: u32) -> u32 { return ${a.keys}[k] & ${u32(mask)}; }`,
    };
  }
  const sourceOf = wgsl`(code: u32) -> u32 {
  let i = code >> 1u;
  if ((code & 1u) == 0u) { return ${src}[i]; }
  return ${dst}[i];
}`;
  const targetOf = wgsl`(code: u32) -> u32 {
  let i = code >> 1u;
  if ((code & 1u) == 0u) { return ${dst}[i]; }
  return ${src}[i];
}`;
  const sources = a.sources!;
  const bits = Math.max(1, b);
  await sortPairs(rec, a.keys, a.codes, { count: entries, bits });
  await transform(rec, entries, wgsl`(k: u32) { ${rw(sources)}[k] = ${sourceOf}(${a.codes}[k]); }`);
  await sortPairs(rec, sources, a.codes, { count: entries, bits });
  // The first sort's keys are spent: they now hold the targets in final order.
  await transform(rec, entries, wgsl`(k: u32) { ${rw(a.keys)}[k] = ${targetOf}(${a.codes}[k]); }`);
  return {
    sourceAt: wgsl`(k: u32) -> u32 { return ${sources}[k]; }`,
    targetAt: wgsl`(k: u32) -> u32 { return ${a.keys}[k]; }`,
  };
}

/** `(s: u32, t: u32) -> u32`: the first of the sorted entries `[0, count[0])` not below the pair (s, t). */
function pairLowerBound(sorted: SortedEntries, count: DeviceArray<'u32'>): Functor {
  return wgsl`(s: u32, t: u32) -> u32 {
  var lo = 0u;
  var hi = ${count}[0];
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    let ms = ${sorted.sourceAt}(mid);
    if (ms < s || (ms == s && ${sorted.targetAt}(mid) < t)) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}`;
}

/** `(g, start, end)`: writes group g's weight, chosen among entries [start, end) by `rule`. */
function pickWeight(
  rule: DedupeRule,
  weights: DeviceArray<WeightElementType>,
  codes: DeviceArray<'u32'>,
  out: DeviceArray<WeightElementType>,
): Functor {
  if (rule === 'first' || rule === 'none') {
    return wgsl`(g: u32, start: u32, end: u32) { ${rw(out)}[g] = ${weights}[${codes}[start] >> 1u]; }`;
  }
  if (rule === 'last') {
    return wgsl`(g: u32, start: u32, end: u32) { ${rw(out)}[g] = ${weights}[${codes}[end - 1u] >> 1u]; }`;
  }
  // The host's fold: replace only on a strict improvement, so ties and NaNs resolve the same way.
  // A group is scanned by one thread: duplicates are few in practice, and a huge group is correct but slow.
  const better = lit(rule === 'min' ? '<' : '>');
  return wgsl`(g: u32, start: u32, end: u32) {
  var best = ${weights}[${codes}[start] >> 1u];
  for (var k = start + 1u; k < end; k++) {
    let x = ${weights}[${codes}[k] >> 1u];
    if (x ${better} best) { best = x; }
  }
  ${rw(out)}[g] = best;
}`;
}

/** `(x: u32) -> u32`: the first index of the sorted `haystack[0 .. count)` whose element is >= x. */
export function lowerBound(haystack: DeviceArray<'u32'>, count: DeviceArray<'u32'> | number): Functor {
  // A GPU-resident count is read through a helper, so one text serves any count array.
  const length =
    typeof count === 'number'
      ? wgsl`() -> u32 { return ${u32(count)}; }`
      : wgsl`() -> u32 { return ${count}[0]; }`;
  return wgsl`(x: u32) -> u32 {
  var lo = 0u;
  var hi = ${length}();
  while (lo < hi) {
    let mid = lo + (hi - lo) / 2u;
    if (${haystack}[mid] < x) { lo = mid + 1u; } else { hi = mid; }
  }
  return lo;
}`;
}
