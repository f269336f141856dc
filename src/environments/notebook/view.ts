// The notebook as the model reads it: Aviary's (and hypotest's) markdown view of cells and their outputs,
// each output cut to 3,000 characters the way they cut it. Pure.
import { z } from 'zod';

/** One nbformat output, as the kernel made it (a text value may be nbformat's list of lines). */
export const NotebookOutput = z.looseObject({
  output_type: z.string(),
  name: z.string().optional(),
  text: z.union([z.string(), z.array(z.string())]).optional(),
  data: z.record(z.string(), z.unknown()).optional(),
  ename: z.string().optional(),
  evalue: z.string().optional(),
  traceback: z.union([z.string(), z.array(z.string())]).optional(),
  execution_count: z.number().nullish(),
});
export type NotebookOutput = z.infer<typeof NotebookOutput>;

export const NotebookCell = z.object({
  cell_type: z.enum(['code', 'markdown', 'raw']),
  source: z.string(),
  outputs: z.array(NotebookOutput).default([]),
  execution_count: z.number().nullish(),
});
export type NotebookCell = z.infer<typeof NotebookCell>;

/** Characters an output keeps before it is cut (Aviary's NB_OUTPUT_LIMIT). */
export const OUTPUT_LIMIT = 3000;

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/jpg']);

/** Rich tables Aviary leaves out of the view (their text/plain twin is not shown either). */
export const AVIARY_IGNORED_TYPES: ReadonlySet<string> = new Set(['text/latex', 'text/html', 'text/markdown']);
/** hypotest leaves widgets out too. */
export const HYPOTEST_IGNORED_TYPES: ReadonlySet<string> = new Set([...AVIARY_IGNORED_TYPES, 'application/vnd.jupyter.widget-view+json']);

/** A multiline nbformat value as one string (nbformat stores text as a list of lines). */
export function joined(value: unknown): string {
  return Array.isArray(value) ? value.join('') : typeof value === 'string' ? value : '';
}

/**
 * `limit_notebook_output`: text of 3,000 code points or more keeps its first and last 1,500 around a note,
 * since a traceback's cause is often at its end.
 */
export function limitOutput(text: string): string {
  const points = [...text];
  if (points.length < OUTPUT_LIMIT) return text;
  const cutoff = OUTPUT_LIMIT / 2;
  return (
    points.slice(0, cutoff).join('') +
    `\n<...output truncated to ${OUTPUT_LIMIT} characters (edit the cell to produce a shorter output if needed)...>\n` +
    points.slice(points.length - cutoff).join('')
  );
}

interface ViewOptions {
  language: string;
  ignoredTypes: ReadonlySet<string>;
}

/** One output's lines of the view; streams are gathered and shown after the cell's other outputs. */
function viewOutput(output: NotebookOutput, md: string[], images: { count: number }, streams: string[], ignored: ReadonlySet<string>): void {
  if (output.output_type === 'stream') streams.push(joined(output.text));
  else if (output.output_type === 'execute_result') md.push(limitOutput(joined(output.data?.['text/plain'])));
  else if (output.output_type === 'error') md.push(limitOutput(Array.isArray(output.traceback) ? output.traceback.join('\n') : (output.traceback ?? '')));
  else if (output.output_type === 'display_data') {
    // The first type the output carries decides how it is shown (nbformat's file order: keys sorted).
    const type = Object.keys(output.data ?? {})[0];
    if (type === undefined || ignored.has(type)) return;
    if (IMAGE_TYPES.has(type)) md.push(`<${++images.count}>`);
    else md.push(limitOutput(joined(output.data![type])));
  }
}

/** `view_notebook`: each cell as "### Cell i:", its code fenced, and its outputs under "### Output i:". */
export function viewNotebook(cells: readonly NotebookCell[], options: ViewOptions): string {
  const md: string[] = [];
  const images = { count: 0 };
  cells.forEach((cell, i) => {
    md.push(`### Cell ${i}:`);
    if (cell.cell_type !== 'code') {
      md.push(cell.source);
      return;
    }
    md.push('```' + options.language, cell.source, '```');
    if (!cell.outputs.length) return;
    md.push(`### Output ${i}:`, '```');
    const streams: string[] = [];
    for (const output of cell.outputs) viewOutput(output, md, images, streams, options.ignoredTypes);
    if (streams.length) md.push(limitOutput(streams.join('\n')));
    md.push('```');
  });
  return md.join('\n');
}
