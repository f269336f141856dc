// Python `re` semantics on JS: every expectation below is what CPython 3.11's re.findall returns.
import { describe, expect, it } from 'vitest';
import { PyRegex, tryPyRegex } from '../../src/environments/mcqa/python_regex';

describe('PyRegex.findall matches CPython', () => {
  it.each<[string, string, (string | string[])[]]>([
    ['\\d+', 'a١٢b 34', ['١٢', '34']],
    ['\\w+', 'café_1 ß', ['café_1', 'ß']],
    ['\\s+', 'a\u001cb\u3000c\ufeffd', ['\u001c', '\u3000']],
    ['\\bB\\b', 'éB B', ['B']],
    ['^|\\w+', 'foo', ['', 'foo']],
    ['a*', 'baa', ['', 'aa', '']],
    ['x*|b', 'abc', ['', '', 'b', '', '']],
    ['(a)|b', 'ab', ['a', '']],
    ['.', 'a\rb\n', ['a', '\r', 'b']],
    ['(?s).', 'a\nb', ['a', '\n', 'b']],
    ['$', 'ab\n', ['', '']],
    ['(?m)^\\w', 'ab\ncd\r\nef', ['a', 'c', 'e']],
    ['(?m)$', 'a\nb', ['', '']],
    ['[^\\W\\d]+', 'ab12cd_3', ['ab', 'cd_']],
    ['(?P<n>a)(?P=n)', 'aaab', ['a']],
    ['a{,2}', 'aaa', ['aa', 'a', '']],
    ['\\{x\\}', '{x}', ['{x}']],
    ['a{', 'a{', ['a{']],
    ['(?x) a  b # comment c', 'abc ab c', ['ab', 'ab']],
    ['\\101\\x42', 'AB', ['AB']],
    ['[]a]+', ']a]b', [']a]']],
    ['(?i)straße', 'STRASSE straße', ['straße']],
    ['(?i)k', 'K\u212ak', ['K', '\u212a', 'k']],
    ['\\B', '', []],
    ['[\\S\\d]+', 'a 1\tb', ['a', '1', 'b']],
    ['\\Aa|b\\Z', 'ab\nb', ['a', 'b']],
    ['(a*)\\1', 'aaab', ['a', '', '', '']],
    ['(a)(b)?', 'ab a', [['a', 'b'], ['a', '']]],
  ])('re.findall(%j, %j)', (pattern, text, expected) => {
    expect(new PyRegex(pattern).findall(text)).toEqual(expected);
  });

  it('never reports a match between the halves of a surrogate pair', () => {
    expect(new PyRegex('$').findall('a\u{1D7D8}')).toEqual(['']);
    expect(new PyRegex('\\B').findall('\u{1D7D8}\u{1D7D8}')).toEqual(['']);
  });
});

describe('patterns Python rejects (or JS cannot express) compile to null', () => {
  it.each(['(', '[z-a]', '\\q', 'a**', '(?<n>a)', '[\\d-z]', 'a(?i)b', 'a++', '(?-i:b)'])('%j', (pattern) => {
    expect(tryPyRegex(pattern)).toBeNull();
  });
});

describe('search, fullmatch and sub', () => {
  it('behave like re.search, re.fullmatch and re.sub', () => {
    const rx = new PyRegex('(\\d+),(\\d+)');
    expect(rx.search('x 1,234,567')?.groups).toEqual(['1', '234']);
    expect(rx.fullmatch('1,234')?.text).toBe('1,234');
    expect(rx.fullmatch('1,234 ')).toBeNull();
    expect(rx.sub('1,234,567', (m) => m.groups.join(''))).toBe('1234,567');
    expect(new PyRegex('x*').sub('abc', () => '-')).toBe('-a-b-c-');
  });
});
