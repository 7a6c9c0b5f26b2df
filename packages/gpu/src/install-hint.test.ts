import { describe, expect, it } from 'vitest';
import { installHint } from './device.ts';

describe('installHint', () => {
  it('names the package manager that runs the process', () => {
    expect(installHint('webgpu', 'npm/10.8.2 node/v20.19.0 linux x64 workspaces/false')).toBe(
      "install it with 'npm install webgpu'",
    );
    expect(installHint('webgpu', 'pnpm/10.34.9 npm/? node/v20.19.0 linux x64')).toBe(
      "install it with 'pnpm add webgpu'",
    );
    expect(installHint('webgpu', 'yarn/4.5.0 npm/? node/v20.19.0 linux x64')).toBe(
      "install it with 'yarn add webgpu'",
    );
    expect(installHint('webgpu', 'bun/1.2.0 npm/? node/v22.6.0 linux x64')).toBe(
      "install it with 'bun add webgpu'",
    );
  });

  it("falls back to npm's command, marked as one choice, when the manager is unknown", () => {
    const neutral = "install it with 'npm install webgpu' (or your package manager's equivalent)";
    expect(installHint('webgpu', undefined)).toBe(neutral);
    expect(installHint('webgpu', '')).toBe(neutral);
    expect(installHint('webgpu', 'deno/2.1.0 npm/? deno/2.1.0 linux x86_64')).toBe(neutral);
  });
});
