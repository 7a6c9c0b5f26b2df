import {
  checkMaxIterations,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  functorBindingCount,
  InputError,
  load,
  max,
  onTarget,
  plus,
  type Recorder,
  rw,
  type StagingBuffer,
  transform,
  u32,
  wgsl,
} from '@weft/gpu';
import type { DeviceGraph, PartitionedGraph } from '@weft/graph';
import { neighborhoodReduce } from '@weft/operators';
import { reduce } from '@weft/scan';
import { segmentedReduce } from '@weft/segreduce';
import {
  checkRankBound,
  checkRankOptions,
  nextRankFunctor,
  type PageRankOptions,
  rankChangeFunctor,
} from './pagerank.ts';
import {
  type BoundaryLists,
  boundaryLists,
  destroyLists,
  type Segment,
  sentAt,
  sentBelow,
} from './partitioned-boundary.ts';
import { onEveryPart, type PartitionedTiming, PhaseClock, StagingPool } from './partitioned-exchange.ts';
import { checkNonNegativeWeights } from './weights.ts';

export type PartitionedPageRankOptions = Pick<
  PageRankOptions,
  'alpha' | 'tolerance' | 'convergence' | 'maxIterations' | 'weight'
> & {
  /**
   * Times the uploads, the iteration and the read-back each in a submit and wait of its own, and waits for
   * the local arcs' pass instead of overlapping it with the exchange (slower; for `timing` only). Default false.
   */
  breakdown?: boolean;
  /**
   * What crosses the host an iteration: `'boundary'` (default) only the values another part reads, gathered
   * and scattered on the devices by id lists made once a run; `'full'` every owned contribution (undirected)
   * or the whole partial-sum vector, added on the host (directed), to measure the difference.
   */
  exchange?: 'boundary' | 'full';
  /**
   * Undirected, boundary exchange, with other parts and without a breakdown: an iteration's owned rows in
   * this many contiguous chunks, each summed, ranked, gathered and read back in a submit of its own, so the
   * host copies a chunk's values to the other parts while the device computes the next.
   * Default 4 where a part sends at least {@link PIPELINE_BYTES} an iteration, else 1 (one submit, as
   * before). The chunks' remote arcs are summed in other tiles than the whole pass's, so ranks may differ
   * from one chunk's in the last bits. Directed parts send partial sums that need every owned
   * contribution, so they run as one chunk. In chunks, `timing` counts the host's copies as `hostMs` and
   * the rest of the rounds' wall time as `computeMs`.
   */
  chunks?: number;
};

/** The bytes a part sends an iteration from which the default pipelines its exchange in chunks. */
export const PIPELINE_BYTES = 4 << 20;

export interface PartitionedPageRankResult {
  ranks: Float32Array;
  iterations: number;
  converged: boolean;
  /** With `convergence: 'l1'` and not converged after at least one iteration: the last iteration's summed
   * absolute change. */
  residual?: number;
  /** Bytes read back from the devices plus bytes written to them between iterations, over the run. */
  exchangedBytes: number;
  /** Bytes read back and written an iteration (but the first, which writes nothing), with this exchange. */
  bytesPerIteration: number;
  /** The same with `exchange: 'full'`, to compare. */
  fullBytesPerIteration: number;
  /** Where the iterations' wall time went (not the setup, nor the ranks' read-back). */
  timing: PartitionedTiming;
  /** The chunks an iteration ran in on the part with the most (1 where `chunks` does not apply). */
  chunks: number;
}

/** One part's arrays: full-length vectors indexed by vertex id, per-owned-vertex ones by `v - lo`. */
class RankPart {
  readonly ranks: DeviceArray<'f32'>;
  /** Each vertex's rank over its out-degree (out-weight): owned ones computed here, the rest received. */
  readonly contrib: DeviceArray<'f32'>;
  /** Per vertex, its in-neighbors' shares summed (owned vertices' only are read); where `local` is
   * kept, the shares of remote in-neighbors only. */
  readonly sums: DeviceArray<'f32'>;
  /**
   * Undirected, with other parts: per vertex, the shares of its owned in-neighbors, summed by a pass that
   * needs no exchange, so it runs while the host exchanges the contributions the other pass reads.
   */
  readonly local: DeviceArray<'f32'> | undefined;
  /** Directed: per vertex, the shares of this part's arcs into it (owned sources only). */
  readonly partial: DeviceArray<'f32'> | undefined;
  /** Weighted: each vertex's out-weight sum (owned ones; the rest have no rows here). */
  readonly outWeight: DeviceArray<'f32'> | undefined;
  readonly dangling: DeviceArray<'f32'>;
  readonly change: DeviceArray<'f32'>;
  /** Element 0: the owned dangling ranks' sum; element 1: the owned vertices' change (largest, or summed). */
  readonly totals: DeviceArray<'f32'>;
  /** Element 0: every part's dangling ranks summed, written by the host. */
  readonly global: DeviceArray<'f32'>;
  /** What an iteration reads back, mapped once a step: the shared vector's part, then `totals`. */
  readonly outbox: StagingBuffer;
  /** What the host writes for the next iteration: the dangling total, then the others' contributions
   * (undirected, in part order) or the owned vertices' sums (directed); with `boundary`, the values its
   * received ids name. */
  readonly inbox: StagingBuffer;
  /** In chunks: the inbox's mapping for the host to write again after the iteration that read it. */
  writable: Promise<void> = Promise.resolve();
  /** With more than one chunk: the owned rows' chunks, each with its own read-back ({@link chunkLayouts}). */
  chunks: RankChunk[] | undefined = undefined;
  /** With `boundary`: the values sent, gathered by the sent ids, and the values received, to scatter. */
  readonly sent: DeviceArray<'f32'> | undefined;
  readonly received: DeviceArray<'f32'> | undefined;

