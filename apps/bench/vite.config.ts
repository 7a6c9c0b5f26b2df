import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const src = fileURLToPath(new URL('./src/web/', import.meta.url));

/**
 * The bench's browser page: `web/index.html`, whose script is `src/web/main.ts` (reached through the
 * `/@weft-bench/` alias, since it lies outside the page's root). Built into `dist/web`.
 */
export default defineConfig({
  root: 'web',
  base: './',
  resolve: { alias: [{ find: /^\/@weft-bench\//, replacement: src }] },
  server: { fs: { allow: ['../..'] } },
  // `webgpu` is Dawn for Node: @weft/gpu imports it by a variable name only when navigator.gpu is absent.
  optimizeDeps: { exclude: ['webgpu'] },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: { external: ['webgpu'] },
  },
});
