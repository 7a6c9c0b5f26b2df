import { mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeResultJson } from './output.ts';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-output-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('writes small results as JSON, non-finite numbers as null', async () => {
  const path = join(dir, 'small.json');
  await writeResultJson(
    path,
    { algorithm: 'sssp', source: 0 },
    {
      distances: Float64Array.of(0, 1.5, Number.POSITIVE_INFINITY),
      parents: Int32Array.of(-1, 0, -1),
    },
  );
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
    algorithm: 'sssp',
    source: 0,
    distances: [0, 1.5, null],
    parents: [-1, 0, -1],
  });
  await writeResultJson(path, {}, { ranks: new Float32Array(0) });
  expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ ranks: [] });
});

// #28: PageRank on 33.5M vertices died with 'Invalid string length' when --out built one string.
it('streams a 50M-vertex result to the file with a bounded heap', async () => {
  const n = 50_000_000;
  // One-digit values keep the file (100 MB) and the time small; the heap bound is what shows the streaming.
  const ranks = new Float32Array(n);
  for (let i = 0; i < n; i++) ranks[i] = i % 7;
  const path = join(dir, 'big.json');
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const sample = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 5);
  try {
    await writeResultJson(path, { algorithm: 'pagerank', iterations: 20 }, { ranks });
  } finally {
    clearInterval(sample);
  }
  const prefix = '{"algorithm":"pagerank","iterations":20,"ranks":[';
  const head = `${prefix}0,1,2,3,4,5,6,0,`;
  const tail = `,${(n - 2) % 7},${(n - 1) % 7}]}\n`;
  // n one-digit values, n - 1 commas, then ']}' and a newline.
  expect((await stat(path)).size).toBe(prefix.length + 2 * n - 1 + 3);
  const file = await open(path, 'r');
  try {
    const start = Buffer.alloc(head.length);
    await file.read(start, 0, head.length, 0);
    expect(start.toString()).toBe(head);
    const size = (await stat(path)).size;
    const end = Buffer.alloc(tail.length);
    await file.read(end, 0, tail.length, size - tail.length);
    expect(end.toString()).toBe(tail);
  } finally {
    await file.close();
  }
  // One string of the whole result would hold 100M characters (100 MB or more of heap); chunks stay small.
  expect(peak - base).toBeLessThan(48 * 2 ** 20);
}, 120_000);
