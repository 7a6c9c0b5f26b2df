import { checkOptionsObject, DeviceLimitError, InputError } from '@weft/gpu';
import {
  checkWeights,
  type HostCsc,
  type HostCsr,
  type HostEdgeList,
  type HostWeights,
  validateEdgeList,
} from './host-graph.ts';

/** Which weight survives when the same (source, target) pair appears more than once. */
export type DedupeRule = 'min' | 'max' | 'first' | 'last' | 'none';

export interface BuildOptions {
  /** Keep one edge per (source, target), choosing its weight by this rule; `'none'` keeps multi-edges. Default `'min'`. */
  dedupe?: DedupeRule;
  /** Default false: edges `v -> v` are dropped. */
  keepSelfLoops?: boolean;
  /** Add the reverse of every edge. Default: `!edges.directed`. */
  symmetrize?: boolean;
  /**
   * Refuse, with a `DeviceLimitError` and before any per-vertex allocation, a graph of more vertices (a file
   * whose size line claims billions of vertices would otherwise take minutes and gigabytes to build). Callers
   * headed for a device pass its limit: `maxStorageBufferBindingSize / 4 - 1`.
   */
  maxVertexCount?: number;
}

/** What the builder changed; `edgeCount = input - selfLoopsDropped - duplicatesDropped + edgesAdded`. */
export interface BuildReport {
  selfLoopsDropped: number;
  /** Input edges merged into an earlier edge with the same (source, target). */
  duplicatesDropped: number;
  /** Reverse edges that symmetrization added because the input lacked them. */
  edgesAdded: number;
}

export interface HostBuildResult {
  csr: HostCsr;
  report: BuildReport;
}

/*
 * Entries are coded as `2 * i` for input edge i as given and `2 * i + 1` for its reverse. The sorts are stable
 * and codes follow input order, so the group of (u, v) and the group of (v, u) hold the same input edges in the
 * same order: every weight rule ('first', 'min', ...) picks the same weight for both, and a symmetrized graph
 * has symmetric weights.
 */

/**
 * Builds a CSR from an edge list on the host: sorts by (source, target) with a stable radix sort (a few
 * cache-friendly passes, O(edges + vertices)), drops self-loops, merges duplicates and symmetrizes as asked.
 *
 * With `dedupe: 'none'`, symmetrization adds the reverse of (u, v) only where the input has no (v, u) at all,
 * so an already symmetric list (a symmetric Matrix Market file) is not doubled.
 */
export function hostCsrFromEdgeList(edges: HostEdgeList, options: BuildOptions = {}): HostBuildResult {
  checkOptionsObject('hostCsrFromEdgeList', options);
  if (options.maxVertexCount !== undefined && edges.vertexCount > options.maxVertexCount) {
    throw new DeviceLimitError(
      `a CSR of ${edges.vertexCount} vertices`,
      edges.vertexCount,
      'maxVertexCount',
      options.maxVertexCount,
      'the graph has more vertices than the target device can hold',
    );
  }
  validateEdgeList(edges);
  const inputWeights = edges.weights && checkWeights(edges.weights, 'edges.weights');
  const dedupe = options.dedupe ?? 'min';
  const keepSelfLoops = options.keepSelfLoops ?? false;
  const symmetrize = options.symmetrize ?? !edges.directed;
  if (!['min', 'max', 'first', 'last', 'none'].includes(dedupe)) {
    throw new InputError(`unknown dedupe rule '${dedupe}'`, 'options.dedupe');
  }
  const { src, dst } = edges;
  const m = src.length;
  if (2 * m > 2 ** 32 - 1) throw new InputError(`${m} edges exceed the builder's 2^31 limit`, 'edges.src');

  let selfLoops = 0;
  for (let i = 0; i < m; i++) if (src[i] === dst[i]) selfLoops++;
  const selfLoopsDropped = keepSelfLoops ? 0 : selfLoops;
  const kept = m - selfLoopsDropped;
  const mirrorAll = symmetrize && dedupe !== 'none';
  // Self-loops are their own reverse: never mirrored.
  let codes: Uint32Array = new Uint32Array(mirrorAll ? 2 * kept - (keepSelfLoops ? selfLoops : 0) : kept);
  let c = 0;
  for (let i = 0; i < m; i++) {
    const loop = src[i] === dst[i];
    if (loop && !keepSelfLoops) continue;
    codes[c++] = 2 * i;
    if (mirrorAll && !loop) codes[c++] = 2 * i + 1;
  }

  const n = edges.vertexCount;
  if (symmetrize && dedupe === 'none') codes = withMissingReverses(codes, src, dst, n);
  const sorted = sortEntries(codes, src, dst, inputWeights, n);

  const { offsets, targets, weights, inputDistinct } =
    dedupe === 'none' ? rowsKeepingAll(sorted, n) : rowsMergingDuplicates(sorted, n, dedupe);
  const csr: HostCsr = {
    vertexCount: n,
    edgeCount: targets.length,
    offsets,
    targets,
    directed: symmetrize ? false : edges.directed,
  };
  if (weights !== undefined) csr.weights = weights;
  if (edges.ids !== undefined) csr.ids = edges.ids;
  return {
    csr,
    report: {
      selfLoopsDropped,
      duplicatesDropped: kept - inputDistinct,
      edgesAdded: targets.length - inputDistinct,
    },
  };
}

