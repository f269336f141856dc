// Python's json module on JS: every expectation is what CPython 3.11's json.loads / json.dumps gives.
import { describe, expect, it } from 'vitest';
import { jsonDumps, jsonLoads, jsonLoadsPlain } from '../../src/python/json';
import { typeName } from '../../src/python/values';

describe('json.loads', () => {
  it('keeps ints and floats apart and reads NaN and the infinities', () => {
    const value = jsonLoads('{"i": 1, "f": 1.0, "e": 1e2, "big": 123456789012345678901234567890, "n": NaN, "m": -Infinity}');
    expect(value).toBeInstanceOf(Map);
    const map = value as Map<string, unknown>;
    expect(['i', 'f', 'e', 'big'].map((k) => typeName(map.get(k), true))).toEqual(['int', 'float', 'float', 'int']);
    expect(map.get('big')).toBe(123456789012345678901234567890n);
    expect(map.get('n')).toBeNaN();
    expect(jsonLoadsPlain('{"a": [1, 2.5, "\\ud83d\\ude00"], "b": Infinity}')).toEqual({ a: [1, 2.5, '😀'], b: Infinity });
  });

  it.each([
    ['', 'Expecting value: line 1 column 1 (char 0)'],
    ['{"a":1,}', 'Expecting property name enclosed in double quotes: line 1 column 8 (char 7)'],
    ['[1,]', 'Expecting value: line 1 column 4 (char 3)'],
    ['{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"],
    ['[1 2]', "Expecting ',' delimiter: line 1 column 4 (char 3)"],
    ['"abc', 'Unterminated string starting at: line 1 column 1 (char 0)'],
    ['"a\\q"', 'Invalid \\escape: line 1 column 3 (char 2)'],
    ['"\\u1234', 'Invalid \\uXXXX escape: line 1 column 3 (char 2)'],
    ['"a\x01"', 'Invalid control character at: line 1 column 3 (char 2)'],
    ['1 2', 'Extra data: line 1 column 3 (char 2)'],
    ['\ufeff1', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
    [' \n [1,\n 2,,]', 'Expecting value: line 3 column 4 (char 10)'],
    ['["😀", x]', 'Expecting value: line 1 column 7 (char 6)'],
  ])('json.loads(%j) raises JSONDecodeError', (text, message) => {
    expect(() => jsonLoads(text)).toThrow(expect.objectContaining({ kind: 'JSONDecodeError', name: 'JSONDecodeError', message }));
  });
});

describe('json.dumps', () => {
  it('writes ensure_ascii text with sorted keys and Python number forms', () => {
    const value = { b: 'é<tag>&', a: ['😀', 1, 1.5, 1e-7, Number.NaN, true, null] };
    expect(jsonDumps(value, { sortKeys: true })).toBe('{"a": ["\\ud83d\\ude00", 1, 1.5, 1e-07, NaN, true, null], "b": "\\u00e9<tag>&"}');
  });

  it('prints json.loads floats as floats', () => {
    expect(jsonDumps(jsonLoads('[1, 1.0, 1e16, -0.0]'), { numbersAreFloats: true })).toBe('[1, 1.0, 1e+16, -0.0]');
  });
});
