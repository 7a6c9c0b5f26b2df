/** An append-only typed array that doubles its storage; `finish()` returns an exact-length copy. */
export class Growable<A extends Uint32Array | Int32Array | Float32Array | Float64Array> {
  #data: A;
  length = 0;

  constructor(
    readonly make: (n: number) => A,
    capacity = 1024,
  ) {
    this.#data = make(Math.max(16, capacity));
  }

  push(v: number): void {
    if (this.length === this.#data.length) {
      const bigger = this.make(this.#data.length * 2);
      bigger.set(this.#data);
      this.#data = bigger;
    }
    this.#data[this.length++] = v;
  }

  /** An exact-length array (the storage itself when it is already exact). */
  finish(): A {
    if (this.length === this.#data.length) return this.#data;
    return this.#data.slice(0, this.length) as A;
  }
}

/** Initial capacity for a count read from a file: trusted only up to a bound, so a bogus header cannot exhaust memory. */
export function capacityHint(claimed: number): number {
  return Math.min(Math.max(claimed, 16), 1 << 20);
}
