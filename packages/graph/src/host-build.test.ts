import { DeviceLimitError, InputError } from '@weft/gpu';
import { expectArrayEqual, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { type DedupeRule, hostCscFromCsr, hostCsrFromEdgeList, sortEntries } from './host-build.ts';
import type { HostEdgeList, HostWeights } from './host-graph.ts';

/** The builder's contract spelled out with plain arrays, Array.sort and a Set. */
function naiveCsr(edges: HostEdgeList, dedupe: DedupeRule, keepSelfLoops: boolean, symmetrize: boolean) {
  type Entry = { s: number; t: number; w: number; order: number };
  const list: Entry[] = [];
  const m = edges.src.length;
  const w = (i: number) => edges.weights?.[i] ?? 0;
  for (let i = 0; i < m; i++) {
    const s = edges.src[i]!;
    const t = edges.dst[i]!;
    if (s === t && !keepSelfLoops) continue;
    list.push({ s, t, w: w(i), order: 2 * i });
    if (symmetrize && dedupe !== 'none' && s !== t) list.push({ s: t, t: s, w: w(i), order: 2 * i + 1 });
  }
  if (symmetrize && dedupe === 'none') {
    // The k-th (s, t) in input order gets a reverse when the input holds at most k arcs (t, s).
    const count = new Map<string, number>();
    for (const e of list) count.set(`${e.s},${e.t}`, (count.get(`${e.s},${e.t}`) ?? 0) + 1);
    const seen = new Map<string, number>();
    for (const e of [...list]) {
      const k = seen.get(`${e.s},${e.t}`) ?? 0;
      seen.set(`${e.s},${e.t}`, k + 1);
      if (e.s !== e.t && k >= (count.get(`${e.t},${e.s}`) ?? 0))
        list.push({ s: e.t, t: e.s, w: e.w, order: e.order + 1 });
    }
  }
  list.sort((a, b) => a.s - b.s || a.t - b.t || a.order - b.order);
  const out: Entry[] = [];
  for (let k = 0; k < list.length; ) {
    let end = k + 1;
    if (dedupe !== 'none')
      while (end < list.length && list[end]!.s === list[k]!.s && list[end]!.t === list[k]!.t) end++;
    const group = list.slice(k, end).map((e) => e.w);
    const pick =
      dedupe === 'min'
        ? Math.min(...group)
        : dedupe === 'max'
          ? Math.max(...group)
          : dedupe === 'last'
            ? group[group.length - 1]!
            : group[0]!;
    out.push({ ...list[k]!, w: pick });
    k = end;
  }
  const offsets = new Uint32Array(edges.vertexCount + 1);
  for (const e of out) offsets[e.s + 1]!++;
  for (let v = 0; v < edges.vertexCount; v++) offsets[v + 1]! += offsets[v]!;
  return { offsets, targets: out.map((e) => e.t), weights: out.map((e) => e.w) };
}

function randomEdges(n: number, m: number, seed: number, weighted: boolean, directed: boolean): HostEdgeList {
  const r = mulberry32(seed);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  const weights = new Float32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = Math.floor(r() * n);
    // Many repeats and self-loops: a small target range around the source.
    dst[i] = r() < 0.5 ? Math.floor(r() * n) : Math.min(n - 1, src[i]! + Math.floor(r() * 3));
    weights[i] = Math.floor(r() * 100) / 4;
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed };
  if (weighted) edges.weights = weights;
  return edges;
}

type WeightKind = 'f32' | 'u32' | 'i32' | undefined;
const weightKinds: WeightKind[] = ['f32', 'u32', 'i32', undefined];

/** Few distinct weights per kind, so min, max, first and last pick differently. */
function weightArray(kind: WeightKind, m: number, r: () => number): HostWeights | undefined {
  if (kind === undefined) return undefined;
  const w = kind === 'f32' ? new Float32Array(m) : kind === 'u32' ? new Uint32Array(m) : new Int32Array(m);
  for (let i = 0; i < m; i++) {
    const x = Math.floor(r() * 9);
    w[i] = kind === 'f32' ? x / 4 - 1 : kind === 'u32' ? 2 ** 32 - 1 - x * 2 ** 28 : -(2 ** 31) + x * 2 ** 28;
  }
  return w;
}

