import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '@weft/gpu';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userErrorLine, vertexIdOption } from './cli-errors.ts';

const WEFT = join(dirname(fileURLToPath(import.meta.url)), '../bin/weft.mjs');

/** Runs `weft` with `args`: its exit code and stderr. */
function weft(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [WEFT, ...args],
      { env: { ...process.env, XDG_RUNTIME_DIR: '/tmp' }, timeout: 120_000 },
      // Dawn's own adapter warnings are no part of weft's output.
      (error, _stdout, stderr) =>
        resolve({
          code: error ? Number(error.code ?? 1) : 0,
          stderr: stderr.replace(/^Warning: .*\n/gm, ''),
        }),
    );
  });
}

describe('weft run option parsing', () => {
  it('takes only decimal digits as a vertex id', () => {
    expect(vertexIdOption('12', '--source')).toBe(12);
    for (const bad of ['', ' ', '-1', '1.5', '1e3', '0x10', '+1', '1 ', '99999999999999999999']) {
      expect(() => vertexIdOption(bad, '--source'), JSON.stringify(bad)).toThrow(InputError);
    }
  });

  it('reports user errors in one line and keeps stacks for bugs', () => {
    expect(userErrorLine(new InputError('bad\nthing', 'x'))).toBe('x: bad thing');
    expect(userErrorLine(Object.assign(new Error('nope'), { code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }))).toBe(
      'nope',
    );
    expect(userErrorLine(new TypeError('a bug'))).toBeUndefined();
  });
});

// Issue #28's probes through the real command: exit code 2 and one line, never a stack or a wrong answer.
describe('weft run hostile probes', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'weft-run-'));
    await writeFile(join(dir, 'g.el'), '0 1 5\n0 2 2\n2 1 -10\n1 3 1\n');
    await writeFile(join(dir, 'big.el'), '0 1 3000000000\n1 2 3000000000\n2 3 1\n');
    await writeFile(join(dir, 'plain.el'), '0 1\n1 2\n');
    await writeFile(join(dir, 'm.txt'), '%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n');
    await mkdir(join(dir, 'dir.mtx'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 2 with one line for each misuse', async () => {
    const plain = join(dir, 'plain.el');
    const probes: [string[], RegExp][] = [
      [['run', 'bfs', plain, '--bogus'], /Unknown option '--bogus'/],
      [['run', 'bfs', plain, '--source'], /--source/],
      [['run', 'bfs', plain, '--source', ''], /--source: '' is not a vertex id/],
      [['run', 'bfs', plain, '--source', ' '], /--source: ' ' is not a vertex id/],
      [['run', 'bfs', plain, '--source', '-1'], /--source/],
      [['run', 'bfs', plain, '--source=-1'], /--source: '-1' is not a vertex id/],
      [['run', 'bfs', plain, '--source', '1.5'], /'1\.5' is not a vertex id/],
      [['run', 'bfs', plain, '--source', '1e3'], /'1e3' is not a vertex id/],
      [['run', 'bfs', join(dir, 'none.el')], /none\.el: no such file/],
      [['run', 'bfs', join(dir, 'dir.mtx')], /dir\.mtx: is a directory/],
      [['run', 'bfs', join(dir, 'm.txt')], /%%MatrixMarket banner but its extension '\.txt' names edgelist/],
      [['run', 'sssp', join(dir, 'g.el')], /weight -10 of edge 2 -> 1 \(edge \d\) is negative/],
      [['run', 'sssp', join(dir, 'big.el')], /reached 2\^32 - 2/],
    ];
    const results = await Promise.all(probes.map(([args]) => weft(args)));
    results.forEach(({ code, stderr }, k) => {
      const what = probes[k]![0].slice(3).join(' ') || probes[k]![0][2]!;
      expect(code, `${what}: ${stderr}`).toBe(2);
      expect(stderr.trimEnd().split('\n'), what).toHaveLength(1);
      expect(stderr, what).toMatch(/^weft: /);
      expect(stderr, what).toMatch(probes[k]![1]);
      expect(stderr, what).not.toMatch(/\n\s+at /);
    });
  }, 180_000);
});
