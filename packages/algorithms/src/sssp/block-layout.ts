import type { HostCsr } from '@weft/graph';

// Vertices grouped into compact blocks for block-local SSSP (`./blocks.ts`), built once per graph on the host.

export interface BlockLayoutOptions {
  /** Most vertices a block holds (at most 65,536: local ids are 16-bit). */
  blockSize: number;
  /**
   * Threads that sweep a block's arcs (default 1): arc slot `t + k * workgroupSize` is thread `t`'s `k`-th
   * arc, and each block's arcs are padded to a multiple of it (see {@link chainSlots}).
   */
  workgroupSize?: number;
  /**
   * Most out-arcs a block's vertices may have together (a vertex of more arcs forms a block alone, whose only
   * intra-block arcs are self-loops, which are dropped): bounds a block's intra-block arcs.
   */
  arcBudget: number;
}

/**
 * Blocks in block-contiguous vertex order. New id `i` is old vertex `order[i]`; block `b` holds new ids
 * `[blockStart[b], blockStart[b + 1])`. Intra-block arcs of block `b` are `[arcStart[b], arcStart[b + 1])` of
 * `arcs`, two words each: `local source | local target << 16` and the weight word (u32, or f32 bits), in the
 * slots {@link chainSlots} gives them (empty slots have source and target words `0xffffffff`). Arcs
 * leaving a block are a CSR over new ids (`crossOffsets`), three words each in `cross`: the target's new id,
 * its block and the weight word.
 */
export interface BlockLayout {
  blockCount: number;
  order: Uint32Array;
  rank: Uint32Array;
  /** The block of each new id. */
  blockOf: Uint32Array;
  blockStart: Uint32Array;
  arcStart: Uint32Array;
  arcs: Uint32Array;
  crossOffsets: Uint32Array;
  cross: Uint32Array;
}

/** Weight words of a CSR's arcs as u32 (f32 and i32 keep their bits; none: 1 per arc). */
function weightWords(csr: HostCsr): (e: number) => number {
  const w = csr.weights;
  if (w === undefined) return () => 1;
  const words = new Uint32Array(w.buffer, w.byteOffset, w.length);
  return (e) => words[e]!;
}

/** Blocks grow to this fraction of their bounds, leaving room for the fragments merged into them after. */
const GROWTH_FILL = 7 / 8;
/** A grown block below this fraction of `blockSize` is a fragment: merged into a neighbouring block that has room. */
const FRAGMENT = 1 / 8;

/**
 * Region growing: each block grows breadth-first from a seed until it holds {@link GROWTH_FILL} of
 * `blockSize` vertices or the next vertex would pass that fraction of `arcBudget`; the next seed is the
 * earliest vertex a finished block met but could not take, so blocks are compact blobs that tile the graph
 * outward (vertices no block met seed in id order). Returns the blocks as runs of `order`.
 */
function growBlocks(csr: HostCsr, options: BlockLayoutOptions) {
  const n = csr.vertexCount;
  const { offsets, targets } = csr;
  const sizeCap = Math.max(1, Math.floor(options.blockSize * GROWTH_FILL));
  const arcCap = Math.floor(options.arcBudget * GROWTH_FILL);
  const blockOf = new Int32Array(n).fill(-1);
  const order = new Uint32Array(n);
  const starts: number[] = [0];
  const arcTotals: number[] = [];
  // Every arc adds at most one candidate: m entries bound the queue.
  const candidates = new Uint32Array(Math.max(1, csr.edgeCount));
  let candidateHead = 0;
  let candidateTail = 0;
  let scan = 0;
  let placed = 0;
  const degree = (v: number) => offsets[v + 1]! - offsets[v]!;
  while (placed < n) {
    let seed = -1;
    while (candidateHead < candidateTail) {
      const c = candidates[candidateHead++]!;
      if (blockOf[c] === -1) {
        seed = c;
        break;
      }
    }
    if (seed === -1) {
      while (blockOf[scan] !== -1) scan++;
      seed = scan;
    }
    const b = starts.length - 1;
    const start = placed;
    blockOf[seed] = b;
    order[placed++] = seed;
    let arcs = degree(seed);
    for (let head = start; head < placed; head++) {
      const u = order[head]!;
      for (let e = offsets[u]!; e < offsets[u + 1]!; e++) {
        const v = targets[e]!;
        if (blockOf[v] !== -1) continue;
        if (placed - start < sizeCap && arcs + degree(v) <= arcCap) {
          blockOf[v] = b;
          order[placed++] = v;
          arcs += degree(v);
        } else {
          candidates[candidateTail++] = v;
        }
      }
    }
    starts.push(placed);
    arcTotals.push(arcs);
  }
  return { blockOf, order, starts, arcTotals };
}

