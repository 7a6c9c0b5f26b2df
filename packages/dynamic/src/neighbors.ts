import { type Functor, lit, u32, wgsl } from '@weft/gpu';
import type { NeighborParts } from '@weft/operators';
import type { DynamicGraph } from './dynamic-graph.ts';
import {
  A_BUMP,
  ALIVE,
  COLLISION,
  KEY_SLOTS,
  NEXT_WORD,
  NO_OWNER,
  NULL_SLAB,
  OWNER_WORD,
  SLAB_WORDS,
  TOMBSTONE,
  V_BASE,
  V_BUCKETS,
  V_DEGREE,
  V_FLAGS,
  VERTEX_WORDS,
} from './layout.ts';

/** A search that finds nothing: `findEdge`'s answer for an absent edge. */
export const NOT_FOUND = 0xffffffff;

const vertexWord = (graph: DynamicGraph, field: number) =>
  wgsl`(v: u32) -> u32 { return ${graph.vertices}[v * ${lit(`${VERTEX_WORDS}u`)} + ${lit(`${field}u`)}]; }`;

/**
 * `(v: u32)`: calls `visit(src, dst, edge)` for each live key of v's table (its buckets and their slab
 * chains), `edge` being the key's slot in the slab pool (the index of its value). A chain never holds more
 * slabs than the pool, so the bound turns a corrupted chain into a short walk, not a hang. The operators'
 * hot path, so it keeps its own loop without {@link everySlabNeighbor}'s early exit.
 */
export function forEachSlabNeighbor(graph: DynamicGraph, visit: Functor): Functor {
  const slabs = graph.slabs;
  return wgsl`(v: u32) {
  let base = ${vertexWord(graph, V_BASE)}(v);
  let buckets = ${vertexWord(graph, V_BUCKETS)}(v);
  for (var b = 0u; b < buckets; b++) {
    var slab = base + b;
    for (var hop = 0u; hop <= ${u32(graph.slabCapacity)} && slab != ${lit(`${NULL_SLAB}u`)}; hop++) {
      let at = slab * ${lit(`${SLAB_WORDS}u`)};
      for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
        let k = ${slabs}[at + lane];
        if (k < ${lit(`${TOMBSTONE}u`)}) { ${visit}(v, k, at + lane); }
      }
      slab = ${slabs}[at + ${lit(`${NEXT_WORD}u`)}];
    }
  }
}`;
}

/**
 * `(v: u32, ...extra) -> bool`: calls `step(src, dst, edge, ...extra) -> bool` for each live key of v's table
 * (its buckets and their slab chains, in order), `edge` being the key's slot in the slab pool (the index of
 * its value), and stops at the first step that returns false (then false; true once every key was visited).
 * `extra` are further parameters (`[name, type]`, e.g. `ptr<function, u32>` state) passed on to `step`. A
 * chain never holds more slabs than the pool, so the bound turns a corrupted chain into a short walk, not a
 * hang.
 */
export function everySlabNeighbor(
  graph: DynamicGraph,
  step: Functor,
  extra: readonly (readonly [name: string, type: string])[] = [],
): Functor {
  const slabs = graph.slabs;
  const params = lit(extra.map(([name, type]) => `, ${name}: ${type}`).join(''));
  const args = lit(extra.map(([name]) => `, ${name}`).join(''));
  return wgsl`(v: u32${params}) -> bool {
  let base = ${vertexWord(graph, V_BASE)}(v);
  let buckets = ${vertexWord(graph, V_BUCKETS)}(v);
  for (var b = 0u; b < buckets; b++) {
    var slab = base + b;
    for (var hop = 0u; hop <= ${u32(graph.slabCapacity)} && slab != ${lit(`${NULL_SLAB}u`)}; hop++) {
      let at = slab * ${lit(`${SLAB_WORDS}u`)};
      for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
        let k = ${slabs}[at + lane];
        if (k < ${lit(`${TOMBSTONE}u`)} && !${step}(v, k, at + lane${args})) { return false; }
      }
      slab = ${slabs}[at + ${lit(`${NEXT_WORD}u`)}];
    }
  }
  return true;
}`;
}

/**
 * `(slab: u32)`: calls `visit(src, dst, edge)` for each live key of one slab of the pool, `src` being the
 * slab's owner (nothing for free slabs and slabs past the allocator's bump pointer). A dispatch of one
 * thread per slab visits every edge with at most 30 keys a thread, whatever the degrees.
 */
export function forEachSlabEdge(graph: DynamicGraph, visit: Functor): Functor {
  const slabs = graph.slabs;
  return wgsl`(slab: u32) {
  if (slab >= ${graph.alloc}[${lit(`${A_BUMP}u`)}]) { return; }
  let at = slab * ${lit(`${SLAB_WORDS}u`)};
  let owner = ${slabs}[at + ${lit(`${OWNER_WORD}u`)}];
  if (owner == ${lit(`${NO_OWNER}u`)}) { return; }
  let u = owner & ~${lit(`${COLLISION}u`)};
  if (u >= ${u32(graph.vertexCount)}) { return; }
  for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
    let k = ${slabs}[at + lane];
    if (k < ${lit(`${TOMBSTONE}u`)}) { ${visit}(u, k, at + lane); }
  }
}`;
}

