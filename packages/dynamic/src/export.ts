import { u32, wgsl } from '@weft/gpu';
import { DeviceGraph } from '@weft/graph';
import { transformScan } from '@weft/scan';
import { sortPairs } from '@weft/sort';
import type { DynamicGraph } from './dynamic-graph.ts';
import { pairOrderKernel, scatterEdgesKernel } from './export-kernels.ts';
import {
  A_BUMP,
  A_FREE,
  ALIVE,
  COLLISION,
  EMPTY,
  KEY_SLOTS,
  NEXT_WORD,
  NULL_SLAB,
  OWNER_WORD,
  SLAB_WORDS,
  TOMBSTONE,
  V_BASE,
  V_BUCKETS,
  V_DEGREE,
  V_FLAGS,
  VERTEX_WORDS,
  WORKGROUP,
} from './layout.ts';

/**
 * A CSR snapshot: row offsets by a scan of the degrees, one thread per slab scatters keys into their rows,
 * two stable radix sorts order every row by target.
 */
export async function exportSnapshot(g: DynamicGraph): Promise<DeviceGraph> {
  const d = g.device;
  const n = g.vertexCount;
  const offsets = d.array('u32', n + 1, { label: 'graph row offsets' });
  await transformScan(
    d,
    n + 1,
    wgsl`(i: u32) -> u32 { if (i < ${u32(n)}) { return ${g.vertices}[i * ${u32(VERTEX_WORDS)} + ${u32(V_DEGREE)}]; } return 0u; }`,
    offsets,
  );
  const m = (await offsets.download(n, 1))[0]!;
  const targets = d.array('u32', m, { label: 'graph column indices' });
  const weights = g.valueType ? d.array(g.valueType, m, { label: 'graph edge weights' }) : undefined;
  if (m > 0) {
    const scatter = await d.kernel(scatterEdgesKernel(weights !== undefined));
    const order = await d.kernel(pairOrderKernel());
    const rec = d.recorder({ label: 'dynamic export' });
    const cursor = rec.scratch('u32', n + 1, 'export cursor');
    const src = rec.scratch('u32', m, 'export sources');
    const dst = rec.scratch('u32', m, 'export targets');
    // Kernels without values still bind the arrays: a one-word dummy (writable bindings must not alias).
    const val = rec.scratch('u32', weights ? m : 1, 'export values');
    const keys = rec.scratch('u32', m, 'export sort keys');
    const idx = rec.scratch('u32', m, 'export order');
    rec.copy(offsets, cursor, n + 1);
    rec.dispatch(scatter, {
      bindings: {
        slabs: g.slabs,
        values: g.values,
        vertices: g.vertices,
        alloc: g.alloc,
        cursor,
        out_src: src,
        out_dst: dst,
        out_val: val,
      },
      params: { n: g.slabCapacity, ...g.tableParams() },
      workgroups: Math.ceil(g.slabCapacity / WORKGROUP),
    });
    const bits = Math.max(1, Math.ceil(Math.log2(Math.max(n, 2))));
    const bindings = {
      src,
      dst,
      val,
      keys,
      idx,
      out_dst: targets,
      out_val: weights ?? rec.scratch('u32', 1, 'no values'),
    };
    const params = { n: m, with_values: weights ? 1 : 0 };
    const workgroups = Math.ceil(m / WORKGROUP);
    rec.dispatch(order, { entry: 'first', bindings, params, workgroups });
    await sortPairs(rec, keys, idx, { count: m, bits });
    rec.dispatch(order, { entry: 'second', bindings, params, workgroups });
    await sortPairs(rec, keys, idx, { count: m, bits });
    rec.dispatch(order, { entry: 'gather', bindings, params, workgroups });
    await rec.submit();
  }
  return new DeviceGraph(d, n, m, g.directed, offsets, targets, weights, undefined);
}

/** The raw tables read back and decoded on the host, with every invariant violation found. */
export interface TableSnapshot {
  /** Per vertex: target -> value bits (0 in the set variant). */
  adjacency: Map<number, number>[];
  /** Degrees as stored in the vertex dictionary. */
  degrees: Uint32Array;
  /** Base bucket count of each vertex's table. */
  buckets: Uint32Array;
  alive: boolean[];
  /** Slabs handed out by the bump pointer, and slabs on the free list. */
  bumpSlabs: number;
  freeSlabs: number;
  /** Broken invariants (duplicate keys, wrong degrees, keys in the wrong bucket, ...): empty when consistent. */
  problems: string[];
}

