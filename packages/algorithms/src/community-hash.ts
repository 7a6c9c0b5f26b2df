import {
  type ArrayCapture,
  atomic,
  type DeviceArray,
  Functor,
  f32,
  type Recorder,
  rw,
  transform,
  u32,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';

/** A level's arcs grouped by source, as local moving reads them. */
export interface HashArcs {
  count: number;
  src: DeviceArray<'u32'>;
  dst: DeviceArray<'u32'>;
  /** Per arc, the weight it adds (default 1, for counts). */
  share?: DeviceArray<'f32'>;
  /** The passes read arcs `[offset, offset + count)` of the arrays (default 0), e.g. one colour class. */
  offset?: number;
}

/** `(i: u32) -> u32`: the arc of a pass's i-th thread. */
const arcAt = (arcs: HashArcs) => wgsl`(i: u32) -> u32 { return i + ${u32(arcs.offset ?? 0)}; }`;

/** `slots[p]` of an arc that adds nothing (a loop, or a vertex not active in the sweep). */
const NO_SLOT = 0xffffffff;
/** Set in `slots[p]` on the one arc per (vertex, community) that inserted the key: it scores and clears the slot. */
const OWNER = 0x80000000;

/**
 * Sums of non-negative f32 values as 64-bit fixed-point numbers in two u32 arrays (low, high words), scaled so
 * that `total` (the largest sum) stays below 2^62. Integer adds commute, so a sum is the same whatever
 * order the atomics land in (deterministic results for a seed), and concurrent adds to one word never retry,
 * unlike a compare-exchange loop on f32 bits, which hubs would serialise.
 */
export class FixedPointSums {
  /** 2^-S, 2^(S-32) and 2^(32-S) for the scale 2^S. */
  readonly #down: number;
  readonly #up: number;
  readonly #inv: number;

  constructor(total: number) {
    const scale = Math.min(120, Math.max(-90, 62 - Math.ceil(Math.log2(Math.max(total, 2 ** -126)))));
    this.#down = 2 ** -scale;
    this.#up = 2 ** (scale - 32);
    this.#inv = 2 ** (32 - scale);
  }

  /** `(i: u32, x: f32)`: adds x to sum i, held in `low[i]` and `high[i]` (both captured atomic). */
  add(low: ArrayCapture, high: ArrayCapture): Functor {
    return wgsl`(i: u32, x: f32) {
  let y = x * ${f32(this.#up)};
  let top = floor(y);
  let bottom = u32((y - top) * 4294967296.0);
  let old = atomicAdd(&${low}[i], bottom);
  let h = u32(top) + select(0u, 1u, old + bottom < old);
  if (h != 0u) { atomicAdd(&${high}[i], h); }
}`;
  }

  /** `(low: u32, high: u32) -> f32`: the value of a sum's two words. */
  get value(): Functor {
    return wgsl`(low: u32, high: u32) -> f32 { return f32(high) * ${f32(this.#inv)} + f32(low) * ${f32(this.#down)}; }`;
  }
}

/**
 * Per-vertex open-addressing hash tables of the weight from each vertex to each neighbouring community,
 * without a sort: vertex v's table is `keys`/`sums[2 rows[v] .. 2 rows[v + 1])`, twice its degree, so it is
 * at most half full and linear probing always ends. Keys are community + 1 (0 is empty), set with a
 * compare-exchange; sums are u32 atomic adds when `total` is not given (unweighted levels: every share is a
 * whole number, so sums are exact), else {@link FixedPointSums} (`sums` the low words, `high` the high
 * ones), so sums never depend on the order of the atomics.
 * One thread per arc, so hubs are balanced like any other vertex. Tables start cleared and
 * {@link recordPick} clears every slot it used, so no sweep pays for a clear.
 */
export class CommunityWeights {
  /** Community + 1 per slot, 0 when empty. */
  readonly keys: DeviceArray<'u32'>;
  /** Per slot: the weight sum (u32, or a fixed-point sum's low word), then the move's gain key after {@link recordScore}. */
  readonly sums: DeviceArray<'u32'>;
  /** Per slot, the fixed-point sum's high word (weighted levels only). */
  readonly high: DeviceArray<'u32'> | undefined;
  /** Per arc: its slot, with {@link OWNER} on the arc that inserted the key; {@link NO_SLOT} for loops and inactive vertices. */
  readonly slots: DeviceArray<'u32'>;
  /** [0] set when a probe ran past its bound (never expected: tables are at most half full). */
  readonly status: DeviceArray<'u32'>;
  readonly #fixed: FixedPointSums | undefined;
  #cleared = false;

  /** Tables for up to `arcCapacity` arcs; `total` (the sum of all shares) for fixed-point sums of f32 shares. */
  constructor(device: WeftDevice, arcCapacity: number, total?: number) {
    this.#fixed = total === undefined ? undefined : new FixedPointSums(total);
    const slots = Math.max(1, 2 * arcCapacity);
    this.keys = device.array('u32', slots, { label: 'community table keys' });
    this.sums = device.array('u32', slots, { label: 'community table sums' });
    this.high = this.#fixed ? device.array('u32', slots, { label: 'community table high sums' }) : undefined;
    this.slots = device.array('u32', Math.max(1, arcCapacity), { label: 'community table slots' });
    this.status = device.array('u32', 1, { label: 'community table status' });
  }

  /**
   * Records the insert pass: every arc (u, v) with u != v (or any, with `loops`) and `active(u)` adds its
   * share to u's slot of community `comm[v]`. `rows[v]` is the first arc of v (arcs grouped by source, `rows`
   * of n + 1 entries), or `rows` is a functor `(v: u32) -> vec2<u32>` giving v's first arc and the end of its
   * arcs. `active` (default: every vertex) skips vertices whose gains the sweep will not use.
   */
  async recordSums(
    rec: Recorder,
    arcs: HashArcs,
    rows: DeviceArray<'u32'> | Functor,
    comm: DeviceArray<'u32'>,
    active: Functor = wgsl`(v: u32) -> bool { return true; }`,
    loops = false,
  ): Promise<void> {
    this.recordClear(rec);
    const sums = atomic(this.sums);
    const rowOf =
      rows instanceof Functor
        ? rows
        : wgsl`(v: u32) -> vec2<u32> { return vec2<u32>(${rows}[v], ${rows}[v + 1u]); }`;
    await transform(
      rec,
      arcs.count,
      wgsl`(i: u32) {
  let p = ${arcAt(arcs)}(i);
  let v = ${arcs.src}[p];
  let u = ${arcs.dst}[p];
  if ((u == v && ${u32(loops ? 0 : 1)} == 1u) || !${active}(v)) {
    ${rw(this.slots)}[p] = ${u32(NO_SLOT)};
    return;
  }
  let row = ${rowOf}(v);
  let t = ${this.probe}(${comm}[u] + 1u, 2u * row.x, 2u * (row.y - row.x));
  ${rw(this.slots)}[p] = t;
  if (t != ${u32(NO_SLOT)}) { ${this.#add(sums, arcs.share)}(t & ${u32(~OWNER >>> 0)}, p); }
}`,
    );
  }

  /** Records the clearing of the tables the first time it is called (every pass leaves them cleared). */
  recordClearOnce(rec: Recorder): void {
    if (this.#cleared) return;
    this.recordClear(rec);
  }

  /**
   * Records the clearing of the tables (and of the status word, the first time). Each pass clears the slots
   * it used, but one slot left set would make later tables fuller than half and their probes run past the
   * bound, so Louvain's passes start from cleared tables.
   */
  recordClear(rec: Recorder): void {
    rec.clear(this.keys);
    rec.clear(this.sums);
    if (this.high) rec.clear(this.high);
    if (!this.#cleared) rec.clear(this.status);
    this.#cleared = true;
  }

  /**
   * `(key: u32, base: u32, size: u32) -> u32`: the slot of `key` (non-zero) in the table of slots
   * `[base, base + size)`, inserted if new (then with the bit 2^31 set), or 0xffffffff (and `status[0]` set)
   * past the probe bound; for kernels that fill tables their own way.
   */
  get probe(): Functor {
    const keys = atomic(this.keys);
    return wgsl`(key: u32, base: u32, size: u32) -> u32 {
  var h = (key - 1u) * 0x9e3779b1u;
  h = (h ^ (h >> 15u)) % size;
  for (var i = 0u; i < size + 16u; i++) {
    var k = atomicLoad(&${keys}[base + h]);
    if (k == 0u) {
      let r = atomicCompareExchangeWeak(&${keys}[base + h], 0u, key);
      if (r.exchanged) { return (base + h) | ${u32(OWNER)}; }
      k = r.old_value;
    }
    if (k == key) { return base + h; }
    if (k != 0u) {
      h = h + 1u;
      if (h == size) { h = 0u; }
    }
  }
  atomicStore(&${atomic(this.status)}[0], 1u);
  return ${u32(NO_SLOT)};
}`;
  }

  /** `(at: u32, p: u32)`: adds arc p's share to slot `at`. */
  #add(sums: ArrayCapture, share: DeviceArray<'f32'> | undefined): Functor {
    if (!share) return wgsl`(at: u32, p: u32) { atomicAdd(&${sums}[at], 1u); }`;
    if (!this.#fixed || !this.high)
      return wgsl`(at: u32, p: u32) { atomicAdd(&${sums}[at], u32(${share}[p])); }`;
    return wgsl`(at: u32, p: u32) { ${this.#fixed.add(sums, atomic(this.high))}(at, ${share}[p]); }`;
  }

  /** `(s: u32) -> f32` over the captured `sums`: slot s's weight sum after {@link recordSums}. */
  #sumAt(sums: ArrayCapture): Functor {
    if (!this.#fixed || !this.high) return wgsl`(s: u32) -> f32 { return f32(${sums}[s]); }`;
    return wgsl`(s: u32) -> f32 { return ${this.#fixed.value}(${sums}[s], ${this.high}[s]); }`;
  }

  /**
   * Records the score pass: on each slot's owner arc, `score(slot, vertex, community)` (a u32 gain key)
   * replaces the slot's sum, for {@link recordPick}.
   */
  async recordScore(rec: Recorder, arcs: HashArcs, score: Functor): Promise<void> {
    const sums = rw(this.sums);
    await transform(
      rec,
      arcs.count,
      wgsl`(i: u32) {
  let p = ${arcAt(arcs)}(i);
  let t = ${this.slots}[p];
  if (t == ${u32(NO_SLOT)} || (t & ${u32(OWNER)}) == 0u) { return; }
  let s = t & ${u32(~OWNER >>> 0)};
  ${sums}[s] = ${score}(${this.#sumAt(sums)}(s), ${arcs.src}[p], ${this.keys}[s] - 1u);
}`,
    );
  }

  /**
   * Records the pick pass: on each slot's owner arc, `pick(gainKey, vertex, community)`, then the slot is
   * cleared for the next sweep.
   */
  async recordPick(rec: Recorder, arcs: HashArcs, pick: Functor): Promise<void> {
    const keys = rw(this.keys);
    const sums = rw(this.sums);
    const clearHigh = this.high ? wgsl`(s: u32) { ${rw(this.high)}[s] = 0u; }` : wgsl`(s: u32) {}`;
    await transform(
      rec,
      arcs.count,
      wgsl`(i: u32) {
  let p = ${arcAt(arcs)}(i);
  let t = ${this.slots}[p];
  if (t == ${u32(NO_SLOT)} || (t & ${u32(OWNER)}) == 0u) { return; }
  let s = t & ${u32(~OWNER >>> 0)};
  ${pick}(${sums}[s], ${arcs.src}[p], ${keys}[s] - 1u);
  ${keys}[s] = 0u;
  ${sums}[s] = 0u;
  ${clearHigh}(s);
}`,
    );
  }

  destroy(): void {
    this.keys.destroy();
    this.sums.destroy();
    this.high?.destroy();
    this.slots.destroy();
    this.status.destroy();
  }
}
