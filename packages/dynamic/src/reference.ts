/**
 * The semantics of {@link DynamicGraph} in plain TypeScript, one edge at a time (for tests and for users who
 * want to check a GPU graph): per vertex a map target -> value.
 */
export class HostDynamicGraph {
  readonly adjacency: Map<number, number>[] = [];
  readonly alive: boolean[] = [];

  constructor(
    vertexCount: number,
    readonly directed: boolean,
  ) {
    this.insertVertices(Array.from({ length: vertexCount }, (_, v) => v));
  }

  get vertexCount(): number {
    return this.adjacency.length;
  }

  insertVertices(ids: ArrayLike<number>) {
    for (let i = 0; i < ids.length; i++) {
      const v = ids[i]!;
      while (this.adjacency.length <= v) {
        this.adjacency.push(new Map());
        this.alive.push(false);
      }
      this.alive[v] = true;
    }
  }

  /** In batch order, so the last occurrence of an edge (either orientation when undirected) sets its value. */
  insertEdges(src: ArrayLike<number>, dst: ArrayLike<number>, values?: ArrayLike<number>) {
    for (let i = 0; i < src.length; i++) {
      const s = src[i]!;
      const d = dst[i]!;
      if (s === d || !this.alive[s] || !this.alive[d]) continue;
      const value = values?.[i] ?? 0;
      this.adjacency[s]!.set(d, value);
      if (!this.directed) this.adjacency[d]!.set(s, value);
    }
  }

  deleteEdges(src: ArrayLike<number>, dst: ArrayLike<number>) {
    for (let i = 0; i < src.length; i++) {
      const s = src[i]!;
      const d = dst[i]!;
      this.adjacency[s]?.delete(d);
      if (!this.directed) this.adjacency[d]?.delete(s);
    }
  }

  deleteVertices(ids: ArrayLike<number>) {
    const gone = new Set<number>();
    for (let i = 0; i < ids.length; i++) {
      const v = ids[i]!;
      if (this.alive[v]) gone.add(v);
    }
    for (const v of gone) {
      this.adjacency[v]!.clear();
      this.alive[v] = false;
    }
    for (const adj of this.adjacency) for (const v of gone) adj.delete(v);
  }

  degrees(): Uint32Array {
    return Uint32Array.from(this.adjacency, (a) => a.size);
  }

  edgeCount(): number {
    let m = 0;
    for (const a of this.adjacency) m += a.size;
    return m;
  }
}