/**
 * Entries (coded input edges) in (source, target, position in `codes`) order, interleaved `stride` words each, so
 * that a radix pass writes one stream per bucket: the source, the target word (`target << 1 | reversed` while
 * ids fit 31 bits), the weight's bits when weighted, and a `reversed` word only for ids of 32 bits.
 */
export interface SortedEntries {
  data: Uint32Array;
  stride: number;
  count: number;
  /** Entry k's target is `data[stride * k + 1] >>> targetShift`. */
  targetShift: number;
  /** Entry k came from a reverse (code `2 * i + 1`) iff `data[stride * k + reversedAt] & 1`. */
  reversedAt: number;
  /** `data`'s memory typed like the input weights: entry k's weight is `weights[stride * k + 2]`. */
  weights: HostWeights | undefined;
}

/**
 * Width of the most significant digit, the one pass that scatters across all of memory: 1,024 buckets of
 * interleaved entries, one write stream each, stay within the TLB (wider digits or separate arrays scatter
 * slower).
 */
const RADIX_BITS = 10;
/**
 * Digit width within a chunk (scale 22: about 2^17 entries, 1.5 MB), where scattered writes stay in cache:
 * the 34 key bits below the top digit take 3 passes.
 */
const CHUNK_RADIX_BITS = 12;

/**
 * One digit of the composite key `source * 2^idBits + target`, from the source and the target word:
 * `((tw >>> tShift) & tMask) | (((s >>> sShift) & sMask) << sLeft)` (a digit may straddle the two ids).
 */
interface Digit {
  /** The key bits [lo, lo + width) it covers. */
  lo: number;
  width: number;
  tShift: number;
  tMask: number;
  sShift: number;
  sMask: number;
  sLeft: number;
}

const NO_DIGIT: Digit = { lo: 0, width: 0, tShift: 0, tMask: 0, sShift: 0, sMask: 0, sLeft: 0 };

/**
 * The digits of key bits [from, to), low first, in equal widths of at most `maxWidth` (44 bits, 9: 9, 9, 9, 9, 8),
 * leaving out digits over bits in which no id varies.
 */
function digitsOf(from: number, to: number, maxWidth: number, idBits: number, varying: number): Digit[] {
  const keyBits = to - from;
  const passes = Math.ceil(keyBits / maxWidth);
  const digits: Digit[] = [];
  let lo = from;
  for (let p = 0; p < passes; p++) {
    const width = Math.floor(keyBits / passes) + (p < keyBits % passes ? 1 : 0);
    const d = digitAt(lo, width, idBits);
    if (((varying >>> d.tShift) & d.tMask) !== 0 || ((varying >>> d.sShift) & d.sMask) !== 0) digits.push(d);
    lo += width;
  }
  return digits;
}

