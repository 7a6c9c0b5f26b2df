import { atomic, type Recorder, rw, u32, wgsl } from '@weft/gpu';
import { bitmapToQueue, type DeviceGraph, FrontierBitmap } from '@weft/graph';
import { advancePush } from '@weft/operators';
import { recordSet } from '../common.ts';
import type { BfsLevel, BfsState, LevelFunctors } from './level.ts';

/**
 * A level whose frontier has more out-edges than this many per vertex of the graph is a bulk level: turning
 * the whole bitmap into the next frontier then costs less than an append per newly reached vertex.
 * Low-degree, high-diameter graphs never have one.
 */
const BULK_EDGES_PER_VERTEX = 1 / 8;

/** `claim: 'auto'` takes bitmap claims from this average out-degree up. */
const BITMAP_CLAIM_MIN_DEGREE = 8;

/** Whether `claim: 'auto'` claims by bitmap on `graph`: dense enough that its levels get heavy. */
export function prefersBitmapClaims(graph: DeviceGraph): boolean {
  return graph.edgeCount >= BITMAP_CLAIM_MIN_DEGREE * graph.vertexCount;
}

/**
 * Storage buffers a bitmap-claim level's walk binds besides the targets' chunks and parents: the frontier's
 * length and items, offsets, the snapshot, the degree total, the visited bits, depths and the next frontier's
 * count and items.
 */
const BITMAP_CLAIM_BINDINGS = 9;

/**
 * Whether the device's storage buffers a stage hold a bitmap-claim level: browsers may grant only 8, and the
 * 8 target chunks of a 2^31-arc graph leave Dawn's 16 too few.
 */
export function bitmapClaimsFit(graph: DeviceGraph, parents: boolean): boolean {
  const bindings = BITMAP_CLAIM_BINDINGS + graph.chunkedTargets.chunks.length + (parents ? 1 : 0);
  return bindings <= graph.device.limits.maxStorageBuffersPerShaderStage;
}

/**
 * Bitmap claims. Most edges of a skewed graph lead to vertices visited before the level: a plain load of
 * the level's snapshot of the visited bits (a 32nd of the depths' bytes, so mostly cache hits) rejects
 * them, and only the rest touch the atomic bits. A light level claims with `atomicOr` and appends each
 * winner. A bulk level (more than `BULK_EDGES_PER_VERTEX x vertexCount` frontier out-edges, known on the
 * GPU once the advance has scanned the degrees) only sets bits, with no return value to wait for and no
 * append; one thread per bitmap word then turns the bits the level set into depths and the next frontier.
 */
export class BitmapClaimLevel implements BfsLevel {
  /** The visited bits, and their copy as the level began (read-only while it runs). */
  readonly #seen: FrontierBitmap;
  readonly #before: FrontierBitmap;

  constructor(readonly bfs: BfsState) {
    const { device, vertexCount } = bfs.graph;
    this.#seen = new FrontierBitmap(device, vertexCount, 'bfs visited');
    this.#before = new FrontierBitmap(device, vertexCount, 'bfs visited before the level');
  }

  async reset(rec: Recorder, source: number): Promise<void> {
    this.#seen.recordClear(rec);
    await recordSet(rec, this.#seen.words, source >>> 5, 2 ** (source & 31));
  }

  async step(rec: Recorder, iteration: number, { parent }: LevelFunctors): Promise<void> {
    const { graph, depths, queue, workspace, loadBalance } = this.bfs;
    const seen = this.#seen;
    const before = this.#before;
    rec.copy(seen.words, before.words);
    const bulkEdges = u32(Math.max(1, Math.floor(BULK_EDGES_PER_VERTEX * graph.vertexCount)));
    const total = workspace.total;
    const level = u32(iteration + 1);
    // In a bulk level racing parents' plain stores leave one of them: each is in the frontier, so valid.
    const claim = wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let word = dst >> 5u;
  let bit = 1u << (dst & 31u);
  if ((${before.words}[word] & bit) != 0u) { return false; }
  if (${total}[0] >= ${bulkEdges}) {
    atomicOr(&${atomic(seen.words)}[word], bit);
    ${parent}(dst, src);
    return false;
  }
  if ((atomicLoad(&${atomic(seen.words)}[word]) & bit) != 0u) { return false; }
  if ((atomicOr(&${atomic(seen.words)}[word], bit) & bit) != 0u) { return false; }
  ${rw(depths)}[dst] = ${level};
  ${parent}(dst, src);
  return true;
}`;
    await advancePush(rec, graph, queue.current, claim, { output: queue.next, workspace, loadBalance });
    // A bulk level appended nothing: its frontier is the bits it set.
    await bitmapToQueue(rec, seen, queue.next, {
      append: true,
      except: before,
      visit: wgsl`(v: u32) { ${rw(depths)}[v] = ${level}; }`,
      when: wgsl`() -> bool { return ${total}[0] >= ${bulkEdges}; }`,
    });
  }

  destroy(): void {
    this.#seen.destroy();
    this.#before.destroy();
  }
}
