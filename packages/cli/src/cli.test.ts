import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  eigenvectorCentralityReference,
  hitsReference,
  jaccardAllReference,
  jaccardReference,
  katzCentralityReference,
  personalizedPageRankReference,
} from '@weft/algorithms';
import { ConvergenceError, InputError, NoAdapterError } from '@weft/gpu';
import { hostCsrFromEdgeList } from '@weft/graph';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { userErrorLine, vertexIdOption } from './args.ts';
import { main } from './cli.ts';

/** Runs `weft args` in this process: its exit code, stdout and stderr. */
async function weft(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { code, stdout, stderr };
}

/** Plain BFS depths over directed arcs (or both ways when `undirected`). */
function referenceBfs(n: number, arcs: [number, number][], source: number, undirected = false): number[] {
  const adj: number[][] = Array.from({ length: n }, () => []);
  for (const [u, v] of arcs) {
    adj[u]!.push(v);
    if (undirected) adj[v]!.push(u);
  }
  const depth = new Array<number>(n).fill(-1);
  depth[source] = 0;
  const queue = [source];
  for (let head = 0; head < queue.length; head++) {
    const u = queue[head]!;
    for (const v of adj[u]!) {
      if (depth[v] === -1) {
        depth[v] = depth[u]! + 1;
        queue.push(v);
      }
    }
  }
  return depth;
}

// A directed graph: 0 -> 1 -> 2 -> 0 is a directed triangle, 2 -> 3 -> 4, and 5 alone.
const ARCS: [number, number][] = [
  [0, 1],
  [1, 2],
  [2, 0],
  [2, 3],
  [3, 4],
];
const N = 6;
const MTX = `%%MatrixMarket matrix coordinate integer general\n${N} ${N} ${ARCS.length}\n${ARCS.map(([u, v]) => `${u + 1} ${v + 1} ${u + v + 1}`).join('\n')}\n`;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'weft-cli-'));
  await writeFile(join(dir, 'g.mtx'), MTX);
  await writeFile(join(dir, 'g.el'), ARCS.map(([u, v]) => `${u} ${v}`).join('\n'));
  await writeFile(join(dir, 'bad.el'), '0 1 5\n0 2 2\n2 1 -10\n1 3 1\n');
  await writeFile(join(dir, 'big.el'), '0 1 3000000000\n1 2 3000000000\n2 3 1\n');
  await writeFile(join(dir, 'plain.el'), '0 1\n1 2\n');
  await writeFile(join(dir, 'names.el'), 'paris lyon\nlyon marseille\n9007199254740993 paris\n');
  await writeFile(join(dir, 'm.txt'), '%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 2\n');
  await mkdir(join(dir, 'dir.mtx'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const readJson = async (path: string) => JSON.parse(await readFile(path, 'utf8'));

describe('weft option parsing', () => {
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
    expect(userErrorLine(new ConvergenceError('hits', 100, 0.5, 1e-6))).toMatch(/^hits did not converge/);
    expect(userErrorLine(new NoAdapterError("no 'webgpu' package: install it"))).toBe(
      "no 'webgpu' package: install it",
    );
    expect(userErrorLine(new TypeError('a bug'))).toBeUndefined();
  });
});

