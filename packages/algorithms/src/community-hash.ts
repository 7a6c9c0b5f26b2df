import {
  type ArrayCapture,
  atomic,
  type DeviceArray,
  type Functor,
  lit,
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
  share: DeviceArray<'f32'>;
}

/** `slots[p]` of an arc that adds nothing (a loop). */
const NO_SLOT = 0xffffffff;
/** Set in `slots[p]` on the one arc per (vertex, community) that inserted the key: it scores and clears the slot. */
const OWNER = 0x80000000;

/**
 * Per-vertex open-addressing hash tables of the weight from each vertex to each neighbouring community,
 * without a sort: vertex v's table is `keys`/`sums[2 rows[v] .. 2 rows[v + 1])`, twice its degree, so it is
 * at most half full and linear probing always ends. Keys are community + 1 (0 is empty), set with a
 * compare-exchange; sums are u32 atomic adds when `integral` (unweighted levels: every share is a whole
 * number, so sums are exact and independent of order) and a compare-exchange loop on f32 bits otherwise.
 * One thread per arc, so hubs are balanced like any other vertex. Tables start cleared and
 * {@link recordPick} clears every slot it used, so no sweep pays for a clear.
 */
export class CommunityWeights {
  /** Community + 1 per slot, 0 when empty. */
  readonly keys: DeviceArray<'u32'>;
  /** Per slot: the weight sum (u32 when integral, else f32 bits), then the move's gain key after {@link recordScore}. */
  readonly sums: DeviceArray<'u32'>;
  /** Per arc: its slot, with {@link OWNER} on the arc that inserted the key; {@link NO_SLOT} for loops. */
  readonly slots: DeviceArray<'u32'>;
  /** [0] set when a probe or an add ran past its bound (never expected: tables are at most half full). */
  readonly status: DeviceArray<'u32'>;
  #cleared = false;

  constructor(
    device: WeftDevice,
    arcCapacity: number,
    readonly integral: boolean,
  ) {
    this.keys = device.array('u32', Math.max(1, 2 * arcCapacity), { label: 'community table keys' });
    this.sums = device.array('u32', Math.max(1, 2 * arcCapacity), { label: 'community table sums' });
    this.slots = device.array('u32', Math.max(1, arcCapacity), { label: 'community table slots' });
    this.status = device.array('u32', 1, { label: 'community table status' });
  }

  /**
   * Records the insert pass: every arc (u, v) with u != v adds its share to u's slot of community
   * `comm[v]`. `rows[v]` is the first arc of v (arcs grouped by source, `rows` of n + 1 entries).
   */
  async recordSums(
    rec: Recorder,
    arcs: HashArcs,
    rows: DeviceArray<'u32'>,
    comm: DeviceArray<'u32'>,
  ): Promise<void> {
    if (!this.#cleared) {
      rec.clear(this.keys);
      rec.clear(this.sums);
      rec.clear(this.status);
      this.#cleared = true;
    }
    const keys = atomic(this.keys);
    const sums = atomic(this.sums);
    const status = atomic(this.status);
    await transform(
      rec,
      arcs.count,
      wgsl`(p: u32) {
  let v = ${arcs.src}[p];
  let u = ${arcs.dst}[p];
  if (u == v) {
    ${rw(this.slots)}[p] = ${u32(NO_SLOT)};
    return;
  }
  let c = ${comm}[u];
  let key = c + 1u;
  let first = ${rows}[v];
  let size = 2u * (${rows}[v + 1u] - first);
  let base = 2u * first;
  var h = c * 0x9e3779b1u;
  h = (h ^ (h >> 15u)) % size;
  var at = ${u32(NO_SLOT)};
  var owner = 0u;
  for (var i = 0u; i < size + 16u; i++) {
    var k = atomicLoad(&${keys}[base + h]);
    if (k == 0u) {
      let r = atomicCompareExchangeWeak(&${keys}[base + h], 0u, key);
      if (r.exchanged) {
        at = base + h;
        owner = ${u32(OWNER)};
        break;
      }
      k = r.old_value;
    }
    if (k == key) {
      at = base + h;
      break;
    }
    if (k != 0u) {
      h = h + 1u;
      if (h == size) { h = 0u; }
    }
  }
  if (at == ${u32(NO_SLOT)}) {
    atomicStore(&${status}[0], 1u);
    ${rw(this.slots)}[p] = ${u32(NO_SLOT)};
    return;
  }
  ${rw(this.slots)}[p] = at | owner;
  ${this.#add(sums, status, arcs.share)}(at, p, size);
}`,
    );
  }

  /** `(at: u32, p: u32, size: u32)`: adds arc p's share to slot `at`. */
  #add(sums: ArrayCapture, status: ArrayCapture, share: DeviceArray<'f32'>): Functor {
    if (this.integral) {
      return wgsl`(at: u32, p: u32, size: u32) { atomicAdd(&${sums}[at], u32(${share}[p])); }`;
    }
    return wgsl`(at: u32, p: u32, size: u32) {
  let x = ${share}[p];
  var old = atomicLoad(&${sums}[at]);
  var done = false;
  for (var i = 0u; i < size + 16u; i++) {
    let r = atomicCompareExchangeWeak(&${sums}[at], old, bitcast<u32>(bitcast<f32>(old) + x));
    if (r.exchanged) {
      done = true;
      break;
    }
    old = r.old_value;
  }
  if (!done) { atomicStore(&${status}[0], 1u); }
}`;
  }

  /** `(bits: u32) -> f32`: a slot's weight sum from its word after {@link recordSums}. */
  get sumOf(): Functor {
    return wgsl`(bits: u32) -> f32 { return ${lit(this.integral ? 'f32' : 'bitcast<f32>')}(bits); }`;
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
      wgsl`(p: u32) {
  let t = ${this.slots}[p];
  if (t == ${u32(NO_SLOT)} || (t & ${u32(OWNER)}) == 0u) { return; }
  let s = t & ${u32(~OWNER >>> 0)};
  ${sums}[s] = ${score}(${this.sumOf}(${sums}[s]), ${arcs.src}[p], ${this.keys}[s] - 1u);
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
    await transform(
      rec,
      arcs.count,
      wgsl`(p: u32) {
  let t = ${this.slots}[p];
  if (t == ${u32(NO_SLOT)} || (t & ${u32(OWNER)}) == 0u) { return; }
  let s = t & ${u32(~OWNER >>> 0)};
  ${pick}(${sums}[s], ${arcs.src}[p], ${keys}[s] - 1u);
  ${keys}[s] = 0u;
  ${sums}[s] = 0u;
}`,
    );
  }

  destroy(): void {
    this.keys.destroy();
    this.sums.destroy();
    this.slots.destroy();
    this.status.destroy();
  }
}
