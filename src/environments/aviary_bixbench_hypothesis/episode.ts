// What hypotest's InterpreterEnv (the BixBench-Hypothesis environment NeMo Gym serves) says, without the
// kernel: its prompts, run_cell's reply, list_dir's listing, its time and step warnings, and its rubric
// judge's prompt and score. Pure.
import { readFileSync } from 'node:fs';
import { pyIntFromString } from '../../python/number';
import { pySlice } from '../../python/sequence';
import { compareCodePoints, pyFormat } from '../../python/str';
import { pyRepr } from '../../python/values';
import type { Tree } from '../notebook/tree';
import { HYPOTEST_IGNORED_TYPES, joined, limitOutput, viewNotebook, type NotebookCell, type NotebookOutput } from '../notebook/view';

const prompt = (name: string) => readFileSync(new URL(`./prompts/${name}`, import.meta.url), 'utf8');

/** hypotest's prompts (DEFAULT_SYSTEM_PROMPT, HYPOTHESIS_TASK_DESC, CPU_ENVIRONMENT_CAPABILITIES, RUBRIC_SCORE_PROMPT, FORCE_MSG, WARN_MSG). */
const SYSTEM = prompt('system.txt');
const TASK = prompt('task.txt');
const CPU_CAPABILITIES = prompt('cpu_capabilities.txt');
const RUBRIC = prompt('rubric.txt');
export const TIME_EXPIRED = prompt('time_expired.txt');
const TIME_WARNING = prompt('time_warning.txt');

/** Where hypotest's containers mount the work directory (the kernel's working directory). */
export const WORKSPACE = '/data_workspace';
const LANGUAGE = 'Python';

/** PromptingConfig.interpolate of the default system prompt, for a Python kernel on CPUs. */
export function systemPrompt(jobTimeout: number): string {
  return SYSTEM.replaceAll('{language}', LANGUAGE)
    .replaceAll('{environment_capabilities}', pyFormat(CPU_CAPABILITIES, { job_timeout: String(jobTimeout) }))
    .replaceAll('{additional_guidelines}', '');
}

export function taskMessage(hypothesis: string, protocol: string): string {
  return pyFormat(TASK, { language: LANGUAGE, hypothesis, protocol });
}

const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/jpg'];

/** ExecutionResult._extract_text_from_output. */
function outputText(output: NotebookOutput): string | null {
  if (output.output_type === 'stream') return `[${output.name ?? 'stdout'}]\n${joined(output.text)}`;
  if (output.output_type === 'execute_result' || output.output_type === 'display_data') {
    const data = output.data ?? {};
    const parts = IMAGE_TYPES.some((t) => t in data) ? ['[Image generated]'] : [];
    if ('text/plain' in data) parts.push(joined(data['text/plain']));
    return parts.length ? parts.join('\n') : null;
  }
  if (output.output_type === 'error') {
    const traceback = Array.isArray(output.traceback) ? output.traceback.join('\n') : (output.traceback ?? '');
    return `Error: ${output.ename ?? 'Unknown'}\nMessage: ${output.evalue ?? 'No error message'}\nTraceback:\n${traceback}`;
  }
  return null;
}

/** run_cell's reply: the cell number, then its outputs' text, cut to 3,000 characters. */
export function runCellReply(cellIndex: number, outputs: readonly NotebookOutput[]): string {
  const texts = outputs.map(outputText).filter((t): t is string => t !== null && t !== '');
  return `[Cell #${cellIndex}] ${limitOutput(texts.length ? texts.join('\n') : 'Code executed successfully (no output)')}`;
}

/** The notebook as the rubric judge reads it. */
export function notebookView(cells: readonly NotebookCell[]): string {
  return viewNotebook(cells, { language: 'python', ignoredTypes: HYPOTEST_IGNORED_TYPES });
}

/** `_collect_dir_paths`: every file below, folders first, then files, each by name; hidden ones left out unless asked. */
function collect(tree: Tree, prefix: string, showHidden: boolean): string[] {
  const items = [...Object.keys(tree.dirs).map((name) => ({ name, dir: true })), ...tree.files.map((name) => ({ name, dir: false }))].sort(
    (a, b) => Number(!a.dir) - Number(!b.dir) || compareCodePoints(a.name, b.name),
  );
  return items.flatMap(({ name, dir }) => {
    if (!showHidden && name.startsWith('.')) return [];
    const rel = `${prefix}${name}`;
    return dir ? collect(tree.dirs[name]!, `${rel}/`, showHidden) : [rel];
  });
}

/** `int(max_files)` where a text that is no integer means the default 20. */
export function maxFilesOf(maxFiles: number | string | boolean | undefined): number {
  if (maxFiles === undefined) return 20;
  if (typeof maxFiles === 'boolean') return Number(maxFiles);
  if (typeof maxFiles === 'number') return Math.trunc(maxFiles);
  const parsed = pyIntFromString(maxFiles);
  return parsed === null ? 20 : Number(parsed);
}

/** list_dir_tool's reply for a folder that exists. */
export function listDirReply(tree: Tree, maxFiles: number, showHidden: boolean): string {
  const paths = collect(tree, '', showHidden);
  if (!paths.length) return 'Directory is empty.';
  if (paths.length > maxFiles) {
    const shown = pySlice(paths, 0, maxFiles);
    return `Files in directory:\n${shown.map((p) => `  ${p}`).join('\n')}\n  (${paths.length - maxFiles} more files not shown)`;
  }
  return `Files in directory:\n${paths.map((p) => `  ${p}`).join('\n')}`;
}

/** get_time_management_message: the warning, or the order to submit, as the time left runs down. */
export function timeMessage(remaining: number, thresholds: { warn: number; force: number }): string | null {
  if (remaining <= thresholds.force) return TIME_EXPIRED;
  if (remaining <= thresholds.warn) return pyFormat(TIME_WARNING, { remaining: String(remaining) });
  return null;
}

/** RUBRIC_SCORE_PROMPT with the problem, the notebook at submission and the submitted answer. */
export function rubricPrompt(p: { hypothesis: string; accepted: boolean; rubric: string; notebook: string; answer: string }): string {
  return pyFormat(RUBRIC.replace('{hypothesis!r}', '{hypothesis_repr}'), {
    hypothesis_repr: pyRepr(p.hypothesis),
    accepted: p.accepted ? 'True' : 'False',
    rubric: p.rubric,
    notebook: p.notebook,
    proposed_solution: p.answer,
  });
}

/** `int(text.split("<score>")[1].split("</score>")[0])`, or null where that raises (hypotest retries then). */
export function parseScore(text: string): bigint | null {
  const parts = text.split('<score>');
  if (parts.length < 2) return null;
  return pyIntFromString(parts[1]!.split('</score>')[0]!);
}

/** The reward for a raw rubric score: normalized by the maximum (by default) and clipped to [0, 1] (or [0, max]). */
export function rubricReward(raw: bigint, maxPoints: number, normalize: boolean): number {
  const score = normalize ? Number(raw) / maxPoints : Number(raw);
  return Math.max(0, Math.min(normalize ? 1 : maxPoints, score));
}