function hostHash(k: number): number {
  let x = k >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** Decodes the tables on the host, independently of the export kernels. */
export async function readTables(g: DynamicGraph): Promise<TableSnapshot> {
  const alloc = await g.alloc.download();
  const bump = alloc[A_BUMP]!;
  const slabs = await g.slabs.download(0, Math.min(bump, g.slabCapacity) * SLAB_WORDS);
  const values = g.valueType ? await g.values.download(0, slabs.length) : undefined;
  const vertices = await g.vertices.download(0, g.vertexCount * VERTEX_WORDS);
  const problems: string[] = [];
  const n = g.vertexCount;
  const adjacency: Map<number, number>[] = [];
  const degrees = new Uint32Array(n);
  const bucketCounts = new Uint32Array(n);
  const alive: boolean[] = [];
  const seenSlab = new Uint8Array(bump);
  for (let v = 0; v < n; v++) {
    const base = vertices[v * VERTEX_WORDS + V_BASE]!;
    const buckets = vertices[v * VERTEX_WORDS + V_BUCKETS]!;
    bucketCounts[v] = buckets;
    degrees[v] = vertices[v * VERTEX_WORDS + V_DEGREE]!;
    const isAlive = (vertices[v * VERTEX_WORDS + V_FLAGS]! & ALIVE) !== 0;
    alive.push(isAlive);
    const adj = new Map<number, number>();
    adjacency.push(adj);
    for (let b = 0; b < buckets; b++) {
      let slab = base + b;
      let collision = false;
      while (slab !== NULL_SLAB) {
        if (slab >= bump) {
          problems.push(`vertex ${v} bucket ${b}: slab ${slab} beyond the bump pointer ${bump}`);
          break;
        }
        if (seenSlab[slab]) {
          problems.push(`vertex ${v} bucket ${b}: slab ${slab} reached twice`);
          break;
        }
        seenSlab[slab] = 1;
        const owner = slabs[slab * SLAB_WORDS + OWNER_WORD]!;
        const expected = collision ? (v | COLLISION) >>> 0 : v;
        if (owner !== expected) problems.push(`slab ${slab} of vertex ${v} has owner word ${owner}`);
        if (!isAlive && collision) problems.push(`deleted vertex ${v} keeps collision slab ${slab}`);
        for (let lane = 0; lane < KEY_SLOTS; lane++) {
          const k = slabs[slab * SLAB_WORDS + lane]!;
          if (!isAlive && k !== EMPTY)
            problems.push(`deleted vertex ${v}: slab ${slab} word ${lane} is ${k}`);
          if (k === EMPTY || k === TOMBSTONE) continue;
          if (hostHash(k) % buckets !== b) problems.push(`vertex ${v}: key ${k} in bucket ${b}`);
          if (adj.has(k)) problems.push(`vertex ${v}: key ${k} twice`);
          adj.set(k, values ? values[slab * SLAB_WORDS + lane]! : 0);
        }
        slab = slabs[slab * SLAB_WORDS + NEXT_WORD]!;
        collision = true;
      }
    }
    if (adj.size !== degrees[v]) problems.push(`vertex ${v}: degree ${degrees[v]} but ${adj.size} keys`);
    if (!isAlive && adj.size > 0) problems.push(`deleted vertex ${v} has ${adj.size} keys`);
  }
  // Every slab below the bump pointer is in a chain or on the free list, once: none leaks.
  const free = alloc[A_FREE]! > 0 ? await g.freeList.download(0, alloc[A_FREE]!) : new Uint32Array(0);
  for (const s of free) {
    if (s >= bump || seenSlab[s])
      problems.push(`free slab ${s} is in a chain, listed twice or beyond the bump pointer`);
    else seenSlab[s] = 2;
    // Insertions take a free slab as it is: it must be all ones (EMPTY keys, no owner, no next).
    if (s < bump && slabs.subarray(s * SLAB_WORDS, (s + 1) * SLAB_WORDS).some((w) => w !== EMPTY)) {
      problems.push(`free slab ${s} is not all EMPTY`);
    }
  }
  for (let s = 0; s < bump; s++) {
    if (!seenSlab[s] && slabs[s * SLAB_WORDS + OWNER_WORD] !== EMPTY) {
      problems.push(`slab ${s} has an owner but no chain reaches it`);
    } else if (!seenSlab[s]) {
      problems.push(`slab ${s} is neither in a chain nor on the free list`);
    }
  }
  return {
    adjacency,
    degrees,
    buckets: bucketCounts,
    alive,
    bumpSlabs: bump,
    freeSlabs: alloc[A_FREE]!,
    problems,
  };
}
