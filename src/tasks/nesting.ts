// How deeply a parsed JSON value nests, measured without recursion, so a row too deep for the
// recursive code after loading (JSON.stringify, zod, verifiers) is refused with its line instead.

/**
 * NeMo Gym reads rows with Python's json, which stops near 1,000 levels, so no row it accepts is deeper;
 * V8's recursive JSON.stringify overflows Node's default stack at about 4,000, which leaves room for
 * the frames below it (an activity, zod's nested schemas).
 */
export const MAX_NESTING = 1000;

/** The top-level field whose value nests deeper than `limit` arrays/objects (the row itself is level 1), or undefined. */
export function fieldNestedTooDeep(row: unknown, limit = MAX_NESTING): string | undefined {
  if (row === null || typeof row !== 'object') return undefined;
  const stack: { value: object; depth: number; field: string }[] = [];
  for (const [field, value] of Object.entries(row)) {
    if (value !== null && typeof value === 'object') stack.push({ value, depth: 2, field });
  }
  while (stack.length) {
    const { value, depth, field } = stack.pop()!;
    if (depth > limit) return field;
    for (const child of Object.values(value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1, field });
    }
  }
  return undefined;
}
