import { InputError, rw, u32, wgsl } from '@weft/gpu';
import { FrontierBitmap, FrontierQueue, type HostCsr, hostCsrFromEdgeList, uploadGraph } from '@weft/graph';
import { kronecker } from '@weft/graph/generators';
import { expectArrayEqual, gpuTest, mulberry32 } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { advancePush } from './advance.ts';
import { filter } from './filter.ts';

function randomCsr(n: number, m: number, seed: number): HostCsr {
  const r = mulberry32(seed);
  const src = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  const dst = Uint32Array.from({ length: m }, () => Math.floor(r() * n));
  return hostCsrFromEdgeList({ vertexCount: n, src, dst, directed: true }).csr;
}

const graphs: [string, () => HostCsr][] = [
  ['random', () => randomCsr(2000, 12000, 5)],
  ['skewed (kronecker 12)', () => hostCsrFromEdgeList(kronecker({ scale: 12, edgeFactor: 8, seed: 6 })).csr],
];

const sorted = (a: ArrayLike<number>) => Uint32Array.from(a).sort();
const hasDuplicates = (a: ArrayLike<number>) => new Set(Array.from(a)).size < a.length;

describe('idempotent advance', () => {
  for (const [name, make] of graphs) {
    for (const loadBalance of ['merge-path', 'thread-mapped'] as const) {
      it(`${name}, ${loadBalance}: duplicates out of the advance, none after the visited filter`, () =>
        gpuTest(async (device) => {
          const csr = make();
          const n = csr.vertexCount;
          const graph = uploadGraph(device, csr);
          const r = mulberry32(n);
          const picks = [...new Set(Array.from({ length: n >> 2 }, () => Math.floor(r() * n)))];
          const input = new FrontierQueue(device, n);
          input.set(picks);
          // The raw output is sized for every out-edge of the frontier: duplicates included.
          const rawItems = device.array('u32', Math.max(1, csr.edgeCount), { label: 'raw' });
          const rawCount = device.array('u32', 1, { label: 'raw count' });
          const raw = { items: rawItems, count: rawCount };
          const readRaw = async () => {
            const length = (await rawCount.download())[0]!;
            return length === 0 ? new Uint32Array(0) : rawItems.download(0, length);
          };
          const culled = new FrontierQueue(device, n, { label: 'culled' });
          const visited = new FrontierBitmap(device, n);
          const reached = new Set<number>();
          let edges = 0;
          for (const v of picks) {
            for (let e = csr.offsets[v]!; e < csr.offsets[v + 1]!; e++) reached.add(csr.targets[e]!);
            edges += csr.offsets[v + 1]! - csr.offsets[v]!;
          }
          const cull = async () => {
            await visited.words.fill(0);
            const view = { items: rawItems, length: { array: rawCount, index: 0 } };
            await filter(device, view, wgsl`(v: u32) -> bool { return true; }`, culled.next, {
              visited,
            });
            culled.swap();
            return culled.toArray();
          };

          // Keep every edge: the raw output is the multiset of the frontier's out-neighbors, repeats and all.
          const all = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`;
          await advancePush(device, graph, input.current, all, {
            output: raw,
            idempotent: true,
            loadBalance,
          });
          const rawAll = await readRaw();
          expect(rawAll.length).toBe(edges);
          expect(hasDuplicates(rawAll), 'raw output holds duplicates').toBe(true);
          let after = await cull();
          expect(hasDuplicates(after)).toBe(false);
          expectArrayEqual(sorted(after), sorted([...reached]), 'culled = distinct neighbors');

          // A BFS-style plain-store claim (no atomics): each neighbor comes out at least once; culled once.
          const mark = device.upload(new Uint32Array(n));
          const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${mark}[dst] != 0u) { return false; }
  ${rw(mark)}[dst] = ${u32(1)};
  return true;
}`;
          await advancePush(device, graph, input.current, claim, {
            output: raw,
            idempotent: true,
            loadBalance,
          });
          const rawClaimed = await readRaw();
          expect(rawClaimed.length).toBeGreaterThanOrEqual(reached.size);
          expect(rawClaimed.length).toBeLessThanOrEqual(edges);
          expectArrayEqual(sorted([...new Set(rawClaimed)]), sorted([...reached]), 'claimed');
          after = await cull();
          expectArrayEqual(sorted(after), sorted([...reached]), 'claimed, culled');
          expect((await mark.download()).reduce((a, b) => a + b, 0)).toBe(reached.size);

          for (const a of [input, rawItems, rawCount, culled, visited, mark, graph]) a.destroy();
        }));
    }
  }

  it('refuses a visited bitmap (the atomic claim it leaves out)', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, randomCsr(10, 20, 1));
      const q = new FrontierQueue(device, 10);
      const visited = new FrontierBitmap(device, 10);
      const keep = wgsl`(src: u32, dst: u32, edge: u32) -> bool { return true; }`;
      await expect(
        advancePush(device, graph, q.current, keep, { output: q.next, visited, idempotent: true }),
      ).rejects.toThrow(InputError);
      for (const a of [graph, q, visited]) a.destroy();
    }));
});