/** Ids from a small random pool (with 0 and n - 1): many duplicates, reverse pairs and self-loops at any n. */
function pooledEdges(n: number, m: number, seed: number, kind: WeightKind): HostEdgeList {
  const r = mulberry32(seed);
  const pool = [0, n - 1];
  for (let k = 0; k < 2 + Math.sqrt(m); k++) pool.push(Math.floor(r() * n));
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = pool[Math.floor(r() * pool.length)]!;
    dst[i] = r() < 0.1 ? src[i]! : pool[Math.floor(r() * pool.length)]!;
  }
  const edges: HostEdgeList = { vertexCount: n, src, dst, directed: true };
  const w = weightArray(kind, m, r);
  if (w !== undefined) edges.weights = w;
  return edges;
}

/** Ids drawn by `id` (sources) and `other` (targets; default `id`), weighted f32. */
function patternEdges(
  n: number,
  m: number,
  seed: number,
  id: (r: number) => number,
  other: (r: number) => number = id,
): HostEdgeList {
  const r = mulberry32(seed);
  const src = new Uint32Array(m);
  const dst = new Uint32Array(m);
  for (let i = 0; i < m; i++) {
    src[i] = Math.min(n - 1, id(r()));
    dst[i] = Math.min(n - 1, other(r()));
  }
  return { vertexCount: n, src, dst, directed: true, weights: weightArray('f32', m, r)! };
}

function expectMatchesReference(
  edges: HostEdgeList,
  dedupe: DedupeRule,
  keepSelfLoops: boolean,
  symmetrize: boolean,
  what: string,
): void {
  const { csr, report } = hostCsrFromEdgeList(edges, { dedupe, keepSelfLoops, symmetrize });
  const ref = naiveCsr(edges, dedupe, keepSelfLoops, symmetrize);
  expectArrayEqual(csr.offsets, ref.offsets, `${what} offsets`);
  expectArrayEqual(csr.targets, ref.targets, `${what} targets`);
  if (edges.weights === undefined) expect(csr.weights).toBeUndefined();
  else expectArrayEqual(csr.weights!, ref.weights, `${what} weights`);
  expect(csr.edgeCount).toBe(csr.targets.length);
  expect(csr.directed).toBe(symmetrize ? false : edges.directed);
  expect(edges.src.length - report.selfLoopsDropped - report.duplicatesDropped + report.edgesAdded).toBe(
    csr.edgeCount,
  );
  expect(report).toEqual(naiveReport(edges, dedupe, keepSelfLoops, symmetrize, csr.edgeCount));
}

/** The report from its definition: input pairs as given, distinct, against the output size. */
function naiveReport(
  edges: HostEdgeList,
  dedupe: DedupeRule,
  keepSelfLoops: boolean,
  symmetrize: boolean,
  edgeCount: number,
) {
  let selfLoopsDropped = 0;
  const pairs = new Set<string>();
  let kept = 0;
  for (let i = 0; i < edges.src.length; i++) {
    if (edges.src[i] === edges.dst[i] && !keepSelfLoops) {
      selfLoopsDropped++;
      continue;
    }
    kept++;
    pairs.add(`${edges.src[i]},${edges.dst[i]}`);
  }
  const inputDistinct = dedupe === 'none' ? kept : pairs.size;
  return {
    selfLoopsDropped,
    duplicatesDropped: kept - inputDistinct,
    edgesAdded: symmetrize ? edgeCount - inputDistinct : 0,
  };
}

