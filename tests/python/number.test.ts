// Python's float()/int() parsing and repr(float): every expectation is what CPython 3.11 returns.
import { describe, expect, it } from 'vitest';
import { pyFloat, pyFloatRepr, pyIntFromString } from '../../src/python/number';

describe("Python's float() and repr()", () => {
  it.each([
    ['1', '1.0'],
    [' 1e3 ', '1000.0'],
    ['1_000', '1000.0'],
    ['.5', '0.5'],
    ['5.', '5.0'],
    ['-0', '-0.0'],
    ['1e16', '1e+16'],
    ['1e15', '1000000000000000.0'],
    ['0.0001', '0.0001'],
    ['0.00001', '1e-05'],
    ['1.5e-7', '1.5e-07'],
    ['-Infinity', '-inf'],
    ['NaN', 'nan'],
    ['١٢٣', '123.0'],
  ])('float(%j) → %s', (text, repr) => {
    expect(pyFloatRepr(pyFloat(text)!)).toBe(repr);
  });

  it.each(['', '.', '1__0', '_1', '1e', '0x10', '1,000'])('float(%j) raises', (text) => {
    expect(pyFloat(text)).toBeNull();
  });
});

describe("Python's int() on a str", () => {
  it.each<[string, bigint]>([
    ['7', 7n],
    [' -12 ', -12n],
    ['+1_000', 1000n],
    ['١٢٣', 123n],
    ['0012', 12n],
    ['-0', 0n],
    ['123456789012345678901234567890', 123456789012345678901234567890n],
  ])('int(%j) → %s', (text, value) => {
    expect(pyIntFromString(text)).toBe(value);
  });

  it.each(['', '1.0', '1__0', '_1', '1_', '0x10', '1e3', '+-1', 'ⅷ'])('int(%j) raises', (text) => {
    expect(pyIntFromString(text)).toBeNull();
  });
});
