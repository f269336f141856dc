// Python indexing and slicing (negative indices, clamped slices, IndexError, str by code point where JS uses
// UTF-16 units), so ported checks pick the same characters and items as the Python they port.
import { PyError } from './errors';

/** `s[start:end]` on a str's code points, with Python's clamping and negative indices. */
export function pySlice(s: string, start: number, end: number): string;
/** `items[start:end]`, with Python's clamping and negative indices. */
export function pySlice<T>(items: readonly T[], start: number, end: number): T[];
export function pySlice<T>(seq: string | readonly T[], start: number, end: number): string | T[] {
  const items = typeof seq === 'string' ? [...seq] : seq;
  const clamp = (i: number) => (i < 0 ? Math.max(items.length + i, 0) : Math.min(i, items.length));
  const sliced = items.slice(clamp(start), clamp(end));
  return typeof seq === 'string' ? (sliced as string[]).join('') : (sliced as T[]);
}

/** `s[i]`: one code point of a str; raises IndexError out of range. */
export function pyIndex(s: string, i: number): string;
/** `seq[i]`; raises IndexError out of range. */
export function pyIndex<T>(seq: readonly T[], i: number): T;
export function pyIndex<T>(seq: string | readonly T[], i: number): string | T {
  const items = typeof seq === 'string' ? [...seq] : seq;
  const j = i < 0 ? items.length + i : i;
  if (!Number.isInteger(j) || j < 0 || j >= items.length) {
    throw new PyError('IndexError', `${typeof seq === 'string' ? 'string' : 'list'} index out of range`);
  }
  return items[j]!;
}
