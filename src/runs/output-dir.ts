// The run folder given to --output, checked before anything starts: made if missing, and proven to be
// a directory this process can write, so a bad path is a clear flag error rather than a failure mid-run.
// A fresh run into a reused folder first clears the reports an earlier run left there.
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { GymError } from '../errors';
import { SUMMARY_FILE, VERDICTS_FILE } from '../health/types';
import { NEMO_GYM_FILES } from '../store/nemo-gym-files';

function reason(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EROFS') return 'the file system is read-only';
  if (code === 'ENOSPC') return 'the disk is full';
  return code ?? (e as Error).message;
}

function isDirectory(p: string, flag: string): boolean | undefined {
  try {
    // Without a thrown ENOENT: a missing folder is the usual case (the trigger API checks one per request).
    return statSync(p, { throwIfNoEntry: false })?.isDirectory();
  } catch (e) {
    // ENOTDIR: an ancestor is a file; walking up finds which one.
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new GymError('BAD_FLAG', `${flag} ${p}: cannot look at it (${reason(e)})`);
  }
}

/**
 * The folders missing above `dir`, nearest existing ancestor first; refuses a path whose nearest existing part
 * is a file. Makes nothing: the trigger API checks a run's folder this way and makes it when the run starts.
 */
export function missingFolders(dir: string, flag = '--output'): string[] {
  const missing: string[] = [];
  let at = dir;
  let kind = isDirectory(at, flag);
  while (kind === undefined) {
    missing.unshift(at);
    const parent = path.dirname(at);
    if (parent === at) break;
    at = parent;
    kind = isDirectory(at, flag);
  }
  if (kind === false) {
    throw new GymError('BAD_FLAG', at === dir ? `${flag} ${dir} is a file, not a folder; choose a folder for the run` : `${flag} ${dir} cannot be made: ${at} is a file, not a folder`);
  }
  return missing;
}

/** Makes each missing folder from the nearest existing ancestor down, naming the ancestor that is a file. */
function makeFolders(dir: string, flag: string): void {
  for (const folder of missingFolders(dir, flag)) {
    try {
      mkdirSync(folder);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST' && isDirectory(folder, flag)) continue;
      throw new GymError('BAD_FLAG', `${flag} ${dir} cannot be made: cannot create ${folder} (${reason(e)})`);
    }
  }
}

/** Creates `dir` if missing and checks, with a real write, that the run can write files in it. */
export function checkOutputDir(dir: string, flag = '--output'): void {
  makeFolders(dir, flag);
  const probe = path.join(dir, `.gym-write-probe-${process.pid}`);
  try {
    writeFileSync(probe, '');
  } catch (e) {
    throw new GymError('BAD_FLAG', `${flag} folder ${dir} is not writable (${reason(e)}); choose a folder you can write to`);
  }
  rmSync(probe, { force: true });
}

/**
 * Reports that describe one run's outcome: left by an earlier run in a reused folder, they would be read
 * as the fresh run's (its sidecar rollouts counted as failed, its verdicts shown for rollouts not played).
 */
export const OUTCOME_REPORTS = ['failures.jsonl', VERDICTS_FILE, SUMMARY_FILE, 'exports.json', 'wandb', 'report.html', ...Object.values(NEMO_GYM_FILES)] as const;

/** Removes an earlier run's failure, health and export reports; only for a fresh run, never a resumed one. */
export async function clearOutdatedReports(dir: string): Promise<void> {
  await Promise.all(OUTCOME_REPORTS.map((name) => rm(path.join(dir, name), { force: true, recursive: true })));
}
