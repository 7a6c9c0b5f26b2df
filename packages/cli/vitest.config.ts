import { weftTestConfig } from '@weft/testing/vitest';
import { defineConfig } from 'vitest/config';

export default defineConfig(weftTestConfig());
