import { type Recorder, rw, u32, wgsl } from '@weft/gpu';
import { FrontierBitmap, type FrontierSink } from '@weft/graph';
import { advancePush, filter } from '@weft/operators';
import { type BfsLevel, type BfsState, type LevelFunctors, UNREACHED } from './level.ts';

/**
 * Idempotent BFS (Gunrock's idempotence): a neighbor's depth is set by a plain store instead of
 * `atomicMin`, so racing threads may all see it unvisited, all store the same depth (and some valid
 * parent) and all append it to the raw output; a filter then keeps each vertex once by test-and-setting
 * its visited bit.
 */
export class IdempotentLevel implements BfsLevel {
  /** The advance's output before culling (duplicates allowed; sized for every edge). */
  readonly raw: FrontierSink;
  readonly #culled: FrontierBitmap;

  constructor(readonly bfs: BfsState) {
    const { device, edgeCount, vertexCount } = bfs.graph;
    const items = device.array('u32', Math.max(1, edgeCount), { label: 'bfs raw frontier' });
    this.raw = { items, count: device.array('u32', 1, { label: 'bfs raw frontier length' }) };
    this.#culled = new FrontierBitmap(device, vertexCount, 'bfs culled');
  }

  async reset(rec: Recorder): Promise<void> {
    // A vertex enters one level's output only (its depth is set before the next level reads it), so
    // the visited bits of earlier levels never cull a later one: clearing once per run suffices.
    this.#culled.recordClear(rec);
  }

  async step(rec: Recorder, iteration: number, { parent }: LevelFunctors): Promise<void> {
    const { graph, depths, queue, workspace, loadBalance } = this.bfs;
    const store = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  if (${depths}[dst] != ${u32(UNREACHED)}) { return false; }
  ${rw(depths)}[dst] = ${u32(iteration + 1)};
  ${parent}(dst, src);
  return true;
}`;
    await advancePush(rec, graph, queue.current, store, {
      output: this.raw,
      workspace,
      loadBalance,
      idempotent: true,
    });
    const all = wgsl`(v: u32) -> bool { return true; }`;
    const view = { items: this.raw.items, length: { array: this.raw.count, index: 0 } };
    await filter(rec, view, all, queue.next, { visited: this.#culled });
  }

  destroy(): void {
    this.raw.items.destroy();
    this.raw.count.destroy();
    this.#culled.destroy();
  }
}
