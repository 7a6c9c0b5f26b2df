import { InputError } from '@weft/gpu';
import { expect } from 'vitest';

/**
 * Expects `parse` to throw an InputError whose message matches `message`, whether the input arrives one byte at a
 * time or in one chunk.
 */
export async function expectRejected(
  parse: (chunkSize: number) => Promise<unknown>,
  message: RegExp,
): Promise<void> {
  for (const chunk of [1, 1 << 20]) {
    const err = await parse(chunk).catch((e: unknown) => e);
    expect(err, `chunks of ${chunk}`).toBeInstanceOf(InputError);
    expect((err as Error).message).toMatch(message);
  }
}
