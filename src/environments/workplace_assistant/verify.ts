// NeMo Gym's grading: replay the episode's function calls and the ground-truth calls on two fresh
// workspaces and compare five tables with pandas' DataFrame.equals, after lower-casing every column
// except the case-sensitive status, list_name and board (non-strings become NaN when lower-cased).
import { pyEq } from '../../python/values';
import { lowerOrNull, type Table, type Workspace } from './tables';

/** The compared tables, by NeMo Gym's container names. */
export const COMPARED_TABLES = { calendar: 'calendar', email: 'emails', analytics: 'plots', project_management: 'tasks', customer_relationship_manager: 'crm' } as const;
const CASE_SENSITIVE = new Set(['status', 'list_name', 'board']);

function cellsEqual(a: unknown, b: unknown): boolean {
  return (a === null && b === null) || pyEq(a, b);
}

/** DataFrame.equals after the lower-casing: same columns, same index labels in order, equal cells. */
export function tablesEqual(a: Table, b: Table): boolean {
  if (a.columns.length !== b.columns.length || a.columns.some((c, i) => c !== b.columns[i])) return false;
  if (a.rows.length !== b.rows.length) return false;
  const norm = (column: string, value: unknown) => (CASE_SENSITIVE.has(column) ? value : lowerOrNull(value));
  return a.rows.every((row, i) => {
    const other = b.rows[i]!;
    return row.label === other.label && a.columns.every((c) => cellsEqual(norm(c, row.cells[c]), norm(c, other.cells[c])));
  });
}

/** The NeMo Gym container names whose tables differ (empty when the workspaces count as equal). */
export function differingTables(predicted: Workspace, expected: Workspace): string[] {
  return Object.entries(COMPARED_TABLES)
    .filter(([, key]) => !tablesEqual(predicted[key], expected[key]))
    .map(([name]) => name);
}