/**
 * Merges each fragment (pockets a full block cut off, such as dead-end branches) into the non-fragment block
 * it has the most arcs to among those with room left, so a road graph does not get thousands of tiny blocks.
 * Returns the final blocks as runs of a new order (a merged fragment after its host's own vertices).
 */
function mergeFragments(csr: HostCsr, options: BlockLayoutOptions, grown: ReturnType<typeof growBlocks>) {
  const { blockOf, order, starts, arcTotals } = grown;
  const count = starts.length - 1;
  const size = (b: number) => starts[b + 1]! - starts[b]!;
  const small = Math.max(1, Math.floor(options.blockSize * FRAGMENT));
  const sizes = Array.from({ length: count }, (_, b) => size(b));
  const host = Int32Array.from({ length: count }, (_, b) => b);
  const links = new Map<number, number>();
  for (let f = 0; f < count; f++) {
    if (size(f) >= small) continue;
    links.clear();
    for (let i = starts[f]!; i < starts[f + 1]!; i++) {
      const u = order[i]!;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const g = blockOf[csr.targets[e]!]!;
        if (g !== f && size(g) >= small) links.set(g, (links.get(g) ?? 0) + 1);
      }
    }
    let best = -1;
    for (const [g, arcs] of links) {
      const fits =
        sizes[g]! + size(f) <= options.blockSize && arcTotals[g]! + arcTotals[f]! <= options.arcBudget;
      if (fits && (best === -1 || arcs > links.get(best)!)) best = g;
    }
    if (best === -1) continue;
    host[f] = best;
    sizes[best]! += size(f);
    arcTotals[best]! += arcTotals[f]!;
    sizes[f] = 0;
  }
  const guests: number[][] = Array.from({ length: count }, () => []);
  for (let f = 0; f < count; f++) if (host[f] !== f) guests[host[f]!]!.push(f);
  const merged = new Uint32Array(order.length);
  const blockStart: number[] = [0];
  let at = 0;
  for (let b = 0; b < count; b++) {
    if (host[b] !== b) continue;
    for (const r of [b, ...guests[b]!]) {
      merged.set(order.subarray(starts[r]!, starts[r + 1]!), at);
      at += size(r);
    }
    blockStart.push(at);
  }
  return { order: merged, blockStart: Uint32Array.from(blockStart) };
}

/** Groups `csr`'s vertices into blocks (see {@link growBlocks}) and splits its arcs into intra and cross. */
export function buildBlockLayout(csr: HostCsr, options: BlockLayoutOptions): BlockLayout {
  const n = csr.vertexCount;
  const { order, blockStart } = mergeFragments(csr, options, growBlocks(csr, options));
  const blockCount = blockStart.length - 1;
  const rank = new Uint32Array(n);
  for (let i = 0; i < n; i++) rank[order[i]!] = i;
  const blockOf = new Uint32Array(n);
  for (let b = 0; b < blockCount; b++) blockOf.fill(b, blockStart[b]!, blockStart[b + 1]!);
  const weight = weightWords(csr);
  const wg = options.workgroupSize ?? 1;
  const arcStart = new Uint32Array(blockCount + 1);
  const crossOffsets = new Uint32Array(n + 1);
  const cross = new Uint32Array(3 * csr.edgeCount);
  const slots: Uint32Array[] = [];
  const local: number[] = [];
  let intra = 0;
  let out = 0;
  for (let b = 0; b < blockCount; b++) {
    const start = blockStart[b]!;
    arcStart[b] = intra;
    local.length = 0;
    for (let i = start; i < blockStart[b + 1]!; i++) {
      const u = order[i]!;
      crossOffsets[i] = out;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const t = rank[csr.targets[e]!]!;
        // Self-loops never shorten a path over non-negative weights.
        if (t === i) continue;
        if (blockOf[t] === b) {
          local.push((i - start) | ((t - start) << 16), weight(e));
        } else {
          cross[3 * out] = t;
          cross[3 * out + 1] = blockOf[t]!;
          cross[3 * out + 2] = weight(e);
          out++;
        }
      }
    }
    const placed = chainSlots(Uint32Array.from(local), blockStart[b + 1]! - start, wg);
    slots.push(placed);
    intra += placed.length / 2;
  }
  arcStart[blockCount] = intra;
  crossOffsets[n] = out;
  const arcs = new Uint32Array(Math.max(2, 2 * intra));
  let at = 0;
  for (const placed of slots) {
    arcs.set(placed, at);
    at += placed.length;
  }
  return {
    blockCount,
    order,
    rank,
    blockOf,
    blockStart,
    arcStart,
    arcs,
    crossOffsets,
    cross: cross.slice(0, Math.max(3, 3 * out)),
  };
}

