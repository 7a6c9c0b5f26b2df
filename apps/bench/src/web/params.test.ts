import { describe, expect, test } from 'vitest';
import { equivalentCommand, parseQuery, parseSizes, toQuery } from './params.ts';

describe('the bench page parameters', () => {
  test('sizes read as the CLI reads them: log2 up to 40, counts above', () => {
    expect(parseSizes('10, 12')).toEqual([1024, 4096]);
    expect(parseSizes('1000000')).toEqual([1_000_000]);
    expect(parseSizes('')).toEqual([]);
    expect(() => parseSizes('10,x')).toThrow(/'x' is not a size/);
    expect(() => parseSizes('10,,12')).toThrow(/is not a size/);
    expect(() => parseSizes('-3')).toThrow(/is not a size/);
  });

  test('a query string sets every option; absent ones stay for the adapter to choose', () => {
    const o = parseQuery('?suite=primitives&sizes=10,12&repeat=2&warmup=0&cases=copy|lbs&seed=7&autorun=1');
    expect(o).toEqual({
      suites: ['primitives'],
      sizes: [1024, 4096],
      repeat: 2,
      warmupMs: 0,
      cases: 'copy|lbs',
      seed: 7,
      autorun: true,
    });
    expect(parseQuery('')).toEqual({ suites: ['primitives'], sizes: [], seed: 1, autorun: false });
  });

  test('bad parameters are refused with the parameter named', () => {
    expect(() => parseQuery('?suite=nope')).toThrow(/suite: unknown suite 'nope'/);
    expect(() => parseQuery('?repeat=0')).toThrow(/repeat: '0'/);
    expect(() => parseQuery('?repeat=1.5')).toThrow(/repeat/);
    expect(() => parseQuery('?warmup=-1')).toThrow(/warmup/);
    expect(() => parseQuery('?cases=(')).toThrow(SyntaxError);
  });

  test('the query and the CLI command reproduce the options', () => {
    const o = parseQuery('?suite=primitives&sizes=10,1000000&repeat=3&cases=copy|lbs&seed=2');
    expect(toQuery(o)).toBe('?suite=primitives&sizes=10,1000000&repeat=3&cases=copy|lbs&seed=2');
    expect(parseQuery(toQuery(o))).toEqual(o);
    expect(equivalentCommand(o)).toBe(
      "weft bench --suite primitives --sizes 10,1000000 --cases 'copy|lbs' --repeat 3 --seed 2",
    );
  });
});
