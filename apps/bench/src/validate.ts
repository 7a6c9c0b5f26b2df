/** Null when the arrays are equal, else a message naming the first differing element. */
export function firstMismatch(actual: ArrayLike<number>, expected: ArrayLike<number>): string | null {
  if (actual.length !== expected.length) return `length ${actual.length}, expected ${expected.length}`;
  for (let i = 0; i < expected.length; i++) {
    if (actual[i] !== expected[i] && !(Number.isNaN(actual[i]) && Number.isNaN(expected[i]))) {
      return `element ${i} is ${actual[i]}, expected ${expected[i]}`;
    }
  }
  return null;
}

/**
 * PageRank (unweighted, damping `alpha`), checked without a reference run: ranks sum to 1 and one
 * power-iteration step from them, in f64, moves no vertex by more than `relTolerance` of its rank (the GPU
 * stops once no rank moves by 1e-5 relative; the margin is for f32 sums over hub vertices' lists).
 * `arcs(visit)` calls `visit(u, v)` for every arc; `outDegree` counts them per vertex.
 */
export async function pageRankStepError(
  ranks: Float32Array,
  outDegree: (v: number) => number,
  arcs: (visit: (u: number, v: number) => void) => Promise<void> | void,
  alpha = 0.85,
  relTolerance = 1e-3,
): Promise<string | null> {
  const n = ranks.length;
  let total = 0;
  let dangling = 0;
  const share = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    total += ranks[v]!;
    const d = outDegree(v);
    if (d === 0) dangling += ranks[v]!;
    else share[v] = ranks[v]! / d;
  }
  if (n > 0 && Math.abs(total - 1) > 1e-3) return `ranks sum to ${total}, expected 1`;
  const sums = new Float64Array(n);
  await arcs((u, v) => {
    sums[v] = sums[v]! + share[u]!;
  });
  for (let v = 0; v < n; v++) {
    const next = (1 - alpha) / n + alpha * (sums[v]! + dangling / n);
    if (!(Math.abs(next - ranks[v]!) <= relTolerance * next)) {
      return `rank of vertex ${v} is ${ranks[v]}, one more iteration gives ${next} (relative tolerance ${relTolerance})`;
    }
  }
  return null;
}
