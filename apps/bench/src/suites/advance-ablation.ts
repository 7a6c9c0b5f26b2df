import { BfsProblem, bfsReference } from '@weft/algorithms';
import { atomic, type Functor, rw, u32, type WeftDevice, wgsl } from '@weft/gpu';
import { FrontierQueue, uploadGraph } from '@weft/graph';
import { AdvanceWorkspace, advancePush } from '@weft/operators';
import type { BenchCase, BenchInstance } from '../types.ts';
import { makeGraph, pickSource } from './algorithms.ts';

/*
 * Where a push BFS level's time goes (`--suite tune --cases ablation`): the heaviest level of a BFS on the
 * suite's Kronecker graph, advanced with functors that do more and more of what BFS's claim does. Each run
 * first restores the depths as they were when the level began (a buffer copy: outside the timed compute
 * passes), so every run does the same work. Differences between consecutive stages are each step's cost.
 * "walk" reads each edge's source and offset (its unused neighbor load is dropped by the compiler). Other
 * stages vary the frontier's order, the cache, or claim by a visited bitmap; the `BFS step(s)` cases time
 * `BfsProblem` itself, alone or inside a run. Time these with `weft-profile`: `bench`'s batched timing of
 * runs that restore by copies reads well below the per-kernel times (docs/decisions/bench-measurement.md).
 */

const UNREACHED = 0xffffffff;

type Work = 'walk' | 'load depth' | 'claim' | 'claim + append' | 'bitmap claim + append';
/**
 * A work, on the level's frontier sorted by vertex, shuffled, or in the order a GPU BFS's racing appends
 * left it (the BFS run from the same source up to the level).
 */
type Stage = Work | `${Work}, shuffled frontier` | `${Work}, BFS frontier` | `${Work}, cold cache`;
const STAGES: Stage[] = [
  'walk',
  'load depth',
  'claim',
  'claim + append',
  'load depth, shuffled frontier',
  'claim + append, shuffled frontier',
  'claim + append, BFS frontier',
  'claim + append, cold cache',
  'bitmap claim + append',
  'bitmap claim + append, cold cache',
];

/** Bytes copied (read, and as many written) before a cold-cache run: evicts the depths from a large GPU's L2. */
const FLUSH_BYTES = 64 * 2 ** 20;

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
function heaviestLevel(
  n: number,
  seed: number,
): Level & { csr: ReturnType<typeof makeGraph>; source: number } {
  const csr = makeGraph('kronecker', n, seed, true);
  const source = pickSource(csr, seed);
  const { depths } = bfsReference(csr, source);
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
    source,
    frontier: Uint32Array.from(frontier),
    before,
    next: Uint32Array.from(next),
    depth,
    edges: edgesAt.get(depth) ?? 0,
  };
}

/**
 * The BFS step case restores depths and frontier between runs, which is all the state of `atomicMin`
 * claims (bitmap claims also keep visited bits).
 */
const DEPTH_CLAIMS = { claim: 'depth', loadBalance: 'merge-path' } as const;

/** Records a BFS from the level's source through `steps` levels and submits it. */
async function runPrefix(device: WeftDevice, bfs: BfsProblem, source: number, steps: number): Promise<void> {
  const rec = device.recorder({ label: 'ablation bfs prefix' });
  await bfs.reset(rec, source);
  for (let i = 0; i < steps; i++) await bfs.step(rec, i);
  await rec.submit();
}

/** Null when `got` holds the depths before the level, plus the next level's when `claimed`. */
function checkDepths(got: Uint32Array, level: Level, claimed: boolean): string | null {
  const joins = new Uint8Array(level.before.length);
  if (claimed) for (const v of level.next) joins[v] = 1;
  for (let v = 0; v < got.length; v++) {
    const want = joins[v] === 1 ? level.depth + 1 : level.before[v]!;
    if (got[v] !== want) return `depth of ${v}: ${got[v]}, expected ${want}`;
  }
  return null;
}

