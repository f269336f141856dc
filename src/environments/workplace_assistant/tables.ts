// The workplace's tables as pandas holds them: ordered rows with index labels (DataFrame.equals
// compares labels, so deletes and appends must keep or renumber them as pandas does) and object
// cells (strings from the CSVs, null for NaN/None, and whatever JSON value a tool call stored).
// Tables are immutable: every change returns a new table, so a workspace can be rebuilt cheaply.
import { readFileSync } from 'node:fs';
import { parseCsv } from './csv';
import { PyError } from '../../python/errors';
import { pyCompare, pyEq } from '../../python/values';

export type Cell = unknown;
export type Cells = Readonly<Record<string, Cell>>;

export interface Row {
  label: number;
  cells: Cells;
}

export interface Table {
  columns: readonly string[];
  rows: readonly Row[];
}

/** The mutable part of a session: the five tables NeMo Gym's verify compares, plus analytics. */
export interface Workspace {
  emails: Table;
  calendar: Table;
  tasks: Table;
  crm: Table;
  plots: Table;
  analytics: Table;
}

function readData(file: string): string {
  return readFileSync(new URL(`./data/${file}`, import.meta.url), 'utf8');
}

function tableFromCsv(file: string): Table {
  const [header, ...body] = parseCsv(readData(file)).filter((r) => !(r.length === 1 && r[0] === null));
  const columns = header!.map((c) => c ?? '');
  const rows = body.map((values, label) => ({ label, cells: Object.fromEntries(columns.map((c, i) => [c, values[i] ?? null])) }));
  return { columns, rows };
}

let pristine: Workspace | undefined;
let directory: string[] | undefined;

/** The tables as every session starts (loaded once; shared safely because tables are immutable). */
export function freshWorkspace(): Workspace {
  if (!pristine) {
    const analytics = tableFromCsv('analytics_data.csv');
    pristine = {
      emails: tableFromCsv('emails.csv'),
      calendar: tableFromCsv('calendar_events.csv'),
      tasks: tableFromCsv('project_tasks.csv'),
      crm: tableFromCsv('customer_relationship_manager_data.csv'),
      plots: { columns: ['file_path'], rows: [] },
      // The analytics tool turns user_engaged into booleans when it loads.
      analytics: mapColumn(analytics, 'user_engaged', (v) => v === 'True'),
    };
  }
  return pristine;
}

/** The company directory (read-only, a headerless list of addresses). */
export function directoryAddresses(): readonly string[] {
  directory ??= parseCsv(readData('email_addresses.csv'))
    .map((r) => r[0])
    .filter((a): a is string => a !== null && a !== undefined);
  return directory;
}

/** DataFrame.to_dict(orient="records"). */
export function records(table: Table): Cells[] {
  return table.rows.map((r) => r.cells);
}

/** Boolean indexing: keeps the matching rows with their labels. */
export function whereRows(table: Table, keep: (cells: Cells) => boolean): Table {
  return { columns: table.columns, rows: table.rows.filter((r) => keep(r.cells)) };
}

/**
 * pd.concat with one new row. Without `label` the index is renumbered (ignore_index=True); with it the
 * new row carries that label (concat without ignore_index, or `.loc[len(df)] = …`).
 */
export function appendRow(table: Table, cells: Cells, label?: number): Table {
  const row = { label: label ?? 0, cells: Object.fromEntries(table.columns.map((c) => [c, cells[c] ?? null])) };
  const rows = [...table.rows, row];
  return { columns: table.columns, rows: label === undefined ? rows.map((r, i) => ({ label: i, cells: r.cells })) : rows };
}

/** `df.loc[mask, column] = value`, with pandas' handling of list and dict values. */
export function setWhere(table: Table, match: (cells: Cells) => boolean, column: string, value: unknown): Table {
  const matched = table.rows.filter((r) => match(r.cells)).length;
  let values: (n: number) => Cell = () => value;
  if (Array.isArray(value)) {
    if (value.length === 1) values = () => value[0];
    else if (value.length === matched) values = (n) => value[n];
    else throw new PyError('ValueError', 'setting an array element with a sequence.');
  } else if (value !== null && typeof value === 'object') {
    // A dict is aligned on the index labels, which are integers: nothing matches, so NaN is stored.
    values = () => null;
  }
  let n = 0;
  const rows = table.rows.map((r) => (match(r.cells) ? { label: r.label, cells: { ...r.cells, [column]: values(n++) } } : r));
  return { columns: table.columns, rows };
}

export function mapColumn(table: Table, column: string, f: (value: Cell) => Cell): Table {
  return { columns: table.columns, rows: table.rows.map((r) => ({ label: r.label, cells: { ...r.cells, [column]: f(r.cells[column]) } })) };
}

/** numpy's `needle in column.values`: an element-wise == (a one-item list broadcasts). */
export function inColumn(needle: unknown, table: Table, column: string): boolean {
  const values = table.rows.map((r) => r.cells[column]);
  if (Array.isArray(needle)) {
    if (needle.length === 1) return values.some((v) => pyEq(v, needle[0]));
    return needle.length === values.length && values.some((v, i) => pyEq(v, needle[i]));
  }
  return values.some((v) => pyEq(v, needle));
}

/** Series.max() of an object column, which numpy reduces with `>=` (so mixed types raise TypeError). */
export function columnMax(table: Table, column: string): Cell {
  let best: Cell = undefined;
  for (const { cells } of table.rows) {
    const v = cells[column];
    if (best === undefined) best = v;
    else if (!pyCompare(best ?? NaN, '>=', v ?? NaN)) best = v;
  }
  // An empty column's max is NaN, which int() then rejects.
  return best === undefined ? NaN : best;
}

/** Series.str.lower(): strings lower-cased, every other value NaN. */
export function lowerOrNull(value: Cell): Cell {
  return typeof value === 'string' ? value.toLowerCase() : null;
}