/** The digit of key bits [lo, lo + width). */
function digitAt(lo: number, width: number, idBits: number): Digit {
  const mask = (1 << width) - 1;
  if (lo + width <= idBits) return { ...NO_DIGIT, lo, width, tShift: lo, tMask: mask };
  if (lo >= idBits) return { ...NO_DIGIT, lo, width, sShift: lo - idBits, sMask: mask };
  const tWidth = idBits - lo;
  return {
    lo,
    width,
    tShift: lo,
    tMask: (1 << tWidth) - 1,
    sShift: 0,
    sMask: (1 << (width - tWidth)) - 1,
    sLeft: tWidth,
  };
}

/** Shifts a digit's target part past the reversed bit in the target word's low bit. */
function inTargetWord(d: Digit, targetShift: number): Digit {
  return d.tMask === 0 ? d : { ...d, tShift: d.tShift + targetShift };
}

/** Largest typed array: `stride * entries` words must fit one. */
const MAX_WORDS = 2 ** 32;

/**
 * Sorts coded entries (`2 * i`: edge i, `2 * i + 1`: its reverse) by (source, target), stably, by radix: one
 * pass on the top (at most {@link RADIX_BITS}) key bits reads the codes and the edge list (in order: codes
 * ascend) and scatters the entries into chunks; LSD passes over the lower key bits then sort each chunk within
 * cache (scale 22: 1 + 3 passes; 256 vertices: 1 + 1). Key bits in which no id of the list varies cost nothing.
 * Two buffers of interleaved entries: 16 (scale 22 weighted: 12) bytes per entry at most.
 */
export function sortEntries(
  codes: Uint32Array,
  src: Uint32Array,
  dst: Uint32Array,
  w: HostWeights | undefined,
  n: number,
): SortedEntries {
  const e = codes.length;
  const idBits = n <= 1 ? 0 : 32 - Math.clz32(n - 1);
  // Below 2^31 ids the reversed bit rides in the target word's low bit: 8 or 12 bytes per entry, not 12 or 16.
  const targetShift = idBits < 32 ? 1 : 0;
  const stride = 2 + (w === undefined ? 0 : 1) + (1 - targetShift);
  if (stride * e > MAX_WORDS) {
    throw new InputError(
      `${e} entries (edges after symmetrization) exceed the host builder's limit of ${Math.floor(MAX_WORDS / stride)}`,
      'edges.src',
    );
  }
  const varying = varyingBits(src, dst);
  // Key bits above the highest bit in which some source varies are the same for every entry: no pass.
  const keyBits = varying === 0 ? 0 : idBits + 32 - Math.clz32(varying);
  const topLo = Math.max(0, keyBits - RADIX_BITS);
  const top = keyBits === 0 ? NO_DIGIT : inTargetWord(digitAt(topLo, keyBits - topLo, idBits), targetShift);
  const low = digitsOf(0, topLo, CHUNK_RADIX_BITS, idBits, varying).map((d) => inTargetWord(d, targetShift));
  const counts = new Uint32Array(1 << RADIX_BITS);
  countFirstDigit(codes, src, dst, targetShift, top, counts);
  toPositions(counts, 0);
  const chunkStart = counts.slice();
  let cur = new Uint32Array(stride * e);
  scatterFromCodes(codes, src, dst, w, targetShift, cur, stride, top, counts);
  if (low.length > 0) {
    let spare = new Uint32Array(stride * e);
    const chunkCounts = new Uint32Array(1 << CHUNK_RADIX_BITS);
    const nextCounts = new Uint32Array(1 << CHUNK_RADIX_BITS);
    for (let d = 0; d < counts.length; d++) {
      // After the scatter, counts[d] is where chunk d ends.
      if (counts[d]! > chunkStart[d]!) {
        sortChunk(cur, spare, stride, chunkStart[d]!, counts[d]!, low, chunkCounts, nextCounts);
      }
    }
    // Every chunk made the same number of passes: all end in the same buffer.
    if (low.length % 2 === 1) [cur, spare] = [spare, cur];
  }
  return {
    data: cur,
    stride,
    count: e,
    targetShift,
    reversedAt: targetShift === 1 ? 1 : stride - 1,
    weights:
      w === undefined
        ? undefined
        : new (w.constructor as new (b: ArrayBuffer) => HostWeights)(cur.buffer as ArrayBuffer),
  };
}

