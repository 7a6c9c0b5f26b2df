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
const BOX_PAIRS = 256;

/**
 * One device's side of a min-merge of a u32 vector that every device holds whole (labels, distance words):
 * the values as of the last exchange, the changed entries compacted as (id, value) pairs, and what came in.
 */
export class MinExchangePart {
  readonly before: DeviceArray<'u32'>;
  readonly pairs: DeviceArray<'u32'>;
  readonly count: DeviceArray<'u32'>;
  readonly incoming: DeviceArray<'u32'>;
  /** The count and the first pairs, read back in one download where few entries changed. */
  readonly box: DeviceArray<'u32'>;
  /** Pairs the box holds. */
  readonly boxPairs: number;
  readonly pairCapacity: number;

  constructor(
    readonly device: WeftDevice,
    readonly values: DeviceArray<'u32'>,
    readonly vertexCount: number,
    label: string,
  ) {
    const n = Math.max(1, vertexCount);
    this.before = device.array('u32', n, { label: `${label} before` });
    // Past n / 2 pairs the whole vector is smaller: the pairs stop there (and the vector is read instead).
    this.pairCapacity = Math.max(1, Math.floor(n / 2));
    this.pairs = device.array('u32', 2 * this.pairCapacity, { label: `${label} changed pairs` });
    this.count = device.array('u32', 1, { label: `${label} changed count` });
    this.incoming = device.array('u32', n, { label: `${label} incoming` });
    this.boxPairs = Math.min(this.pairCapacity, BOX_PAIRS);
    this.box = device.array('u32', 1 + 2 * this.boxPairs, { label: `${label} read-back` });
  }

  /** Records `before = values` (the state every device starts a run from). */
  async recordStart(rec: Recorder): Promise<void> {
    rec.copy(this.values, this.before);
  }

  /** Records the compaction of the entries that changed since the last exchange (and `before` caught up). */
  async recordChanges(rec: Recorder): Promise<void> {
    rec.clear(this.count);
    await transform(
      rec,
      this.vertexCount,
      wgsl`(v: u32) {
  let x = ${this.values}[v];
  if (x == ${this.before}[v]) { return; }
  ${rw(this.before)}[v] = x;
  let slot = atomicAdd(&${atomic(this.count)}[0], 1u);
  if (slot >= ${u32(this.pairCapacity)}) { return; }
  ${rw(this.pairs)}[2u * slot] = v;
  ${rw(this.pairs)}[2u * slot + 1u] = x;
}`,
    );
    rec.copy(this.count, this.box, 1);
    rec.copy(this.pairs, this.box, 2 * this.boxPairs, 0, 1);
  }

  /**
   * The changes, from `box` as read back with the submit of {@link recordChanges}: its pairs, more pairs
   * while they are fewer than half the vector's words, else the whole vector (then `full`). Returns what
   * was read and its bytes.
   */
  async readChanges(box: Uint32Array): Promise<{ pairs?: Uint32Array; full?: Uint32Array; bytes: number }> {
    const changed = box[0]!;
    const bytes = box.byteLength;
    if (changed <= this.boxPairs) return { pairs: box.subarray(1, 1 + 2 * changed), bytes };
    if (2 * changed < this.vertexCount) {
      return { pairs: await this.pairs.download(0, 2 * changed), bytes: bytes + 8 * changed };
    }
    return { full: await this.values.download(0, this.vertexCount), bytes: bytes + 4 * this.vertexCount };
  }

  /**
   * Records `values[v] = min(values[v], incoming value)` for the uploaded entries (`changed` pairs, or the
   * whole vector when `changed` is undefined), `before` alike; `lowered(v)` runs where the value dropped.
   */
  async recordApply(rec: Recorder, changed: number | undefined, lowered: Functor): Promise<void> {
    const entry =
      changed === undefined
        ? wgsl`(i: u32) -> vec2<u32> { return vec2<u32>(i, ${this.incoming}[i]); }`
        : wgsl`(i: u32) -> vec2<u32> { return vec2<u32>(${this.incoming}[2u * i], ${this.incoming}[2u * i + 1u]); }`;
    const count = changed ?? this.vertexCount;
    if (count === 0) return;
    await transform(
      rec,
      count,
      wgsl`(i: u32) {
  let e = ${entry}(i);
  let old = ${this.values}[e.x];
  let x = min(old, e.y);
  ${rw(this.values)}[e.x] = x;
  ${rw(this.before)}[e.x] = x;
  if (x < old) { ${lowered}(e.x); }
}`,
    );
  }

