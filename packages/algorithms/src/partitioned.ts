import {
  atomic,
  type DeviceArray,
  InputError,
  load,
  onTarget,
  type Recorder,
  rw,
  StagingBuffer,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import {
  bitmapToQueue,
  type DeviceGraph,
  FrontierBitmap,
  FrontierQueue,
  type PartitionedGraph,
} from '@weft/graph';
import { AdvanceWorkspace, advancePush } from '@weft/operators';
import { UNREACHED } from './bfs/level.ts';
import { type PartitionedTiming, PhaseClock } from './partitioned-exchange.ts';

export interface PartitionedBfsOptions {
  /**
   * How each level expands: `'push'` from the frontier's owned vertices, `'pull'` into each part's unvisited
   * vertices, `'auto'` (default) pulls on undirected graphs while the frontier is large. Directed graphs push
   * (a part holds its vertices' out-edges only).
   */
  direction?: 'auto' | 'push' | 'pull';
  /**
   * Times each level's upload, expansion and read-back each in a submit and wait of its own (slower; for
   * `timing` only). Default false.
   */
  breakdown?: boolean;
}

export interface PartitionedBfsResult {
  /** Levels from the source (`0xffffffff` where unreached). */
  depths: Uint32Array;
  /** Levels run (the last one finds nothing). */
  iterations: number;
  /** Levels that pulled. */
  pulls: number;
  /** Bytes read back from the devices plus bytes written to them, over the run. */
  exchangedBytes: number;
  /** Where the levels' wall time went (not the depths' read-back). */
  timing: PartitionedTiming;
}

/** One part's state for {@link PartitionedBfs}. */
class PartState {
  readonly visited: FrontierBitmap;
  readonly frontier: FrontierBitmap;
  readonly found: FrontierBitmap;
  /** Every part's `found` words ORed, as the host wrote them. */
  readonly incoming: DeviceArray<'u32'>;
  /** The level's `found` words (the owned ones after a pull), mapped by the host once a level. */
  readonly outbox: StagingBuffer;
  /** Where the host writes every part's `found` words ORed, copied to `incoming` by the next level. */
  readonly inbox: StagingBuffer;
  readonly depths: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  readonly workspace: AdvanceWorkspace;

  constructor(
    readonly graph: DeviceGraph,
    readonly lo: number,
    readonly hi: number,
  ) {
    const { device, vertexCount: n } = graph;
    this.visited = new FrontierBitmap(device, n, 'partitioned bfs visited');
    this.frontier = new FrontierBitmap(device, n, 'partitioned bfs frontier');
    this.found = new FrontierBitmap(device, n, 'partitioned bfs found');
    const words = this.found.words.length;
    this.incoming = device.array('u32', Math.max(1, words), { label: 'partitioned bfs incoming' });
    this.outbox = new StagingBuffer(device, words, 'read', 'partitioned bfs read-back');
    this.inbox = new StagingBuffer(device, words, 'write', 'partitioned bfs upload');
    this.depths = device.array('u32', Math.max(1, n), { label: 'partitioned bfs depths' });
    this.queue = new FrontierQueue(device, n, { label: 'partitioned bfs queue' });
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
  }

  get device(): WeftDevice {
    return this.graph.device;
  }

  destroy(): void {
    for (const b of [this.visited, this.frontier, this.found, this.queue, this.workspace]) b.destroy();
    for (const a of [this.incoming, this.depths, this.outbox, this.inbox]) a.destroy();
  }
}

/**
 * Breadth-first search over a graph partitioned across devices ({@link PartitionedGraph}): every device
 * keeps the whole visited set and frontier as bitmaps, expands the edges of the vertices it owns (pushing
 * from its frontier vertices, or pulling into its unvisited ones), and the bitmaps of vertices found are
 * exchanged through the host once a level:
 *
 *     found_d = vertices reached by part d's edges this level         advancePush / a pull per owned vertex
 *     on every device: new = (OR of all found) & ~visited; visited |= new; frontier = new; depth[new] = level
 *
 * A level costs each device one submit and one wait: its found words come back through a mapped staging
 * buffer (`n / 8` bytes after a push, only its owned words after a pull), the host ORs them straight into
 * the staging buffers the devices copy from next level, and counts the new vertices on its own copy of the
 * visited set.
 */
export class PartitionedBfs {
  readonly #parts: PartState[];
  /** The host's OR of a level's found words. */
  readonly #all: Uint32Array;
  readonly direction: 'auto' | 'push' | 'pull';
  readonly breakdown: boolean;

  constructor(
    readonly graph: PartitionedGraph,
    options: PartitionedBfsOptions = {},
  ) {
    const direction = options.direction ?? 'auto';
    if (direction !== 'auto' && direction !== 'push' && direction !== 'pull') {
      throw new InputError(`direction must be 'auto', 'push' or 'pull', got '${direction}'`, 'direction');
    }
    if (direction === 'pull' && graph.directed) {
      throw new InputError('a partitioned BFS pulls only on undirected graphs', 'direction');
    }
    this.direction = graph.directed ? 'push' : direction;
    this.breakdown = options.breakdown === true;
    this.#parts = [];
    try {
      for (const p of graph.parts) this.#parts.push(new PartState(p.graph, p.lo, p.hi));
    } catch (e) {
      for (const s of this.#parts) s.destroy();
      throw e;
    }
    this.#all = new Uint32Array(this.#parts[0]!.found.words.length);
  }

  /** Searches from `source` and reads the depths back. */
  async run(source: number): Promise<PartitionedBfsResult> {
    const searched = await this.search(source);
    return { depths: await this.#parts[0]!.depths.download(0, this.graph.vertexCount), ...searched };
  }

  /** Searches from `source`, leaving the depths on every device (`depthsOn(i)`); no read-back of them. */
  async search(source: number): Promise<Omit<PartitionedBfsResult, 'depths'>> {
    const n = this.graph.vertexCount;
    if (!Number.isInteger(source) || source < 0 || source >= n) {
      throw new InputError(`source ${source} is not a vertex of a graph of ${n} vertices`, 'source');
    }
    const parts = this.#parts;
    // A search that threw may have left its read-backs mapped.
    for (const s of parts) s.outbox.unmap();
    const words = parts[0]!.found.words.length;
    // The host keeps the visited set too, so the count of new vertices needs no read-back of its own.
    const visited = new Uint32Array(words);
    visited[source >>> 5] = (1 << (source & 31)) >>> 0;
    let frontierSize = 1;
    let visitedSize = 1;
    let level = 0;
    let pulls = 0;
    let exchanged = 0;
    const clock = new PhaseClock();
    for (;;) {
      level++;
      // Beamer's rule, on vertex counts: pull while the frontier is a large share of what is left.
      const pull =
        this.direction === 'pull' ||
        (this.direction === 'auto' && frontierSize * 20 > n - visitedSize + frontierSize);
      if (pull) pulls++;
      // A pull finds owned vertices only, so only the owned words (whole, at multiples of 32) come back.
      const sent = parts.map((s): [number, number] => (pull ? ownedWords(s, words) : [0, words]));
      // One submit and one wait a level on each device: merge what the last level found, expand the new
      // frontier, copy what it found out.
      const breakdown = this.breakdown;
      if (breakdown && level > 1) {
        await clock.parts(parts, 'uploadMs', 'uploadMs', async (s) => {
          const rec = s.device.recorder({ label: 'partitioned bfs upload' });
          rec.copy(s.inbox, s.incoming, words);
          await rec.submit();
        });
      }
      await clock.parts(parts, 'computeMs', 'readbackMs', async (s, d, done) => {
        let rec = s.device.recorder({ label: 'partitioned bfs level' });
        if (level > 1 && !breakdown) rec.copy(s.inbox, s.incoming, words);
        await onTarget(rec, 'partitioned bfs level', async (r) => {
          if (level === 1) await this.#reset(r, s, source);
          else await this.#merge(r, s, level - 1, words);
          await (pull ? this.#pull(r, s) : this.#push(r, s));
        });
        if (breakdown) {
          await rec.submit();
          done();
          rec = s.device.recorder({ label: 'partitioned bfs read-back' });
        }
        const [from, to] = sent[d]!;
        rec.copy(s.found.words, s.outbox, to - from, from, from);
        // Wait for the submit, then map: a map asked for before the work ends resolved later, not sooner.
        await rec.submit();
        if (!breakdown) done();
        await Promise.all([s.outbox.map(), s.inbox.map()]);
      });
      // Every device gets the OR of all found words, made in host memory: mapped upload memory may be
      // write-combined, slow to read back.
      const all = this.#all;
      const found = parts.map((s) => s.outbox.words);
      if (pull) {
        // The owned word ranges cover every word once.
        parts.forEach((_, d) => {
          const [from, to] = sent[d]!;
          all.set(found[d]!.subarray(from, to), from);
        });
      } else {
        all.set(found[0]!);
        for (const f of found.slice(1)) for (let w = 0; w < words; w++) all[w]! |= f[w]!;
      }
      frontierSize = 0;
      for (let w = 0; w < words; w++) {
        const fresh = all[w]! & ~visited[w]!;
        if (fresh !== 0) {
          visited[w] = visited[w]! | fresh;
          frontierSize += popcount(fresh);
        }
      }
      for (const [from, to] of sent) exchanged += 4 * (to - from);
      visitedSize += frontierSize;
      if (frontierSize > 0) {
        for (const s of parts) s.inbox.words.set(all);
        exchanged += 4 * words * parts.length;
      }
      clock.mark('hostMs');
      for (const s of parts) s.outbox.unmap();
      if (frontierSize === 0) break;
      for (const s of parts) s.inbox.unmap();
      clock.mark('uploadMs');
    }
    return { iterations: level, pulls, exchangedBytes: exchanged, timing: clock.timing };
  }

  /** Depths unreached but the source's 0; visited and frontier the source alone. */
  async #reset(rec: Recorder, s: PartState, source: number): Promise<void> {
    await rec.fill(s.depths, UNREACHED);
    rec.clear(s.visited.words);
    rec.clear(s.frontier.words);
    await transform(
      rec,
      1,
      wgsl`(i: u32) {
  ${rw(s.depths)}[${u32(source)}] = 0u;
  ${rw(s.visited.words)}[${u32(source >>> 5)}] = ${u32((1 << (source & 31)) >>> 0)};
  ${rw(s.frontier.words)}[${u32(source >>> 5)}] = ${u32((1 << (source & 31)) >>> 0)};
}`,
    );
  }

  /** found = the unvisited ends of the owned frontier vertices' edges. */
  async #push(rec: Recorder, s: PartState): Promise<void> {
    rec.clear(s.found.words);
    // The queue holds every frontier vertex; the part's rows outside its range are empty, so only owned
    // vertices have edges to walk.
    await bitmapToQueue(rec, s.frontier, s.queue.next);
    s.queue.swap();
    await advancePush(
      rec,
      s.graph,
      s.queue.current,
      wgsl`(src: u32, dst: u32, edge: u32) -> bool {
  let bit = 1u << (dst & 31u);
  if ((${s.visited.words}[dst >> 5u] & bit) == 0u) { atomicOr(&${atomic(s.found.words)}[dst >> 5u], bit); }
  return false;
}`,
      { workspace: s.workspace },
    );
  }

  /** found = the owned unvisited vertices with a neighbour in the frontier (undirected graphs). */
  async #pull(rec: Recorder, s: PartState): Promise<void> {
    rec.clear(s.found.words);
    const count = s.hi - s.lo;
    if (count === 0) return;
    const { offsets, chunkedTargets: targets } = s.graph;
    await transform(
      rec,
      count,
      wgsl`(i: u32) {
  let v = ${u32(s.lo)} + i;
  let bit = 1u << (v & 31u);
  if ((${s.visited.words}[v >> 5u] & bit) != 0u) { return; }
  let end = ${offsets}[v + 1u];
  for (var k = ${offsets}[v]; k < end; k++) {
    let u = ${load(targets, 'k')};
    if ((${s.frontier.words}[u >> 5u] & (1u << (u & 31u))) != 0u) {
      atomicOr(&${atomic(s.found.words)}[v >> 5u], bit);
      break;
    }
  }
}`,
    );
  }

  /** new = incoming & ~visited (incoming: every part's found, ORed, copied from the inbox before): visited,
   * frontier and depths alike everywhere. */
  async #merge(rec: Recorder, s: PartState, level: number, words: number): Promise<void> {
    await transform(
      rec,
      words,
      wgsl`(w: u32) {
  let all = ${s.incoming}[w];
  let seen = ${s.visited.words}[w];
  let fresh = all & ~seen;
  ${rw(s.visited.words)}[w] = seen | fresh;
  ${rw(s.frontier.words)}[w] = fresh;
  var bits = fresh;
  while (bits != 0u) {
    ${rw(s.depths)}[w * 32u + weft_trailing_zeros(bits)] = ${u32(level)};
    bits &= bits - 1u;
  }
}`,
    );
  }

  /** Part `i`'s copy of the depths (every device holds them all after a search). */
  depthsOn(i: number): DeviceArray<'u32'> {
    const part = this.#parts[i];
    if (!part) throw new InputError(`no part ${i} of ${this.#parts.length}`, 'part');
    return part.depths;
  }

  destroy(): void {
    for (const s of this.#parts) s.destroy();
  }
}

/** The words `[from, to)` of a part's owned vertices (whole words: boundaries are multiples of 32). */
function ownedWords(s: PartState, words: number): [number, number] {
  if (s.lo === s.hi) return [0, 0];
  return [Math.min(words, s.lo >>> 5), Math.min(words, Math.ceil(s.hi / 32))];
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
}

/** BFS from `source` over a partitioned graph; see {@link PartitionedBfs}. */
export async function bfsPartitioned(
  graph: PartitionedGraph,
  source: number,
  options: PartitionedBfsOptions = {},
): Promise<PartitionedBfsResult> {
  const problem = new PartitionedBfs(graph, options);
  try {
    return await problem.run(source);
  } finally {
    problem.destroy();
  }
}
