// The part of pandas' Timestamp(...) parsing the workplace tools rely on: ISO and common
// month-first/day-first forms, month names, am/pm times and UTC offsets, with pandas' error messages
// for impossible dates. Anything else is "Unknown datetime string format", as pandas says for junk.
import { PyError } from '../../python/errors';
import { pyRepr, typeName } from '../../python/values';

export interface Timestamp {
  /** Nanoseconds since 1970 of the wall clock (naive) or of the UTC instant (aware). */
  ns: bigint;
  aware: boolean;
  /** The wall-clock date, what `.date()` returns. */
  date: string;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = /^(mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(day|nesday|rsday|urday)?$/;

interface Parts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  /** Minutes east of UTC, or null for a naive time. */
  offset: number | null;
}

function monthIndex(word: string): number {
  const w = word.toLowerCase().replace(/\.$/, '');
  if (w.length < 3) return -1;
  const i = MONTHS.indexOf(w.slice(0, 3));
  const full = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'][i];
  return i >= 0 && (w.length === 3 || w === 'sept' || full === w) ? i + 1 : -1;
}

function unparseable(text: string): PyError {
  return new PyError('ValueError', `Unknown datetime string format, unable to parse: ${text}`);
}

function parseOffset(text: string): number {
  if (/^z$/i.test(text) || /^utc$/i.test(text)) return 0;
  const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(text)!;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3] ?? 0));
}

/** "10", "10:30", "10:30:15.25", optionally followed by am/pm. */
function parseClock(clock: string, meridiem: string | undefined, into: Parts): void {
  const [h, mi, s] = clock.split(':');
  const [sec, frac] = (s ?? '0').split('.');
  into.hour = Number(h);
  into.minute = Number(mi ?? 0);
  into.second = Number(sec);
  into.nanos = frac ? Number(frac.padEnd(9, '0').slice(0, 9)) : 0;
  if (meridiem) {
    const pm = meridiem.toLowerCase() === 'pm';
    if (into.hour > 12 || into.hour === 0) into.hour = 99;
    else into.hour = (into.hour % 12) + (pm ? 12 : 0);
  }
}

const TIME = String.raw`(\d{1,2}(?::\d{1,2}(?::\d{1,2}(?:\.\d{1,9})?)?)?)\s*(am|pm)?`;
const ZONE = String.raw`(z|utc|[+-]\d{2}(?::?\d{2})?)`;
const ISO = new RegExp(String.raw`^(\d{4})-(\d{1,2})(?:-(\d{1,2}))?(?:(?:t|\s+)${TIME})?\s*${ZONE}?$`, 'i');
const NUMERIC = new RegExp(String.raw`^(\d{1,4})[/.](\d{1,2})(?:[/.](\d{1,4}))?(?:\s+${TIME})?$`, 'i');

function blank(): Parts {
  return { year: 1, month: 1, day: 1, hour: 0, minute: 0, second: 0, nanos: 0, offset: null };
}

function twoDigitYear(year: string): number {
  return year.length <= 2 ? 2000 + Number(year) : Number(year);
}

function parseParts(text: string): Parts {
  const parts = blank();
  let m = ISO.exec(text);
  if (m) {
    parts.year = Number(m[1]);
    parts.month = Number(m[2]);
    parts.day = Number(m[3] ?? 1);
    if (m[4]) parseClock(m[4], m[5], parts);
    if (m[6]) parts.offset = parseOffset(m[6]);
    return parts;
  }
  if ((m = /^(\d{4})(\d{2})(\d{2})$/.exec(text))) return { ...parts, year: Number(m[1]), month: Number(m[2]), day: Number(m[3]) };
  if ((m = /^(\d{4})$/.exec(text))) return { ...parts, year: Number(m[1]) };
  if ((m = NUMERIC.exec(text))) {
    const [a, b, c] = [m[1]!, m[2]!, m[3]];
    if (a.length >= 3) Object.assign(parts, { year: Number(a), month: Number(b), day: Number(c ?? 1) });
    else if (Number(a) > 12) Object.assign(parts, { day: Number(a), month: Number(b), year: c ? twoDigitYear(c) : 1 });
    else Object.assign(parts, { month: Number(a), day: Number(b), year: c ? twoDigitYear(c) : 1 });
    if (m[4]) parseClock(m[4], m[5], parts);
    return parts;
  }
  return parseWords(text, parts);
}