describe('hostCsrFromEdgeList', () => {
  const rules: DedupeRule[] = ['min', 'max', 'first', 'last', 'none'];
  it('matches a naive reference for every rule, with and without self-loops and symmetrization', () => {
    let seed = 1;
    for (const [n, m] of [
      [1, 0],
      [1, 5],
      [7, 40],
      [50, 600],
      [300, 2000],
    ] as const) {
      for (const dedupe of rules) {
        for (const keepSelfLoops of [false, true]) {
          for (const symmetrize of [false, true]) {
            const edges = randomEdges(n, m, seed++, true, !symmetrize);
            const { csr, report } = hostCsrFromEdgeList(edges, { dedupe, keepSelfLoops, symmetrize });
            const ref = naiveCsr(edges, dedupe, keepSelfLoops, symmetrize);
            const what = `n=${n} m=${m} ${dedupe} loops=${keepSelfLoops} sym=${symmetrize}`;
            expectArrayEqual(csr.offsets, ref.offsets, `${what} offsets`);
            expectArrayEqual(csr.targets, ref.targets, `${what} targets`);
            expectArrayEqual(csr.weights!, ref.weights, `${what} weights`);
            expect(csr.edgeCount).toBe(csr.targets.length);
            expect(csr.directed).toBe(!symmetrize);
            expect(m - report.selfLoopsDropped - report.duplicatesDropped + report.edgesAdded).toBe(
              csr.edgeCount,
            );
          }
        }
      }
    }
  });

  it('matches the reference on ids of every width, with digits the radix sort must skip or straddle', () => {
    // Vertex counts around digit and byte boundaries, up to sparse lists over 2^22 + 5 ids.
    const allFlags = [
      [false, false],
      [false, true],
      [true, false],
      [true, true],
    ] as const;
    const bigFlags = [allFlags[1], allFlags[2]] as const;
    const counts = [1, 2, 255, 256, 257, 2 ** 11 - 1, 2 ** 11 + 1, 2 ** 16 + 3, 2 ** 22 + 5];
    let seed = 100;
    for (const n of counts) {
      const lists: [string, HostEdgeList][] = [];
      for (const m of [0, 1, 7, 1500]) {
        lists.push([`pool m=${m}`, pooledEdges(n, m, seed++, weightKinds[seed % weightKinds.length]!)]);
      }
      // Ids that vary only in high bits, only in low bits of large ids, and one edge repeated.
      lists.push(['high bits', patternEdges(n, 600, seed++, (r) => Math.floor(r * 8) * Math.floor(n / 8))]);
      lists.push(['low bits', patternEdges(n, 600, seed++, (r) => n - 1 - Math.floor(r * Math.min(n, 5)))]);
      lists.push([
        'one edge',
        patternEdges(
          n,
          300,
          seed++,
          () => n - 1,
          () => Math.floor(n / 2),
        ),
      ]);
      // Over 2^20 ids every build walks millions of offsets: fewer lists and flag pairs there, all rules still.
      const big = n > 2 ** 20;
      for (const [kind, base] of big ? [lists[3]!, lists[4]!] : lists) {
        for (const directed of big ? [kind === 'high bits'] : [true, false]) {
          const edges = { ...base, directed };
          for (const dedupe of rules) {
            for (const [keepSelfLoops, symmetrize] of big ? bigFlags : allFlags) {
              const what = `n=${n} ${kind} m=${edges.src.length} directed=${directed} ${dedupe} loops=${keepSelfLoops} sym=${symmetrize}`;
              expectMatchesReference(edges, dedupe, keepSelfLoops, symmetrize, what);
            }
          }
          // The defaults: 'min', no self-loops, symmetrize undirected lists.
          const { csr } = hostCsrFromEdgeList(edges);
          const ref = naiveCsr(edges, 'min', false, !directed);
          expectArrayEqual(csr.targets, ref.targets, `n=${n} ${kind} defaults targets`);
        }
      }
    }
  });

  it('keeps weight types and bits: u32 weights above 2^31, negative i32, fractional f32', () => {
    const n = 300;
    for (const kind of weightKinds) {
      if (kind === undefined) continue;
      const edges = pooledEdges(n, 2000, 7, kind);
      for (const dedupe of rules) {
        const { csr } = hostCsrFromEdgeList(edges, { dedupe, symmetrize: true });
        expect(csr.weights!.constructor).toBe(edges.weights!.constructor);
        expectMatchesReference(edges, dedupe, false, true, `${kind} ${dedupe}`);
      }
    }
  });

  it('sorts 32-bit ids (the reversed bit gets its own word) like the reference', () => {
    for (const weighted of [false, true]) {
      const n = 2 ** 32 - 1;
      const r = mulberry32(weighted ? 5 : 6);
      const pool = [0, 1, n - 1, n - 2, 2 ** 31, 2 ** 31 - 1, 12345];
      const m = 400;
      const src = new Uint32Array(m);
      const dst = new Uint32Array(m);
      const weights = new Float32Array(m);
      for (let i = 0; i < m; i++) {
        src[i] = pool[Math.floor(r() * pool.length)]!;
        dst[i] = pool[Math.floor(r() * pool.length)]!;
        weights[i] = Math.floor(r() * 50);
      }
      const codes = new Uint32Array(2 * m);
      for (let k = 0; k < codes.length; k++) codes[k] = k;
      const sorted = sortEntries(codes, src, dst, weighted ? weights : undefined, n);
      expect(sorted.stride).toBe(weighted ? 4 : 3);
      const expected = [...codes].sort((a, b) => {
        const [sa, ta] = a & 1 ? [dst[a >>> 1]!, src[a >>> 1]!] : [src[a >>> 1]!, dst[a >>> 1]!];
        const [sb, tb] = b & 1 ? [dst[b >>> 1]!, src[b >>> 1]!] : [src[b >>> 1]!, dst[b >>> 1]!];
        return sa - sb || ta - tb || a - b;
      });
      for (let k = 0; k < expected.length; k++) {
        const code = expected[k]!;
        const j = k * sorted.stride;
        const [s, t] = code & 1 ? [dst[code >>> 1]!, src[code >>> 1]!] : [src[code >>> 1]!, dst[code >>> 1]!];
        expect(sorted.data[j]).toBe(s);
        expect(sorted.data[j + 1]! >>> sorted.targetShift).toBe(t);
        expect(sorted.data[j + sorted.reversedAt]! & 1).toBe(code & 1);
        if (weighted) expect(sorted.weights![j + 2]).toBe(weights[code >>> 1]);
      }
    }
  });

  it('reports what it dropped and added on a hand-made list', () => {
    // 0->1 twice, 1->0 once, 2->2 self-loop, 1->2 without reverse.
    const edges: HostEdgeList = {
      vertexCount: 4,
      src: new Uint32Array([0, 0, 1, 2, 1]),
      dst: new Uint32Array([1, 1, 0, 2, 2]),
      weights: new Uint32Array([5, 3, 9, 1, 7]),
      directed: true,
    };
    const directed = hostCsrFromEdgeList(edges);
    expect([...directed.csr.offsets]).toEqual([0, 1, 3, 3, 3]);
    expect([...directed.csr.targets]).toEqual([1, 0, 2]);
    expect([...directed.csr.weights!]).toEqual([3, 9, 7]);
    expect(directed.csr.weights).toBeInstanceOf(Uint32Array);
    expect(directed.report).toEqual({ selfLoopsDropped: 1, duplicatesDropped: 1, edgesAdded: 0 });

    const sym = hostCsrFromEdgeList(edges, { symmetrize: true, dedupe: 'max' });
    expect([...sym.csr.targets]).toEqual([1, 0, 2, 1]);
    // Both directions of {0, 1} see weights 5, 3 and 9: symmetric weights.
    expect([...sym.csr.weights!]).toEqual([9, 9, 7, 7]);
    expect(sym.report).toEqual({ selfLoopsDropped: 1, duplicatesDropped: 1, edgesAdded: 1 });

    // Two arcs 0->1 but one 1->0: the second 0->1 gets a reverse too, so the multigraph stays symmetric.
    const multi = hostCsrFromEdgeList(edges, { dedupe: 'none', keepSelfLoops: true, symmetrize: true });
    expect([...multi.csr.targets]).toEqual([1, 1, 0, 0, 2, 1, 2]);
    expect([...multi.csr.weights!]).toEqual([5, 3, 3, 9, 7, 7, 1]);
    expect(multi.report).toEqual({ selfLoopsDropped: 0, duplicatesDropped: 0, edgesAdded: 2 });
  });

  it('sorts a sparse graph over a million vertex ids and keeps isolated vertices', () => {
    const n = 2 ** 20 + 3;
    const edges: HostEdgeList = {
      vertexCount: n,
      src: new Uint32Array([n - 1, 0, n - 1, 5]),
      dst: new Uint32Array([0, n - 1, 3, n - 1]),
      directed: true,
    };
    const { csr } = hostCsrFromEdgeList(edges);
    expect(csr.offsets.length).toBe(n + 1);
    expect([...csr.targets]).toEqual([n - 1, n - 1, 0, 3]);
    expect(csr.offsets[n - 1]).toBe(2);
    expect(csr.weights).toBeUndefined();
  });

  it('refuses more vertices than maxVertexCount at once, before allocating for them', () => {
    // A size line's claim of 2^32 - 1 vertices with one edge: without the limit this builds for minutes.
    const huge: HostEdgeList = {
      vertexCount: 2 ** 32 - 1,
      src: new Uint32Array([0]),
      dst: new Uint32Array([1]),
      directed: true,
    };
    const start = performance.now();
    expect(() => hostCsrFromEdgeList(huge, { maxVertexCount: 2 ** 29 - 1 })).toThrow(DeviceLimitError);
    expect(() => hostCsrFromEdgeList(huge, { maxVertexCount: 2 ** 29 - 1 })).toThrow(/4294967295 vertices/);
    expect(performance.now() - start).toBeLessThan(1000);
    const small = { ...huge, vertexCount: 2 };
    expect(hostCsrFromEdgeList(small, { maxVertexCount: 2 }).csr.edgeCount).toBe(1);
  });

  it('names the array and index of an out-of-range id', () => {
    const bad: HostEdgeList = {
      vertexCount: 3,
      src: new Uint32Array([0, 1, 2]),
      dst: new Uint32Array([1, 2, 3]),
      directed: true,
    };
    expect(() => hostCsrFromEdgeList(bad)).toThrow(InputError);
    expect(() => hostCsrFromEdgeList(bad)).toThrow(/edges\.dst\[2\] = 3/);
    expect(() => hostCsrFromEdgeList({ ...bad, src: new Uint32Array([4, 0, 0]) })).toThrow(
      /edges\.src\[0\] = 4/,
    );
    expect(() => hostCsrFromEdgeList({ ...bad, src: new Uint32Array([0]) })).toThrow(
      /src has 1 entries but dst has 3/,
    );
    expect(() =>
      hostCsrFromEdgeList({ ...bad, dst: new Uint32Array([0, 0, 0]), weights: new Float32Array(2) }),
    ).toThrow(/weights has 2 entries/);
    expect(() => hostCsrFromEdgeList({ ...bad, vertexCount: -1 })).toThrow(/vertexCount/);
  });

  it('requires directed: a missing one is an InputError, not an undirected graph', () => {
    const { directed: _, ...unsaid } = {
      vertexCount: 2,
      src: new Uint32Array([0]),
      dst: new Uint32Array([1]),
      directed: true,
    };
    const edges = unsaid as HostEdgeList;
    expect(() => hostCsrFromEdgeList(edges)).toThrow(InputError);
    expect(() => hostCsrFromEdgeList(edges)).toThrow(
      /^edges\.directed: directed must be true or false, got nothing/,
    );
    expect(() => hostCsrFromEdgeList({ ...edges, directed: 1 as unknown as boolean })).toThrow(/got 1/);
    // Stated either way, it builds.
    expect(hostCsrFromEdgeList({ ...edges, directed: false }).csr.edgeCount).toBe(2);
  });

  it('points a graphology graph at @weft/graphology', () => {
    const graphologyLike = { order: 2, size: 1, forEachEdge: () => {}, forEachNode: () => {} };
    expect(() => hostCsrFromEdgeList(graphologyLike as unknown as HostEdgeList)).toThrow(
      /^edges: this is a graphology graph: convert it with @weft\/graphology's toDevice\(device, graph\)/,
    );
  });
});

