import {
  atomic,
  checkOptionsObject,
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
import { ownedWords, popcountWords } from './partitioned-boundary.ts';
import {
  KernelTimes,
  type PartitionedKernelTime,
  type PartitionedTiming,
  PhaseClock,
} from './partitioned-exchange.ts';

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
  /**
   * Where a dense level's found bitmaps are ORed: `'device'` (default) each device ORs the others' copies
   * into its next level, the host only copies them; `'host'` the host ORs them and counts the new vertices
   * in loops over every word and copies the OR to every device, as before, to measure the difference.
   */
  merge?: 'device' | 'host';
  /**
   * Times every dispatch of every level (a timestamp pass each, so slower) and reports each part's kernels in
   * `kernels`; empty where the adapter has no timestamps. Default false.
   */
  profile?: boolean;
}

export interface PartitionedBfsResult {
  /** Levels from the source (`0xffffffff` where unreached). */
  depths: Uint32Array;
  /** Levels run (the last one finds nothing). */
  iterations: number;
  /** Levels that pulled. */
  pulls: number;
  /** Levels whose new vertices went between the devices as lists of ids rather than bitmaps. */
  queueLevels: number;
  /** Bytes read back from the devices plus bytes written to them, over the run. */
  exchangedBytes: number;
  /** Where the levels' wall time went (not the depths' read-back). */
  timing: PartitionedTiming;
  /** With `profile`: each part's kernels, their GPU time summed over the levels. */
  kernels?: PartitionedKernelTime[];
}

/** One part's state for {@link PartitionedBfs}. */
class PartState {
  readonly visited: FrontierBitmap;
  readonly frontier: FrontierBitmap;
  readonly found: FrontierBitmap;
  /** The other parts' `found` words (one bitmap each after a push, their owned words in one after a pull) or
   * every part's found ids, as the host wrote them. */
  readonly incoming: DeviceArray<'u32'>;
  /** The level's `found` words (the owned ones after a pull), mapped by the host on a dense level. */
  readonly outbox: StagingBuffer;
  /** The level's `found` vertices, compacted: `count` of them, the first `ids.length` in `ids`. */
  readonly ids: DeviceArray<'u32'>;
  readonly count: DeviceArray<'u32'>;
  /** The count and the ids, mapped by the host once a level. */
  readonly idbox: StagingBuffer;
  /** Where the host writes what `incoming` holds, copied there by the next level. */
  readonly inbox: StagingBuffer;
  readonly depths: DeviceArray<'u32'>;
  readonly queue: FrontierQueue;
  readonly workspace: AdvanceWorkspace;

  constructor(
    readonly graph: DeviceGraph,
    readonly lo: number,
    readonly hi: number,
    /** How many other parts send this one their found words after a push. */
    others: number,
  ) {
    const { device, vertexCount: n } = graph;
    this.visited = new FrontierBitmap(device, n, 'partitioned bfs visited');
    this.frontier = new FrontierBitmap(device, n, 'partitioned bfs frontier');
    this.found = new FrontierBitmap(device, n, 'partitioned bfs found');
    const words = this.found.words.length;
    const incoming = Math.max(1, words * Math.max(1, others));
    this.incoming = device.array('u32', incoming, { label: 'partitioned bfs incoming' });
    this.outbox = new StagingBuffer(device, words, 'read', 'partitioned bfs read-back');
    this.inbox = new StagingBuffer(device, incoming, 'write', 'partitioned bfs upload');
    // A level whose parts found at most `words` vertices in all sends ids: then each part's fit here.
    this.ids = device.array('u32', Math.max(1, words), { label: 'partitioned bfs found ids' });
    this.count = device.array('u32', 1, { label: 'partitioned bfs found count' });
    this.idbox = new StagingBuffer(device, 1 + this.ids.length, 'read', 'partitioned bfs ids read-back');
    this.depths = device.array('u32', Math.max(1, n), { label: 'partitioned bfs depths' });
    this.queue = new FrontierQueue(device, n, { label: 'partitioned bfs queue' });
    this.workspace = new AdvanceWorkspace(device, this.queue.capacity);
  }

  get device(): WeftDevice {
    return this.graph.device;
  }

