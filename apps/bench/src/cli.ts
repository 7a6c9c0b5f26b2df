import { writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { RUN_USAGE, userErrorLine, main as weftCli } from '@weft/cli';
import { requestDevice, type WeftDevice, WeftError } from '@weft/gpu';
import gpuPackage from '@weft/gpu/package.json' with { type: 'json' };
import { loadGraph } from '@weft/graph/node';
import type { AnchorFile } from './anchors.ts';
import {
  buildKronOnDevice,
  type DeviceBenchGraph,
  gapbsCommands,
  gapbsFileCommands,
  kronOnDevice,
  writeGapbsGraphs,
} from './device-graphs.ts';
import { fmtItems, fmtMs } from './format.ts';
import {
  type BenchGraph,
  type GraphSelection,
  hasSelection,
  parseKronScale,
  selectGraphs,
} from './graphs.ts';
import { GRAPHS_USAGE, graphsCommand, provideWrittenGraphs } from './graphs-command.ts';
import { type Measurement, measureCases } from './harness.ts';
import { htmlReport } from './html.ts';
import { PARTITIONED_USAGE, partitionedCommand } from './partitioned-command.ts';
import {
  type BenchReport,
  paperTable,
  summaryHtmlTable,
  summaryTable,
  traversalTable,
  withComparisons,
} from './report.ts';
import { parseSizes } from './sizes.ts';
import { pickSources, setSourceCount, sourceCount, VALIDATE_ALL_MAX_ARCS } from './suites/algorithms.ts';
import { MAX_ARCS_GRAPHOLOGY } from './suites/cpu-baselines.ts';
import { casesForDeviceGraph } from './suites/device-built.ts';
import { defaultSizes, GRAPH_SUITES, loadGraphSuite, loadSuite, SUITES } from './suites/index.ts';

/** What `weft bench` runs without --suite: every suite except the tuning sweep. */
const DEFAULT_SUITES = SUITES.filter((s) => s !== 'tune').join(',');

const USAGE = `usage: weft bench [options]

  --suite NAMES     comma-separated suites (${SUITES.join(', ')}); default ${DEFAULT_SUITES}
  --sizes LIST      comma-separated sizes: log2 (16,20,24) or counts (1000000); default by adapter
  --cases REGEX     only cases whose name matches
  --repeat N        timed runs per measurement after one warm-up (default 10; 3 on software adapters)
  --warmup-ms N     warm-up time per measurement before timing (default 1000; 0 on software adapters)
  --batch-ms N      aim for timed submits of about N ms of GPU work, runs batched (default 250; 0 on software
                    adapters): shorter submits leave the GPU idle between them and its clocks drop
  --seed N          seed of every generated input (default 1)
  --json FILE       write every parameter and measurement as JSON
  --html FILE       write a self-contained HTML report with charts
  --anchors FILE    anchors measured in the same command (anchors/torch_anchors.py, anchors/scipy_anchors.py);
                    repeatable; adds our/anchor ratios
  --graph FILE      run the graph suites (${GRAPH_SUITES.join(', ')}) on this file instead of their default
                    shapes and sizes: .mtx, .gr, .el/.txt/.wel/.tsv/.csv/.edges, .wcsr (repeatable)
  --undirected      read --graph edge lists as undirected (Matrix Market and DIMACS say so themselves)
  --one-based       --graph edge-list ids start at 1
  --kron SCALE      a generated Kronecker graph (Graph500, edge factor 16, 2^SCALE vertices) (repeatable);
                    scales whose arcs exceed one storage binding (24+ on a 2 GiB binding) are generated and built
                    on the GPU (duplicate edges kept, targets in chunks) and run BFS, SSSP, PageRank and CC only,
                    validated by streaming the arcs back; the gapbs command lines for the same scale are printed
  --kron-on-device  build every --kron graph on the GPU that way, whatever its scale
  --gapbs-dir DIR   write each graph built on the GPU as gapbs's DIR/kron-SCALE.sg and .wsg (about 12 bytes an
                    arc) and print the gapbs command lines that run on that very graph from the bench's sources
  --binding-budget BYTES
                    store every graph's targets and weights in chunks of at most BYTES (tests the chunked
                    paths on small graphs, e.g. with --kron-on-device)
  --urand SCALE     a generated uniform random graph (GAP -u, edge factor 16) (repeatable)
  --rgg N           a generated random geometric graph of N points, average degree 8 (repeatable)
  --grid WxH        a generated W x H 4-neighbour grid (repeatable)
  --graphs-dir DIR  take the default shapes' graphs from the files \`weft graphs --out DIR\` wrote (same sizes and
                    seed) instead of generating them again: scale-22 generation takes a minute; names and
                    anchors stay those of the generated graphs
  --sources N       BFS/SSSP sources per graph (seeded, out-degree > 0), each timed and validated
                    (default 64, Graph500's; 3 on software adapters)
  --dawn OPTION     pass an option to Dawn's create() (repeatable), e.g. enable-dawn-features=disable_robustness
  --no-pool         destroy released buffers instead of reusing them
  --unsafe          Dawn without robustness, validation, workgroup zero-init and timestamp quantization
`;

/** Released buffers the bench's pool keeps (a sixth of an 80 GB GPU). */
const BENCH_POOL_BYTES = 16 * 2 ** 30;

/** Dawn settings for the fastest (and least checked) runs; reported in every output. */
const UNSAFE = [
  'enable-dawn-features=allow_unsafe_apis,disable_robustness,skip_validation,disable_workgroup_init',
  'disable-dawn-features=timestamp_quantization',
];

async function bench(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      suite: { type: 'string', default: DEFAULT_SUITES },
      sizes: { type: 'string' },
      cases: { type: 'string' },
      repeat: { type: 'string' },
      seed: { type: 'string', default: '1' },
      'warmup-ms': { type: 'string' },
      'batch-ms': { type: 'string' },
      json: { type: 'string' },
      html: { type: 'string' },
      anchors: { type: 'string', multiple: true, default: [] },
      graph: { type: 'string', multiple: true, default: [] },
      undirected: { type: 'boolean', default: false },
      'one-based': { type: 'boolean', default: false },
      kron: { type: 'string', multiple: true, default: [] },
      'kron-on-device': { type: 'boolean', default: false },
      'gapbs-dir': { type: 'string' },
      'binding-budget': { type: 'string' },
      urand: { type: 'string', multiple: true, default: [] },
      rgg: { type: 'string', multiple: true, default: [] },
      grid: { type: 'string', multiple: true, default: [] },
      sources: { type: 'string' },
      'graphs-dir': { type: 'string' },
      dawn: { type: 'string', multiple: true, default: [] },
      unsafe: { type: 'boolean', default: false },
      'no-pool': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  process.env['XDG_RUNTIME_DIR'] ??= '/tmp';
  // Timestamps are quantized by default (a fingerprinting defence); benchmarks need them exact.
  const dawnOptions = [
    ...values.dawn,
    ...(values.unsafe ? UNSAFE : ['disable-dawn-features=timestamp_quantization']),
  ];
  // A pool big enough to keep every run's scratch of a batched submit: with the library's 2 GiB default, the
  // batches of 2^27-key sorts (2-3 runs, 0.5-1 GiB of scratch each) reallocated buffers every submit, and
  // fresh buffers slow the first kernels touching them (docs/decisions/bench-measurement.md).
  const device = await requestDevice({ dawnOptions, poolBytes: values['no-pool'] ? 0 : BENCH_POOL_BYTES });
  try {
    return await runBench(device, values, dawnOptions);
  } finally {
    device.destroy();
  }
}

async function runBench(
  device: WeftDevice,
  values: {
    suite: string;
    sizes?: string | undefined;
    cases?: string | undefined;
    repeat?: string | undefined;
    seed: string;
    'warmup-ms'?: string | undefined;
    'batch-ms'?: string | undefined;
    json?: string | undefined;
    html?: string | undefined;
    anchors: string[];
    sources?: string | undefined;
    'graphs-dir'?: string | undefined;
    undirected: boolean;
    'one-based': boolean;
    'kron-on-device': boolean;
    'gapbs-dir'?: string | undefined;
    'binding-budget'?: string | undefined;
  } & GraphSelection,
  dawnOptions: string[],
): Promise<number> {
  const a = device.adapter;
  const software = a.software;
  console.log(
    `adapter: ${[a.vendor, a.architecture, a.device, a.description].filter(Boolean).join(' / ')}` +
      (software ? '  [software adapter: these are CPU figures, not GPU figures]' : ''),
  );
  console.log(
    `  subgroups: ${device.hasSubgroups ? `yes (${a.subgroupMinSize ?? '?'}-${a.subgroupMaxSize ?? '?'})` : 'no'}, timestamps: ${device.hasTimestamps ? 'yes' : 'no'}, maxStorageBufferBindingSize: ${device.limits.maxStorageBufferBindingSize}, Dawn options: ${dawnOptions.join(' ') || 'defaults'}`,
  );
  const seed = Number(values.seed);
  if (values.sources !== undefined) {
    const k = Number(values.sources);
    if (!Number.isInteger(k) || k < 1)
      throw new Error(`--sources: '${values.sources}' is not a positive integer`);
    setSourceCount(k);
  }
  if (values['graphs-dir']) await provideWrittenGraphs(values['graphs-dir'], seed);
  const onDevice = values.kron.filter((k) =>
    kronOnDevice(device, parseKronScale(k), values['kron-on-device']),
  );
  const hostSelection = { ...values, kron: values.kron.filter((k) => !onDevice.includes(k)) };
  const graphs = hasSelection(values)
    ? await loadSelected(hostSelection, seed, Math.floor(device.limits.maxStorageBufferBindingSize / 4) - 1)
    : undefined;
  if (values['binding-budget'] !== undefined) device.bindingBudget = Number(values['binding-budget']);
  const deviceGraphs: DeviceBenchGraph[] = [];
  try {
    for (const k of onDevice) deviceGraphs.push(await loadOnDevice(device, parseKronScale(k), seed));
    return await runSuites(device, values, dawnOptions, graphs, deviceGraphs);
  } finally {
    for (const g of deviceGraphs) g.graph.destroy();
  }
}

async function runSuites(
  device: WeftDevice,
  values: Parameters<typeof runBench>[1],
  dawnOptions: string[],
  graphs: BenchGraph[] | undefined,
  deviceGraphs: readonly DeviceBenchGraph[],
): Promise<number> {
  const software = device.adapter.software;
  const sizesFor = (suite: string) =>
    values.sizes ? parseSizes(values.sizes) : defaultSizes(suite, software);
  const repeat = Number(values.repeat ?? (software ? 3 : 10));
  const seed = Number(values.seed);
  const warmupMs = Number(values['warmup-ms'] ?? (software ? 0 : 1000));
  const batchMs = Number(values['batch-ms'] ?? (software ? 0 : 250));
  const filter = values.cases ? new RegExp(values.cases) : undefined;
  const anchors = await readAnchors(values.anchors);
  const sources = values.sources ?? (software ? '3' : '64');
  const notes = [...(graphs ? graphNotes(graphs) : []), ...deviceGraphNotes(deviceGraphs, Number(sources))];
  if (values['gapbs-dir'] !== undefined) {
    for (const g of deviceGraphs) {
      const paths = await writeGapbsGraphs(g, values['gapbs-dir']);
      const picked = pickSources(
        { vertexCount: g.graph.vertexCount, offsets: g.offsets },
        seed,
        sourceCount(device),
      );
      notes.push(
        `${g.name}: gapbs on the same graph (${paths.join(', ')}): ${gapbsFileCommands(paths, picked).join(' ; ')}`,
      );
    }
  }

  const measureOptions = {
    repeat,
    seed,
    warmupMs,
    batchMs,
    maxBatch: 400,
    onMeasured: (m: Measurement) => {
      if (!process.stdout.isTTY || process.env['CI']) {
        const what = m.valid ? `${fmtMs(m.timeMs)} ms, ${fmtItems(m.itemsPerSec)}` : `FAILED: ${m.error}`;
        console.log(`    ${m.name} n=${m.n}: ${what}`);
      }
      // Everything measured so far, rewritten after each measurement: a run cut short keeps its results.
      measuredSoFar.push(m);
      if (values.json) {
        const partial = { adapter: device.adapter, dawnOptions, measurements: measuredSoFar };
        writeFileSync(`${values.json}.partial`, JSON.stringify(partial));
      }
    },
  };
  const measuredSoFar: Measurement[] = [];
  const all: Measurement[] = [];
  for (const suite of values.suite.split(',')) {
    if (graphs && GRAPH_SUITES.includes(suite)) {
      for (const g of deviceGraphs) {
        if (suite !== 'algorithms') {
          console.log(
            `\nsuite ${suite} on ${g.name}: skipped (graphs built on the GPU run the algorithms suite)`,
          );
          continue;
        }
        const cases = casesForDeviceGraph(g).filter((c) => !filter || filter.test(c.name));
        console.log(`\nsuite ${suite} on ${g.name}: ${cases.length} cases, ${repeat} timed runs each`);
        all.push(
          ...(await measureCases(device, suite, cases, [g.graph.edgeCount], {
            ...measureOptions,
            onProgress: makeProgress(`${suite} ${g.name}`),
          })),
        );
      }
      for (const g of graphs) {
        const cases = (await loadGraphSuite(suite, g)).filter((c) => !filter || filter.test(c.name));
        console.log(`\nsuite ${suite} on ${g.name}: ${cases.length} cases, ${repeat} timed runs each`);
        all.push(
          ...(await measureCases(device, suite, cases, [g.csr.edgeCount], {
            ...measureOptions,
            onProgress: makeProgress(`${suite} ${g.name}`),
          })),
        );
      }
      continue;
    }
    const cases = (await loadSuite(suite)).filter((c) => !filter || filter.test(c.name));
    const sizes = sizesFor(suite);
    console.log(`\nsuite ${suite}: ${cases.length} cases x ${sizes.length} sizes, ${repeat} timed runs each`);
    all.push(
      ...(await measureCases(device, suite, cases, sizes, {
        ...measureOptions,
        onProgress: makeProgress(suite),
      })),
    );
  }
  const report: BenchReport = {
    command: `weft bench ${process.argv
      .slice(3)
      .filter((a, i) => !(i === 0 && a === '--'))
      .join(' ')}`.trim(),
    date: new Date().toISOString(),
    versions: { weft: gpuPackage.version, node: process.version },
    adapter: device.adapter,
    options: {
      sizes: values.sizes ?? 'per suite',
      repeat,
      seed,
      warmupMs,
      suites: values.suite,
      cases: values.cases ?? null,
      sources: Number(sources),
    },
    measurements: withComparisons(all, anchors),
  };
  if (anchors) report.anchors = anchors;
  if (graphs) report.graphs = [...graphs.map((g) => g.stats), ...deviceGraphs.map((g) => g.stats)];
  if (notes.length > 0) report.notes = notes;
  for (const n of notes) console.log(`note: ${n}`);
  console.log(`\n${summaryTable(report)}`);
  const paper = paperTable(report);
  if (paper)
    console.log(`\nThe paper's evaluation matrix (ratio: ours / the paper's figure; target 3x):\n${paper}`);
  const traversals = traversalTable(report);
  if (traversals)
    console.log(`\nTraversals (Graph500/GAP: per-source times, harmonic-mean TEPS):\n${traversals}`);
  if (values.json) {
    await writeFile(values.json, JSON.stringify(report, null, 1));
    console.log(`\nJSON: ${values.json}`);
  }
  if (values.html) {
    await writeFile(values.html, htmlReport(report, summaryHtmlTable(report)));
    console.log(`HTML: ${values.html}`);
  }
  const failed = all.filter((m) => !m.valid);
  if (failed.length > 0) {
    console.log(`\n${failed.length} measurement(s) FAILED validation or threw: see the table`);
    return 1;
  }
  const rules = deviceGraphs.length > 0 ? ' (graphs built on the GPU: by Graph500/GAP rules, streamed)' : '';
  console.log(`\nall ${all.length} measurements validated against the TypeScript references${rules}`);
  return 0;
}

/** Loads files as `weft run` does and generates the requested graphs, before any suite (never timed). */
async function loadSelected(
  values: GraphSelection & { undirected: boolean; 'one-based': boolean },
  seed: number,
  maxVertexCount: number,
): Promise<BenchGraph[]> {
  const graphs = await selectGraphs(values, seed, async (path) => {
    const { csr } = await loadGraph(path, {
      directed: !values.undirected,
      oneBased: values['one-based'],
      // A graph the device cannot hold is refused before the host builds per-vertex arrays for it.
      build: { maxVertexCount },
    });
    return csr;
  });
  for (const g of graphs) {
    const s = g.stats;
    console.log(
      `graph ${g.name}: ${s.vertices} vertices, ${s.arcs} arcs (${s.directed ? 'directed' : 'undirected'}), max degree ${s.maxDegree}, ${s.isolated} isolated, weights ${s.weights}, ${s.file ? 'loaded' : 'generated'} in ${s.loadMs.toFixed(0)} ms`,
    );
  }
  return graphs;
}

/** Builds a `--kron` graph on the GPU (never timed) and prints it as `loadSelected` prints host graphs. */
async function loadOnDevice(device: WeftDevice, scale: number, seed: number): Promise<DeviceBenchGraph> {
  const g = await buildKronOnDevice(device, scale, seed);
  const s = g.stats;
  console.log(
    `graph ${g.name}: ${s.vertices} vertices, ${s.arcs} arcs (undirected, duplicates kept) in ${g.graph.chunkedTargets.chunks.length} chunks, max degree ${s.maxDegree}, ${s.isolated} isolated, weights 1-255, generated and built on the GPU in ${s.loadMs.toFixed(0)} ms, structure checked`,
  );
  return g;
}

/** What the run validates on graphs built on the GPU, and the gapbs command lines to run beside it. */
function deviceGraphNotes(graphs: readonly DeviceBenchGraph[], sources: number): string[] {
  return graphs.flatMap((g) => [
    `${g.name}: generated and built on the GPU (Philox Kronecker, self-loops dropped, duplicate edges kept); every BFS and SSSP source validated by Graph500/GAP rules checked on the GPU against the arcs, CC against a host union-find and PageRank by a one-step f64 residual (1e-3 relative) over the arcs streamed back chunk by chunk`,
    `${g.name}: gapbs on a graph of the same distribution (its own generator, duplicates merged: not the same graph): ${gapbsCommands(g.scale, sources).join(' ; ')}`,
  ]);
}

/** What the run skips or samples on the chosen graphs, said in the output and the JSON. */
function graphNotes(graphs: readonly BenchGraph[]): string[] {
  const notes: string[] = [];
  const big = graphs.filter((g) => g.csr.edgeCount > VALIDATE_ALL_MAX_ARCS).map((g) => g.name);
  if (big.length > 0) {
    notes.push(
      `${big.join(', ')}: over 2^24 arcs, BFS/SSSP outputs validated for every 8th source (and the last), not all`,
    );
  }
  const noGraphology = graphs.filter((g) => g.csr.edgeCount > MAX_ARCS_GRAPHOLOGY).map((g) => g.name);
  if (noGraphology.length > 0) {
    notes.push(
      `${noGraphology.join(', ')}: graphology CPU baselines skipped (over 2^22 arcs); TypeScript references up to 2^24 arcs`,
    );
  }
  return notes;
}

/** Reads anchor files (one per tool) into one list; each result keeps its tool in its name. */
async function readAnchors(files: readonly string[]): Promise<AnchorFile | undefined> {
  if (files.length === 0) return undefined;
  const parsed = await Promise.all(
    files.map(async (f) => JSON.parse(await readFile(f, 'utf8')) as AnchorFile),
  );
  return {
    tool: parsed.map((a) => a.tool).join(' + '),
    version: parsed.map((a) => `${a.tool} ${a.version}`).join(', '),
    device: [...new Set(parsed.map((a) => a.device))].join(', '),
    results: parsed.flatMap((a) => a.results),
  };
}

/** A live bar on a terminal; plain lines when not a TTY (CI, pipes). */
function makeProgress(suite: string) {
  const tty = process.stdout.isTTY && !process.env['CI'];
  return (done: number, total: number, label: string) => {
    if (tty) {
      const width = 30;
      const fill = Math.round((done / Math.max(total, 1)) * width);
      process.stdout.write(
        `\r\x1b[K${suite} [${'#'.repeat(fill)}${' '.repeat(width - fill)}] ${done}/${total} ${label}`,
      );
      if (done === total) process.stdout.write('\n');
    } else if (done < total) {
      console.log(`  ${suite} ${done + 1}/${total}: ${label}`);
    }
  };
}

async function main(): Promise<number> {
  const [command = 'bench', ...given] = process.argv.slice(2);
  // `pnpm bench -- --json x` hands the script a literal `--` before the options (pnpm 10 through --filter).
  const rest = given[0] === '--' ? given.slice(1) : given;
  switch (command) {
    case 'bench':
      return bench(rest);
    case 'run':
    case 'convert':
    case 'info':
      // The user commands live in @weft/cli (what `npx @weft/cli` runs); the bench only adds its own.
      return weftCli([command, ...rest]);
    case 'graphs':
      return graphsCommand(rest);
    case 'partitioned':
      return partitionedCommand(rest);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n${RUN_USAGE}\n${GRAPHS_USAGE}\n${PARTITIONED_USAGE}`);
      return 0;
    default:
      if (command.startsWith('-')) return bench([command, ...rest]);
      process.stderr.write(`weft: unknown command '${command}'\n${USAGE}`);
      return 2;
  }
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    // A user's mistake gets one line and exit code 2; anything else its stack, for a bug report.
    const line = userErrorLine(e);
    if (line !== undefined) {
      process.stderr.write(`weft: ${line}\n`);
      process.exitCode = 2;
      return;
    }
    const err = e as Error;
    process.stderr.write(
      `weft: ${err instanceof WeftError ? `${err.name}: ${err.message}` : (err.stack ?? String(e))}\n`,
    );
    process.exitCode = 1;
  },
);