  destroy(): void {
    for (const a of [this.before, this.pairs, this.count, this.incoming, this.box]) a.destroy();
  }
}

/**
 * Rounds of `local` work on every part, each followed by a min-merge of the changed entries through the
 * host, until a round changes nothing anywhere. `global` starts as every device's vector and ends as the
 * merged one. `local(part, lowered, rec)` gets the entries the last merge lowered (undefined in the first
 * round) and a recorder that holds the last merge's writes: it records its work there (or submits `rec`
 * and runs its own), and returns the recorder that the compaction of its changes goes into, or undefined
 * where it did nothing (then `rec` is submitted alone). `lowered(part)` is a functor `(v: u32)` run on a
 * part where a merge lowered `v`. A round costs a part one submit and wait for its merge, work and changes
 * together (`local` adds its own), and a second read-back only where more entries changed than the first
 * holds.
 */
export async function minMergeRounds(
  parts: readonly MinExchangePart[],
  global: Uint32Array,
  local: (part: number, lowered: Uint32Array | undefined, rec: Recorder) => Promise<Recorder | undefined>,
  lowered: (part: number) => Functor,
): Promise<{ rounds: number; exchangedBytes: number; timing: PartitionedTiming }> {
  const n = global.length;
  // The round in which each entry last changed plus one, so a changed entry is listed once.
  const stamp = new Uint32Array(n);
  // Typed, not a JS array: a round may change more entries than V8 lets an array hold (2^27 at scale 27).
  const list = new Uint32Array(n);
  let bytes = 0;
  let last: Uint32Array | undefined;
  // The last merge, written to every device by the next round's submit: the whole vector or (id, value) pairs.
  let merged: { data: Uint32Array; count: number | undefined } | undefined;
  const clock = new PhaseClock();
  for (let round = 1; ; round++) {
    const reports: { pairs?: Uint32Array; full?: Uint32Array; bytes: number }[] = [];
    // The merge's upload goes with the work (writeBuffer copies it at once): it counts as compute.
    await clock.parts(parts, 'computeMs', 'readbackMs', async (p, i, done) => {
      const rec = p.device.recorder({ label: 'min-merge round' });
      if (merged) {
        p.incoming.upload(merged.data);
        await onTarget(rec, 'min-merge apply', (r) => p.recordApply(r, merged!.count, lowered(i)));
      }
      const changes = await local(i, last, rec);
      if (!changes) {
        await rec.submit();
        done();
        reports[i] = { pairs: new Uint32Array(0), bytes: 0 };
        return;
      }
      await onTarget(changes, 'min-merge changes', (r) => p.recordChanges(r));
      const { downloaded } = await changes.submit({ download: p.box });
      done();
      reports[i] = await p.readChanges(downloaded);
    });
    let count = 0;
    const lower = (v: number, x: number) => {
      global[v] = x;
      if (stamp[v] !== round) {
        stamp[v] = round;
        list[count++] = v;
      }
    };
    for (const r of reports) {
      bytes += r.bytes;
      // The test inline, the rare write in a call: the loops stay tight over a whole vector.
      const { pairs, full } = r;
      if (pairs) {
        for (let i = 0; i < pairs.length; i += 2)
          if (pairs[i + 1]! < global[pairs[i]!]!) lower(pairs[i]!, pairs[i + 1]!);
      }
      if (full) for (let v = 0; v < n; v++) if (full[v]! < global[v]!) lower(v, full[v]!);
    }
    clock.mark('hostMs');
    if (count === 0) return { rounds: round, exchangedBytes: bytes, timing: clock.timing };
    const changed = list.subarray(0, count);
    last = changed;
    const whole = 2 * count >= n;
    const data = whole ? global : new Uint32Array(2 * count);
    if (!whole)
      for (let i = 0; i < count; i++) {
        data[2 * i] = changed[i]!;
        data[2 * i + 1] = global[changed[i]!]!;
      }
    merged = { data, count: whole ? undefined : count };
    bytes += data.byteLength * parts.length;
    clock.mark('hostMs');
  }
}