/** Bits in which some ids of the list differ (a superset of those in which the entries' ids differ). */
function varyingBits(src: Uint32Array, dst: Uint32Array): number {
  let or = 0;
  let and = -1;
  for (let i = 0; i < src.length; i++) {
    or |= src[i]! | dst[i]!;
    and &= src[i]! & dst[i]!;
  }
  return or ^ and;
}

/** Turns bucket counts into each bucket's first write position (exclusive prefix sums). */
function toPositions(counts: Uint32Array, start: number): void {
  let sum = start;
  for (let d = 0; d < counts.length; d++) {
    const c = counts[d]!;
    counts[d] = sum;
    sum += c;
  }
}

function countFirstDigit(
  codes: Uint32Array,
  src: Uint32Array,
  dst: Uint32Array,
  targetShift: number,
  { tShift, tMask, sShift, sMask, sLeft }: Digit,
  counts: Uint32Array,
): void {
  for (let j = 0; j < codes.length; j++) {
    const code = codes[j]!;
    const i = code >>> 1;
    const s = code & 1 ? dst[i]! : src[i]!;
    const tw = ((code & 1 ? src[i]! : dst[i]!) << targetShift) | (code & targetShift);
    counts[((tw >>> tShift) & tMask) | (((s >>> sShift) & sMask) << sLeft)]!++;
  }
}

function scatterFromCodes(
  codes: Uint32Array,
  src: Uint32Array,
  dst: Uint32Array,
  w: HostWeights | undefined,
  targetShift: number,
  to: Uint32Array,
  stride: number,
  { tShift, tMask, sShift, sMask, sLeft }: Digit,
  positions: Uint32Array,
): void {
  // Weights travel as bits: exact for every weight type, and one kind of store.
  const wBits = w === undefined ? undefined : new Uint32Array(w.buffer, w.byteOffset, w.length);
  const reversedWord = targetShift === 0;
  for (let j = 0; j < codes.length; j++) {
    const code = codes[j]!;
    const i = code >>> 1;
    const s = code & 1 ? dst[i]! : src[i]!;
    // Shifting by 0 leaves 32-bit targets whole; their reversed bit gets its own word.
    const tw = ((code & 1 ? src[i]! : dst[i]!) << targetShift) | (code & targetShift);
    const q = stride * positions[((tw >>> tShift) & tMask) | (((s >>> sShift) & sMask) << sLeft)]!++;
    to[q] = s;
    to[q + 1] = tw;
    if (wBits !== undefined) to[q + 2] = wBits[i]!;
    if (reversedWord) to[q + stride - 1] = code & 1;
  }
}

/**
 * Stable LSD radix sort of entries [begin, end) by `digits` (low first), through the same range of `spare`;
 * the result is in `spare` after an odd number of digits.
 */
function sortChunk(
  cur: Uint32Array,
  spare: Uint32Array,
  stride: number,
  begin: number,
  end: number,
  digits: Digit[],
  counts: Uint32Array,
  nextCounts: Uint32Array,
): void {
  countDigit(cur, stride, begin, end, digits[0]!, counts);
  let from = cur;
  let to = spare;
  let positions = counts;
  let next = nextCounts;
  for (let k = 0; k < digits.length; k++) {
    toPositions(positions, begin);
    next.fill(0);
    scatterPass(from, to, stride, begin, end, digits[k]!, positions, digits[k + 1] ?? NO_DIGIT, next);
    [from, to] = [to, from];
    [positions, next] = [next, positions];
  }
}

