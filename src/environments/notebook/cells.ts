// Notebook cells as the episode's state keeps them: the cell index a tool call names (read the way
// Aviary and hypotest read it), new cells, outputs without their image bytes, and the .ipynb file. Pure.
import { pyIntFromString } from '../../python/number';
import type { NotebookCell, NotebookOutput } from './view';

/** What a model may send as a cell index. */
export type CellIndexArg = number | string | boolean | null;

/** `int(idx)`, None when Python raises ValueError or TypeError on it (a text that is no integer): append. */
export function cellIndex(idx: CellIndexArg | undefined): number | null {
  if (idx === null || idx === undefined) return null;
  if (typeof idx === 'boolean') return idx ? 1 : 0;
  if (typeof idx === 'number') return Math.trunc(idx);
  const parsed = pyIntFromString(idx);
  return parsed === null ? null : Number(parsed);
}

/** Python's `cells[i]` for an index known to be below `length`: negative counts from the end; null when out of range. */
export function pyPosition(i: number, length: number): number | null {
  const at = i < 0 ? length + i : i;
  return at < 0 || at >= length ? null : at;
}

export function newCodeCell(source: string, outputs: NotebookOutput[] = [], executionCount: number | null = null): NotebookCell {
  return { cell_type: 'code', source, outputs, execution_count: executionCount };
}

const IMAGE_TYPE = /^image\//;

/**
 * Outputs as the state keeps them: an image's bytes become "" (the view shows an image as a numbered
 * placeholder, and NeMo Gym's aviary agent drops images from what the model reads), its type and place kept.
 */
export function withoutImages(outputs: readonly NotebookOutput[]): NotebookOutput[] {
  return outputs.map((o) => {
    if (!o.data || !Object.keys(o.data).some((k) => IMAGE_TYPE.test(k))) return o;
    return { ...o, data: Object.fromEntries(Object.entries(o.data).map(([k, v]) => [k, IMAGE_TYPE.test(k) ? '' : v])) };
  });
}

/** Aviary's kernelspec for a Python notebook. */
export const PYTHON_KERNELSPEC = { name: 'python', display_name: 'Python 3 (ipykernel)', language: 'python' };

/** The cells as an nbformat 4 notebook file. */
export function notebookFile(cells: readonly NotebookCell[]): string {
  const file = {
    cells: cells.map((c) =>
      c.cell_type === 'code'
        ? { cell_type: 'code', execution_count: c.execution_count ?? null, metadata: {}, outputs: c.outputs, source: c.source }
        : { cell_type: c.cell_type, metadata: {}, source: c.source },
    ),
    metadata: { kernelspec: PYTHON_KERNELSPEC },
    nbformat: 4,
    nbformat_minor: 4,
  };
  return `${JSON.stringify(file, null, 1)}\n`;
}
