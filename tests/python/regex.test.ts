// Python `re` semantics on JS: every expectation below is what CPython 3.11 returns (re.findall, or the
// re.error message).
import { describe, expect, it } from 'vitest';
import { pyCompile, pyCount, PyRegex, pyRegExp, pySearch, tryPyRegex } from '../../src/python/regex';

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
    [
      '(a)(b)?',
      'ab a',
      [
        ['a', 'b'],
        ['a', ''],
      ],
    ],
    ['a++', 'aaa', ['aaa']],
    ['a++a', 'aaa', []],
    ['(?>a|ab)c', 'abc ac', ['ac']],
    ['(?-i:b)', 'bB', ['b']],
    ['(?i)(?-i:\\d)x', '1X', ['1X']],
    ['(?<!a)', 'xa\u{1F600}', ['', '', '']],
  ])('re.findall(%j, %j)', (pattern, text, expected) => {
    expect(new PyRegex(pattern).findall(text)).toEqual(expected);
  });

  it('never reports a match between the halves of a surrogate pair', () => {
    expect(new PyRegex('$').findall('a\u{1D7D8}')).toEqual(['']);
    expect(new PyRegex('\\B').findall('\u{1D7D8}\u{1D7D8}')).toEqual(['']);
  });
});

// V8 lets a pattern that starts with a look-around match between the halves of a surrogate pair:
// /(?![\s\S])/u finds two ends in "a𝟘". instruction_following's old translator wrote Python's `$`, `\Z`
// and `^` as such look-arounds, so its counts could exceed Python's on astral text.
describe('surrogate pairs (regression: the start/end anchors instruction_following counts with)', () => {
  const text = 'a\u{1D7D8}';
  it.each([
    ['$', ''],
    ['\\Z', ''],
    ['(?!.)', 's'],
    ['\\Z|^', ''],
  ])('re.findall(%j) counts as Python does', (pattern, flags) => {
    expect(pyCount(pattern, text, flags)).toBe(pattern === '\\Z|^' ? 2 : 1);
  });

  it('the plain RegExp form writes the anchors without look-arounds', () => {
    expect([...text.matchAll(pyRegExp('$'))].map((m) => m.index)).toEqual([3]);
    expect([...text.matchAll(pyRegExp('\\Z'))].map((m) => m.index)).toEqual([3]);
    expect([...'\u{1D7D8}b'.matchAll(pyRegExp('^'))].map((m) => m.index)).toEqual([0]);
  });

  it('search and finditer do not start inside a pair', () => {
    expect(pySearch('(?<!\\ud835)\\udfd8', text)).toBe(false);
    expect([...new PyRegex('(?<!a)').matches('xa\u{1F600}')].map((m) => m.start)).toEqual([0, 1, 4]);
  });
});

describe('patterns Python rejects (or JS cannot express) compile to null', () => {
  it.each(['(', '[z-a]', '\\q', 'a**', '(?<n>a)', '[\\d-z]', 'a(?i)b', '(?<=a+)b', '(a)(?(1)b|c)', '(?i:a)'])('%j', (pattern) => {
    expect(tryPyRegex(pattern)).toBeNull();
  });

  it('a case-sensitive scope in a case-insensitive pattern', () => {
    expect(tryPyRegex('(?-i:b)', 'i')).toBeNull();
    expect(tryPyRegex('(?-i:\\d)', 'i')).not.toBeNull();
  });
});

describe("re.error carries Python's message", () => {
  it.each([
    ['*x', 'nothing to repeat at position 0'],
    ['[abc', 'unterminated character set at position 0'],
    ['a\n(', 'missing ), unterminated subpattern at position 2 (line 2, column 1)'],
    ['(?<=a+)b', 'look-behind requires fixed-width pattern'],
    ['ab**', 'multiple repeat at position 3'],
    ['\\q', 'bad escape \\q at position 0'],
    ['(?P<1>a)', "bad character in group name '1' at position 4"],
    ['x{2,1}', 'min repeat greater than max repeat at position 2'],
    ['a)', 'unbalanced parenthesis at position 1'],
    ['(?i', 'missing -, : or ) at position 3'],
    ['(?P=n)', "unknown group name 'n' at position 4"],
    ['(a)\\2', 'invalid group reference 2 at position 4'],
    ['(?<n>a)', 'unknown extension ?<n at position 1'],
    ['a(?i)b', 'global flags not at the start of the expression at position 1'],
  ])('re.compile(%j)', (pattern, message) => {
    expect(() => new PyRegex(pattern)).toThrow(expect.objectContaining({ kind: 're.error', message }));
  });
});

describe('re.compile on a tool argument (pandas str.contains with case=False)', () => {
  it('searches case-insensitively and raises what Python raises', () => {
    expect(pyCompile('(?P<w>sync) up$', 'i').search('Team sync up')).not.toBeNull();
    expect(pyCompile('C++', 'i').search('c')).not.toBeNull();
    expect(pyCompile('\\d+', 'i').search('٣')).not.toBeNull();
    expect(() => pyCompile('*x', 'i')).toThrow('nothing to repeat at position 0');
    expect(() => pyCompile('[abc', 'i')).toThrow('unterminated character set at position 0');
    expect(() => pyCompile(5, 'i')).toThrow('first argument must be string or compiled pattern');
    expect(() => pyCompile(['sync'], 'i')).toThrow("unhashable type: 'list'");
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
