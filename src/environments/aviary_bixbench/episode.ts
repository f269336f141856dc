// What Aviary's BixBench notebook environment says and does, without the kernel: the opening messages,
// the notebook-state message after every step, an edit_cell edit and the list_workdir listing. Pure.
import { jsonDumps } from '../../python/json';
import { compareCodePoints } from '../../python/str';
import { pyRepr } from '../../python/values';
import { cellIndex, newCodeCell, pyPosition, type CellIndexArg } from '../notebook/cells';
import type { Tree } from '../notebook/tree';
import { AVIARY_IGNORED_TYPES, viewNotebook, type NotebookCell } from '../notebook/view';

/** Where Aviary's container mounts the work directory, and the notebook in it. */
export const WORKSPACE = '/workspace';
export const NOTEBOOK = 'notebook.ipynb';
export const NOTEBOOK_VIEW = 'notebook.md';

/** BixBenchEnv.reset's task message. */
export function taskMessage(question: string): string {
  return `Using the available tools and data, write a jupyter notebook to solve the following problem: ${pyRepr(question)}`;
}

export function notebookView(cells: readonly NotebookCell[]): string {
  return viewNotebook(cells, { language: 'python', ignoredTypes: AVIARY_IGNORED_TYPES });
}

/** NBEnvironment's environment-state message: the whole notebook as markdown. */
export function stateMessage(cells: readonly NotebookCell[]): string {
  return `Markdown representation of notebook contents (${WORKSPACE}/${NOTEBOOK}):\n\n${notebookView(cells)}`;
}

/** Aviary's reply to a tool call that raised. */
export function toolException(repr: string): string {
  return `Encountered exception during tool call: ${repr}`;
}

export interface Edit {
  cells: NotebookCell[];
  /** The tool's reply when the edit applies; Aviary's exception text when it does not. */
  message: string;
}

/**
 * NBEnvironment.edit_cell before the notebook is run again: a cell index Python cannot read as an integer,
 * or one past the end, appends a new cell; any other (negative ones count from the end) replaces that cell's
 * source and keeps its outputs until the run. An index before the first cell is Python's IndexError.
 */
export function applyEdit(cells: readonly NotebookCell[], contents: string, idx: CellIndexArg): Edit {
  const i = cellIndex(idx);
  if (i === null || i >= cells.length) return { cells: [...cells, newCodeCell(contents)], message: `Appended new cell (#${cells.length}).` };
  const at = pyPosition(i, cells.length);
  if (at === null) return { cells: [...cells], message: toolException("IndexError('list index out of range')") };
  return { cells: cells.map((c, j) => (j === at ? { ...c, source: contents } : c)), message: `Edited cell #${i}.` };
}

type Listing = { [name: string]: Listing | string[] };

/**
 * NBEnvironment._list_dir: a folder's files under "files"; each sub-folder under its own name, with an empty
 * "directories" key marking that there are some. Names in code-point order (Aviary's are the folder's own).
 */
function listing(tree: Tree): Listing {
  const index: Listing = {};
  const entries = [...tree.files.map((name) => ({ name, dir: false })), ...Object.keys(tree.dirs).map((name) => ({ name, dir: true }))].sort((a, b) => compareCodePoints(a.name, b.name));
  for (const { name, dir } of entries) {
    if (dir) {
      if (!('directories' in index)) index.directories = {};
      index[name] = listing(tree.dirs[name]!);
    } else {
      if (!('files' in index)) index.files = [];
      (index.files as string[]).push(name);
    }
  }
  return index;
}

/** list_workdir's reply: `json.dumps(listing, indent=2)`. */
export function listWorkdir(tree: Tree): string {
  return jsonDumps(listing(tree), { indent: 2 });
}
