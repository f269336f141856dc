// How a workplace tool is described and called: Python keyword-argument semantics (defaults,
// "unexpected keyword argument"), the catch-all route's error text, pagination, and the column
// comparisons pandas performs for the tools' filters.
import { PyError } from '../../python/errors';
import { pyCompile } from '../../python/regex';
import { pySlice } from '../../python/sequence';
import { zfill } from '../../python/str';
import { floorDiv, pyCompare, pyEq, pyInt, pyMax, pyMin, typeName } from '../../python/values';
import { columnMax, records, whereRows, type Cells, type Table, type Workspace } from './tables';

export type Args = Record<string, unknown>;

export interface ToolOutcome {
  output: unknown;
  /** The workspace after the call, when the call changed it. */
  workspace?: Workspace;
}

export interface WorkplaceTool {
  /** The Python method's qualified name, as it appears in TypeError messages. */
  method: string;
  /** Keyword parameters with their Python defaults. */
  params: Args;
  run(ws: Workspace, args: Args): ToolOutcome;
}

/** Calls a tool like `function(**args)`: unknown keywords raise TypeError, missing ones take their defaults. */
export function callTool(tool: WorkplaceTool, ws: Workspace, args: Args): ToolOutcome {
  for (const key of Object.keys(args)) {
    if (!Object.hasOwn(tool.params, key)) throw new PyError('TypeError', `${tool.method}() got an unexpected keyword argument '${key}'`);
  }
  return tool.run(ws, { ...tool.params, ...args });
}

export interface Page<T> {
  items: T[];
  page: unknown;
  totalPages: number;
}

/** Arithmetic operands of pagination must be numbers (bool counts as int in Python). */
function pyNumber(value: unknown, other: unknown, op: '+' | '-' | '*'): number {
  if (typeof value === 'number' || typeof value === 'boolean') return Number(value);
  throw new PyError('TypeError', `unsupported operand type(s) for ${op}: '${typeName(other)}' and '${typeName(value)}'`);
}

/** Slice bounds computed from these operands are Python floats (refused as indices) if any operand is one. */
function requireIntegerOperands(...operands: unknown[]): void {
  if (operands.some((v) => typeof v === 'number' && !Number.isInteger(v))) {
    throw new PyError('TypeError', 'slice indices must be integers or None or have an __index__ method');
  }
}

/** The tools' shared pagination arithmetic, with Python's floor division, min/max and slicing. */
export function paginate<T>(items: readonly T[], page: unknown, pageSize: unknown): Page<T> {
  const total = items.length;
  const size = pyNumber(pageSize, total, '+');
  const totalPages = floorDiv(total + size - 1, size);
  const current = totalPages > 0 ? pyMax(1, pyMin(page, totalPages)) : 1;
  const start = (pyNumber(current, 1, '-') - 1) * size;
  const end = Math.min(start + size, total);
  requireIntegerOperands(current, size);
  return { items: pySlice(items, start, end), page: current, totalPages };
}

/** `series == value` on an object column: element-wise, and a list must match the column's length. */
export function columnEquals(table: Table, column: string, value: unknown): (cells: Cells) => boolean {
  if (Array.isArray(value) && value.length !== table.rows.length) {
    throw new PyError('ValueError', `('Lengths must match to compare', (${table.rows.length},), (${value.length},))`);
  }
  if (Array.isArray(value)) {
    const byRow = new Map(table.rows.map((r, i) => [r.cells, pyEq(r.cells[column], value[i])]));
    return (cells) => byRow.get(cells) ?? false;
  }
  return (cells) => pyEq(cells[column], value);
}

/** Search patterns come from the model's tool calls, so they match under the regex deadline. */
export const MODEL_PATTERN = { guarded: true };

/**
 * `series.str.contains(pattern, case=False)`: non-string cells give NaN, and boolean indexing with NaN
 * raises, unless `na=False` turns them into False (the calendar's search does that).
 */
export function containsFilter(table: Table, column: string, pattern: unknown, naIsFalse = false): (cells: Cells) => boolean {
  const regex = pyCompile(pattern, 'i', MODEL_PATTERN);
  if (!naIsFalse && table.rows.some((r) => typeof r.cells[column] !== 'string')) {
    throw new PyError('ValueError', 'Cannot mask with non-boolean array containing NA / NaN values');
  }
  return (cells) => {
    const value = cells[column];
    return typeof value === 'string' && regex.search(value) !== null;
  };
}

/** `series >= value` (or <=) on an object column: NaN compares False, mixed types raise TypeError. */
export function compareFilter(table: Table, column: string, op: '>=' | '<=', value: unknown): (cells: Cells) => boolean {
  if (Array.isArray(value)) {
    throw new PyError('ValueError', `('Lengths must match to compare', (${table.rows.length},), (${value.length},))`);
  }
  const verdicts = new Map(table.rows.map((r) => [r.cells, r.cells[column] === null ? false : pyCompare(r.cells[column], op, value)]));
  return (cells) => verdicts.get(cells) ?? false;
}

/** The first row whose `column` equals `value`, as a record. */
export function firstMatch(table: Table, column: string, value: unknown): Cells | undefined {
  return records(whereRows(table, columnEquals(table, column, value)))[0];
}

/** `df[df[column] != value]`. */
export function withoutMatches(table: Table, column: string, value: unknown): Table {
  const match = columnEquals(table, column, value);
  return whereRows(table, (cells) => !match(cells));
}

/** `str(int(df[column].max()) + 1)`, zero-padded to `width` (the email ids are not padded). */
export function nextId(table: Table, column: string, width = 0): string {
  return zfill(String(pyInt(columnMax(table, column)) + 1n), width);
}