  constructor(
    readonly graph: DeviceGraph,
    readonly lo: number,
    readonly hi: number,
    weighted: boolean,
    /** The only part: nothing to share, and a directed part's partial sums are its sums. */
    readonly alone: boolean,
    /** Values the host writes a step after the dangling total (with a `boundary`, its received count). */
    incoming: number,
    /** Which values go to and come from each other part, where only those cross the host. */
    readonly boundary: BoundaryLists | undefined,
    /** Where the staging buffers come from and go back to. */
    readonly pool: StagingPool,
  ) {
    const { device } = graph;
    const n = Math.max(1, graph.vertexCount);
    const owned = Math.max(1, hi - lo);
    const arr = (length: number, label: string) =>
      device.array('f32', length, { label: `partitioned pagerank ${label}` });
    this.ranks = arr(n, 'ranks');
    this.contrib = arr(n, 'contributions');
    this.sums = arr(n, 'sums');
    this.local = alone || graph.directed ? undefined : arr(n, 'local sums');
    this.partial = graph.directed ? arr(n, 'partial sums') : undefined;
    this.outWeight = weighted ? arr(n, 'out-weights') : undefined;
    this.dangling = arr(owned, 'dangling');
    this.change = arr(owned, 'change');
    this.totals = arr(2, 'totals');
    this.global = arr(1, 'dangling total');
    this.sent = boundary ? arr(Math.max(1, boundary.sendCount), 'sent values') : undefined;
    this.received = boundary ? arr(Math.max(1, boundary.recvCount), 'received values') : undefined;
    this.outbox = pool.take(device, this.shared + 2, 'read', 'partitioned pagerank read-back');
    this.inbox = pool.take(device, 1 + incoming, 'write', 'partitioned pagerank upload');
  }

  /** How many values the part sends: those its boundary names, its owned contributions, or all partial sums. */
  get shared(): number {
    if (this.alone) return 0;
    if (this.boundary) return this.boundary.sendCount;
    return this.partial ? this.graph.vertexCount : this.hi - this.lo;
  }

  get count(): number {
    return this.hi - this.lo;
  }

  /** Frees the arrays and hands the staging buffers back to the pool (destroys them after a failed run, which
   * may have left a map pending). */
  destroy(ok: boolean): void {
    for (const a of [
      this.ranks,
      this.contrib,
      this.sums,
      this.local,
      this.dangling,
      this.change,
      this.totals,
      this.global,
      this.sent,
      this.received,
      this.partial,
      this.outWeight,
      ...(this.chunks ?? []).map((c) => c.sums),
    ])
      a?.destroy();
    for (const b of [this.outbox, this.inbox, ...(this.chunks ?? []).map((c) => c.outbox)]) {
      if (ok) this.pool.give(b);
      else b.destroy();
    }
  }
}

/**
 * PageRank over a graph partitioned across devices, with `pageRank`'s definition, options and convergence
 * test. Each part computes its owned vertices' ranks; each iteration is one submit per device and one
 * exchange through the host:
 *
 *     undirected: sums[v] = sum of contrib[u] over v's arcs      each part pulls over its owned rows
 *                 rank, change, contrib and dangling of owned v  each part gets the contributions its
 *                                                                arcs read (boundary), or all owned (full)
 *     directed:   partial[v] = sum of contrib[u] over arcs u->v with u owned (the part's CSC)
 *                 each part gets the others' partial sums into its vertices and adds them on the device
 *                 (boundary), or the host adds whole partial vectors (full)
 *
 * The boundary exchange's id lists are made once a run (`boundaryLists`); an iteration gathers the sent
 * values on the sender and scatters them on the receiver, each one pass in the iteration's submit.
 * An undirected part with others sums its rows in two passes split by the arc's source: the owned sources'
 * pass needs no exchange, so it is submitted before the host copies the contributions and runs meanwhile;
 * the remote sources' pass follows the upload. Each arc's share is gathered once, by one pass or the other.
 * The dangling ranks and the convergence test's change are reduced per part and combined on the host.
 * With `chunks`, an undirected part's iteration is that many submits over contiguous row ranges, the remote
 * pass split with them, each read back on its own, so the host's copies overlap the next chunks' compute.
 * The id lists and chunk layouts are kept on the graph, and the staging buffers borrowed from a pool there.
 * Directed graphs need each part's in-edges: `PartitionedGraph.upload(devices, csr, { csc: true })`.
 */
