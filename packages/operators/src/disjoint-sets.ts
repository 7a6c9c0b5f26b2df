import {
  atomic,
  checkOptionsObject,
  type DeviceArray,
  type Functor,
  lit,
  rw,
  type Target,
  transform,
  type WeftDevice,
  wgsl,
} from '@weft/gpu';

/**
 * Failed compare-exchanges one `union` call tolerates before it gives up and raises the "did not finish"
 * flag: WebGPU promises no forward progress, so no loop may spin without bound.
 */
export const UNION_MAX_RETRIES = 1 << 16;

export interface DisjointSetsOptions {
  /** The parent array to use (at least `size` elements), e.g. an algorithm's label array; default a new one. */
  parents?: DeviceArray<'u32'>;
  label?: string;
}

/**
 * A GPU union-find (ECL-CC's): `parents[v]` is `v`'s parent, a root is its own parent and the smallest element
 * of its set, and every parent is smaller than its child. Kernels compose the WGSL functors `find()` and
 * `union()`; the recorded batch operations cover the common passes. Lock-free on 32-bit atomics.
 */
export class DisjointSets {
  readonly parents: DeviceArray<'u32'>;
  /** Word 0 is nonzero once a `union` gave up after `UNION_MAX_RETRIES` failed exchanges. */
  readonly status: DeviceArray<'u32'>;
  readonly #ownsParents: boolean;
  #find: Functor | undefined;
  #union: Functor | undefined;

  constructor(
    readonly device: WeftDevice,
    readonly size: number,
    options: DisjointSetsOptions = {},
  ) {
    checkOptionsObject('new DisjointSets', options);
    const label = options.label ?? 'disjoint sets';
    this.#ownsParents = options.parents === undefined;
    this.parents = options.parents ?? device.array('u32', Math.max(1, size), { label: `${label} parents` });
    this.status = device.array('u32', 1, { label: `${label} status` });
    this.status.upload([0]);
  }

  /**
   * `(v: u32) -> u32`: `v`'s root, halving the path on the way. Parents are smaller than children and only
   * decrease, so pointing `x` at its grandparent keeps every element in its tree while others link.
   */
  find(): Functor {
    const p = atomic(this.parents);
    this.#find ??= wgsl`(v: u32) -> u32 {
  var x = v;
  loop {
    let p = atomicLoad(&${p}[x]);
    if (p == x) { break; }
    let g = atomicLoad(&${p}[p]);
    if (g < p) { atomicMin(&${p}[x], g); }
    x = g;
  }
  return x;
}`;
    return this.#find;
  }

  /**
   * `(a: u32, b: u32) -> bool`: joins the sets of `a` and `b`, hooking the larger root under the smaller with
   * a compare-exchange; true when this call linked two sets (false when they were already one). A failed
   * exchange means another invocation linked that root, so the retries are bounded and lock-free.
   */
  union(): Functor {
    this.#union ??= this.unionWith(wgsl`(root: u32, u: u32, v: u32) {}`);
    return this.#union;
  }

  /**
   * `(u: u32, v: u32) -> bool`: {@link union}, also running `hook(root: u32, u: u32, v: u32)` once each time
   * it links two sets, right after the exchange that hooked `root` (the larger root) succeeded: e.g. to
   * record the edge `u -> v` that hooked it. Failed exchanges and unions of one set run no hook.
   */
  unionWith(hook: Functor): Functor {
    const p = atomic(this.parents);
    const find = this.find();
    return wgsl`(u: u32, v: u32) -> bool {
  var a = ${find}(u);
  var b = ${find}(v);
  for (var retry = 0u; retry < ${lit(`${UNION_MAX_RETRIES}u`)}; retry++) {
    if (a == b) { return false; }
    if (a > b) {
      let t = a;
      a = b;
      b = t;
    }
    // Hook the larger root under the smaller, so every root stays its tree's smallest element.
    let r = atomicCompareExchangeWeak(&${p}[b], b, a);
    if (r.exchanged) {
      ${hook}(b, u, v);
      return true;
    }
    // Another invocation hooked b (or the exchange failed spuriously): find both roots again.
    b = ${find}(r.old_value);
    a = ${find}(a);
  }
  atomicStore(&${atomic(this.status)}[0], 1u);
  return false;
}`;
  }

  /** Records every element as its own set (and clears the "did not finish" flag). */
  async recordReset(target: Target): Promise<void> {
    await transform(target, this.size, wgsl`(v: u32) { ${rw(this.parents)}[v] = v; }`);
    await transform(target, 1, wgsl`(i: u32) { ${rw(this.status)}[i] = 0u; }`);
  }

  /** Records `union(p.x, p.y)` for `p = pairOf(i)`, `i` in `0 .. count`. */
  async recordUnion(target: Target, count: number, pairOf: Functor): Promise<void> {
    await transform(target, count, wgsl`(i: u32) { let p = ${pairOf}(i); ${this.union()}(p.x, p.y); }`);
  }

  /** Records every element pointing at its root, so `parents` holds each element's set label. */
  async recordCompress(target: Target): Promise<void> {
    await transform(
      target,
      this.size,
      wgsl`(v: u32) { atomicStore(&${atomic(this.parents)}[v], ${this.find()}(v)); }`,
    );
  }

  /** Each element's root (the smallest element of its set), following parents on the host. */
  async labels(): Promise<Uint32Array> {
    if (this.size === 0) return new Uint32Array(0);
    const labels = await this.parents.download(0, this.size);
    for (let v = 0; v < labels.length; v++) labels[v] = labels[labels[v]!]!;
    return labels;
  }

  /** The roots in increasing order: one element per set. */
  async roots(): Promise<Uint32Array> {
    const labels = await this.labels();
    return Uint32Array.from(labels.keys()).filter((v) => labels[v] === v);
  }

  /** True when no `union` gave up since the last reset. */
  async finished(): Promise<boolean> {
    return (await this.status.download())[0] === 0;
  }

  destroy(): void {
    if (this.#ownsParents) this.parents.destroy();
    this.status.destroy();
  }
}
