// `gym dataset collate`: the declared datasets of one mode merged into one JSONL per dataset type, each row
// validated against its environment, stamped with the instance that declared it and written its dataset's
// num_repeats times, streamed so a file of any size is read in flat memory; every bad row is reported (file,
// line, field), and nothing is written then.
import { createWriteStream, existsSync, statSync, type WriteStream } from 'node:fs';
import { mkdir, open, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { GymError } from '../errors';
import { getEnvironment } from '../environments/registry';
import { taskProblems } from '../tasks/load';
import { MODES, type CollateMode, type DeclaredDataset } from './declared';

/** Keys a run assigns: a collated file of several datasets would otherwise carry colliding indices. */
const RUN_KEYS = ['_ng_task_index', '_ng_rollout_index'] as const;
const MAX_SHOWN = 20;
const CHUNK = 1 << 22;

export interface CollateResult {
  /** `rows`: the lines written, each dataset's rows times its num_repeats. */
  readonly outputs: { type: string; file: string; rows: number }[];
  /** `rows`: the dataset file's own rows. */
  readonly datasets: { instance: string; name: string; type: string; file: string; rows: number; repeats: number }[];
}

export interface CollateOptions {
  readonly datasets: readonly DeclaredDataset[];
  readonly mode: CollateMode;
  readonly outputDir: string;
  /** Finds a dataset's jsonl_fpath (relative paths are looked up like config paths). */
  readonly locate: (dataset: DeclaredDataset) => string;
  readonly onProgress?: (rows: number) => void;
}

export async function collate(opts: CollateOptions): Promise<CollateResult> {
  const types: readonly string[] = MODES[opts.mode];
  const chosen = opts.datasets.filter((d) => types.includes(d.type));
  if (chosen.length === 0) {
    const declared = opts.datasets.map((d) => `${d.instance}/${d.name} (${d.type})`).join(', ') || 'none';
    throw new GymError('BAD_INPUT', `no declared dataset is of type ${types.join(' or ')} (mode ${opts.mode}); declared: ${declared}`);
  }
  const files = chosen.map((d) => ({ dataset: d, file: opts.locate(d) }));
  await mkdir(opts.outputDir, { recursive: true });
  const writers = new Map<string, Writer>();
  for (const type of new Set(chosen.map((d) => d.type))) {
    const file = path.join(opts.outputDir, `${type}.jsonl`);
    const tmp = `${file}.${process.pid}.tmp`;
    writers.set(type, { file, tmp, out: createWriteStream(tmp), rows: 0, batch: [], batchBytes: 0 });
  }
  const problems: string[] = [];
  const counts: CollateResult['datasets'] = [];
  let seen = 0;
  try {
    for (const { dataset, file } of files) {
      const env = getEnvironment(dataset.env);
      const writer = writers.get(dataset.type)!;
      const stamp: Record<string, unknown> = { task_source: dataset.instance };
      if (dataset.instanceType === 'responses_api_agents') stamp.agent_ref = { type: 'responses_api_agents', name: dataset.instance };
      // NeMo Gym's DatasetConfig.num_repeats: each line written that many times in a row (abc → aabbcc), so a
      // run counts the identical lines as repeats of one task (src/routing/from-config.ts).
      const repeats = dataset.num_repeats ?? 1;
      let rows = 0;
      await eachLine(file, async (text, line) => {
        seen++;
        if (seen % 100_000 === 0) opts.onProgress?.(seen);
        const where = `${file}:${line}`;
        if (text === undefined) return void problems.push(`${where}: not valid UTF-8 (save the file as UTF-8)`);
        let row: unknown;
        try {
          row = JSON.parse(text);
        } catch (e) {
          return void problems.push(`${where}: not valid JSON (${(e as Error).message})`);
        }
        const found = taskProblems(row, env);
        if (found.length > 0) {
          for (const p of found) problems.push(`${where}: ${p}`);
          return;
        }
        rows++;
        writer.rows += repeats;
        const out = stampedLine(text, row as Record<string, unknown>, stamp) + '\n';
        for (let r = 0; r < repeats; r++) writer.batch.push(out);
        writer.batchBytes += out.length * repeats;
        if (writer.batchBytes >= BATCH_BYTES) await flush(writer);
      });
      if (rows === 0 && !problems.some((p) => p.startsWith(`${file}:`))) problems.push(`${file}: has no rows (dataset ${dataset.instance}/${dataset.name})`);
      counts.push({ instance: dataset.instance, name: dataset.name, type: dataset.type, file, rows, repeats });
    }
    for (const w of writers.values()) await flush(w);
    await Promise.all([...writers.values()].map((w) => new Promise<void>((resolve, reject) => w.out.end((e?: Error | null) => (e ? reject(e) : resolve())))));
    if (problems.length > 0) throw await problemsError(problems, opts.outputDir);
    for (const w of writers.values()) await rename(w.tmp, w.file);
  } finally {
    for (const w of writers.values()) {
      w.out.destroy();
      await rm(w.tmp, { force: true });
    }
  }
  return { outputs: [...writers.entries()].map(([type, w]) => ({ type, file: w.file, rows: w.rows })), datasets: counts };
}

/**
 * A valid row with the stamp's keys set and the run's own keys dropped. A row holding none of those keys (the
 * usual case) keeps its own text, the stamp appended before its closing brace: serializing every row again
 * was a quarter of collate's time, and the row's numbers stay exactly as written (`1.0` is not made `1`).
 */
export function stampedLine(text: string, row: Record<string, unknown>, stamp: Record<string, unknown>): string {
  const body = text.trimEnd();
  const clean = body.endsWith('}') && Object.keys(row).length > 0 && !Object.keys(stamp).some((k) => k in row) && !RUN_KEYS.some((k) => k in row);
  if (clean) return `${body.slice(0, -1)},${JSON.stringify(stamp).slice(1)}`;
  const stamped: Record<string, unknown> = { ...row, ...stamp };
  for (const key of RUN_KEYS) delete stamped[key];
  return JSON.stringify(stamped);
}

interface Writer {
  file: string;
  tmp: string;
  out: WriteStream;
  rows: number;
  /** Lines not yet written: one write per megabyte, not per row, since rows are small and many. */
  batch: string[];
  batchBytes: number;
}

const BATCH_BYTES = 1 << 20;

async function flush(w: Writer): Promise<void> {
  if (w.batch.length === 0) return;
  const ok = w.out.write(w.batch.join(''));
  w.batch = [];
  w.batchBytes = 0;
  if (!ok) await new Promise<void>((resolve) => w.out.once('drain', () => resolve()));
}

async function problemsError(problems: string[], outputDir: string): Promise<GymError> {
  const shown = problems.slice(0, MAX_SHOWN);
  if (problems.length > MAX_SHOWN) {
    const list = path.join(outputDir, 'collate_problems.txt');
    await writeFile(list, problems.join('\n') + '\n');
    shown.push(`… and ${problems.length - MAX_SHOWN} more; all ${problems.length} are listed in ${list}`);
  }
  return new GymError('BAD_INPUT', `collation found ${problems.length} problem(s); nothing was written`, shown);
}

/**
 * Each non-blank line's text (undefined when it is not valid UTF-8, which is refused rather than repaired)
 * with its 1-based line number, the last line included when it has no newline.
 */
async function eachLine(file: string, onLine: (text: string | undefined, line: number) => Promise<void>): Promise<void> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new GymError('NOT_FOUND', `dataset file ${file} does not exist`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const fh = await open(file, 'r');
  let line = 0;
  const take = async (bytes: Buffer) => {
    line++;
    let text: string | undefined;
    try {
      text = decoder.decode(bytes);
    } catch {
      text = undefined;
    }
    if (text === undefined || text.trim() !== '') await onLine(text, line);
  };
  try {
    let carry = Buffer.alloc(0);
    for (let pos = 0; ;) {
      const chunk = Buffer.allocUnsafe(CHUNK);
      const { bytesRead } = await fh.read(chunk, 0, CHUNK, pos);
      if (bytesRead === 0) break;
      pos += bytesRead;
      const buf = carry.length ? Buffer.concat([carry, chunk.subarray(0, bytesRead)]) : chunk.subarray(0, bytesRead);
      let start = 0;
      for (let nl = buf.indexOf(0x0a); nl >= 0; nl = buf.indexOf(0x0a, start)) {
        await take(buf.subarray(start, nl));
        start = nl + 1;
      }
      carry = Buffer.from(buf.subarray(start));
    }
    if (carry.length) await take(carry);
  } finally {
    await fh.close();
  }
}