/** A seeded Fisher-Yates shuffle of a copy. */
function shuffled(items: Uint32Array, seed: number): Uint32Array {
  const out = items.slice();
  let state = (seed * 2654435761) >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    const j = state % (i + 1);
    const t = out[i]!;
    out[i] = out[j]!;
    out[j] = t;
  }
  return out;
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
      const work = stage.replace(/, (shuffled frontier|BFS frontier|cold cache)$/, '') as Work;
      const cold = stage.endsWith('cold cache');
      const flush = cold
        ? [0, 1].map(() => device.array('u32', FLUSH_BYTES / 4, { label: 'cache flush' }))
        : [];
      // Bitmap claims: the visited bit (a 32nd of the depths' bytes) is the claim; the depth a plain store.
      const seenBits = new Uint32Array(Math.ceil(level.before.length / 32));
      for (let v = 0; v < level.before.length; v++) {
        if (level.before[v] !== UNREACHED) seenBits[v >>> 5]! |= 1 << (v & 31);
      }
      const pristineSeen = device.upload(seenBits, { label: 'visited bits before the level' });
      const seen = device.array('u32', seenBits.length, { label: 'visited bits' });
      if (stage.endsWith('BFS frontier')) {
        const bfs = new BfsProblem(graph, { loadBalance: 'merge-path' });
        await runPrefix(device, bfs, level.source, level.depth);
        queue.set(await bfs.queue.current.items.download(0, level.frontier.length));
        bfs.destroy();
      } else {
        queue.set(stage === work ? level.frontier : shuffled(level.frontier, seed));
      }
      const space = new AdvanceWorkspace(device, queue.capacity);
      const next = level.depth + 1;
      const never = device.array('u32', 1, { label: 'never incremented' });
      const functors: Record<Work, Functor> = {
        walk: wgsl`(src: u32, dst: u32, edge: u32) -> bool { return false; }`,
        // The load must decide an effect, or the compiler drops it (no depth is UNREACHED - 1).
        'load depth': wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicLoad(&${atomic(depths)}[dst]) == ${u32(UNREACHED - 1)}) { atomicAdd(&${atomic(never)}[0], 1u); }
  return false;
}`,
        claim: wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicLoad(&${atomic(depths)}[dst]) != ${u32(UNREACHED)}) { return false; }
  atomicMin(&${atomic(depths)}[dst], ${u32(next)});
  return false;
}`,
        'bitmap claim + append': wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let word = dst >> 5u;
  let bit = 1u << (dst & 31u);
  if ((atomicLoad(&${atomic(seen)}[word]) & bit) != 0u) { return false; }
  if ((atomicOr(&${atomic(seen)}[word], bit) & bit) != 0u) { return false; }
  ${rw(depths)}[dst] = ${u32(next)};
  return true;
}`,
        'claim + append': wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (atomicLoad(&${atomic(depths)}[dst]) != ${u32(UNREACHED)}) { return false; }
  return atomicMin(&${atomic(depths)}[dst], ${u32(next)}) == ${u32(UNREACHED)};
}`,
      };
      return {
        items: level.edges,
        // The frontier's adjacency read (4 B an edge) and a depth read per edge.
        bytes: 8 * level.edges,
        async run(rec) {
          rec.copy(pristine, depths);
          rec.copy(pristineSeen, seen);
          if (cold) rec.copy(flush[0]!, flush[1]!);
          await advancePush(rec, graph, queue.current, functors[work], {
            workspace: space,
            ...(work.endsWith('claim + append') ? { output: queue.next } : {}),
          });
        },
        async validate() {
          const claimed = work !== 'walk' && work !== 'load depth';
          const wrong = checkDepths(await depths.download(), level, claimed);
          if (wrong) return wrong;
          if (work.endsWith('claim + append')) {
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
          for (const a of [graph, pristine, depths, queue, space, pristineSeen, seen, never, ...flush])
            a.destroy();
        },
      };
    },
  };
}

/**
 * The same level as `BfsProblem.step` records it inside a BFS run: depths and the frontier the BFS left
 * are restored by copies (outside the timed passes) before each step.
 */
const bfsStepCase: BenchCase = {
  name: 'advance ablation: BFS step',
  family: 'advance ablation',
  maxItems: () => 2 ** 27,
  async setup(device, n, seed): Promise<BenchInstance> {
    const level = heaviestLevel(n, seed);
    const graph = uploadGraph(device, level.csr);
    const bfs = new BfsProblem(graph, DEPTH_CLAIMS);
    await runPrefix(device, bfs, level.source, level.depth);
    // The frontier in the order the BFS's racing appends left it.
    const saved = device.upload(await bfs.queue.current.items.download(0, level.frontier.length), {
      label: 'saved frontier',
    });
    const savedLength = device.upload(Uint32Array.of(level.frontier.length), { label: 'saved length' });
    const pristine = device.upload(level.before, { label: 'depths before the level' });
    return {
      items: level.edges,
      bytes: 8 * level.edges,
      async run(rec) {
        rec.copy(pristine, bfs.depths);
        rec.copy(saved, bfs.queue.current.items, level.frontier.length);
        const length = bfs.queue.current.length;
        if (typeof length === 'number') throw new Error('a BFS frontier length lives on the GPU');
        rec.copy(savedLength, length.array, 1, 0, length.index);
        await bfs.step(rec, level.depth);
      },
      validate: async () => checkDepths(await bfs.depths.download(), level, true),
      destroy() {
        for (const a of [graph, bfs, saved, savedLength, pristine]) a.destroy();
      },
    };
  },
};

/**
 * A BFS from reset through levels 0..d (`through`) or 0..d-1 (`before`), d the heaviest level, in one
 * recording: their difference is the heaviest level's cost inside a BFS run.
 */
function bfsPrefixCase(which: 'through' | 'before'): BenchCase {
  return {
    name: `advance ablation: BFS steps ${which} the level`,
    family: 'advance ablation',
    maxItems: () => 2 ** 27,
    async setup(device, n, seed): Promise<BenchInstance> {
      const level = heaviestLevel(n, seed);
      const graph = uploadGraph(device, level.csr);
      const bfs = new BfsProblem(graph, { loadBalance: 'merge-path' });
      const steps = which === 'before' ? level.depth : level.depth + 1;
      return {
        items: level.edges,
        bytes: 8 * level.edges,
        async run(rec) {
          await bfs.reset(rec, level.source);
          for (let i = 0; i < steps; i++) await bfs.step(rec, i);
        },
        validate: async () => checkDepths(await bfs.depths.download(), level, which === 'through'),
        destroy() {
          graph.destroy();
          bfs.destroy();
        },
      };
    },
  };
}

export const cases: BenchCase[] = [
  ...STAGES.map(ablationCase),
  bfsStepCase,
  bfsPrefixCase('before'),
  bfsPrefixCase('through'),
];
