import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userErrorLine } from '@weft/cli';
import { describe, expect, it } from 'vitest';
import { partitionedCommand } from './partitioned-command.ts';

process.env['XDG_RUNTIME_DIR'] ??= '/tmp';

describe('weft partitioned --multigraph --against-one', () => {
  it('times every algorithm on one GPU and on parts of two devices, each result checked', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-partitioned-'));
    try {
      const json = join(dir, 'out.json');
      const args = [
        '--kron',
        '6',
        '--multigraph',
        '--max-arcs-per-part',
        '1600',
        '--devices',
        '2',
        '--share',
      ];
      const rest = [
        '--sources',
        '2',
        '--repeat',
        '1',
        '--algorithms',
        'bfs,sssp,pagerank,cc',
        '--against-one',
      ];
      expect(await partitionedCommand([...args, ...rest, '--json', json])).toBe(0);
      const out = JSON.parse(await readFile(json, 'utf8'));
      expect(out.graph.parts.length).toBeGreaterThan(1);
      const compared = out.rows.filter((r: { oneGpuMs?: number }) => r.oneGpuMs !== undefined);
      expect(compared.map((r: { algorithm: string }) => r.algorithm)).toEqual([
        'bfs direction-optimizing',
        'sssp (weights 1-255 by vertex pair)',
        'pagerank',
        'cc',
      ]);
      for (const r of compared) {
        expect(r.devices).toBe(2);
        expect(r.speedup).toBeGreaterThan(0);
        expect(r.breakdown).toBe(false);
        // Two sources of one timed run each for BFS and SSSP, one run for PageRank and CC.
        expect(r.runs).toHaveLength(/^(bfs|sssp)/.test(r.algorithm) ? 2 : 1);
        expect(r.medianRun.iterations, r.algorithm).toBeGreaterThan(1);
        if (r.algorithm.startsWith('bfs'))
          expect(r.medianRun.queueLevels).toBeLessThan(r.medianRun.iterations);
        expect(r.medianRun.timing.computeMs, r.algorithm).toBeGreaterThan(0);
        expect(r.medianMs).toBeGreaterThanOrEqual(r.medianRun.timing.computeMs);
      }
      const pagerank = compared.find((r: { algorithm: string }) => r.algorithm === 'pagerank');
      expect(pagerank.exchange).toBe('boundary');
      expect(pagerank.bytesPerIteration).toBeLessThan(pagerank.fullBytesPerIteration);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('times the copies on their own with --breakdown', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-partitioned-'));
    try {
      const json = join(dir, 'out.json');
      const args = ['--kron', '6', '--devices', '2', '--share', '--sources', '1', '--repeat', '1'];
      const rest = ['--algorithms', 'bfs,pagerank', '--breakdown', '--exchange', 'full', '--json', json];
      expect(await partitionedCommand([...args, ...rest])).toBe(0);
      const out = JSON.parse(await readFile(json, 'utf8'));
      const rows = out.rows.filter((r: { devices: number }) => r.devices === 2);
      expect(rows.map((r: { direction?: string; algorithm?: string }) => r.direction ?? r.algorithm)).toEqual(
        ['push', 'auto', 'pagerank'],
      );
      for (const r of rows) {
        expect(r.breakdown).toBe(true);
        expect(r.medianRun.timing.uploadMs).toBeGreaterThan(0);
        expect(r.medianRun.timing.readbackMs).toBeGreaterThan(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('refuses --schedule as any unknown flag: PageRank runs one schedule', async () => {
    const args = ['--kron', '6', '--devices', '2', '--share', '--algorithms', 'pagerank'];
    for (const schedule of ['lockstep', 'staggered']) {
      const error = await partitionedCommand([...args, '--schedule', schedule]).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' });
      // The one line and exit code 2 that `weft` gives every unknown flag.
      expect(userErrorLine(error)).toMatch(/--schedule/);
    }
  });

  it('runs PageRank in chunks with --chunks, and refuses a bad count', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-partitioned-'));
    try {
      const json = join(dir, 'out.json');
      const args = [
        '--kron',
        '9',
        '--multigraph',
        '--devices',
        '2',
        '--share',
        '--sources',
        '1',
        '--repeat',
        '1',
      ];
      const rest = ['--algorithms', 'pagerank', '--against-one', '--json', json];
      type Row = { algorithm?: string; chunks?: number; oneGpuMs?: number };
      expect(await partitionedCommand([...args, ...rest, '--chunks', '1,3'])).toBe(0);
      const out = JSON.parse(await readFile(json, 'utf8'));
      const rows = out.rows.filter((r: Row) => r.algorithm === 'pagerank');
      expect(rows.map((r: Row) => r.chunks)).toEqual([1, 3]);
      // Both against the one one-GPU time.
      expect(rows[1].oneGpuMs).toBe(rows[0].oneGpuMs);
      expect(await partitionedCommand([...args, ...rest, '--chunks', '0'])).toBe(2);
      expect(await partitionedCommand([...args, ...rest, '--chunks', '2,x'])).toBe(2);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('prints and records each part’s BFS kernels with --profile', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'weft-partitioned-'));
    try {
      const json = join(dir, 'out.json');
      const args = ['--kron', '6', '--devices', '2', '--share', '--sources', '1', '--repeat', '1'];
      expect(await partitionedCommand([...args, '--algorithms', 'bfs', '--profile', '--json', json])).toBe(0);
      const out = JSON.parse(await readFile(json, 'utf8'));
      const rows = out.rows.filter((r: { devices: number }) => r.devices === 2);
      expect(rows).toHaveLength(2);
      for (const r of rows) {
        const parts = new Set(r.medianRun.kernels.map((k: { part: number }) => k.part));
        expect(parts).toEqual(new Set([0, 1]));
        // A tiny dispatch may read 0 ns between its timestamps; the levels together do not.
        for (const k of r.medianRun.kernels) expect(k.ms).toBeGreaterThanOrEqual(0);
        expect(r.medianRun.kernels.reduce((t: number, k: { ms: number }) => t + k.ms, 0)).toBeGreaterThan(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 300_000);

  it('refuses pagerank and cc without a one-GPU result to check them against', async () => {
    const args = ['--kron', '5', '--multigraph', '--devices', '1', '--algorithms', 'bfs,cc'];
    expect(await partitionedCommand(args)).toBe(2);
  });
});