export async function pageRankPartitioned(
  graph: PartitionedGraph,
  options: PartitionedPageRankOptions = {},
): Promise<PartitionedPageRankResult> {
  checkOptionsObject('pageRankPartitioned', options);
  const { alpha, tolerance, convergence } = checkRankOptions(options);
  checkRankBound(options);
  const maxIterations = options.maxIterations ?? 100;
  checkMaxIterations(maxIterations, true);
  if (options.weight !== undefined && options.weight !== null && options.weight !== 'weights') {
    throw new InputError(`weight must be 'weights' or null, got '${options.weight}'`, 'weight');
  }
  const first = graph.parts[0]!.graph;
  if (options.weight === 'weights' && first.chunkedWeights === undefined) {
    throw new InputError("weight 'weights' but the graph has no weights", 'weight');
  }
  if (graph.directed && graph.parts.some((p) => !p.graph.csc)) {
    throw new InputError(
      'a partitioned PageRank on a directed graph needs in-edges: PartitionedGraph.upload(..., { csc: true })',
      'graph',
    );
  }
  const mode = options.exchange ?? 'boundary';
  if (mode !== 'boundary' && mode !== 'full') {
    throw new InputError(`exchange must be 'boundary' or 'full', got '${mode}'`, 'exchange');
  }
  // Refused rather than run in lockstep, so a JavaScript caller who asked for it sees the change.
  if ((options as { schedule?: unknown }).schedule === 'staggered') {
    throw new InputError(
      "the staggered schedule was removed (lockstep was never slower on two GPUs): drop 'schedule'",
      'schedule',
    );
  }
  const weighted = options.weight !== null && first.chunkedWeights !== undefined;
  if (weighted) await onEveryPart(graph.parts, (p) => checkNonNegativeWeights(p.graph, 'PageRank'));
  const n = graph.vertexCount;
  if (n === 0) {
    const timing = new PhaseClock().timing;
    const none = { exchangedBytes: 0, bytesPerIteration: 0, fullBytesPerIteration: 0 };
    return { ranks: new Float32Array(0), iterations: 0, converged: true, ...none, timing, chunks: 1 };
  }
  if (options.chunks !== undefined && !(Number.isSafeInteger(options.chunks) && options.chunks >= 1)) {
    throw new InputError(`chunks must be a positive integer, got ${options.chunks}`, 'chunks');
  }
  const clock = new PhaseClock();
  const parts: RankPart[] = [];
  const alone = graph.parts.length === 1;
  // Chunks need parts to wait for and the boundary's per-pair copies; a breakdown times whole steps.
  const pipelined = !alone && mode === 'boundary' && options.breakdown !== true;
  // Undirected parts read the others' contributions as sources, directed ones add up sums into targets.
  const reads = graph.directed ? 'targets' : 'sources';
  // Kept on the graph: a second call neither walks the arcs for the lists again nor allocates the staging.
  const lists =
    mode === 'boundary' && !alone
      ? await graph.kept(
          `pagerank boundary ${reads}`,
          () => boundaryLists(graph, reads),
          (made) => {
            for (const b of made) destroyLists(b);
          },
        )
      : [];
  const pool = await graph.kept(
    'staging',
    async () => new StagingPool(),
    (p) => p.destroy(),
  );
  const sends = Math.max(0, ...lists.map((b) => b.sendCount));
  const chunks = pipelined && !graph.directed ? (options.chunks ?? (4 * sends >= PIPELINE_BYTES ? 4 : 1)) : 1;
  let ok = false;
  try {
    for (const [i, p] of graph.parts.entries()) {
      const boundary = lists[i];
      parts.push(
        new RankPart(
          p.graph,
          p.lo,
          p.hi,
          weighted,
          alone,
          boundary?.recvCount ?? fullIncoming(p, n, graph),
          boundary,
          pool,
        ),
      );
    }
    if (chunks > 1) {
      const layouts = await graph.kept(
        `pagerank chunks ${chunks}`,
        () => Promise.all(parts.map((s) => chunkLayouts(s, chunks))),
        (made) => {
          for (const c of made.flat()) c.offsets.destroy();
        },
      );
      for (const [i, s] of parts.entries()) s.chunks = layouts[i]!.map((l) => chunkOf(s, l));
    }
    // Inboxes from the pool come back unmapped: the host writes them first.
    await Promise.all(parts.map((s) => s.inbox.map()));
    await Promise.all(
      parts.map((s) =>
        onTarget(s.graph.device, 'partitioned pagerank reset', async (rec) => {
          await rec.fill(s.ranks, 1 / n);
          rec.clear(s.contrib);
          rec.clear(s.sums);
          const w = s.graph.chunkedWeights;
          if (s.outWeight && w) {
            const weight = wgsl`(v: u32, u: u32, edge: u32) -> f32 { return f32(${load(w, 'edge')}); }`;
            await neighborhoodReduce(rec, s.graph, 'all', weight, s.outWeight);
          }
        }),
      ),
    );
    const l1 = convergence === 'l1';
    const bound = l1 ? n * tolerance : tolerance;
    const breakdown = options.breakdown === true;
    let exchanged = 0;
    let iterations = 0;
    let converged = false;
    let change = 0;
    // The local arcs' passes of the next iteration, queued before the exchange that the rest waits for.
    let queued: Promise<unknown>[] = [];
    // Without a breakdown, each queued right behind the iteration whose contributions it reads.
    const ahead: Promise<{ submitted: Promise<unknown> }>[] = [];
    clock.mark('setupMs');
    const piped = chunks > 1;
    if (piped) {
      ({ iterations, converged, change, exchanged } = await pipelinedRounds(parts, lists, {
        alpha,
        n,
        convergence,
        bound,
        maxIterations,
        clock,
      }));
    }
    for (let round = 0; !piped; round++) {
      if (round > 0 && breakdown) {
        await clock.parts(parts, 'uploadMs', 'uploadMs', async (s) => {
          const rec = s.graph.device.recorder({ label: 'partitioned pagerank upload' });
          await onTarget(rec, 'partitioned pagerank upload', (r) => recordIncoming(r, s, parts));
          await rec.submit();
        });
      }
      // One submit and one wait a device: the last exchange copied in, the iteration, its read-back copied out.
      await clock.parts(parts, 'computeMs', 'readbackMs', async (s, i, done) => {
        await queued[i];
        let rec = s.graph.device.recorder({ label: 'partitioned pagerank iteration' });
        await onTarget(rec, 'partitioned pagerank iteration', async (r) => {
          if (round > 0 && !breakdown) await recordIncoming(r, s, parts);
          await recordIteration(r, s, round > 0, alpha, n, convergence);
        });
        if (breakdown) {
          await rec.submit();
          done();
          rec = s.graph.device.recorder({ label: 'partitioned pagerank read-back' });
        }
        const m = s.shared;
        if (s.alone && s.partial) rec.copy(s.partial, s.sums, n);
        else if (s.sent) {
          if (m > 0) rec.copy(s.sent, s.outbox, m);
        } else if (s.partial) rec.copy(s.partial, s.outbox, m);
        else if (m > 0) rec.copy(s.contrib, s.outbox, m, s.lo);
        rec.copy(s.totals, s.outbox, 2, 0, m);
        // On the queue when the call returns; its wait covers this submit only.
        const finished = rec.submit();
        // The next iteration's local arcs read only this iteration's own contributions: queued behind it now,
        // they run while the host maps and copies instead of after the host has recorded them.
        if (!breakdown && round < maxIterations) {
          ahead[i] = queueLocalPass(s, false);
          // Awaited next round; a failure before then is the run's, not an unhandled rejection.
          ahead[i]!.catch(() => undefined);
        }
        // Wait for the submit, then map: a map asked for before the work ends resolved later, not sooner.
        await finished;
        if (!breakdown) done();
        await Promise.all([s.outbox.map(), s.inbox.map()]);
      });
      queued = [];
      exchanged += parts.reduce((bytes, s) => bytes + 4 * s.shared + 8, 0);
      let dangling = 0;
      change = 0;
      for (const s of parts) {
        const totals = s.outbox.floats.subarray(s.shared);
        dangling += totals[0]!;
        change = l1 ? change + totals[1]! : Math.max(change, totals[1]!);
      }
      const stop = (round > 0 && change < bound) || round >= maxIterations;
      if (round > 0) {
        iterations = round;
        converged = change < bound;
      }
      if (breakdown && !stop) {
        // Timed alone: the next iteration's local arcs, after this iteration's read-back.
        const local = await Promise.all(parts.map((s) => queueLocalPass(s, true)));
        queued = local.map((q) => q.submitted);
        await Promise.all(queued);
        clock.mark('computeMs');
      }
      if (!stop) {
        if (!breakdown) queued = (await Promise.all(ahead)).map((q) => q.submitted);
        exchanged += lists.length > 0 ? exchangeBoundary(parts, lists, dangling) : exchange(parts, dangling);
      }
      clock.mark('hostMs');
      for (const s of parts) s.outbox.unmap();
      if (stop) break;
      for (const s of parts) s.inbox.unmap();
      clock.mark('uploadMs');
    }
    if (!piped) for (const s of parts) s.inbox.unmap();
    // A pass queued behind the last iteration ran for nothing, but it must be on the queue before the arrays go.
    await Promise.all(ahead.map(async (q) => (await q).submitted));
    const ranks = new Float32Array(n);
    await Promise.all(parts.map((s) => s.ranks.downloadInto(ranks.subarray(s.lo, s.hi), s.lo)));
    clock.mark('resultMs');
    const result = {
      ranks,
      iterations,
      converged,
      // Round 0 only spreads the first ranks: a run stopped there has no change to report.
      ...(l1 && !converged && iterations > 0 ? { residual: change } : {}),
      exchangedBytes: exchanged,
      bytesPerIteration: bytesPerIteration(
        parts,
        (s) => s.shared,
        (s) => s.boundary?.recvCount ?? fullIncoming(s, n, graph),
      ),
      fullBytesPerIteration: bytesPerIteration(
        parts,
        (s) => (alone ? 0 : graph.directed ? n : s.count),
        (s) => fullIncoming(s, n, graph),
      ),
      timing: clock.timing,
      chunks: Math.max(...parts.map((s) => s.chunks?.length ?? 1)),
    };
    ok = true;
    return result;
  } finally {
    for (const s of parts) s.destroy(ok);
  }
}

