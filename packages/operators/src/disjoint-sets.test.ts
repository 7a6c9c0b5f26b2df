import { atomic, rw, transform, u32, wgsl } from '@weft/gpu';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { DisjointSets } from './disjoint-sets.ts';

/** Each element's smallest set member after the unions, by a host union-find. */
function hostLabels(size: number, pairs: [number, number][]): Uint32Array {
  const parent = Uint32Array.from({ length: size }, (_, i) => i);
  const find = (v: number): number => {
    while (parent[v] !== v) v = parent[v]!;
    return v;
  };
  for (const [a, b] of pairs) {
    const ra = find(a);
    const rb = find(b);
    if (ra < rb) parent[rb] = ra;
    else if (rb < ra) parent[ra] = rb;
  }
  return Uint32Array.from({ length: size }, (_, v) => find(v));
}

function randomPairs(size: number, count: number, seed: number): [number, number][] {
  const r = mulberry32(seed);
  return Array.from({ length: count }, () => [Math.floor(r() * size), Math.floor(r() * size)]);
}

function cases(): [string, number, [number, number][]][] {
  const out: [string, number, [number, number][]][] = [];
  for (const size of [1, 63, 64, 65, 255, 256, 257, 1000, 4096]) {
    out.push([`random ${size}`, size, randomPairs(size, Math.ceil(size * 0.7), size)]);
  }
  const n = 300;
  const self = Array.from({ length: n }, (_, i): [number, number] => [i, i]);
  const chain = Array.from({ length: n - 1 }, (_, i): [number, number] => [i + 1, i]);
  const reversedChain = Array.from({ length: n - 1 }, (_, i): [number, number] => [n - 1 - i, n - 2 - i]);
  const star = Array.from({ length: n - 1 }, (_, i): [number, number] => [n - 1, i]);
  const pairs = randomPairs(n, 100, 7);
  const all: [number, number][] = [];
  for (let a = 0; a < 24; a++) for (let b = 0; b < 24; b++) all.push([a, b]);
  out.push(['self-unions', n, self]);
  out.push(['duplicates', n, [...pairs, ...pairs, ...pairs.map(([a, b]): [number, number] => [b, a])]]);
  out.push(['chain', n, chain]);
  out.push(['reversed chain', n, reversedChain]);
  out.push(['star', n, star]);
  out.push(['all pairs of 24', 24, all]);
  out.push(['no unions', 10, []]);
  return out;
}

