import { type DeviceArray, type Functor, type Recorder, rw, transform, u32, wgsl } from '@weft/gpu';
import { FrontierBitmap } from '@weft/graph';
import { advanceDirectionOptimized } from '@weft/operators';
import { type BfsLevel, type BfsState, type LevelFunctors, UNREACHED } from './level.ts';

/**
 * Direction-optimizing BFS (Beamer): each level pushes the claim from the frontier, or, when the frontier
 * is heavy, lets every unvisited vertex pull from its in-neighbors in the frontier until one parent is
 * found; the choice is made on the GPU per level (`advanceDirectionOptimized`). `'pull'` forces bottom-up.
 */
export class DirectionOptimizedLevel implements BfsLevel {
  readonly #bitmap: FrontierBitmap;
  /** Levels done bottom-up since the last reset. */
  readonly #pulls: DeviceArray<'u32'>;

  constructor(
    readonly bfs: BfsState,
    readonly direction: 'pull' | 'auto',
    readonly threshold: number | undefined,
  ) {
    const device = bfs.graph.device;
    this.#bitmap = new FrontierBitmap(device, bfs.graph.vertexCount, 'bfs pull frontier');
    this.#pulls = device.array('u32', 1, { label: 'bfs pull levels' });
  }

  async reset(rec: Recorder): Promise<void> {
    rec.clear(this.#pulls);
  }

  async step(rec: Recorder, iteration: number, { claim, parent }: LevelFunctors): Promise<void> {
    const { graph, depths, queue, workspace } = this.bfs;
    // Bottom-up: only dst's own thread writes it, so plain stores do.
    const pull = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  ${rw(depths)}[dst] = ${u32(iteration + 1)};
  ${parent}(dst, src);
  return true;
}`;
    const candidate = wgsl`(v: u32) -> bool { return ${depths}[v] == ${u32(UNREACHED)}; }`;
    const bound = await this.#logPullBound(rec, candidate);
    await advanceDirectionOptimized(rec, graph, queue.current, { push: claim, pull, candidate }, queue.next, {
      bitmap: this.#bitmap,
      workspace,
      direction: this.direction,
      edgeIds: false,
      pulls: this.#pulls,
      ...(this.threshold === undefined ? {} : { threshold: this.threshold }),
    });
    const log = this.bfs.log;
    if (bound && log) {
      // A pulled level (its pull dispatch size is nonzero) logs the bound instead of the push edges.
      const edges = log.slot(iteration).edges;
      await transform(
        rec,
        1,
        wgsl`(i: u32) {
  if (${workspace.gates}[2] != 0u) { ${rw(edges.array)}[${u32(edges.index)}] = ${bound}[0]; }
}`,
      );
    }
  }

  /** With a log: the in-degree sum of the candidates, a pull level's edges bound. */
  async #logPullBound(rec: Recorder, candidate: Functor): Promise<DeviceArray<'u32'> | undefined> {
    const { graph, log } = this.bfs;
    if (!log) return undefined;
    const bound = rec.scratch('u32', 1, 'bfs pull bound');
    rec.clear(bound);
    const inOffsets = graph.csc?.inOffsets ?? graph.offsets;
    await log.addDegrees(
      rec,
      { array: bound, index: 0 },
      { all: graph.vertexCount, where: candidate },
      inOffsets,
    );
    return bound;
  }

  async pullIterations(): Promise<number> {
    return (await this.#pulls.download())[0]!;
  }

  destroy(): void {
    this.#bitmap.destroy();
    this.#pulls.destroy();
  }
}
