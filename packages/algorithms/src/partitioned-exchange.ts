import {
  atomic,
  type DeviceArray,
  type Functor,
  InputError,
  onTarget,
  plus,
  type Recorder,
  rw,
  StagingBuffer,
  type StagingMode,
  type SubmitResult,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';
import { transformScanTo } from '@weft/scan';

/**
 * Runs `run` on every part at once, so each device waits on its own work rather than after the others',
 * then throws the error of the first part (in part order) that failed.
 */
export async function onEveryPart<T>(items: readonly T[], run: (item: T) => Promise<unknown>): Promise<void> {
  const settled = await Promise.allSettled(items.map(run));
  for (const s of settled) if (s.status === 'rejected') throw s.reason;
}

/**
 * Where a partitioned run's wall time went, from host timestamps around its waits (milliseconds, summed
 * over the run; a step that runs on every part at once counts from its start to the last part's end).
 */
export interface PartitionedTiming {
  /** Before the first round: allocations, resets and (PageRank) the boundary id lists and chunk layouts,
   * which a first call on a graph makes and later ones find kept on it. */
  setupMs: number;
  /** From a submit until its work is done: GPU compute, and the copies to and from staging buffers unless
   * the run was asked for a `breakdown` (which times them alone, with waits of their own). */
  computeMs: number;
  /** Device to host: mapping (or downloading) what came back once the work is done; with a breakdown, the
   * copy into the staging buffers too. */
  readbackMs: number;
  /** The host's own work between steps: merging, ORing, copying from one mapped range to another. */
  hostMs: number;
  /** Host to device: unmapping and writing uploads; with a breakdown, the copies out of the staging buffers
   * on the devices too. */
  uploadMs: number;
  /** After the last round: the result read back from the devices and assembled on the host. */
  resultMs: number;
}

export type TimingPhase = keyof PartitionedTiming;

/** With `profile`: one kernel's GPU time on one part, summed over the run (timestamps around each dispatch). */
export interface PartitionedKernelTime {
  part: number;
  /** The kernel's label, as `weft-profile` prints it. */
  label: string;
  calls: number;
  ms: number;
}

/** Sums submits' per-dispatch GPU times by part and kernel label. */
export class KernelTimes {
  readonly #rows = new Map<string, PartitionedKernelTime>();

  add(part: number, dispatches: SubmitResult['dispatchNs']): void {
    for (const { label, ns } of dispatches ?? []) {
      const key = `${part}\u0000${label}`;
      const row = this.#rows.get(key) ?? { part, label, calls: 0, ms: 0 };
      row.calls++;
      row.ms += ns / 1e6;
      this.#rows.set(key, row);
    }
  }

  /** By part, then the most time first. */
  get rows(): PartitionedKernelTime[] {
    return [...this.#rows.values()].sort((a, b) => a.part - b.part || b.ms - a.ms);
  }
}

/** Sums host-timed spans into a {@link PartitionedTiming}: `performance.now()` calls only, no waits. */
export class PhaseClock {
  readonly timing: PartitionedTiming = {
    setupMs: 0,
    computeMs: 0,
    readbackMs: 0,
    hostMs: 0,
    uploadMs: 0,
    resultMs: 0,
  };
  #last = performance.now();

  /** Charges the time since the last mark to `phase`. */
  mark(phase: TimingPhase): void {
    const now = performance.now();
    this.timing[phase] += now - this.#last;
    this.#last = now;
  }

  /**
   * Runs `step` on every part at once (as {@link onEveryPart}, so the first failing part's error is thrown):
   * the time until the last part calls `done()` goes to `first`, the rest to `then`.
   */
  async parts<T>(
    items: readonly T[],
    first: TimingPhase,
    then: TimingPhase,
    step: (item: T, index: number, done: () => void) => Promise<unknown>,
  ): Promise<void> {
    const start = this.#last;
    let done = start;
    await onEveryPart(
      items.map((item, i) => ({ item, i })),
      ({ item, i }) => step(item, i, () => (done = Math.max(done, performance.now()))),
    );
    const now = performance.now();
    // A part that never called done() did all its work in `first`.
    if (done === start) done = now;
    this.timing[first] += done - start;
    this.timing[then] += now - done;
    this.#last = now;
  }
}

/**
 * Staging buffers that runs on one graph borrow and give back, by device, mode and length: a second run
 * allocates none (a large mapped-at-creation buffer costs milliseconds to make), and runs at once each get
 * their own. A read buffer comes back unmapped; a write one unmapped too (map it before writing).
 */
export class StagingPool {
  readonly #free = new Map<WeftDevice, Map<string, StagingBuffer[]>>();
  #closed = false;

  take(device: WeftDevice, length: number, mode: StagingMode, label: string): StagingBuffer {
    const kept = this.#free.get(device)?.get(`${mode} ${length}`)?.pop();
    return kept ?? new StagingBuffer(device, length, mode, label);
  }

  /** Keeps `b` for a later run (destroys it once the pool is destroyed); unmapped, with no map pending. */
  give(b: StagingBuffer): void {
    if (this.#closed) {
      b.destroy();
      return;
    }
    b.unmap();
    let byKey = this.#free.get(b.device);
    if (!byKey) {
      byKey = new Map();
      this.#free.set(b.device, byKey);
    }
    const key = `${b.mode} ${b.length}`;
    byKey.set(key, [...(byKey.get(key) ?? []), b]);
  }

  destroy(): void {
    this.#closed = true;
    for (const byKey of this.#free.values())
      for (const list of byKey.values()) for (const b of list) b.destroy();
    this.#free.clear();
  }
}

/** Changed pairs read back with their count in one download; more take a second one. */
const BOX_PAIRS = 2048;

/**
 * What one part's round changed, as read back, in whichever form has the fewest words: `count` (id, value)
 * pairs; a bitmap of the changed entries then their `count` values in id order (`bits`: the bitmap's
 * `ceil(n / 32)` words, then the values); or its whole vector (`full`, then `count` is the vector's length).
 */
export interface MinChanges {
  pairs?: Uint32Array;
  bits?: Uint32Array;
  full?: Uint32Array;
  count: number;
}

/**
 * How a round's changes may cross the host: `'compact'` (default) in the fewest words of its three forms
 * ((id, value) pairs, a changed bitmap with the values, the whole vector); `'pairs'` as pairs, or the whole
 * vector past `n / 2` changes (no bitmaps), to compare.
 */
export type MinExchangeForm = 'compact' | 'pairs';

export function checkExchangeForm(form: MinExchangeForm | undefined): MinExchangeForm {
  if (form === undefined || form === 'compact' || form === 'pairs') return form ?? 'compact';
  throw new InputError(`exchange must be 'compact' or 'pairs', got '${form}'`, 'exchange');
}

/** Whether `changes` may touch an entry in `[lo, hi)` (a whole vector always may). */
export function touches(changes: readonly MinChanges[], lo: number, hi: number): boolean {
  for (const { pairs, bits, full } of changes) {
    if (full) return true;
    if (pairs) for (let i = 0; i < pairs.length; i += 2) if (pairs[i]! >= lo && pairs[i]! < hi) return true;
    if (bits) {
      // Words hold 32 entries: the range's first and last words may hold entries outside it.
      for (let w = lo >>> 5; w < Math.ceil(hi / 32); w++) {
        const word = bits[w]!;
        if (word === 0) continue;
        for (let v = Math.max(lo, 32 * w); v < Math.min(hi, 32 * w + 32); v++) {
          if ((word >>> (v & 31)) & 1) return true;
        }
      }
    }
  }
  return false;
}

/** The uploads {@link MinExchangePart.stage} made, for {@link MinExchangePart.recordApply} to merge. */
interface StagedChanges {
  pairs: number;
  /** The last whole vector or bitmap uploaded, to merge (those before it were merged already). */
  dense: 'full' | 'bits' | undefined;
}

/**
 * One device's side of a min-merge of a u32 vector that every device holds whole (labels, distance words):
 * the values as of the last exchange, the changed entries compacted as (id, value) pairs, and what the other
 * parts changed, uploaded to be min-merged on the device.
 */
export class MinExchangePart {
  readonly before: DeviceArray<'u32'>;
  readonly pairs: DeviceArray<'u32'>;
  readonly count: DeviceArray<'u32'>;
  /** The other parts' pairs, concatenated (grown to fit a round's). */
  incoming: DeviceArray<'u32'>;
  /** Another part's whole vector, made where one comes. */
  incomingFull: DeviceArray<'u32'> | undefined;
  /** Another part's changed bitmap and values, made (and grown) where one comes. */
  incomingBits: DeviceArray<'u32'> | undefined;
  /** Which entries changed since the last exchange: a bit each, set with the pairs. */
  readonly changed: DeviceArray<'u32'>;
  readonly words: number;
  /** The count and the first pairs, read back in one download where few entries changed. */
  readonly box: DeviceArray<'u32'>;
  /** Pairs the box holds. */
  readonly boxPairs: number;
  readonly pairCapacity: number;

  constructor(
    readonly device: WeftDevice,
    readonly values: DeviceArray<'u32'>,
    readonly vertexCount: number,
    readonly label: string,
    readonly form: MinExchangeForm = 'compact',
  ) {
    const n = Math.max(1, vertexCount);
    this.words = Math.ceil(vertexCount / 32);
    this.changed = device.array('u32', Math.max(1, this.words), { label: `${label} changed bits` });
    this.before = device.array('u32', n, { label: `${label} before` });
    // Past n / 2 pairs the whole vector is smaller: the pairs stop there (and the vector is read instead).
    this.pairCapacity = Math.max(1, Math.floor(n / 2));
    this.pairs = device.array('u32', 2 * this.pairCapacity, { label: `${label} changed pairs` });
    this.count = device.array('u32', 1, { label: `${label} changed count` });
    this.boxPairs = Math.min(this.pairCapacity, BOX_PAIRS);
    this.incoming = device.array('u32', 2 * this.boxPairs, { label: `${label} incoming` });
    this.box = device.array('u32', 1 + 2 * this.boxPairs, { label: `${label} read-back` });
  }

  /** Records `before = values` (the state every device starts a run from). */
  async recordStart(rec: Recorder): Promise<void> {
    rec.copy(this.values, this.before);
  }

  /** Records the compaction of the entries that changed since the last exchange (and `before` caught up). */
  async recordChanges(rec: Recorder): Promise<void> {
    rec.clear(this.count);
    rec.clear(this.changed);
    const compact = wgsl`(v: u32, x: u32) {
  atomicOr(&${atomic(this.changed)}[v >> 5u], 1u << (v & 31u));
  let slot = atomicAdd(&${atomic(this.count)}[0], 1u);
  if (slot >= ${u32(this.pairCapacity)}) { return; }
  ${rw(this.pairs)}[2u * slot] = v;
  ${rw(this.pairs)}[2u * slot + 1u] = x;
}`;
    await transform(rec, this.vertexCount, this.#catchUp(compact));
    rec.copy(this.count, this.box, 1);
    rec.copy(this.pairs, this.box, 2 * this.boxPairs, 0, 1);
  }

  /** `(v: u32)`: where `values[v]` differs from `before[v]`, sets `before[v]` to it, then `changed(v, x)`. */
  #catchUp(changed: Functor): Functor {
    return wgsl`(v: u32) {
  let x = ${this.values}[v];
  if (x == ${this.before}[v]) { return; }
  ${rw(this.before)}[v] = x;
  ${changed}(v, x);
}`;
  }

  /**
   * The changes, from `box` as read back with the submit of {@link recordChanges}: its pairs, or else
   * whichever of the pairs counted, the changed bitmap with the values, or the whole vector has the fewest
   * words. Returns them and the bytes read.
   */
  async readChanges(box: Uint32Array): Promise<MinChanges & { bytes: number }> {
    const count = box[0]!;
    const bytes = box.byteLength;
    if (count <= this.boxPairs) return { pairs: box.subarray(1, 1 + 2 * count), count, bytes };
    const n = this.vertexCount;
    const pairWords = count <= this.pairCapacity ? 2 * count : Infinity;
    // The bitmap and the values are gathered into the pairs' array, so they must fit it.
    const bitWords =
      this.form === 'compact' && this.words + count <= this.pairs.length ? this.words + count : Infinity;
    if (pairWords <= bitWords && pairWords <= n) {
      return { pairs: await this.pairs.download(0, 2 * count), count, bytes: bytes + 8 * count };
    }
    if (bitWords < n) {
      const rec = this.device.recorder({ label: `${this.label} changed values` });
      await onTarget(rec, `${this.label} changed values`, (r) => this.#recordChangedValues(r));
      await rec.submit({ wait: false });
      const bits = await this.pairs.download(0, bitWords);
      return { bits, count, bytes: bytes + 4 * bitWords };
    }
    return { full: await this.values.download(0, n), count: n, bytes: bytes + 4 * n };
  }

  /** pairs = the changed bitmap, then the changed entries' values in id order. */
  async #recordChangedValues(rec: Recorder): Promise<void> {
    const words = this.words;
    rec.copy(this.changed, this.pairs, words);
    await transformScanTo(
      rec,
      words,
      wgsl`(w: u32) -> u32 { return countOneBits(${this.changed}[w]); }`,
      wgsl`(w: u32, k: u32, c: u32) {
  var left = ${this.changed}[w];
  var j = ${u32(words)} + k;
  while (left != 0u) {
    ${rw(this.pairs)}[j] = ${this.values}[w * 32u + weft_trailing_zeros(left)];
    j++;
    left &= left - 1u;
  }
}`,
      { monoid: plus('u32') },
    );
  }

  /**
   * Uploads the other parts' `changes` (their pairs one after another), to be merged by the next
   * {@link recordApply}; every whole vector but the last is merged now, in a submit of its own (they share
   * one array). Returns the bytes written.
   */
  async stage(changes: readonly MinChanges[]): Promise<{ staged: StagedChanges; bytes: number }> {
    let pairs = 0;
    for (const c of changes) if (c.pairs) pairs += c.count;
    if (2 * pairs > this.incoming.length) {
      const words = Math.max(2 * pairs, Math.min(2 * this.incoming.length, 2 * this.pairCapacity));
      this.incoming.destroy();
      this.incoming = this.device.array('u32', words, { label: `${this.label} incoming` });
    }
    let at = 0;
    let bytes = 0;
    for (const c of changes) {
      if (!c.pairs || c.count === 0) continue;
      this.incoming.upload(c.pairs, at);
      at += c.pairs.length;
      bytes += c.pairs.byteLength;
    }
    const dense = changes.filter((c) => c.full || c.bits);
    let last: StagedChanges['dense'];
    for (const [k, c] of dense.entries()) {
      if (c.full) {
        this.incomingFull ??= this.device.array('u32', this.vertexCount, {
          label: `${this.label} incoming whole`,
        });
        this.incomingFull.upload(c.full);
        bytes += c.full.byteLength;
        last = 'full';
      } else {
        const bits = c.bits!;
        if ((this.incomingBits?.length ?? 0) < bits.length) {
          this.incomingBits?.destroy();
          this.incomingBits = this.device.array('u32', bits.length, { label: `${this.label} incoming bits` });
        }
        this.incomingBits!.upload(bits);
        bytes += bits.byteLength;
        last = 'bits';
      }
      if (k < dense.length - 1) {
        const form = last;
        await onTarget(this.device, `${this.label} merge`, (rec) => this.#recordMinDense(rec, form));
      }
    }
    return { staged: { pairs, dense: last }, bytes };
  }

  async #recordMinDense(rec: Recorder, form: 'full' | 'bits'): Promise<void> {
    if (form === 'full') await this.#recordMinFull(rec);
    else await this.#recordMinBits(rec);
  }

  /** values = min(values, the incoming values) at the incoming bitmap's entries. */
  async #recordMinBits(rec: Recorder): Promise<void> {
    const words = this.words;
    const bits = this.incomingBits!;
    await transformScanTo(
      rec,
      words,
      wgsl`(w: u32) -> u32 { return countOneBits(${bits}[w]); }`,
      wgsl`(w: u32, k: u32, c: u32) {
  var left = ${bits}[w];
  var j = ${u32(words)} + k;
  while (left != 0u) {
    let v = w * 32u + weft_trailing_zeros(left);
    let x = ${bits}[j];
    if (x < ${this.values}[v]) { ${rw(this.values)}[v] = x; }
    j++;
    left &= left - 1u;
  }
}`,
      { monoid: plus('u32') },
    );
  }

  async #recordMinFull(rec: Recorder): Promise<void> {
    await transform(
      rec,
      this.vertexCount,
      wgsl`(v: u32) {
  let x = ${this.incomingFull!}[v];
  if (x < ${this.values}[v]) { ${rw(this.values)}[v] = x; }
}`,
    );
  }

  /**
   * Records `values[v] = min(values[v], incoming value)` for what {@link stage} uploaded, then `before`
   * caught up; `lowered(v)` runs once for each `v` whose value dropped.
   */
  async recordApply(rec: Recorder, staged: StagedChanges, lowered: Functor): Promise<void> {
    if (staged.dense) await this.#recordMinDense(rec, staged.dense);
    if (staged.pairs > 0) {
      await transform(
        rec,
        staged.pairs,
        wgsl`(i: u32) {
  atomicMin(&${atomic(this.values)}[${this.incoming}[2u * i]], ${this.incoming}[2u * i + 1u]);
}`,
      );
    }
    if (staged.dense) {
      await transform(rec, this.vertexCount, this.#catchUp(wgsl`(v: u32, x: u32) { ${lowered}(v); }`));
    } else if (staged.pairs > 0) {
      // Several parts may send the same entry: the exchange lets one of them call `lowered`.
      await transform(
        rec,
        staged.pairs,
        wgsl`(i: u32) {
  let v = ${this.incoming}[2u * i];
  let x = ${this.values}[v];
  if (atomicExchange(&${atomic(this.before)}[v], x) != x) { ${lowered}(v); }
}`,
      );
    }
  }

  destroy(): void {
    for (const a of [
      this.before,
      this.pairs,
      this.count,
      this.incoming,
      this.box,
      this.incomingFull,
      this.incomingBits,
      this.changed,
    ]) {
      a?.destroy();
    }
  }
}

/**
 * Rounds of `local` work on every part, each followed by a min-merge of the changed entries, until a round
 * changes nothing anywhere. Each part's changes come back as (id, value) pairs, a changed bitmap with the
 * values, or its whole vector, whichever is smallest (`MinChanges`); the host writes every part the
 * others' changes as they came, and the part min-merges them on
 * its device at the start of its next round, so every device ends a round holding the same vector and the
 * host never walks it. `local(part, incoming, rec)` gets the other parts' changes of the last round
 * (undefined in the first) and a recorder that holds their merge: it records its work there (or submits
 * `rec` and runs its own), and returns the recorder that the compaction of its changes goes into, or
 * undefined where it did nothing (then `rec` is submitted alone). `lowered(part)` is a functor `(v: u32)`
 * run once on a part where the merge lowered `v`. A round costs a part one submit and wait, merge, work and
 * changes together (`local` adds its own), and a second read-back only where more pairs changed than the
 * first holds. The merged vector stays on the devices: read it from any part's `values`. The rounds' time
 * is charged to `clock` (a caller's, to time its setup and result on the same clock).
 */
export async function minMergeRounds(
  parts: readonly MinExchangePart[],
  local: (
    part: number,
    incoming: readonly MinChanges[] | undefined,
    rec: Recorder,
  ) => Promise<Recorder | undefined>,
  lowered: (part: number) => Functor,
  clock: PhaseClock = new PhaseClock(),
): Promise<{ rounds: number; exchangedBytes: number; timing: PartitionedTiming }> {
  let bytes = 0;
  let last: MinChanges[] | undefined;
  for (let round = 1; ; round++) {
    const incoming = parts.map((_, i) => last?.filter((c, j) => j !== i && c.count > 0));
    const staged: (StagedChanges | undefined)[] = [];
    await onEveryPart(
      parts.map((p, i) => ({ p, i })),
      async ({ p, i }) => {
        const got = incoming[i];
        if (!got || got.length === 0) return;
        const s = await p.stage(got);
        staged[i] = s.staged;
        bytes += s.bytes;
      },
    );
    clock.mark('uploadMs');
    const reports: MinChanges[] = [];
    await clock.parts(parts, 'computeMs', 'readbackMs', async (p, i, done) => {
      const rec = p.device.recorder({ label: 'min-merge round' });
      const s = staged[i];
      if (s) await onTarget(rec, 'min-merge apply', (r) => p.recordApply(r, s, lowered(i)));
      const changes = await local(i, incoming[i], rec);
      if (!changes) {
        await rec.submit();
        done();
        reports[i] = { count: 0 };
        return;
      }
      await onTarget(changes, 'min-merge changes', (r) => p.recordChanges(r));
      const { downloaded } = await changes.submit({ download: p.box });
      done();
      const { bytes: read, ...got } = await p.readChanges(downloaded);
      bytes += read;
      reports[i] = got;
    });
    if (reports.every((r) => r.count === 0))
      return { rounds: round, exchangedBytes: bytes, timing: clock.timing };
    last = reports;
  }
}
