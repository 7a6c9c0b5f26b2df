import { bfsReference } from '@weft/algorithms';
import { atomic, type Functor, u32, wgsl } from '@weft/gpu';
import { FrontierQueue, uploadGraph } from '@weft/graph';
import { AdvanceWorkspace, advancePush } from '@weft/operators';
import type { BenchCase, BenchInstance } from '../types.ts';
import { makeGraph, pickSource } from './algorithms.ts';

/*
 * Where a push BFS level's time goes (`--suite tune --cases ablation`): the heaviest level of a BFS on the
 * suite's Kronecker graph, advanced with functors that do more and more of what BFS's claim does. Each run
 * first restores the depths as they were when the level began (a buffer copy: outside the timed compute
 * passes), so every run does the same work. Differences between consecutive stages are each step's cost.
 */

const UNREACHED = 0xffffffff;

type Stage = 'walk' | 'load depth' | 'claim' | 'claim + append';
const STAGES: Stage[] = ['walk', 'load depth', 'claim', 'claim + append'];

interface Level {
  /** The level's frontier (vertices at depth d). */
  frontier: Uint32Array;
  /** Depths as they are when level d is expanded: up to d known, the rest unreached. */
  before: Uint32Array;
  /** The next level: vertices at depth d + 1. */
  next: Uint32Array;
  depth: number;
  /** Out-edges of the frontier. */
  edges: number;
}

/** The BFS level (from the suite's first source) whose frontier has the most out-edges. */
function heaviestLevel(n: number, seed: number): Level & { csr: ReturnType<typeof makeGraph> } {
  const csr = makeGraph('kronecker', n, seed, true);
  const { depths } = bfsReference(csr, pickSource(csr, seed));
  const edgesAt = new Map<number, number>();
  for (let v = 0; v < csr.vertexCount; v++) {
    const d = depths[v]!;
    if (d >= 0) edgesAt.set(d, (edgesAt.get(d) ?? 0) + csr.offsets[v + 1]! - csr.offsets[v]!);
  }
  let depth = 0;
  for (const [d, e] of edgesAt) if (e > (edgesAt.get(depth) ?? -1)) depth = d;
  const frontier: number[] = [];
  const next: number[] = [];
  const before = new Uint32Array(csr.vertexCount).fill(UNREACHED);
  for (let v = 0; v < csr.vertexCount; v++) {
    const d = depths[v]!;
    if (d === depth) frontier.push(v);
    if (d === depth + 1) next.push(v);
    if (d >= 0 && d <= depth) before[v] = d;
  }
  return {
    csr,
    frontier: Uint32Array.from(frontier),
    before,
    next: Uint32Array.from(next),
    depth,
    edges: edgesAt.get(depth) ?? 0,
  };
}

function ablationCase(stage: Stage): BenchCase {
  return {
    name: `advance ablation: ${stage}`,
    family: 'advance ablation',
    maxItems: () => 2 ** 27,
    async setup(device, n, seed): Promise<BenchInstance> {
      const level = heaviestLevel(n, seed);
      const graph = uploadGraph(device, level.csr);
      const pristine = device.upload(level.before, { label: 'depths before the level' });
      const depths = device.array('u32', level.before.length, { label: 'depths' });
      const queue = new FrontierQueue(device, level.csr.vertexCount, { label: 'ablation frontier' });
      queue.set(level.frontier);
      const space = new AdvanceWorkspace(device, queue.capacity);
      const next = level.depth + 1;
      const functors: Record<Stage, Functor> = {
        walk: wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool { return false; }`,
        'load depth': wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  return atomicLoad(&${atomic(depths)}[dst]) == ${u32(UNREACHED - 1)};
}`,
        claim: wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  if (atomicLoad(&${atomic(depths)}[dst]) != ${u32(UNREACHED)}) { return false; }
  atomicMin(&${atomic(depths)}[dst], ${u32(next)});
  return false;
}`,
        'claim + append': wgsl`(src: u32, dst: u32, edge: u32, rank: u32, index: u32) -> bool {
  if (atomicLoad(&${atomic(depths)}[dst]) != ${u32(UNREACHED)}) { return false; }
  return atomicMin(&${atomic(depths)}[dst], ${u32(next)}) == ${u32(UNREACHED)};
}`,
      };
      const joins = new Uint8Array(level.before.length);
      for (const v of level.next) joins[v] = 1;
      return {
        items: level.edges,
        // The frontier's adjacency read (4 B an edge) and a depth read per edge.
        bytes: 8 * level.edges,
        async run(rec) {
          rec.copy(pristine, depths);
          await advancePush(rec, graph, queue.current, functors[stage], {
            workspace: space,
            ...(stage === 'claim + append' ? { output: queue.next } : {}),
          });
        },
        async validate() {
          const got = await depths.download();
          const claims = stage === 'claim' || stage === 'claim + append';
          for (let v = 0; v < got.length; v++) {
            const want = claims && joins[v] === 1 ? next : level.before[v]!;
            if (got[v] !== want) return `depth of ${v}: ${got[v]}, expected ${want}`;
          }
          if (stage === 'claim + append') {
            const out = Uint32Array.from(await queue.next.items.download(0, level.next.length)).sort();
            const count = (await queue.next.count.download())[0];
            if (count !== level.next.length)
              return `appended ${count} vertices, expected ${level.next.length}`;
            for (let i = 0; i < out.length; i++) {
              if (out[i] !== level.next[i]) return `appended ${out[i]} at ${i}, expected ${level.next[i]}`;
            }
          }
          return null;
        },
        destroy() {
          for (const a of [graph, pristine, depths, queue, space]) a.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = STAGES.map(ablationCase);