describe('hostCscFromCsr', () => {
  it('maps every in-edge to the same CSR edge, sources sorted', () => {
    for (const seed of [3, 4]) {
      const edges = randomEdges(200, 3000, seed, true, true);
      const { csr } = hostCsrFromEdgeList(edges, { keepSelfLoops: true });
      const csc = hostCscFromCsr(csr);
      expect(csc.inOffsets[csr.vertexCount]).toBe(csr.edgeCount);
      const seen = new Uint8Array(csr.edgeCount);
      const sourceOf = new Uint32Array(csr.edgeCount);
      for (let u = 0; u < csr.vertexCount; u++)
        for (let e = csr.offsets[u]!; e < csr.offsets[u + 1]!; e++) sourceOf[e] = u;
      for (let v = 0; v < csr.vertexCount; v++) {
        for (let k = csc.inOffsets[v]!; k < csc.inOffsets[v + 1]!; k++) {
          const e = csc.inEdgeIds[k]!;
          expect(csr.targets[e]).toBe(v);
          expect(sourceOf[e]).toBe(csc.sources[k]);
          if (k > csc.inOffsets[v]!) expect(csc.sources[k]!).toBeGreaterThan(csc.sources[k - 1]!);
          seen[e]!++;
        }
      }
      expect(seen.every((x) => x === 1)).toBe(true);
    }
  });

  it('handles an empty graph', () => {
    const csc = hostCscFromCsr({
      vertexCount: 0,
      edgeCount: 0,
      offsets: new Uint32Array(1),
      targets: new Uint32Array(0),
      directed: true,
    });
    expect([...csc.inOffsets]).toEqual([0]);
  });
});
