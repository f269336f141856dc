// Python str predicates the checkers call that JS lacks, measured in code points as Python does.

/** str.isupper(): at least one cased character and no lower- or title-case one. */
export function pyIsUpper(s: string): boolean {
  return /[\p{Uppercase}\p{Lowercase}\p{Lt}]/u.test(s) && !/[\p{Lowercase}\p{Lt}]/u.test(s);
}

/** str.islower(): at least one cased character and no upper- or title-case one. */
export function pyIsLower(s: string): boolean {
  return /[\p{Uppercase}\p{Lowercase}\p{Lt}]/u.test(s) && !/[\p{Uppercase}\p{Lt}]/u.test(s);
}

/** s[start:end] on code points, with Python's clamping and negative indices. */
export function pySlice(s: string, start: number, end: number): string {
  const cps = [...s];
  const norm = (i: number) => (i < 0 ? Math.max(cps.length + i, 0) : Math.min(i, cps.length));
  return cps.slice(norm(start), norm(end)).join('');
}

/** seq[i] with Python's negative indices; throws IndexError out of range. */
export function pyIndex<T>(seq: readonly T[], i: number): T {
  const j = i < 0 ? seq.length + i : i;
  if (!Number.isInteger(j) || j < 0 || j >= seq.length) throw new RangeError('list index out of range');
  return seq[j]!;
}

export function firstCodePoint(s: string): string {
  return String.fromCodePoint(s.codePointAt(0)!);
}
