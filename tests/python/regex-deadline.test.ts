// The regex deadline worker: a guarded match gives exactly what V8 gives in-process, and a pattern that
// backtracks catastrophically fails with REGEX_TIMEOUT while the process keeps running.
import { describe, expect, it } from 'vitest';
import { GymError } from '../../src/errors';
import { execWithDeadline, matchAllWithDeadline, splitWithDeadline } from '../../src/python/regex-deadline';
import { PyRegex, pyCount, pySearch } from '../../src/python/regex';

const CATASTROPHIC = '^(?:[a-z ]+\\s*)+:(\\w)';
const NO_COLON = 'the answer is clearly option c because '.repeat(40);

/** Plain copies of exec results, so in-process and worker results compare field by field. */
const plain = (m: RegExpExecArray | null) =>
  m && { values: [...m], index: m.index, groups: m.groups && { ...m.groups }, indices: m.indices && [...m.indices], indexGroups: m.indices?.groups && { ...m.indices.groups } };

function execAll(re: RegExp, text: string, exec: (re: RegExp, text: string) => RegExpExecArray | null) {
  const out = [];
  re.lastIndex = 0;
  for (let i = 0; i < 50; i++) {
    const m = exec(re, text);
    out.push({ m: plain(m), lastIndex: re.lastIndex });
    if (!m || !re.global) break;
    if (m[0] === '') re.lastIndex++;
  }
  return out;
}

/** Resolves at the interval's next tick: proof the event loop is running again. */
function nextTick(ticks: { waiters: (() => void)[] }): Promise<void> {
  return new Promise((resolve) => ticks.waiters.push(resolve));
}

describe('matching on the deadline worker gives what V8 gives in-process', () => {
  const cases: [string, string, string][] = [
    ['(?<word>\\w+)(?: (\\d))?', 'gd', 'alpha 1 beta gamma 2'],
    ['b', 'y', 'abba'],
    ['x*', 'g', 'axxb'],
    ['(a)|(b)', 'gu', 'ab\u{1F600}a'],
    ['^\\w', 'gim', 'one\nTwo\nthree'],
    ['nothing', 'g', 'here'],
    ['c', '', 'abc'],
  ];

  it.each(cases)('exec /%s/%s, step by step with lastIndex', (source, flags, text) => {
    expect(execAll(new RegExp(source, flags), text, execWithDeadline)).toEqual(execAll(new RegExp(source, flags), text, (re, t) => re.exec(t)));
  });

  it.each(cases.filter(([, flags]) => flags.includes('g')))('matchAll and split /%s/%s', (source, flags, text) => {
    expect(matchAllWithDeadline(new RegExp(source, flags), text).map(plain)).toEqual([...text.matchAll(new RegExp(source, flags))].map(plain));
    expect(splitWithDeadline(new RegExp(source, flags), text)).toEqual(text.split(new RegExp(source, flags)));
  });

  it('changes of text between calls reach the worker', () => {
    const re = /\d+/g;
    expect(execWithDeadline(re, 'a 12')?.[0]).toBe('12');
    re.lastIndex = 0;
    expect(execWithDeadline(re, 'b 345')?.[0]).toBe('345');
    re.lastIndex = 0;
    expect(execWithDeadline(re, 'a 12')?.[0]).toBe('12');
  });

  it('an exception in the worker is thrown to the caller', () => {
    expect(() => matchAllWithDeadline(/a/, 'a')).toThrow(TypeError);
  });

  it('a guarded PyRegex keeps Python semantics (CPython results)', () => {
    const guarded = { guarded: true };
    expect(new PyRegex('a*', '', guarded).findall('baa')).toEqual(['', 'aa', '']);
    expect(new PyRegex('x*|b', '', guarded).findall('abc')).toEqual(['', '', 'b', '', '']);
    expect(new PyRegex('(a)(b)?', '', guarded).findall('ab a')).toEqual([
      ['a', 'b'],
      ['a', ''],
    ]);
    expect(new PyRegex('(?P<n>a)(?P=n)', '', guarded).findall('aaab')).toEqual(['a']);
    expect(new PyRegex('answer:\\s*(\\w)', 'i', guarded).fullmatch('Answer: C')?.groups).toEqual(['C']);
    expect(pyCount('\\bcat\\b', 'cat concat cat', 'i', guarded)).toBe(2);
    expect(pySearch('(?=\\w)', '\u{1F600}', '', guarded)).toBe(false);
  });
});

describe('a catastrophic pattern', () => {
  it('fails with REGEX_TIMEOUT, the process keeps ticking, and the next pattern matches', async () => {
    const ticks = { count: 0, waiters: [] as (() => void)[] };
    const interval = setInterval(() => {
      ticks.count++;
      for (const resolve of ticks.waiters.splice(0)) resolve();
    }, 10);
    try {
      await nextTick(ticks);
      let error: unknown;
      try {
        new PyRegex(CATASTROPHIC, 'i', { guarded: true }).findall(NO_COLON);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GymError);
      expect((error as GymError).code).toBe('REGEX_TIMEOUT');
      expect((error as GymError).message).toMatch(/still matching a \d+-character text/);
      const before = ticks.count;
      await nextTick(ticks);
      expect(ticks.count).toBeGreaterThan(before);
      // A fresh worker takes the next call; the pattern itself still matches where it can.
      expect(new PyRegex(CATASTROPHIC, 'i', { guarded: true }).findall('pick one:c')).toEqual(['c']);
    } finally {
      clearInterval(interval);
    }
  });
});