/** "Thursday, November 30, 2023 10:00 AM", "30 Nov 2023", "Dec 1". */
function parseWords(text: string, parts: Parts): Parts {
  const tokens = text.toLowerCase().replace(/,/g, ' ').split(/\s+/).filter(Boolean);
  let month = -1;
  const numbers: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const clock = /^(\d{1,2}(?::\d{1,2}){1,2}(?:\.\d{1,9})?|\d{1,2}(?=am|pm))(am|pm)?$/.exec(token);
    if (WEEKDAYS.test(token) || token === 'of' || token === 'at') continue;
    if (monthIndex(token) > 0 && month < 0) month = monthIndex(token);
    else if (clock) {
      const next = tokens[i + 1];
      const meridiem = clock[2] ?? (next === 'am' || next === 'pm' ? (i++, next) : undefined);
      parseClock(clock[1]!, meridiem, parts);
    } else if (/^\d{1,2}(st|nd|rd|th)?$/.test(token) || /^\d{4}$/.test(token)) numbers.push(token.replace(/\D+$/, ''));
    else if (/^([+-]\d{2}:?\d{2}|z|utc)$/.test(token)) parts.offset = parseOffset(token);
    else throw unparseable(text);
  }
  if (month < 0 || numbers.length === 0 || numbers.length > 2) throw unparseable(text);
  parts.month = month;
  const year = numbers.find((n) => n.length === 4);
  const day = numbers.find((n) => n !== year);
  if (!day) throw unparseable(text);
  parts.day = Number(day);
  parts.year = year ? Number(year) : 1;
  return parts;
}

function daysInMonth(year: number, month: number): number {
  return [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

function validate(parts: Parts, text: string): void {
  const fail = (message: string) => new PyError('ValueError', `${message}: ${text}`);
  if (parts.month < 1 || parts.month > 12) throw fail('month must be in 1..12');
  if (parts.day < 1 || parts.day > daysInMonth(parts.year, parts.month)) throw fail('day is out of range for month');
  if (parts.hour > 23) throw fail('hour must be in 0..23');
  if (parts.minute > 59) throw fail('minute must be in 0..59');
  if (parts.second > 59) throw fail('second must be in 0..59');
}

function wallNanos(parts: Parts): bigint {
  const date = new Date(0);
  date.setUTCFullYear(parts.year, parts.month - 1, parts.day);
  date.setUTCHours(parts.hour, parts.minute, parts.second, 0);
  return BigInt(date.getTime()) * 1_000_000n + BigInt(parts.nanos);
}

function isoDate(parts: Pick<Parts, 'year' | 'month' | 'day'>): string {
  return `${String(parts.year).padStart(4, '0')}-${String(parts.month).padStart(2, '0')}-${String(parts.day).padStart(2, '0')}`;
}

function fromDate(date: Date): Timestamp {
  const parts = { ...blank(), year: date.getFullYear(), month: date.getMonth() + 1, day: date.getDate() };
  Object.assign(parts, { hour: date.getHours(), minute: date.getMinutes(), second: date.getSeconds() });
  return { ns: wallNanos(parts), aware: false, date: isoDate(parts) };
}

/**
 * pandas.Timestamp(value) for a JSON value; null for NaT (empty string, None). Strings pandas cannot
 * read raise ValueError, other types TypeError, as pandas does.
 */
export function toTimestamp(value: unknown): Timestamp | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (Math.abs(value) >= 2 ** 63) throw new PyError('ValueError', `Out of bounds nanosecond timestamp: ${value}`);
    const ns = BigInt(Math.trunc(value));
    const date = new Date(Number(ns / 1_000_000n));
    return { ns, aware: false, date: date.toISOString().slice(0, 10) };
  }
  if (typeof value !== 'string') {
    throw new PyError('TypeError', `Cannot convert input [${pyRepr(value)}] of type <class '${typeName(value)}'> to Timestamp`);
  }
  const text = value.trim();
  if (text === '') return null;
  if (/^(now|today)$/i.test(text)) return fromDate(new Date());
  // A bare time of day is today's date at that time.
  const timeOnly = new RegExp(`^${TIME}$`, 'i').exec(text);
  if (timeOnly && timeOnly[1]!.includes(':')) {
    const now = new Date();
    const parts = { ...blank(), year: now.getFullYear(), month: now.getMonth() + 1, day: now.getDate() };
    parseClock(timeOnly[1]!, timeOnly[2], parts);
    validate(parts, text);
    return { ns: wallNanos(parts), aware: false, date: isoDate(parts) };
  }
  const parts = parseParts(text);
  validate(parts, text);
  const wall = wallNanos(parts);
  if (parts.offset === null) return { ns: wall, aware: false, date: isoDate(parts) };
  return { ns: wall - BigInt(parts.offset) * 60_000_000_000n, aware: true, date: isoDate(parts) };
}

/** Timestamp ordering; pandas refuses to order a naive and an aware timestamp. */
export function compareTimestamps(a: Timestamp, b: Timestamp): number {
  if (a.aware !== b.aware) throw new PyError('TypeError', 'Cannot compare tz-naive and tz-aware timestamps');
  return a.ns < b.ns ? -1 : a.ns > b.ns ? 1 : 0;
}
