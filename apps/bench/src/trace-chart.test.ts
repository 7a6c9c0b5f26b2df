import { expect, test } from 'vitest';
import type { Measurement } from './harness.ts';
import { htmlReport } from './html.ts';
import { type BenchReport, traversalTable } from './report.ts';
import { traceChart } from './trace-chart.ts';

const m = {
  suite: 'algorithms',
  family: 'algorithms',
  name: 'bfs kron-10',
  n: 1000,
  items: 500,
  bytes: 0,
  repeat: 1,
  wallMs: 2,
  minMs: 1,
  maxMs: 4,
  timeMs: 2,
  clock: 'gpu',
  itemsPerSec: 2.5e5,
  bytesPerSec: 0,
  dispatches: 10,
  runsPerBatch: 1,
  valid: true,
  sources: {
    count: 2,
    vertices: [3, 7],
    timesMs: [1, 4],
    edges: [500, 500],
    teps: [5e5, 1.25e5],
    iterations: [4, 8],
    msPerIteration: 0.375,
    harmonicMeanTeps: 2e5,
    medianMs: 2.5,
    minMs: 1,
    maxMs: 4,
    validated: 2,
    edgeRule: 'test',
    submitsPerSource: 1,
  },
  trace: {
    algorithm: 'bfs',
    source: 3,
    frontier: [1, 40, 300, 20],
    edges: [5, 100, 380, 15],
    timesMs: [0.1, 0.2, 0.4, 0.1],
  },
} satisfies Measurement;

test('the per-iteration chart: frontier area, MTEPS line, both axes labelled with units', () => {
  const svg = traceChart(m, m.trace);
  expect(svg).toContain('<path');
  expect(svg).toContain('frontier (vertices)');
  expect(svg).toContain('MTEPS per step');
  expect(svg).toContain('iteration (BFS level)');
  // Peak MTEPS: 380 edges in 0.4 ms = 0.95 MTEPS, so the right axis reaches 1.
  expect(svg).toMatch(/>1<\/text>/);
  expect(traceChart(m, { ...m.trace, frontier: [], edges: [] })).toBe('');
});

test('the traversal table and the HTML report show sources, harmonic-mean MTEPS and time per level', () => {
  const report: BenchReport = {
    command: 'weft bench',
    date: '2026-11-22',
    versions: { weft: '0' },
    adapter: {
      vendor: 'v',
      architecture: 'a',
      device: 'd',
      description: '',
      software: true,
      toggles: [],
    } as unknown as BenchReport['adapter'],
    options: {},
    measurements: [m],
    notes: ['a note'],
  };
  const table = traversalTable(report);
  expect(table).toContain('HM MTEPS');
  expect(table).toMatch(/bfs kron-10\s+1000\s+2\s+2\s+2\.50\s+1\.00\s+4\.00\s+0\.20\s+8\s+0\.3750/);
  const html = htmlReport(report, '');
  expect(html).toContain('Traversals under Graph500/GAP rules');
  expect(html).toContain('Per iteration: frontier size and MTEPS');
  expect(html).toContain('a note');
});