describe('DisjointSets', () => {
  it('matches a host union-find over random batches, chains, stars, duplicates and all pairs', () =>
    gpuTest(async (device) => {
      for (const [name, size, pairs] of cases()) {
        const sets = new DisjointSets(device, size);
        const flat = device.array('u32', Math.max(2, pairs.length * 2), { label: 'pairs' });
        if (pairs.length > 0) flat.upload(Uint32Array.from(pairs.flat()));
        await sets.recordReset(device);
        const pairOf = wgsl`(i: u32) -> vec2<u32> { return vec2<u32>(${rw(flat)}[2u * i], ${rw(flat)}[2u * i + 1u]); }`;
        // Two batches: the second runs on sets the first already linked.
        const half = pairs.length >> 1;
        await sets.recordUnion(device, half, pairOf);
        const rest = wgsl`(i: u32) -> vec2<u32> { return ${pairOf}(i + ${u32(half)}); }`;
        await sets.recordUnion(device, pairs.length - half, rest);
        const want = hostLabels(size, pairs);
        expectArrayEqual(await sets.labels(), want, `${name} labels`);
        await sets.recordCompress(device);
        expectArrayEqual(await sets.parents.download(0, size), want, `${name} compressed parents`);
        expectArrayEqual(await sets.roots(), Uint32Array.from(new Set(want)).sort(), `${name} roots`);
        expect(await sets.finished(), name).toBe(true);
        flat.destroy();
        sets.destroy();
      }
    }));

  it('union() reports which calls linked two sets', () =>
    gpuTest(async (device) => {
      const size = 500;
      const pairs = randomPairs(size, 800, 11);
      const sets = new DisjointSets(device, size);
      const flat = device.array('u32', pairs.length * 2, { label: 'pairs' });
      flat.upload(Uint32Array.from(pairs.flat()));
      const linked = device.array('u32', pairs.length, { label: 'linked' });
      await sets.recordReset(device);
      const p = rw(flat);
      await sets.recordUnion(
        device,
        pairs.length,
        wgsl`(i: u32) -> vec2<u32> { return vec2<u32>(${p}[2u * i], ${p}[2u * i + 1u]); }`,
      );
      await sets.recordReset(device);
      await transform(
        device,
        pairs.length,
        wgsl`(i: u32) { ${rw(linked)}[i] = select(0u, 1u, ${sets.union()}(${p}[2u * i], ${p}[2u * i + 1u])); }`,
      );
      const count = (await linked.download()).reduce((s, x) => s + x, 0);
      const sets2 = new Set(hostLabels(size, pairs));
      // Each successful link merges two sets: size minus the links is the number of sets.
      expect(count).toBe(size - sets2.size);
      flat.destroy();
      linked.destroy();
      sets.destroy();
    }));

  it('unionWith() runs its hook once per link, with the root it hooked and the pair that hooked it', () =>
    gpuTest(async (device) => {
      const size = 1024;
      // A star on the largest element makes the invocations of a workgroup race for one root, so many
      // exchanges fail (and retry) beside the random pairs; duplicates and self-pairs link nothing.
      const star = Array.from({ length: size - 1 }, (_, i): [number, number] => [i, size - 1]);
      const random = randomPairs(size, 700, 13);
      const pairs = [...star, ...random, ...random, [5, 5] as [number, number]];
      const sets = new DisjointSets(device, size);
      const flat = device.array('u32', pairs.length * 2, { label: 'pairs' });
      flat.upload(Uint32Array.from(pairs.flat()));
      const hooks = device.array('u32', size, { label: 'hooks' });
      const tails = device.array('u32', size, { label: 'tails' });
      const heads = device.array('u32', size, { label: 'heads' });
      const linked = device.array('u32', pairs.length, { label: 'linked' });
      await hooks.fill(0);
      await sets.recordReset(device);
      const hook = wgsl`(root: u32, u: u32, v: u32) {
  atomicAdd(&${atomic(hooks)}[root], 1u);
  ${rw(tails)}[root] = u;
  ${rw(heads)}[root] = v;
}`;
      const p = rw(flat);
      await transform(
        device,
        pairs.length,
        wgsl`(i: u32) { ${rw(linked)}[i] = select(0u, 1u, ${sets.unionWith(hook)}(${p}[2u * i], ${p}[2u * i + 1u])); }`,
      );
      const want = hostLabels(size, pairs);
      expectArrayEqual(await sets.labels(), want, 'labels');
      expect(await sets.finished()).toBe(true);
      // A root is hooked once in its life (then never a root again): one hook per non-root, none per root.
      const counts = await hooks.download();
      expectArrayEqual(
        counts,
        Uint32Array.from(want, (r, v) => (r === v ? 0 : 1)),
        'hooks per element',
      );
      const links = (await linked.download()).reduce((s, x) => s + x, 0);
      expect(links).toBe(size - new Set(want).size);
      // The hooked pairs, as passed, span the same sets.
      const t = await tails.download();
      const h = await heads.download();
      const given = new Set(pairs.map(([a, b]) => `${a} ${b}`));
      const forest = [...counts.keys()]
        .filter((v) => counts[v] === 1)
        .map((v): [number, number] => [t[v]!, h[v]!]);
      for (const [a, b] of forest) expect(given.has(`${a} ${b}`), `${a} -> ${b} is a pair`).toBe(true);
      expectArrayEqual(hostLabels(size, forest), want, 'sets of the hooked pairs');
      for (const a of [flat, hooks, tails, heads, linked]) a.destroy();
      sets.destroy();
    }));

  it('handles zero elements', () =>
    gpuTest(async (device) => {
      const sets = new DisjointSets(device, 0);
      await sets.recordReset(device);
      await sets.recordCompress(device);
      expect(await sets.labels()).toEqual(new Uint32Array(0));
      expect(await sets.roots()).toEqual(new Uint32Array(0));
      sets.destroy();
    }));
});
