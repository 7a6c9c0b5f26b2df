import {
  atomic,
  type DeviceArray,
  type GpuCount,
  type Recorder,
  rw,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { type DeviceGraph, FrontierQueue } from '@weft/graph';
import { AdvanceWorkspace, advancePush, enact } from '@weft/operators';
import { checkSource, type RunOptions, recordSet } from './common.ts';

const UNREACHED = 0xffffffff;

export interface BfsOptions extends RunOptions {
  /** Also record a BFS tree: `parents[v]` (-1 for the source and unreached vertices). */
  parents?: boolean;
}

export interface BfsResult {
  /** Hops from the source; -1 where unreachable. */
  depths: Int32Array;
  parents?: Int32Array;
  /** Levels expanded (the eccentricity of the source plus one). */
  iterations: number;
}

/**
 * The data of a push BFS (Gunrock's problem) and its step: an advance from the frontier whose functor
 * claims each unvisited neighbor with `atomicMin(depth, level)`, so each vertex joins the next frontier
 * exactly once. `reset` and `step` only record, so a bench can replay whole runs inside one submit.
 */
export class BfsProblem {
  readonly depths: DeviceArray<'u32'>;
  readonly parents: DeviceArray<'u32'> | undefined;
  readonly queue: FrontierQueue;
  readonly #space: AdvanceWorkspace;

  constructor(
    readonly device: WeftDevice,
    readonly graph: DeviceGraph,
    options: { parents?: boolean } = {},
  ) {
    const n = Math.max(1, graph.vertexCount);
    this.depths = device.array('u32', n, { label: 'bfs depths' });
    this.parents = options.parents ? device.array('u32', n, { label: 'bfs parents' }) : undefined;
    this.queue = new FrontierQueue(device, graph.vertexCount, { label: 'bfs frontier' });
    this.#space = new AdvanceWorkspace(device, this.queue.capacity);
  }

  async reset(rec: Recorder, source: number): Promise<void> {
    checkSource(this.graph, source, 'bfs source');
    await rec.fill(this.depths, UNREACHED);
    if (this.parents) await rec.fill(this.parents, UNREACHED);
    await recordSet(rec, this.depths, source, 0);
    await this.queue.recordSingle(rec, source);
  }

  async step(rec: Recorder, iteration: number): Promise<void> {
    const parent = this.parents
      ? wgsl`(v: u32, p: u32) { ${rw(this.parents)}[v] = p; }`
      : wgsl`(v: u32, p: u32) {}`;
    const claim = wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  // A plain load first: most edges of a skewed graph lead to visited vertices, and need no atomic.
  if (atomicLoad(&${atomic(this.depths)}[dst]) != ${u32(UNREACHED)}) { return false; }
  if (atomicMin(&${atomic(this.depths)}[dst], ${u32(iteration + 1)}) != ${u32(UNREACHED)}) { return false; }
  ${parent}(dst, src);
  return true;
}`;
    await advancePush(rec, this.graph, this.queue.current, claim, {
      output: this.queue.next,
      workspace: this.#space,
    });
    this.queue.swap();
  }

  active(): GpuCount {
    return this.queue.length;
  }

  async result(): Promise<{ depths: Int32Array; parents?: Int32Array }> {
    const n = this.graph.vertexCount;
    if (n === 0)
      return { depths: new Int32Array(0), ...(this.parents ? { parents: new Int32Array(0) } : {}) };
    // UNREACHED (0xffffffff) reads as -1 in two's complement.
    const depths = new Int32Array((await this.depths.download(0, n)).buffer);
    if (!this.parents) return { depths };
    return { depths, parents: new Int32Array((await this.parents.download(0, n)).buffer) };
  }

  destroy(): void {
    this.depths.destroy();
    this.parents?.destroy();
    this.queue.destroy();
    this.#space.destroy();
  }
}

/** Breadth-first search from `source`: depths (and parents), with the enactor's batched submits. */
export async function bfs(
  device: WeftDevice,
  graph: DeviceGraph,
  source: number,
  options: BfsOptions = {},
): Promise<BfsResult> {
  checkSource(graph, source, 'bfs source');
  const problem = new BfsProblem(device, graph, { parents: options.parents ?? false });
  try {
    const rec = device.recorder({ label: 'bfs reset' });
    await problem.reset(rec, source);
    await rec.submit();
    const { iterations } = await enact(device, problem, options);
    return { ...(await problem.result()), iterations };
  } finally {
    problem.destroy();
  }
}