function countDigit(
  data: Uint32Array,
  stride: number,
  begin: number,
  end: number,
  { tShift, tMask, sShift, sMask, sLeft }: Digit,
  counts: Uint32Array,
): void {
  counts.fill(0);
  for (let j = stride * begin; j < stride * end; j += stride) {
    counts[((data[j + 1]! >>> tShift) & tMask) | (((data[j]! >>> sShift) & sMask) << sLeft)]!++;
  }
}

/** One stable pass over entries [begin, end), counting the next pass's digit on the way. */
function scatterPass(
  from: Uint32Array,
  to: Uint32Array,
  stride: number,
  begin: number,
  end: number,
  { tShift, tMask, sShift, sMask, sLeft }: Digit,
  positions: Uint32Array,
  next: Digit,
  nextCounts: Uint32Array,
): void {
  const { tShift: nts, tMask: ntm, sShift: nss, sMask: nsm, sLeft: nsl } = next;
  for (let j = stride * begin; j < stride * end; j += stride) {
    const s = from[j]!;
    const tw = from[j + 1]!;
    const q = stride * positions[((tw >>> tShift) & tMask) | (((s >>> sShift) & sMask) << sLeft)]!++;
    nextCounts[((tw >>> nts) & ntm) | (((s >>> nss) & nsm) << nsl)]!++;
    to[q] = s;
    to[q + 1] = tw;
    if (stride > 2) to[q + 2] = from[j + 2]!;
    if (stride > 3) to[q + 3] = from[j + 3]!;
  }
}

interface Rows {
  offsets: Uint32Array;
  targets: Uint32Array;
  weights: HostWeights | undefined;
  /** Groups (or entries, without merging) holding at least one input edge as given (not a reverse). */
  inputDistinct: number;
}

function newWeights(w: HostWeights, length: number): HostWeights {
  return new (w.constructor as new (n: number) => HostWeights)(length);
}

