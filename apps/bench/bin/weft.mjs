#!/usr/bin/env node
// The `weft` command: runs the TypeScript sources through tsx (the GPU machine runs the esbuild bundle instead).
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
