import type { HostCsr } from '@weft/graph';

// Vertices grouped into compact blocks for block-local SSSP (`./blocks.ts`), built once per graph on the host.

export interface BlockLayoutOptions {
  /** Most vertices a block holds (at most 65,536: local ids are 16-bit). */
  blockSize: number;
  /**
   * Most out-arcs a block's vertices may have together (a vertex of more arcs forms a block alone, whose only
   * intra-block arcs are self-loops, which are dropped): bounds a block's intra-block arcs.
   */
  arcBudget: number;
}

/**
 * Blocks in block-contiguous vertex order. New id `i` is old vertex `order[i]`; block `b` holds new ids
 * `[blockStart[b], blockStart[b + 1])`. Intra-block arcs of block `b` are `[arcStart[b], arcStart[b + 1])` of
 * `arcs`, two words each: `local source | local target << 16` and the weight word (u32, or f32 bits). Arcs
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

/**
 * Region growing: each block grows breadth-first from a seed until it holds `blockSize` vertices or the
 * next vertex would pass `arcBudget`; the next seed is the earliest vertex a finished block met but could not
 * take, so blocks are compact blobs that tile the graph outward (vertices no block met seed in id order).
 */
function growBlocks(csr: HostCsr, options: BlockLayoutOptions) {
  const n = csr.vertexCount;
  const { offsets, targets } = csr;
  const blockOf = new Int32Array(n).fill(-1);
  const order = new Uint32Array(n);
  const starts: number[] = [0];
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
        if (placed - start < options.blockSize && arcs + degree(v) <= options.arcBudget) {
          blockOf[v] = b;
          order[placed++] = v;
          arcs += degree(v);
        } else {
          candidates[candidateTail++] = v;
        }
      }
    }
    starts.push(placed);
  }
  return { order, blockStart: Uint32Array.from(starts) };
}

/** Groups `csr`'s vertices into blocks (see {@link growBlocks}) and splits its arcs into intra and cross. */
export function buildBlockLayout(csr: HostCsr, options: BlockLayoutOptions): BlockLayout {
  const n = csr.vertexCount;
  const { order, blockStart } = growBlocks(csr, options);
  const blockCount = blockStart.length - 1;
  const rank = new Uint32Array(n);
  for (let i = 0; i < n; i++) rank[order[i]!] = i;
  const blockOf = new Uint32Array(n);
  for (let b = 0; b < blockCount; b++) blockOf.fill(b, blockStart[b]!, blockStart[b + 1]!);
  const weight = weightWords(csr);
  const m = csr.edgeCount;
  const arcs = new Uint32Array(2 * m);
  const arcStart = new Uint32Array(blockCount + 1);
  const crossOffsets = new Uint32Array(n + 1);
  const cross = new Uint32Array(3 * m);
  let intra = 0;
  let out = 0;
  for (let b = 0; b < blockCount; b++) {
    const start = blockStart[b]!;
    arcStart[b] = intra;
    for (let i = start; i < blockStart[b + 1]!; i++) {
      const u = order[i]!;
      crossOffsets[i] = out;
      for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) {
        const t = rank[csr.targets[e]!]!;
        // Self-loops never shorten a path over non-negative weights.
        if (t === i) continue;
        if (blockOf[t] === b) {
          arcs[2 * intra] = (i - start) | ((t - start) << 16);
          arcs[2 * intra + 1] = weight(e);
          intra++;
        } else {
          cross[3 * out] = t;
          cross[3 * out + 1] = blockOf[t]!;
          cross[3 * out + 2] = weight(e);
          out++;
        }
      }
    }
  }
  arcStart[blockCount] = intra;
  crossOffsets[n] = out;
  return {
    blockCount,
    order,
    rank,
    blockOf,
    blockStart,
    arcStart,
    arcs: arcs.slice(0, Math.max(2, 2 * intra)),
    crossOffsets,
    cross: cross.slice(0, Math.max(3, 3 * out)),
  };
}
