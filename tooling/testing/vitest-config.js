// Plain JavaScript: Vitest loads config files with Node, which cannot import TypeScript from node_modules.

/**
 * Vitest settings shared by every package: one forked worker at a time, because each test file owns a
 * WebGPU device on a software adapter that already uses every core.
 * @returns {import('vitest/config').ViteUserConfig}
 */
export function weftTestConfig() {
  return {
    test: {
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      pool: 'forks',
      fileParallelism: false,
      testTimeout: 300_000,
      hookTimeout: 120_000,
    },
  };
}