describe('weft run, convert, info', () => {
  it('runs bfs on .mtx, .gr, edge list and .wcsr conversions with the same values', async () => {
    const want = referenceBfs(N, ARCS, 0);
    const first = await weft([
      'run',
      'bfs',
      join(dir, 'g.mtx'),
      '--source',
      '0',
      '--out',
      join(dir, 'g.json'),
    ]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/compile \d+ ms \(first run [\d.]+ ms\), run [\d.]+ ms/);
    const json = await readJson(join(dir, 'g.json'));
    expect(json).toMatchObject({ algorithm: 'bfs', graph: 'g.mtx', source: 0, values: want });
    expect(json.parents).toHaveLength(N);
    for (const ext of ['gr', 'wel', 'wcsr']) {
      const to = join(dir, `c.${ext}`);
      const converted = await weft(['convert', join(dir, 'g.mtx'), to]);
      expect(converted.code, converted.stderr).toBe(0);
      const run = await weft(['run', 'bfs', to, '--out', join(dir, `c-${ext}.json`), '--repeat', '3']);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout, ext).toMatch(/median of 3 warm runs, min/);
      // An edge list has no vertex count: the isolated last vertex is lost.
      const expected = ext === 'wel' ? want.slice(0, N - 1) : want;
      expect((await readJson(join(dir, `c-${ext}.json`))).values, ext).toEqual(expected);
    }
    // A .wcsr run streams the file to the GPU; every algorithm gives the values it gives on the .mtx file
    // (triangles and the spanning forest, which need the undirected graph or host edges, load it on the host).
    for (const algorithm of ['sssp', 'pagerank', 'cc', 'scc', 'kcore', 'triangles', 'mst']) {
      const mtx = await weft([
        'run',
        algorithm,
        join(dir, 'g.mtx'),
        '--out',
        join(dir, `m-${algorithm}.json`),
      ]);
      expect(mtx.code, mtx.stderr).toBe(0);
      const run = await weft([
        'run',
        algorithm,
        join(dir, 'c.wcsr'),
        '--out',
        join(dir, `w-${algorithm}.json`),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const host = ['triangles', 'mst', 'kcore'].includes(algorithm);
      expect(run.stdout, algorithm).toMatch(host ? /, loaded in \d+ ms/ : /, streamed to the GPU in \d+ ms/);
      const { graph: _m, ...want } = await readJson(join(dir, `m-${algorithm}.json`));
      const { graph: _w, ...got } = await readJson(join(dir, `w-${algorithm}.json`));
      expect(got, algorithm).toEqual(want);
    }
    // sssp weights survive the round trip through DIMACS.
    await weft(['run', 'sssp', join(dir, 'g.mtx'), '--out', join(dir, 's1.json')]);
    await weft(['run', 'sssp', join(dir, 'c.gr'), '--out', join(dir, 's2.json')]);
    const s1 = await readJson(join(dir, 's1.json'));
    expect(s1.values).toEqual([0, 2, 6, 12, 20, null]);
    expect((await readJson(join(dir, 's2.json'))).values).toEqual(s1.values);
  }, 300_000);

  it('reads every format as undirected with --undirected', async () => {
    const want = referenceBfs(N, ARCS, 4, true);
    await weft(['convert', join(dir, 'g.el'), join(dir, 'u.wcsr')]);
    for (const file of ['g.el', 'g.mtx', 'u.wcsr']) {
      const out = join(dir, `u-${file}.json`);
      const run = await weft(['run', 'bfs', join(dir, file), '--undirected', '--source', '4', '--out', out]);
      expect(run.code, run.stderr).toBe(0);
      expect((await readJson(out)).values, file).toEqual(file === 'g.mtx' ? want : want.slice(0, N - 1));
    }
    // An undirected conversion is a symmetric Matrix Market file, read back as undirected.
    await weft(['convert', join(dir, 'g.el'), join(dir, 'u.mtx'), '--undirected']);
    expect(await readFile(join(dir, 'u.mtx'), 'utf8')).toMatch(/symmetric/);
    await weft(['run', 'bfs', join(dir, 'u.mtx'), '--source', '4', '--out', join(dir, 'u2.json')]);
    expect((await readJson(join(dir, 'u2.json'))).values).toEqual(want.slice(0, N - 1));
  }, 300_000);

  it('runs triangles on the undirected graph of a directed file and says so', async () => {
    const run = await weft(['run', 'triangles', join(dir, 'g.mtx'), '--out', join(dir, 't.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(
      /run on its undirected graph \(10 arcs\): triangles needs an undirected graph/,
    );
    expect(await readJson(join(dir, 't.json'))).toMatchObject({
      algorithm: 'triangles',
      value: 1,
      undirected: true,
    });
  }, 120_000);

  it('renumbers named ids with --renumber and writes the names beside the values', async () => {
    const out = join(dir, 'names.json');
    const run = await weft([
      'run',
      'bfs',
      join(dir, 'names.el'),
      '--renumber',
      '--source',
      'lyon',
      '--out',
      out,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(await readJson(out)).toEqual({
      algorithm: 'bfs',
      graph: 'names.el',
      source: 'lyon',
      ids: ['paris', 'lyon', 'marseille', '9007199254740993'],
      values: [-1, 0, 1, -1],
      parents: [-1, -1, 1, -1],
    });
    const converted = join(dir, 'names-out.el');
    const convert = await weft(['convert', join(dir, 'names.el'), converted, '--renumber']);
    expect(convert.code, convert.stderr).toBe(0);
    expect((await readFile(converted, 'utf8')).split('\n').filter(Boolean).sort()).toEqual([
      '9007199254740993\tparis',
      'lyon\tmarseille',
      'paris\tlyon',
    ]);
  }, 120_000);

  it("runs bc with networkx's normalized values, and a seeded sample", async () => {
    const run = await weft(['run', 'bc', join(dir, 'g.mtx'), '--out', join(dir, 'bc.json')]);
    expect(run.code, run.stderr).toBe(0);
    const json = await readJson(join(dir, 'bc.json'));
    expect(json.algorithm).toBe('bc');
    // Pairs through each vertex of 0 -> 1 -> 2 -> 0, 2 -> 3 -> 4 over (n - 1)(n - 2) = 20 ordered pairs.
    for (const [v, want] of [0.05, 0.15, 0.25, 0.15, 0, 0].entries()) {
      expect(json.values[v]).toBeCloseTo(want, 6);
    }
    const sampled: unknown[] = [];
    for (const out of ['bc1.json', 'bc2.json']) {
      const r = await weft([
        'run',
        'bc',
        join(dir, 'g.mtx'),
        '--samples',
        '3',
        '--seed',
        '7',
        '--out',
        join(dir, out),
      ]);
      expect(r.code, r.stderr).toBe(0);
      sampled.push(await readJson(join(dir, out)));
    }
    expect(sampled[0]).toMatchObject({ samples: 3, seed: 7 });
    expect(sampled[0]).toEqual(sampled[1]);
  }, 120_000);

  it('runs scc and kcore (on the undirected graph) with their counts', async () => {
    const scc = await weft(['run', 'scc', join(dir, 'g.mtx'), '--out', join(dir, 'scc.json')]);
    expect(scc.code, scc.stderr).toBe(0);
    expect(scc.stdout).toMatch(/, 4 strongly connected components\n/);
    // The directed triangle is one component named by 0; 3, 4 and 5 are alone.
    expect(await readJson(join(dir, 'scc.json'))).toMatchObject({
      algorithm: 'scc',
      components: 4,
      values: [0, 0, 0, 3, 4, 5],
    });
    const kcore = await weft(['run', 'kcore', join(dir, 'g.mtx'), '--out', join(dir, 'kcore.json')]);
    expect(kcore.code, kcore.stderr).toBe(0);
    expect(kcore.stdout).toMatch(/kcore needs an undirected graph.*, max core 2\n/);
    expect(await readJson(join(dir, 'kcore.json'))).toMatchObject({
      algorithm: 'kcore',
      undirected: true,
      maxCore: 2,
      values: [2, 2, 2, 1, 1, 0],
    });
  }, 120_000);

  it('runs mst on the undirected graph and writes its edges as [u, v, w]', async () => {
    const run = await weft(['run', 'mst', join(dir, 'g.mtx'), '--out', join(dir, 'mst.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/mst needs an undirected graph.*, total weight 19, 2 trees\n/);
    expect(await readJson(join(dir, 'mst.json'))).toEqual({
      algorithm: 'mst',
      graph: 'g.mtx',
      undirected: true,
      value: 19,
      trees: 2,
      edges: [
        [0, 1, 2],
        [0, 2, 3],
        [2, 3, 6],
        [3, 4, 8],
      ],
    });
  }, 120_000);

  it('runs louvain and writes communities with their modularity', async () => {
    const run = await weft(['run', 'louvain', join(dir, 'g.mtx'), '--out', join(dir, 'l.json')]);
    expect(run.code, run.stderr).toBe(0);
    const json = (await readJson(join(dir, 'l.json'))) as {
      values: number[];
      modularity: number;
      communities: number;
    };
    expect(json).toMatchObject({ algorithm: 'louvain', undirected: true });
    expect(new Set(json.values).size).toBe(json.communities);
    expect(json.modularity).toBeGreaterThan(0);
  }, 120_000);

  it('runs leiden and writes connected communities with their modularity', async () => {
    const run = await weft(['run', 'leiden', join(dir, 'g.mtx'), '--out', join(dir, 'leiden.json')]);
    expect(run.code, run.stderr).toBe(0);
    const json = (await readJson(join(dir, 'leiden.json'))) as {
      values: number[];
      modularity: number;
      communities: number;
    };
    expect(json).toMatchObject({ algorithm: 'leiden', undirected: true });
    expect(new Set(json.values).size).toBe(json.communities);
    expect(json.modularity).toBeGreaterThan(0);
  }, 120_000);

  it('runs lpa and writes converged labels with their count', async () => {
    const run = await weft(['run', 'lpa', join(dir, 'g.mtx'), '--out', join(dir, 'lpa.json')]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/lpa needs an undirected graph.*iterations?, \d+ communit/);
    const json = (await readJson(join(dir, 'lpa.json'))) as { values: number[]; communities: number };
    expect(json).toMatchObject({ algorithm: 'lpa', undirected: true, converged: true });
    expect(new Set(json.values).size).toBe(json.communities);
    // Converged: every vertex's label is among the most frequent of its neighbours' in the undirected graph.
    for (let v = 0; v < N; v++) {
      const freq = new Map<number, number>();
      for (const [a, b] of ARCS) {
        const w = a === v ? b : b === v ? a : -1;
        if (w >= 0) freq.set(json.values[w]!, (freq.get(json.values[w]!) ?? 0) + 1);
      }
      if (freq.size > 0) expect(freq.get(json.values[v]!)).toBe(Math.max(...freq.values()));
      else expect(json.values.filter((l) => l === json.values[v]).length).toBe(1);
    }
  }, 120_000);

  it('runs jaccard on pairs from a file and on 2-hop neighbours of given vertices', async () => {
    const csr = hostCsrFromEdgeList({
      vertexCount: N,
      src: Uint32Array.from(ARCS, (a) => a[0]),
      dst: Uint32Array.from(ARCS, (a) => a[1]),
      directed: false,
    }).csr;
    await writeFile(join(dir, 'pairs.txt'), '# u v\n0 1\n2,4\n3 5\n1 1\n');
    const run = async (args: string[]) => {
      const r = await weft(['run', 'jaccard', join(dir, 'g.mtx'), ...args, '--out', join(dir, 'j.json')]);
      expect(r.code, r.stderr).toBe(0);
      return (await readJson(join(dir, 'j.json'))) as Record<string, number[]>;
    };
    const pairs = await run(['--pairs', join(dir, 'pairs.txt')]);
    const want = jaccardReference(csr, { src: [0, 2, 3, 1], dst: [1, 4, 5, 1] });
    expect(pairs).toMatchObject({
      algorithm: 'jaccard',
      undirected: true,
      first: [0, 2, 3, 1],
      second: [1, 4, 5, 1],
    });
    expect(pairs['common']).toEqual([...want.common]);
    for (const [i, s] of want.score.entries()) expect(pairs['score']![i]).toBeCloseTo(s, 6);
    const top = await run(['--vertices', '2,4', '--top', '2']);
    const wantTop = jaccardAllReference(csr, [2, 4], { topK: 2 });
    expect(top['first']).toEqual([...wantTop.first]);
    expect(top['second']).toEqual([...wantTop.second]);
    for (const [i, s] of wantTop.score.entries()) expect(top['score']![i]).toBeCloseTo(s, 6);
    for (const [args, pattern] of [
      [[], /jaccard needs either --pairs FILE or --vertices/],
      [['--pairs', join(dir, 'none.txt')], /--pairs: cannot read/],
      [['--vertices', '1', '--top', '0'], /--top/],
      [['--pairs', join(dir, 'pairs.txt'), '--top', '2'], /--top needs --vertices/],
    ] as [string[], RegExp][]) {
      const bad = await weft(['run', 'jaccard', join(dir, 'g.mtx'), ...args]);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toMatch(pattern);
    }
  }, 120_000);

  it('runs ppr, hits, katz and eigenvector with values per vertex', async () => {
    // g.mtx is weighted: ppr and hits weigh by default (as networkx's pagerank and hits), katz and
    // eigenvector do not (networkx's weight=None).
    const csr = hostCsrFromEdgeList({
      vertexCount: N,
      src: Uint32Array.from(ARCS, (a) => a[0]),
      dst: Uint32Array.from(ARCS, (a) => a[1]),
      weights: Uint32Array.from(ARCS, ([u, v]) => u + v + 1),
      directed: true,
    }).csr;
    // f32 sums may stop one iteration from the f64 reference, whose last L1 change is below 6 x 1e-6.
    const close = (got: number[], want: ArrayLike<number>, what: string) => {
      expect(got, what).toHaveLength(want.length);
      for (const [v, g] of got.entries()) expect(Math.abs(g - want[v]!), `${what} ${v}`).toBeLessThan(6e-6);
    };
    const run = async (args: string[]) => {
      const out = join(dir, `${args[0]}.json`);
      const r = await weft(['run', args[0]!, join(dir, 'g.mtx'), ...args.slice(1), '--out', out]);
      expect(r.code, r.stderr).toBe(0);
      return readJson(out);
    };
    const ppr = await run(['ppr', '--sources', '0,3']);
    expect(ppr).toMatchObject({ algorithm: 'ppr', sources: [0, 3] });
    close(ppr.values, personalizedPageRankReference(csr, { sources: [0, 3] }).ranks, 'ppr');
    const single = await run(['ppr', '--source', '4']);
    close(single.values, personalizedPageRankReference(csr, { sources: [4] }).ranks, 'ppr --source');
    const h = await run(['hits']);
    const hWant = hitsReference(csr);
    close(h.hubs, hWant.hubs, 'hubs');
    close(h.authorities, hWant.authorities, 'authorities');
    close((await run(['katz'])).values, katzCentralityReference(csr).centrality, 'katz');
    close((await run(['eigenvector'])).values, eigenvectorCentralityReference(csr).centrality, 'eigenvector');
    const bad = await weft(['run', 'ppr', join(dir, 'g.mtx'), '--sources', '1,9']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--sources: source 9 is not a vertex of g\.mtx \(it has 6\)/);
  }, 300_000);

  it('prints the statistics of a graph file', async () => {
    const info = await weft(['info', join(dir, 'g.mtx'), '--json']);
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout)).toEqual({
      graph: 'g.mtx',
      vertices: 6,
      arcs: 5,
      directed: true,
      weighted: true,
      degree: { min: 0, mean: 5 / 6, max: 2 },
      components: 2,
    });
    const text = await weft(['info', join(dir, 'g.el'), '--undirected']);
    expect(text.stdout).toMatch(/5 vertices, 10 arcs, undirected/);
    expect(text.stdout).toMatch(/connected components: 1\n/);
  }, 120_000);
});

// Issue #28's probes through the real command: exit code 2 and one line, never a stack or a wrong answer.
describe('weft hostile probes', () => {
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
      [['run', 'bfs', plain, '--repeat', '0'], /--repeat: '0' is not a count/],
      [['run', 'bfs', join(dir, 'none.el')], /none\.el: no such file/],
      [['run', 'bfs', join(dir, 'dir.mtx')], /dir\.mtx: is a directory/],
      [['run', 'bfs', join(dir, 'm.txt')], /%%MatrixMarket banner but its extension '\.txt' names edgelist/],
      [
        ['run', 'bfs', plain, '--out', join(dir, 'nowhere', 'x.json')],
        /--out: directory .*nowhere does not exist/,
      ],
      [['run', 'bfs', plain, '--out', dir], /--out: .* is a directory/],
      [['run', 'sssp', join(dir, 'bad.el')], /weight -10 of edge 2 -> 1 \(edge \d\) is negative/],
      [['run', 'sssp', join(dir, 'big.el')], /reached 2\^32 - 2/],
      [['run', 'pagerankk', plain], /unknown algorithm 'pagerankk'/],
      [
        ['run', 'bfs', plain, '--source', '7'],
        /--source: source 7 is not a vertex of plain\.el \(it has 3\)/,
      ],
      [['run', 'bfs', join(dir, 'names.el'), '--renumber', '--source', 'nice'], /no vertex named 'nice'/],
      [['run', 'bfs', join(dir, 'g.mtx'), '--renumber'], /renumber is for edge lists/],
      [['convert', join(dir, 'names.el'), join(dir, 'n.mtx'), '--renumber'], /mtx cannot store/],
      [['run', 'bc', plain, '--samples', '0'], /--samples: '0' is not a count/],
      [['run', 'bc', plain, '--samples', '4'], /--samples: 4 sources, but plain\.el has 3 vertices/],
      [['run', 'bc', plain, '--samples', '2', '--seed=-1'], /--seed: '-1' is not a seed/],
      [['run', 'ppr', plain, '--sources', '1,x'], /--sources: 'x' is not a vertex id/],
      [['convert', plain, join(dir, 'x.png')], /unknown graph file extension '\.png'/],
      [['info', join(dir, 'none.mtx')], /none\.mtx: no such file/],
      [['frobnicate'], /unknown command 'frobnicate'/],
    ];
    for (const [args, pattern] of probes) {
      const { code, stderr } = await weft(args);
      const what = args.join(' ');
      expect(code, `${what}: ${stderr}`).toBe(2);
      expect(stderr.trimEnd().split('\n'), what).toHaveLength(1);
      expect(stderr, what).toMatch(/^weft: /);
      expect(stderr, what).toMatch(pattern);
      expect(stderr, what).not.toMatch(/\n\s+at /);
    }
  }, 300_000);
});
