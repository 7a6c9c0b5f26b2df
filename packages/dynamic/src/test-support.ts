import { expectArrayEqual } from '@weft/testing';
import { expect } from 'vitest';
import type { DynamicGraph } from './dynamic-graph.ts';
import type { HostDynamicGraph } from './reference.ts';

/** Value bits as the GPU stores them. */
function bits(value: number, type: DynamicGraph['valueType']): number {
  if (type === 'f32') return new Uint32Array(Float32Array.of(value).buffer)[0]!;
  if (type === 'i32') return value >>> 0;
  return type === undefined ? 0 : value >>> 0;
}

/** The model's sorted CSR, values as bits. */
export function modelCsr(model: HostDynamicGraph, type: DynamicGraph['valueType']) {
  const offsets = new Uint32Array(model.vertexCount + 1);
  const targets: number[] = [];
  const values: number[] = [];
  model.adjacency.forEach((adj, v) => {
    const keys = [...adj.keys()].sort((a, b) => a - b);
    for (const k of keys) {
      targets.push(k);
      values.push(bits(adj.get(k)!, type));
    }
    offsets[v + 1] = targets.length;
  });
  return { offsets, targets: Uint32Array.from(targets), values: Uint32Array.from(values) };
}

/** The GPU tables (decoded on the host) equal the model: adjacency, values, degrees, liveness, invariants. */
export async function expectTablesMatch(g: DynamicGraph, model: HostDynamicGraph, what: string) {
  const snap = await g.inspect();
  expect(snap.problems.slice(0, 10), `${what}: table invariants`).toEqual([]);
  expect(g.vertexCount, `${what}: vertexCount`).toBe(model.vertexCount);
  expectArrayEqual(snap.degrees, model.degrees(), `${what}: degrees`);
  for (let v = 0; v < model.vertexCount; v++) {
    expect(snap.alive[v], `${what}: vertex ${v} alive`).toBe(model.alive[v]);
    const want = model.adjacency[v]!;
    const got = snap.adjacency[v]!;
    if (got.size !== want.size) expect(got.size, `${what}: size of vertex ${v}`).toBe(want.size);
    for (const [k, value] of want) {
      const have = got.get(k);
      if (have !== bits(value, g.valueType)) {
        expect(have, `${what}: edge ${v} -> ${k}`).toBe(bits(value, g.valueType));
      }
    }
  }
  return snap;
}

/** The GPU CSR export equals the model's sorted CSR. */
export async function expectExportMatches(g: DynamicGraph, model: HostDynamicGraph, what: string) {
  const want = modelCsr(model, g.valueType);
  const csr = await g.toHostCsr();
  expect(csr.vertexCount, `${what}: export vertexCount`).toBe(model.vertexCount);
  expect(csr.directed).toBe(g.directed);
  expectArrayEqual(csr.offsets, want.offsets, `${what}: export offsets`);
  expectArrayEqual(csr.targets, want.targets, `${what}: export targets`);
  if (g.valueType) {
    const w = csr.weights!;
    expectArrayEqual(
      new Uint32Array(w.buffer, w.byteOffset, w.length),
      want.values,
      `${what}: export values`,
    );
  } else {
    expect(csr.weights).toBeUndefined();
  }
}
