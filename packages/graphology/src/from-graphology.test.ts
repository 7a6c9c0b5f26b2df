import { InputError } from '@weft/gpu';
import type { HostCsr } from '@weft/graph';
import { gpuTest } from '@weft/testing';
import * as graphology from 'graphology';

import { describe, expect, it } from 'vitest';
import { fromGraphology, toDevice } from './from-graphology.ts';
import { assignAttributes, toKeyed } from './results.ts';

// graphology's typings are CommonJS-style: under NodeNext the class is the namespace's `default`.
const { default: Graph, DirectedGraph, MultiGraph, UndirectedGraph } = graphology;

/** The CSR's arcs as 'source>target' (or 'source>target:weight') by key, in CSR order. */
function arcs(csr: HostCsr, keys: readonly string[]): string[] {
  const out: string[] = [];
  for (let v = 0; v < csr.vertexCount; v++) {
    for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) {
      const arc = `${keys[v]}>${keys[csr.targets[e]!]}`;
      out.push(csr.weights === undefined ? arc : `${arc}:${csr.weights[e]}`);
    }
  }
  return out;
}

describe('fromGraphology', () => {
  it('keeps directed edges as one arc each, in graphology node order', () => {
    const g = new DirectedGraph();
    for (const k of ['c', 'a', 'b', 'd']) g.addNode(k);
    g.addEdge('a', 'b');
    g.addEdge('b', 'a');
    g.addEdge('c', 'a');
    g.addEdge('a', 'd');
    const { csr, keys, indexOf, report } = fromGraphology(g);
    expect(keys).toEqual(['c', 'a', 'b', 'd']);
    expect([...indexOf]).toEqual([
      ['c', 0],
      ['a', 1],
      ['b', 2],
      ['d', 3],
    ]);
    expect(csr.directed).toBe(true);
    expect(csr.weights).toBeUndefined();
    expect(arcs(csr, keys)).toEqual(['c>a', 'a>b', 'a>d', 'b>a']);
    expect(report).toEqual({ selfLoopsDropped: 0, duplicatesDropped: 0, edgesAdded: 0 });
  });

  it('turns undirected edges into two arcs and keeps isolated nodes', () => {
    const g = new UndirectedGraph();
    for (const k of ['x', 'lonely', 'y', 'z']) g.addNode(k);
    g.addEdge('x', 'y');
    g.addEdge('z', 'y');
    const { csr, keys } = fromGraphology(g);
    expect(csr.directed).toBe(false);
    expect(csr.vertexCount).toBe(4);
    expect(csr.edgeCount).toBe(4);
    expect(arcs(csr, keys)).toEqual(['x>y', 'y>x', 'y>z', 'z>y']);
    expect(csr.offsets[2]! - csr.offsets[1]!).toBe(0); // 'lonely'
  });

  it('mixed graph: undirected edges two arcs, directed one; merged parallels keep the smallest weight', () => {
    const g = new Graph({ type: 'mixed' });
    for (const k of ['a', 'b', 'c']) g.addNode(k);
    g.addDirectedEdge('a', 'b', { weight: 5 });
    g.addUndirectedEdge('b', 'c', { weight: 2 });
    g.addUndirectedEdge('a', 'b', { weight: 3 }); // a>b merges with the directed one: min(5, 3)
    const { csr, keys, report } = fromGraphology(g, { weight: 'weight' });
    expect(csr.directed).toBe(true);
    expect(arcs(csr, keys)).toEqual(['a>b:3', 'b>a:3', 'b>c:2', 'c>b:2']);
    expect(report.duplicatesDropped).toBe(1);
  });

  it("mode 'undirected' doubles directed edges; 'directed' on an undirected graph keeps both arcs", () => {
    const d = new DirectedGraph();
    d.mergeEdge('a', 'b', { weight: 4 });
    d.mergeEdge('c', 'b', { weight: 1 });
    const und = fromGraphology(d, { mode: 'undirected', weight: 'weight' });
    expect(und.csr.directed).toBe(false);
    expect(arcs(und.csr, und.keys)).toEqual(['a>b:4', 'b>a:4', 'b>c:1', 'c>b:1']);

    const u = new UndirectedGraph();
    u.mergeEdge('a', 'b');
    const dir = fromGraphology(u, { mode: 'directed' });
    expect(dir.csr.directed).toBe(true);
    expect(arcs(dir.csr, dir.keys)).toEqual(['a>b', 'b>a']);
  });

  it('multi graph: parallel edges merge keeping the smallest weight; self-loops are dropped', () => {
    const g = new MultiGraph({ type: 'directed' });
    g.addNode('a');
    g.addNode('b');
    g.addEdge('a', 'b', { w: 7 });
    g.addEdge('a', 'b', { w: 2 });
    g.addEdge('a', 'b', { w: 9 });
    g.addEdge('b', 'b', { w: 1 });
    g.addEdge('b', 'a', { w: 6 });
    const { csr, keys, report } = fromGraphology(g, { weight: 'w' });
    expect(arcs(csr, keys)).toEqual(['a>b:2', 'b>a:6']);
    expect(report).toEqual({ selfLoopsDropped: 1, duplicatesDropped: 2, edgesAdded: 0 });
  });

  it('weights from an attribute: missing or non-numeric values weigh 1', () => {
    const g = new DirectedGraph();
    g.mergeEdge('a', 'b', { weight: 2.5 });
    g.mergeEdge('a', 'c');
    g.mergeEdge('b', 'c', { weight: 'heavy' });
    g.mergeEdge('c', 'a', { weight: Number.NaN });
    g.mergeEdge('c', 'b', { weight: -3 });
    const { csr, keys } = fromGraphology(g, { weight: 'weight' });
    expect(csr.weights).toBeInstanceOf(Float32Array);
    expect(arcs(csr, keys)).toEqual(['a>b:2.5', 'a>c:1', 'b>c:1', 'c>a:1', 'c>b:-3']);
  });

  it('weights from a function of the edge key and attributes', () => {
    const g = new UndirectedGraph();
    g.mergeEdgeWithKey('e1', 'a', 'b', { length: 10 });
    g.mergeEdgeWithKey('e2', 'b', 'c', { length: 20 });
    const seen: string[] = [];
    const { csr, keys } = fromGraphology(g, {
      weight: (edge, attrs) => {
        seen.push(edge);
        return (attrs.length as number) / 10;
      },
    });
    expect(seen).toEqual(['e1', 'e2']);
    expect(arcs(csr, keys)).toEqual(['a>b:1', 'b>a:1', 'b>c:2', 'c>b:2']);
  });

  it("coerces weights as graphology's getEdgeWeight does: not a number or NaN weighs 1", () => {
    const g = new DirectedGraph();
    for (const [key, w] of [
      ['undef', undefined],
      ['nan', Number.NaN],
      ['text', '7'],
      ['neg', -2],
    ] as const) {
      g.mergeEdgeWithKey(key, `${key}-s`, `${key}-t`, { w });
    }
    const fromFunction = fromGraphology(g, { weight: (_edge, attrs) => attrs.w as number | undefined });
    const fromAttribute = fromGraphology(g, { weight: 'w' });
    for (const { csr, keys } of [fromFunction, fromAttribute]) {
      expect(arcs(csr, keys)).toEqual([
        'undef-s>undef-t:1',
        'nan-s>nan-t:1',
        'text-s>text-t:1',
        'neg-s>neg-t:-2',
      ]);
    }
  });

  it('refuses an infinite weight, naming the graphology edge', () => {
    const g = new DirectedGraph();
    g.mergeEdgeWithKey('ok', 'a', 'b', { w: 2 });
    g.mergeEdgeWithKey('inf', 'b', 'c', { w: Number.POSITIVE_INFINITY });
    for (const weight of ['w', (_edge: string, attrs: Record<string, unknown>) => attrs.w as number]) {
      expect(() => fromGraphology(g, { weight })).toThrow(/edge 'inf' \(b -> c\) weighs Infinity/);
    }
    g.dropEdge('inf');
    g.mergeEdgeWithKey('huge', 'b', 'c', { w: 1e300 });
    expect(() => fromGraphology(g, { weight: 'w' })).toThrow(/edge 'huge' \(b -> c\) weighs 1e\+300/);
  });

  it('calls a weight function with the whole graphology edge entry', () => {
    const g = new Graph({ type: 'mixed' });
    g.addNode('a', { x: 1 });
    g.addNode('b', { x: 10 });
    g.addDirectedEdgeWithKey('ab', 'a', 'b', { w: 2 });
    g.addUndirectedEdgeWithKey('ba', 'b', 'a', { w: 3 });
    const seen: string[] = [];
    const { csr, keys } = fromGraphology(g, {
      weight: (edge, attrs, source, target, sa, ta, undirected) => {
        seen.push(`${edge}:${source}>${target}:${undirected}`);
        return (attrs.w as number) * (sa.x as number) + (ta.x as number);
      },
      mode: 'undirected',
    });
    expect(seen).toEqual(['ab:a>b:false', 'ba:b>a:true']);
    // ab weighs 2*1+10 = 12, ba 3*10+1 = 31; 'undirected' mode mirrors both, the smaller weight stays.
    expect(csr.directed).toBe(false);
    expect(arcs(csr, keys)).toEqual(['a>b:12', 'b>a:12']);
  });

  it('rejects bad options; null weight means unweighted', () => {
    const g = new DirectedGraph();
    g.mergeEdgeWithKey('e', 'a', 'b', { weight: 5 });
    expect(fromGraphology(g, { weight: null }).csr.weights).toBeUndefined();
    expect(() => fromGraphology(g, { weight: 3 as unknown as string })).toThrow(
      /options\.weight: .*got number/,
    );
    expect(() => fromGraphology(g, { mode: 'out' as 'directed' })).toThrow(/mode/);
    expect(() => fromGraphology(g, { mode: 'out' as 'directed' })).toThrow(InputError);
  });

  it('keeps numeric-looking keys as strings in insertion order, and results come back to them', () => {
    const g = new DirectedGraph();
    for (const k of [10, '9', 1, '01', 'constructor']) g.addNode(k);
    g.addEdge(10, 1);
    g.addEdge('01', '9');
    g.addEdge('constructor', 10);
    const { csr, keys, indexOf } = fromGraphology(g);
    expect(keys).toEqual(['10', '9', '1', '01', 'constructor']);
    expect(indexOf.get('01')).toBe(3);
    expect(indexOf.get('1')).toBe(2);
    expect(arcs(csr, keys)).toEqual(['10>1', '01>9', 'constructor>10']);
    const outDegree = Uint32Array.from(keys, (_, v) => csr.offsets[v + 1]! - csr.offsets[v]!);
    const keyed = toKeyed(keys, outDegree);
    expect(keyed).toEqual({ '10': 1, '9': 0, '1': 0, '01': 1, constructor: 1 });
    expect(Object.hasOwn(keyed, 'constructor')).toBe(true);
    assignAttributes(g, keys, outDegree, 'out');
    g.forEachNode((key, attrs) => expect(attrs.out, key).toBe(g.outDegree(key)));
    expect(g.getNodeAttribute(10, 'out')).toBe(1);
  });

  it('undirected multi graph: parallel edges and both orientations merge into one pair of arcs', () => {
    const g = new MultiGraph({ type: 'undirected' });
    g.addNode('a');
    g.addNode('b');
    g.addEdge('a', 'b', { weight: 4 });
    g.addEdge('b', 'a', { weight: 2 });
    g.addEdge('a', 'b', { weight: 9 });
    g.addEdge('a', 'a', { weight: 1 });
    g.addNode('c');
    expect(g.multi && g.size).toBe(4);
    const { csr, keys, report } = fromGraphology(g, { weight: 'weight' });
    expect(csr.directed).toBe(false);
    expect(arcs(csr, keys)).toEqual(['a>b:2', 'b>a:2']);
    // The undirected self-loop is one edge of graphology's, so one arc, dropped.
    expect(report).toEqual({ selfLoopsDropped: 1, duplicatesDropped: 4, edgesAdded: 0 });
    expect(csr.vertexCount).toBe(3);
  });

  it('empty graph and nodes without edges', () => {
    const empty = fromGraphology(new Graph());
    expect(empty.csr.vertexCount).toBe(0);
    expect(empty.csr.edgeCount).toBe(0);
    expect([...empty.csr.offsets]).toEqual([0]);
    const g = new Graph();
    g.addNode(1);
    g.addNode('2');
    const { csr, keys } = fromGraphology(g);
    expect(keys).toEqual(['1', '2']); // graphology coerces keys to strings
    expect([...csr.offsets]).toEqual([0, 0, 0]);
  });

  it('matches a reference adjacency on a random mixed multigraph', () => {
    let state = 12345;
    const rand = (k: number) => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return (state >>> 8) % k;
    };
    const g = new MultiGraph();
    const n = 60;
    for (let i = 0; i < n; i++) g.addNode(`n${(i * 37) % n}`);
    const best = new Map<string, number>();
    const note = (s: string, t: string, w: number) => {
      if (s === t) return;
      const k = `${s}>${t}`;
      best.set(k, Math.min(best.get(k) ?? Number.POSITIVE_INFINITY, w));
    };
    for (let i = 0; i < 400; i++) {
      const s = `n${rand(n)}`;
      const t = `n${rand(n)}`;
      const w = rand(100);
      if (rand(2) === 0) {
        g.addDirectedEdge(s, t, { weight: w });
        note(s, t, w);
      } else {
        g.addUndirectedEdge(s, t, { weight: w });
        note(s, t, w);
        note(t, s, w);
      }
    }
    const { csr, keys, indexOf } = fromGraphology(g, { weight: 'weight' });
    const order = (arc: string) => {
      const [s, t] = arc.split(':')[0]!.split('>');
      return indexOf.get(s!)! * n + indexOf.get(t!)!;
    };
    const want = [...best].map(([k, w]) => `${k}:${w}`).sort((x, y) => order(x) - order(y));
    expect(arcs(csr, keys)).toEqual(want);
  });
});

describe('toDevice', () => {
  it('uploads the CSR (and CSC when asked) with the key map', async () => {
    await gpuTest(async (device) => {
      const g = new UndirectedGraph();
      g.mergeEdge('a', 'b', { weight: 2 });
      g.mergeEdge('b', 'c', { weight: 3 });
      g.addNode('d');
      const { graph, keys, indexOf } = toDevice(device, g, { weight: 'weight', csc: true });
      try {
        expect(keys).toEqual(['a', 'b', 'c', 'd']);
        expect(indexOf.get('c')).toBe(2);
        expect(graph.directed).toBe(false);
        expect(graph.csc).toBeDefined();
        const host = await graph.toHost();
        expect(arcs(host, keys)).toEqual(['a>b:2', 'b>a:2', 'b>c:3', 'c>b:3']);
        expect([...host.offsets]).toEqual([0, 1, 3, 4, 4]);
      } finally {
        graph.destroy();
      }
    });
  });
});
