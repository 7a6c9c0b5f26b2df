/**
 * WGSL text: `count` copies of `body(k)`, k a literal (`0u`, `1u`, ...), each in its own block. Kernels use
 * it for per-thread arrays (`var keys: array<u32, 16>`) so that they are only ever indexed by literals and
 * stay in registers: an array indexed by a loop variable that the driver does not unroll is kept in memory
 * (docs/decisions/unrolled-per-thread-arrays.md).
 */
export function unrolled(count: number, body: (k: string) => string): string {
  return Array.from({ length: count }, (_, k) => `  {${body(`${k}u`)}\n  }`).join('\n');
}
