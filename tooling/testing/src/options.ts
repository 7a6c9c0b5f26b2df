import { InputError } from '@weft/gpu';
import { expect } from 'vitest';

/** A public function taking an options object: its name in errors, and a call passing `options` on. */
export type OptionsCall = readonly [name: string, call: (options: never) => unknown];

/** What JavaScript callers can pass where an options object belongs, and how the error names each. */
const NOT_OBJECTS: readonly [unknown, string][] = [
  [null, 'null'],
  [7, 'a number'],
  ['fast', 'a string'],
  [[], 'an array'],
];

/**
 * Expects each call, given `null`, a number, a string or an array for its options (or none, where they are
 * `required`), to throw or reject with the one-line `InputError` that names its function (and not a
 * TypeError from reading a property).
 */
export async function expectOptionsRefused(calls: readonly OptionsCall[], required = false): Promise<void> {
  const values: readonly [unknown, string][] = required
    ? [[undefined, 'undefined'], ...NOT_OBJECTS]
    : NOT_OBJECTS;
  const accepted = required ? 'an options object' : 'an options object (or none)';
  for (const [name, call] of calls) {
    for (const [value, got] of values) {
      let error: unknown;
      try {
        await call(value as never);
      } catch (e) {
        error = e;
      }
      const what = `${name}(..., ${got})`;
      expect(error, what).toBeInstanceOf(InputError);
      expect((error as Error).message, what).toBe(`options: ${name} takes ${accepted}, got ${got}`);
    }
  }
}