  destroy(): void {
    for (const b of [this.visited, this.frontier, this.found, this.queue, this.workspace]) b.destroy();
    for (const a of [this.incoming, this.depths, this.outbox, this.inbox, this.ids, this.count, this.idbox]) {
      a.destroy();
    }
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
 * A level costs each device one submit and one wait: the vertices it found come back compacted as a count
 * and a list of ids, and beside them its found words, through mapped staging buffers. Where the parts found
 * at most `n / 32` vertices in all (a sparse level), the host concatenates their ids into the staging
 * buffers the devices copy from next level, where a kernel sets their bits; on a dense level it copies each
 * part's found words (`n / 8` bytes after a push, only the owned words after a pull) into the others'
 * staging buffers, and each device ORs them into its own next level: the host only copies. A level where
 * every count is 0 ends the search.
 */
export class PartitionedBfs {
  readonly #parts: PartState[];
  /** With `merge: 'host'`: the host's OR of a level's found words. */
  readonly #all: Uint32Array | undefined;
  readonly direction: 'auto' | 'push' | 'pull';
  readonly breakdown: boolean;
  readonly profile: boolean;

  constructor(
    readonly graph: PartitionedGraph,
    options: PartitionedBfsOptions = {},
  ) {
    checkOptionsObject('new PartitionedBfs', options);
    const direction = options.direction ?? 'auto';
    if (direction !== 'auto' && direction !== 'push' && direction !== 'pull') {
      throw new InputError(`direction must be 'auto', 'push' or 'pull', got '${direction}'`, 'direction');
    }
    if (direction === 'pull' && graph.directed) {
      throw new InputError('a partitioned BFS pulls only on undirected graphs', 'direction');
    }
    this.direction = graph.directed ? 'push' : direction;
    this.breakdown = options.breakdown === true;
    this.profile = options.profile === true;
    const merge = options.merge ?? 'device';
    if (merge !== 'device' && merge !== 'host') {
      throw new InputError(`merge must be 'device' or 'host', got '${merge}'`, 'merge');
    }
    this.#parts = [];
    try {
      const others = graph.parts.length - 1;
      for (const p of graph.parts) this.#parts.push(new PartState(p.graph, p.lo, p.hi, others));
    } catch (e) {
      for (const s of this.#parts) s.destroy();
      throw e;
    }
    this.#all = merge === 'host' ? new Uint32Array(this.#parts[0]!.found.words.length) : undefined;
  }

  /** Searches from `source` and reads the depths back. */
  async run(source: number): Promise<PartitionedBfsResult> {
    const searched = await this.search(source);
    const start = performance.now();
    const depths = await this.#parts[0]!.depths.download(0, this.graph.vertexCount);
    searched.timing.resultMs += performance.now() - start;
    return { depths, ...searched };
  }

  /** Searches from `source`, leaving the depths on every device (`depthsOn(i)`); no read-back of them. */
  async search(source: number): Promise<Omit<PartitionedBfsResult, 'depths'>> {
    const n = this.graph.vertexCount;
    if (!Number.isInteger(source) || source < 0 || source >= n) {
      throw new InputError(`source ${source} is not a vertex of a graph of ${n} vertices`, 'source');
    }
    const parts = this.#parts;
    // A search that threw may have left its read-backs mapped.
    for (const s of parts) {
      s.outbox.unmap();
      s.idbox.unmap();
    }
    const words = parts[0]!.found.words.length;
    // Vertex counts for the direction rule: exact but for vertices found by several parts on a push.
    let frontierSize = 1;
    let visitedSize = 1;
    let level = 0;
    let pulls = 0;
    let queueLevels = 0;
    let exchanged = 0;
    // What the last level sent: its vertices' ids (so many words of the inbox) or found words.
    let sent: Sent | undefined;
    const clock = new PhaseClock();
    const kernels = this.profile ? new KernelTimes() : undefined;
    const timing = this.profile ? { timing: 'dispatches' as const } : {};
    for (;;) {
      level++;
      // Beamer's rule, on vertex counts: pull while the frontier is a large share of what is left.
      const pull =
        this.direction === 'pull' ||
        (this.direction === 'auto' && frontierSize * 20 > n - visitedSize + frontierSize);
      if (pull) pulls++;
      // A pull finds owned vertices only, so only the owned words (whole, at multiples of 32) come back.
      const back = parts.map((s): [number, number] => (pull ? ownedWords(s, words) : [0, words]));
      // One submit and one wait a level on each device: merge what the last level found, expand the new
      // frontier, copy what it found out.
      const breakdown = this.breakdown;
      const upload = sent === undefined ? 0 : sent.kind === 'ids' ? sent.count : sent.words;
      if (breakdown && level > 1) {
        await clock.parts(parts, 'uploadMs', 'uploadMs', async (s) => {
          const rec = s.device.recorder({ label: 'partitioned bfs upload' });
          rec.copy(s.inbox, s.incoming, upload);
          await rec.submit();
        });
      }
      await clock.parts(parts, 'computeMs', 'readbackMs', async (s, d, done) => {
        let rec = s.device.recorder({ label: 'partitioned bfs level', ...timing });
        if (level > 1 && !breakdown) rec.copy(s.inbox, s.incoming, upload);
        await onTarget(rec, 'partitioned bfs level', async (r) => {
          if (level === 1) await this.#reset(r, s, source);
          else if (sent!.kind === 'ids') await this.#mergeIds(r, s, level - 1, sent!.count);
          else await this.#merge(r, s, level - 1, words, sent!);
          await (pull ? this.#pull(r, s) : this.#push(r, s));
          await this.#compact(r, s, words);
        });
        if (breakdown) {
          const expanded = await rec.submit();
          kernels?.add(d, expanded.dispatchNs);
          done();
          rec = s.device.recorder({ label: 'partitioned bfs read-back' });
        }
        rec.copy(s.count, s.idbox, 1);
        rec.copy(s.ids, s.idbox, s.ids.length, 0, 1);
        const [from, to] = back[d]!;
        rec.copy(s.found.words, s.outbox, to - from, from, from);
        // Wait for the submit, then map: a map asked for before the work ends resolved later, not sooner.
        // The found words are mapped on a sparse level too: a map after the count came back costs a round trip.
        const submitted = await rec.submit();
        kernels?.add(d, submitted.dispatchNs);
        if (!breakdown) done();
        await Promise.all([s.idbox.map(), s.outbox.map(), s.inbox.map()]);
      });
      const counts = parts.map((s) => s.idbox.words[0]!);
      const total = counts.reduce((a, c) => a + c, 0);
      exchanged += 4 * parts.length;
      // Found vertices are unvisited everywhere: no new vertex anywhere ends the search.
      if (total === 0) {
        for (const s of parts) {
          s.idbox.unmap();
          s.outbox.unmap();
        }
        clock.mark('hostMs');
        break;
      }
      if (total <= words) {
        queueLevels++;
        for (const s of parts) {
          const inbox = s.inbox.words;
          let at = 0;
          for (const [d, t] of parts.entries()) {
            inbox.set(t.idbox.words.subarray(1, 1 + counts[d]!), at);
            at += counts[d]!;
          }
        }
        exchanged += 4 * total * (1 + parts.length);
        sent = { kind: 'ids', count: total };
      } else {
        for (const [from, to] of back) exchanged += 4 * (to - from);
        if (this.#all) {
          frontierSize = this.#gather(this.#all, pull, back);
          for (const s of parts) s.inbox.words.set(this.#all);
          exchanged += 4 * words * parts.length;
          sent = { kind: 'or', words };
        } else {
          exchanged += 4 * this.#sendFound(pull, back);
          sent = { kind: 'words', pull, words: pull ? words : words * (parts.length - 1) };
        }
      }
      clock.mark('hostMs');
      // Several parts may find one vertex on a push: then the frontier is smaller than the counts' sum.
      if (sent.kind !== 'or') frontierSize = total;
      visitedSize += frontierSize;
      for (const s of parts) {
        s.idbox.unmap();
        s.outbox.unmap();
        s.inbox.unmap();
      }
      clock.mark('uploadMs');
    }
    return {
      iterations: level,
      pulls,
      queueLevels,
      exchangedBytes: exchanged,
      timing: clock.timing,
      ...(kernels ? { kernels: kernels.rows } : {}),
    };
  }

  /**
   * `merge: 'host'`: ORs the parts' mapped found words (their owned ones after a pull) into `all` and returns
   * how many vertices it holds. Made in host memory: mapped upload memory may be write-combined.
   */
  #gather(all: Uint32Array, pull: boolean, back: readonly [number, number][]): number {
    const found = this.#parts.map((s) => s.outbox.words);
    const words = all.length;
    if (pull) {
      // The owned word ranges cover every word once.
      for (const [d, [from, to]] of back.entries()) all.set(found[d]!.subarray(from, to), from);
    } else {
      all.set(found[0]!);
      for (const f of found.slice(1)) for (let w = 0; w < words; w++) all[w]! |= f[w]!;
    }
    return popcountWords(all, 0, words);
  }

  /**
   * Copies each part's mapped found words into every other part's inbox, one copy a pair: after a pull its
   * owned words where they lie (the owned ranges cover every word once), after a push its whole bitmap as the
   * next of the receiver's bitmaps. The devices OR them. Returns the words written.
   */
  #sendFound(pull: boolean, back: readonly [number, number][]): number {
    const parts = this.#parts;
    const found = parts.map((s) => s.outbox.words);
    let written = 0;
    for (const [d, s] of parts.entries()) {
      const inbox = s.inbox.words;
      let k = 0;
      for (const [t, [from, to]] of back.entries()) {
        if (t === d) continue;
        inbox.set(found[t]!.subarray(from, to), pull ? from : k * found[t]!.length);
        written += to - from;
        k++;
      }
    }
    return written;
  }

  /** count, ids = how many and which vertices `found` holds (the ids past `ids.length` are dropped). */
  async #compact(rec: Recorder, s: PartState, words: number): Promise<void> {
    rec.clear(s.count);
    await transform(
      rec,
      words,
      wgsl`(w: u32) {
  var bits = ${s.found.words}[w];
  if (bits == 0u) { return; }
  var k = atomicAdd(&${atomic(s.count)}[0], countOneBits(bits));
  while (bits != 0u) {
    if (k < ${u32(s.ids.length)}) { ${rw(s.ids)}[k] = w * 32u + weft_trailing_zeros(bits); }
    k++;
    bits &= bits - 1u;
  }
}`,
    );
  }

  /** The `count` ids in incoming (every part's found, one after another): the unvisited ones become the
   * frontier, visited and at depth `level`, alike everywhere. */
  async #mergeIds(rec: Recorder, s: PartState, level: number, count: number): Promise<void> {
    rec.clear(s.frontier.words);
    await transform(
      rec,
      count,
      wgsl`(i: u32) {
  let v = ${s.incoming}[i];
  let bit = 1u << (v & 31u);
  let old = atomicOr(&${atomic(s.visited.words)}[v >> 5u], bit);
  if ((old & bit) != 0u) { return; }
  atomicOr(&${atomic(s.frontier.words)}[v >> 5u], bit);
  ${rw(s.depths)}[v] = ${u32(level)};
}`,
    );
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

  /** new = (found | the others' found in incoming) & ~visited: visited, frontier and depths alike everywhere.
   * After a pull incoming holds the others' owned words in one bitmap (this part's words in it are stale),
   * after a push one bitmap per other part; with `merge: 'host'`, every part's found ORed. */
  async #merge(
    rec: Recorder,
    s: PartState,
    level: number,
    words: number,
    sent: Exclude<Sent, { kind: 'ids' }>,
  ): Promise<void> {
    const pull = sent.kind === 'words' && sent.pull;
    const [from, to] = pull ? ownedWords(s, words) : [0, 0];
    const bitmaps = sent.kind === 'words' && !pull ? this.#parts.length - 1 : 1;
    await transform(
      rec,
      words,
      wgsl`(w: u32) {
  var all = ${s.found.words}[w];
  if (w < ${u32(from)} || w >= ${u32(to)}) {
    for (var k = 0u; k < ${u32(bitmaps)}; k++) { all |= ${s.incoming}[k * ${u32(words)} + w]; }
  }
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

/** What a level sent the next: every part's found ids (`count` in all), found words (`words` of them
 * copied in, after a pull or a push), or the host's OR of them (`merge: 'host'`). */
type Sent =
  | { kind: 'ids'; count: number }
  | { kind: 'words'; pull: boolean; words: number }
  | { kind: 'or'; words: number };

/** BFS from `source` over a partitioned graph; see {@link PartitionedBfs}. */
export async function bfsPartitioned(
  graph: PartitionedGraph,
  source: number,
  options: PartitionedBfsOptions = {},
): Promise<PartitionedBfsResult> {
  checkOptionsObject('bfsPartitioned', options);
  const problem = new PartitionedBfs(graph, options);
  try {
    return await problem.run(source);
  } finally {
    problem.destroy();
  }
}