/**
 * A table averages more than this many keys a base bucket when its chains run past two slabs (a hub
 * inserted without degree hints and not rehashed since): its parts are then (bucket, key slot) pairs.
 */
export const LONG_CHAIN_KEYS = 2 * KEY_SLOTS;

/**
 * A vertex's base buckets as its parts: `(v, part)` walks bucket `part`'s chain. Where the chains are long
 * (more than `graph.slotPartsAbove` keys a bucket, by default {@link LONG_CHAIN_KEYS}), a part is one key
 * slot of one bucket's chain instead,
 * so a chain's slabs are read by as many threads as a slab has slots, side by side. Vertices of degree 0
 * (deleted ones included) have no parts, so their cleared buckets cost nothing.
 */
export function slabParts(graph: DynamicGraph): NeighborParts {
  const slabs = graph.slabs;
  const slots = lit(`${KEY_SLOTS}u`);
  // `(v: u32) -> u32`: how many parts each base bucket of `v` is cut into (1, or a key slot each).
  const lanes = wgsl`(v: u32) -> u32 {
  let long = ${vertexWord(graph, V_DEGREE)}(v) > ${u32(graph.slotPartsAbove)} * ${vertexWord(graph, V_BUCKETS)}(v);
  return select(1u, ${slots}, long);
}`;
  return {
    count: wgsl`(v: u32) -> u32 {
  if (${vertexWord(graph, V_DEGREE)}(v) == 0u) { return 0u; }
  return ${vertexWord(graph, V_BUCKETS)}(v) * ${lanes}(v);
}`,
    forEach: (visit) => wgsl`(v: u32, part: u32) {
  let per = ${lanes}(v);
  let first = select(0u, part % per, per > 1u);
  let last = select(${slots}, first + 1u, per > 1u);
  var slab = ${vertexWord(graph, V_BASE)}(v) + part / per;
  for (var hop = 0u; hop <= ${u32(graph.slabCapacity)} && slab != ${lit(`${NULL_SLAB}u`)}; hop++) {
    let at = slab * ${lit(`${SLAB_WORDS}u`)};
    for (var lane = first; lane < last; lane++) {
      let k = ${slabs}[at + lane];
      if (k < ${lit(`${TOMBSTONE}u`)}) { ${visit}(v, k, at + lane); }
    }
    slab = ${slabs}[at + ${lit(`${NEXT_WORD}u`)}];
  }
}`,
    capacity: Math.min(0xffffffff, Math.max(1, graph.slabCapacity * KEY_SLOTS)),
  };
}

/** `(u: u32, v: u32) -> bool`: whether `u -> v` is an edge; false where `u` is not a vertex of the graph. */
export function hasEdgeFunctor(graph: DynamicGraph): Functor {
  return wgsl`(u: u32, v: u32) -> bool {
  if (!${isAliveFunctor(graph)}(u) || ${vertexWord(graph, V_DEGREE)}(u) == 0u) { return false; }
  return ${findEdgeFunctor(graph)}(u, v) != ${lit(`${NOT_FOUND}u`)};
}`;
}

/** `(v: u32) -> u32`: the out-degree of `v` (exact: kept by every batch). */
export function slabDegree(graph: DynamicGraph): Functor {
  return vertexWord(graph, V_DEGREE);
}

/** `(v: u32) -> bool`: whether `v` is a vertex of the graph (inserted and not deleted). */
export function isAliveFunctor(graph: DynamicGraph): Functor {
  return wgsl`(v: u32) -> bool {
  return v < ${u32(graph.vertexCount)} && (${vertexWord(graph, V_FLAGS)}(v) & ${lit(`${ALIVE}u`)}) != 0u;
}`;
}

/**
 * `(u: u32, v: u32) -> u32`: the slot of key `v` in `u`'s table ({@link NOT_FOUND} if absent): a hash
 * probe of one bucket's chain. `u` must be a vertex of the graph. Read-only (no concurrent batch).
 */
export function findEdgeFunctor(graph: DynamicGraph): Functor {
  const slabs = graph.slabs;
  // lowbias32 (Wellons), as the tables hash keys into buckets.
  const hash = wgsl`(k: u32) -> u32 {
  var x = k;
  x ^= x >> 16u; x *= 0x7feb352du;
  x ^= x >> 15u; x *= 0x846ca68bu;
  x ^= x >> 16u;
  return x;
}`;
  return wgsl`(u: u32, v: u32) -> u32 {
  var slab = ${vertexWord(graph, V_BASE)}(u) + ${hash}(v) % ${vertexWord(graph, V_BUCKETS)}(u);
  for (var hop = 0u; hop <= ${u32(graph.slabCapacity)}; hop++) {
    let at = slab * ${lit(`${SLAB_WORDS}u`)};
    for (var lane = 0u; lane < ${lit(`${KEY_SLOTS}u`)}; lane++) {
      if (${slabs}[at + lane] == v) { return at + lane; }
    }
    slab = ${slabs}[at + ${lit(`${NEXT_WORD}u`)}];
    if (slab == ${lit(`${NULL_SLAB}u`)}) { return ${lit(`${NOT_FOUND}u`)}; }
  }
  return ${lit(`${NOT_FOUND}u`)};
}`;
}
