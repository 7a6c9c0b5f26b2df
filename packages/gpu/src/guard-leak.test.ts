import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { testDevice } from '@weft/testing';
import { expect, it } from 'vitest';

// `--expose-gc` set at run time: a fresh context then sees `gc`, so the test needs no worker flags.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

async function heapAfterGc(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return process.memoryUsage().heapUsed;
}

it('keeps the heap flat over many guarded GPU calls', async () => {
  const device = await testDevice();
  const array = device.upload(new Uint32Array([1, 2, 3, 4]));
  try {
    // In concurrent batches: a GPU round trip waits for the engine's device poll (a timer on wgpu in
    // Deno), and a leak is per call however the calls overlap.
    const calls = async (count: number) => {
      for (let i = 0; i < count; i += 100) {
        await Promise.all(
          Array.from({ length: 100 }, (_, j) =>
            Promise.all([device.idle(), device.guard(Promise.resolve(i + j))]),
          ),
        );
      }
      await array.download();
    };
    await calls(2000);
    const before = await heapAfterGc();
    await calls(20000);
    const after = await heapAfterGc();
    // A leak of a raced promise per call would keep several MB here; GC noise stays well below 1 MB.
    expect(after - before).toBeLessThan(1_000_000);
  } finally {
    array.destroy();
  }
}, 60_000);
