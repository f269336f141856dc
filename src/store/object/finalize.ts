// A run in the object store, brought to a run folder and back: before the finalizer aggregates, the result
// objects become the folder's canonical rollouts.jsonl and failures.jsonl (each rollout once, its record over
// any sidecar record, else its latest attempt's) beside the manifest, tasks and model call records; after it,
// the folder's finished files (results, metrics, health, exports) go back into the store.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FailureRecord, RolloutRecord } from '../../schemas/records';
import { writeFileAtomic } from '../jsonl';
import { ResultsLog } from '../results-log';
import { ObjectRunFiles, parseResultObject, RESULT_DIRS } from './run-objects';

/** Object reads in flight at once while a run is brought over. */
const READS_IN_FLIGHT = 32;

async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}

async function readRecords(files: ObjectRunFiles, names: string[]): Promise<Record<string, unknown>[]> {
  const records: Record<string, unknown>[] = [];
  await eachLimited(names, READS_IN_FLIGHT, async (name) => {
    const text = await files.store.get(name);
    const record = text === undefined ? undefined : parseResultObject(text);
    if (record) records.push(record);
  });
  return records;
}

/** The latest attempt's sidecar object of each rollout (names sort by attempt: `<id>/a0001.json`). */
export function latestAttempts(names: string[]): string[] {
  const latest = new Map<string, string>();
  for (const name of names) {
    const id = path.posix.dirname(name);
    const held = latest.get(id);
    if (!held || held < name) latest.set(id, name);
  }
  return [...latest.values()];
}

/** Brings the run's manifest, tasks, model call records and results from the store into `runDir`. */
export async function pullRun(files: ObjectRunFiles, runDir: string): Promise<void> {
  await mkdir(runDir, { recursive: true });
  for (const name of ['manifest.json', 'tasks.jsonl']) {
    const bytes = await files.store.getBytes(name);
    if (bytes) await writeFileAtomic(path.join(runDir, name), Buffer.from(bytes).toString('utf8'));
  }
  const calls = path.join(runDir, 'model_calls');
  await mkdir(calls, { recursive: true });
  // Call record objects never change: only those not here yet are read.
  const missing = (await files.store.list('model_calls')).filter((name) => !existsSync(path.join(runDir, name)));
  await eachLimited(missing, READS_IN_FLIGHT, async (name) => {
    const bytes = await files.store.getBytes(name);
    if (bytes) await writeFile(path.join(runDir, name), bytes);
  });
  // The folder's results log keeps each id once: a rollout's record replaces a sidecar line an earlier finalize wrote.
  const log = new ResultsLog(runDir);
  const recorded = await files.store.list(RESULT_DIRS.rollout);
  await log.appendRollouts((await readRecords(files, recorded)) as unknown as RolloutRecord[]);
  await dropRecordedJournals(files, recorded);
  const failures = latestAttempts((await files.store.list(RESULT_DIRS.failure)).map((n) => n.slice(RESULT_DIRS.failure.length + 1)));
  await log.appendFailures(
    (await readRecords(
      files,
      failures.map((n) => `${RESULT_DIRS.failure}/${n}`),
    )) as unknown as FailureRecord[],
  );
}

/** `work/<rollout id>/<n>.json` → the rollout id; undefined for the attempts set aside (`work/attempts/…`). */
export function journalRollout(name: string): string | undefined {
  const m = /^work\/([^/]+)\/[^/]+$/.exec(name);
  return m && m[1] !== 'attempts' ? m[1] : undefined;
}

/**
 * Removes what is left of recorded rollouts' journals. A try removes its rollout's journal once the record is
 * written, but a stalled try of the same rollout (one Temporal had given up on and retried) can still append
 * an entry after that: harmless to the results (the record is written once), it would stay in the bucket.
 */
async function dropRecordedJournals(files: ObjectRunFiles, recorded: string[]): Promise<void> {
  const ids = new Set(recorded.map((name) => path.posix.basename(name, '.json')));
  const left = (await files.store.list('work')).filter((name) => ids.has(journalRollout(name) ?? ''));
  await eachLimited(left, READS_IN_FLIGHT, (name) => files.store.remove(name));
}

/** What of a run folder is not the run's to publish: the results log's lock and markers, temp files, probes. */
const LOCAL_ONLY = /^(results\.(lock|rotate).*|.*\.tmp-.*|.*\.(old|new)-.*|\.gym-write-probe-.*)$/;

/** Puts the run folder's finished top-level files (results, metrics, health, reports, exports) into the store. */
export async function pushRun(files: ObjectRunFiles, runDir: string): Promise<string[]> {
  const names: string[] = [];
  for (const name of await readdir(runDir)) {
    if (LOCAL_ONLY.test(name)) continue;
    if (!(await stat(path.join(runDir, name))).isFile()) continue;
    names.push(name);
  }
  await eachLimited(names, 8, async (name) => files.store.put(name, await readFile(path.join(runDir, name))));
  return names;
}
