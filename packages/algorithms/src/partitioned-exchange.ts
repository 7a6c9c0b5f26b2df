import {
  atomic,
  type DeviceArray,
  type Functor,
  onTarget,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';

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
}

export type TimingPhase = keyof PartitionedTiming;

/** Sums host-timed spans into a {@link PartitionedTiming}: `performance.now()` calls only, no waits. */
export class PhaseClock {
  readonly timing: PartitionedTiming = { computeMs: 0, readbackMs: 0, hostMs: 0, uploadMs: 0 };
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

/** Changed pairs read back with their count in one download; more take a second one. */
const BOX_PAIRS = 2048;

/**
 * What one part's round changed, as read back: `count` (id, value) pairs, or its whole vector (`full`, then
 * `count` is the vector's length) where more entries changed than half the vector, whose words then are fewer.
 */
export interface MinChanges {
  pairs?: Uint32Array;
  full?: Uint32Array;
  count: number;
}

/** Whether `changes` may touch an entry in `[lo, hi)` (a whole vector always may). */
export function touches(changes: readonly MinChanges[], lo: number, hi: number): boolean {
  for (const { pairs, full } of changes) {
    if (full) return true;
    if (pairs) for (let i = 0; i < pairs.length; i += 2) if (pairs[i]! >= lo && pairs[i]! < hi) return true;
  }
  return false;
}

/** The uploads {@link MinExchangePart.stage} made, for {@link MinExchangePart.recordApply} to merge. */
interface StagedChanges {
  pairs: number;
  full: boolean;
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
  ) {
    const n = Math.max(1, vertexCount);
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
    const compact = wgsl`(v: u32, x: u32) {
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
   * The changes, from `box` as read back with the submit of {@link recordChanges}: its pairs, exactly the
   * pairs counted where more than it holds, or the whole vector past the pairs' capacity. Returns them and
   * the bytes read.
   */
  async readChanges(box: Uint32Array): Promise<MinChanges & { bytes: number }> {
    const count = box[0]!;
    const bytes = box.byteLength;
    if (count <= this.boxPairs) return { pairs: box.subarray(1, 1 + 2 * count), count, bytes };
    if (count <= this.pairCapacity) {
      return { pairs: await this.pairs.download(0, 2 * count), count, bytes: bytes + 8 * count };
    }
    const n = this.vertexCount;
    return { full: await this.values.download(0, n), count: n, bytes: bytes + 4 * n };
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
    const fulls = changes.filter((c) => c.full);
    for (const [k, c] of fulls.entries()) {
      this.incomingFull ??= this.device.array('u32', this.vertexCount, {
        label: `${this.label} incoming whole`,
      });
      this.incomingFull.upload(c.full!);
      bytes += c.full!.byteLength;
      if (k < fulls.length - 1) {
        await onTarget(this.device, `${this.label} merge`, (rec) => this.#recordMinFull(rec));
      }
    }
    return { staged: { pairs, full: fulls.length > 0 }, bytes };
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
    if (staged.full) await this.#recordMinFull(rec);
    if (staged.pairs > 0) {
      await transform(
        rec,
        staged.pairs,
        wgsl`(i: u32) {
  atomicMin(&${atomic(this.values)}[${this.incoming}[2u * i]], ${this.incoming}[2u * i + 1u]);
}`,
      );
    }
    if (staged.full) {
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
    for (const a of [this.before, this.pairs, this.count, this.incoming, this.box, this.incomingFull]) {
      a?.destroy();
    }
  }
}

/**
 * Rounds of `local` work on every part, each followed by a min-merge of the changed entries, until a round
 * changes nothing anywhere. Each part's changes come back as (id, value) pairs (its whole vector where most
 * changed); the host writes every part the others' changes as they came, and the part min-merges them on
 * its device at the start of its next round, so every device ends a round holding the same vector and the
 * host never walks it. `local(part, incoming, rec)` gets the other parts' changes of the last round
 * (undefined in the first) and a recorder that holds their merge: it records its work there (or submits
 * `rec` and runs its own), and returns the recorder that the compaction of its changes goes into, or
 * undefined where it did nothing (then `rec` is submitted alone). `lowered(part)` is a functor `(v: u32)`
 * run once on a part where the merge lowered `v`. A round costs a part one submit and wait, merge, work and
 * changes together (`local` adds its own), and a second read-back only where more pairs changed than the
 * first holds. The merged vector stays on the devices: read it from any part's `values`.
 */
export async function minMergeRounds(
  parts: readonly MinExchangePart[],
  local: (
    part: number,
    incoming: readonly MinChanges[] | undefined,
    rec: Recorder,
  ) => Promise<Recorder | undefined>,
  lowered: (part: number) => Functor,
): Promise<{ rounds: number; exchangedBytes: number; timing: PartitionedTiming }> {
  let bytes = 0;
  let last: MinChanges[] | undefined;
  const clock = new PhaseClock();
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