/** Waits for every part's arrival at a round; a failure anywhere rejects every wait, so no part waits on. */
class Arrivals {
  readonly #count = new Map<number, number>();
  readonly #waiting = new Map<number, { resolve: () => void; reject: (e: unknown) => void }[]>();
  #failure: { error: unknown } | undefined;

  constructor(readonly parts: number) {}

  arrive(round: number): void {
    const count = (this.#count.get(round) ?? 0) + 1;
    this.#count.set(round, count);
    if (count < this.parts) return;
    for (const w of this.#waiting.get(round) ?? []) w.resolve();
    this.#waiting.delete(round);
  }

  async all(round: number): Promise<void> {
    if (this.#failure) throw this.#failure.error;
    if ((this.#count.get(round) ?? 0) >= this.parts) return;
    await new Promise<void>((resolve, reject) => {
      const list = this.#waiting.get(round) ?? [];
      list.push({ resolve, reject });
      this.#waiting.set(round, list);
    });
  }

  fail(error: unknown): void {
    this.#failure ??= { error };
    for (const list of this.#waiting.values()) for (const w of list) w.reject(error);
    this.#waiting.clear();
  }
}

/**
 * The rounds in chunks: every part runs its own loop. Iteration t + 1 of a part starts once every part has
 * arrived at round t (its read-backs mapped, its totals noted and its values copied into the others' inboxes
 * for t + 1); a part copies its values out as soon as each chunk comes back, so its copies overlap the
 * others' work and its own next chunks. A copy for t + 1 waits until every part has submitted the start of
 * t, which read the inbox. The rounds' wall time less the host's copies counts as compute.
 */
async function pipelinedRounds(
  parts: RankPart[],
  lists: readonly BoundaryLists[],
  o: {
    alpha: number;
    n: number;
    convergence: 'relative' | 'l1';
    bound: number;
    maxIterations: number;
    clock: PhaseClock;
  },
): Promise<{ iterations: number; converged: boolean; change: number; exchanged: number }> {
  const k = parts.length;
  const l1 = o.convergence === 'l1';
  const arrivals = new Arrivals(k);
  // Which parts have submitted the read of round t's inbox.
  const started = new Arrivals(k);
  // Per round, each part's dangling sum and change, combined in part order (the same floats in any arrival order).
  const totals = new Map<number, Float64Array>();
  const combined = (round: number) => {
    const t = totals.get(round)!;
    let dangling = 0;
    let change = 0;
    for (let p = 0; p < k; p++) {
      dangling += t[2 * p]!;
      change = l1 ? change + t[2 * p + 1]! : Math.max(change, t[2 * p + 1]!);
    }
    return { dangling, change };
  };
  let exchanged = 0;
  const copied = new Map<number, number>();
  let copyMs = 0;
  let last = 0;
  const run = async (p: number) => {
    const s = parts[p]!;
    const chunks = s.chunks!;
    let ahead: Promise<{ submitted: Promise<unknown> }> | undefined;
    let mapped: Promise<void>[] = [];
    try {
      for (let t = 0; ; t++) {
        if (t > 0) {
          await arrivals.all(t - 1);
          const { dangling, change } = combined(t - 1);
          if ((t - 1 > 0 && change < o.bound) || t - 1 >= o.maxIterations) return;
          await s.writable;
          s.inbox.floats[0] = dangling;
          s.inbox.unmap();
        }
        if (ahead) await (await ahead).submitted;
        mapped = await submitChunks(s, parts, t > 0, o, () => {
          // The inbox may be written again once the submit that read it is done.
          if (t > 0) s.writable = s.inbox.map();
          started.arrive(t);
        });
        ahead = t < o.maxIterations ? queueLocalPass(s, false) : undefined;
        ahead?.catch(() => undefined);
        const round = totals.get(t) ?? new Float64Array(2 * k);
        totals.set(t, round);
        for (const [c, { outbox, pieces }] of chunks.entries()) {
          await mapped[c];
          const values = outbox.floats;
          let at = 0;
          // Out to every receiver's inbox for t + 1, as soon as that inbox is the host's again.
          for (const piece of pieces) {
            if (piece.count === 0) continue;
            const q = piece.part;
            const receiver = parts[q]!;
            await started.all(t);
            await receiver.writable;
            const into = receivedAt(lists, p, q, piece);
            const begun = performance.now();
            receiver.inbox.floats.set(values.subarray(at, at + piece.count), 1 + into);
            copyMs += performance.now() - begun;
            copied.set(t, (copied.get(t) ?? 0) + 4 * piece.count);
            at += piece.count;
          }
          exchanged += 4 * at;
          if (c === chunks.length - 1) {
            round[2 * p] = values[at]!;
            round[2 * p + 1] = values[at + 1]!;
            exchanged += 8;
          }
          outbox.unmap();
        }
        if (t > 0) exchanged += 4;
        last = Math.max(last, t);
        arrivals.arrive(t);
      }
    } catch (e) {
      arrivals.fail(e);
      started.fail(e);
      throw e;
    } finally {
      if (ahead)
        await (await ahead.catch(() => ({ submitted: Promise.resolve() }))).submitted.catch(() => undefined);
      await s.writable.catch(() => undefined);
      s.inbox.unmap();
      for (const m of mapped) await m.catch(() => undefined);
      for (const { outbox } of chunks) outbox.unmap();
    }
  };
  await onEveryPart(
    parts.map((_, p) => p),
    run,
  );
  const iterations = last;
  const { change } = combined(last);
  // A round's copies count where a next iteration read them, as with the lockstep exchange.
  for (const [round, bytes] of copied) if (round < last) exchanged += bytes;
  o.clock.mark('computeMs');
  o.clock.timing.computeMs -= copyMs;
  o.clock.timing.hostMs += copyMs;
  return { iterations, converged: iterations > 0 && change < o.bound, change, exchanged };
}

/** Where `piece` (of the values `sender` sends `receiver`) lies among the values the receiver's inbox holds. */
function receivedAt(
  lists: readonly BoundaryLists[],
  sender: number,
  receiver: number,
  piece: Segment,
): number {
  const run = lists[receiver]!.recv.find((r) => r.part === sender)!;
  return run.at + piece.at - sentAt(lists, sender, receiver).at;
}

/**
 * Records and submits one iteration of a part, a submit a chunk (the last one with the totals), and returns
 * each chunk's read-back mapping: asked for right after its submit where there are several, so a map waits
 * for its own chunk only, or after the one submit is done (a part of one chunk).
 */
async function submitChunks(
  s: RankPart,
  parts: RankPart[],
  update: boolean,
  o: { alpha: number; n: number; convergence: 'relative' | 'l1' },
  /** Called once the submit that read the inbox is on the queue. */
  read: () => void,
): Promise<Promise<void>[]> {
  const chunks = s.chunks!;
  const mapped: Promise<void>[] = [];
  for (const [c, chunk] of chunks.entries()) {
    const rec = s.graph.device.recorder({ label: 'partitioned pagerank iteration' });
    await onTarget(rec, 'partitioned pagerank iteration', async (r) => {
      if (update && c === 0) await recordIncoming(r, s, parts);
      await recordChunk(r, s, chunk, update, o.alpha, o.n, o.convergence);
    });
    let at = 0;
    for (const piece of chunk.pieces) {
      if (piece.count > 0) rec.copy(s.sent!, chunk.outbox, piece.count, piece.at, at);
      at += piece.count;
    }
    if (c === chunks.length - 1) rec.copy(s.totals, chunk.outbox, 2, 0, at);
    const finished = rec.submit();
    const map =
      chunks.length > 1
        ? Promise.all([finished, chunk.outbox.map()]).then(() => undefined)
        : finished.then(() => chunk.outbox.map());
    map.catch(() => undefined);
    mapped.push(map);
    if (c === 0) read();
  }
  return mapped;
}

/** The values a part receives with the full exchange: the others' owned contributions, or its owned sums. */
function fullIncoming(p: { lo: number; hi: number }, n: number, graph: PartitionedGraph): number {
  if (graph.parts.length === 1) return 0;
  return graph.directed ? p.hi - p.lo : n - (p.hi - p.lo);
}

/** An iteration's bytes: each part's sent values and two totals read back, its received values and the
 * dangling total written. */
function bytesPerIteration(
  parts: RankPart[],
  sent: (s: RankPart) => number,
  received: (s: RankPart) => number,
): number {
  return parts.reduce((bytes, s) => bytes + 4 * sent(s) + 8 + 4 * received(s) + 4, 0);
}

/** The share of arc `u -> v` (`edge` its CSR id): u's contribution, times the arc's weight if weighted. */
function shareFunctor(s: RankPart, keep: 'all' | 'local' | 'remote'): Functor {
  const w = s.graph.chunkedWeights;
  const value =
    s.outWeight && w
      ? wgsl`(u: u32, edge: u32) -> f32 { return ${s.contrib}[u] * f32(${load(w, 'edge')}); }`
      : wgsl`(u: u32, edge: u32) -> f32 { return ${s.contrib}[u]; }`;
  if (keep === 'all') return wgsl`(v: u32, u: u32, edge: u32) -> f32 { return ${value}(u, edge); }`;
  // A branch, not a select: the other pass's arcs skip the gather, so the two passes load each share once.
  const owned = wgsl`(u: u32) -> bool { return u >= ${u32(s.lo)} && u < ${u32(s.hi)}; }`;
  return keep === 'local'
    ? wgsl`(v: u32, u: u32, edge: u32) -> f32 {
  if (!${owned}(u)) { return 0.0; }
  return ${value}(u, edge);
}`
    : wgsl`(v: u32, u: u32, edge: u32) -> f32 {
  if (${owned}(u)) { return 0.0; }
  return ${value}(u, edge);
}`;
}

/**
 * Records and submits the pass over a part's arcs from owned vertices (`local`), without waiting for it
 * unless `wait`: the returned `submitted` settles once the device took it.
 */
async function queueLocalPass(s: RankPart, wait: boolean): Promise<{ submitted: Promise<unknown> }> {
  if (!s.local || s.count === 0) return { submitted: Promise.resolve() };
  const rec = s.graph.device.recorder({ label: 'partitioned pagerank local arcs' });
  const local = s.local;
  await onTarget(rec, 'partitioned pagerank local arcs', (r) =>
    neighborhoodReduce(r, s.graph, 'all', shareFunctor(s, 'local'), local, { ignoresVertex: true }),
  );
  return { submitted: rec.submit({ wait }) };
}

/**
 * One iteration on one part: (after the first) the owned vertices' sums (the remote arcs' only where the
 * local ones were summed before), next ranks and change; then their contributions and dangling ranks, both
 * reduced; a directed part then its arcs' partial sums.
 */
async function recordIteration(
  rec: Recorder,
  s: RankPart,
  update: boolean,
  alpha: number,
  n: number,
  convergence: 'relative' | 'l1',
): Promise<void> {
  const count = s.count;
  if (count === 0) {
    rec.clear(s.totals);
  } else {
    if (update) {
      // An undirected part's rows are its owned vertices' in-edges too (an edge weighs the same both ways).
      if (!s.partial) {
        const share = shareFunctor(s, s.local ? 'remote' : 'all');
        await neighborhoodReduce(rec, s.graph, 'all', share, s.sums, { ignoresVertex: true });
      }
      const sum = s.local
        ? wgsl`(v: u32) -> f32 { return ${s.local}[v] + ${s.sums}[v]; }`
        : wgsl`(v: u32) -> f32 { return ${s.sums}[v]; }`;
      await recordRanks(rec, s, s.lo, count, sum, alpha, n, convergence);
    }
    await recordContributions(rec, s, s.lo, count);
    await recordTotals(rec, s, update, convergence);
  }
  if (s.partial) {
    const share = shareFunctor(s, 'all');
    await neighborhoodReduce(rec, s.graph, 'all', share, s.partial, { direction: 'in', ignoresVertex: true });
  }
  const b = s.boundary;
  if (b && s.sent && b.sendCount > 0) {
    const values = s.partial ?? s.contrib;
    await transform(rec, b.sendCount, wgsl`(i: u32) { ${rw(s.sent)}[i] = ${values}[${b.sendIds}[i]]; }`);
  }
}

/** Owned rows `[from, from + count)`: their next ranks from their sums, and how much each changed. */
async function recordRanks(
  rec: Recorder,
  s: RankPart,
  from: number,
  count: number,
  sum: Functor,
  alpha: number,
  n: number,
  convergence: 'relative' | 'l1',
): Promise<void> {
  await transform(
    rec,
    count,
    wgsl`(i: u32) {
  let v = ${u32(from)} + i;
  let next = ${nextRankFunctor(alpha, n)}(${sum}(v), ${s.global}[0]);
  ${rw(s.change)}[v - ${u32(s.lo)}] = ${rankChangeFunctor(convergence)}(next, ${s.ranks}[v]);
  ${rw(s.ranks)}[v] = next;
}`,
  );
}

/** Owned rows `[from, from + count)`: their contributions and dangling ranks from their ranks. */
async function recordContributions(rec: Recorder, s: RankPart, from: number, count: number): Promise<void> {
  const out = s.outWeight;
  const { offsets } = s.graph;
  const total = out
    ? wgsl`(v: u32) -> f32 { return ${out}[v]; }`
    : wgsl`(v: u32) -> f32 { return f32(${offsets}[v + 1u] - ${offsets}[v]); }`;
  await transform(
    rec,
    count,
    wgsl`(i: u32) {
  let v = ${u32(from)} + i;
  let r = ${s.ranks}[v];
  let t = ${total}(v);
  ${rw(s.contrib)}[v] = select(0.0, r / t, t > 0.0);
  ${rw(s.dangling)}[v - ${u32(s.lo)}] = select(r, 0.0, t > 0.0);
}`,
  );
}

/** The owned dangling ranks summed, and (after the first iteration) the owned change, into `totals`. */
async function recordTotals(
  rec: Recorder,
  s: RankPart,
  update: boolean,
  convergence: 'relative' | 'l1',
): Promise<void> {
  if (s.count === 0) {
    rec.clear(s.totals);
    return;
  }
  await reduce(rec, s.dangling, { array: s.totals, index: 0 }, { count: s.count });
  if (update) {
    const monoid = convergence === 'l1' ? plus('f32') : max('f32');
    await reduce(rec, s.change, { array: s.totals, index: 1 }, { monoid, count: s.count });
  }
}

/**
 * A part's owned rows `[lo, hi)` as one chunk of an iteration, as kept on the graph: its arcs from `edge`
 * (`edges` of them, with `offsets` counted from there) and the runs of the sent values it gathers.
 */
interface ChunkLayout {
  readonly lo: number;
  readonly hi: number;
  readonly edge: number;
  readonly edges: number;
  readonly offsets: DeviceArray<'u32'>;
  readonly pieces: readonly Segment[];
}

/** A chunk in a run: its layout, the sums of its rows' remote shares, and its read-back (its pieces of the
 * sent values one after another, the last chunk's then the totals). */
interface RankChunk extends ChunkLayout {
  readonly sums: DeviceArray<'f32'>;
  readonly outbox: StagingBuffer;
}

function chunkOf(s: RankPart, l: ChunkLayout): RankChunk {
  const last = l.hi === s.hi;
  const values = l.pieces.reduce((a, p) => a + p.count, 0) + (last ? 2 : 0);
  const { device } = s.graph;
  return {
    ...l,
    sums: device.array('f32', Math.max(1, l.hi - l.lo), { label: 'partitioned pagerank chunk sums' }),
    outbox: s.pool.take(device, values, 'read', 'partitioned pagerank chunk read-back'),
  };
}

/**
 * Splits a part's owned rows into `k` chunks at multiples of 32 (fewer where it has fewer blocks of 32 rows;
 * an empty part into one empty chunk), each about an equal share of the rows plus their arcs (what a chunk's
 * passes cost): each sent run is sorted by id, so a chunk's sent values are one run of it per receiver.
 */
async function chunkLayouts(s: RankPart, k: number): Promise<ChunkLayout[]> {
  const b = s.boundary!;
  const { device, offsets } = s.graph;
  const blocks = Math.ceil(s.count / 32);
  // Every 32nd row's first arc, and the part's end, read back once (1/32 of the offsets).
  const firsts = device.array('u32', blocks + 1, { label: 'partitioned pagerank chunk bounds' });
  let edgeOf: Uint32Array;
  try {
    await onTarget(device, 'partitioned pagerank chunk bounds', (rec) =>
      transform(
        rec,
        blocks + 1,
        wgsl`(i: u32) { ${rw(firsts)}[i] = ${offsets}[min(${u32(s.lo)} + 32u * i, ${u32(s.hi)})]; }`,
      ),
    );
    edgeOf = await firsts.download(0, blocks + 1);
  } finally {
    firsts.destroy();
  }
  const cost = (block: number) => edgeOf[block]! - edgeOf[0]! + Math.min(32 * block, s.count);
  const cuts = [0];
  for (let c = 1, block = 0; c < k; c++) {
    while (block < blocks && cost(block) * k < c * cost(blocks)) block++;
    // A block each at least, so a part of `blocks` >= k blocks runs in k chunks even around a hub's block.
    const cut = Math.min(Math.max(block, cuts.at(-1)! + 1), blocks - (k - c));
    if (cut > cuts.at(-1)!) cuts.push(cut);
  }
  cuts.push(blocks);
  const bounds = cuts.map((block) => Math.min(s.hi, s.lo + 32 * block));
  const edgeAt = cuts.map((block) => edgeOf[block]!);
  const chunks: ChunkLayout[] = [];
  try {
    for (let c = 0; c + 1 < bounds.length; c++) {
      const lo = bounds[c]!;
      const hi = bounds[c + 1]!;
      const pieces = b.send.map((run, j) => {
        const first = sentBelow(b, j, lo);
        return { part: run.part, at: run.at + first, count: sentBelow(b, j, hi) - first };
      });
      chunks.push({
        lo,
        hi,
        edge: edgeAt[c]!,
        edges: edgeAt[c + 1]! - edgeAt[c]!,
        pieces,
        offsets: device.array('u32', hi - lo + 1, { label: 'partitioned pagerank chunk offsets' }),
      });
    }
    await onTarget(device, 'partitioned pagerank chunks', async (rec) => {
      for (const c of chunks) {
        await transform(
          rec,
          c.hi - c.lo + 1,
          wgsl`(i: u32) { ${rw(c.offsets)}[i] = ${offsets}[${u32(c.lo)} + i] - ${u32(c.edge)}; }`,
        );
      }
    });
    return chunks;
  } catch (e) {
    for (const c of chunks) c.offsets.destroy();
    throw e;
  }
}

/**
 * One chunk of an iteration (after the first): its rows' remote shares summed, their next ranks and change;
 * then their contributions and dangling ranks, and the sent values among them gathered; the last chunk
 * then reduces the part's totals over every owned row.
 */
async function recordChunk(
  rec: Recorder,
  s: RankPart,
  chunk: RankChunk,
  update: boolean,
  alpha: number,
  n: number,
  convergence: 'relative' | 'l1',
): Promise<void> {
  const count = chunk.hi - chunk.lo;
  if (count > 0) {
    if (update) {
      await recordRemoteRows(rec, s, chunk);
      const sum = wgsl`(v: u32) -> f32 { return ${s.local!}[v] + ${chunk.sums}[v - ${u32(chunk.lo)}]; }`;
      await recordRanks(rec, s, chunk.lo, count, sum, alpha, n, convergence);
    }
    await recordContributions(rec, s, chunk.lo, count);
  }
  const ids = s.boundary!.sendIds;
  for (const piece of chunk.pieces) {
    if (piece.count === 0) continue;
    await transform(
      rec,
      piece.count,
      wgsl`(i: u32) {
  let j = ${u32(piece.at)} + i;
  ${rw(s.sent!)}[j] = ${s.contrib}[${ids}[j]];
}`,
    );
  }
  if (chunk === s.chunks!.at(-1)) await recordTotals(rec, s, update, convergence);
}

/** Storage buffers a segmented reduction's tile binds beside its item functor's (as `neighborhoodReduce`). */
const SEGREDUCE_TILE_BINDINGS = 6;

/**
 * A chunk's rows' shares from remote sources summed into `chunk.sums`: one segmented reduction over the
 * chunk's arcs, or a thread a row where the tile's bindings exceed the device's storage buffers.
 */
async function recordRemoteRows(rec: Recorder, s: RankPart, chunk: RankChunk): Promise<void> {
  const count = chunk.hi - chunk.lo;
  if (chunk.edges === 0) {
    rec.clear(chunk.sums);
    return;
  }
  const share = shareFunctor(s, 'remote');
  const targets = s.graph.chunkedTargets;
  const item = wgsl`(index: u32) -> f32 {
  let k = ${u32(chunk.edge)} + index;
  return ${share}(0u, ${load(targets, 'k')}, k);
}`;
  if (
    SEGREDUCE_TILE_BINDINGS + functorBindingCount(item) <=
    s.graph.device.limits.maxStorageBuffersPerShaderStage
  ) {
    await segmentedReduce(rec, item, chunk.offsets, count, chunk.sums, { count: chunk.edges });
    return;
  }
  const { offsets } = s.graph;
  await transform(
    rec,
    count,
    wgsl`(i: u32) {
  let v = ${u32(chunk.lo)} + i;
  var acc = 0.0;
  let end = ${offsets}[v + 1u];
  for (var k = ${offsets}[v]; k < end; k++) {
    acc += ${share}(0u, ${load(targets, 'k')}, k);
  }
  ${rw(chunk.sums)}[i] = acc;
}`,
    { itemsPerThread: 1 },
  );
}

/** Records the copies of what the host wrote into `s.inbox` to where the iteration reads it. */
async function recordIncoming(rec: Recorder, s: RankPart, parts: RankPart[]): Promise<void> {
  rec.copy(s.inbox, s.global, 1);
  if (s.alone) return;
  if (s.boundary) {
    await recordReceived(rec, s, s.boundary);
    return;
  }
  if (s.partial) {
    rec.copy(s.inbox, s.sums, s.count, 1, s.lo);
    return;
  }
  let at = 1;
  for (const o of parts) {
    if (o === s || o.count === 0) continue;
    rec.copy(s.inbox, s.contrib, o.count, at, o.lo);
    at += o.count;
  }
}

/**
 * With a boundary: the received contributions scattered into `contrib` by their ids (undirected), or the
 * owned sums made from the part's own partial sums plus each sender's, added in part order (directed; a
 * sender's ids are distinct, so each run is one pass without atomics).
 */
async function recordReceived(rec: Recorder, s: RankPart, b: BoundaryLists): Promise<void> {
  const received = s.received!;
  if (s.partial && s.count > 0) rec.copy(s.partial, s.sums, s.count, s.lo, s.lo);
  if (b.recvCount === 0) return;
  rec.copy(s.inbox, received, b.recvCount, 1, 0);
  if (!s.partial) {
    await transform(rec, b.recvCount, wgsl`(i: u32) { ${rw(s.contrib)}[${b.recvIds}[i]] = ${received}[i]; }`);
    return;
  }
  for (const run of b.recv) {
    if (run.count === 0) continue;
    await transform(
      rec,
      run.count,
      wgsl`(i: u32) {
  let j = ${u32(run.at)} + i;
  let v = ${b.recvIds}[j];
  ${rw(s.sums)}[v] = ${s.sums}[v] + ${received}[j];
}`,
    );
  }
}

/**
 * Writes every part's mapped inbox with the dangling total and, from each other part's mapped read-back,
 * the values it sent this part: one copy a pair of parts. Returns the bytes written.
 */
function exchangeBoundary(parts: RankPart[], lists: readonly BoundaryLists[], dangling: number): number {
  let bytes = 0;
  const sent = parts.map((s) => s.outbox.floats);
  parts.forEach((s, q) => {
    const inbox = s.inbox.floats;
    inbox[0] = dangling;
    bytes += 4;
    for (const run of lists[q]!.recv) {
      if (run.count === 0) continue;
      const { at } = sentAt(lists, run.part, q);
      inbox.set(sent[run.part]!.subarray(at, at + run.count), 1 + run.at);
      bytes += 4 * run.count;
    }
  });
  return bytes;
}

/**
 * Writes every part's mapped inbox with what the next iteration reads: the dangling total, and the others'
 * contributions (undirected: slices of their read-backs, copied whole) or its owned vertices' sums of every
 * part's partial sums (directed, added in part order as doubles, so the same f32 whatever the order of
 * reads). Returns the bytes written.
 */
function exchange(parts: RankPart[], dangling: number): number {
  let bytes = 0;
  const shared = parts.map((s) => s.outbox.floats);
  parts.forEach((s, d) => {
    const inbox = s.inbox.floats;
    inbox[0] = dangling;
    bytes += 4;
    if (s.alone) return;
    if (s.partial) {
      for (let v = s.lo; v < s.hi; v++) {
        let total = 0;
        for (const p of shared) total += p[v]!;
        inbox[1 + v - s.lo] = total;
      }
      bytes += s.count * 4;
      return;
    }
    let at = 1;
    parts.forEach((o, from) => {
      if (from === d || o.count === 0) return;
      inbox.set(shared[from]!.subarray(0, o.count), at);
      at += o.count;
      bytes += o.count * 4;
    });
  });
  return bytes;
}
