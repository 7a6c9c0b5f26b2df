import { DeviceLimitError, InputError } from '@weft/gpu';
import { expectArrayEqual, gpuTest } from '@weft/testing';
import { describe, expect, it } from 'vitest';
import { uploadGraph } from './device-graph.ts';
import { kronecker } from './generators/kronecker.ts';
import { hostCscFromCsr, hostCsrFromEdgeList } from './host-build.ts';
import type { HostCsr } from './host-graph.ts';

describe('uploadGraph', () => {
  it('round-trips CSR and CSC of a weighted Kronecker graph', async () => {
    await gpuTest(async (device) => {
      const { csr } = hostCsrFromEdgeList(kronecker({ scale: 12, seed: 11, weights: true }));
      const graph = uploadGraph(device, csr, { csc: true });
      expect(graph.vertexCount).toBe(csr.vertexCount);
      expect(graph.edgeCount).toBe(csr.edgeCount);
      expect(graph.directed).toBe(false);
      expect(graph.targets.label).toBe('graph column indices');
      const back = await graph.toHost();
      expectArrayEqual(back.offsets, csr.offsets, 'offsets');
      expectArrayEqual(back.targets, csr.targets, 'targets');
      expect(back.weights).toBeInstanceOf(Uint32Array);
      expectArrayEqual(back.weights!, csr.weights!, 'weights');
      const csc = hostCscFromCsr(csr);
      expectArrayEqual(await graph.inOffsets!.download(), csc.inOffsets, 'inOffsets');
      expectArrayEqual(await graph.sources!.download(), csc.sources, 'sources');
      expectArrayEqual(await graph.inEdgeIds!.download(), csc.inEdgeIds, 'inEdgeIds');
      graph.destroy();
      expect(graph.targets.destroyed).toBe(true);
      expect(graph.inEdgeIds!.destroyed).toBe(true);
      expect(() => graph.vertexProperty('x', 'u32')).toThrow(/destroyed/);
      // The pool hands the same buffers to the next graph: its contents must be the new graph's.
      const { csr: next } = hostCsrFromEdgeList(kronecker({ scale: 12, seed: 12, weights: true }));
      const again = uploadGraph(device, next, { csc: true });
      const back2 = await again.toHost();
      expectArrayEqual(back2.targets, next.targets, 'second graph targets');
      expectArrayEqual(back2.weights!, next.weights!, 'second graph weights');
      expectArrayEqual(await again.sources!.download(), hostCscFromCsr(next).sources, 'second graph sources');
      again.destroy();
    });
  });

  it('uploads empty and unweighted graphs without CSC unless asked', async () => {
    await gpuTest(async (device) => {
      const empty: HostCsr = {
        vertexCount: 0,
        edgeCount: 0,
        offsets: new Uint32Array(1),
        targets: new Uint32Array(0),
        directed: true,
      };
      const g = uploadGraph(device, empty);
      expect(g.csc).toBeUndefined();
      expect(g.weights).toBeUndefined();
      const back = await g.toHost();
      expect([...back.offsets]).toEqual([0]);
      expect(back.weights).toBeUndefined();
      g.destroy();
      const f: HostCsr = {
        ...empty,
        vertexCount: 2,
        edgeCount: 1,
        offsets: new Uint32Array([0, 1, 1]),
        targets: new Uint32Array([1]),
        weights: new Float32Array([-0.25]),
      };
      const h = uploadGraph(device, f, { csc: true });
      expect([...(await h.weights!.download())]).toEqual([-0.25]);
      expect([...(await h.inOffsets!.download())]).toEqual([0, 0, 1]);
      h.destroy();
    });
  });

  it('keeps named vertex and edge data that the same kernel-sized arrays can hold', async () => {
    await gpuTest(async (device) => {
      const { csr } = hostCsrFromEdgeList(kronecker({ scale: 8, seed: 1 }));
      const graph = uploadGraph(device, csr);
      const depth = graph.vertexProperty('depth', 'i32');
      expect(depth.length).toBe(csr.vertexCount);
      expect(depth.type).toBe('i32');
      expect(depth.label).toBe("vertex property 'depth'");
      expect(graph.vertexProperty('depth', 'i32')).toBe(depth);
      expect(() => graph.vertexProperty('depth', 'f32')).toThrow(InputError);
      const w = graph.edgeProperty('w', 'f32');
      expect(w.length).toBe(csr.edgeCount);
      await depth.fill(-1);
      expect((await depth.download()).every((x) => x === -1)).toBe(true);
      expect(graph.vertexData.names).toEqual(['depth']);
      expect(graph.edgeData.delete('w')).toBe(true);
      expect(w.destroyed).toBe(true);
      expect(graph.edgeData.has('w')).toBe(false);
      graph.destroy();
      expect(depth.destroyed).toBe(true);
    });
  });

  it('chunks targets beyond one binding; other arrays beyond it throw DeviceLimitError, leaving nothing allocated', async () => {
    await gpuTest(async (device) => {
      const limit = device.limits.maxStorageBufferBindingSize;
      const m = Math.floor(limit / 4) + 1;
      const targets = new Uint32Array(m);
      targets[m - 2] = 1;
      const csr: HostCsr = {
        vertexCount: 2,
        edgeCount: m,
        offsets: new Uint32Array([0, m, m]),
        targets,
        directed: true,
      };
      const graph = uploadGraph(device, csr);
      expect(graph.chunkedTargets.chunks.length).toBe(2);
      expectArrayEqual(await graph.chunkedTargets.download(m - 3, 3), [0, 1, 0], 'last targets');
      graph.destroy();

      const n = Math.floor(limit / 4);
      const wide: HostCsr = {
        vertexCount: n,
        edgeCount: 0,
        offsets: new Uint32Array(n + 1),
        targets: new Uint32Array(0),
        directed: true,
      };
      const live = device.pool.stats.liveBytes;
      const err = (() => {
        try {
          uploadGraph(device, wide);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(DeviceLimitError);
      expect(device.pool.stats.liveBytes).toBe(live);
      const message = (err as Error).message;
      expect(message).toContain(`array 'graph row offsets' (u32 x ${n + 1})`);
      expect(message).toContain(`needs ${4 * (n + 1)} but maxStorageBufferBindingSize is ${limit}`);
      expect(() => uploadGraph(device, { ...csr, offsets: new Uint32Array([0, 5, 5]) })).toThrow(
        /offsets must .*end at edgeCount/,
      );
    });
  });

  it('uploads a CSR of other arrays as u32 ids and typed weights, or refuses it in one line', async () => {
    await gpuTest(async (device) => {
      // JavaScript callers pass these: before, a plain-array CSR went up with the wrong element type.
      const loose = {
        vertexCount: 3,
        edgeCount: 3,
        offsets: [0, 1, 2, 3],
        targets: Int32Array.of(1, 2, 0),
        weights: Float64Array.of(0.5, 1, 2),
        directed: true,
      } as unknown as HostCsr;
      const graph = uploadGraph(device, loose, { csc: true });
      expect(graph.targets.type).toBe('u32');
      expect(graph.weights?.type).toBe('f32');
      const back = await graph.toHost();
      expect([...back.offsets]).toEqual([0, 1, 2, 3]);
      expect([...back.targets]).toEqual([1, 2, 0]);
      expect([...back.weights!]).toEqual([0.5, 1, 2]);
      graph.destroy();
      const bad: [Partial<Record<keyof HostCsr, unknown>>, RegExp][] = [
        [{ offsets: [0, 1.5, 2, 3] }, /^csr\.offsets: offsets\[1\] = 1\.5 is not an integer$/],
        [{ targets: Int32Array.of(1, -1, 0) }, /^csr\.targets: csr\.targets\[1\] = -1 is negative/],
        [{ weights: [1, 2, 3] }, /^csr\.weights: weights must be a Float32Array/],
        [
          { weights: Float64Array.of(1, 1e39, 3) },
          /^csr\.weights: csr\.weights\[1\] = 1e\+39 does not fit f32$/,
        ],
        [{ directed: undefined }, /^csr\.directed: directed must be true or false, got nothing/],
        [{ directed: 'yes' }, /^csr\.directed: directed must be true or false, got yes/],
      ];
      for (const [change, message] of bad) {
        const csr = { ...loose, ...change } as HostCsr;
        expect(() => uploadGraph(device, csr)).toThrow(InputError);
        expect(() => uploadGraph(device, csr)).toThrow(message);
      }
    });
  });

  it('keeps what derived() built once per key, frees it with the graph, and retries a failed build', () =>
    gpuTest(async (device) => {
      const graph = uploadGraph(device, hostCsrFromEdgeList(kronecker({ scale: 4, seed: 2 })).csr);
      let builds = 0;
      const freed: string[] = [];
      const build = (name: string) => async () => {
        builds++;
        return { name, destroy: () => freed.push(name) };
      };
      const [a, b] = await Promise.all([graph.derived('a', build('a')), graph.derived('a', build('a2'))]);
      expect(a).toBe(b);
      expect(a.name).toBe('a');
      expect(builds).toBe(1);
      await expect(graph.derived('bad', () => Promise.reject(new Error('no room')))).rejects.toThrow(
        'no room',
      );
      expect(graph.hasDerived('bad')).toBe(false);
      expect((await graph.derived('bad', build('bad'))).name).toBe('bad');
      expect(graph.hasDerived('a') && graph.hasDerived('bad')).toBe(true);
      graph.destroy();
      await Promise.resolve();
      expect(freed.sort()).toEqual(['a', 'bad']);
      expect(graph.hasDerived('a')).toBe(false);
      expect(() => graph.derived('a', build('a'))).toThrow(InputError);
    }));
});
