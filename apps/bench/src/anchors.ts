import awad2020 from '../anchors/awad2020.json' with { type: 'json' };
import type { Measurement } from './harness.ts';

/** A figure measured by another tool (PyTorch, SciPy) in the same command, read from its JSON. */
export interface ExternalAnchor {
  name: string;
  n: number;
  ms: number;
  itemsPerSec: number;
  bytesPerSec: number;
  /** A paper's figure: the evaluation row it belongs to (cases name it in `paperRow`) and its setup. */
  row?: string;
  setup?: string;
}

export interface AnchorFile {
  tool: string;
  version: string;
  device: string;
  results: ExternalAnchor[];
}

export interface Comparison {
  anchor: string;
  /** What is compared: bandwidth (bytes/s) or throughput (items/s). Higher is better for both. */
  metric: 'bytesPerSec' | 'itemsPerSec';
  anchorValue: number;
  /** ours / anchor. */
  ratio: number;
  /** The target for this ratio, when it has one. */
  target?: number;
}

interface Rule {
  family: string;
  anchor: string;
  metric: Comparison['metric'];
  target?: number;
  /** The anchor is one of our own measurements (the copy kernel), not an external one. */
  internal?: boolean;
}

/** Which anchor each family is compared with (the targets are the ones the issues set). */
const RULES: readonly Rule[] = [
  { family: 'copy', anchor: 'torch copy int32', metric: 'bytesPerSec', target: 0.9 },
  { family: 'transform', anchor: 'copy kernel u32', metric: 'bytesPerSec', target: 0.9, internal: true },
  { family: 'scan', anchor: 'torch cumsum int32', metric: 'itemsPerSec', target: 1.0 },
  { family: 'reduce', anchor: 'torch sum int32', metric: 'itemsPerSec' },
  { family: 'sort', anchor: 'torch sort int32 (values + int64 indices)', metric: 'itemsPerSec' },
  { family: 'compact', anchor: 'copy kernel u32', metric: 'bytesPerSec', internal: true },
  { family: 'lbs', anchor: 'copy kernel u32', metric: 'bytesPerSec', target: 0.5, internal: true },
  { family: 'segreduce', anchor: 'copy kernel u32', metric: 'bytesPerSec', target: 0.5, internal: true },
];

/**
 * The published figures the dynamic suite reproduces (anchors/awad2020.json), always loaded: a case naming a
 * row is compared with the row's figure at the paper's batch size (`n` 0: any size), against the 3x.
 */
export const PAPER_ANCHORS: AnchorFile = awad2020;
const PAPER_TARGET = 3;

/** The paper's figure for a measurement of a case that names a paper row, if the row has one at its size. */
export function paperAnchor(m: Pick<Measurement, 'paperRow' | 'n'>): ExternalAnchor | undefined {
  if (!m.paperRow) return undefined;
  return PAPER_ANCHORS.results.find((a) => a.row === m.paperRow && (a.n === 0 || a.n === m.n));
}

export function compare(
  m: Measurement,
  ours: readonly Measurement[],
  external: readonly ExternalAnchor[],
): Comparison | undefined {
  if (m.paperRow) {
    const a = paperAnchor(m);
    if (!a || !m.valid) return undefined;
    const metric = 'itemsPerSec';
    return {
      anchor: a.name,
      metric,
      anchorValue: a[metric],
      ratio: m[metric] / a[metric],
      target: PAPER_TARGET,
    };
  }
  if (m.family === 'algorithms') return compareAlgorithm(m, external);
  const rule = RULES.find((r) => r.family === m.family);
  if (!rule || !m.valid || m.name === rule.anchor) return undefined;
  const value = rule.internal
    ? ours.find((o) => o.name === rule.anchor && o.n === m.n && o.valid)?.[rule.metric]
    : external.find((a) => a.name === rule.anchor && a.n === m.n)?.[rule.metric];
  if (!value) return undefined;
  const c: Comparison = {
    anchor: rule.anchor,
    metric: rule.metric,
    anchorValue: value,
    ratio: m[rule.metric] / value,
  };
  if (rule.target !== undefined) c.target = rule.target;
  return c;
}

/**
 * CPU anchors of graph algorithms on the same generated graph, `<tool> <algo> <shape>`, the first one present
 * taken: gapbs (anchors/gapbs_anchors.sh, the GAP benchmark's OpenMP code), then SciPy (anchors/scipy_anchors.py);
 * k-core from anchors/kcore_anchors.py (the faster of parallel peeling on every core and the one-core bucket
 * algorithm).
 */
const CPU_ANCHORS: Record<string, readonly string[]> = {
  bfs: ['gapbs bfs', 'scipy bfs'],
  sssp: ['gapbs sssp', 'scipy dijkstra'],
  pagerank: ['numpy pagerank'],
  cc: ['gapbs cc', 'scipy cc'],
  bc: ['gapbs bc'],
  scc: ['scipy scc'],
  mst: ['scipy mst'],
  triangles: ['scipy triangles'],
  kcore: ['cpu kcore', 'pkc kcore', 'bz kcore'],
};

/** The issues' targets against gapbs (ours / gapbs), by algorithm and shape. */
const GAPBS_TARGETS: Record<string, number> = { 'bfs road': 3, 'sssp road': 2 };

function compareAlgorithm(m: Measurement, external: readonly ExternalAnchor[]): Comparison | undefined {
  const [algo = '', shape = ''] = m.name.split(' ');
  if (!m.valid) return undefined;
  for (const tool of CPU_ANCHORS[algo] ?? []) {
    const anchor = `${tool} ${shape}`;
    const value = external.find((a) => a.name === anchor && a.n === m.n)?.itemsPerSec;
    if (!value) continue;
    const c: Comparison = { anchor, metric: 'itemsPerSec', anchorValue: value, ratio: m.itemsPerSec / value };
    const target = tool.startsWith('gapbs') ? GAPBS_TARGETS[`${algo} ${shape}`] : undefined;
    if (target !== undefined) c.target = target;
    return c;
  }
  return undefined;
}
