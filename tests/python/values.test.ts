// Python builtins on JSON-shaped values: every expectation is what CPython 3.11 gives.
import { describe, expect, it } from 'vitest';
import { pySlice, pyIndex } from '../../src/python/sequence';
import { compareCodePoints, pyFormat, pySplit, pySplitlines, pyStrip } from '../../src/python/str';
import { pyCompare, pyEq, pyIn, pyInt, pyRepr, pyStr, truthy, typeName } from '../../src/python/values';

describe('str methods', () => {
  it('strip, split and splitlines use Python whitespace and line breaks', () => {
    expect(pyStrip('\x1c\x85 a b\u3000')).toBe('a b');
    expect(pyStrip('\ufeffa')).toBe('\ufeffa');
    expect(pySplit(' a\x1fb\u2028c ')).toEqual(['a', 'b', 'c']);
    expect(pySplitlines('a\x0bb\r\nc\n')).toEqual(['a', 'b', 'c']);
  });

  it('orders by code point and formats named fields', () => {
    expect(['\uff61', '\u{1F600}'].sort(compareCodePoints)).toEqual(['\uff61', '\u{1F600}']);
    expect(pyFormat('{{x}} {x}', { x: 'y' })).toBe('{x} y');
  });

  it('indexes and slices strs by code point', () => {
    expect(pySlice('a😀b', 1, -1)).toBe('😀');
    expect(pyIndex('😀b', 0)).toBe('😀');
    expect(pySlice([1, 2, 3], -2, 10)).toEqual([2, 3]);
    expect(() => pyIndex([1], 1)).toThrow('list index out of range');
  });
});

describe('builtins', () => {
  it('repr and str', () => {
    expect(pyRepr(["it's", 'a\u200bb\x85', { k: 1.5 }, null, true])).toBe(`["it's", 'a\\u200bb\\x85', {'k': 1.5}, None, True]`);
    expect([pyStr(3), pyStr(0.1), pyStr(1e-5), pyStr(9.999999999999999e-5)]).toEqual(['3', '0.1', '1e-05', '9.999999999999999e-05']);
  });

  it('==, truthiness, ordering, in and int()', () => {
    expect([pyEq(1, true), pyEq(1n, 1.0), pyEq([1, { a: 0 }], [true, { a: false }]), pyEq('1', 1)]).toEqual([true, true, true, false]);
    expect([truthy(0), truthy([]), truthy({}), truthy(new Map()), truthy('0'), truthy(0n)]).toEqual([false, false, false, false, true, false]);
    expect(pyCompare('a', '<', 'b')).toBe(true);
    expect(() => pyCompare('a', '<', 1)).toThrow("'<' not supported between instances of 'str' and 'int'");
    expect(() => pyIn(1, 'abc')).toThrow("'in <string>' requires string as left operand, not int");
    expect(pyInt(' ١٢ ')).toBe(12n);
    expect(() => pyInt('1.5')).toThrow("invalid literal for int() with base 10: '1.5'");
    expect([typeName(1), typeName(1.5), typeName(1, true), typeName(1n)]).toEqual(['int', 'float', 'float', 'int']);
  });
});
