import { describe, expect, it } from 'vitest';
import {
  checkMaxIterations,
  checkOptionsObject,
  checkTolerance,
  distanceOverflowError,
  InputError,
} from './index.ts';

/** The InputError message `check` throws, or undefined when it accepts. */
function refusal(check: () => void): string | undefined {
  try {
    check();
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
}

describe('checkOptionsObject', () => {
  it('accepts an object or nothing, and names the function for anything else', () => {
    for (const ok of [undefined, {}, { a: 1 }, Object.create(null)]) {
      expect(refusal(() => checkOptionsObject('bfs', ok))).toBeUndefined();
    }
    const bad: [unknown, string][] = [
      [null, 'null'],
      [[], 'an array'],
      [5, 'a number'],
      ['fast', 'a string'],
      [true, 'a boolean'],
      [() => ({}), 'a function'],
    ];
    for (const [value, got] of bad) {
      expect(refusal(() => checkOptionsObject('bfs', value))).toBe(
        `options: bfs takes an options object (or none), got ${got}`,
      );
    }
  });
});

describe('checkMaxIterations', () => {
  it('integers >= 0 always, Infinity only where asked, nothing else', () => {
    for (const infinite of [false, true]) {
      for (const ok of [0, 1, 7, 2 ** 40])
        expect(refusal(() => checkMaxIterations(ok, infinite))).toBeUndefined();
      for (const bad of [-1, 1.5, Number.NaN, Number.NEGATIVE_INFINITY, -0.5]) {
        const range = infinite ? 'an integer >= 0 or Infinity' : 'an integer >= 0';
        expect(refusal(() => checkMaxIterations(bad, infinite))).toBe(
          `maxIterations: maxIterations must be ${range}, got ${bad}`,
        );
      }
    }
    expect(refusal(() => checkMaxIterations(Number.POSITIVE_INFINITY, true))).toBeUndefined();
    expect(refusal(() => checkMaxIterations(Number.POSITIVE_INFINITY, false))).toBe(
      'maxIterations: maxIterations must be an integer >= 0, got Infinity',
    );
    expect(refusal(() => checkMaxIterations(-1, false, 'DynamicSssp options'))).toMatch(
      /^DynamicSssp options: /,
    );
  });
});

describe('checkTolerance', () => {
  it('finite numbers >= 0 only', () => {
    for (const ok of [0, 1e-9, 0.5, 1e30]) expect(refusal(() => checkTolerance(ok))).toBeUndefined();
    for (const bad of [Number.POSITIVE_INFINITY, Number.NaN, -1e-9, Number.NEGATIVE_INFINITY]) {
      expect(refusal(() => checkTolerance(bad))).toBe(
        `tolerance: tolerance must be a finite number >= 0, got ${bad}`,
      );
    }
  });
});

describe('distanceOverflowError', () => {
  it('names the vertex and the bound of its encoding', () => {
    expect(distanceOverflowError(false, 3).message).toBe(
      'graph.weights: the distance of vertex 3 reached 2^32 - 2 (4294967294), the bound of u32 distances: ' +
        'scale the weights down',
    );
    expect(distanceOverflowError(true, 0).message).toMatch(
      /vertex 0 reached the largest finite f32 .* f32 distances/,
    );
  });
});