/**
 * A block's arcs (`[ends, weight]` pairs) placed in slots so that a thread's arcs, taken in order, follow
 * paths: a sweep then carries a distance several hops along a path, not one. Paths are the preferred-child
 * paths of a breadth-first forest of the block (down, then back up where the reverse arcs exist); the other
 * arcs follow. The sequence is cut into `ceil(arcs / wg)` arcs a thread; thread `t`'s `k`-th arc goes to slot
 * `t + k * wg`, so the threads' loads of one `k` are contiguous.
 */
export function chainSlots(pairs: Uint32Array, size: number, wg: number): Uint32Array {
  const m = pairs.length / 2;
  const per = Math.ceil(m / wg);
  const placed = new Uint32Array(2 * wg * per).fill(0xffffffff);
  if (m === 0) return placed;
  const first = new Uint32Array(size + 1);
  for (let a = 0; a < m; a++) first[(pairs[2 * a]! & 0xffff) + 1]!++;
  for (let v = 0; v < size; v++) first[v + 1]! += first[v]!;
  const byFrom = new Uint32Array(m);
  const fill = first.slice(0, size);
  for (let a = 0; a < m; a++) byFrom[fill[pairs[2 * a]! & 0xffff]!++] = a;
  const head = (a: number) => pairs[2 * a]! >>> 16;
  // Breadth-first forest: the arc that reached each vertex, and each vertex's first child.
  const parentArc = new Int32Array(size).fill(-1);
  const child = new Int32Array(size).fill(-1);
  const seen = new Uint8Array(size);
  const bfs: number[] = [];
  for (let root = 0; root < size; root++) {
    if (seen[root]) continue;
    seen[root] = 1;
    bfs.push(root);
    for (let i = bfs.length - 1; i < bfs.length; i++) {
      const u = bfs[i]!;
      for (let j = first[u]!; j < first[u + 1]!; j++) {
        const v = head(byFrom[j]!);
        if (seen[v]) continue;
        seen[v] = 1;
        parentArc[v] = byFrom[j]!;
        if (child[u] === -1) child[u] = v;
        bfs.push(v);
      }
    }
  }
  const used = new Uint8Array(m);
  const sequence: number[] = [];
  const take = (a: number) => {
    used[a] = 1;
    sequence.push(a);
  };
  const path: number[] = [];
  for (const r of bfs) {
    const p = parentArc[r]! === -1 ? -1 : pairs[2 * parentArc[r]!]! & 0xffff;
    if (p !== -1 && child[p] === r) continue;
    path.length = 0;
    for (let v = r; v !== -1; v = child[v]!) path.push(v);
    for (let i = 1; i < path.length; i++) take(parentArc[path[i]!]!);
    for (let i = path.length - 1; i > 0; i--) {
      const from = path[i]!;
      const to = path[i - 1]!;
      for (let j = first[from]!; j < first[from + 1]!; j++) {
        const a = byFrom[j]!;
        if (head(a) === to && !used[a]) {
          take(a);
          break;
        }
      }
    }
  }
  for (let a = 0; a < m; a++) if (!used[a]) take(a);
  for (const [i, a] of sequence.entries()) {
    const slot = Math.floor(i / per) + (i % per) * wg;
    placed[2 * slot] = pairs[2 * a]!;
    placed[2 * slot + 1] = pairs[2 * a + 1]!;
  }
  return placed;
}
