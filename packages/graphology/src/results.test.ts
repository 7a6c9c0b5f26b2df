import { InputError } from '@weft/gpu';
import * as graphology from 'graphology';

import { describe, expect, it } from 'vitest';
import { fromGraphology } from './from-graphology.ts';
import { assignAttributes, toKeyed } from './results.ts';

// graphology's typings are CommonJS-style: under NodeNext the class is the namespace's `default`.
const { default: Graph, DirectedGraph } = graphology;

describe('toKeyed', () => {
  it('maps each key to its value', () => {
    expect(toKeyed(['a', 'b', 'c'], new Uint32Array([3, 0, 0xffffffff]))).toEqual({
      a: 3,
      b: 0,
      c: 0xffffffff,
    });
    expect(toKeyed([], new Float32Array(0))).toEqual({});
  });

  it("stores a '__proto__' key as a property, not a prototype", () => {
    const out = toKeyed(['__proto__', 'x'], [1, 2]);
    expect(Object.keys(out)).toEqual(['__proto__', 'x']);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe(1);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('rejects a length mismatch', () => {
    expect(() => toKeyed(['a'], [1, 2])).toThrow(InputError);
  });
});

describe('assignAttributes', () => {
  it('writes node attributes and leaves the others alone', () => {
    const g = new Graph();
    g.addNode('a', { label: 'A' });
    g.addNode('b');
    assignAttributes(g, ['a', 'b'], new Float32Array([0.25, 0.75]), 'rank');
    expect(g.getNodeAttributes('a')).toEqual({ label: 'A', rank: 0.25 });
    expect(g.getNodeAttribute('b', 'rank')).toBe(0.75);
    expect(() => assignAttributes(g, ['a'], [1, 2], 'rank')).toThrow(InputError);
    expect(() => assignAttributes(g, ['zzz'], [1], 'rank')).toThrow(/zzz/);
  });

  it('round trip: per-vertex results of a CSR computation come back to the right keys', () => {
    const g = new DirectedGraph();
    for (const k of ['q', 'p', 'r', 's']) g.addNode(k);
    g.addEdge('q', 'p');
    g.addEdge('q', 'r');
    g.addEdge('r', 's');
    g.addEdge('p', 's');
    const { csr, keys } = fromGraphology(g);
    // In-degree by CSR index, as a GPU result would come back.
    const inDegree = new Uint32Array(csr.vertexCount);
    for (const t of csr.targets) inDegree[t]!++;
    expect(toKeyed(keys, inDegree)).toEqual({ q: 0, p: 1, r: 1, s: 2 });
    assignAttributes(g, keys, inDegree, 'inDegree');
    g.forEachNode((key, attrs) => expect(attrs.inDegree).toBe(g.inDegree(key)));
  });
});