/** `dedupe: 'none'`: every sorted entry is an edge. */
function rowsKeepingAll(sorted: SortedEntries, n: number): Rows {
  const { data, stride, count, targetShift, reversedAt, weights: sortedWeights } = sorted;
  const offsets = new Uint32Array(n + 1);
  const targets = new Uint32Array(count);
  const weights = sortedWeights === undefined ? undefined : newWeights(sortedWeights, count);
  let inputDistinct = 0;
  for (let k = 0, j = 0; k < count; k++, j += stride) {
    inputDistinct += ~data[j + reversedAt]! & 1;
    offsets[data[j]! + 1]!++;
    targets[k] = data[j + 1]! >>> targetShift;
    if (weights !== undefined) weights[k] = sortedWeights![j + 2]!;
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  return { offsets, targets, weights, inputDistinct };
}

/** One edge per run of equal (source, target), its weight picked by `rule` over the run in input order. */
function rowsMergingDuplicates(sorted: SortedEntries, n: number, rule: Exclude<DedupeRule, 'none'>): Rows {
  const { data, stride, count, targetShift, reversedAt, weights: sortedWeights } = sorted;
  const end = stride * count;
  let groups = count > 0 ? 1 : 0;
  for (let j = stride; j < end; j += stride) {
    if (
      data[j]! !== data[j - stride]! ||
      data[j + 1]! >>> targetShift !== data[j + 1 - stride]! >>> targetShift
    )
      groups++;
  }
  const offsets = new Uint32Array(n + 1);
  const targets = new Uint32Array(groups);
  const weights = sortedWeights === undefined ? undefined : newWeights(sortedWeights, groups);
  const pickMin = rule === 'min';
  const pickMax = rule === 'max';
  const pickLast = rule === 'last';
  let out = 0;
  let inputDistinct = 0;
  for (let j = 0; j < end; ) {
    const s = data[j]!;
    const t = data[j + 1]! >>> targetShift;
    let original = ~data[j + reversedAt]! & 1;
    let weight = sortedWeights === undefined ? 0 : sortedWeights[j + 2]!;
    let next = j + stride;
    for (; next < end && data[next + 1]! >>> targetShift === t && data[next] === s; next += stride) {
      original |= ~data[next + reversedAt]! & 1;
      if (sortedWeights !== undefined) {
        const x = sortedWeights[next + 2]!;
        if (pickLast || (pickMin && x < weight) || (pickMax && x > weight)) weight = x;
      }
    }
    inputDistinct += original;
    targets[out] = t;
    if (weights !== undefined) weights[out] = weight;
    offsets[s + 1]!++;
    out++;
    j = next;
  }
  for (let v = 0; v < n; v++) offsets[v + 1]! += offsets[v]!;
  return { offsets, targets, weights, inputDistinct };
}

/**
 * Appends reverses until every pair has as many arcs one way as the other: the k-th (u, v) of the input (in input
 * order, k from 0) gets a reverse when the input has at most k arcs (v, u). A symmetric list gets none, a list
 * of one direction gets all, and a multigraph stays symmetric (PageRank pulls an undirected graph's in-edges
 * from its out-edges).
 */
function withMissingReverses(codes: Uint32Array, src: Uint32Array, dst: Uint32Array, n: number): Uint32Array {
  const { data, stride, count, targetShift } = sortEntries(codes, src, dst, undefined, n);
  const targets = new Uint32Array(count);
  const rowStart = new Uint32Array(n + 1);
  for (let k = 0; k < count; k++) {
    rowStart[data[stride * k]! + 1]!++;
    targets[k] = data[stride * k + 1]! >>> targetShift;
  }
  for (let v = 0; v < n; v++) rowStart[v + 1]! += rowStart[v]!;
  // seen[g]: input edges met so far of the group starting at sorted position g (codes ascend: input order).
  const seen = new Uint32Array(count);
  const reverse = new Uint8Array(codes.length);
  let added = 0;
  for (let j = 0; j < codes.length; j++) {
    const code = codes[j]!;
    const u = src[code >>> 1]!;
    const v = dst[code >>> 1]!;
    if (u === v) continue;
    const rank = seen[lowerBound(targets, rowStart[u]!, rowStart[u + 1]!, v)]!++;
    const reverses =
      lowerBound(targets, rowStart[v]!, rowStart[v + 1]!, u + 1) -
      lowerBound(targets, rowStart[v]!, rowStart[v + 1]!, u);
    if (rank >= reverses) {
      reverse[j] = 1;
      added++;
    }
  }
  // Each reverse right after its edge, as the device builder orders them, so both pick the same weights.
  const out = new Uint32Array(codes.length + added);
  let k = 0;
  for (let j = 0; j < codes.length; j++) {
    out[k++] = codes[j]!;
    if (reverse[j]) out[k++] = codes[j]! | 1;
  }
  return out;
}

/** The first position in the sorted `a[begin .. end)` whose element is >= x (`end` if none). */
function lowerBound(a: Uint32Array, begin: number, end: number, x: number): number {
  let lo = begin;
  let hi = end;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The in-edge view of a CSR: in-edges grouped by target (sources ascending) and, for each, the position of
 * the same edge in the CSR, so per-edge values stored in CSR order serve both views.
 */
export function hostCscFromCsr(csr: HostCsr): HostCsc {
  const n = csr.vertexCount;
  const m = csr.edgeCount;
  const inOffsets = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) inOffsets[csr.targets[e]! + 1]!++;
  for (let v = 0; v < n; v++) inOffsets[v + 1]! += inOffsets[v]!;
  const next = inOffsets.slice(0, n);
  const sources = new Uint32Array(m);
  const inEdgeIds = new Uint32Array(m);
  for (let u = 0; u < n; u++) {
    for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
      const p = next[csr.targets[e]!]!++;
      sources[p] = u;
      inEdgeIds[p] = e;
    }
  }
  return { inOffsets, sources, inEdgeIds };
}
